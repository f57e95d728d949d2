//! Folder walks for `put DIR`: regular files only, hidden files and
//! folders and editors' temporary files skipped, `.gitignore` / `.ignore` rules honoured (in and out of
//! git repositories, as ripgrep does), `-x GLOB` exclusions (gitignore
//! syntax, relative to the folder), symbolic links followed with loops
//! detected, sorted, and capped.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

use super::read::{not_regular, open_failure};
use crate::error::{Error, Result};

/// Editors' temporary and backup files, and partial downloads: never notes.
pub const TEMPORARY_FILES: &[&str] = &[
    "*~",
    "*.swp",
    "*.swx",
    "*.tmp",
    "*.part",
    "*.crdownload",
    "#*#",
    "4913",
];

/// Default cap on files taken from one folder.
pub const DEFAULT_MAX_FILES: usize = 100_000;

#[derive(Debug, Clone)]
pub struct WalkOptions {
    pub recursive: bool,
    pub excludes: Vec<String>,
    pub max_files: usize,
    /// Canonical folders the walk may not leave: a link that points out of
    /// them is neither followed nor named beyond its own path.
    pub confine: Vec<PathBuf>,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            recursive: false,
            excludes: Vec::new(),
            max_files: DEFAULT_MAX_FILES,
            confine: Vec::new(),
        }
    }
}

#[derive(Debug, Default)]
pub struct Walked {
    pub files: Vec<PathBuf>,
    /// Paths that could not be walked, with the reason.
    pub failures: Vec<(String, String)>,
    /// Set when the cap cut the walk short.
    pub capped: bool,
}

/// The files under `dir` that `put` should take.
pub fn walk(dir: &Path, opts: &WalkOptions) -> Result<Walked> {
    let mut overrides = OverrideBuilder::new(dir);
    for glob in TEMPORARY_FILES {
        overrides
            .add(&format!("!{glob}"))
            .map_err(|e| Error::invalid(format!("bad exclude pattern '{glob}': {e}")))?;
    }
    for glob in &opts.excludes {
        overrides
            .add(&format!("!{glob}"))
            .map_err(|e| Error::invalid(format!("bad exclude pattern '{glob}': {e}")))?;
    }
    let overrides = overrides
        .build()
        .map_err(|e| Error::invalid(format!("bad exclude pattern: {e}")))?;
    let mut builder = WalkBuilder::new(dir);
    builder
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .ignore(true)
        .parents(true)
        .follow_links(true)
        .overrides(overrides)
        .sort_by_file_path(|a, b| a.cmp(b))
        .max_depth(if opts.recursive { None } else { Some(1) });
    let escapes = Arc::new(Mutex::new(Vec::new()));
    if !opts.confine.is_empty() {
        let roots = opts.confine.clone();
        let escapes = Arc::clone(&escapes);
        builder.filter_entry(move |entry| {
            let inside = !entry.path_is_symlink()
                || entry
                    .path()
                    .canonicalize()
                    .map_or(true, |real| roots.iter().any(|r| real.starts_with(r)));
            if !inside {
                escapes.lock().unwrap_or_else(|p| p.into_inner()).push((
                    entry.path().display().to_string(),
                    "is a link out of the allowed folders; skipped".to_string(),
                ));
            }
            inside
        });
    }
    let mut walked = Walked::default();
    for entry in builder.build() {
        match entry {
            Ok(entry) => {
                let Some(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    continue;
                }
                if !kind.is_file() {
                    walked
                        .failures
                        .push((entry.path().display().to_string(), not_regular(kind)));
                    continue;
                }
                if walked.files.len() >= opts.max_files {
                    walked.capped = true;
                    break;
                }
                walked.files.push(entry.into_path());
            }
            Err(e) => walked.failures.push(describe(&e)),
        }
    }
    walked
        .failures
        .extend(escapes.lock().unwrap_or_else(|p| p.into_inner()).drain(..));
    walked.failures.sort();
    Ok(walked)
}

