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
        self.append_operation(&Operation::by(&self.agent, at, op, note, version, detail))
    }

    /// Who the writes of this handle are logged as.
    pub fn agent(&self) -> String {
        self.agent.to_string()
    }

    pub fn append_operation(&self, entry: &Operation) -> Result<()> {
        self.conn
            .prepare_cached(&format!("{INSERT} (?1, ?2, ?3, ?4, ?5, ?6)"))?
            .execute(rusqlite::params![
                entry.at.millis(),
                entry.agent,
                entry.op,
                entry.note,
                entry.version,
                entry.detail
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
