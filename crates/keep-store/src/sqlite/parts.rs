//! Parts (chunks) of long notes, numbered from 1.

use rusqlite::params;

use super::SqliteDb;
use crate::NoteRid;
use crate::error::Result;
use keep_model::Part;

impl SqliteDb<'_> {
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