/// The path and the reason of a walk error, one line.
fn describe(e: &ignore::Error) -> (String, String) {
    match e {
        ignore::Error::WithPath { path, err } => match io_error(err) {
            Some(io) => (path.display().to_string(), open_failure(path, io)),
            None => (path.display().to_string(), reason(err)),
        },
        ignore::Error::WithDepth { err, .. } => describe(err),
        ignore::Error::Loop { child, .. } => (
            child.display().to_string(),
            "a symbolic link loop; skipped".to_string(),
        ),
        other => (String::new(), reason(other)),
    }
}

/// The I/O error under any depth wrappers.
fn io_error(e: &ignore::Error) -> Option<&std::io::Error> {
    match e {
        ignore::Error::Io(io) => Some(io),
        ignore::Error::WithDepth { err, .. } => io_error(err),
        _ => None,
    }
}

fn reason(e: &ignore::Error) -> String {
    match e {
        ignore::Error::Io(io) => {
            let text = io.to_string();
            match text.strip_prefix("IO error for operation on ") {
                Some(rest) => rest.rsplit_once(": ").map_or(rest, |(_, r)| r).to_string(),
                None => text,
            }
        }
        ignore::Error::WithPath { err, .. } | ignore::Error::WithDepth { err, .. } => reason(err),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_ignored_and_excluded_files_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("sub/deeper")).unwrap();
        std::fs::create_dir_all(d.join(".hidden")).unwrap();
        for f in [
            "a.md",
            "b.log",
            ".secret",
            "sub/c.txt",
            "sub/deeper/d.txt",
            ".hidden/e.txt",
            "build.out",
        ] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        std::fs::write(d.join(".gitignore"), "*.out\n").unwrap();
        std::os::unix::fs::symlink(d, d.join("sub/loop")).unwrap();
        let names = |w: &Walked| -> Vec<String> {
            w.files
                .iter()
                .map(|p| p.strip_prefix(d).unwrap().display().to_string())
                .collect()
        };
        let flat = walk(d, &WalkOptions::default()).unwrap();
        assert_eq!(names(&flat), ["a.md", "b.log"]);
        let opts = WalkOptions {
            recursive: true,
            excludes: vec!["*.log".into()],
            ..WalkOptions::default()
        };
        let deep = walk(d, &opts).unwrap();
        assert_eq!(names(&deep), ["a.md", "sub/c.txt", "sub/deeper/d.txt"]);
        assert!(
            deep.failures.iter().any(|(_, r)| r.contains("loop")),
            "{:?}",
            deep.failures
        );
        let capped = walk(
            d,
            &WalkOptions {
                recursive: true,
                max_files: 2,
                ..WalkOptions::default()
            },
        )
        .unwrap();
        assert!(capped.capped && capped.files.len() == 2);
    }

    #[test]
    fn pipes_are_reported_and_links_out_of_a_confined_walk_are_not_followed() {
        let outside = tempfile::tempdir().unwrap();
        for i in 0..5 {
            std::fs::write(outside.path().join(format!("secret{i}.txt")), "x").unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("mine.txt"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret0.txt"), root.join("one.txt"))
            .unwrap();
        let fifo = std::ffi::CString::new(root.join("pipe.txt").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let opts = WalkOptions {
            recursive: true,
            confine: vec![root.clone()],
            ..WalkOptions::default()
        };
        let walked = walk(&root, &opts).unwrap();
        assert_eq!(walked.files, [root.join("mine.txt")]);
        let named: Vec<&str> = walked.failures.iter().map(|(p, _)| p.as_str()).collect();
        assert!(
            named.iter().all(|p| p.starts_with(root.to_str().unwrap())),
            "{named:?}"
        );
        assert!(!named.iter().any(|p| p.contains("secret")), "{named:?}");
        assert_eq!(walked.failures.len(), 3, "{:?}", walked.failures);
        assert!(
            walked
                .failures
                .iter()
                .any(|(p, r)| p.ends_with("pipe.txt") && r.contains("named pipe"))
        );
        let free = walk(
            &root,
            &WalkOptions {
                recursive: true,
                ..WalkOptions::default()
            },
        )
        .unwrap();
        assert_eq!(free.files.len(), 7, "unconfined walks still follow links");
        assert!(free.failures.iter().any(|(p, _)| p.ends_with("pipe.txt")));
    }
}
