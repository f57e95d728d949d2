//! The storage interface: what each database does its own way, in three
//! traits, each implemented by SQLite (`sqlite/`) and PostgreSQL
//! (`postgres/`) directly: `NoteWrites` (a note's row, word indexes,
//! parts and versions), `Vectors` (vector tables and nearest-neighbour
//! search) and `Upkeep` (health, bulk loads, index builds). What the two
//! answer alike is written once over plain SQL (`tables`, `NoteReads`,
//! `Keyword`, `Embedded`). The keeper holds a `&Db` and never knows which
//! database answers.

use super::keyword::TextSearch;
use super::plain::Sql;
use super::vectors::{Nearest, NewVector, VecKind, VecRow, VectorSpace};
use crate::error::Result;
use crate::ids::{NoteRid, PartRid, VersionRid};
use keep_model::{Note, NoteFilter, Part, Tags, Version};

/// One transaction's (or one read's) view of a store, whichever database
/// holds it.
pub type Db<'c> = dyn Backend + 'c;

/// One transaction's (or one read's) view of a store: every trait a
/// database implements its own way, and through `Sql` all that is written
/// once.
pub trait Backend: NoteWrites + Vectors + Upkeep + TextSearch + Sql {}

impl<T: NoteWrites + Vectors + Upkeep + TextSearch + Sql + ?Sized> Backend for T {}

/// The physical upkeep of a database, apart from the operations on notes:
/// its health, planning statistics around bulk loads, the nearest-neighbour
/// indexes set aside and built again, and a counter of commits.
pub trait Upkeep {
    /// The schema version and what a quick check of the database finds.
    fn health(&self) -> Result<crate::types::Health>;
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
}

/// Writes of a note that each database makes its own way: its row with its
/// tags, its word indexes, its parts and its archived versions.
pub trait NoteWrites {
    /// Inserts a new note with its tags; returns its row key.
    fn insert_note(&self, note: &Note) -> Result<NoteRid>;
    /// Replaces the stored state of note `rid` (id and created stay).
    fn update_note(&self, rid: NoteRid, note: &Note) -> Result<()>;
    /// (Re)indexes a note's summary and tags for keyword search.
    fn index_note_text(&self, rid: NoteRid, summary: &str, tags: &Tags) -> Result<()>;
    /// Inserts a new note with its tags, its summary and tags indexed for
    /// keyword search; returns its row key. A database may do it in one
    /// statement.
    fn insert_indexed_note(&self, note: &Note) -> Result<NoteRid> {
        let rid = self.insert_note(note)?;
        self.index_note_text(rid, &note.summary, &note.tags)?;
        Ok(rid)
    }
    /// Inserts new notes as `insert_indexed_note` does, their row keys in
    /// the same order; each with the hash of the text its vector was made
    /// from when one comes with it (an import's, stored by
    /// `put_vectors`). A database may write many in one statement.
    fn insert_indexed_notes(&self, notes: &[(Note, Option<String>)]) -> Result<Vec<NoteRid>>;
    /// Inserts archived versions with explicit seqs (import), each
    /// `(note, seq, version, hash of its vector's text)`; their row keys
    /// in the same order.
    fn insert_versions(
        &self,
        rows: &[(NoteRid, i64, &Version, Option<&str>)],
    ) -> Result<Vec<VersionRid>>;
    /// Inserts parts of notes that have none yet (import), each `(note,
    /// part, hash of its vector's text)`; their row keys in the same
    /// order.
    fn insert_parts(&self, rows: &[(NoteRid, &Part, Option<&str>)]) -> Result<Vec<PartRid>>;
    /// Replaces the indexed full text of a note; empty text clears it.
    fn index_note_body(&self, rid: NoteRid, body: &str) -> Result<()>;
    /// Replaces every part of a note.
    fn replace_parts(&self, rid: NoteRid, parts: &[Part]) -> Result<()>;
    /// Appends a version after the newest one; returns its row key.
    fn append_version(&self, rid: NoteRid, version: &Version) -> Result<VersionRid>;
    /// Inserts a version with an explicit seq (import).
    fn insert_version(&self, rid: NoteRid, seq: i64, version: &Version) -> Result<()>;
}

/// Vectors: the vector space and its tables, the vectors of notes, versions
/// and parts, and nearest-neighbour search.
pub trait Vectors {
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
    /// Stores the vectors of rows written with the hash of their text
    /// (`insert_indexed_notes` and its kin), replacing any they had.
    fn put_vectors(&self, vectors: &[(VecRow, Vec<u8>)]) -> Result<()>;
    /// Stores many rows' vectors, each only while its row's text is still
    /// the one it was made from (`Embedded::set_vector` for each); returns
    /// how many were stored.
    fn set_vectors(&self, vectors: &[NewVector]) -> Result<usize>;
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
}
