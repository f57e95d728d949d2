//! `keep import`: read notes from a `keep export` file, or conversations
//! from a chat export.

use std::io::{BufReader, Read};
use std::path::PathBuf;

use super::output::Format;
use super::{CliResult, Ctx, Status};
use keep_core::Error;
use keep_core::keeper::ImportStep;

/// Import notes from a file written by 'keep export', or conversations (--format chat).
///
/// The whole file is checked first; a malformed line stops the import with
/// its line number and nothing is written. Then the file's log is added,
/// and the notes land with their tags, timestamps, history and parts in
/// transactions of 5,000 notes, the file read again rather than held:
/// memory stays small whatever its size (standard input, or a pipe named
/// as FILE, is first copied to a temporary file). An import stopped part way (killed, a full disk)
/// is completed by importing the same file again. Ids already in the
/// store are left untouched and counted as skipped (-v lists them); a
/// stub, a note that only exists as the target of a link, is filled in.
///
/// Vectors in the file are loaded when they come from the store's model
/// (or the store has none yet), so nothing needs embedding; vectors of
/// another model, or of the wrong length, are refused with one line each
/// on stderr and those notes wait for embedding ('keep reindex').
///
/// With --format chat, FILE is a chat export: ChatGPT's conversations.json,
/// Claude's conversations.json, JSON Lines of turns ({"session", "time",
/// "speaker", "text"} on each line) or a Markdown chat log ('# Title'
/// starts a session; '**Speaker:** text' or '[TIME] Speaker: text' starts
/// a turn). Each conversation becomes one note (chat/FORMAT/ID, from the
/// export's own conversation id) dated by its first turn, with one part
/// per turn (ID@P{N}, tagged with its speaker and time): find returns the
/// turn that matched. Importing the same export again changes nothing; a
/// longer export of a conversation makes its next version. A damaged file
/// is refused naming the line, and nothing is written; so is an export over
/// 512 MiB (split it).
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Export file, or '-' for standard input
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// What FILE holds: a 'keep export' file (export) or a chat export (chat)
    #[arg(long, value_enum, default_value_t = ImportFormat::Export)]
    #[serde(default)]
    pub format: ImportFormat,

    /// Also list the ids that were skipped, one per line on stderr
    #[arg(short = 'v', long)]
    pub verbose: bool,

    /// Keep secrets (private keys, tokens, passwords) in a chat export as written instead of replacing each with a marker
    #[arg(long)]
    #[serde(default)]
    pub allow_secrets: bool,
}

#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ImportFormat {
    /// A file written by 'keep export'
    #[default]
    Export,
    /// A chat export: ChatGPT or Claude conversations.json, JSON Lines of turns, a Markdown chat log
    Chat,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    if args.format == ImportFormat::Chat {
        return import_chat(ctx, &args);
    }
    let (mut input, name) = if args.file.as_os_str() == "-" {
        (
            spooled(&mut ctx.stdin.reader(), "<stdin>")?,
            "<stdin>".to_string(),
        )
    } else {
        let name = args.file.display().to_string();
        let mut file = std::fs::File::open(&args.file).map_err(|e| Error::io(&args.file, e))?;
        let regular = file
            .metadata()
            .map_err(|e| Error::io(&args.file, e))?
            .is_file();
        if regular {
            (file, name)
        } else {
            (spooled(&mut file, &name)?, name)
        }
    };
    let bars = ctx.out.bars();
    let mut steps = [
        (
            ImportStep::Checking,
            bars.counting("checking every line (bytes)"),
        ),
        (ImportStep::Log, bars.counting("adding the log (bytes)")),
        (ImportStep::Notes, bars.counting("importing")),
    ];
    let mut progress = |step: ImportStep, done: usize, total: usize| {
        for (at, bar) in &mut steps {
            if *at == step {
                bar.step(done, total);
            } else {
                bar.finish();
            }
        }
    };
    let outcome = ctx
        .keeper()?
        .import(&mut BufReader::new(&mut input), &name, &mut progress);
    for (_, bar) in &steps {
        bar.finish();
    }
    let outcome = outcome?;
    for notice in &outcome.notices {
        ctx.out.notice(notice);
    }
    for r in &outcome.redacted {
        super::put::tell_redacted(&mut ctx.out, &r.id, &r.secrets);
    }
    match ctx.format {
        Format::Json => ctx.out.json(&outcome)?,
        Format::Ids => {}
        Format::Text => {
            let log = match outcome.log_entries {
                0 => String::new(),
                n => format!(" with {n} log entr{}", if n == 1 { "y" } else { "ies" }),
            };
            if outcome.resumed {
                ctx.out.note(&format!(
                    "{name}: an earlier import of this file stopped part way; this one completed it"
                ));
            }
            ctx.out.line(&format!(
                "imported {} note(s){log}; {} already present and skipped; {} vector(s) loaded, {} waiting for embedding",
                outcome.imported,
                outcome.skipped_count,
                outcome.vectors,
                outcome.waiting
            ))?;
            if args.verbose {
                for id in &outcome.skipped {
                    ctx.out
                        .warn(&format!("skipped '{id}': a note with this id exists"));
                }
                let unlisted = outcome.skipped_count - outcome.skipped.len();
                if unlisted > 0 {
                    ctx.out.warn(&format!("and {unlisted} more skipped"));
                }
            }
        }
    }
    Ok(Status::Success)
}

