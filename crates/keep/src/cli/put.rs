//! `keep put`: store text, standard input, files, folders and URLs.

use clap_complete::ArgValueCompleter;

use super::complete;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use indicatif::ProgressBar;

use keep_core::keeper::{
    DEFAULT_MAX_FILES, IngestOptions, Progress, Target, WalkOptions, WriteOutcome, WriteStatus,
    is_url,
};
use keep_core::model::Tags;

use super::input::Stdin;
use super::output::{Format, Out};
use super::{CliError, CliResult, Ctx, Status, shell_quote};

/// Store text, standard input, files, folders or web pages as notes.
///
/// TEXT is stored under the id %<first 12 hex digits of its sha256>, and
/// '-' (or no argument with piped input) reads standard input. An argument
/// that looks like a path or a URL (it has a '/', starts with '~' or '.',
/// ends in a file extension, or has a scheme) but names nothing is an
/// error, not a note; --text stores any text as text. A file (or a
/// file:// URI) is stored under file:///ABSOLUTE/PATH and a URL under the
/// normalised URL: text, Markdown, HTML, PDF, PostScript, DOCX, PPTX, ODT, ODP, audio tags and images
/// (EXIF tags and the text in them, by OCR). A folder stores its files (-r
/// for subfolders too), skipping hidden files and what .gitignore or
/// .ignore files exclude; -x excludes more. Files are read on background
/// threads, with a progress bar on a terminal.
///
/// Putting the same content again with new tags makes a new version of the
/// same note; an unchanged file changes nothing. Text put without --id is
/// first judged against the notes stored as text (whose tags do not
/// contradict it). A restatement (the same numbers, units, dates, times,
/// versions, identifiers and names, no negation of what the note says, no
/// new content word) is not stored twice: put prints the existing id, says
/// so on stderr and exits 3; --update makes the text that note's next
/// version, --allow-duplicate stores it anyway. Text about the same
/// subject with another detail ("30 minutes" where a note says "30
/// seconds") is a probable update: it is stored, linked to the older note
/// with the tag may-supersede, and 'keep supersede ID' accepts it (with
/// --update it becomes the older note's next version instead).
/// --supersedes ID marks an older note as replaced (recall then hides it);
/// --expires P30D or a date makes the note leave find, list and recall at
/// that time; --at says when the thing happened or began to hold (find,
/// list and get --as-of answer with what held then, --when filters on it). Tags are added to the note's existing tags and win over tags
/// read from the file. Secrets (private keys, API tokens, passwords in URLs
/// and configuration lines) are replaced by a marker naming their kind
/// before anything is stored ('[secret: aws-access-key 3f2a]'), one line on
/// stderr says what was replaced, and the note gets the tag _redacted;
/// --allow-secrets keeps them as written. Prints the id of every note stored; for files,
/// failures are reported one per line on stderr and the exit code is 1
/// when any failed. With --json, "status" says what happened: created,
/// updated, unchanged, duplicate or possible_update.
#[derive(Debug, Default, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Text to store, '-' for standard input, or files, folders and URLs
    #[arg(value_name = "INPUT", conflicts_with = "text")]
    pub inputs: Vec<OsString>,

    /// Store TEXT as text, even if it looks like a path or starts with '-'
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub text: Option<String>,

    /// Store under this id instead of the one derived from the content (one input only)
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,

    /// Add a tag (repeatable)
    #[arg(short = 't', long = "tag", value_name = "KEY=VALUE", add = ArgValueCompleter::new(complete::tag))]
    pub tags: Vec<String>,

    /// Use this summary instead of one made from the content
    #[arg(long, value_name = "TEXT")]
    pub summary: Option<String>,

    /// When it happened or began to hold (default: a file's own date, else now): a duration back from now (P2D), a date, a timestamp or a spoken day (yesterday)
    #[arg(long, value_name = "WHEN")]
    pub at: Option<String>,

    /// The note stops being true after this: an ISO 8601 duration from now (from --at when given: P30D), a date or a timestamp
    #[arg(long, value_name = "WHEN")]
    pub expires: Option<String>,

    /// How much the note matters, 1 to 5 (3 is usual): recall ranks it up to a fifth higher or lower
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=5))]
    #[serde(default)]
    pub importance: Option<u8>,

    /// This note replaces note ID, which recall then hides (repeatable)
    #[arg(long, value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub supersedes: Vec<String>,

    /// When the text restates or probably updates an existing note, store it as that note's next version
    #[arg(long, conflicts_with = "allow_duplicate")]
    pub update: bool,

    /// Store the text even when it restates an existing note
    #[arg(long)]
    pub allow_duplicate: bool,

    /// Keep secrets (private keys, tokens, passwords in URLs and configuration) as written instead of replacing each with a marker
    #[arg(long)]
    #[serde(default)]
    pub allow_secrets: bool,

    /// Also take the files in subfolders of a folder
    #[arg(short = 'r', long)]
    pub recursive: bool,

    /// Leave out files and folders matching GLOB (gitignore syntax; repeatable)
    #[arg(short = 'x', long = "exclude", value_name = "GLOB")]
    pub excludes: Vec<String>,

    /// Also register the folders to be kept indexed by 'keep watch'
    #[arg(long)]
    pub watch: bool,

    /// Take at most N files from each folder
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_FILES)]
    pub max_files: usize,

    /// When files were read, say on stderr where the time went: reading and
    /// extracting (OCR included), summarising, storing, embedding
    #[arg(long)]
    pub timings: bool,
}

