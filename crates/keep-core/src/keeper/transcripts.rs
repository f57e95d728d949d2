//! Chat files read from disk, and an agent's transcript read as it grows.
//! A transcript is one session written a line at a time while the agent
//! works, and imported again and again (at each session's end, before
//! each compaction). The store keeps, per file, how far it was read (in
//! the same transaction as the session's note): the next import reads
//! only the lines after that, adds their turns to the session's turns as
//! stored, and writes the session's next version. A file that no longer
//! holds what was read (rewritten, cut short) is read whole again.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use keep_ingest::chat::{self, ChatFormat, ChatRead, Session, Turn};
use keep_model::keys;
use keep_model::time::{self, Timestamp};
use keep_store::NoteReads;
use keep_store::prelude::*;
use sha2::{Digest, Sha256};

use super::Keeper;
use super::chat::ChatImport;
use crate::error::{Error, Result, Transactions};

/// The largest chat file read at once (it is parsed whole before
/// anything is written).
pub const MAX_CHAT_FILE_BYTES: u64 = 512 * 1024 * 1024;

/// Bytes before the point read so far that must be unchanged for the next
/// import to read on from there.
const CHECKED_BYTES: u64 = 512;

/// How far a transcript file was read, kept in the store's meta table.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct ReadSoFar {
    /// Bytes read (whole lines), and the lines they hold.
    offset: u64,
    lines: usize,
    /// SHA-256 of the `CHECKED_BYTES` before `offset`.
    check: String,
    format: String,
    /// The session's note and its own id in the transcript.
    id: String,
    key: Option<String>,
}

/// The lines of a transcript file after those read before.
struct Tail<'a> {
    path: &'a Path,
    name: &'a str,
    format: ChatFormat,
    so_far: ReadSoFar,
    text: &'a str,
}

fn meta_key(path: &Path) -> String {
    format!("transcript:{}", path.display())
}

fn format_named(name: &str) -> Option<ChatFormat> {
    [ChatFormat::ClaudeCode, ChatFormat::Codex]
        .into_iter()
        .find(|f| f.name() == name)
}

impl Keeper {
    /// Imports the chat file at `path` (see `import_chat`); a transcript
    /// read before is read on from where the last import stopped.
    pub fn import_chat_file(
        &mut self,
        path: &Path,
        expected: Option<ChatFormat>,
        keep_secrets: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<ChatImport> {
        let name = path.display().to_string();
        let whole = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        if let Some(so_far) = self.read_so_far(&whole)?
            && expected.is_none_or(|f| f.name() == so_far.format)
            && so_far.offset <= len
            && check_of(&mut file, so_far.offset).map_err(|e| Error::io(path, e))? == so_far.check
            && let Some(format) = format_named(&so_far.format)
        {
            let text = read_text(&mut file, so_far.offset, &name)?;
            let tail = Tail {
                path: &whole,
                name: &name,
                format,
                so_far,
                text: &text,
            };
            return self.import_tail(tail, keep_secrets, progress);
        }
        let text = read_text(&mut file, 0, &name)?;
        let file_day = file
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| Timestamp::from_millis(d.as_millis() as i64));
        let read = chat::read_as(&text, file_day, expected)
            .map_err(|e| Error::invalid(format!("{name}: line {}: {}", e.line, e.reason)))?;
        if !chat::is_transcript(read.format) {
            return self.write_sessions(read, keep_secrets, progress, (0, None));
        }
        let mut file = file;
        let (offset, lines) = read_whole_lines(&text, read.waiting);
        let so_far = ReadSoFar {
            offset,
            lines,
            check: check_of(&mut file, offset).map_err(|e| Error::io(path, e))?,
            format: read.format.name().to_string(),
            id: String::new(),
            key: read.sessions.first().and_then(|s| s.key.clone()),
        };
        self.write_transcript(&whole, (read, 0), so_far, keep_secrets, progress)
    }

