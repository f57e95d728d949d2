//! `keep hook CLIENT`: what a client's session hooks run. It never blocks
//! or fails a session: it exits 0 whatever happens, a failure is one line
//! in `hooks.log` in the store's folder (which `keep doctor` reads), and
//! the transcript import runs detached, so the hook returns at once.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use keep_commands::context::{Context, DEFAULT_MAX_TOKENS};
use serde_json::{Value, json};

use super::{CliError, CliResult, Ctx, Status};

/// The log of hook failures, in the store's folder.
pub const LOG: &str = "hooks.log";
/// When each folder's last session ended, in the store's folder.
const ENDS: &str = "hooks.json";
/// The most of a hook's input read.
const MAX_INPUT: u64 = 1 << 20;

/// Run by a client's session hooks (keep connect CLIENT --hooks installs them).
///
/// Reads the hook's JSON on standard input (hook_event_name, session_id,
/// transcript_path, cwd). At SessionStart it prints the session's context
/// ('keep context' for the folder, with what changed since the folder's
/// last session ended) as Claude Code's additionalContext. At SessionEnd
/// and PreCompact it starts the import of the transcript in the
/// background and returns at once. It always exits 0: a failure is one
/// line in hooks.log in the store's folder, which 'keep doctor' reports.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The client whose hook runs
    #[arg(value_enum, value_name = "CLIENT")]
    pub client: HookClient,

    /// Import this transcript (what the end hooks start in the background)
    #[arg(long, value_name = "FILE", hide = true)]
    pub import: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HookClient {
    /// Claude Code
    ClaudeCode,
}

/// What a hook is told.
#[derive(Debug, Default)]
struct Input {
    event: String,
    session: String,
    transcript: Option<PathBuf>,
    cwd: Option<PathBuf>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let folder = ctx.config.store.clone();
    let failed = match &args.import {
        Some(transcript) => import(ctx, transcript).err().map(|e| ("import", e)),
        None => match read_input(ctx) {
            Ok(input) => answer(ctx, &input, folder.as_deref())
                .err()
                .map(|e| (event_name(&input.event), e)),
            Err(e) => Some(("hook", e)),
        },
    };
    if let (Some((event, error)), Some(folder)) = (failed, &folder) {
        log_failure(folder, event, &error);
    }
    Ok(Status::Success)
}

/// An event's name, for the one line logged of a failure.
fn event_name(event: &str) -> &'static str {
    match event {
        "SessionStart" => "SessionStart",
        "SessionEnd" => "SessionEnd",
        "PreCompact" => "PreCompact",
        _ => "hook",
    }
}

fn read_input(ctx: &mut Ctx) -> Result<Input, CliError> {
    let mut text = String::new();
    ctx.stdin
        .reader()
        .take(MAX_INPUT)
        .read_to_string(&mut text)
        .map_err(|e| CliError::Usage(format!("the hook's input: {e}")))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| CliError::Usage(format!("the hook's input is not JSON: {e}")))?;
    let text_of = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    Ok(Input {
        event: text_of("hook_event_name").unwrap_or_default(),
        session: text_of("session_id").unwrap_or_default(),
        transcript: text_of("transcript_path").map(PathBuf::from),
        cwd: text_of("cwd").map(PathBuf::from),
    })
}

/// What the hook does at `input.event`.
fn answer(ctx: &mut Ctx, input: &Input, folder: Option<&Path>) -> Result<(), CliError> {
    match input.event.as_str() {
        "SessionStart" => start(ctx, input, folder),
        "SessionEnd" | "PreCompact" => {
            if input.event == "SessionEnd"
                && let (Some(folder), Some(cwd)) = (folder, &input.cwd)
            {
                record_end(folder, cwd, ctx.keeper()?.now())?;
            }
            match &input.transcript {
                Some(transcript) => start_import(transcript, folder),
                None => Err(CliError::Usage(format!(
                    "{}: no transcript_path in the hook's input",
                    input.event
                ))),
            }
        }
        other => Err(CliError::Usage(format!(
            "'{other}' is not an event keep's hook answers (session {})",
            input.session
        ))),
    }
}

/// SessionStart: the context of the session's folder as Claude Code's
/// `additionalContext`.
fn start(ctx: &mut Ctx, input: &Input, folder: Option<&Path>) -> Result<(), CliError> {
    let project = input.cwd.as_deref().and_then(super::context::project_words);
    let since = match (folder, &input.cwd) {
        (Some(folder), Some(cwd)) => last_end(folder, cwd),
        _ => None,
    };
    let context = ctx.run(Context {
        project,
        since,
        max_tokens: Some(DEFAULT_MAX_TOKENS),
        now_name: None,
    })?;
    let answer = json!({
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": context.text,
        }
    });
    ctx.out.line(&answer.to_string())?;
    Ok(())
}

/// Starts `keep hook claude-code --import TRANSCRIPT` on its own, in its
/// own session, so the client's hook returns at once and the import
/// outlives it.
fn start_import(transcript: &Path, folder: Option<&Path>) -> Result<(), CliError> {
    use std::os::unix::process::CommandExt;
    if !transcript.is_file() {
        return Err(CliError::Usage(format!(
            "{}: no such transcript",
            transcript.display()
        )));
    }
    let program = std::env::current_exe()?;
    let mut command = std::process::Command::new(program);
    command
        .args(["hook", "claude-code", "--import"])
        .arg(transcript)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0);
    if let Some(folder) = folder {
        command.current_dir(folder);
    }
    command.spawn()?;
    Ok(())
}

/// The background half of an end hook: the transcript imported.
fn import(ctx: &mut Ctx, transcript: &Path) -> Result<(), CliError> {
    ctx.keeper()?.import_chat_file(
        transcript,
        Some(keep_core::ChatFormat::ClaudeCode),
        false,
        &mut |_, _| {},
    )?;
    Ok(())
}

/// Appends one line to `hooks.log`: when, at which event, what failed.
fn log_failure(folder: &Path, event: &str, error: &CliError) {
    let line = format!(
        "{} {event}: {}\n",
        keep_core::model::time::Timestamp::from_millis(keep_core::keeper::wall_ms()),
        error.to_string().replace('\n', " ")
    );
    let _ = std::fs::create_dir_all(folder);
    if let Ok(mut log) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(folder.join(LOG))
    {
        let _ = log.write_all(line.as_bytes());
    }
}

/// When the last session in `cwd` ended, as `context --since` takes it.
fn last_end(folder: &Path, cwd: &Path) -> Option<String> {
    let text = std::fs::read_to_string(folder.join(ENDS)).ok()?;
    let ends: Value = serde_json::from_str(&text).ok()?;
    ends.get(cwd.to_string_lossy().as_ref())?
        .as_str()
        .map(str::to_string)
}

/// Records that a session in `cwd` ended `at` (written whole, then
/// renamed into place).
fn record_end(
    folder: &Path,
    cwd: &Path,
    at: keep_core::model::time::Timestamp,
) -> Result<(), CliError> {
    let path = folder.join(ENDS);
    let mut ends: serde_json::Map<String, Value> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    ends.insert(cwd.to_string_lossy().into_owned(), json!(at.to_string()));
    let partial = folder.join(format!(".{ENDS}.{}", std::process::id()));
    std::fs::write(&partial, Value::Object(ends).to_string())?;
    std::fs::rename(&partial, &path)?;
    Ok(())
}
