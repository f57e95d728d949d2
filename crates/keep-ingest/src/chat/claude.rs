//! Claude's export (`conversations.json`): conversations with their
//! messages in order (`chat_messages`), each from `human` or `assistant`.

use serde_json::Value;

use super::{ChatError, Session, Turn, line_of, time_of};

/// Conversation `index` of the export `text`.
pub(super) fn conversation(item: &Value, index: usize, text: &str) -> Result<Session, ChatError> {
    let key = item.get("uuid").and_then(Value::as_str).map(str::to_string);
    let messages = item
        .get("chat_messages")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            let line = key.as_deref().map_or(1, |k| line_of(text, k));
            ChatError::at(
                line,
                format!("conversation {}: 'chat_messages' is not a list", index + 1),
            )
        })?;
    Ok(Session {
        key,
        title: item
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .filter(|t| !t.trim().is_empty()),
        started: item.get("created_at").and_then(time_of),
        place: None,
        turns: messages.iter().filter_map(turn).collect(),
    })
}

/// A message's text: its `text`, else the text blocks of its `content`.
fn turn(message: &Value) -> Option<Turn> {
    let speaker = message.get("sender")?.as_str()?.to_string();
    let own = message
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    let text = if own.is_empty() {
        message
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
            .trim()
            .to_string()
    } else {
        own
    };
    if text.is_empty() {
        return None;
    }
    Some(Turn {
        speaker,
        time: message.get("created_at").and_then(time_of),
        text,
    })
}
