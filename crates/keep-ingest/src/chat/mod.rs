//! Conversations read from chat exports: ChatGPT's `conversations.json`,
//! Claude's export, JSON Lines of turns, Markdown chat logs and the
//! transcripts Claude Code and Codex write, each into sessions of turns
//! (speaker, time, text). A file that cannot be read whole is refused
//! with the line where it went wrong.

mod chatgpt;
mod claude;
mod jsonl;
mod markdown;
mod transcript;

use keep_model::time::Timestamp;

/// One thing said in a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub speaker: String,
    /// When it was said, when the export says.
    pub time: Option<Timestamp>,
    pub text: String,
}

/// One conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// The export's own id for the conversation, if it has one.
    pub key: Option<String>,
    pub title: Option<String>,
    /// When the conversation began, when the export says (else its first
    /// turn's time).
    pub started: Option<Timestamp>,
    /// The folder the conversation worked in, when a transcript says.
    pub place: Option<String>,
    pub turns: Vec<Turn>,
}

/// The formats a chat export comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatFormat {
    ChatGpt,
    Claude,
    JsonLines,
    Markdown,
    ClaudeCode,
    Codex,
}

impl ChatFormat {
    pub fn name(self) -> &'static str {
        match self {
            ChatFormat::ChatGpt => "chatgpt",
            ChatFormat::Claude => "claude",
            ChatFormat::JsonLines => "jsonl",
            ChatFormat::Markdown => "markdown",
            ChatFormat::ClaudeCode => "claude-code",
            ChatFormat::Codex => "codex",
        }
    }

    /// What a user calls it.
    pub fn title(self) -> &'static str {
        match self {
            ChatFormat::ChatGpt => "ChatGPT export",
            ChatFormat::Claude => "Claude export",
            ChatFormat::JsonLines => "JSON Lines of turns",
            ChatFormat::Markdown => "Markdown chat log",
            ChatFormat::ClaudeCode => "Claude Code transcript",
            ChatFormat::Codex => "Codex transcript",
        }
    }

    fn transcript(self) -> Option<transcript::Kind> {
        match self {
            ChatFormat::ClaudeCode => Some(transcript::Kind::ClaudeCode),
            ChatFormat::Codex => Some(transcript::Kind::Codex),
            _ => None,
        }
    }
}

/// What a chat file holds: its format, its sessions, and the lines at its
/// end left for the next import (a transcript's last line still being
/// written).
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRead {
    pub format: ChatFormat,
    pub sessions: Vec<Session>,
    pub waiting: usize,
}

/// Why a chat export cannot be read: where, and what.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ChatError {
    pub line: usize,
    pub reason: String,
}

impl ChatError {
    pub(crate) fn at(line: usize, reason: impl Into<String>) -> Self {
        ChatError {
            line,
            reason: reason.into(),
        }
    }
}

/// Reads the sessions of a chat export, telling its format from its
/// shape: a JSON array of conversations with a `mapping` (ChatGPT) or
/// `chat_messages` (Claude), one JSON object per line, or else Markdown.
pub fn read(text: &str) -> Result<(ChatFormat, Vec<Session>), ChatError> {
    read_dated(text, None)
}

/// `read`, with the day the file was written: a Markdown log's session
/// whose heading names no date is on that day, so its times of day alone
/// are read on it.
pub fn read_dated(
    text: &str,
    file_day: Option<Timestamp>,
) -> Result<(ChatFormat, Vec<Session>), ChatError> {
    read_as(text, file_day, None).map(|read| (read.format, read.sessions))
}

/// `read_dated`, as the format `expected` when one is given (a file of
/// another shape is refused).
pub fn read_as(
    text: &str,
    file_day: Option<Timestamp>,
    expected: Option<ChatFormat>,
) -> Result<ChatRead, ChatError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.is_empty() {
        return Err(ChatError::at(1, "the file is empty"));
    }
    let transcript = match expected {
        Some(format) => format.transcript(),
        None if trimmed.starts_with('{') => transcript::kind_of(trimmed),
        None => None,
    };
    let (format, mut sessions, waiting) = match transcript {
        Some(kind) => {
            if transcript::kind_of(trimmed) != Some(kind) {
                let format = expected.expect("a transcript kind comes from a format here");
                return Err(ChatError::at(1, format!("not a {}", format.title())));
            }
            let read = transcript::read(trimmed, kind)?;
            let format = match kind {
                transcript::Kind::ClaudeCode => ChatFormat::ClaudeCode,
                transcript::Kind::Codex => ChatFormat::Codex,
            };
            (format, vec![read.session], read.waiting)
        }
        None => {
            let (format, sessions) = read_export(text, trimmed, file_day)?;
            (format, sessions, 0)
        }
    };
    if let Some(expected) = expected
        && expected != format
        && expected.transcript().is_none()
    {
        return Err(ChatError::at(
            1,
            format!("a {}, not a {}", format.title(), expected.title()),
        ));
    }
    sessions.retain(|s| !s.turns.is_empty());
    if sessions.is_empty() && waiting == 0 {
        return Err(ChatError::at(1, "no conversation with a turn in it"));
    }
    Ok(ChatRead {
        format,
        sessions,
        waiting,
    })
}

