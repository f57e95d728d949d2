//! The client side of a running `keep serve`: a command that one answers
//! (reads; writes of text, ids, tags, files and folders; import and
//! export) is sent to it over the store's socket, typed, with the working
//! folder and, when the command reads it, standard input; what it prints
//! comes back as it is printed. With no server, or one that declines, the
//! command runs here. A server of another version says so, and the command
//! runs here.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use super::wire::{self, Ask, Done, Kind, OtherVersion, Request, Run};
use crate::cli::{CliError, CliResult, Command, Ctx, Delegated, Status};
use crate::server::Health;

/// How long a client waits for a server to take its request.
const TAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// What became of a command offered to the server.
pub enum Offered {
    Answered(CliResult),
    /// No server took it: the caller runs it.
    Alone(Box<Command>),
}

fn request(ask: Ask) -> Request {
    Request {
        version: env!("CARGO_PKG_VERSION").to_string(),
        clock: std::env::var("KEEP_CLOCK").ok(),
        ask,
    }
}

fn connect(store: &Path) -> Option<UnixStream> {
    let path = store.join(wire::SOCKET_FILE);
    if !path.exists() {
        return None;
    }
    let stream = UnixStream::connect(&path).ok()?;
    stream.set_read_timeout(Some(TAKE_TIMEOUT)).ok()?;
    Some(stream)
}

/// Sends `command` to the store's server when one runs and takes it.
pub fn offer(ctx: &mut Ctx, command: Command) -> Offered {
    let delegated = match Delegated::take(command) {
        Ok(delegated) => delegated,
        Err(command) => return Offered::Alone(command),
    };
    let (Some(store), Ok(cwd)) = (ctx.config.store.clone(), std::env::current_dir()) else {
        return Offered::Alone(Box::new(delegated.into()));
    };
    let Some(mut stream) = connect(&store) else {
        return Offered::Alone(Box::new(delegated.into()));
    };
    let stdin_sent = delegated.reads_stdin(ctx.stdin.is_terminal());
    let request = request(Ask::Run(Box::new(Run {
        command: delegated,
        format: ctx.format,
        cwd,
        color: ctx.out.color(),
        stdin_sent,
        stdin_terminal: ctx.stdin.is_terminal(),
        terminal_width: stderr_width(),
    })));
    let taken = wire::write_json(&mut stream, Kind::Request, &request)
        .ok()
        .and_then(|()| wire::read_frame(&mut stream).ok().flatten());
    let Ask::Run(run) = request.ask else {
        unreachable!("a run was asked")
    };
    match taken {
        Some((Kind::Accepted, _)) => {}
        Some((Kind::OtherVersion, payload)) => {
            if let Ok(other) = wire::parse::<OtherVersion>(&payload) {
                ctx.out.warn(&format!(
                    "keep serve (pid {}) runs keep {} and this is keep {}: working without it until it is restarted",
                    other.pid,
                    other.version,
                    env!("CARGO_PKG_VERSION")
                ));
            }
            return Offered::Alone(Box::new(run.command.into()));
        }
        _ => return Offered::Alone(Box::new(run.command.into())),
    }
    // Blocking reads are the default: a failure leaves the short timeout, and a slow answer then runs the command here.
    stream.set_read_timeout(None).ok();
    if stdin_sent && let Ok(sink) = stream.try_clone() {
        std::thread::spawn(move || send_stdin(sink));
    }
    Offered::Answered(take_answer(ctx, stream))
}

/// The width of stderr when it is a terminal.
fn stderr_width() -> Option<u16> {
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ fills the winsize it is given.
    let ok = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(size.ws_col)
}

/// Copies this process's standard input to the server.
fn send_stdin(mut sink: UnixStream) {
    let mut stdin = io::stdin().lock();
    let mut chunk = vec![0u8; wire::STDIN_CHUNK];
    loop {
        match stdin.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                if wire::write_frame(&mut sink, Kind::Stdin, &chunk[..n]).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    // The server went away: the command's own answer says what happened.
    wire::write_frame(&mut sink, Kind::StdinEnd, &[]).ok();
}

/// Prints what the server prints, as it comes, and ends as it ended.
fn take_answer(ctx: &mut Ctx, mut stream: UnixStream) -> CliResult {
    let mut stderr = io::stderr();
    loop {
        match wire::read_frame(&mut stream) {
            Ok(Some((Kind::Stdout, bytes))) => ctx.out.raw().write_all(&bytes)?,
            Ok(Some((Kind::Stderr, bytes))) => {
                stderr.write_all(&bytes)?;
                stderr.flush()?;
            }
            Ok(Some((Kind::Done, payload))) => {
                ctx.out.flush()?;
                let done: Done = wire::parse(&payload)?;
                return Ok(match done.code {
                    0 => Status::Success,
                    code => Status::Failed(code),
                });
            }
            Ok(_) | Err(_) => {
                ctx.out.flush()?;
                return Err(CliError::Usage(
                    "keep serve stopped before the command finished; what it did is in the store (see keep serve --status)"
                        .into(),
                ));
            }
        }
    }
}

/// The health report of the store's server, when one answers: None when
/// none listens, the reason when one listens but does not answer.
pub fn health(store: &Path) -> Option<Result<Health, String>> {
    let mut stream = connect(store)?;
    let answer = (|| {
        wire::write_json(&mut stream, Kind::Request, &request(Ask::Health))?;
        match wire::read_frame(&mut stream)? {
            Some((Kind::Health, payload)) => wire::parse::<Health>(&payload),
            Some((Kind::OtherVersion, payload)) => {
                let other: OtherVersion = wire::parse(&payload)?;
                Err(io::Error::other(format!(
                    "it runs keep {} and this is keep {}",
                    other.version,
                    env!("CARGO_PKG_VERSION")
                )))
            }
            _ => Err(io::Error::other("it declined to answer")),
        }
    })();
    Some(answer.map_err(|e| e.to_string()))
}
