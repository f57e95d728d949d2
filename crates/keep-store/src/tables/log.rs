//! The operations log: who wrote what, appended and never changed but by
//! a purge, which blanks what the purged note's entries say (a trash
//! reason) and keeps their ids and times. Written once for every
//! database, in plain SQL (`Sql`).

use crate::error::Result;
use crate::operations::{COLUMNS, FilterValue, INSERT, Operation, OperationFilter, filter_sql};
use crate::plain::{Cell, ROWS_A_STATEMENT, Sql, cells};
use keep_model::time::Timestamp;

/// The operations log: who wrote what, appended and never changed.
pub trait OperationsLog: Sql {
    /// Appends a write to the operations log, as done by this handle's
    /// agent.
    fn log_operation(
        &self,
        at: Timestamp,
        op: &str,
        note: &str,
        version: i64,
        detail: &str,
    ) -> Result<()> {
        let agent = self.agent();
        self.append_operation(&Operation::by(&agent, at, op, note, version, detail))
    }

    /// Blanks the details of `note`'s entries (a purge leaves no text of
    /// the note behind; when and what stay).
    fn forget_details(&self, note: &str) -> Result<()> {
        self.execute(
            "UPDATE operations SET detail = '' WHERE note = ?1 AND detail <> ''",
            &[note.into()],
        )?;
        Ok(())
    }

    /// Appends an entry to the operations log as it is given (its agent,
    /// its time): a write being logged, or one from an import.
    fn append_operation(&self, entry: &Operation) -> Result<()> {
        self.execute(
            &format!("{INSERT} (?1, ?2, ?3, ?4, ?5, ?6)"),
            &operation_cells(entry),
        )?;
        Ok(())
    }

    /// Appends writes of one kind at one time by this handle's agent, one
    /// entry for each `(note, version)`, a few hundred to a statement.
    fn log_operations(&self, at: Timestamp, op: &str, notes: &[(&str, i64)]) -> Result<()> {
        let agent = self.agent();
        let entries: Vec<Operation> = notes
            .iter()
            .map(|&(note, version)| Operation::by(&agent, at, op, note, version, ""))
            .collect();
        self.append_operations(&entries)
    }

    /// Appends entries as they are given, a few hundred to a statement
    /// (an import's).
    fn append_operations(&self, entries: &[Operation]) -> Result<()> {
        for chunk in entries.chunks(ROWS_A_STATEMENT) {
            let rows = (0..chunk.len())
                .map(|i| {
                    let n = i * 6;
                    format!(
                        "(?{}, ?{}, ?{}, ?{}, ?{}, ?{})",
                        n + 1,
                        n + 2,
                        n + 3,
                        n + 4,
                        n + 5,
                        n + 6
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            let params: Vec<Cell> = chunk.iter().flat_map(operation_cells).collect();
            self.execute(&format!("{INSERT} {rows}"), &params)?;
        }
        Ok(())
    }

    /// At most `limit` entries after entry `seq` (from the first at 0),
    /// oldest first: the log read a page at a time, for export.
    fn operations_after(&self, seq: i64, limit: usize) -> Result<Vec<Operation>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.query(
            &format!("SELECT {COLUMNS} FROM operations WHERE seq > ?1 ORDER BY seq LIMIT ?2"),
            &[seq.into(), limit.into()],
        )?;
        rows.iter().map(|r| operation_of(r)).collect()
    }

    /// Entries of the operations log, newest first.
    fn operations(&self, filter: &OperationFilter) -> Result<Vec<Operation>> {
        let (sql, values) = filter_sql(filter, |n| format!("?{n}"));
        let params: Vec<Cell> = values
            .into_iter()
            .map(|v| match v {
                FilterValue::Text(t) => Cell::Text(t),
                FilterValue::Int(i) => Cell::Int(i),
            })
            .collect();
        self.query(&sql, &params)?
            .iter()
            .map(|r| operation_of(r))
            .collect()
    }
}

/// The values of an entry, in the order `INSERT` names its columns.
fn operation_cells(entry: &Operation) -> [Cell; 6] {
    [
        entry.at.millis().into(),
        entry.agent.as_str().into(),
        entry.op.as_str().into(),
        entry.note.as_str().into(),
        entry.version.into(),
        entry.detail.as_str().into(),
    ]
}

/// An entry of the log from its row (`COLUMNS`).
fn operation_of(r: &[Cell]) -> Result<Operation> {
    let [seq, at, agent, op, note, version, detail] = cells(r)?;
    Ok(Operation {
        seq: seq.int()?,
        at: Timestamp::from_millis(at.int()?),
        agent: agent.text()?,
        op: op.text()?,
        note: note.text()?,
        version: version.int()?,
        detail: detail.text()?,
    })
}

impl<T: Sql + ?Sized> OperationsLog for T {}
