//! ChatGPT's `conversations.json`: conversations whose messages form a
//! tree (`mapping`, each node naming its parent); the conversation shown
//! is the path from the root to `current_node`.

use std::collections::HashMap;

use serde_json::Value;

use super::{ChatError, Session, Turn, line_of, time_of};

/// Conversation `index` of the export `text`.
pub(super) fn conversation(item: &Value, index: usize, text: &str) -> Result<Session, ChatError> {
    let key = item
        .get("conversation_id")
        .or_else(|| item.get("id"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let fail = |reason: String| {
        let line = key.as_deref().map_or(1, |k| line_of(text, k));
        ChatError::at(line, format!("conversation {}: {reason}", index + 1))
    };
    let mapping = item
        .get("mapping")
        .and_then(Value::as_object)
        .ok_or_else(|| fail("'mapping' is not an object".into()))?;
    let nodes: HashMap<&str, &Value> = mapping.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let last = match item.get("current_node").and_then(Value::as_str) {
        Some(node) => node.to_string(),
        None => last_leaf(&nodes).ok_or_else(|| fail("it has no messages".into()))?,
    };
    let mut path = Vec::new();
    let mut at = Some(last);
    while let Some(id) = at {
        let node = nodes
            .get(id.as_str())
            .ok_or_else(|| fail(format!("message '{id}' is named but missing")))?;
        if path.len() > nodes.len() {
            return Err(fail("its messages form a loop".into()));
        }
        path.push(*node);
        at = node
            .get("parent")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    path.reverse();
    Ok(Session {
        key,
        title: item
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_string)
            .filter(|t| !t.trim().is_empty()),
        started: item.get("create_time").and_then(time_of),
        place: None,
        turns: path.iter().filter_map(|node| turn(node)).collect(),
    })
}

/// The node without children that was written last, when the export does
/// not say which branch is current.
fn last_leaf(nodes: &HashMap<&str, &Value>) -> Option<String> {
    nodes
        .iter()
        .filter(|(_, n)| {
            n.get("children")
                .and_then(Value::as_array)
                .is_none_or(|c| c.is_empty())
        })
        .max_by(|(a_id, a), (b_id, b)| {
            let time = |n: &Value| {
                n.pointer("/message/create_time")
                    .and_then(time_of)
                    .map_or(0, |t| t.millis())
            };
            (time(a), a_id).cmp(&(time(b), b_id))
        })
        .map(|(id, _)| id.to_string())
}

/// A visible message with text; system prompts, tool calls and hidden
/// messages are not turns.
fn turn(node: &Value) -> Option<Turn> {
    let message = node.get("message")?;
    let role = message.pointer("/author/role")?.as_str()?;
    if !matches!(role, "user" | "assistant") {
        return None;
    }
    let hidden = message
        .pointer("/metadata/is_visually_hidden_from_conversation")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if hidden {
        return None;
    }
    let parts = message.pointer("/content/parts")?.as_array()?;
    let text = parts
        .iter()
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string();
    if text.is_empty() {
        return None;
    }
    Some(Turn {
        speaker: role.to_string(),
        time: message.get("create_time").and_then(time_of),
        text,
    })
}
