//! The server side of the store's socket: each client on a thread of its
//! own, in the client's working folder, with a warm keeper; what the
//! command prints streams back as it is printed.

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use super::wire::{self, Ask, Done, FrameWriter, Kind, OtherVersion, Request, Run, StdinFrames};
use crate::cli::input::Stdin;
use crate::cli::output::{Bars, Out};
use crate::cli::{Ctx, Status, dispatch};
use crate::server::Warm;

/// Commands run at once; further clients wait for one to end.
const AT_ONCE: usize = 8;

/// How long a client may take to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Listens on the store's socket (replacing one a killed server left) and
/// answers on threads of its own until the process ends; the socket file
/// is removed when the returned guard is dropped.
pub fn serve(store: &Path, warm: Arc<Warm>) -> std::io::Result<SocketGuard> {
    let path = store.join(wire::SOCKET_FILE);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let listener = UnixListener::bind(&path)?;
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    let ours = std::env::var("KEEP_CLOCK").ok();
    let slots = Arc::new(Slots::default());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            slots.wait_for_one();
            let (warm, mine, clock) = (Arc::clone(&warm), Arc::clone(&slots), ours.clone());
            let spawned = std::thread::Builder::new()
                .name("keep-socket".into())
                .spawn(move || {
                    answer(stream, &warm, clock.as_deref());
                    mine.free_one();
                });
            if spawned.is_err() {
                slots.free_one();
            }
        }
    });
    Ok(SocketGuard(path))
}

/// Removes the socket file when the server stops.
pub struct SocketGuard(PathBuf);

impl Drop for SocketGuard {
    fn drop(&mut self) {
        // The socket file may already be gone: either way it is.
        std::fs::remove_file(&self.0).ok();
    }
}

/// Counts the commands running.
#[derive(Default)]
struct Slots {
    busy: Mutex<usize>,
    freed: Condvar,
}

impl Slots {
    fn wait_for_one(&self) {
        let mut busy = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
        while *busy >= AT_ONCE {
            busy = self
                .freed
                .wait(busy)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *busy += 1;
    }

    fn free_one(&self) {
        *self.busy.lock().unwrap_or_else(PoisonError::into_inner) -= 1;
        self.freed.notify_one();
    }
}

fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Answers one client. A client that goes away concerns itself only: a
/// failed write to it ends the command like a closed pipe.
fn answer(mut stream: UnixStream, warm: &Warm, clock: Option<&str>) {
    stream.set_read_timeout(Some(REQUEST_TIMEOUT)).ok();
    let mut first = [0u8; 1];
    if stream.read_exact(&mut first).is_err() {
        return;
    }
    if first[0] == b'{' {
        // A keep from before frames, which sent one JSON line: it works
        // alone when declined.
        stream.write_all(b"\"Declined\"\n").ok();
        return;
    }
    let request = match wire::read_frame_after(first[0], &mut stream) {
        Ok((Kind::Request, payload)) => wire::parse::<Request>(&payload),
        _ => return,
    };
    let reply = match request {
        Err(_) => wire::write_frame(&mut stream, Kind::Declined, &[]),
        Ok(request) if request.version != version() => wire::write_json(
            &mut stream,
            Kind::OtherVersion,
            &OtherVersion {
                version: version().into(),
                pid: std::process::id(),
            },
        ),
        Ok(Request {
            ask: Ask::Health, ..
        }) => wire::write_json(&mut stream, Kind::Health, &warm.health()),
        Ok(request) if request.clock.as_deref() != clock => {
            wire::write_frame(&mut stream, Kind::Declined, &[])
        }
        Ok(Request {
            ask: Ask::Run(run), ..
        }) => {
            run_command(stream, warm, *run);
            return;
        }
    };
    // The client hung up; the server serves the next one.
    reply.ok();
}

/// Runs the client's command in its working folder, with a warm keeper.
fn run_command(mut stream: UnixStream, warm: &Warm, run: Run) {
    let mut lent = match in_folder(&run.cwd).and_then(|()| warm.lend().ok()) {
        Some(lent) => lent,
        None => {
            // The client hung up; it runs the command itself either way.
            wire::write_frame(&mut stream, Kind::Declined, &[]).ok();
            return;
        }
    };
    // A socket that keeps a timeout still answers; the client waits.
    stream.set_read_timeout(None).ok();
    if wire::write_frame(&mut stream, Kind::Accepted, &[]).is_err() {
        return;
    }
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let socket = Arc::new(Mutex::new(stream));
    let sink = |kind| -> Box<dyn Write + Send> {
        Box::new(FrameWriter {
            socket: Arc::clone(&socket),
            kind,
        })
    };
    let bars = match run.terminal_width {
        Some(width) => Bars::Sent {
            sink: Arc::new(Mutex::new(FrameWriter {
                socket: Arc::clone(&socket),
                kind: Kind::Stderr,
            })),
            width,
        },
        None => Bars::Hidden,
    };
    let stdin = if run.stdin_sent {
        Stdin::sent(Box::new(StdinFrames::new(reader)), run.stdin_terminal)
    } else {
        Stdin::sent(Box::new(std::io::empty()), run.stdin_terminal)
    };
    crate::cli::marks::adopt(lent.keeper());
    let mut ctx = Ctx::new(
        warm.config.clone(),
        Some(lent.take()),
        run.format,
        Out::to(sink(Kind::Stdout), sink(Kind::Stderr), run.color, bars),
        stdin,
    );
    let result = dispatch(&mut ctx, Some(run.command.into()));
    let code = match &result {
        Ok(Status::Success) => 0,
        Ok(Status::Failed(code)) => *code,
        Err(e) if e.is_broken_pipe() => 0,
        Err(e) => {
            ctx.out.warn(&e.to_string());
            e.code()
        }
    };
    let flushed = ctx.out.flush();
    if let Some(keeper) = ctx.into_keeper() {
        crate::cli::marks::record(&keeper);
        lent.put_back(keeper);
    }
    drop(lent);
    warm.sessions.answered_command();
    if flushed.is_ok() {
        let mut socket = socket.lock().unwrap_or_else(PoisonError::into_inner);
        // The client hung up after its output: nothing is lost.
        wire::write_json(&mut *socket, Kind::Done, &Done { code }).ok();
    }
}

/// Makes `cwd` this thread's working folder, and this thread's alone;
/// None when it cannot be.
fn in_folder(cwd: &Path) -> Option<()> {
    // SAFETY: unshare(CLONE_FS) gives the calling thread its own working
    // folder and umask; it takes no pointers.
    if unsafe { libc::unshare(libc::CLONE_FS) } != 0 {
        return None;
    }
    std::env::set_current_dir(cwd).ok()
}