    /// The lines of a transcript after those read before, added to its
    /// session.
    fn import_tail(
        &mut self,
        tail: Tail<'_>,
        keep_secrets: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<ChatImport> {
        let Tail {
            path,
            name,
            format,
            so_far,
            text: tail,
        } = tail;
        let mut read = chat::read_transcript(tail, format).map_err(|e| {
            Error::invalid(format!(
                "{name}: line {}: {}",
                e.line + so_far.lines,
                e.reason
            ))
        })?;
        let (more, lines) = read_whole_lines(tail, read.waiting);
        let Some(mut session) = self.stored_session(&so_far)? else {
            // The session's note is gone: read the file whole again.
            self.forget_read_so_far(path)?;
            return self.import_chat_file(path, Some(format), keep_secrets, progress);
        };
        let new = read.sessions.pop().unwrap_or(Session {
            key: None,
            title: None,
            started: None,
            place: None,
            turns: Vec::new(),
        });
        let judged = session.turns.len();
        session.title = new.title.or(session.title);
        session.place = session.place.or(new.place);
        session.turns.extend(new.turns);
        read.sessions = vec![session];
        let offset = so_far.offset + more;
        let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let next = ReadSoFar {
            offset,
            lines: so_far.lines + lines,
            check: check_of(&mut file, offset).map_err(|e| Error::io(path, e))?,
            ..so_far
        };
        self.write_transcript(path, (read, judged), next, keep_secrets, progress)
    }

    /// Writes a transcript's session and how far its file was read, in
    /// one transaction.
    fn write_transcript(
        &mut self,
        path: &Path,
        (read, judged): (ChatRead, usize),
        so_far: ReadSoFar,
        keep_secrets: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<ChatImport> {
        let key = meta_key(path);
        let record = move |db: &keep_store::Db<'_>, ids: &[String]| -> Result<()> {
            let so_far = ReadSoFar {
                id: ids.first().cloned().unwrap_or_default(),
                ..so_far.clone()
            };
            let value = serde_json::to_string(&so_far).expect("plain fields serialise");
            Ok(db.set_meta(&key, &value)?)
        };
        self.write_sessions(read, keep_secrets, progress, (judged, Some(&record)))
    }

    fn read_so_far(&self, path: &Path) -> Result<Option<ReadSoFar>> {
        Ok(self
            .store
            .reads()
            .meta(&meta_key(path))?
            .and_then(|v| serde_json::from_str(&v).ok()))
    }

    fn forget_read_so_far(&mut self, path: &Path) -> Result<()> {
        let key = meta_key(path);
        self.store.transact(|db| Ok(db.delete_meta(&key)?))
    }

    /// The session a transcript's note holds, its turns rebuilt from its
    /// parts; None when the note is gone.
    fn stored_session(&self, so_far: &ReadSoFar) -> Result<Option<Session>> {
        let db = self.store.reads();
        let Some((rid, note)) = db.note(&so_far.id)? else {
            return Ok(None);
        };
        let turns = db
            .parts(rid)?
            .into_iter()
            .map(|part| {
                let speaker = part.tags.first("speaker").unwrap_or("").to_string();
                let text = part
                    .summary
                    .strip_prefix(&format!("{speaker}: "))
                    .unwrap_or(&part.summary)
                    .to_string();
                Turn {
                    time: part.tags.first(keys::SAID_AT).and_then(time::parse_loose),
                    speaker,
                    text,
                }
            })
            .collect();
        Ok(Some(Session {
            key: so_far.key.clone(),
            title: note.tags.first("title").map(str::to_string),
            started: Some(note.at),
            place: note.tags.first("cwd").map(str::to_string),
            turns,
        }))
    }
}

/// The bytes and lines of `text` that are whole lines: all of it, or all
/// but the `waiting` last line still being written.
fn read_whole_lines(text: &str, waiting: usize) -> (u64, usize) {
    let upto = match waiting {
        0 => text.len(),
        _ => text.rfind('\n').map_or(0, |at| at + 1),
    };
    (upto as u64, text[..upto].lines().count())
}

/// SHA-256 of the `CHECKED_BYTES` of `file` before `offset`.
fn check_of(file: &mut std::fs::File, offset: u64) -> std::io::Result<String> {
    let from = offset.saturating_sub(CHECKED_BYTES);
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::with_capacity((offset - from) as usize);
    file.by_ref().take(offset - from).read_to_end(&mut bytes)?;
    Ok(format!("{:x}", Sha256::digest(&bytes)))
}

/// The text of `file` from `offset` on: at most `MAX_CHAT_FILE_BYTES`,
/// and UTF-8.
fn read_text(file: &mut std::fs::File, offset: u64, name: &str) -> Result<String> {
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| Error::invalid(format!("{name}: {e}")))?;
    let mut bytes = Vec::new();
    file.by_ref()
        .take(MAX_CHAT_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::invalid(format!("{name}: {e}")))?;
    if bytes.len() as u64 > MAX_CHAT_FILE_BYTES {
        return Err(Error::invalid(format!(
            "{name}: larger than {} MiB; split the export and import the parts",
            MAX_CHAT_FILE_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| Error::invalid(format!("{name}: not UTF-8 text")))
}
