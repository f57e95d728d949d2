//! Edges: links from a note to the note named by one of its edge tags.

use rusqlite::params;

use super::SqliteDb;
use crate::error::Result;
use crate::model::keys;
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

    pub fn add_edge(&self, rid: NoteRid, key: &str, target: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR IGNORE INTO edges (source, key, target) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![rid, key, target])?;
        Ok(())
    }

    /// Incoming edges of a note as (key, source id).
    pub fn edges_to(&self, id: &str) -> Result<Vec<(String, String)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT e.key, n.id FROM edges e JOIN notes n ON n.rid = e.source
             WHERE e.target = ?1 ORDER BY e.key, n.id",
        )?;
        let rows = stmt
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Edge keys declared by `.tag/KEY` notes, with their inverse names.
    pub fn declared_edge_keys(&self) -> Result<Vec<(String, String)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT substr(n.id, 6), t.value FROM notes n JOIN tags t ON t.note = n.rid
             WHERE substr(n.id, 1, 5) = '.tag/' AND t.key = ?1 ORDER BY n.id",
        )?;
        let rows = stmt
            .query_map([keys::INVERSE], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }
}
