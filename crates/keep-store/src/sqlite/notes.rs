//! Current notes: their rows, their tags and their full-text entries.

use crate::prelude::*;
use rusqlite::params;

use super::SqliteDb;
use crate::error::Result;
use crate::ids::{NoteRid, PartRid, VersionRid};
use crate::plan::tags_index_text;
use keep_model::{Note, Part, Tags, Version};

impl SqliteDb<'_> {
    fn write_tags(&self, rid: NoteRid, tags: &Tags) -> Result<()> {
        let mut stmt = self
            .conn
            .prepare_cached("INSERT INTO tags (note, key, value) VALUES (?1, ?2, ?3)")?;
        for (k, v) in tags.pairs() {
            stmt.execute(params![rid, k, v])?;
        }
        Ok(())
    }
}

impl NoteWrites for SqliteDb<'_> {
    /// Inserts a new note with its tags; returns its row key.
    fn insert_note(&self, note: &Note) -> Result<NoteRid> {
        self.insert_note_row(note, None)
    }

    fn insert_indexed_notes(&self, notes: &[(Note, Option<String>)]) -> Result<Vec<NoteRid>> {
        notes
            .iter()
            .map(|(note, embedded)| {
                let rid = self.insert_note_row(note, embedded.as_deref())?;
                self.index_note_text(rid, &note.summary, &note.tags)?;
                Ok(rid)
            })
            .collect()
    }

    /// Replaces the stored state of note `rid` (id and created stay).
    fn update_note(&self, rid: NoteRid, note: &Note) -> Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE notes SET summary = ?2, content_hash = ?3, updated = ?4, accessed = ?5,
                 event_at = ?6 WHERE rid = ?1",
            )?
            .execute(params![
                rid,
                note.summary,
                note.content_hash,
                note.updated.millis(),
                note.accessed.millis(),
                note.at.millis()
            ])?;
        self.conn
            .prepare_cached("DELETE FROM tags WHERE note = ?1")?
            .execute([rid])?;
        self.write_tags(rid, &note.tags)
    }

    /// (Re)indexes a note's summary and tags for keyword search.
    fn index_note_text(&self, rid: NoteRid, summary: &str, tags: &Tags) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM notes_fts WHERE rowid = ?1")?
            .execute([rid])?;
        self.conn
            .prepare_cached("INSERT INTO notes_fts (rowid, summary, tags) VALUES (?1, ?2, ?3)")?
            .execute(params![rid, summary, tags_index_text(tags)])?;
        Ok(())
    }

    /// Replaces the indexed full text of a note; empty text clears it.
    fn index_note_body(&self, rid: NoteRid, body: &str) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM body_fts WHERE rowid = ?1")?
            .execute([rid])?;
        if !body.is_empty() {
            self.conn
                .prepare_cached("INSERT INTO body_fts (rowid, body) VALUES (?1, ?2)")?
                .execute(params![rid, body])?;
        }
        Ok(())
    }

    /// Replaces every part of a note.
    fn replace_parts(&self, rid: NoteRid, parts: &[Part]) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM parts WHERE note = ?1")?
            .execute([rid])?;
        for part in parts {
            self.insert_part(rid, part, None)?;
        }
        Ok(())
    }

    fn insert_parts(&self, rows: &[(NoteRid, &Part, Option<&str>)]) -> Result<Vec<PartRid>> {
        rows.iter()
            .map(|&(rid, part, embedded)| self.insert_part(rid, part, embedded))
            .collect()
    }

    fn insert_versions(
        &self,
        rows: &[(NoteRid, i64, &Version, Option<&str>)],
    ) -> Result<Vec<VersionRid>> {
        rows.iter()
            .map(|&(rid, seq, version, embedded)| self.write_version(rid, seq, version, embedded))
            .collect()
    }

    /// Appends a version after the newest one; returns its row key.
    fn append_version(&self, rid: NoteRid, version: &Version) -> Result<VersionRid> {
        let seq: i64 = self
            .conn
            .prepare_cached("SELECT coalesce(max(seq), 0) + 1 FROM versions WHERE note = ?1")?
            .query_row([rid], |r| r.get(0))?;
        self.insert_version(rid, seq, version)?;
        Ok(VersionRid(self.conn.last_insert_rowid()))
    }

    /// Inserts a version with an explicit seq (import).
    fn insert_version(&self, rid: NoteRid, seq: i64, version: &Version) -> Result<()> {
        self.write_version(rid, seq, version, None).map(|_| ())
    }
}

impl SqliteDb<'_> {
    fn insert_note_row(&self, note: &Note, embedded: Option<&str>) -> Result<NoteRid> {
        self.conn
            .prepare_cached(
                "INSERT INTO notes (id, summary, content_hash, created, updated, accessed, event_at, embedded)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                note.id,
                note.summary,
                note.content_hash,
                note.created.millis(),
                note.updated.millis(),
                note.accessed.millis(),
                note.at.millis(),
                embedded
            ])?;
        let rid = NoteRid(self.conn.last_insert_rowid());
        self.write_tags(rid, &note.tags)?;
        Ok(rid)
    }

    fn write_version(
        &self,
        rid: NoteRid,
        seq: i64,
        version: &Version,
        embedded: Option<&str>,
    ) -> Result<VersionRid> {
        let tags = serde_json::to_string(&version.tags).expect("tags serialise");
        self.conn
            .prepare_cached(
                "INSERT INTO versions (note, seq, summary, tags, content_hash, created, updated, event_at, embedded)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                rid,
                seq,
                version.summary,
                tags,
                version.content_hash,
                version.created.millis(),
                version.updated.millis(),
                version.at.millis(),
                embedded
            ])?;
        Ok(VersionRid(self.conn.last_insert_rowid()))
    }

    fn insert_part(&self, rid: NoteRid, part: &Part, embedded: Option<&str>) -> Result<PartRid> {
        let tags = serde_json::to_string(&part.tags).expect("tags serialise");
        self.conn
            .prepare_cached(
                "INSERT INTO parts (note, number, summary, tags, embedded) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![rid, part.number, part.summary, tags, embedded])?;
        Ok(PartRid(self.conn.last_insert_rowid()))
    }
}
