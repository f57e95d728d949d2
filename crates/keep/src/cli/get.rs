//! `keep get`: show notes, versions and parts.

use clap_complete::ArgValueCompleter;

use super::complete;
use keep_core::Keeper;
use keep_core::keeper::{NoteView, parse_filters};
use keep_core::model::{NoteRef, Selector, TagFilter};
use serde_json::Value;

use super::output::Format;
use super::{CliError, CliResult, Ctx, Failures, Status};
use crate::render::json::{
    self, HistoryJson, PartJson, PartsJson, SimilarJson, VersionJson, ViewJson,
};
use crate::render::text::{change_label, first_line, part_line};

/// Show notes, an archived version (ID@V{N}) or a part (ID@P{N}).
///
/// Prints each note as frontmatter (id, tags, edges, versions, parts,
/// timestamps) followed by '---' and its summary. Edges list the notes this
/// one links to through edge tags (author, references, ...) and, under the
/// inverse name (authored, referenced-by, ...), the notes that link to it.
/// Reading a note records its access time (not while another writer holds
/// the store: a read never waits). Exits 1 if any id is unknown.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Note ids, optionally with @V{N} or @P{N}
    #[arg(required = true, value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub ids: Vec<String>,

    /// Show version N: 0 current, 1 previous, negative counts from the oldest (-1 = oldest)
    #[arg(
        short = 'V',
        long = "at-version",
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub version: Option<i64>,

    /// Show the state that held then (the latest begun by WHEN): a date, a timestamp, a duration back from now or a spoken day
    #[arg(long, value_name = "WHEN", conflicts_with = "version")]
    pub as_of: Option<String>,

    /// List the note's versions (current first) instead of showing it
    #[arg(long, conflicts_with_all = ["version", "as_of"])]
    pub history: bool,

    /// List the note's parts (ID@P{N} and the start of each) instead of showing it
    #[arg(long, conflicts_with_all = ["version", "history", "as_of"])]
    pub parts: bool,

    /// List the notes most similar in meaning to each note instead of showing it
    #[arg(long, conflicts_with_all = ["version", "history", "parts", "as_of"])]
    pub similar: bool,

    /// With --similar, show at most N notes
    #[arg(
        short = 'n',
        long,
        value_name = "N",
        default_value_t = 10,
        requires = "similar"
    )]
    pub limit: usize,

    /// Only show notes that have this tag (KEY or KEY=VALUE, repeatable)
    #[arg(short = 't', long = "tag", value_name = "KEY[=VALUE]", add = ArgValueCompleter::new(complete::tag))]
    pub tags: Vec<String>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let filters = parse_filters(&args.tags)?;
    let mut failures = Failures::default();
    let mut shown = 0;
    let mut json_items = Vec::new();
    for arg in &args.ids {
        match show_one(ctx, arg, &args, &filters) {
            Ok(None) => {}
            Ok(Some(value)) => {
                shown += 1;
                json_items.push(value);
            }
            Err(e) => failures.record(&mut ctx.out, e)?,
        }
    }
    if ctx.format == Format::Json {
        ctx.out.json(&Value::Array(json_items))?;
    }
    if shown == 0 && failures.status() == Status::Success && !filters.is_empty() {
        return Ok(Status::Failed(1));
    }
    Ok(failures.status())
}

/// Shows one argument; returns its JSON form, or None when filtered out.
fn show_one(
    ctx: &mut Ctx,
    arg: &str,
    args: &Args,
    filters: &[TagFilter],
) -> Result<Option<Value>, CliError> {
    let keeper = ctx.keeper()?;
    let mut target = keeper.resolve(arg)?;
    if let Some(n) = args.version {
        if target.selector.is_some() {
            return Err(CliError::Usage(format!(
                "'{arg}' already selects a version or part; drop -V"
            )));
        }
        target.selector = Some(Selector::Version(n));
    }
    if args.history {
        return show_history(ctx, &target, filters);
    }
    if args.parts {
        return show_parts(ctx, &target, filters);
    }
    if args.similar {
        if let Some(notice) = ctx.keeper()?.embed_before_search() {
            ctx.out.notice(&notice);
        }
        let result = ctx.keeper()?.similar(&target.id, args.limit)?;
        super::find::print_hits(ctx, &result)?;
        return Ok(Some(to_value(&SimilarJson {
            id: target.id.clone(),
            similar: json::hits(&result),
        })));
    }
    let keeper = ctx.keeper()?;
    let as_of = match &args.as_of {
        Some(when) => {
            needs_plain_id(&target, "--as-of picks the version")?;
            Some(keep_core::model::dates::parse_instant(when, keeper.now())?)
        }
        None => None,
    };
    let view = match as_of {
        Some(at) => keeper.view_as_of(&target.id, at)?,
        None => keeper.view(&target)?,
    };
    if !filters.iter().all(|f| f.matches(&view.note.tags)) {
        return Ok(None);
    }
    let view = match as_of {
        Some(at) => keeper.get_as_of(&target.id, at)?,
        None => keeper.get(&target)?,
    };
    warn_if_in_trash(ctx, &target.id, &view.note.tags);
    render(ctx, &target, &view)?;
    Ok(Some(to_value(&ViewJson::full(&view))))
}

