//! The operations log in SQLite.

use rusqlite::params_from_iter;
use rusqlite::types::Value;

use super::SqliteDb;
use crate::error::Result;
use crate::model::time::Timestamp;
use crate::store::operations::{FilterValue, INSERT, Operation, OperationFilter, filter_sql};

impl SqliteDb<'_> {
    pub fn log_operation(
        &self,
        at: Timestamp,
        op: &str,
        note: &str,
        version: i64,
        detail: &str,
    ) -> Result<()> {
        self.conn
            .prepare_cached(&format!("{INSERT} (?1, ?2, ?3, ?4, ?5, ?6)"))?
            .execute(rusqlite::params![
                at.millis(),
                self.agent,
                op,
                note,
                version,
                detail
            ])?;
        Ok(())
    }

    pub fn operations(&self, filter: &OperationFilter) -> Result<Vec<Operation>> {
        let (sql, values) = filter_sql(filter, |n| format!("?{n}"));
        let values = values.into_iter().map(|v| match v {
            FilterValue::Text(t) => Value::Text(t),
            FilterValue::Int(i) => Value::Integer(i),
        });
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params_from_iter(values), |r| {
            Ok(Operation {
                seq: r.get(0)?,
                at: Timestamp::from_millis(r.get(1)?),
                agent: r.get(2)?,
                op: r.get(3)?,
                note: r.get(4)?,
                version: r.get(5)?,
                detail: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

impl crate::store::census::Counter for SqliteDb<'_> {
    fn count(&self, sql: &str) -> Result<i64> {
        Ok(self.conn.query_row(sql, [], |r| r.get(0))?)
    }

    fn rows3(&self, sql: &str) -> Result<Vec<(String, i64, i64)>> {
        let mut stmt = self.conn.prepare(sql)?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The database file with its write-ahead log.
    fn bytes(&self) -> Result<i64> {
        let pages: i64 = self.conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        let size: i64 = self.conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
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
