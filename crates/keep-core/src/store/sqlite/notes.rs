//! Current notes: their rows, their tags and their full-text entries.

use rusqlite::{OptionalExtension, Row, params};

use super::SqliteDb;
use crate::error::Result;
use crate::model::time::Timestamp;
use crate::model::{Note, Tags};
use crate::store::NoteRid;
use crate::store::plan::tags_index_text;

/// Columns of a note row plus its tags as a JSON array of [key, value].
pub(super) const NOTE_COLUMNS: &str =
    "n.rid, n.id, n.summary, n.content_hash, n.created, n.updated, n.accessed,
     (SELECT json_group_array(json_array(t.key, t.value)) FROM tags t WHERE t.note = n.rid)";

/// Reads a row selected with `NOTE_COLUMNS`.
pub(super) fn note_from_row(row: &Row<'_>) -> rusqlite::Result<(NoteRid, Note)> {
    let tags_json: Option<String> = row.get(7)?;
    Ok((
        row.get(0)?,
        Note {
            id: row.get(1)?,
            summary: row.get(2)?,
            content_hash: row.get(3)?,
            created: Timestamp::from_millis(row.get(4)?),
            updated: Timestamp::from_millis(row.get(5)?),
            accessed: Timestamp::from_millis(row.get(6)?),
            tags: tags_from_pairs_json(tags_json.as_deref()),
        },
    ))
}

fn tags_from_pairs_json(json: Option<&str>) -> Tags {
    json.and_then(|j| serde_json::from_str::<Vec<(String, String)>>(j).ok())
        .unwrap_or_default()
        .into_iter()
        .collect()
}

impl SqliteDb<'_> {
    pub fn note(&self, id: &str) -> Result<Option<(NoteRid, Note)>> {
        let sql = format!("SELECT {NOTE_COLUMNS} FROM notes n WHERE n.id = ?1");
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row([id], note_from_row)
            .optional()?)
    }

    pub fn note_by_rid(&self, rid: NoteRid) -> Result<Option<Note>> {
        let sql = format!("SELECT {NOTE_COLUMNS} FROM notes n WHERE n.rid = ?1");
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row([rid], note_from_row)
            .optional()?
            .map(|(_, n)| n))
    }

    /// Inserts a new note with its tags; returns its row key.
    pub fn insert_note(&self, note: &Note) -> Result<NoteRid> {
        self.conn
            .prepare_cached(
                "INSERT INTO notes (id, summary, content_hash, created, updated, accessed)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                note.id,
                note.summary,
                note.content_hash,
                note.created.millis(),
                note.updated.millis(),
                note.accessed.millis()
            ])?;
        let rid = NoteRid(self.conn.last_insert_rowid());
        self.write_tags(rid, &note.tags)?;
        Ok(rid)
    }

    /// Replaces the stored state of note `rid` (id and created stay).
    pub fn update_note(&self, rid: NoteRid, note: &Note) -> Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE notes SET summary = ?2, content_hash = ?3, updated = ?4, accessed = ?5
                 WHERE rid = ?1",
            )?
            .execute(params![
                rid,
                note.summary,
                note.content_hash,
                note.updated.millis(),
                note.accessed.millis()
            ])?;
        self.conn
            .prepare_cached("DELETE FROM tags WHERE note = ?1")?
            .execute([rid])?;
        self.write_tags(rid, &note.tags)
    }

    fn write_tags(&self, rid: NoteRid, tags: &Tags) -> Result<()> {
        let mut stmt = self
            .conn
            .prepare_cached("INSERT INTO tags (note, key, value) VALUES (?1, ?2, ?3)")?;
        for (k, v) in tags.pairs() {
            stmt.execute(params![rid, k, v])?;
        }
        Ok(())
    }

    /// (Re)indexes a note's summary and tags for keyword search.
    pub fn index_note_text(&self, rid: NoteRid, summary: &str, tags: &Tags) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM notes_fts WHERE rowid = ?1")?
            .execute([rid])?;
        self.conn
            .prepare_cached("INSERT INTO notes_fts (rowid, summary, tags) VALUES (?1, ?2, ?3)")?
            .execute(params![rid, summary, tags_index_text(tags)])?;
        Ok(())
    }

    /// Replaces the indexed full text of a note; empty text clears it.
    pub fn index_note_body(&self, rid: NoteRid, body: &str) -> Result<()> {
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

    /// Every note, ordered by id, for export.
    pub fn all_notes(&self) -> Result<Vec<(NoteRid, Note)>> {
        let sql = format!("SELECT {NOTE_COLUMNS} FROM notes n ORDER BY n.id");
        let mut stmt = self.conn.prepare(&sql)?;
        let notes = stmt
            .query_map([], note_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(notes)
    }
}
