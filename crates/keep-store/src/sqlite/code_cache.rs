//! The int8 codes of each kind of vector, held in memory once per
//! database for every connection of this process, and kept up to date
//! from each code table's change log: after a write a search reads only
//! the codes that changed, not the whole table again (at a million notes
//! that is 380 MB).

use crate::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, MutexGuard, PoisonError};

use super::{SqliteDb, quant};
use crate::error::Result;
use crate::vectors::VecKind;

/// Codes of one kind as last read: the epoch and change they include,
/// and how many times the whole table was read.
#[derive(Clone)]
pub(super) struct Cached {
    epoch: String,
    change: i64,
    codes: Arc<quant::Codes>,
    full_reads: usize,
}

pub(super) type CodeMap = HashMap<VecKind, Cached>;

/// Changes kept in each log; a reader further behind reads every code.
const CHANGES_KEPT: i64 = 50_000;

/// Bumped whenever the code tables are made again (a new model, vectors
/// dropped): a graph of another generation is never used.
pub(super) const GENERATION_KEY: &str = "vector_generation";

/// The statement starting a new generation of vectors.
pub(super) fn next_generation_sql() -> String {
    format!(
        "INSERT INTO meta (key, value) VALUES ('{GENERATION_KEY}', 1)
             ON CONFLICT (key) DO UPDATE SET value = value + 1;"
    )
}

/// The change log of a code table.
pub(super) fn log_table(kind: VecKind) -> String {
    format!("{}_changes", kind.code_table())
}

/// The log table of a code table and the triggers that fill it and bump
/// the epoch (replacing any triggers it had).
pub(super) fn log_sql(kind: VecKind) -> String {
    format!(
        "DROP TRIGGER IF EXISTS {c}_insert;
         DROP TRIGGER IF EXISTS {c}_delete;
         DROP TABLE IF EXISTS {l};
         CREATE TABLE {l} (seq INTEGER PRIMARY KEY AUTOINCREMENT, key INTEGER NOT NULL);
         INSERT INTO meta (key, value) VALUES ('{e}', 0)
             ON CONFLICT (key) DO UPDATE SET value = value + 1;
         CREATE TRIGGER {c}_insert AFTER INSERT ON {c} BEGIN
             UPDATE meta SET value = value + 1 WHERE key = '{e}';
             INSERT INTO {l} (key) VALUES (new.key);
             DELETE FROM {l} WHERE seq <= (SELECT max(seq) FROM {l}) - {CHANGES_KEPT};
         END;
         CREATE TRIGGER {c}_delete AFTER DELETE ON {c} BEGIN
             UPDATE meta SET value = value + 1 WHERE key = '{e}';
             INSERT INTO {l} (key) VALUES (old.key);
         END;
         {g}",
        c = kind.code_table(),
        l = log_table(kind),
        e = kind.epoch_key(),
        g = next_generation_sql(),
    )
}

