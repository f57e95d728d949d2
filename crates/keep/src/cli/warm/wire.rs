//! The store socket's wire format: frames of bytes both ways, each
//! `[kind: u8][length: u32, little-endian][payload]`. A client sends a
//! `Request` frame; the server answers `Accepted` (then standard input
//! may follow as `Stdin` frames and one `StdinEnd`), streams `Stdout` and
//! `Stderr` frames as the command prints, and ends with `Done`. It
//! answers `Declined` (the client works alone), `OtherVersion`, or
//! `Health` instead when that is what it has to say.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::cli::Delegated;
use crate::cli::output::Format;

/// The socket `keep serve` listens on, in the store folder.
pub const SOCKET_FILE: &str = "serve.sock";

/// The largest frame either side reads.
const MAX_FRAME: usize = 16 << 20;

/// The size of the standard input chunks a client sends.
pub const STDIN_CHUNK: usize = 64 << 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Request = 1,
    Accepted = 2,
    Stdin = 3,
    StdinEnd = 4,
    Stdout = 5,
    Stderr = 6,
    Done = 7,
    Declined = 8,
    OtherVersion = 9,
    Health = 10,
}

impl Kind {
    fn of(byte: u8) -> Option<Kind> {
        use Kind::*;
        [
            Request,
            Accepted,
            Stdin,
            StdinEnd,
            Stdout,
            Stderr,
            Done,
            Declined,
            OtherVersion,
            Health,
        ]
        .into_iter()
        .find(|k| *k as u8 == byte)
    }
}

/// What a client asks.
#[derive(Serialize, Deserialize)]
pub struct Request {
    /// The client's version, which must be the server's.
    pub version: String,
    /// The client's `KEEP_CLOCK`, which must be the server's.
    pub clock: Option<String>,
    pub ask: Ask,
}

#[derive(Serialize, Deserialize)]
pub enum Ask {
    /// Run a command as the client would have.
    Run(Box<Run>),
    /// The server's health report.
    Health,
}

/// A command and the client's circumstances it runs in.
#[derive(Serialize, Deserialize)]
pub struct Run {
    pub command: Delegated,
    pub format: Format,
    /// The client's working folder: relative paths are read from there.
    pub cwd: PathBuf,
    pub color: bool,
    /// Whether the client sends its standard input after `Accepted`.
    pub stdin_sent: bool,
    pub stdin_terminal: bool,
    /// The width of the client's stderr when it is a terminal (progress
    /// bars are drawn there), else None.
    pub terminal_width: Option<u16>,
}

/// How a command ended.
#[derive(Serialize, Deserialize)]
pub struct Done {
    pub code: u8,
}

/// What a server of another version says.
#[derive(Serialize, Deserialize)]
pub struct OtherVersion {
    pub version: String,
    pub pid: u32,
}

pub fn write_frame(w: &mut impl Write, kind: Kind, payload: &[u8]) -> io::Result<()> {
    let length = u32::try_from(payload.len())
        .ok()
        .filter(|&n| n as usize <= MAX_FRAME)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "frame too long"))?;
    let mut head = [0u8; 5];
    head[0] = kind as u8;
    head[1..].copy_from_slice(&length.to_le_bytes());
    w.write_all(&head)?;
    w.write_all(payload)
}

pub fn write_json(w: &mut impl Write, kind: Kind, value: &impl Serialize) -> io::Result<()> {
    write_frame(w, kind, &serde_json::to_vec(value)?)
}

/// The next frame, or None when the other side closed between frames.
pub fn read_frame(r: &mut impl Read) -> io::Result<Option<(Kind, Vec<u8>)>> {
    let mut kind = [0u8; 1];
    if r.read(&mut kind)? == 0 {
        return Ok(None);
    }
    read_frame_after(kind[0], r).map(Some)
}

/// The frame whose first byte, `kind`, was read already.
pub fn read_frame_after(kind: u8, r: &mut impl Read) -> io::Result<(Kind, Vec<u8>)> {
    let kind = Kind::of(kind)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "not a keep frame"))?;
    let mut length = [0u8; 4];
    r.read_exact(&mut length)?;
    let length = u32::from_le_bytes(length) as usize;
    if length > MAX_FRAME {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "frame too long"));
    }
    let mut payload = vec![0u8; length];
    r.read_exact(&mut payload)?;
    Ok((kind, payload))
}

pub fn parse<T: for<'de> Deserialize<'de>>(payload: &[u8]) -> io::Result<T> {
    serde_json::from_slice(payload).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// A socket several writers share, each frame written whole.
pub type Shared = Arc<Mutex<UnixStream>>;

/// Sends what is written to it as frames of one kind.
pub struct FrameWriter {
    pub socket: Shared,
    pub kind: Kind,
}

impl Write for FrameWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let chunk = &buf[..buf.len().min(MAX_FRAME)];
        let mut socket = self.socket.lock().unwrap_or_else(PoisonError::into_inner);
        write_frame(&mut *socket, self.kind, chunk)?;
        Ok(chunk.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Reads the `Stdin` frames a client sends, up to its `StdinEnd`.
pub struct StdinFrames {
    socket: UnixStream,
    chunk: Vec<u8>,
    at: usize,
    ended: bool,
}

impl StdinFrames {
    pub fn new(socket: UnixStream) -> Self {
        StdinFrames {
            socket,
            chunk: Vec::new(),
            at: 0,
            ended: false,
        }
    }
}

impl Read for StdinFrames {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            if self.ended {
                return Ok(0);
            }
            match read_frame(&mut self.socket)? {
                Some((Kind::Stdin, bytes)) => {
                    self.chunk = bytes;
                    self.at = 0;
                }
                Some((Kind::StdinEnd, _)) | None => self.ended = true,
                Some(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "expected standard input from the client",
                    ));
                }
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
