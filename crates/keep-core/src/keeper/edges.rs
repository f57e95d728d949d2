//! Keeping a note's edges in step with its tags as it is written: a
//! missing target gets a stub note, a stub no edge points to goes, and a
//! change to a `.tag/KEY` note rebuilds every edge of KEY.

use crate::error::{Error, Result};
use keep_store::prelude::*;

use crate::edges::{EdgeKeys, TAG_NOTE_PREFIX};
use keep_model::time::Timestamp;
use keep_model::{self as model, Edge, Note, Tags, keys};
use keep_store::NoteReads;
use keep_store::{Db, NoteRid};

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

/// Links notes an import has just written (none has edges yet), their
/// targets looked up together: [`sync_with`] for each, in a few
/// statements for them all.
pub(super) fn link_new_notes(
    db: &Db<'_>,
    keys: &EdgeKeys,
    notes: &[(NoteRid, Note)],
    now: Timestamp,
) -> Result<()> {
    let mut links = Vec::new();
    for (rid, note) in notes {
        if note.id.starts_with(TAG_NOTE_PREFIX) {
            sync_with(db, keys, *rid, note, None, now)?;
        } else {
            links.extend(keys.edges_of(note).into_iter().map(|e| (*rid, e)));
        }
    }
    let targets: Vec<&str> = links.iter().map(|(_, e)| e.target.as_str()).collect();
    let present = db.note_rids(&targets)?;
    for (_, edge) in &links {
        if !present.contains_key(&edge.target) {
            ensure_target(db, edge, now)?;
        }
    }
    let rows: Vec<(NoteRid, &str, &str)> = links
        .iter()
        .map(|(rid, e)| (*rid, e.key.as_str(), e.target.as_str()))
        .collect();
    Ok(db.add_edges(&rows)?)
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
        at: now,
    };
    let rid = db.insert_note(&stub)?;
    db.index_note_text(rid, "", &stub.tags)?;
    Ok(())
}
