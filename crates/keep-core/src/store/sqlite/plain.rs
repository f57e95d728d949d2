//! The plain statements of the queries written once for every database,
//! run on SQLite.

use super::SqliteDb;
use crate::error::Result;

impl crate::store::plain::PlainQueries for SqliteDb<'_> {
    fn count(&self, sql: &str) -> Result<i64> {
        Ok(self.conn.query_row(sql, [], |r| r.get(0))?)
    }

    fn rows3(&self, sql: &str) -> Result<Vec<(String, i64, i64)>> {
        let mut stmt = self.conn.prepare(sql)?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn key_texts(&self, sql: &str) -> Result<Vec<(i64, String)>> {
        let mut stmt = self.conn.prepare(sql)?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The database file with its write-ahead log.
    fn bytes(&self) -> Result<i64> {
        let pages: i64 = self.conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        let size: i64 = self.conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        // A store in memory has no file: its size is its pages alone.
        let file: Option<String> = self
            .conn
            .query_row("PRAGMA database_list", [], |r| r.get(2))
            .ok();
        let wal = file
            .and_then(|f| std::fs::metadata(format!("{f}-wal")).ok())
            .map_or(0, |m| m.len() as i64);
        Ok(pages * size + wal)
    }
}

impl SqliteDb<'_> {
    pub fn census(&self) -> Result<crate::store::census::Census> {
        crate::store::census::take(self)
    }
}
