//! JSON Lines of turns: one object per line, `{"session", "time",
//! "speaker", "text"}`; turns of a session keep their order, sessions the
//! order they first appear in.

use serde_json::Value;

use super::{ChatError, Session, Turn, time_of};

pub(super) fn read(text: &str) -> Result<Vec<Session>, ChatError> {
    let mut sessions: Vec<Session> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .map_err(|e| ChatError::at(number, format!("not a JSON object ({e})")))?;
        let field = |name: &str| -> Result<String, ChatError> {
            match value.get(name) {
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
                Some(Value::Number(n)) if name == "session" => Ok(n.to_string()),
                Some(_) => Err(ChatError::at(
                    number,
                    format!("'{name}' must be a non-empty string"),
                )),
                None => Err(ChatError::at(number, format!("no '{name}'"))),
            }
        };
        let key = field("session")?;
        let time = match value.get("time") {
            None | Some(Value::Null) => None,
            Some(t) => Some(
                time_of(t)
                    .ok_or_else(|| ChatError::at(number, format!("'time' is not a time: {t}")))?,
            ),
        };
        let turn = Turn {
            speaker: field("speaker")?,
            time,
            text: field("text")?.trim().to_string(),
        };
        match sessions
            .iter_mut()
            .find(|s| s.key.as_deref() == Some(key.as_str()))
        {
            Some(session) => session.turns.push(turn),
            None => sessions.push(Session {
                key: Some(key),
                title: None,
                started: None,
                place: None,
                turns: vec![turn],
            }),
        }
    }
    Ok(sessions)
}
