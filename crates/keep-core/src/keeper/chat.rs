//! Conversations in: each session of a chat export becomes one note whose
//! parts are its turns (speaker and time on each), dated by its first
//! turn, under an id taken from the export's own conversation id, so a
//! second import of the same export changes nothing and a longer export
//! of the same conversation becomes the note's next version.

use keep_ingest::chat::{self, ChatFormat, Session, Turn};
use keep_ingest::chunk::Chunk;
use keep_model::time::Timestamp;
use keep_model::{self as model, Tags, dates, keys};
use sha2::{Digest, Sha256};

use super::Keeper;
use super::redact::Redacted;
use super::write::{Content, PutOptions, WriteStatus, write_content};
use crate::error::{Error, Result, Transactions};

/// What is written with imported sessions, in their transaction, given
/// their ids.
pub(super) type AfterWrite<'a> = &'a dyn Fn(&keep_store::Db<'_>, &[String]) -> Result<()>;

/// What `import_chat` did with each session.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct ChatImport {
    /// The export's format: chatgpt, claude, jsonl, markdown, claude-code
    /// or codex.
    pub format: &'static str,
    /// What a user calls the format ("Claude Code transcript").
    #[serde(skip)]
    pub format_title: &'static str,
    pub sessions: Vec<SessionOutcome>,
    /// Lines at the end of a transcript left for the next import (its
    /// last line, still being written).
    #[serde(skip_serializing_if = "is_zero")]
    pub waiting: usize,
    /// Sessions stored with secrets replaced by a marker, and which.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<Redacted>,
}

#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct SessionOutcome {
    pub id: String,
    /// created, updated (the export holds more of it) or unchanged.
    pub status: WriteStatus,
    pub turns: usize,
    /// When the session began.
    pub at: Timestamp,
}

/// At most this many dates a session's note keeps (its turns keep their
/// own).
const MAX_SESSION_DATES: usize = 64;

