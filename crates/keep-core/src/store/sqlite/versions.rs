//! Archived versions of notes, numbered by `seq` from 1 (the oldest).

use rusqlite::{OptionalExtension, Row, params};

use super::SqliteDb;
use crate::error::Result;
use crate::model::time::Timestamp;
use crate::model::{Tags, Version};
use crate::store::{NoteRid, VersionRid};

fn version_from_row(row: &Row<'_>) -> rusqlite::Result<Version> {
    let tags: String = row.get(2)?;
    Ok(Version {
        seq: row.get(0)?,
        summary: row.get(1)?,
        tags: serde_json::from_str::<Tags>(&tags).unwrap_or_default(),
        content_hash: row.get(3)?,
        created: Timestamp::from_millis(row.get(4)?),
        updated: Timestamp::from_millis(row.get(5)?),
    })
}

const VERSION_COLUMNS: &str = "seq, summary, tags, content_hash, created, updated";

impl SqliteDb<'_> {
    /// Archived versions of a note, oldest first.
    pub fn versions(&self, rid: NoteRid) -> Result<Vec<Version>> {
        let sql = format!("SELECT {VERSION_COLUMNS} FROM versions WHERE note = ?1 ORDER BY seq");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let versions = stmt
            .query_map([rid], version_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(versions)
    }

    /// The newest archived version, if any.
    pub fn latest_version(&self, rid: NoteRid) -> Result<Option<Version>> {
        let sql = format!(
            "SELECT {VERSION_COLUMNS} FROM versions WHERE note = ?1 ORDER BY seq DESC LIMIT 1"
        );
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row([rid], version_from_row)
            .optional()?)
    }

    /// Appends a version after the newest one; returns its row key.
    pub fn append_version(&self, rid: NoteRid, version: &Version) -> Result<VersionRid> {
        let seq: i64 = self
            .conn
            .prepare_cached("SELECT coalesce(max(seq), 0) + 1 FROM versions WHERE note = ?1")?
            .query_row([rid], |r| r.get(0))?;
        self.insert_version(rid, seq, version)?;
        Ok(VersionRid(self.conn.last_insert_rowid()))
    }

    /// Inserts a version with an explicit seq (import).
    pub fn insert_version(&self, rid: NoteRid, seq: i64, version: &Version) -> Result<()> {
        let tags = serde_json::to_string(&version.tags).expect("tags serialise");
        self.conn
            .prepare_cached(
                "INSERT INTO versions (note, seq, summary, tags, content_hash, created, updated)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                rid,
                seq,
                version.summary,
                tags,
                version.content_hash,
                version.created.millis(),
                version.updated.millis()
            ])?;
        Ok(())
    }
}
