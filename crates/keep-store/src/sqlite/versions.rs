//! Archived versions of notes, numbered by `seq` from 1 (the oldest).

use rusqlite::params;

use super::SqliteDb;
use crate::error::Result;
use crate::{NoteRid, VersionRid};
use keep_model::Version;

impl SqliteDb<'_> {
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
