//! An open store, whichever database holds it (`Store`): opening, the
//! read handle it hands out, the transactions of writes, and the upkeep
//! of the store's files (check, repair, backup, vector graphs, word index
//! merges).

use std::path::Path;

use crate::backend::Db;
use crate::error::{Error, Result, WriteError};
use crate::handle::Handle;
#[cfg(feature = "postgres")]
use crate::postgres::PgStore;
use crate::sqlite::{
    GraphBuild, GraphSizes, GraphState, GraphWork, Scrub, SqliteStore, TextIndexState, TextMerge,
};
use crate::vectors::VecKind;
#[cfg(not(feature = "postgres"))]
use crate::without_postgres::shown_url;

/// An open store.
pub enum Store {
    Sqlite(SqliteStore),
    #[cfg(feature = "postgres")]
    Postgres(Box<PgStore>),
}

impl Store {
    /// Opens (creating if needed) the SQLite database in folder `dir`.
    pub fn open(dir: &Path) -> Result<Self> {
        Ok(Store::Sqlite(SqliteStore::open(dir)?))
    }

    /// Opens the store in PostgreSQL database `url`, bringing its schema
    /// up to date; `dir` is its local folder (sockets, caches).
    /// `password` is used when the URL has none.
    /// `replicas` are hot standbys that take its reads.
    #[cfg(feature = "postgres")]
    pub fn open_postgres(
        url: &str,
        dir: &Path,
        password: Option<&str>,
        replicas: &keep_model::Replicas,
    ) -> Result<Self> {
        Ok(Store::Postgres(Box::new(PgStore::open(
            url, dir, password, replicas,
        )?)))
    }

    /// A store on PostgreSQL cannot be opened by a build without it.
    #[cfg(not(feature = "postgres"))]
    pub fn open_postgres(
        url: &str,
        _dir: &Path,
        _password: Option<&str>,
        _replicas: &keep_model::Replicas,
    ) -> Result<Self> {
        Err(Error::Invalid(format!(
            "{}: this keep was built without PostgreSQL (its postgres feature is off)",
            shown_url(url)
        )))
    }

    /// Names who writes from now on (`cli`, an MCP client's name and
    /// version, ...), in the operations log.
    pub fn set_agent(&mut self, agent: &str) {
        match self {
            Store::Sqlite(s) => s.set_agent(agent),
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.set_agent(agent),
        }
    }

    /// What protects the link to a database server; None for a file.
    pub fn link(&self) -> Option<crate::types::Link> {
        match self {
            Store::Sqlite(_) => None,
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => Some(s.link().clone()),
        }
    }

