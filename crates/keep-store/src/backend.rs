//! The storage interface: what each database does its own way (a note's
//! writes with its word indexes, vectors and nearest-neighbour search,
//! bulk loads, health), one trait with an implementation per database.
//! What the two answer alike comes with it, written once (`Shared`,
//! `NoteReads`, `Keyword`, `Embedded`). The keeper holds a `&Db` and
//! never knows which database answers.

#[cfg(feature = "postgres")]
use super::postgres::PgDb;
use super::sqlite::SqliteDb;
use super::vectors::{Nearest, VecKind, VecRow, VectorSpace};
use super::{Handle, NoteRid, VersionRid};
use crate::error::Result;
use keep_model::{Note, NoteFilter, Part, Tags, Version};

/// Declares `Backend` from one list of methods, implements it for SQLite
/// and PostgreSQL by calling their inherent methods of the same names, and
/// for a `Handle` by calling the database it holds.
macro_rules! backend {
    ($($(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {
        /// One transaction's (or one read's) view of a store; what every
        /// database answers alike comes with it (`Shared`, over `Sql`).
        pub trait Backend: super::plain::Sql + super::keyword::TextSearch {
            $($(#[$doc])* fn $name(&self $(, $arg: $ty)*) -> $ret;)*
        }

        impl Backend for SqliteDb<'_> {
            $(fn $name(&self $(, $arg: $ty)*) -> $ret {
                SqliteDb::$name(self $(, $arg)*)
            })*
        }

        #[cfg(feature = "postgres")]
        impl Backend for PgDb<'_> {
            $(fn $name(&self $(, $arg: $ty)*) -> $ret {
                PgDb::$name(self $(, $arg)*)
            })*
        }

        impl Backend for Handle<'_> {
            $(fn $name(&self $(, $arg: $ty)*) -> $ret {
                (**self).$name($($arg),*)
            })*
        }
    };
}

backend! {
    /// The schema version and what a quick check of the database finds.
    fn health(&self) -> Result<super::types::Health>;
    /// Brings the database's planning statistics up to date after many
    /// rows arrived at once (an import).
    fn after_bulk_load(&self) -> Result<()>;
    /// Before `notes` notes arrive in one write: statements are planned
    /// for the tables as they grow during it, not as they were when it
    /// began.
    fn prepare_bulk_load(&self, notes: usize) -> Result<()>;
    /// Before a bulk load into the vector space this write created (no
    /// other connection can see it yet, so none reads its tables): sets
    /// aside any nearest-neighbour index that would otherwise take every
    /// vector one at a time; says whether it did. Inside the write, so a
    /// failed load puts the indexes back with everything else.
    fn defer_vector_indexes(&self) -> Result<bool>;
    /// Builds the indexes `defer_vector_indexes` set aside, in one pass
    /// over the loaded vectors.
    fn build_vector_indexes(&self) -> Result<()>;
    /// Changes whenever another connection commits to the database.
    fn data_version(&self) -> Result<i64>;
    // notes
    /// Inserts a new note with its tags; returns its row key.
    fn insert_note(&self, note: &Note) -> Result<NoteRid>;
    /// Replaces the stored state of note `rid` (id and created stay).
    fn update_note(&self, rid: NoteRid, note: &Note) -> Result<()>;
    /// (Re)indexes a note's summary and tags for keyword search.
    fn index_note_text(&self, rid: NoteRid, summary: &str, tags: &Tags) -> Result<()>;
    /// Replaces the indexed full text of a note; empty text clears it.
    fn index_note_body(&self, rid: NoteRid, body: &str) -> Result<()>;
    // parts
    /// Replaces every part of a note.
    fn replace_parts(&self, rid: NoteRid, parts: &[Part]) -> Result<()>;
    // vectors
    /// Creates the vector tables and the triggers that keep them in step.
    fn create_vector_space(&self, space: &VectorSpace) -> Result<()>;
    /// Whether the store has vectors but no code tables yet (made by an
    /// older keep).
    fn codes_missing(&self) -> Result<bool>;
    /// Creates the code tables, fills them from the float tables and
    /// brings the triggers up to date.
    fn create_codes(&self) -> Result<()>;
    /// Drops every vector; all rows wait for embeddings again.
    fn drop_vector_space(&self) -> Result<()>;
    /// Keeps a row's vector of the next space, made from text of `hash`.
    fn put_next_vector(&self, row: VecRow, hash: &str, vector: &[u8]) -> Result<()>;
    /// The next space's vectors replace the store's and its space becomes
    /// the store's; rows whose text changed since wait for a vector.
    fn adopt_next_space(&self, space: &VectorSpace) -> Result<()>;
    /// Limits `pending_texts` and `count_pending` with `scoped` to the rows
    /// of these notes (kept in a temporary table of this connection).
    fn set_pending_scope(&self, notes: &[NoteRid]) -> Result<()>;
    /// Stores a row's vector, replacing any it had.
    fn put_vector(&self, row: VecRow, vector: &[u8]) -> Result<()>;
    /// The stored vector of a row as it is stored (little-endian f32), if
    /// it was made from the row's current text.
    fn vector_bytes(&self, row: VecRow) -> Result<Option<Vec<u8>>>;
    /// The stored vector of a row.
    fn vector(&self, row: VecRow) -> Result<Option<Vec<f32>>>;
    /// The `k` rows of a kind nearest `query` in the store's vector space
    /// of `dims` dimensions.
    fn nearest(&self, kind: VecKind, dims: usize, query: &[f32], k: usize) -> Result<Nearest>;
    /// The `k` notes passing `filter` nearest `query` (the store has a
    /// vector space).
    fn nearest_passing(&self, query: &[f32], filter: &NoteFilter, k: usize) -> Result<Nearest>;
    /// Cosine distances of the notes among `rids` that have a vector, in
    /// no particular order.
    fn note_distances(&self, query: &[f32], rids: &[NoteRid]) -> Result<Vec<(NoteRid, f64)>>;
    // versions
    /// Appends a version after the newest one; returns its row key.
    fn append_version(&self, rid: NoteRid, version: &Version) -> Result<VersionRid>;
    /// Inserts a version with an explicit seq (import).
    fn insert_version(&self, rid: NoteRid, seq: i64, version: &Version) -> Result<()>;
}
