//! The transcripts coding agents write as they work, one JSON object a
//! line: Claude Code's (`~/.claude/projects/*/SESSION.jsonl`: `user` and
//! `assistant` lines with a `message`) and Codex's rollout files
//! (`~/.codex/sessions/…/rollout-*.jsonl`: `session_meta`, then
//! `response_item` lines with a `payload`). What people and agents said
//! becomes turns; a tool call becomes a short turn of speaker `tool` (its
//! name and the start of its input), and what a tool printed is left out
//! (it can be megabytes). A transcript is written while the agent works,
//! so a last line without its newline is left for the next import; any
//! other line that is not a JSON object refuses the file, naming it.

use serde_json::Value;

use super::{ChatError, Session, Turn, time_of};

/// Characters of a tool call's input kept in its turn.
const TOOL_INPUT_CHARS: usize = 160;

/// The kinds of transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    ClaudeCode,
    Codex,
}

/// Which kind of transcript the first line of `text` opens, if any.
pub(super) fn kind_of(text: &str) -> Option<Kind> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    let value: Value = serde_json::from_str(first).ok()?;
    let kind = value.get("type").and_then(Value::as_str);
    if value.get("payload").is_some() && value.get("timestamp").is_some() {
        return Some(Kind::Codex);
    }
    if value.get("sessionId").is_some()
        || matches!(kind, Some("summary" | "file-history-snapshot"))
        || value.get("message").is_some() && value.get("uuid").is_some()
    {
        return Some(Kind::ClaudeCode);
    }
    None
}

/// What the transcript `text` holds, and how many lines at its end are
/// left for the next import (none, or one without its newline).
pub(super) struct Read {
    pub session: Session,
    pub waiting: usize,
}

/// The session of a transcript of `kind`.
pub(super) fn read(text: &str, kind: Kind) -> Result<Read, ChatError> {
    let whole = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let mut session = Session {
        key: None,
        title: None,
        started: None,
        place: None,
        turns: Vec::new(),
    };
    let mut waiting = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(value @ Value::Object(_)) => value,
            _ if i + 1 == lines.len() && !whole => {
                waiting = 1;
                break;
            }
            Ok(_) => return Err(ChatError::at(i + 1, "not a JSON object")),
            Err(e) => return Err(ChatError::at(i + 1, format!("not a JSON object ({e})"))),
        };
        if i + 1 == lines.len() && !whole {
            waiting = 1;
            break;
        }
        match kind {
            Kind::ClaudeCode => claude_code_line(&value, &mut session),
            Kind::Codex => codex_line(&value, &mut session),
        }
    }
    Ok(Read { session, waiting })
}

/// One line of a Claude Code transcript.
fn claude_code_line(value: &Value, session: &mut Session) {
    let text_of = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    if session.key.is_none() {
        session.key = text_of("sessionId");
    }
    if session.place.is_none() {
        session.place = text_of("cwd");
    }
    match value.get("type").and_then(Value::as_str) {
        Some("summary") => {
            if let Some(summary) = text_of("summary") {
                session.title = Some(summary);
            }
        }
        Some(speaker @ ("user" | "assistant")) => {
            if value.get("isMeta").and_then(Value::as_bool) == Some(true) {
                return;
            }
            let time = value.get("timestamp").and_then(time_of);
            let Some(message) = value.get("message") else {
                return;
            };
            for (speaker, text) in blocks(speaker, message.get("content")) {
                push(session, speaker, time, text);
            }
        }
        _ => {}
    }
}

/// One line of a Codex rollout file (older files hold the payloads
/// themselves, without the envelope).
fn codex_line(value: &Value, session: &mut Session) {
    let payload = value.get("payload").unwrap_or(value);
    let time = value
        .get("timestamp")
        .or_else(|| payload.get("timestamp"))
        .and_then(time_of);
    let text_of = |key: &str| payload.get(key).and_then(Value::as_str).map(str::to_string);
    match (
        value.get("type").and_then(Value::as_str),
        text_of("type").as_deref(),
    ) {
        (Some("session_meta"), _) => {
            session.key = text_of("id").or(session.key.take());
            session.place = text_of("cwd").or(session.place.take());
            session.started = payload
                .get("timestamp")
                .and_then(time_of)
                .or(session.started);
        }
        (Some("response_item") | None, Some("message")) => {
            let Some(speaker) = text_of("role").filter(|r| r == "user" || r == "assistant") else {
                return;
            };
            for (speaker, text) in blocks(&speaker, payload.get("content")) {
                push(session, speaker, time, text);
            }
        }
        (
            Some("response_item") | None,
            Some("function_call" | "custom_tool_call" | "local_shell_call"),
        ) => {
            let name = text_of("name").unwrap_or_else(|| "shell".to_string());
            let input = payload
                .get("arguments")
                .or_else(|| payload.get("input"))
                .or_else(|| payload.get("action"));
            push(session, "tool".into(), time, tool_line(&name, input));
        }
        (None, _) if session.key.is_none() => {
            session.key = text_of("id");
        }
        _ => {}
    }
}

/// The turns a message's content makes: its text (a string, or its text
/// blocks joined), then a short turn for each tool call; what tools
/// printed and the model's thinking are left out.
fn blocks(speaker: &str, content: Option<&Value>) -> Vec<(String, String)> {
    let mut text = String::new();
    let mut calls = Vec::new();
    match content {
        Some(Value::String(s)) => text.push_str(s),
        Some(Value::Array(items)) => {
            for item in items {
                match item.get("type").and_then(Value::as_str) {
                    Some("text" | "input_text" | "output_text") => {
                        if let Some(t) = item.get("text").and_then(Value::as_str) {
                            if !text.is_empty() {
                                text.push('\n');
                            }
                            text.push_str(t);
                        }
                    }
                    Some("tool_use") => {
                        let name = item.get("name").and_then(Value::as_str).unwrap_or("tool");
                        calls.push(("tool".to_string(), tool_line(name, item.get("input"))));
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    let mut turns = Vec::new();
    let text = text.trim();
    if !text.is_empty() && !is_harness_text(text) {
        turns.push((speaker.to_string(), text.to_string()));
    }
    turns.extend(calls);
    turns
}

/// Text the agent's harness puts in a user message (the environment, the
/// project's instructions, a command's echo), not what a person said.
fn is_harness_text(text: &str) -> bool {
    const WRAPPERS: &[&str] = &[
        "<environment_context>",
        "<user_instructions>",
        "<command-name>",
        "<command-message>",
        "<local-command-stdout>",
        "<system-reminder>",
        "Caveat: The messages below were generated by the user while running local commands.",
    ];
    WRAPPERS.iter().any(|w| text.starts_with(w))
}

/// `NAME: the start of its input` on one line.
fn tool_line(name: &str, input: Option<&Value>) -> String {
    let input = match input {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let flat = input.split_whitespace().collect::<Vec<_>>().join(" ");
    let shown = match flat.char_indices().nth(TOOL_INPUT_CHARS) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat,
    };
    if shown.is_empty() {
        name.to_string()
    } else {
        format!("{name}: {shown}")
    }
}

fn push(
    session: &mut Session,
    speaker: String,
    time: Option<keep_model::time::Timestamp>,
    text: String,
) {
    if session.started.is_none() {
        session.started = time;
    }
    session.turns.push(Turn {
        speaker,
        time,
        text,
    });
}
