//! Leases: work that must run in one process at a time per store (the
//! folder watcher, the background embedder) is done by whoever holds its
//! lease. A lease lapses when it expires, or at once when the process that
//! holds it is gone from this machine.

pub use keep_model::wall_ms;
use keep_store::prelude::*;
use std::path::Path;
use std::time::Duration;

use super::Keeper;
use crate::error::{Result, Transactions};
use keep_store::Lease;

/// The lease a folder watcher holds.
pub const WATCH_LEASE: &str = "watch";
/// The lease the process draining the embedding backlog holds.
pub const EMBED_LEASE: &str = "embed";

impl Keeper {
    /// Who holds lease `name`, if anyone does (expired or not).
    pub fn lease(&self, name: &str) -> Result<Option<Lease>> {
        Ok(self.store.db().lease(name)?)
    }

    /// Who holds lease `name` and is still alive: not expired, and its
    /// process still running when it runs here.
    pub fn live_lease(&self, name: &str, now_ms: i64) -> Result<Option<Lease>> {
        Ok(self
            .lease(name)?
            .filter(|l| l.expires > now_ms && process_alive(l.pid)))
    }

    /// Takes or renews lease `name` for `holder` for `ttl`; false when
    /// another live holder has it. A holder whose process is gone (on
    /// this machine) loses it at once rather than when it expires.
    pub fn take_lease(&mut self, name: &str, holder: &str, ttl: Duration) -> Result<bool> {
        let now = wall_ms();
        let pid = i64::from(std::process::id());
        self.store.transact(|db| {
            if let Some(stale) = db
                .lease(name)?
                .filter(|l| l.holder != holder && !process_alive(l.pid))
            {
                db.release_lease(name, &stale.holder)?;
            }
            Ok(db.take_lease(name, holder, pid, now, now + ttl.as_millis() as i64)?)
        })
    }

    pub fn release_lease(&mut self, name: &str, holder: &str) -> Result<()> {
        self.store
            .transact(|db| Ok(db.release_lease(name, holder)?))
    }
}

/// A holder name no other process (or thread of this one) will use.
pub fn lease_holder() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}-{}",
        std::process::id(),
        wall_ms(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// True when process `pid` runs on this machine (as far as /proc tells).
pub(super) fn process_alive(pid: i64) -> bool {
    !Path::new("/proc/self").exists() || Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Settings;

    fn keeper(dir: &tempfile::TempDir) -> Keeper {
        Keeper::open(Settings::for_store(dir.path())).unwrap()
    }

    #[test]
    fn one_holder_at_a_time_and_a_dead_holder_loses_it_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let (mut a, mut b) = (keeper(&dir), keeper(&dir));
        let ttl = Duration::from_secs(60);
        assert!(a.take_lease(EMBED_LEASE, "a", ttl).unwrap());
        assert!(!b.take_lease(EMBED_LEASE, "b", ttl).unwrap());
        assert!(a.take_lease(EMBED_LEASE, "a", ttl).unwrap(), "renewal");
        assert!(
            b.take_lease(WATCH_LEASE, "b", ttl).unwrap(),
            "leases are separate"
        );
        assert_eq!(
            b.live_lease(EMBED_LEASE, wall_ms())
                .unwrap()
                .unwrap()
                .holder,
            "a"
        );
        a.release_lease(EMBED_LEASE, "a").unwrap();
        assert!(b.take_lease(EMBED_LEASE, "b", ttl).unwrap());

        // A holder whose process is gone: the lease is free at once.
        b.store
            .transact(|db| {
                db.release_lease(EMBED_LEASE, "b")?;
                db.take_lease(EMBED_LEASE, "gone", i64::from(i32::MAX), 0, i64::MAX)?;
                Ok(())
            })
            .unwrap();
        assert!(b.live_lease(EMBED_LEASE, wall_ms()).unwrap().is_none());
        assert!(a.take_lease(EMBED_LEASE, "a", ttl).unwrap());
    }
}
