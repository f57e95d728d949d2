//! Plain SQL (`store::plain`) run on SQLite.

use rusqlite::params_from_iter;
use rusqlite::types::{Value, ValueRef};

use super::SqliteDb;
use crate::dialect::Dialect;
use crate::error::Result;
use crate::plain::{Cell, Sql};

fn value(cell: &Cell) -> Value {
    match cell {
        Cell::Null => Value::Null,
        Cell::Int(i) => Value::Integer(*i),
        Cell::Real(r) => Value::Real(*r),
        Cell::Text(t) => Value::Text(t.clone()),
        Cell::Bool(b) => Value::Integer(i64::from(*b)),
        Cell::Ints(list) => Value::Text(serde_json::to_string(list).expect("integers serialise")),
    }
}

fn cell(value: ValueRef<'_>) -> Cell {
    match value {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(i) => Cell::Int(i),
        ValueRef::Real(r) => Cell::Real(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => Cell::Text(String::from_utf8_lossy(t).into()),
    }
}

impl Sql for SqliteDb<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn execute(&self, sql: &str, params: &[Cell]) -> Result<u64> {
        let changed = self
            .conn
            .prepare_cached(sql)?
            .execute(params_from_iter(params.iter().map(value)))?;
        Ok(changed as u64)
    }

    fn query(&self, sql: &str, params: &[Cell]) -> Result<Vec<Vec<Cell>>> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let columns = stmt.column_count();
        let rows = stmt.query_map(params_from_iter(params.iter().map(value)), |r| {
            (0..columns).map(|i| Ok(cell(r.get_ref(i)?))).collect()
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The database file with its write-ahead log.
    fn batch(&self, sql: &str) -> Result<()> {
        Ok(self.conn.execute_batch(sql)?)
    }

    fn agent(&self) -> String {
        self.agent.to_string()
    }

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