impl SqliteDb<'_> {
    fn cached_codes(&self) -> MutexGuard<'_, CodeMap> {
        self.codes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The codes of a kind: from memory while the table is unchanged, with
    /// the changed codes read again after a write, or all of them when the
    /// changes are many or no longer logged.
    ///
    /// The cache stays locked while it is brought up to date, so the
    /// connections of a server read a change once, not once each.
    pub(super) fn codes(&self, kind: VecKind, dims: usize) -> Result<Arc<quant::Codes>> {
        let epoch = self.meta(kind.epoch_key())?.unwrap_or_default();
        let mut map = self.cached_codes();
        if let Some(c) = map.get(&kind)
            && c.epoch == epoch
        {
            return Ok(c.codes.clone());
        }
        // Codes read inside a write may never be committed: only what
        // every connection sees is shared, and changed in place.
        let shared = self.conn.is_autocommit();
        let cached = if shared {
            map.remove(&kind)
        } else {
            map.get(&kind).cloned()
        };
        let full_reads = cached.as_ref().map_or(0, |c| c.full_reads);
        let fresh = match cached {
            Some(c) => self.with_changes(kind, c, epoch.clone())?,
            None => None,
        };
        let fresh = match fresh {
            Some(fresh) => fresh,
            None => self.read_all_codes(kind, dims, epoch, full_reads + 1)?,
        };
        if shared {
            map.insert(kind, fresh.clone());
        }
        Ok(fresh.codes)
    }

    /// Whether this process holds the codes of a kind (perhaps a few
    /// changes behind).
    pub(super) fn codes_held(&self, kind: VecKind) -> bool {
        self.cached_codes().contains_key(&kind)
    }

    /// How many times the codes of a kind were read whole by this process.
    #[cfg(test)]
    pub(super) fn full_code_reads(&self, kind: VecKind) -> usize {
        self.cached_codes().get(&kind).map_or(0, |c| c.full_reads)
    }

    /// The last change logged for a kind (0 before any).
    fn last_change(&self, kind: VecKind) -> Result<i64> {
        let sql = format!("SELECT coalesce(max(seq), 0) FROM {}", log_table(kind));
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row([], |r| r.get(0))?)
    }

    /// Each code of a kind of `dims` bytes, by ascending key, until `each`
    /// answers false; whether every one was read.
    pub(super) fn each_code(
        &self,
        kind: VecKind,
        dims: usize,
        each: &mut dyn FnMut(i64, f32, &[u8]) -> bool,
    ) -> Result<bool> {
        let sql = format!(
            "SELECT key, scale, code FROM {} ORDER BY key",
            kind.code_table()
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let code = row.get_ref(2)?.as_blob().map_err(rusqlite::Error::from)?;
            if code.len() == dims {
                let scale: f64 = row.get(1)?;
                if !each(row.get(0)?, scale as f32, code) {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    fn read_all_codes(
        &self,
        kind: VecKind,
        dims: usize,
        epoch: String,
        full_reads: usize,
    ) -> Result<Cached> {
        let change = self.last_change(kind)?;
        let mut codes = quant::Codes::new(dims);
        self.each_code(kind, dims, &mut |key, scale, code| {
            codes.push(key, scale, code);
            true
        })?;
        Ok(Cached {
            epoch,
            change,
            codes: Arc::new(codes),
            full_reads,
        })
    }

    /// `cached` brought up to date from the change log; None when the
    /// whole table is better read again.
    fn with_changes(
        &self,
        kind: VecKind,
        mut cached: Cached,
        epoch: String,
    ) -> Result<Option<Cached>> {
        let log = log_table(kind);
        let first: Option<i64> = self
            .conn
            .prepare_cached(&format!("SELECT min(seq) FROM {log}"))?
            .query_row([], |r| r.get(0))?;
        if first.is_some_and(|first| first > cached.change + 1) {
            return Ok(None);
        }
        let change = self.last_change(kind)?;
        let keys: Vec<i64> = self
            .conn
            .prepare_cached(&format!(
                "SELECT DISTINCT key FROM {log} WHERE seq > ?1 AND seq <= ?2"
            ))?
            .query_map([cached.change, change], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let codes = Arc::make_mut(&mut cached.codes);
        if keys.len() > (codes.len() / 10).max(1_000) {
            return Ok(None);
        }
        let mut read = self.conn.prepare_cached(&format!(
            "SELECT scale, code FROM {} WHERE key = ?1",
            kind.code_table()
        ))?;
        for key in keys {
            let mut rows = read.query([key])?;
            match rows.next()? {
                Some(row) => {
                    let scale: f64 = row.get(0)?;
                    let code = row.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
                    if !codes.set(key, scale as f32, code) {
                        return Ok(None);
                    }
                }
                None => codes.remove(key),
            }
        }
        if codes.removed() > codes.len() / 4 {
            return Ok(None);
        }
        cached.epoch = epoch;
        cached.change = change;
        Ok(Some(cached))
    }
}
