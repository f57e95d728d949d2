//! A note's archived versions and its parts, as they are read back, and
//! the deletion of one version. Written once for every database, in plain
//! SQL (`Sql`).

use crate::error::Result;
use crate::ids::{NoteRid, VersionRid};
use crate::plain::{Cell, Sql, cells, tags_from_json};
use keep_model::time::Timestamp;
use keep_model::{Part, Version};

/// The columns of an archived version, as `version_of` reads them.
const VERSION_COLUMNS: &str = "seq, summary, tags, content_hash, created, updated, event_at";

/// An archived version of note `rid` from its row (`VERSION_COLUMNS`);
/// tags are kept as JSON text in both databases.
fn version_of(db: &(impl Sql + ?Sized), rid: NoteRid, r: &[Cell]) -> Result<Version> {
    let [seq, summary, tags, hash, created, updated, at] = cells(r)?;
    let seq = seq.int()?;
    Ok(Version {
        seq,
        summary: summary.text()?,
        tags: tags_from_json(&tags.text()?, || {
            format!("version {seq} of {}", named(db, rid))
        })?,
        content_hash: hash.opt_text()?,
        created: Timestamp::from_millis(created.int()?),
        updated: Timestamp::from_millis(updated.int()?),
        at: Timestamp::from_millis(at.int()?),
    })
}

/// A part of note `rid` from its row (number, summary, tags as JSON text).
fn part_of(db: &(impl Sql + ?Sized), rid: NoteRid, r: &[Cell]) -> Result<Part> {
    let [number, summary, tags] = cells(r)?;
    let number = u32::try_from(number.int()?).unwrap_or(u32::MAX);
    Ok(Part {
        number,
        summary: summary.text()?,
        tags: tags_from_json(&tags.text()?, || {
            format!("part {number} of {}", named(db, rid))
        })?,
    })
}

/// "note 'ID'" for messages about note `rid`.
fn named(db: &(impl Sql + ?Sized), rid: NoteRid) -> String {
    let id = db
        .query("SELECT id FROM notes WHERE rid = ?1", &[rid.0.into()])
        .ok()
        .and_then(|rows| rows.first()?.first()?.text().ok());
    match id {
        Some(id) => format!("note '{id}'"),
        None => format!("the note of row {}", rid.0),
    }
}

/// A note's archived versions and its parts, and the deletion of one
/// version.
pub trait History: Sql {
    /// Archived versions of a note, oldest first.
    fn versions(&self, rid: NoteRid) -> Result<Vec<Version>> {
        let sql = format!("SELECT {VERSION_COLUMNS} FROM versions WHERE note = ?1 ORDER BY seq");
        self.query(&sql, &[rid.0.into()])?
            .iter()
            .map(|r| version_of(self, rid, r))
            .collect()
    }

    /// The newest archived version of a note.
    fn latest_version(&self, rid: NoteRid) -> Result<Option<Version>> {
        let sql = format!(
            "SELECT {VERSION_COLUMNS} FROM versions WHERE note = ?1 ORDER BY seq DESC LIMIT 1"
        );
        self.query(&sql, &[rid.0.into()])?
            .first()
            .map(|r| version_of(self, rid, r))
            .transpose()
    }

    /// A note's parts, in order.
    fn parts(&self, rid: NoteRid) -> Result<Vec<Part>> {
        self.query(
            "SELECT number, summary, tags FROM parts WHERE note = ?1 ORDER BY number",
            &[rid.0.into()],
        )?
        .iter()
        .map(|r| part_of(self, rid, r))
        .collect()
    }

    fn part(&self, rid: NoteRid, number: u32) -> Result<Option<Part>> {
        self.query(
            "SELECT number, summary, tags FROM parts WHERE note = ?1 AND number = ?2",
            &[rid.0.into(), i64::from(number).into()],
        )?
        .first()
        .map(|r| part_of(self, rid, r))
        .transpose()
    }

    /// Removes archived version `seq` of a note.
    fn delete_version(&self, rid: NoteRid, seq: i64) -> Result<()> {
        self.execute(
            "DELETE FROM versions WHERE note = ?1 AND seq = ?2",
            &[rid.0.into(), seq.into()],
        )?;
        Ok(())
    }

    /// The note of archived version `vid` and its offset (1 = previous).
    fn version_offset(&self, vid: VersionRid) -> Result<Option<(NoteRid, i64)>> {
        match self
            .query(
                "SELECT v.note, (SELECT count(*) FROM versions w WHERE w.note = v.note AND w.seq >= v.seq)
                 FROM versions v WHERE v.vid = ?1",
                &[vid.0.into()],
            )?
            .first()
        {
            Some(r) => Ok(Some((NoteRid(r[0].int()?), r[1].int()?))),
            None => Ok(None),
        }
    }
}

impl<T: Sql + ?Sized> History for T {}
