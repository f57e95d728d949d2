//! The store: the only place with SQL. `Store` opens the database a store
//! lives in and hands out `Db`, the storage interface (`Backend`) that the
//! keeper reads and writes through; `sqlite` implements it over one file,
//! `postgres` (with the `postgres` feature) over a database server that
//! many machines share.
//!
//! Reads go through `Store::db`; writes through `Store::write`, which runs
//! a closure inside one transaction so a failure leaves nothing
//! half-written.

mod at_once;
mod backend;
pub mod census;
mod dialect;
mod embedded;
pub mod error;
mod filter;
mod handle;
mod ids;
pub mod keyword;
pub mod notices;
pub mod operations;
mod order;
mod plain;
pub mod plan;
#[cfg(feature = "postgres")]
mod postgres;
pub mod prelude;
mod private;
mod reads;
mod sqlite;
mod store;
pub mod tables;
mod types;
mod vectors;
#[cfg(not(feature = "postgres"))]
mod without_postgres;

pub use error::{Error, Result, WriteError};

pub use backend::{Backend, Db, NoteWrites, Upkeep, Vectors};
pub use dialect::Dialect;
pub use embedded::Embedded;
pub use handle::Handle;
pub use ids::{NoteRid, PartRid, VersionRid};
pub use keyword::{Keyword, TextIndex, TextSearch};
pub use plain::{Cell, PlainQueries, Query, Sql};
#[cfg(feature = "postgres")]
pub use postgres::{
    PgDb, PgStore, complete_database_url, listen_for_changes, on_blocking_thread, pgpass_password,
    shown_url,
};
pub use reads::NoteReads;
pub use sqlite::{
    DEFAULT_GRAPH_FROM, GraphBuild, GraphSizes, GraphState, GraphWork, REFRESH_AFTER, Scrub,
    SqliteDb, SqliteStore, TextIndexState, TextMerge, check_file,
};
#[cfg(test)]
pub(crate) use store::test_note;
pub use store::{Store, is_database_url};
pub use tables::{
    Edges, History, Meta, NoteRows, OperationsLog, Ratings, Residue, Tokens, Waiting, Watches,
};
pub use types::{Health, Lease, Link, ReplicaState, TokenRow, WatchedDir};
pub use vectors::{NewVector, PendingText, VecKind, VecRow, VectorSpace, to_bytes as vector_bytes};
#[cfg(not(feature = "postgres"))]
pub use without_postgres::{
    complete_database_url, listen_for_changes, on_blocking_thread, pgpass_password, shown_url,
};
