//! Extraction in a child process. Parsers of hostile files can recurse
//! until the stack overflows, allocate without end, or spin; inside a child
//! none of that can end or outlive its own file. Each pool thread keeps one
//! child (`keep __extract`, named by the settings) and sends it one file at
//! a time: a frame with the request, a frame with the bytes; the child
//! answers with one frame. A child that dies is reported with what it
//! printed last and replaced; one that runs past the time limit is killed.
//! Children limit their own data segment, so a file cannot take the
//! machine's memory.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::ocr::Ocr;
use crate::document::Document;
pub use keep_model::settings::WorkerCommand;

/// Lines of a child's stderr kept to explain its death.
const STDERR_LINES: usize = 20;
/// Stack of the thread a child extracts on: deep enough for any sane
/// document; a deeper one overflows inside the child only.
const EXTRACT_STACK: usize = 64 * 1024 * 1024;
/// Largest frame header.
const MAX_HEADER: u32 = 1 << 20;

#[derive(Debug, Serialize, Deserialize)]
struct Request {
    /// The path or URL, for messages.
    name: String,
    /// The file's path as raw bytes, for its extension.
    path: Option<Vec<u8>>,
    /// Where the OCR models are, when OCR may be needed.
    ocr_dir: Option<Vec<u8>>,
}

type Reply = Result<Document, String>;

/// One child extractor, started on first use and after each death.
pub struct Isolated {
    command: WorkerCommand,
    running: Option<Running>,
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<Vec<u8>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl Isolated {
    pub fn new(command: WorkerCommand) -> Self {
        Isolated {
            command,
            running: None,
        }
    }

    /// Extracts `bytes` in the child within `limit`; the reason, one line,
    /// when it fails, crashes or takes too long.
    pub fn extract(
        &mut self,
        bytes: &[u8],
        name: &str,
        path: Option<&Path>,
        ocr_dir: Option<&Path>,
        limit: Duration,
    ) -> Result<Document, String> {
        use std::os::unix::ffi::OsStrExt;
        let request = Request {
            name: name.to_string(),
            path: path.map(|p| p.as_os_str().as_bytes().to_vec()),
            ocr_dir: ocr_dir.map(|p| p.as_os_str().as_bytes().to_vec()),
        };
        let header = serde_json::to_vec(&request).map_err(|e| e.to_string())?;
        let running = match &mut self.running {
            Some(r) => r,
            None => self.running.insert(self.start()?),
        };
        let sent = write_frame(&mut running.stdin, &header)
            .and_then(|()| write_frame(&mut running.stdin, bytes))
            .and_then(|()| running.stdin.flush());
        if sent.is_err() {
            return Err(self.death());
        }
        match running.replies.recv_timeout(limit) {
            Ok(frame) => serde_json::from_slice::<Reply>(&frame)
                .map_err(|e| format!("the extractor answered garbage ({e})"))?,
            Err(RecvTimeoutError::Timeout) => {
                self.stop();
                Err(format!(
                    "extraction took longer than {} s; gave up",
                    limit.as_secs()
                ))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.death()),
        }
    }

    fn start(&self) -> Result<Running, String> {
        let mut child = Command::new(&self.command.program)
            .args(&self.command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                format!(
                    "could not start the extractor {}: {e}",
                    self.command.program.display()
                )
            })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            // A child without its pipes is of no use; it may already have exited.
            let _ = child.kill();
            let _ = child.wait();
            return Err("could not talk to the extractor".into());
        };
        let (tx, replies) = channel();
        std::thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            while let Ok(frame) = read_frame(&mut stdout, u32::MAX) {
                if tx.send(frame).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let lines = Arc::clone(&tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut lines = lines.lock().unwrap_or_else(|p| p.into_inner());
                if lines.len() == STDERR_LINES {
                    lines.pop_front();
                }
                lines.push_back(line);
            }
        });
        Ok(Running {
            child,
            stdin,
            replies,
            stderr: tail,
        })
    }

    /// Kills and reaps the child.
    fn stop(&mut self) {
        if let Some(mut running) = self.running.take() {
            let _ = running.child.kill();
            // The child may have exited on its own: then there is nothing to kill.
            let _ = running.child.wait();
        }
    }

    /// Reaps a child that went away and says why, from what it printed last.
    fn death(&mut self) -> String {
        let Some(mut running) = self.running.take() else {
            return "the extractor is gone".into();
        };
        // Already dead is what is wanted; its status is read just below.
        let _ = running.child.kill();
        let status = running.child.wait().ok();
        // The stderr reader may still be draining the last lines.
        std::thread::sleep(Duration::from_millis(20));
        let tail: Vec<String> = running
            .stderr
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned()
            .collect();
        crash_reason(&tail, status)
    }
}