/// The lines of a transcript of `format` (Claude Code or Codex) from
/// some line on, as the one session they continue (its turns may be
/// none); a format that is not a transcript's is refused.
pub fn read_transcript(text: &str, format: ChatFormat) -> Result<ChatRead, ChatError> {
    let kind = format
        .transcript()
        .ok_or_else(|| ChatError::at(1, format!("a {} is not a transcript", format.title())))?;
    let read = transcript::read(text, kind)?;
    Ok(ChatRead {
        format,
        sessions: vec![read.session],
        waiting: read.waiting,
    })
}

/// Whether `format` is an agent's transcript (read as it grows).
pub fn is_transcript(format: ChatFormat) -> bool {
    format.transcript().is_some()
}

/// The sessions of an export or a log (not a transcript), by its shape.
fn read_export(
    text: &str,
    trimmed: &str,
    file_day: Option<Timestamp>,
) -> Result<(ChatFormat, Vec<Session>), ChatError> {
    Ok(if trimmed.starts_with('[') {
        let value: serde_json::Value =
            serde_json::from_str(trimmed).map_err(|e| json_error(text, trimmed, &e))?;
        let serde_json::Value::Array(items) = value else {
            unreachable!("starts with '['");
        };
        match items.first() {
            Some(first) if first.get("mapping").is_some() => (
                ChatFormat::ChatGpt,
                each_conversation(&items, text, chatgpt::conversation)?,
            ),
            Some(first) if first.get("chat_messages").is_some() => (
                ChatFormat::Claude,
                each_conversation(&items, text, claude::conversation)?,
            ),
            Some(_) => {
                return Err(ChatError::at(
                    1,
                    "a JSON array, but not of ChatGPT conversations (with 'mapping') or Claude conversations (with 'chat_messages')",
                ));
            }
            None => (ChatFormat::ChatGpt, Vec::new()),
        }
    } else if trimmed.starts_with('{') {
        (ChatFormat::JsonLines, jsonl::read(text)?)
    } else {
        (ChatFormat::Markdown, markdown::read(text, file_day)?)
    })
}

/// The sessions of a JSON array of conversations, each read by `read`
/// (given the conversation, its index and the whole file for messages).
fn each_conversation(
    items: &[serde_json::Value],
    text: &str,
    read: fn(&serde_json::Value, usize, &str) -> Result<Session, ChatError>,
) -> Result<Vec<Session>, ChatError> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| read(item, i, text))
        .collect()
}

/// A JSON error as a line of the whole file (`parsed` is a suffix of
/// `text`).
fn json_error(text: &str, parsed: &str, e: &serde_json::Error) -> ChatError {
    let skipped = text.len() - parsed.len();
    let before = text[..skipped].matches('\n').count();
    ChatError::at(before + e.line(), format!("not valid JSON ({e})"))
}

/// The line of `text` where `needle` (a conversation's id) first
/// appears, for messages about a value that parsed but makes no sense; 1
/// when it cannot be found.
pub(crate) fn line_of(text: &str, needle: &str) -> usize {
    text.find(needle)
        .map_or(1, |at| text[..at].matches('\n').count() + 1)
}

/// A time as exports write it: RFC 3339, a local time (read as UTC), or
/// seconds since the epoch (fractions allowed).
pub(crate) fn time_of(value: &serde_json::Value) -> Option<Timestamp> {
    match value {
        serde_json::Value::Number(n) => {
            let seconds = n.as_f64()?;
            (seconds.is_finite() && seconds > 0.0)
                .then(|| Timestamp::from_millis((seconds * 1000.0).round() as i64))
        }
        serde_json::Value::String(s) => keep_model::time::parse_loose(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
