//! The SQLite store: one database file, FTS5 for keywords and sqlite-vec
//! for vectors.
//!
//! `SqliteStore::open` sets the pragmas (WAL, busy timeout, foreign keys), loads
//! sqlite-vec and applies the embedded migrations. Reads go through
//! `Store::db`; writes through `Store::write`, which runs a closure inside one
//! immediate transaction so a failure leaves nothing half-written.

mod beside;
mod check;
mod code_cache;
mod forget;
mod graph;
mod graph_view;
mod index_keys;
mod index_purge;
mod keyword;
mod listing;
mod notes;
mod plain;
mod quant;
mod signs;
mod text_upkeep;
mod vectors;

pub use check::check_file;
pub use forget::Scrub;
pub use graph::{DEFAULT_GRAPH_FROM, GraphBuild, GraphSizes, GraphState, GraphWork, REFRESH_AFTER};
pub use text_upkeep::{TextIndexState, TextMerge};

use crate::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Once;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::error::{Error, Result, WriteError};

/// The database file inside a store directory.
pub const DB_FILE: &str = "keep.db";

const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Embedded migrations, applied in order; never edit one that has landed.
const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("migrations/0001_init.sql")),
    (2, include_str!("migrations/0002_vectors.sql")),
    (3, include_str!("migrations/0003_watch.sql")),
    (4, include_str!("migrations/0004_feedback.sql")),
    (5, include_str!("migrations/0005_names.sql")),
    (6, include_str!("migrations/0006_listing_order.sql")),
    (7, include_str!("migrations/0007_next_vectors.sql")),
    (8, include_str!("migrations/0008_operations.sql")),
    (9, include_str!("migrations/0009_inline_names.sql")),
    (10, include_str!("migrations/0010_note_count.sql")),
    (11, include_str!("migrations/0011_tokens.sql")),
    (12, include_str!("migrations/0012_event_time.sql")),
    (13, include_str!("migrations/0013_part_count.sql")),
    (14, include_str!("migrations/0014_origin.sql")),
];

/// Int8 codes of each kind of vector, with the epoch they were read at:
/// one for every connection of this process to the same database, so a
/// server with several connections holds them once.
type CodeCache = Arc<std::sync::Mutex<CodeMap>>;
use code_cache::CodeMap;

/// The code cache of the database at `path`, shared by its connections.
fn shared_codes(path: &Path) -> CodeCache {
    static CACHES: std::sync::OnceLock<
        std::sync::Mutex<HashMap<PathBuf, std::sync::Weak<std::sync::Mutex<CodeMap>>>>,
    > = std::sync::OnceLock::new();
    let mut caches = CACHES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    caches.retain(|_, cache| cache.strong_count() > 0);
    if let Some(cache) = caches.get(path).and_then(std::sync::Weak::upgrade) {
        return cache;
    }
    let cache = CodeCache::default();
    caches.insert(path.to_path_buf(), Arc::downgrade(&cache));
    cache
}

pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    codes: CodeCache,
    read_only: bool,
    /// Opened for reading because the disk was too full to open it for
    /// writing.
    disk_full: bool,
    /// Who writes through this store, for the operations log.
    agent: String,
    /// A second connection for reads run beside this one's, opened on
    /// first use (`beside`).
    side: std::cell::Cell<Option<Box<Connection>>>,
}

/// A handle for statements: either the plain connection or a transaction.
pub struct SqliteDb<'c> {
    conn: &'c Connection,
    codes: &'c CodeCache,
    agent: &'c str,
}

