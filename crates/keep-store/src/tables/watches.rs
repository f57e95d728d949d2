//! Watched folders, the leases that let one process at a time do a store's background work, and the last seen state of watched files.
//! Written once for every database, in plain SQL (`Sql`).

use crate::error::{Error, Result};
use crate::plain::{Sql, cells};
use crate::types::{Lease, WatchedDir};

/// Watched folders, the leases that let one process at a time do a store's background work, and the last seen state of watched files.
pub trait Watches: Sql {
    fn add_watch(&self, w: &WatchedDir, now: i64) -> Result<()> {
        let excludes = serde_json::to_string(&w.excludes).expect("strings serialise");
        self.execute(
            "INSERT INTO watches (dir, recursive, excludes, added) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (dir) DO UPDATE SET recursive = ?2, excludes = ?3",
            &[
                w.dir.as_str().into(),
                w.recursive.into(),
                excludes.into(),
                now.into(),
            ],
        )?;
        Ok(())
    }

    /// Removes a registration; true when there was one.
    fn remove_watch(&self, dir: &str) -> Result<bool> {
        Ok(self.execute("DELETE FROM watches WHERE dir = ?1", &[dir.into()])? > 0)
    }

    fn watches(&self) -> Result<Vec<WatchedDir>> {
        self.query(
            "SELECT dir, recursive, excludes FROM watches ORDER BY dir",
            &[],
        )?
        .iter()
        .map(|r| {
            let [dir, recursive, excludes] = cells(r)?;
            let dir = dir.text()?;
            let excludes = serde_json::from_str(&excludes.text()?).map_err(|e| Error::Corrupt {
                what: format!("the watched folder {dir}"),
                reason: format!("its excludes are not valid JSON ({e})"),
            })?;
            Ok(WatchedDir {
                dir,
                recursive: recursive.bool()?,
                excludes,
            })
        })
        .collect()
    }

    fn lease(&self, name: &str) -> Result<Option<Lease>> {
        let rows = self.query(
            "SELECT holder, pid, since, expires FROM leases WHERE name = ?1",
            &[name.into()],
        )?;
        rows.first()
            .map(|r| {
                let [holder, pid, since, expires] = cells(r)?;
                Ok(Lease {
                    holder: holder.text()?,
                    pid: pid.int()?,
                    since: since.int()?,
                    expires: expires.int()?,
                })
            })
            .transpose()
    }

    /// Takes or renews lease `name` for `holder` unless someone else holds
    /// it unexpired. True when `holder` holds it now.
    fn take_lease(
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
        self.execute(
            "INSERT INTO leases (name, holder, pid, since, expires) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (name) DO UPDATE SET
               since = CASE WHEN leases.holder = ?2 THEN leases.since ELSE ?4 END,
               holder = ?2, pid = ?3, expires = ?5",
            &[
                name.into(),
                holder.into(),
                pid.into(),
                now.into(),
                expires.into(),
            ],
        )?;
        Ok(true)
    }

    fn release_lease(&self, name: &str, holder: &str) -> Result<()> {
        self.execute(
            "DELETE FROM leases WHERE name = ?1 AND holder = ?2",
            &[name.into(), holder.into()],
        )?;
        Ok(())
    }

    /// The size and modification time last seen for a file id.
    fn file_state(&self, id: &str) -> Result<Option<(i64, i64)>> {
        let rows = self.query(
            "SELECT size, mtime FROM file_state WHERE id = ?1",
            &[id.into()],
        )?;
        rows.first()
            .map(|r| Ok((r[0].int()?, r[1].int()?)))
            .transpose()
    }

    fn set_file_state(&self, id: &str, size: i64, mtime: i64) -> Result<()> {
        self.execute(
            "INSERT INTO file_state (id, size, mtime) VALUES (?1, ?2, ?3)
             ON CONFLICT (id) DO UPDATE SET size = ?2, mtime = ?3",
            &[id.into(), size.into(), mtime.into()],
        )?;
        Ok(())
    }

    fn forget_file_state(&self, id: &str) -> Result<()> {
        self.execute("DELETE FROM file_state WHERE id = ?1", &[id.into()])?;
        Ok(())
    }
}

impl<T: Sql + ?Sized> Watches for T {}