enum Input {
    Text(String),
    Sources(Vec<Target>),
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let tags = parse_tags(&args.tags)?;
    let at = match &args.at {
        Some(when) => {
            let now = ctx.keeper()?.now();
            Some(keep_core::model::dates::parse_event_time(when, now)?)
        }
        None => None,
    };
    let expires = match &args.expires {
        Some(when) => {
            let now = ctx.keeper()?.now();
            Some(keep_core::model::time::parse_expiry_from(when, now, at)?)
        }
        None => None,
    };
    let input = match &args.text {
        Some(text) => Input::Text(text.clone()),
        None => read_input(&args.inputs, ctx.config.home.as_deref(), &mut ctx.stdin)?,
    };
    match input {
        Input::Text(_) if args.watch => {
            Err(CliError::Usage("--watch takes folders, not text".into()))
        }
        Input::Text(text) => {
            let outcome = ctx.run(keep_commands::put::Put {
                text,
                id: args.id.clone(),
                tags: args.tags.clone().into(),
                summary: args.summary.clone(),
                at: args.at.clone(),
                expires: args.expires.clone(),
                importance: args.importance,
                supersedes: args.supersedes.clone(),
                update: args.update,
                allow_duplicate: args.allow_duplicate,
                allow_secrets: args.allow_secrets,
            })?;
            print_outcome(ctx, &outcome)?;
            tell_redacted(&mut ctx.out, &outcome.id, &outcome.redacted);
            tell_duplicate(&mut ctx.out, &outcome);
            Ok(status_of(&outcome))
        }
        Input::Sources(targets) => {
            let opts = IngestOptions {
                walk: WalkOptions {
                    recursive: args.recursive,
                    excludes: args.excludes.clone(),
                    max_files: args.max_files,
                    ..WalkOptions::default()
                },
                tags,
                id: args.id.clone(),
                summary: args.summary.clone(),
                at,
                expires,
                supersedes: args.supersedes.clone(),
                importance: args.importance,
                keep_secrets: args.allow_secrets,
                ..IngestOptions::default()
            };
            if args.watch {
                register_watches(ctx, &targets, &args)?;
            }
            ingest(ctx, &targets, &opts, args.timings)
        }
    }
}

