//! The operations log in PostgreSQL: who this handle writes as.

use super::PgDb;
use crate::error::Result;
use crate::model::time::Timestamp;
use crate::store::operations::Operation;
use crate::store::shared::Shared;

impl PgDb<'_> {
    pub fn log_operation(
        &self,
        at: Timestamp,
        op: &str,
        note: &str,
        version: i64,
        detail: &str,
    ) -> Result<()> {
        self.append_operation(&Operation::by(self.agent, at, op, note, version, detail))
    }

    /// Who the writes of this handle are logged as.
    pub fn agent(&self) -> String {
        self.agent.to_string()
    }
}
