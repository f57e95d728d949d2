//! SQL for watching: registered folders, the single-watcher lease and the
//! last seen size and modification time of watched files.

use rusqlite::{OptionalExtension, params};

use super::SqliteDb;
use crate::error::Result;
use crate::store::types::{Lease, WatchedDir};

impl SqliteDb<'_> {
    pub fn add_watch(&self, w: &WatchedDir, now: i64) -> Result<()> {
        let excludes = serde_json::to_string(&w.excludes).expect("strings serialise");
        self.conn
            .prepare_cached(
                "INSERT INTO watches (dir, recursive, excludes, added) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (dir) DO UPDATE SET recursive = ?2, excludes = ?3",
            )?
            .execute(params![w.dir, w.recursive, excludes, now])?;
        Ok(())
    }

    /// Removes a registration; true when there was one.
    pub fn remove_watch(&self, dir: &str) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached("DELETE FROM watches WHERE dir = ?1")?
            .execute([dir])?;
        Ok(n > 0)
    }

    pub fn watches(&self) -> Result<Vec<WatchedDir>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT dir, recursive, excludes FROM watches ORDER BY dir")?;
        let rows = stmt.query_map([], |r| {
            let excludes: String = r.get(2)?;
            Ok(WatchedDir {
                dir: r.get(0)?,
                recursive: r.get(1)?,
                excludes: serde_json::from_str(&excludes).unwrap_or_default(),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn lease(&self, name: &str) -> Result<Option<Lease>> {
        Ok(self
            .conn
            .prepare_cached("SELECT holder, pid, since, expires FROM leases WHERE name = ?1")?
            .query_row([name], |r| {
                Ok(Lease {
                    holder: r.get(0)?,
                    pid: r.get(1)?,
                    since: r.get(2)?,
                    expires: r.get(3)?,
                })
            })
            .optional()?)
    }

    /// Takes or renews lease `name` for `holder` unless someone else holds
    /// it unexpired. True when `holder` holds it now.
    pub fn take_lease(
        &self,
        name: &str,
        holder: &str,
        pid: i64,
        now: i64,
        expires: i64,
    ) -> Result<bool> {
        if let Some(current) = self.lease(name)?
            && current.holder != holder
            && current.expires > now
        {
            return Ok(false);
        }
        self.conn
            .prepare_cached(
                "INSERT INTO leases (name, holder, pid, since, expires) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (name) DO UPDATE SET
                   since = CASE WHEN holder = ?2 THEN since ELSE ?4 END,
                   holder = ?2, pid = ?3, expires = ?5",
            )?
            .execute(params![name, holder, pid, now, expires])?;
        Ok(true)
    }

    pub fn release_lease(&self, name: &str, holder: &str) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM leases WHERE name = ?1 AND holder = ?2")?
            .execute([name, holder])?;
        Ok(())
    }

    /// The size and modification time last seen for a file id.
    pub fn file_state(&self, id: &str) -> Result<Option<(i64, i64)>> {
        Ok(self
            .conn
            .prepare_cached("SELECT size, mtime FROM file_state WHERE id = ?1")?
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?)
    }

    pub fn set_file_state(&self, id: &str, size: i64, mtime: i64) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO file_state (id, size, mtime) VALUES (?1, ?2, ?3)
                 ON CONFLICT (id) DO UPDATE SET size = ?2, mtime = ?3",
            )?
            .execute(params![id, size, mtime])?;
        Ok(())
    }

    pub fn forget_file_state(&self, id: &str) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM file_state WHERE id = ?1")?
            .execute([id])?;
        Ok(())
    }

    /// Ids of notes whose id starts with `prefix` (a folder's file:// URI
    /// plus '/').
    pub fn ids_with_prefix(&self, prefix: &str) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id FROM notes WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([prefix], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
