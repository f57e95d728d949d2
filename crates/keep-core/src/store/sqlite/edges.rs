//! Edges: links from a note to the note named by one of its edge tags.

use rusqlite::params;

use super::SqliteDb;
use crate::error::Result;
use crate::store::NoteRid;

impl SqliteDb<'_> {
    /// Replaces the outgoing edges of note `rid`.
    pub fn replace_edges(&self, rid: NoteRid, edges: &[(String, String)]) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM edges WHERE source = ?1")?
            .execute([rid])?;
        let mut stmt = self.conn.prepare_cached(
            "INSERT OR IGNORE INTO edges (source, key, target) VALUES (?1, ?2, ?3)",
        )?;
        for (key, target) in edges {
            stmt.execute(params![rid, key, target])?;
        }
        Ok(())
    }
}