/// Says on stderr that a note shown is in the trash, since when and why.
fn warn_if_in_trash(ctx: &mut Ctx, id: &str, tags: &keep_core::model::Tags) {
    use keep_core::model::keys;
    let Some(when) = tags.first(keys::DELETED) else {
        return;
    };
    let why = tags
        .first(keys::DELETED_REASON)
        .map(|r| format!(" ({r})"))
        .unwrap_or_default();
    ctx.out.warn(&format!(
        "'{id}' is in the trash since {when}{why}; keep restore {} brings it back",
        super::shell_quote(id)
    ));
}

fn render(ctx: &mut Ctx, target: &NoteRef, view: &NoteView) -> Result<(), CliError> {
    match ctx.format {
        Format::Json => {}
        Format::Ids => ctx.out.line(&target.to_string())?,
        Format::Text => ctx.out.note_view(view)?,
    }
    Ok(())
}

/// Refuses an id with a version or part selector for a view of the whole
/// note (`why` names the view).
fn needs_plain_id(target: &NoteRef, why: &str) -> Result<(), CliError> {
    match target.selector {
        Some(_) => Err(CliError::Usage(format!(
            "'{target}': {why}; give the plain id"
        ))),
        None => Ok(()),
    }
}

fn show_parts(
    ctx: &mut Ctx,
    target: &NoteRef,
    filters: &[TagFilter],
) -> Result<Option<Value>, CliError> {
    needs_plain_id(target, "--parts lists every part")?;
    let view = ctx.keeper()?.view(target)?;
    if !filters.iter().all(|f| f.matches(&view.note.tags)) {
        return Ok(None);
    }
    let id = &target.id;
    for part in &view.parts {
        match ctx.format {
            Format::Json => {}
            Format::Ids => ctx.out.line(&format!("{id}@P{{{}}}", part.number))?,
            Format::Text => ctx.out.line(&format!(
                "{id}@P{{{}}}  {}",
                part.number,
                part_line(&part.summary)
            ))?,
        }
    }
    Ok(Some(to_value(&PartsJson {
        id: id.clone(),
        parts: view.parts.iter().map(PartJson::from).collect(),
    })))
}

fn show_history(
    ctx: &mut Ctx,
    target: &NoteRef,
    filters: &[TagFilter],
) -> Result<Option<Value>, CliError> {
    needs_plain_id(target, "--history shows every version")?;
    let keeper: &Keeper = ctx.keeper()?;
    let current = keeper
        .peek(&target.id)?
        .ok_or_else(|| keep_core::Error::NotFound(target.id.clone()))?;
    if !filters.iter().all(|f| f.matches(&current.tags)) {
        return Ok(None);
    }
    let history = keeper.history(&target.id)?;
    let id = target.id.clone();
    let versions = VersionJson::all(&current, &history);
    for v in &versions {
        match ctx.format {
            Format::Json => {}
            Format::Ids => ctx.out.line(&format!("{id}@V{{{}}}", v.version))?,
            Format::Text => ctx.out.line(&format!(
                "{id}@V{{{}}}  {}  {}  [{}]",
                v.version,
                v.updated.short(),
                first_line(&v.summary),
                change_label(&v.changed)
            ))?,
        }
    }
    Ok(Some(to_value(&HistoryJson { id, versions })))
}

/// The JSON value of one argument's result; `get` prints them as one array.
fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("JSON forms serialise")
}
