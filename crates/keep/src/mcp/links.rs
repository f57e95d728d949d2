//! Links to the files and pages a tool's answer names: a note whose id is
//! a `file://` or web URL is also given as `resource_link` content, so a
//! client can open what the note is about.

use rmcp::model::{ContentBlock, Resource};
use serde_json::Value;

/// Most links one answer carries.
const MAX_LINKS: usize = 20;

/// `resource_link` blocks for the file and URL notes `value` names (the
/// `note` of a get, the `notes` or `ids` of a listing), each once.
pub fn resource_links(value: &Value) -> Vec<ContentBlock> {
    let mut seen = Vec::new();
    let mut links = Vec::new();
    for note in named_notes(value) {
        let Some(id) = note.get("id").and_then(Value::as_str).or(note.as_str()) else {
            continue;
        };
        if !is_linkable(id) || seen.iter().any(|s| s == id) || links.len() >= MAX_LINKS {
            continue;
        }
        seen.push(id.to_string());
        links.push(ContentBlock::resource_link(link(id, note)));
    }
    links
}

fn named_notes(value: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    if let Some(note) = value.get("note").filter(|n| n.is_object()) {
        out.push(note);
    }
    for key in ["notes", "ids"] {
        if let Some(list) = value.get(key).and_then(Value::as_array) {
            out.extend(list);
        }
    }
    out
}

fn is_linkable(id: &str) -> bool {
    ["file://", "http://", "https://"]
        .iter()
        .any(|scheme| id.starts_with(scheme))
}

fn link(id: &str, note: &Value) -> Resource {
    let name = id
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or(id)
        .to_string();
    let tag = |key: &str| {
        note.pointer(&format!("/tags/{key}/0"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut resource = Resource::new(id, name);
    let title = note
        .get("title")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| tag("title"));
    if let Some(title) = title {
        resource = resource.with_title(title);
    }
    if let Some(mime) = tag("_content_type") {
        resource = resource.with_mime_type(mime);
    }
    resource
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn files_and_pages_are_linked_once_and_inline_notes_are_not() {
        let answer = json!({"notes": [
            {"id": "file:///home/me/plan.md", "tags": {"_content_type": ["text/markdown"], "title": ["Plan"]}},
            {"id": "%0123456789ab", "tags": {}},
            {"id": "https://example.org/a/", "tags": {}},
            {"id": "file:///home/me/plan.md", "tags": {}}
        ]});
        let links = resource_links(&answer);
        let json = serde_json::to_value(&links).unwrap();
        assert_eq!(json.as_array().unwrap().len(), 2, "{json}");
        assert_eq!(json[0]["type"], "resource_link");
        assert_eq!(json[0]["uri"], "file:///home/me/plan.md");
        assert_eq!(json[0]["name"], "plan.md");
        assert_eq!(json[0]["title"], "Plan");
        assert_eq!(json[0]["mimeType"], "text/markdown");
        assert_eq!(json[1]["name"], "a");
        assert!(resource_links(&json!({"ids": ["%0123456789ab"]})).is_empty());
    }
}
