//! What a purge would leave in the files of a SQLite store, taken out.
//! Every write overwrites what it deletes or replaces with zeros
//! (`secure_delete`, set when the store is opened), so no page keeps an
//! earlier copy of a row in its free space; a store written before that
//! was set is rewritten whole (VACUUM) at its first purge. After a purge
//! every word index is merged into one segment, which drops the entries
//! FTS5 had only marked deleted (an index keeps them, and the words of a
//! note's earlier states, until its segments merge), and the write-ahead
//! log is checkpointed and truncated, so no copy of a page from before
//! the purge stays in it. The codes of the purged rows are taken out of
//! the index files beside the database (`index_purge`).

use std::path::Path;

use super::graph::RefreshLock;
use super::text_upkeep::TEXT_INDEXES;
use super::{SqliteDb, SqliteStore};
use crate::error::{Result, WriteError};
use crate::tables::Meta;

/// Set in a store whose every write has zeroed what it deleted.
const DELETES_ZEROED: &str = "deletes_zeroed";

/// What scrubbing a SQLite store after a purge did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scrub {
    /// False when another connection was reading, so the write-ahead log
    /// could not be emptied; it empties at a later checkpoint.
    pub log_emptied: bool,
    /// True when another process was refreshing the vector indexes, so
    /// the purged rows' codes stay in an index file until it finishes.
    pub index_kept: bool,
}

impl SqliteStore {
    /// Takes purged rows' codes out of the index files, unless another
    /// process is refreshing them (it does so before it finishes); whether
    /// it did.
    fn drop_purged_codes_unless_busy(&mut self) -> Result<bool> {
        let dir = self.path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let Some(_lock) = RefreshLock::take(&dir)? else {
            return Ok(false);
        };
        self.drop_purged_codes(&dir)?;
        Ok(true)
    }

    /// Records that every write to this store zeroes what it deletes.
    pub(super) fn mark_deletes_zeroed(&mut self) -> Result<()> {
        self.write(|db| db.set_meta(DELETES_ZEROED, "1"))
    }

    /// Runs `purge`, a write that removes rows for good, recording the
    /// rows whose codes it deleted, then scrubs the store's files.
    pub fn purge<T, E: WriteError>(
        &mut self,
        purge: impl FnOnce(&SqliteDb<'_>) -> Result<T, E>,
    ) -> Result<(T, Scrub), E> {
        let out = self.write_with(|db| {
            let marks = db.log_marks().map_err(E::from)?;
            let out = purge(db)?;
            db.record_purged_codes(&marks).map_err(E::from)?;
            Ok::<_, E>(out)
        })?;
        Ok((out, self.scrub()?))
    }

    /// Merges every word index whole and empties the write-ahead log; a
    /// store written before deletes were zeroed is first rewritten whole.
    pub fn scrub(&mut self) -> Result<Scrub> {
        if self.read_only {
            return Err(self.refusal());
        }
        if self.db().meta(DELETES_ZEROED)?.is_none() {
            self.conn.execute_batch("VACUUM")?;
            self.mark_deletes_zeroed()?;
        }
        self.write(|db| {
            for (table, _) in TEXT_INDEXES {
                db.conn.execute(
                    &format!("INSERT INTO {table} ({table}) VALUES ('optimize')"),
                    [],
                )?;
            }
            Ok(())
        })?;
        let index_kept = !self.drop_purged_codes_unless_busy()?;
        let busy: i64 = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get(0))?;
        Ok(Scrub {
            log_emptied: busy == 0,
            index_kept,
        })
    }
}
