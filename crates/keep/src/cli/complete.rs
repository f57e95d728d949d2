//! Completion that knows the store: note ids (and their `@V{N}` / `@P{N}`
//! forms), tag keys and values, theme names. Shells ask the binary itself
//! (`COMPLETE=bash keep`), which answers from the store named by `--store`
//! on the line being completed, `KEEP_STORE` or the default, opened only if
//! it exists. The static scripts in `completions/` cover shells without it.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use clap_complete::CompletionCandidate;
use keep_core::Keeper;
use keep_core::model::{NoteRef, is_system_id};

use crate::config::{Config, Environment};
use crate::tui::theme::BUILT_IN;

/// Ids offered at most.
const MAX_CANDIDATES: usize = 200;

/// The store of the command line being completed, if it exists.
fn open_store() -> Option<(Keeper, Config)> {
    let config = Config::resolve(store_on_the_line(), &Environment::capture()).ok()?;
    let settings = config.settings().ok()?;
    if settings.database.is_none() && !settings.store.join("keep.db").is_file() {
        return None;
    }
    Some((Keeper::open(settings).ok()?, config))
}

/// `--store DIR` or `--store=DIR` among the words being completed.
fn store_on_the_line() -> Option<PathBuf> {
    let args: Vec<OsString> = std::env::args_os().collect();
    args.iter().enumerate().find_map(|(i, a)| {
        let a = a.to_str()?;
        match a.strip_prefix("--store") {
            Some("") => args.get(i + 1).map(PathBuf::from),
            Some(rest) => rest.strip_prefix('=').map(PathBuf::from),
            None => None,
        }
    })
}

/// Note ids starting with what was typed; after `ID@`, its versions and parts.
pub fn note_id(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    let Some((keeper, _)) = open_store() else {
        return Vec::new();
    };
    if let Some((id, _)) = typed.rsplit_once('@')
        && let Ok(view) = keeper.view(&NoteRef::plain(id))
    {
        let versions = (0..=view.history.len()).map(|n| format!("{id}@V{{{n}}}"));
        let parts = view.parts.iter().map(|p| format!("{id}@P{{{}}}", p.number));
        return versions
            .chain(parts)
            .filter(|c| c.starts_with(typed))
            .map(CompletionCandidate::new)
            .collect();
    }
    keeper
        .ids_starting_with(typed, MAX_CANDIDATES)
        .unwrap_or_default()
        .into_iter()
        .filter(|id| typed.starts_with('.') || !is_system_id(id))
        .map(CompletionCandidate::new)
        .collect()
}

/// `key=` for tag keys in use; after `key=`, `key=value` for its values.
pub fn tag(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    let Some((keeper, _)) = open_store() else {
        return Vec::new();
    };
    let catalog = keeper.tag_catalog(MAX_CANDIDATES).unwrap_or_default();
    let candidates: Vec<String> = match typed.split_once('=') {
        Some((key, _)) => catalog
            .iter()
            .filter(|(k, _)| k == key)
            .flat_map(|(k, values)| values.iter().map(move |v| format!("{k}={v}")))
            .collect(),
        None => catalog.iter().map(|(k, _)| format!("{k}=")).collect(),
    };
    candidates
        .into_iter()
        .filter(|c| c.starts_with(typed))
        .map(CompletionCandidate::new)
        .collect()
}

/// Built-in theme names, `monochrome`, and the user's theme files.
pub fn theme(current: &OsStr) -> Vec<CompletionCandidate> {
    let typed = current.to_str().unwrap_or("");
    let mut names: Vec<String> = BUILT_IN.iter().map(|(n, _)| n.to_string()).collect();
    names.push("monochrome".into());
    let themes_dir = Config::resolve(None, &Environment::capture())
        .ok()
        .and_then(|c| c.themes_dir);
    if let Some(entries) = themes_dir.and_then(|d| std::fs::read_dir(d).ok()) {
        names.extend(entries.filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".toml").map(str::to_string)
        }));
    }
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter(|n| n.starts_with(typed))
        .map(CompletionCandidate::new)
        .collect()
}
