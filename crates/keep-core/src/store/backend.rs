//! The storage interface: every read and write the keeper makes, as one
//! trait with an implementation per database (SQLite, PostgreSQL). The
//! keeper holds a `&Db` and never knows which one answers.

use std::collections::{HashMap, HashSet};

use super::plan::KeywordPlan;
use super::postgres::PgDb;
use super::sqlite::SqliteDb;
use super::types::{FtsHit, SubHit};
use super::vectors::{VecRow, VectorSpace};
use super::{Handle, NoteRid, VersionRid};
use crate::error::Result;
use crate::model::{ListOrder, Note, NoteFilter, Part, Rating, Tags, Version};

/// Declares `Backend` from one list of methods, implements it for SQLite
/// and PostgreSQL by calling their inherent methods of the same names, and
/// for a `Handle` by calling the database it holds.
macro_rules! backend {
    ($($(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {
        /// One transaction's (or one read's) view of a store; what every
        /// database answers alike comes with it (`Shared`, over `Sql`).
        pub trait Backend: super::plain::Sql {
            $($(#[$doc])* fn $name(&self $(, $arg: $ty)*) -> $ret;)*
        }

        impl Backend for SqliteDb<'_> {
            $(fn $name(&self $(, $arg: $ty)*) -> $ret {
                SqliteDb::$name(self $(, $arg)*)
            })*
        }

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
    // edges
    /// Replaces the outgoing edges of note `rid`.
    fn replace_edges(&self, rid: NoteRid, edges: &[(String, String)]) -> Result<()>;
    // feedback
    /// Ratings of the rated notes among `rids`.
    fn feedback_among(&self, rids: &[NoteRid]) -> Result<HashMap<NoteRid, Rating>>;
    /// The notes among `rids` that another note supersedes.
    fn superseded_among(&self, rids: &[NoteRid]) -> Result<HashSet<NoteRid>>;
    // keyword
    /// Plans a keyword query from free text; `None` when it has no words.
    fn keyword_plan(&self, text: &str) -> Result<Option<KeywordPlan>>;
    /// Notes matching the plan, best first. Summary and tag matches count
    /// fully, name matches as tags, full-text matches half.
    fn keyword_search(&self, plan: &KeywordPlan, filter: &NoteFilter, limit: usize) -> Result<Vec<FtsHit>>;
    /// Parts matching the plan, whose notes pass `filter`, best first.
    fn keyword_search_parts(&self, plan: &KeywordPlan, filter: &NoteFilter, limit: usize) -> Result<Vec<SubHit>>;
    /// Archived versions matching the plan, best first; the number is the
    /// version offset (1 = previous).
    fn keyword_search_versions(&self, plan: &KeywordPlan, filter: &NoteFilter, limit: usize) -> Result<Vec<SubHit>>;
    /// Which of `words` each of the notes `rids` holds, in its summary,
    /// tags, name or full text (bit i for `words[i]`).
    fn words_held(&self, rids: &[NoteRid], words: &[String]) -> Result<HashMap<NoteRid, u64>>;
    /// The number of notes, and how many hold each of `words` (counted up
    /// to `cap`).
    fn word_frequencies(&self, words: &[String], cap: usize) -> Result<(usize, Vec<usize>)>;
    // listing
    /// `list_notes` skipping the first `offset` notes of the order.
    fn list_notes_from(&self, filter: &NoteFilter, order: ListOrder, offset: usize, limit: Option<usize>) -> Result<Vec<Note>>;
    /// How many notes pass `filter`.
    fn count_notes(&self, filter: &NoteFilter) -> Result<usize>;
    /// Ids starting with `prefix`, in order, at most `limit`: a range scan
    /// of the id index.
    fn ids_starting_with(&self, prefix: &str, limit: usize) -> Result<Vec<String>>;
    /// Changes whenever another connection commits to the database.
    fn data_version(&self) -> Result<i64>;
    // lookups
    /// The notes among `rids` that pass `filter`, by rid.
    fn notes_passing(&self, rids: &[NoteRid], filter: &NoteFilter) -> Result<std::collections::HashMap<NoteRid, Note>>;
    /// Cosine distances to the notes passing `filter`, nearest first.
    fn nearest_filtered(&self, query: &[f32], filter: &NoteFilter, k: usize) -> Result<Vec<(NoteRid, f64)>>;
    // mod
    // notes
    fn note(&self, id: &str) -> Result<Option<(NoteRid, Note)>>;
    fn note_by_rid(&self, rid: NoteRid) -> Result<Option<Note>>;
    /// Inserts a new note with its tags; returns its row key.
    fn insert_note(&self, note: &Note) -> Result<NoteRid>;
    /// Replaces the stored state of note `rid` (id and created stay).
    fn update_note(&self, rid: NoteRid, note: &Note) -> Result<()>;
    /// (Re)indexes a note's summary and tags for keyword search.
    fn index_note_text(&self, rid: NoteRid, summary: &str, tags: &Tags) -> Result<()>;
    /// Replaces the indexed full text of a note; empty text clears it.
    fn index_note_body(&self, rid: NoteRid, body: &str) -> Result<()>;
    /// Every note, ordered by id, for export.
    fn all_notes(&self) -> Result<Vec<(NoteRid, Note)>>;
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
    /// What the store holds: notes by kind, versions, parts, vectors, tag
    /// keys, each agent's writes, bytes on disk.
    fn census(&self) -> Result<super::census::Census>;
    /// Keeps a row's vector of the next space, made from text of `hash`.
    fn put_next_vector(&self, row: VecRow, hash: &str, vector: &[u8]) -> Result<()>;
    /// The next space's vectors replace the store's and its space becomes
    /// the store's; rows whose text changed since wait for a vector.
    fn adopt_next_space(&self, space: &VectorSpace) -> Result<()>;
    /// Limits `pending_texts` and `count_pending` with `scoped` to the rows
    /// of these notes (kept in a temporary table of this connection).
    fn set_pending_scope(&self, notes: &[NoteRid]) -> Result<()>;
    /// A stored vector made from the text with this hash, if any row has one.
    fn donor_vector(&self, hash: &str) -> Result<Option<Vec<u8>>>;
    /// Stores the vector of a row if its text is still `text`; returns
    /// whether it was stored.
    fn set_vector(&self, row: VecRow, text: &str, hash: &str, vector: &[u8]) -> Result<bool>;
    /// The stored vector of a row as it is stored (little-endian f32), if
    /// it was made from the row's current text.
    fn vector_bytes(&self, row: VecRow) -> Result<Option<Vec<u8>>>;
    /// The stored vector of a row.
    fn vector(&self, row: VecRow) -> Result<Option<Vec<f32>>>;
    /// Copies a row's vector to another row (archiving or restoring a
    /// version); the target then counts as embedded from the same text.
    fn copy_vector(&self, from: VecRow, to: VecRow) -> Result<()>;
    /// The nearest notes: (note, cosine distance).
    fn nearest_notes(&self, query: &[f32], k: usize) -> Result<Vec<(NoteRid, f64)>>;
    /// Cosine distances of the notes among `rids` that have a vector, in
    /// no particular order.
    fn note_distances(&self, query: &[f32], rids: &[NoteRid]) -> Result<Vec<(NoteRid, f64)>>;
    /// The nearest parts: (owning note, part number, cosine distance).
    fn nearest_parts(&self, query: &[f32], k: usize) -> Result<Vec<(NoteRid, i64, f64)>>;
    /// The nearest archived versions: (owning note, version offset with 1
    /// the previous version, cosine distance).
    fn nearest_versions(&self, query: &[f32], k: usize) -> Result<Vec<(NoteRid, i64, f64)>>;
    // versions
    /// Appends a version after the newest one; returns its row key.
    fn append_version(&self, rid: NoteRid, version: &Version) -> Result<VersionRid>;
    /// Inserts a version with an explicit seq (import).
    fn insert_version(&self, rid: NoteRid, seq: i64, version: &Version) -> Result<()>;
    // watch
    /// Ids of notes whose id starts with `prefix` (a folder's file:// URI
    /// plus '/').
    fn ids_with_prefix(&self, prefix: &str) -> Result<Vec<String>>;
}
