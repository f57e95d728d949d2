//! Parts (chunks) of long notes, numbered from 1.

use rusqlite::{OptionalExtension, Row, params};

use super::SqliteDb;
use crate::error::Result;
use crate::model::{Part, Tags};
use crate::store::NoteRid;

fn part_from_row(row: &Row<'_>) -> rusqlite::Result<Part> {
    let tags: String = row.get(2)?;
    Ok(Part {
        number: row.get(0)?,
        summary: row.get(1)?,
        tags: serde_json::from_str::<Tags>(&tags).unwrap_or_default(),
    })
}

impl SqliteDb<'_> {
    pub fn parts(&self, rid: NoteRid) -> Result<Vec<Part>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT number, summary, tags FROM parts WHERE note = ?1 ORDER BY number",
        )?;
        let parts = stmt
            .query_map([rid], part_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(parts)
    }

    pub fn part(&self, rid: NoteRid, number: u32) -> Result<Option<Part>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT number, summary, tags FROM parts WHERE note = ?1 AND number = ?2",
            )?
            .query_row(params![rid, number], part_from_row)
            .optional()?)
    }

    /// Replaces every part of a note.
    pub fn replace_parts(&self, rid: NoteRid, parts: &[Part]) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM parts WHERE note = ?1")?
            .execute([rid])?;
        let mut stmt = self.conn.prepare_cached(
            "INSERT INTO parts (note, number, summary, tags) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for part in parts {
            let tags = serde_json::to_string(&part.tags).expect("tags serialise");
            stmt.execute(params![rid, part.number, part.summary, tags])?;
        }
        Ok(())
    }
}
