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
///
/// --format claude-code and --format codex read the transcripts those
/// agents write as they work (Claude Code's ~/.claude/projects/*/*.jsonl,
/// Codex's ~/.codex/sessions/**/rollout-*.jsonl; --format chat tells them
/// apart too), and FILE may be a folder: every .jsonl file under it is
/// imported, each on its own. A transcript is one session
/// (chat/claude-code/SESSION): what the person and the agent said are its
/// turns, each tool call a short turn of speaker 'tool' (the tool's name
/// and the start of its input; what tools printed is left out), tagged
/// with its folder (cwd=). A last line still being written (without its
/// newline) is left for the next import, which adds the session's next
/// version; a damaged line refuses that file, naming the line. A turn
/// that restates a note the store holds (put's verdict) is kept as a link
/// to it ('user: (restates ID)', tagged restates=ID), not a copy.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Export file, or '-' for standard input
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// What FILE holds: a 'keep export' file (export), a chat export (chat), or agent transcripts (claude-code, codex)
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
#[serde(rename_all = "kebab-case")]
pub enum ImportFormat {
    /// A file written by 'keep export'
    #[default]
    Export,
    /// A chat export: ChatGPT or Claude conversations.json, JSON Lines of turns, a Markdown chat log, an agent's transcript
    Chat,
    /// Claude Code transcripts: a session's .jsonl file, or a folder of them
    ClaudeCode,
    /// Codex transcripts: a rollout .jsonl file, or a folder of them
    Codex,
}

impl ImportFormat {
    /// The chat format asked for, when it names one.
    fn chat(self) -> Option<Option<keep_core::ChatFormat>> {
        match self {
            ImportFormat::Export => None,
            ImportFormat::Chat => Some(None),
            ImportFormat::ClaudeCode => Some(Some(keep_core::ChatFormat::ClaudeCode)),
            ImportFormat::Codex => Some(Some(keep_core::ChatFormat::Codex)),
        }
    }
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    if let Some(expected) = args.format.chat() {
        return import_chat(ctx, &args, expected);
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

/// One chat file imported (a transcript read before, from where the last
/// import stopped).
fn import_chat_file(
    ctx: &mut Ctx,
    file: &std::path::Path,
    allow_secrets: bool,
    expected: Option<keep_core::ChatFormat>,
) -> Result<keep_core::keeper::ChatImport, super::CliError> {
    let text = if file.as_os_str() == "-" {
        Some(read_export(ctx.stdin.reader(), "<stdin>")?)
    } else {
        None
    };
    let mut bar = ctx.out.bars().counting("importing conversations");
    let mut progress = |done: usize, total: usize| bar.step(done, total);
    let keeper = ctx.keeper()?;
    let outcome = match &text {
        Some(text) => keeper.import_chat(
            text,
            "<stdin>",
            None,
            expected,
            allow_secrets,
            &mut progress,
        ),
        None => keeper.import_chat_file(file, expected, allow_secrets, &mut progress),
    };
    bar.finish();
    Ok(outcome?)
}

/// The `.jsonl` files under `dir`, in path order (hidden folders left
/// out).
fn transcripts_under(dir: &std::path::Path) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder).map_err(|e| Error::io(&folder, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&folder, e))?;
            let path = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            let kind = entry.file_type().map_err(|e| Error::io(&path, e))?;
            if kind.is_dir() && !hidden {
                folders.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "jsonl") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The largest chat export read (it is parsed whole before anything is
/// written).
const MAX_CHAT_EXPORT_BYTES: u64 = keep_core::keeper::MAX_CHAT_FILE_BYTES;

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

/// `--format chat` (and the transcript formats): each file is read
/// whole, then every conversation in it is written in one transaction; a
/// folder's `.jsonl` files are imported one by one, a file that cannot be
/// read said on stderr and the rest imported.
fn import_chat(ctx: &mut Ctx, args: &Args, expected: Option<keep_core::ChatFormat>) -> CliResult {
    let files = if args.file.as_os_str() != "-" && args.file.is_dir() {
        transcripts_under(&args.file)?
    } else {
        vec![args.file.clone()]
    };
    let mut outcome: Option<keep_core::keeper::ChatImport> = None;
    let mut failures = super::Failures::default();
    for file in &files {
        match import_chat_file(ctx, file, args.allow_secrets, expected) {
            Ok(one) => match &mut outcome {
                None => outcome = Some(one),
                Some(all) => {
                    all.sessions.extend(one.sessions);
                    all.redacted.extend(one.redacted);
                    all.waiting += one.waiting;
                }
            },
            Err(e) if files.len() > 1 => failures.record(&mut ctx.out, e)?,
            Err(e) => return Err(e),
        }
    }
    let Some(outcome) = outcome else {
        return match files.is_empty() {
            true => {
                Err(Error::invalid(format!("{}: no .jsonl file in it", args.file.display())).into())
            }
            false => Ok(failures.status()),
        };
    };
    for r in &outcome.redacted {
        super::put::tell_redacted(&mut ctx.out, &r.id, &r.secrets);
    }
    if outcome.waiting > 0 {
        ctx.out.note(&format!(
            "{} transcript line(s) still being written left for the next import",
            outcome.waiting
        ));
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
                "{} conversation(s) from a {}: {} new, {} longer, {} unchanged",
                outcome.sessions.len(),
                outcome.format_title,
                count(keep_core::keeper::WriteStatus::Created),
                count(keep_core::keeper::WriteStatus::Updated),
                count(keep_core::keeper::WriteStatus::Unchanged),
            ))?;
        }
    }
    Ok(failures.status())
}
