//! The operations log in PostgreSQL.

use postgres::types::ToSql;

use super::PgDb;
use crate::error::Result;
use crate::model::time::Timestamp;
use crate::store::operations::{FilterValue, INSERT, Operation, OperationFilter, filter_sql};

impl PgDb<'_> {
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
        self.exec(
            &format!("{INSERT} ($1, $2, $3, $4, $5, $6)"),
            &[
                &entry.at.millis(),
                &entry.agent,
                &entry.op,
                &entry.note,
                &entry.version,
                &entry.detail,
            ],
        )?;
        Ok(())
    }

    pub fn operations(&self, filter: &OperationFilter) -> Result<Vec<Operation>> {
        let (sql, values) = filter_sql(filter, |n| format!("${n}"));
        let values: Vec<Box<dyn ToSql + Sync>> = values
            .into_iter()
            .map(|v| -> Box<dyn ToSql + Sync> {
                match v {
                    FilterValue::Text(t) => Box::new(t),
                    FilterValue::Int(i) => Box::new(i),
                }
            })
            .collect();
        let params: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v.as_ref()).collect();
        Ok(self
            .rows(&sql, &params)?
            .into_iter()
            .map(|r| Operation {
                seq: r.get(0),
                at: Timestamp::from_millis(r.get(1)),
                agent: r.get(2),
                op: r.get(3),
                note: r.get(4),
                version: r.get(5),
                detail: r.get(6),
            })
            .collect())
    }
}