    /// A read handle for what a client asked to see (find, get, list,
    /// the log, stats, conflicts): on a PostgreSQL store with replicas, a
    /// healthy replica that has replayed the client's writes; else what
    /// `db` gives.
    pub fn reads(&self) -> Handle<'_> {
        match self {
            Store::Sqlite(s) => Handle::Sqlite(s.db()),
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => Handle::Postgres(s.reader()),
        }
    }

    /// Where the primary's log stood after this client's last write
    /// through this store (None for a file, or before any write): what a
    /// client's reads through other stores must see.
    pub fn write_mark(&self) -> Option<u64> {
        match self {
            Store::Sqlite(_) => None,
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.write_mark(),
        }
    }

    /// Whether reads go to replicas when they can.
    pub fn has_replicas(&self) -> bool {
        match self {
            Store::Sqlite(_) => false,
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.has_replicas(),
        }
    }

    /// Sets the mark `write_mark` gives back to `mark`, forgetting writes
    /// since that were not the client's (records of its reads).
    pub fn restore_write_mark(&self, mark: Option<u64>) {
        match self {
            Store::Sqlite(_) => {
                let _ = mark;
            }
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.restore_write_mark(mark),
        }
    }

    /// The state of each replica that takes reads, asked now; empty
    /// without replicas.
    pub fn replica_states(&self) -> Vec<crate::types::ReplicaState> {
        match self {
            Store::Sqlite(_) => Vec::new(),
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.replica_states(),
        }
    }

    /// Whether the store was opened for reading only.
    pub fn is_read_only(&self) -> bool {
        match self {
            Store::Sqlite(s) => s.is_read_only(),
            #[cfg(feature = "postgres")]
            Store::Postgres(_) => false,
        }
    }

    /// The database file, or the local folder of a server's store.
    pub fn path(&self) -> &Path {
        match self {
            Store::Sqlite(s) => s.path(),
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.path(),
        }
    }

    /// The store's folder: the one holding the SQLite file, or the local
    /// folder of a server's store.
    pub fn dir(&self) -> &Path {
        match self {
            Store::Sqlite(s) => s.path().parent().unwrap_or(Path::new(".")),
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.path(),
        }
    }

    /// What is wrong with the store (its file, its indexes, its vectors,
    /// the numbering of versions and parts), one line each.
    pub fn check(&self) -> Result<Vec<String>> {
        match self {
            Store::Sqlite(s) => s.check(),
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.db().check(),
        }
    }

    /// Makes again what is derived from the notes, without changing a
    /// note; returns what it did, one line each. A SQLite store is copied
    /// into a fresh file (which also mends damaged pages outside the
    /// notes' own tables); the old file stays beside it.
    pub fn repair(&mut self, progress: &mut dyn FnMut(usize, usize)) -> Result<Vec<String>> {
        match self {
            Store::Sqlite(s) => {
                let r = s.rebuild(progress)?;
                let mut done = vec![format!(
                    "copied {} note(s), {} version(s) and {} part(s) into a fresh file; their keyword indexes were made again",
                    r.notes, r.versions, r.parts
                )];
                done.push(if r.body_index_kept {
                    "the index of the notes' original text was kept".into()
                } else {
                    "the index of the notes' original text could not be read: it now holds their summaries and parts".into()
                });
                done.push(format!(
                    "{} vector(s) kept and their int8 codes made again; {} row(s) wait for the model",
                    r.vectors, r.vectors_waiting
                ));
                done.push(format!("the old file is kept as {}", r.old_file.display()));
                Ok(done)
            }
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.write(|db| db.repair()),
        }
    }

    /// Brings the vector graphs of a SQLite store up to date, kind by
    /// kind, on `threads` threads (`progress(kind, done, total)` as rows
    /// are added; false stops it). While another process refreshes them,
    /// `waiting` hears how far it stands and waits for it by answering
    /// true (then only what is left is done), or leaves that kind to it
    /// (`Busy`). A store on PostgreSQL keeps its HNSW indexes itself and
    /// has none.
    pub fn refresh_graphs(
        &mut self,
        sizes: GraphSizes,
        threads: usize,
        progress: &mut dyn FnMut(VecKind, usize, usize) -> bool,
        waiting: &mut dyn FnMut(&GraphBuild) -> bool,
    ) -> Result<Vec<(VecKind, GraphWork)>> {
        // One arm in a build without PostgreSQL.
        #[allow(clippy::infallible_destructuring_match)]
        let s = match self {
            Store::Sqlite(s) => s,
            #[cfg(feature = "postgres")]
            Store::Postgres(_) => return Ok(Vec::new()),
        };
        let mut done = Vec::new();
        for kind in VecKind::ALL {
            let work = s.refresh_graph_or_wait(
                kind,
                sizes,
                threads,
                &mut |n, total| progress(kind, n, total),
                waiting,
            )?;
            let stopped = work == GraphWork::Stopped;
            done.push((kind, work));
            if stopped {
                break;
            }
        }
        Ok(done)
    }

    /// Whether another process is refreshing the graphs now.
    pub fn graph_refresh_running(&self) -> Result<bool> {
        Ok(self.graph_build()?.is_some())
    }

    /// How far the refresh of the graphs another process runs now
    /// stands; None when none runs (always on PostgreSQL).
    pub fn graph_build(&self) -> Result<Option<GraphBuild>> {
        match self {
            Store::Sqlite(s) => s.graph_build(),
            #[cfg(feature = "postgres")]
            Store::Postgres(_) => Ok(None),
        }
    }

    /// The word indexes of a SQLite store due a merge, with their
    /// segments (none on PostgreSQL, whose server keeps its indexes).
    pub fn text_indexes_due(&self) -> Result<Vec<TextIndexState>> {
        match self {
            Store::Sqlite(s) => s.text_indexes_due(),
            #[cfg(feature = "postgres")]
            Store::Postgres(_) => Ok(Vec::new()),
        }
    }

    /// Merges the word indexes that are due; `progress(index, pages
    /// done, pages)` stops it by answering false.
    pub fn merge_text_indexes(
        &mut self,
        progress: &mut dyn FnMut(&str, usize, usize) -> bool,
    ) -> Result<TextMerge> {
        match self {
            Store::Sqlite(s) => s.merge_text_indexes(progress),
            #[cfg(feature = "postgres")]
            Store::Postgres(_) => Ok(TextMerge::default()),
        }
    }

    /// Runs `purge`, a write that removes notes for good, so that nothing
    /// of them stays in the store's files: on SQLite, deleted rows are
    /// overwritten with zeros (as every write's are), their codes taken
    /// out of the vector index files, the word indexes merged whole and
    /// the write-ahead log emptied; what could not be done yet is in the
    /// `Scrub`. On PostgreSQL the rows are deleted; the server reclaims
    /// their space at its next VACUUM.
    pub fn purge_for_good<T, E: WriteError>(
        &mut self,
        purge: impl FnOnce(&Db<'_>) -> Result<T, E>,
    ) -> Result<(T, Scrub), E> {
        match self {
            Store::Sqlite(s) => s.purge(|db| purge(db)),
            #[cfg(feature = "postgres")]
            Store::Postgres(_) => Ok((
                self.write_with(purge)?,
                Scrub {
                    log_emptied: true,
                    index_kept: false,
                },
            )),
        }
    }

    /// Where the vector indexes of a SQLite store stand (none on
    /// PostgreSQL).
    pub fn graph_states(&self, from: usize) -> Result<Vec<GraphState>> {
        match self {
            Store::Sqlite(s) => VecKind::ALL
                .into_iter()
                .map(|kind| s.db().graph_state(kind, GraphSizes::from(from)))
                .collect(),
            #[cfg(feature = "postgres")]
            Store::Postgres(_) => Ok(Vec::new()),
        }
    }

    /// A consistent copy of a SQLite store at `to`, taken while others
    /// write.
    pub fn backup(&self, to: &Path) -> Result<()> {
        match self {
            Store::Sqlite(s) => s.backup(to),
            #[cfg(feature = "postgres")]
            Store::Postgres(_) => Err(Error::invalid(
                "a store on PostgreSQL is not backed up by keep: its server's own tools do that (pg_dump), or an export",
            )),
        }
    }

    /// Runs two reads of what a client asked to see at once: `aside` on a
    /// second connection and another thread (one after the other on a
    /// store read through replicas, or opened for reading only).
    pub fn reads_beside<A: Send, B>(
        &self,
        aside: impl FnOnce(&Db<'_>) -> A + Send,
        here: impl FnOnce(&Db<'_>) -> B,
    ) -> (A, B) {
        match self {
            Store::Sqlite(s) => s.beside(|db| aside(db), |db| here(db)),
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.beside(|db| aside(db), |db| here(db)),
        }
    }

    /// A handle for reads outside a transaction.
    pub fn db(&self) -> Handle<'_> {
        match self {
            Store::Sqlite(s) => Handle::Sqlite(s.db()),
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => Handle::Postgres(s.db()),
        }
    }

    /// Runs `f` over one consistent snapshot of the store, while other
    /// connections write on: for reads that must agree with each other
    /// (an export read a page at a time).
    pub fn snapshot<T, E: WriteError>(
        &mut self,
        f: impl FnOnce(&Db<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        match self {
            Store::Sqlite(s) => s.snapshot(|db| f(db)),
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.snapshot(|db| f(db)),
        }
    }

    /// Runs `f` in one transaction; commits only if it succeeds.
    pub fn write<T>(&mut self, f: impl FnOnce(&Db<'_>) -> Result<T>) -> Result<T> {
        self.write_with(f)
    }

    /// `write` for a closure whose errors are the caller's own (they
    /// carry the store's, so that a rolled-back write says so).
    pub fn write_with<T, E: WriteError>(
        &mut self,
        f: impl FnOnce(&Db<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        match self {
            Store::Sqlite(s) => s.write_with(|db| f(db)),
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.write_with(|db| f(db)),
        }
    }

    /// Like `write`, only if no other writer holds the store at this
    /// moment: for bookkeeping a read may skip rather than wait for (the
    /// time a note was last read, while an import runs).
    pub fn write_if_free<T>(&mut self, f: impl FnOnce(&Db<'_>) -> Result<T>) -> Result<Option<T>> {
        self.write_if_free_with(f)
    }

    /// `write_if_free` for a closure whose errors are the caller's own.
    pub fn write_if_free_with<T, E: WriteError>(
        &mut self,
        f: impl FnOnce(&Db<'_>) -> Result<T, E>,
    ) -> Result<Option<T>, E> {
        match self {
            Store::Sqlite(s) => s.write_if_free_with(|db| f(db)),
            #[cfg(feature = "postgres")]
            Store::Postgres(s) => s.write_if_free_with(|db| f(db)),
        }
    }
}

/// A note with no tags or content, created and updated `at`.
#[cfg(test)]
pub(crate) fn test_note(
    id: &str,
    summary: &str,
    at: keep_model::time::Timestamp,
) -> keep_model::Note {
    keep_model::Note {
        id: id.to_string(),
        summary: summary.to_string(),
        tags: keep_model::Tags::new(),
        content_hash: None,
        created: at,
        updated: at,
        accessed: at,
        at,
    }
}

/// Whether `location` names a PostgreSQL database rather than a folder.
pub fn is_database_url(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}