impl SqliteStore {
    /// Opens (creating if needed) the database in `dir`. A store this
    /// process may not write (a read-only file, folder or file system) is
    /// opened for reading: every read works, every write is refused with
    /// `Error::ReadOnly`.
    pub fn open(dir: &Path) -> Result<Self> {
        let path = dir.join(DB_FILE);
        match Self::open_in(dir).map_err(|e| located(&path, e)) {
            // A full disk leaves no room for the WAL's index: the store is
            // opened for reading, and writes say why they cannot be done.
            Err(Error::DiskFull { .. }) if path.is_file() => {
                let mut store = SqliteStore {
                    agent: super::operations::DEFAULT_AGENT.into(),
                    conn: open_read_only(&path)?,
                    codes: shared_codes(&path),
                    path,
                    read_only: true,
                    disk_full: true,
                    side: Default::default(),
                };
                store.migrate()?;
                Ok(store)
            }
            other => other,
        }
    }

    fn open_in(dir: &Path) -> Result<Self> {
        if dir.exists() && !dir.is_dir() {
            return Err(Error::NotAFolder {
                path: dir.to_path_buf(),
            });
        }
        let path = dir.join(DB_FILE);
        let read_only = path.is_file() && !(writable(&path) && writable(dir));
        if !read_only {
            crate::private::folder(dir)?;
        }
        let made_now = !path.exists();
        register_sqlite_vec();
        let conn = if read_only {
            open_read_only(&path)?
        } else {
            Connection::open_with_flags(
                &path,
                OpenFlags::SQLITE_OPEN_READ_WRITE
                    | OpenFlags::SQLITE_OPEN_CREATE
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX
                    | OpenFlags::SQLITE_OPEN_URI,
            )?
        };
        if made_now && !read_only {
            crate::private::new_file(&path)?;
        }
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // A newer keep's store is refused before anything is set on it.
        refuse_newer(&conn, &path)?;
        if !read_only {
            set_wal(&conn)?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            // What a write deletes or replaces is overwritten with zeros,
            // so a purge leaves no earlier copy in a page's free space.
            conn.pragma_update(None, "secure_delete", "ON")?;
        }
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let mut store = SqliteStore {
            agent: super::operations::DEFAULT_AGENT.into(),
            conn,
            codes: shared_codes(&path),
            path,
            read_only,
            disk_full: false,
            side: Default::default(),
        };
        store.migrate()?;
        if made_now && !read_only {
            store.mark_deletes_zeroed()?;
        }
        Ok(store)
    }

    /// Why a store opened for reading refuses writes.
    fn refusal(&self) -> Error {
        if self.disk_full && !file_system_read_only(&self.path) {
            Error::DiskFull {
                place: self.path.display().to_string(),
            }
        } else {
            Error::ReadOnly {
                path: self.path.clone(),
            }
        }
    }

    /// Whether the store was opened for reading only.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Names who writes from now on, in the operations log.
    pub fn set_agent(&mut self, agent: &str) {
        self.agent = agent.to_string();
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A handle for reads outside a transaction.
    pub fn db(&self) -> SqliteDb<'_> {
        SqliteDb {
            conn: &self.conn,
            codes: &self.codes,
            agent: &self.agent,
        }
    }

    /// Runs `f` over one snapshot of the database: every read sees the
    /// store as it was at the first, while other connections write on
    /// (a deferred transaction over the write-ahead log).
    pub fn snapshot<T, E: WriteError>(
        &mut self,
        f: impl FnOnce(&SqliteDb<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Deferred)
            .map_err(|e| located(&self.path, e.into()))?;
        let db = SqliteDb {
            conn: &tx,
            codes: &self.codes,
            agent: &self.agent,
        };
        let value = f(&db).map_err(|e| e.map_store(|e| located(&self.path, e)))?;
        tx.rollback().map_err(|e| located(&self.path, e.into()))?;
        Ok(value)
    }

