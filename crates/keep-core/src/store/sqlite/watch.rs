//! SQL for watching that SQLite spells its own way: the notes under a
//! folder (the rest of watching is in `store::shared`).

use super::SqliteDb;
use crate::error::Result;

impl SqliteDb<'_> {
    /// Ids of notes whose id starts with `prefix` (a folder's file:// URI
    /// plus '/').
    pub fn ids_with_prefix(&self, prefix: &str) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id FROM notes WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([prefix], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
