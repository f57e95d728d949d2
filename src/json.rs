//! The stable JSON forms of notes, views and recall hits, shared by the
//! command line's `--json` and the MCP server.

use serde_json::{Value, json};

use crate::keeper::{FindResult, Hit, NoteView};
use crate::note::{Edge, Note, Part, Tags, Version};

pub fn tags_json(tags: &Tags) -> Value {
    serde_json::to_value(tags).expect("tags serialise")
}

/// The stable JSON form of a note.
pub fn note_json(note: &Note) -> Value {
    json!({
        "id": note.id,
        "summary": note.summary,
        "tags": tags_json(&note.tags),
        "content_hash": note.content_hash,
        "created": note.created,
        "updated": note.updated,
        "accessed": note.accessed,
    })
}

fn version_json(offset: i64, v: &Version) -> Value {
    json!({
        "version": offset,
        "summary": v.summary,
        "tags": tags_json(&v.tags),
        "content_hash": v.content_hash,
        "updated": v.updated,
    })
}

fn part_json(p: &Part) -> Value {
    json!({ "part": p.number, "summary": p.summary, "tags": tags_json(&p.tags) })
}

fn edge_json(e: &Edge) -> Value {
    json!({ "key": e.key, "inverse": e.inverse, "source": e.source, "target": e.target })
}

/// The JSON form of `get`: the note plus version, part, history, parts
/// and edges.
pub fn view_json(view: &NoteView) -> Value {
    let mut value = note_json(&view.note);
    let obj = value.as_object_mut().expect("object");
    obj.insert("version".into(), json!(view.version));
    obj.insert(
        "part".into(),
        view.part.as_ref().map_or(Value::Null, part_json),
    );
    obj.insert(
        "versions".into(),
        Value::Array(
            view.history
                .iter()
                .map(|(o, v)| version_json(*o, v))
                .collect(),
        ),
    );
    obj.insert(
        "parts".into(),
        Value::Array(view.parts.iter().map(part_json).collect()),
    );
    obj.insert(
        "edges".into(),
        Value::Array(view.edges.iter().map(edge_json).collect()),
    );
    obj.insert(
        "inverse_edges".into(),
        Value::Array(view.inverse_edges.iter().map(edge_json).collect()),
    );
    value
}

pub fn history_json(history: &[(i64, Version)]) -> Value {
    Value::Array(history.iter().map(|(o, v)| version_json(*o, v)).collect())
}

/// The JSON form of a result: an array of notes with their scores.
pub fn hits_json(result: &FindResult) -> Value {
    Value::Array(result.hits.iter().map(hit_json).collect())
}

pub fn hit_json(h: &Hit) -> Value {
    let mut v = note_json(&h.note);
    v["score"] = json!(h.score);
    v["keyword_rank"] = json!(h.keyword_rank);
    v["vector_rank"] = json!(h.vector_rank);
    v["similarity"] = json!(h.similarity);
    v["matched"] = json!(h.matched);
    v["via"] = json!(h.via);
    v
}