    /// Runs `f` in one immediate transaction; commits only if it succeeds.
    pub fn write<T>(&mut self, f: impl FnOnce(&SqliteDb<'_>) -> Result<T>) -> Result<T> {
        self.write_with(f)
    }

    /// `write` for a closure whose errors are the caller's own.
    pub fn write_with<T, E: WriteError>(
        &mut self,
        f: impl FnOnce(&SqliteDb<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        if self.read_only {
            return Err(self.refusal().into());
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| located(&self.path, e.into()))?;
        commit_with(tx, &self.codes, &self.path, &self.agent, f)
    }

    /// Like `write`, when no other connection is writing at this moment;
    /// `None` (nothing done) when one is.
    pub fn write_if_free<T>(
        &mut self,
        f: impl FnOnce(&SqliteDb<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        self.write_if_free_with(f)
    }

    /// `write_if_free` for a closure whose errors are the caller's own.
    pub fn write_if_free_with<T, E: WriteError>(
        &mut self,
        f: impl FnOnce(&SqliteDb<'_>) -> Result<T, E>,
    ) -> Result<Option<T>, E> {
        if self.read_only {
            return Ok(None);
        }
        self.conn
            .busy_timeout(std::time::Duration::ZERO)
            .map_err(Error::from)?;
        let refused = match self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
        {
            Ok(tx) => {
                tx.busy_timeout(BUSY_TIMEOUT).map_err(Error::from)?;
                return commit_with(tx, &self.codes, &self.path, &self.agent, f).map(Some);
            }
            Err(e) => e,
        };
        self.conn.busy_timeout(BUSY_TIMEOUT).map_err(Error::from)?;
        match refused.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                Ok(None)
            }
            _ => Err(Error::from(refused).into()),
        }
    }

    fn migrate(&mut self) -> Result<()> {
        let current: i64 = self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))?;
        let known = MIGRATIONS.last().map_or(0, |m| m.0);
        if current > known {
            return Err(Error::SchemaTooNew {
                path: self.path.clone(),
                found: current,
                known,
            });
        }
        if self.read_only && current < known {
            return Err(self.refusal());
        }
        for (version, sql) in MIGRATIONS.iter().filter(|m| m.0 > current) {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            // Another process may have migrated while we waited for the lock.
            let now: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
            if now < *version {
                tx.execute_batch(sql)?;
                tx.pragma_update(None, "user_version", version)?;
            }
            tx.commit()?;
        }
        Ok(())
    }
}

/// Puts the database in WAL mode. While a new store is being made, two
/// processes opening it at once can each hold the lock the other needs to
/// leave the rollback journal; SQLite then answers busy at once instead of
/// waiting, so a busy answer is tried again, for up to `BUSY_TIMEOUT`.
fn set_wal(conn: &Connection) -> Result<()> {
    let started = std::time::Instant::now();
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && started.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            other => return Ok(other?),
        }
    }
}