/// Registers every folder among `targets` for watching; other inputs are
/// a usage error.
fn register_watches(ctx: &mut Ctx, targets: &[Target], args: &Args) -> Result<(), CliError> {
    for t in targets {
        match t {
            Target::Path(p) if p.is_dir() => {}
            _ => {
                return Err(CliError::Usage(
                    "--watch takes folders only; give files without it".into(),
                ));
            }
        }
    }
    let keeper = ctx.keeper()?;
    for t in targets {
        if let Target::Path(p) = t {
            keeper.add_watch(p, args.recursive, &args.excludes)?;
        }
    }
    Ok(())
}

fn ingest(ctx: &mut Ctx, targets: &[Target], opts: &IngestOptions, timings: bool) -> CliResult {
    let bars = ctx.out.bars();
    let mut bar = ProgressBar::hidden();
    let report = ctx.keeper()?.ingest(targets, opts, &mut |p| match p {
        Progress::Planned { total } => bar = bars.bar(total),
        Progress::Finished { name, .. } => {
            bar.set_message(short_name(name));
            bar.inc(1);
        }
        Progress::Embedding { done, total } => {
            if done == 0 {
                bar.finish_and_clear();
                bar = bars.bar(total);
                bar.set_message("embedding");
            }
            bar.set_position(done as u64);
        }
    })?;
    bar.finish_and_clear();
    for notice in &report.notices {
        ctx.out.notice(notice);
    }
    for f in &report.failed {
        ctx.out.warn(&format!("{}: {}", f.path, f.reason));
    }
    for r in &report.redacted {
        tell_redacted(&mut ctx.out, &r.id, &r.secrets);
    }
    match ctx.format {
        Format::Json => ctx.out.json(&report)?,
        Format::Text | Format::Ids => {
            let mut stored: Vec<&String> = report
                .added
                .iter()
                .chain(&report.updated)
                .chain(&report.unchanged)
                .collect();
            stored.sort();
            for id in stored {
                ctx.out.line(id)?;
            }
        }
    }
    let several =
        report.added.len() + report.updated.len() + report.unchanged.len() + report.failed.len()
            > 1;
    if several {
        ctx.out.warn(&format!(
            "{} added, {} updated, {} unchanged, {} failed{}",
            report.added.len(),
            report.updated.len(),
            report.unchanged.len(),
            report.failed.len(),
            if report.ocr_pending.is_empty() {
                String::new()
            } else {
                format!(", {} waiting for OCR", report.ocr_pending.len())
            }
        ));
    }
    if timings {
        ctx.out.warn(&timings_line(&report.timings));
    }
    Ok(if report.failed.is_empty() {
        Status::Success
    } else {
        Status::Failed(1)
    })
}

/// Where an ingest's time went, as one line: each stage's seconds and its
/// share of the wall time (extraction and OCR are summed over the worker
/// threads, so they can pass 100%).
fn timings_line(t: &keep_core::keeper::Timings) -> String {
    let wall = t.wall.as_secs_f64().max(1e-9);
    let stage = |name: &str, d: std::time::Duration| {
        format!(
            "{name} {:.1} s ({:.0}%)",
            d.as_secs_f64(),
            d.as_secs_f64() * 100.0 / wall
        )
    };
    format!(
        "timings: wall {:.1} s; {}, of which {}; {}; {}; {}",
        t.wall.as_secs_f64(),
        stage("extraction (worker threads)", t.extraction),
        stage("OCR", t.ocr),
        stage("summarising", t.summarising),
        stage("storing", t.storing),
        stage("embedding", t.embedding),
    )
}

/// A bar on stderr when it is a terminal: files done / total, rate, the
/// current file.
fn short_name(name: &str) -> String {
    let count = name.chars().count();
    if count <= 60 {
        return name.to_string();
    }
    let tail: String = name.chars().skip(count - 59).collect();
    format!("…{tail}")
}

pub fn parse_tags(args: &[String]) -> Result<Tags, CliError> {
    Ok(keep_core::model::parse_user_tags(args)?)
}