impl Keeper {
    /// Imports the conversations of a chat export (`text` is the whole
    /// file; `name` names it in messages; `file_day`, when known, the day
    /// the file was written, for a Markdown log's times of day under a
    /// heading without a date). The file is read whole first:
    /// a damaged one is refused naming its line, and nothing is written.
    /// All sessions are written in one transaction.
    pub fn import_chat(
        &mut self,
        text: &str,
        name: &str,
        file_day: Option<Timestamp>,
        expected: Option<ChatFormat>,
        keep_secrets: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<ChatImport> {
        let read = chat::read_as(text, file_day, expected)
            .map_err(|e| Error::invalid(format!("{name}: line {}: {}", e.line, e.reason)))?;
        self.write_sessions(read, keep_secrets, progress, (0, None))
    }

    /// Writes the sessions `read` gave, all in one transaction, and with
    /// them `then` (a transcript's read state) when given. In an agent's
    /// transcript, a turn after the first `judged` (those judged by an
    /// earlier import) that restates a note the store holds becomes a link
    /// to it.
    pub(super) fn write_sessions(
        &mut self,
        read: chat::ChatRead,
        keep_secrets: bool,
        progress: &mut dyn FnMut(usize, usize),
        (judged, then): (usize, Option<AfterWrite<'_>>),
    ) -> Result<ChatImport> {
        let chat::ChatRead {
            format,
            mut sessions,
            waiting,
        } = read;
        let now = self.now();
        self.caller.may_write("import")?;
        let mut screen = self.screen(keep_secrets);
        let redacted: Vec<_> = sessions
            .iter_mut()
            .map(|s| {
                screen.session(s);
                screen.take()
            })
            .collect();
        let links: Vec<Vec<Option<String>>> = sessions
            .iter()
            .map(|s| match chat::is_transcript(format) {
                true => self.restatements(format, s, judged, progress),
                false => Ok(vec![None; s.turns.len()]),
            })
            .collect::<Result<_>>()?;
        let contents: Vec<(Content, PutOptions, usize)> = sessions
            .iter()
            .zip(redacted)
            .zip(&links)
            .map(|((s, redacted), links)| {
                let (mut content, mut opts, turns) = session_content(format, s, links, now)?;
                content.redacted = redacted;
                opts.tags = self.caller.scoped_tags(opts.tags)?;
                opts.within.extend(self.caller.filters());
                Ok((content, opts, turns))
            })
            .collect::<Result<_>>()?;
        let total = contents.len();
        let outcomes = self.store.transact(|db| {
            let mut outcomes = Vec::with_capacity(total);
            for (done, (content, opts, turns)) in contents.iter().enumerate() {
                progress(done, total);
                let status = write_content(db, content, opts, now)?;
                outcomes.push(SessionOutcome {
                    id: content.id.clone(),
                    status,
                    turns: *turns,
                    at: opts.at.unwrap_or(now),
                });
            }
            if let Some(then) = then {
                let ids: Vec<String> = outcomes.iter().map(|o| o.id.clone()).collect();
                then(db, &ids)?;
            }
            Ok(outcomes)
        })?;
        progress(total, total);
        let redacted = contents
            .iter()
            .filter(|(content, _, _)| !content.redacted.is_empty())
            .map(|(content, _, _)| Redacted {
                id: content.id.clone(),
                secrets: content.redacted.clone(),
            })
            .collect();
        Ok(ChatImport {
            format: format.name(),
            format_title: format.title(),
            sessions: outcomes,
            waiting,
            redacted,
        })
    }
}

/// A turn of a transcript that restates a stored note is kept as a link
/// to it, `SPEAKER: (restates ID)`, tagged `restates`.
const RESTATES: &str = "restates";

/// Turns at least this long (in bytes) and at most `RESTATED_MAX` are
/// judged against the stored notes: shorter ones say too little to
/// restate a fact, longer ones say more than one.
const RESTATED_MIN: usize = 20;
const RESTATED_MAX: usize = 600;

impl Keeper {
    /// For each turn of `session`, the note it restates (the verdict `put`
    /// gives: the same numbers, dates, names and identifiers), judged for
    /// the turns after the first `judged` said by the person or the agent;
    /// the first `judged`, read back from the store, keep the link they
    /// have. None for each when no model is installed.
    fn restatements(
        &mut self,
        format: ChatFormat,
        session: &Session,
        judged: usize,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<Option<String>>> {
        let own = session_id(format, session, began_of(session, self.now()));
        let mut links = Vec::with_capacity(session.turns.len());
        let mut judging = true;
        for (i, turn) in session.turns.iter().enumerate() {
            progress(i, session.turns.len());
            if i < judged {
                links.push(linked_in_store(turn));
                continue;
            }
            let said = matches!(turn.speaker.as_str(), "user" | "assistant");
            let sized = (RESTATED_MIN..=RESTATED_MAX).contains(&turn.text.len());
            if !(judging && said && sized) {
                links.push(None);
                continue;
            }
            match self.closest_restatement(&turn.text, &Tags::new()) {
                Ok(Some(d)) if d.verdict == crate::facts::Verdict::Same && d.id != own => {
                    links.push(Some(d.id))
                }
                Ok(_) => links.push(None),
                Err(e) if e.is_model_off() => {
                    judging = false;
                    links.push(None);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(links)
    }
}

/// The note a turn read back from the store links to, if it is a link.
fn linked_in_store(turn: &Turn) -> Option<String> {
    turn.text
        .strip_prefix(&format!("({RESTATES} "))
        .and_then(|rest| rest.strip_suffix(')'))
        .map(str::to_string)
}

/// The note a session becomes: its transcript as text, one part per turn
/// (a turn linked to the note it restates, by `links`, one for each turn,
/// as that link).
fn session_content(
    format: ChatFormat,
    session: &Session,
    links: &[Option<String>],
    now: Timestamp,
) -> Result<(Content, PutOptions, usize)> {
    let began = began_of(session, now);
    let id = session_id(format, session, began);
    model::validate_id(&id)?;
    let transcript: Vec<String> = session
        .turns
        .iter()
        .zip(links)
        .map(|(turn, link)| match link {
            Some(id) => format!("{}: ({RESTATES} {id})", turn.speaker.trim()),
            None => turn_line(turn),
        })
        .collect();
    // The turns are the parts, found one by one; the note itself holds a
    // synopsis, so a match lands on the turn that says it.
    let text = synopsis(session);
    let mut system_tags = Tags::new();
    system_tags.insert(keys::SOURCE, "chat");
    system_tags.insert(keys::CONTENT_TYPE, "text/plain");
    let mut provider_tags = Tags::new();
    provider_tags.insert("chat", format.name());
    if let Some(title) = &session.title {
        provider_tags.insert("title", title.trim());
    }
    if let Some(place) = &session.place {
        provider_tags.insert("cwd", place.trim());
    }
    let mut part_tags = Vec::with_capacity(session.turns.len());
    let mut session_dates: Vec<String> = Vec::new();
    let mut said = began;
    for (turn, link) in session.turns.iter().zip(links) {
        said = turn.time.unwrap_or(said);
        provider_tags.insert("speaker", turn.speaker.trim());
        let mut tags = Tags::new();
        tags.insert("speaker", turn.speaker.trim());
        if let Some(id) = link {
            tags.insert(RESTATES, id.clone());
        }
        if let Some(time) = turn.time {
            tags.insert(keys::SAID_AT, time.to_string());
        }
        for spoken in dates::spoken_dates(&turn.text, said) {
            let day = spoken.start.to_string();
            tags.insert(keys::DATES, day.clone());
            if session_dates.len() < MAX_SESSION_DATES && !session_dates.contains(&day) {
                session_dates.push(day);
            }
        }
        part_tags.push(tags);
    }
    for day in &session_dates {
        system_tags.insert(keys::DATES, day.clone());
    }
    let hash = model::content_hash(hashed_transcript(session).as_bytes());
    let content = Content {
        id,
        hash,
        parts: transcript
            .into_iter()
            .map(|text| Chunk {
                text,
                section: None,
            })
            .collect(),
        text,
        system_tags,
        provider_tags,
        description: None,
        lead: None,
        part_tags,
        dates_given: true,
        redacted: Vec::new(),
    };
    let opts = PutOptions {
        at: Some(began),
        summary: Some(content.text.clone()),
        ..PutOptions::default()
    };
    Ok((content, opts, session.turns.len()))
}

/// When a session began: its first turn's time, else the export's, else
/// `now`.
fn began_of(session: &Session, now: Timestamp) -> Timestamp {
    session
        .turns
        .iter()
        .find_map(|t| t.time)
        .or(session.started)
        .unwrap_or(now)
}

/// Characters of the opening turn a session's synopsis quotes.
const OPENING_CHARS: usize = 160;

/// `Title (alice and bob, 12 turns): the first line of the opening turn`.
fn synopsis(session: &Session) -> String {
    let mut speakers: Vec<&str> = Vec::new();
    for turn in &session.turns {
        let speaker = turn.speaker.trim();
        if !speakers.contains(&speaker) {
            speakers.push(speaker);
        }
    }
    let opening = session
        .turns
        .first()
        .and_then(|t| t.text.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .trim();
    let mut quoted: String = opening.chars().take(OPENING_CHARS).collect();
    if quoted.len() < opening.len() {
        quoted = format!("{} …", quoted.trim_end());
    }
    format!(
        "{} ({}, {} turn{}): {quoted}",
        session.title.as_deref().unwrap_or("Conversation").trim(),
        speakers.join(" and "),
        session.turns.len(),
        if session.turns.len() == 1 { "" } else { "s" },
    )
}

/// `Speaker: text`, the form a turn is stored and found in.
fn turn_line(turn: &Turn) -> String {
    format!("{}: {}", turn.speaker.trim(), turn.text)
}

/// The transcript with each turn's time, so a turn re-dated in a later
/// export counts as a change.
fn hashed_transcript(session: &Session) -> String {
    session
        .turns
        .iter()
        .map(|t| {
            let time = t.time.map(|t| t.to_string()).unwrap_or_default();
            format!("{time}\u{1f}{}\u{1f}{}\u{1e}", t.speaker, t.text)
        })
        .collect()
}

/// `chat/FORMAT/KEY` from the export's own conversation id; without one,
/// from the session's first time and its speakers, so the same
/// conversation always lands on the same note.
fn session_id(format: ChatFormat, session: &Session, began: Timestamp) -> String {
    match &session.key {
        Some(key) if is_plain_key(key) => format!("chat/{}/{key}", format.name()),
        Some(key) => format!("chat/{}/{}", format.name(), short_hash(key)),
        None => {
            let mut speakers: Vec<&str> = session.turns.iter().map(|t| t.speaker.trim()).collect();
            speakers.sort_unstable();
            speakers.dedup();
            let day = began.to_string();
            let stamp: String = day.chars().filter(char::is_ascii_digit).take(12).collect();
            format!(
                "chat/{}/{stamp}-{}",
                format.name(),
                short_hash(&format!("{day}\u{1f}{}", speakers.join("\u{1f}")))
            )
        }
    }
}

/// Letters, digits, `-`, `_` and `.`, short enough for an id.
fn is_plain_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 80
        && !key.starts_with('.')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn short_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest[..6].iter().map(|b| format!("{b:02x}")).collect()
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
