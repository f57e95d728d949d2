//! Version history operations: revert to the previous version, and move
//! history from one note into another (`now` into a named note).

use super::write::archived_version;
use super::{Keeper, edges};
use crate::error::{Error, Result, Transactions};
use keep_model::time::Timestamp;
use keep_model::{self as model, Note, TagFilter, Version, keys};
use keep_store::Embedded;
use keep_store::NoteReads;
use keep_store::prelude::*;
use keep_store::{Db, NoteRid, VecRow};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase", tag = "reverted")]
pub enum RevertOutcome {
    /// The previous version became current; `versions` archived remain.
    Restored { id: String, versions: i64 },
    /// The note had no history and was deleted.
    Deleted { id: String },
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct MoveOutcome {
    pub source: String,
    pub target: String,
    /// How many states (versions, and the current one if it matched) moved.
    pub moved: usize,
    /// True when nothing was left of the source, so it was deleted.
    pub source_deleted: bool,
}

impl Keeper {
    /// Restores the previous version of a note. A note without history is
    /// deleted when `delete_if_first` says so, else refused
    /// (`Error::NoEarlierVersion`).
    pub fn revert(&mut self, id: &str, delete_if_first: bool) -> Result<RevertOutcome> {
        self.may_change(id, "revert")?;
        let now = self.now();
        self.store.transact(|db| {
            let (rid, current) = db.note(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
            match db.latest_version(rid)? {
                None if !delete_if_first => Err(Error::NoEarlierVersion { id: id.into() }),
                None => {
                    edges::remove_note(db, rid, &current, now)?;
                    db.log_operation(now, "purge", id, 1, "reverted with nothing before")?;
                    Ok(RevertOutcome::Deleted { id: id.into() })
                }
                Some(previous) => {
                    promote(db, rid, &current, &previous, now)?;
                    let versions = db.version_count(rid)?;
                    db.log_operation(now, "revert", id, versions + 1, "")?;
                    Ok(RevertOutcome::Restored {
                        id: id.into(),
                        versions,
                    })
                }
            }
        })
    }

    /// Moves states of `source` (its archived versions and its current
    /// state, those matching `filters`; only the current one if
    /// `only_current`) to the end of `target`'s history. The newest moved
    /// state becomes `target`'s current state. What remains of the source
    /// stays; a source with nothing left is deleted.
    pub fn move_history(
        &mut self,
        source: &str,
        target: &str,
        filters: &[TagFilter],
        only_current: bool,
    ) -> Result<MoveOutcome> {
        model::validate_id(target)?;
        self.may_change(source, "move")?;
        self.may_change(target, "move")?;
        if source == target {
            return Err(Error::invalid(format!(
                "cannot move '{source}' into itself"
            )));
        }
        let now = self.now();
        self.store.transact(|db| {
            let (srid, scur) = db
                .note(source)?
                .ok_or_else(|| Error::NotFound(source.into()))?;
            let archived = if only_current {
                Vec::new()
            } else {
                db.versions(srid)?
            };
            let moved_archived: Vec<Version> = archived
                .into_iter()
                .filter(|v| filters.iter().all(|f| f.matches(&v.tags)))
                .collect();
            let current_moves = filters.iter().all(|f| f.matches(&scur.tags));
            let mut states = moved_archived.clone();
            if current_moves {
                states.push(archived_version(&scur));
            }
            let Some(newest) = states.pop() else {
                return Err(Error::invalid(format!(
                    "no version of '{source}' matches the given tags"
                )));
            };
            let moved = states.len() + 1;
            let trid = append_states(db, target, &states, &newest, now)?;
            if current_moves {
                db.replace_parts(trid, &db.parts(srid)?)?;
            }
            for v in &moved_archived {
                db.delete_version(srid, v.seq)?;
            }
            let mut source_deleted = false;
            if current_moves {
                match db.latest_version(srid)? {
                    Some(previous) => promote(db, srid, &scur, &previous, now)?,
                    None => {
                        edges::remove_note(db, srid, &scur, now)?;
                        source_deleted = true;
                    }
                }
            }
            let left = if source_deleted {
                0
            } else {
                db.version_count(srid)? + 1
            };
            let into = db.version_count(trid)? + 1;
            db.log_operation(
                now,
                "move",
                source,
                left,
                &format!("{moved} version(s) to {target}"),
            )?;
            db.log_operation(
                now,
                "move",
                target,
                into,
                &format!("{moved} version(s) from {source}"),
            )?;
            Ok(MoveOutcome {
                source: source.into(),
                target: target.into(),
                moved,
                source_deleted,
            })
        })
    }
}

/// Makes `previous` the current state of note `rid` and drops it from the
/// archive. Parts and full text belonged to the dropped content.
fn promote(
    db: &Db<'_>,
    rid: NoteRid,
    current: &Note,
    previous: &Version,
    now: Timestamp,
) -> Result<()> {
    let restored = Note {
        id: current.id.clone(),
        summary: previous.summary.clone(),
        tags: previous.tags.clone(),
        content_hash: previous.content_hash.clone(),
        created: current.created,
        updated: previous.updated,
        accessed: now,
        at: previous.at,
    };
    db.update_note(rid, &restored)?;
    if let Some(vid) = db.version_key(rid, previous.seq)? {
        db.copy_vector(VecRow::Version(vid), VecRow::Note(rid))?;
    }
    db.delete_version(rid, previous.seq)?;
    db.index_note_text(rid, &restored.summary, &restored.tags)?;
    if restored.content_hash != current.content_hash {
        db.index_note_body(rid, "")?;
        db.replace_parts(rid, &[])?;
    }
    edges::sync(db, rid, &restored, Some(current), now)
}

/// Appends `older` then `newest` to the history of `target` (created if
/// missing), making `newest` its current state. Returns the target's rid.
fn append_states(
    db: &Db<'_>,
    target: &str,
    older: &[Version],
    newest: &Version,
    now: Timestamp,
) -> Result<NoteRid> {
    let first_created = older.first().unwrap_or(newest).created;
    let existing = db.note(target)?;
    let current = Note {
        id: target.to_string(),
        summary: newest.summary.clone(),
        tags: newest.tags.clone(),
        content_hash: newest.content_hash.clone(),
        created: existing
            .as_ref()
            .map_or(first_created, |(_, n)| n.created.min(first_created)),
        updated: newest.updated,
        accessed: now,
        at: newest.at,
    };
    let rid = match &existing {
        Some((rid, old)) => {
            if !old.tags.contains_key(keys::STUB) {
                let vid = db.append_version(*rid, &archived_version(old))?;
                db.copy_vector(VecRow::Note(*rid), VecRow::Version(vid))?;
            }
            db.update_note(*rid, &current)?;
            db.set_created(*rid, current.created)?;
            *rid
        }
        None => db.insert_note(&current)?,
    };
    for v in older {
        db.append_version(rid, v)?;
    }
    db.index_note_text(rid, &current.summary, &current.tags)?;
    db.index_note_body(rid, "")?;
    db.replace_parts(rid, &[])?;
    edges::sync(db, rid, &current, existing.as_ref().map(|(_, n)| n), now)?;
    Ok(rid)
}