impl Args {
    /// Whether this put reads standard input.
    pub fn reads_stdin(&self, stdin_is_terminal: bool) -> bool {
        self.text.is_none()
            && match self.inputs.as_slice() {
                [] => !stdin_is_terminal,
                [one] => one == "-",
                _ => false,
            }
    }
}

/// What the arguments of `put` are: one text, or files, folders and URLs.
fn read_input(
    args: &[OsString],
    home: Option<&Path>,
    stdin: &mut Stdin,
) -> Result<Input, CliError> {
    match args {
        [] if stdin.is_terminal() => Err(CliError::Usage(
            "nothing to put: give TEXT, files, folders, URLs, or '-' to read standard input".into(),
        )),
        [] => stdin.read_text().map(Input::Text),
        [one] if one == "-" => stdin.read_text().map(Input::Text),
        [one] => match classify(one, home)? {
            Arg::Text(text) => Ok(Input::Text(text)),
            Arg::Source(target) => Ok(Input::Sources(vec![target])),
        },
        many => many
            .iter()
            .map(|arg| match classify(arg, home)? {
                Arg::Source(target) => Ok(target),
                Arg::Text(text) => Err(CliError::Usage(format!(
                    "'{text}' is not a file, folder or URL (text is put one argument at a time)"
                ))),
            })
            .collect::<Result<_, _>>()
            .map(Input::Sources),
    }
}

/// One argument of `put`, read.
enum Arg {
    Text(String),
    Source(Target),
}

/// A file, folder, link (even a dangling one), file:// URI or URL is a
/// source; what looks like a path or a URL but names nothing is an error;
/// anything else is text. A name that is not UTF-8 can only be a path.
fn classify(arg: &OsString, home: Option<&Path>) -> Result<Arg, CliError> {
    let Some(text) = arg.to_str() else {
        let path = PathBuf::from(arg);
        return if path.symlink_metadata().is_ok() {
            Ok(Arg::Source(Target::Path(path)))
        } else {
            Err(no_such_path(&path.display().to_string()))
        };
    };
    if text.starts_with("file://") {
        return Ok(Arg::Source(Target::Path(path_of_file_uri(text)?)));
    }
    if is_url(text) {
        return Ok(Arg::Source(Target::parse(text)));
    }
    let path = expand_home(text, home);
    if path.symlink_metadata().is_ok() {
        return Ok(Arg::Source(Target::Path(path)));
    }
    if looks_like_path(text) {
        return Err(no_such_path(text));
    }
    Ok(Arg::Text(text.to_string()))
}

/// `~/x` as a path under the home folder (the shell did not expand it).
fn expand_home(text: &str, home: Option<&Path>) -> PathBuf {
    match (text.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ if text == "~" => home.map_or_else(|| PathBuf::from(text), Path::to_path_buf),
        _ => PathBuf::from(text),
    }
}

/// Whether an argument reads as a path or a URL rather than as text: it
/// starts like one (`/`, `~`, `.`, a scheme), or it is one word with a `/`
/// or a file extension.
pub(crate) fn looks_like_path(text: &str) -> bool {
    if text.contains('\n') {
        return false;
    }
    if text.starts_with(['/', '~', '.']) || has_scheme(text) {
        return true;
    }
    if text.contains(char::is_whitespace) {
        return false;
    }
    text.contains('/') || has_extension(text)
}

/// `name://...`
fn has_scheme(text: &str) -> bool {
    text.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

/// `name.ext` with an extension of 1 to 5 letters or digits, at least one
/// a letter (so `3.14` and `v1.2` are text), and a name before the dot.
fn has_extension(text: &str) -> bool {
    text.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && !stem.ends_with('.')
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    })
}

fn no_such_path(text: &str) -> CliError {
    CliError::Hinted {
        message: format!("no such file or folder: {text}"),
        hint: format!(
            "to store this text as a note, use: keep put --text {}",
            shell_quote(text)
        ),
    }
}