impl Drop for Isolated {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One line saying why a child died.
fn crash_reason(stderr: &[String], status: Option<std::process::ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    let said = |needle: &str| stderr.iter().any(|l| l.contains(needle));
    let why = if said("stack overflow") || said("overflowed its stack") {
        "it nests too deeply (stack overflow)".to_string()
    } else if said("memory allocation of") || said("out of memory") {
        "it needed more memory than an extraction may use".to_string()
    } else if let Some(line) = stderr.iter().rev().find(|l| !l.trim().is_empty()) {
        line.chars().take(200).collect()
    } else {
        match status {
            Some(s) if s.signal().is_some() => {
                format!("killed by signal {}", s.signal().unwrap_or(0))
            }
            Some(s) => format!("exited with {s}"),
            None => "it vanished".into(),
        }
    };
    format!("the extractor crashed: {why}; the file is probably malformed")
}

fn write_frame(w: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    w.write_all(&len.to_le_bytes())?;
    w.write_all(bytes)
}

fn read_frame(r: &mut impl Read, max: u32) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 8];
    r.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    if len > u64::from(max) {
        return Err(std::io::Error::other("frame too large"));
    }
    let mut buf = vec![0; usize::try_from(len).map_err(std::io::Error::other)?];
    r.read_exact(&mut buf)?;
    Ok(buf)
}

/// The child's side: answers requests on stdin until it closes. With a
/// memory limit, the process's data segment is capped first. Returns the
/// process exit code.
pub fn serve(memory_limit: Option<u64>) -> i32 {
    if let Some(bytes) = memory_limit {
        limit_memory(bytes);
    }
    quiet_panics();
    let mut stdin = BufReader::new(std::io::stdin().lock());
    let mut stdout = std::io::stdout().lock();
    let mut ocr: Option<(Vec<u8>, Option<Arc<Ocr>>)> = None;
    loop {
        let Ok(header) = read_frame(&mut stdin, MAX_HEADER) else {
            return 0;
        };
        let Ok(bytes) = read_frame(&mut stdin, u32::MAX) else {
            return 0;
        };
        let reply: Reply = match serde_json::from_slice::<Request>(&header) {
            Ok(request) => {
                let models = request
                    .ocr_dir
                    .as_ref()
                    .filter(|_| crate::extract::may_need_ocr(&bytes))
                    .and_then(|dir| load_ocr(&mut ocr, dir));
                extract_on_big_stack(bytes, request, models)
            }
            Err(e) => Err(format!("bad request: {e}")),
        };
        let frame = serde_json::to_vec(&reply).unwrap_or_else(|e| {
            serde_json::to_vec(&Reply::Err(format!("the result could not be sent: {e}")))
                .unwrap_or_default()
        });
        if write_frame(&mut stdout, &frame)
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return 0;
        }
    }
}

/// The OCR models from `dir`, loaded once per child.
fn load_ocr(cache: &mut Option<(Vec<u8>, Option<Arc<Ocr>>)>, dir: &[u8]) -> Option<Arc<Ocr>> {
    use std::os::unix::ffi::OsStrExt;
    if let Some((loaded_from, models)) = cache
        && loaded_from.as_slice() == dir
    {
        return models.clone();
    }
    let path = Path::new(std::ffi::OsStr::from_bytes(dir));
    let models = Ocr::load(path).ok().map(Arc::new);
    *cache = Some((dir.to_vec(), models.clone()));
    models
}

fn extract_on_big_stack(bytes: Vec<u8>, request: Request, ocr: Option<Arc<Ocr>>) -> Reply {
    use std::os::unix::ffi::OsStrExt;
    let worker = std::thread::Builder::new()
        .name(super::threads::EXTRACT_THREAD.into())
        .stack_size(EXTRACT_STACK)
        .spawn(move || {
            let path = request
                .path
                .as_deref()
                .map(|p| Path::new(std::ffi::OsStr::from_bytes(p)));
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                super::extract(&bytes, &request.name, path, ocr.as_deref())
            }))
        });
    match worker.map(|w| w.join()) {
        Ok(Ok(Ok(Ok(doc)))) => Ok(doc),
        Ok(Ok(Ok(Err(e)))) => Err(e.reason()),
        Ok(Ok(Err(panic))) | Ok(Err(panic)) => Err(format!(
            "the extractor crashed ({}); the file is probably malformed",
            super::threads::panic_message(&panic)
        )),
        Err(e) => Err(format!("could not start extraction: {e}")),
    }
}

/// Caps the data segment (heap and anonymous mappings) of this process.
fn limit_memory(bytes: u64) {
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: setrlimit reads a valid rlimit for this process only.
    unsafe {
        libc::setrlimit(libc::RLIMIT_DATA, &limit);
    }
}

/// Panics become failures in the reply; nothing is printed for them.
fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_refuse_oversized_headers() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"hello").unwrap();
        write_frame(&mut buf, &[]).unwrap();
        let mut r = &buf[..];
        assert_eq!(read_frame(&mut r, 16).unwrap(), b"hello");
        assert_eq!(read_frame(&mut r, 16).unwrap(), b"");
        let mut big = Vec::new();
        write_frame(&mut big, &[0; 32]).unwrap();
        assert!(read_frame(&mut &big[..], 16).is_err());
    }

    #[test]
    fn a_crash_is_explained_by_the_last_words() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let overflow = crash_reason(
            &lines(&[
                "thread 'x' has overflowed its stack",
                "fatal runtime error: stack overflow",
            ]),
            None,
        );
        assert!(overflow.contains("nests too deeply"), "{overflow}");
        let oom = crash_reason(&lines(&["memory allocation of 99 bytes failed"]), None);
        assert!(oom.contains("more memory"), "{oom}");
    }
}
