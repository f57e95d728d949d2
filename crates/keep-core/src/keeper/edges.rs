//! Edges: tags whose key is an edge key link a note to the note named by
//! the value. Built-in keys plus keys declared by `.tag/KEY` notes carrying
//! `_inverse=NAME`. A missing target gets a stub note.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::model::time::Timestamp;
use crate::model::{self, Edge, Note, Tags, keys};
use crate::store::NoteReads;
use crate::store::Shared;
use crate::store::{Db, NoteRid};

/// Built-in edge keys and the names of their inverses.
pub const BUILTIN_EDGES: &[(&str, &str)] = &[
    ("references", "referenced-by"),
    ("author", "authored"),
    ("speaker", "spoke"),
    ("from", "sent"),
    ("to", "received"),
    ("in-reply-to", "replies"),
    (keys::LINKS_TO, "linked-from"),
    (keys::SUPERSEDES, "superseded-by"),
    (keys::MAY_SUPERSEDE, "may-be-superseded-by"),
];

const TAG_NOTE_PREFIX: &str = ".tag/";

pub(crate) struct EdgeKeys(HashMap<String, String>);

impl EdgeKeys {
    pub(crate) fn load(db: &Db<'_>) -> Result<Self> {
        let mut map: HashMap<String, String> = BUILTIN_EDGES
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        for (key, inverse) in db.declared_edge_keys()? {
            if !in_trash(db, &format!("{TAG_NOTE_PREFIX}{key}"))? {
                map.insert(key, inverse);
            }
        }
        Ok(EdgeKeys(map))
    }

    pub(crate) fn is_edge(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    fn inverse(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// Links made by the edge tags of `note`: none while it is in the
    /// trash.
    pub(crate) fn edges_of(&self, note: &Note) -> Vec<Edge> {
        if note.tags.contains_key(keys::DELETED) {
            return Vec::new();
        }
        note.tags
            .pairs()
            .filter_map(|(k, v)| {
                self.inverse(k).map(|inverse| Edge {
                    key: k.to_string(),
                    inverse: inverse.to_string(),
                    source: note.id.clone(),
                    target: v.to_string(),
                })
            })
            .collect()
    }

    /// Links from other notes into `id`.
    pub(crate) fn edges_into(&self, db: &Db<'_>, id: &str) -> Result<Vec<Edge>> {
        Ok(db
            .edges_to(id)?
            .into_iter()
            .map(|(key, source)| Edge {
                inverse: self.inverse(&key).unwrap_or(&key).to_string(),
                key,
                source,
                target: id.to_string(),
            })
            .collect())
    }
}

/// Makes the edges of note `rid` match its tags, creating stubs for missing
/// targets; a change to a `.tag/KEY` note rebuilds every edge of KEY.
pub(super) fn sync(
    db: &Db<'_>,
    rid: NoteRid,
    next: &Note,
    previous: Option<&Note>,
    now: Timestamp,
) -> Result<()> {
    sync_with(db, &EdgeKeys::load(db)?, rid, next, previous, now)
}

/// [`sync`] with the edge keys read once by the caller: an import links
/// every note it brought against the same keys, read after all are in.
pub(super) fn sync_with(
    db: &Db<'_>,
    keys: &EdgeKeys,
    rid: NoteRid,
    next: &Note,
    previous: Option<&Note>,
    now: Timestamp,
) -> Result<()> {
    let edges = keys.edges_of(next);
    for edge in &edges {
        ensure_target(db, edge, now)?;
    }
    let pairs: Vec<(String, String)> = edges.into_iter().map(|e| (e.key, e.target)).collect();
    db.replace_edges(rid, &pairs)?;
    if let Some(previous) = previous {
        let left: Vec<String> = keys
            .edges_of(previous)
            .into_iter()
            .map(|e| e.target)
            .filter(|t| !pairs.iter().any(|(_, now_target)| now_target == t))
            .collect();
        drop_orphan_stubs(db, &left)?;
    }
    if let Some(key) = next.id.strip_prefix(TAG_NOTE_PREFIX) {
        let declared_before = previous.is_some_and(|p| p.tags.contains_key(keys::INVERSE));
        if declared_before || next.tags.contains_key(keys::INVERSE) {
            rebuild_key(db, key, now)?;
        }
    }
    Ok(())
}

/// Deletes note `rid` (`note`) with everything of it; a `.tag/KEY` note
/// takes its edges along, and stubs it alone pointed to go too.
pub(super) fn remove_note(db: &Db<'_>, rid: NoteRid, note: &Note, now: Timestamp) -> Result<()> {
    let targets: Vec<String> = EdgeKeys::load(db)?
        .edges_of(note)
        .into_iter()
        .map(|e| e.target)
        .collect();
    db.delete_note(rid)?;
    if let Some(key) = note.id.strip_prefix(TAG_NOTE_PREFIX) {
        rebuild_key(db, key, now)?;
    }
    drop_orphan_stubs(db, &targets)
}

/// Deletes the stub notes among `ids` that no edge points to any more:
/// a stub exists only as the target of an edge.
fn drop_orphan_stubs(db: &Db<'_>, ids: &[String]) -> Result<()> {
    for id in ids {
        let Some((rid, note)) = db.note(id)? else {
            continue;
        };
        if note.tags.contains_key(keys::STUB) && db.edges_to(id)?.is_empty() {
            db.delete_note(rid)?;
        }
    }
    Ok(())
}

fn rebuild_key(db: &Db<'_>, key: &str, now: Timestamp) -> Result<()> {
    db.delete_edges_with_key(key)?;
    let keys = EdgeKeys::load(db)?;
    let Some(inverse) = keys.inverse(key) else {
        return Ok(());
    };
    for (rid, target) in db.notes_tagged_key(key)? {
        let Some(source) = db.note_by_rid(rid)? else {
            continue;
        };
        if source.tags.contains_key(keys::DELETED) {
            continue;
        }
        let edge = Edge {
            key: key.to_string(),
            inverse: inverse.to_string(),
            source: source.id,
            target,
        };
        ensure_target(db, &edge, now)?;
        db.add_edge(rid, key, &edge.target)?;
    }
    Ok(())
}

/// Whether note `id` is in the trash.
fn in_trash(db: &Db<'_>, id: &str) -> Result<bool> {
    Ok(db
        .note(id)?
        .is_some_and(|(_, n)| n.tags.contains_key(keys::DELETED)))
}

/// Creates a stub note for an edge's target if it does not exist.
fn ensure_target(db: &Db<'_>, edge: &Edge, now: Timestamp) -> Result<()> {
    model::validate_id(&edge.target).map_err(|e| {
        Error::invalid(format!(
            "tag '{}={}' is an edge, but its value cannot name a note: {e}",
            edge.key, edge.target
        ))
    })?;
    // A document links to others that may be stored later (or never):
    // the link waits for its target instead of making a stub.
    if edge.key == keys::LINKS_TO || db.note_rid(&edge.target)?.is_some() {
        return Ok(());
    }
    let mut tags = Tags::new();
    tags.insert(keys::STUB, "true");
    let stub = Note {
        id: edge.target.clone(),
        summary: String::new(),
        tags,
        content_hash: None,
        created: now,
        updated: now,
        accessed: now,
    };
    let rid = db.insert_note(&stub)?;
    db.index_note_text(rid, "", &stub.tags)?;
    Ok(())
}