fn path_of_file_uri(uri: &str) -> Result<PathBuf, CliError> {
    keep_core::model::path_of_file_id(uri).ok_or_else(|| {
        CliError::Usage(format!(
            "'{uri}' is not a valid file URI: expected file:///absolute/path"
        ))
    })
}

/// Exit status of a put of text: 0 when the text is stored (created, a
/// new version, unchanged, or a probable update stored beside the note it
/// updates), `NOT_STORED` when it was not because a note already says it.
pub fn status_of(outcome: &WriteOutcome) -> Status {
    if outcome.status.stored() {
        Status::Success
    } else {
        Status::Failed(NOT_STORED)
    }
}

/// Exit status of `put` when the text restates a note and nothing was stored.
pub const NOT_STORED: u8 = 3;

/// Says on stderr what happened when the text restates or probably
/// updates a note: not stored, stored as its next version, or stored
/// beside it with a way to accept it as its successor.
fn tell_duplicate(out: &mut Out, outcome: &WriteOutcome) {
    let Some(similarity) = outcome.similarity else {
        return;
    };
    let differs = if outcome.differences.is_empty() {
        String::new()
    } else {
        format!("; differs: {}", outcome.differences.join("; "))
    };
    let said = match (
        &outcome.duplicate_of,
        &outcome.possible_update_of,
        outcome.status,
    ) {
        (Some(existing), _, WriteStatus::Duplicate) => format!(
            "not stored: '{existing}' already says the same (similarity {similarity:.2}); --update makes this its next version, --allow-duplicate stores it anyway"
        ),
        (Some(existing), _, _) => format!(
            "stored as the next version of '{existing}', which it restates (similarity {similarity:.2})"
        ),
        (None, Some(older), WriteStatus::Updated) => format!(
            "stored as the next version of '{older}', which it updates (similarity {similarity:.2}{differs})"
        ),
        (None, Some(older), _) => format!(
            "stored; it may update '{older}' (similarity {similarity:.2}{differs}); 'keep supersede {}' accepts it",
            outcome.id
        ),
        (None, None, _) => return,
    };
    out.warn(&said);
}

/// Says on stderr, one line a note, which secrets a write replaced.
pub fn tell_redacted(out: &mut Out, id: &str, found: &[keep_core::model::secrets::Redaction]) {
    if !found.is_empty() {
        out.warn(&crate::render::text::redaction_line(id, found));
    }
}

pub fn print_outcome(ctx: &mut Ctx, outcome: &WriteOutcome) -> Result<(), CliError> {
    match ctx.format {
        Format::Json => ctx.out.json(outcome)?,
        Format::Text | Format::Ids => ctx.out.line(&outcome.id)?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_urls_are_told_from_text() {
        for path in [
            "/nonexistent/file.txt",
            "notes.md",
            "~/papers",
            "./x",
            "../y",
            ".hidden",
            "dir/sub",
            "s3://bucket/key",
            "report.PDF",
        ] {
            assert!(looks_like_path(path), "{path}");
        }
        for text in [
            "Use WAL mode so readers never block the writer",
            "read/write locks are slow",
            "see sqlite.org for more",
            "3.14",
            "v1.2",
            "hello",
            "a\nb/c.txt",
            "e.g.",
        ] {
            assert!(!looks_like_path(text), "{text}");
        }
    }

    #[test]
    fn a_home_path_is_expanded_and_quoting_is_minimal() {
        let home = Path::new("/home/me");
        assert_eq!(expand_home("~/papers", Some(home)), home.join("papers"));
        assert_eq!(expand_home("~", Some(home)), home);
        assert_eq!(expand_home("x~", Some(home)), PathBuf::from("x~"));
        assert_eq!(shell_quote("notes.md"), "notes.md");
        assert_eq!(shell_quote("it's here"), "'it'\\''s here'");
    }
}