/// Standard input, a pipe or a device copied to a temporary file, which
/// an import reads more than once (checked whole before anything is
/// written). The file is gone once closed.
fn spooled(input: &mut dyn Read, name: &str) -> Result<std::fs::File, Error> {
    let mut spool = tempfile::tempfile().map_err(|e| Error::io("<temporary file>", e))?;
    std::io::copy(input, &mut spool).map_err(|e| Error::io(name, e))?;
    Ok(spool)
}

/// The largest chat export read (it is parsed whole before anything is
/// written).
const MAX_CHAT_EXPORT_BYTES: u64 = 512 * 1024 * 1024;

/// A chat export as text: at most `MAX_CHAT_EXPORT_BYTES` (a device or an
/// endless pipe is refused once past it), and UTF-8.
fn read_export(reader: impl std::io::Read, name: &str) -> Result<String, Error> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_CHAT_EXPORT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::invalid(format!("{name}: {e}")))?;
    if bytes.len() as u64 > MAX_CHAT_EXPORT_BYTES {
        return Err(Error::invalid(format!(
            "{name}: larger than {} MiB; split the export and import the parts",
            MAX_CHAT_EXPORT_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| Error::invalid(format!("{name}: not UTF-8 text")))
}

/// `--format chat`: the whole export is read, then every conversation is
/// written in one transaction.
fn import_chat(ctx: &mut Ctx, args: &Args) -> CliResult {
    let (text, name, file_day) = if args.file.as_os_str() == "-" {
        let name = "<stdin>".to_string();
        (read_export(ctx.stdin.reader(), &name)?, name, None)
    } else {
        let file = std::fs::File::open(&args.file).map_err(|e| Error::io(&args.file, e))?;
        let name = args.file.display().to_string();
        let written = file
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| keep_core::model::Timestamp::from_millis(d.as_millis() as i64));
        (read_export(file, &name)?, name, written)
    };
    let mut bar = ctx.out.bars().counting("importing conversations");
    let mut progress = |done: usize, total: usize| bar.step(done, total);
    let outcome =
        ctx.keeper()?
            .import_chat(&text, &name, file_day, args.allow_secrets, &mut progress);
    bar.finish();
    let outcome = outcome?;
    for r in &outcome.redacted {
        super::put::tell_redacted(&mut ctx.out, &r.id, &r.secrets);
    }
    match ctx.format {
        Format::Json => ctx.out.json(&outcome)?,
        Format::Ids => {
            for s in &outcome.sessions {
                ctx.out.line(&s.id)?;
            }
        }
        Format::Text => {
            for s in &outcome.sessions {
                ctx.out.line(&format!(
                    "{}  {}  {} turn(s)  {}",
                    crate::render::text::status_word(s.status),
                    s.id,
                    s.turns,
                    s.at.short()
                ))?;
            }
            let count = |status| {
                outcome
                    .sessions
                    .iter()
                    .filter(|s| s.status == status)
                    .count()
            };
            ctx.out.line(&format!(
                "{} conversation(s) from a {} export: {} new, {} longer, {} unchanged",
                outcome.sessions.len(),
                outcome.format,
                count(keep_core::keeper::WriteStatus::Created),
                count(keep_core::keeper::WriteStatus::Updated),
                count(keep_core::keeper::WriteStatus::Unchanged),
            ))?;
        }
    }
    Ok(Status::Success)
}
