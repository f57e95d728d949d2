//! Commands answered by a running `keep serve` (reads, and writes of ids,
//! tags and text): the client
//! side tries the store's socket and falls back to working alone, silently,
//! when no server answers (or one of another version, or another clock);
//! the server side answers one request at a time with one warm keeper.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use serde::{Deserialize, Serialize};

use super::output::Out;
use super::{Cli, CliResult, Command, Ctx, Status, dispatch};
use crate::config::Config;
use crate::mcp::http::Sessions;
use keep_core::Keeper;
use keep_core::SharedModel;

/// The socket `keep serve` listens on, in the store folder.
pub const SOCKET_FILE: &str = "serve.sock";

/// The longest request line a server reads.
const MAX_REQUEST: u64 = 1 << 20;

/// How long a client waits for a server that took its request.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Serialize, Deserialize)]
struct Request {
    version: String,
    /// The arguments after `keep`.
    args: Vec<String>,
    color: bool,
    /// The client's `KEEP_CLOCK`, which must be the server's.
    clock: Option<String>,
}

/// What the server did with a request.
#[derive(Serialize, Deserialize)]
enum Answer {
    Done(Done),
    /// The client should run the command itself.
    Declined,
}

/// A command the server ran: what it printed and how it ended.
#[derive(Serialize, Deserialize)]
pub struct Done {
    stdout: String,
    stderr: String,
    code: u8,
}

impl Done {
    /// Prints what the server printed and ends as it ended.
    pub fn replay(self, out: &mut Out) -> CliResult {
        out.raw().write_all(self.stdout.as_bytes())?;
        out.flush()?;
        eprint!("{}", self.stderr);
        Ok(match self.code {
            0 => Status::Success,
            code => Status::Failed(code),
        })
    }
}

/// The commands a server answers: reads, and writes whose arguments are
/// ids, tags and text (not files, folders or standard input, which are the
/// client's to read).
pub fn delegable(command: Option<&Command>) -> bool {
    match command {
        Some(
            Command::Find(_)
            | Command::Get(_)
            | Command::List(_)
            | Command::Tag(_)
            | Command::Del(_)
            | Command::Rate(_)
            | Command::Revert(_)
            | Command::Move(_)
            | Command::Supersede(_),
        ) => true,
        Some(Command::Now(args)) => args.text.as_deref() != Some("-"),
        Some(Command::Put(args)) => args.text_alone(None).is_some(),
        _ => false,
    }
}

/// The arguments to send for `cli`'s command: the command line as given,
/// except that a put of text is sent with its text as `--text`, so that
/// the server, in a folder of its own, cannot take it for a file there.
/// None when the command line cannot travel (not UTF-8).
pub fn request_args(cli: &Cli, home: Option<&Path>) -> Option<Vec<String>> {
    if let Some(Command::Put(put)) = &cli.command {
        let text = put.text_alone(home)?;
        let mut args = Vec::new();
        if cli.json {
            args.push("--json".to_string());
        }
        if cli.ids_only {
            args.push("--ids".to_string());
        }
        args.extend(put.as_text_command(&text));
        return Some(args);
    }
    std::env::args_os()
        .skip(1)
        .map(|a| a.into_string().ok())
        .collect()
}

fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

fn clock() -> Option<String> {
    std::env::var("KEEP_CLOCK").ok()
}

/// The answer of the store's server, or None when there is none to ask
/// or it declines: the caller then runs the command itself.
pub fn ask(store: &Path, color: bool, args: Vec<String>) -> Option<Done> {
    let path = store.join(SOCKET_FILE);
    if !path.exists() {
        return None;
    }
    let mut stream = UnixStream::connect(&path).ok()?;
    stream.set_read_timeout(Some(ANSWER_TIMEOUT)).ok()?;
    let request = Request {
        version: version(),
        args,
        color,
        clock: clock(),
    };
    let mut line = serde_json::to_vec(&request).ok()?;
    line.push(b'\n');
    stream.write_all(&line).ok()?;
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).ok()?;
    match serde_json::from_str(&answer).ok()? {
        Answer::Done(done) => Some(done),
        Answer::Declined => None,
    }
}

/// Listens on the store's socket (replacing one a killed server left) and
/// answers on a thread of its own until the process ends; the socket file
/// is removed when the returned guard is dropped.
pub fn serve(
    store: &Path,
    config: Config,
    keeper: Keeper,
    model: SharedModel,
    sessions: Arc<Sessions>,
) -> std::io::Result<SocketGuard> {
    let path = store.join(SOCKET_FILE);
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path)?;
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    let ours = clock();
    std::thread::spawn(move || {
        let mut keeper = Some(keeper.with_shared_model(model.clone()));
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            answer_one(stream, &config, &mut keeper, &model, ours.as_deref());
            sessions.answered_command();
        }
    });
    Ok(SocketGuard(path))
}

/// Removes the socket file when the server stops.
pub struct SocketGuard(PathBuf);

impl Drop for SocketGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn answer_one(
    stream: UnixStream,
    config: &Config,
    keeper: &mut Option<Keeper>,
    model: &SharedModel,
    clock: Option<&str>,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut line = String::new();
    let mut reader = BufReader::new(stream.take(MAX_REQUEST));
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let answer = match serde_json::from_str::<Request>(&line) {
        Ok(request) if request.version == version() && request.clock.as_deref() == clock => {
            run_request(request, config, keeper, model)
        }
        _ => Answer::Declined,
    };
    let mut stream = reader.into_inner().into_inner();
    if let Ok(mut bytes) = serde_json::to_vec(&answer) {
        bytes.push(b'\n');
        let _ = stream.write_all(&bytes);
    }
}

/// Runs the request's command with the warm keeper, keeping what it
/// prints.
fn run_request(
    request: Request,
    config: &Config,
    keeper: &mut Option<Keeper>,
    model: &SharedModel,
) -> Answer {
    let Ok(cli) = Cli::try_parse_from(std::iter::once("keep".to_string()).chain(request.args))
    else {
        return Answer::Declined;
    };
    if !delegable(cli.command.as_ref()) {
        return Answer::Declined;
    }
    let Some(warm) = keeper.take() else {
        return Answer::Declined;
    };
    let (out, stdout, stderr) = Out::captured(request.color);
    let mut ctx = Ctx {
        config: config.clone(),
        keeper: Some(warm),
        format: super::format_of(&cli),
        out,
    };
    let result = dispatch(&mut ctx, cli.command);
    let code = match &result {
        Ok(Status::Success) => 0,
        Ok(Status::Failed(code)) => *code,
        Err(e) if e.is_broken_pipe() => 0,
        Err(e) => {
            ctx.out.warn(&e.to_string());
            e.code()
        }
    };
    let _ = ctx.out.flush();
    *keeper = ctx.keeper.take();
    if keeper.is_none() {
        *keeper = config
            .settings()
            .ok()
            .and_then(|s| Keeper::open(s).ok())
            .map(|k| k.with_shared_model(model.clone()));
    }
    Answer::Done(Done {
        stdout: String::from_utf8_lossy(&stdout.take()).into_owned(),
        stderr: String::from_utf8_lossy(&stderr.take()).into_owned(),
        code,
    })
}