/// Runs `f` inside `tx` and commits; a failure is named with the store's
/// file when it is about the file (a full disk, ...).
fn commit_with<T, E: WriteError>(
    tx: rusqlite::Transaction<'_>,
    codes: &CodeCache,
    path: &Path,
    agent: &str,
    f: impl FnOnce(&SqliteDb<'_>) -> Result<T, E>,
) -> Result<T, E> {
    let value = f(&SqliteDb {
        conn: &tx,
        codes,
        agent,
    })
    .map_err(|e| e.map_store(|e| located(path, e)))?;
    tx.commit().map_err(|e| located(path, e.into()))?;
    Ok(value)
}

/// `Error::SchemaTooNew` when the file at `path` was written by a newer
/// keep.
fn refuse_newer(conn: &Connection, path: &Path) -> Result<()> {
    let found: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let known = MIGRATIONS.last().map_or(0, |m| m.0);
    if found > known {
        return Err(Error::SchemaTooNew {
            path: path.to_path_buf(),
            found,
            known,
        });
    }
    Ok(())
}

/// A failure that is about the store's file rather than the statement (its
/// disk is full, it cannot be written), named with the file.
fn located(path: &Path, e: Error) -> Error {
    let code = match &e {
        Error::Database(db) => db.sqlite_error_code(),
        _ => None,
    };
    if code.is_some() && file_system_read_only(path) {
        return Error::ReadOnly {
            path: path.to_path_buf(),
        };
    }
    let full = match code {
        Some(rusqlite::ErrorCode::DiskFull) => true,
        // A write that failed for want of space can also come back as an
        // I/O error (the WAL index, a sync): the free space tells.
        // So can a plain error from a virtual table (sqlite-vec's vectors
        // report a failed write of theirs as one).
        Some(rusqlite::ErrorCode::SystemIoFailure | rusqlite::ErrorCode::Unknown) => {
            disk_space_left(path) < FULL_BELOW
        }
        _ => false,
    };
    if full {
        return Error::DiskFull {
            place: path.display().to_string(),
        };
    }
    match code {
        Some(rusqlite::ErrorCode::ReadOnly) => Error::ReadOnly {
            path: path.to_path_buf(),
        },
        _ => e,
    }
}

/// Free space under which a failed write is put down to a full disk.
const FULL_BELOW: u64 = 1 << 20;

/// Bytes this process may still write on the file system holding `path`
/// (its folder when the file is not there); `u64::MAX` when unknown.
fn disk_space_left(path: &Path) -> u64 {
    file_system_of(path).map_or(u64::MAX, |fs| fs.f_bavail.saturating_mul(fs.f_frsize))
}

/// Whether the file system holding `path` is mounted read-only: then no
/// write can be done, however much space is free.
fn file_system_read_only(path: &Path) -> bool {
    file_system_of(path).is_some_and(|fs| fs.f_flag & libc::ST_RDONLY != 0)
}

/// What `statvfs` says of the file system holding `path` (its folder when
/// the file is not there).
fn file_system_of(path: &Path) -> Option<libc::statvfs> {
    use std::os::unix::ffi::OsStrExt;
    let probe = if path.exists() {
        path
    } else {
        path.parent().unwrap_or(path)
    };
    let c = std::ffi::CString::new(probe.as_os_str().as_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c` is a valid NUL-terminated path and `stat` is written by
    // the call before it is read.
    unsafe {
        if libc::statvfs(c.as_ptr(), stat.as_mut_ptr()) != 0 {
            return None;
        }
        Some(stat.assume_init())
    }
}

/// Opens a database this process may not write. A WAL database can be read
/// that way while its shared-memory file exists (a writer has it open);
/// when none does and it cannot be created, the file is read as immutable.
fn open_read_only(path: &Path) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let uri = file_uri(path);
    let conn = Connection::open_with_flags(format!("{uri}?mode=ro"), flags)?;
    let readable = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| {
            r.get::<_, i64>(0)
        })
        .is_ok();
    if readable {
        return Ok(conn);
    }
    drop(conn);
    Ok(Connection::open_with_flags(
        format!("{uri}?mode=ro&immutable=1"),
        flags,
    )?)
}

/// `file:` URI of a path for SQLite, with the characters URIs reserve
/// escaped.
fn file_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        match b {
            b'%' | b'?' | b'#' | b'&' | b'=' | 0..=0x20 | 0x7f..=0xff => {
                out.push_str(&format!("%{b:02X}"))
            }
            _ => out.push(b as char),
        }
    }
    out
}

/// Whether this process may write `path` (the file system, mode and owner
/// allowing).
fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// Makes sqlite-vec available on every connection opened afterwards.
fn register_sqlite_vec() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        type Entry = unsafe extern "C" fn(
            *mut rusqlite::ffi::sqlite3,
            *mut *mut std::os::raw::c_char,
            *const rusqlite::ffi::sqlite3_api_routines,
        ) -> std::os::raw::c_int;
        // SAFETY: sqlite3_vec_init has the signature of an SQLite extension
        // entry point; the crate declares it without arguments only because
        // it is meant to be passed to sqlite3_auto_extension like this.
        unsafe {
            let entry: Entry = std::mem::transmute(sqlite_vec::sqlite3_vec_init as *const ());
            rusqlite::ffi::sqlite3_auto_extension(Some(entry));
        }
    });
}

impl SqliteDb<'_> {
    /// The version of sqlite-vec loaded into this connection.
    #[cfg(test)]
    pub fn vec_version(&self) -> Result<String> {
        Ok(self
            .conn
            .query_row("SELECT vec_version()", [], |r| r.get(0))?)
    }
}

impl Upkeep for SqliteDb<'_> {
    /// The schema version and what a quick integrity check of the file
    /// finds wrong (nothing when it is sound).
    fn health(&self) -> Result<crate::types::Health> {
        let version: i64 = self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))?;
        let mut stmt = self.conn.prepare("PRAGMA quick_check")?;
        let problems = stmt
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?
            .into_iter()
            .filter(|line| line != "ok")
            .collect();
        Ok(crate::types::Health {
            schema_version: version,
            known_version: MIGRATIONS.last().map_or(0, |m| m.0),
            problems,
        })
    }

    /// Lets SQLite refresh its planning statistics after an import.
    fn after_bulk_load(&self) -> Result<()> {
        self.conn.execute_batch("PRAGMA optimize")?;
        Ok(())
    }

    /// SQLite plans every statement for the indexes it has, whatever the
    /// tables' sizes.
    fn prepare_bulk_load(&self, _notes: usize) -> Result<()> {
        Ok(())
    }

    /// sqlite-vec's tables keep no graph to maintain while loading.
    fn defer_vector_indexes(&self) -> Result<bool> {
        Ok(false)
    }

    fn build_vector_indexes(&self) -> Result<()> {
        Ok(())
    }

    /// Changes whenever another connection commits to the database.
    fn data_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA data_version", [], |row| row.get(0))?)
    }
}

#[cfg(test)]
mod tests {
    use super::SqliteStore as Store;
    use super::*;
    use crate::store::test_note;

    #[test]
    fn open_applies_migrations_and_loads_sqlite_vec() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert!(store.db().vec_version().unwrap().starts_with('v'));
        let version: i64 = store
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.last().unwrap().0);
        let mode: String = store
            .conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        drop(store);
        // Reopening an up-to-date store is a no-op.
        Store::open(dir.path()).unwrap();
    }

    #[test]
    fn upgrading_a_store_indexes_the_names_of_its_notes() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        store
            .write(|db| {
                let at = keep_model::Timestamp::from_millis(0);
                db.insert_note(&test_note("notes/caribou-migration", "Herd counts.", at))?;
                db.insert_note(&test_note("%18596776e73c", "An inline note.", at))
            })
            .unwrap();
        // The store as it was before names were indexed (and before
        // event times, which a later migration adds).
        store
            .conn
            .execute_batch(
                "DROP TRIGGER names_fts_insert; DROP TRIGGER names_fts_rename;
                 DROP TRIGGER names_fts_delete; DROP VIEW note_names;
                 DROP TABLE names_fts;
                 DROP INDEX notes_event_at; DROP INDEX versions_event_at;
                 ALTER TABLE notes DROP COLUMN event_at;
                 ALTER TABLE versions DROP COLUMN event_at;
                 PRAGMA user_version = 4;",
            )
            .unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        let named: i64 = store
            .conn
            .query_row(
                "SELECT count(*) FROM names_fts WHERE names_fts MATCH 'caribou'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(named, 1);
        // An inline note's id is no name, yet the note counts among the
        // names' rows.
        let (by_id, rows): (i64, i64) = store
            .conn
            .query_row(
                "SELECT (SELECT count(*) FROM names_fts WHERE names_fts MATCH '18596776e73c'),
                        (SELECT count(*) FROM names_fts_docsize)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((by_id, rows), (0, 2));
    }

    #[test]
    fn a_failed_write_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let result: Result<()> = store.write(|db| {
            db.set_meta("k", "v")?;
            Err(Error::invalid("boom"))
        });
        assert!(result.is_err());
        assert_eq!(store.db().meta("k").unwrap(), None);
    }
}
