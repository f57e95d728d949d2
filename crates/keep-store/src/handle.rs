//! A read handle of an open store (`Handle`): it derefs to the database
//! it holds and answers every storage trait as that database does.

use std::collections::HashMap;
use std::ops::Deref;

use crate::backend::{Db, NoteWrites, Upkeep, Vectors};
use crate::dialect::Dialect;
use crate::error::Result;
use crate::ids::{NoteRid, PartRid, VersionRid};
use crate::keyword::{IndexSearch, TextIndex, TextSearch};
use crate::plain::{Cell, Query, Sql};
#[cfg(feature = "postgres")]
use crate::postgres::PgDb;
use crate::sqlite::SqliteDb;
use crate::types::Health;
use crate::vectors::{Nearest, NewVector, VecKind, VecRow, VectorSpace};
use keep_model::{Note, NoteFilter, Part, Tags, Version};

/// A read handle of a store: derefs to its `Db`.
pub enum Handle<'c> {
    Sqlite(SqliteDb<'c>),
    #[cfg(feature = "postgres")]
    Postgres(PgDb<'c>),
}

impl<'c> Deref for Handle<'c> {
    type Target = Db<'c>;

    fn deref(&self) -> &Self::Target {
        match self {
            Handle::Sqlite(db) => db,
            #[cfg(feature = "postgres")]
            Handle::Postgres(db) => db,
        }
    }
}

impl Sql for Handle<'_> {
    fn dialect(&self) -> Dialect {
        (**self).dialect()
    }

    fn execute(&self, sql: &str, params: &[Cell]) -> Result<u64> {
        (**self).execute(sql, params)
    }

    fn query(&self, sql: &str, params: &[Cell]) -> Result<Vec<Vec<Cell>>> {
        (**self).query(sql, params)
    }

    fn bytes(&self) -> Result<i64> {
        (**self).bytes()
    }

    fn agent(&self) -> String {
        (**self).agent()
    }

    fn batch(&self, sql: &str) -> Result<()> {
        (**self).batch(sql)
    }
}

impl TextSearch for Handle<'_> {
    fn note_total(&self) -> Result<f64> {
        (**self).note_total()
    }

    fn part_total(&self) -> Result<f64> {
        (**self).part_total()
    }

    fn rows_holding_word(&self, index: TextIndex, word: &str, cap: i64) -> Result<f64> {
        (**self).rows_holding_word(index, word, cap)
    }

    fn hits_clause(&self, q: &mut Query, search: &IndexSearch<'_>) -> Result<String> {
        (**self).hits_clause(q, search)
    }

    fn words_held(&self, rids: &[NoteRid], words: &[String]) -> Result<HashMap<NoteRid, u64>> {
        (**self).words_held(rids, words)
    }
}

impl Upkeep for Handle<'_> {
    fn health(&self) -> Result<Health> {
        (**self).health()
    }

    fn after_bulk_load(&self) -> Result<()> {
        (**self).after_bulk_load()
    }

    fn prepare_bulk_load(&self, notes: usize) -> Result<()> {
        (**self).prepare_bulk_load(notes)
    }

    fn defer_vector_indexes(&self) -> Result<bool> {
        (**self).defer_vector_indexes()
    }

    fn build_vector_indexes(&self) -> Result<()> {
        (**self).build_vector_indexes()
    }

    fn data_version(&self) -> Result<i64> {
        (**self).data_version()
    }
}

impl NoteWrites for Handle<'_> {
    fn insert_note(&self, note: &Note) -> Result<NoteRid> {
        (**self).insert_note(note)
    }

    fn update_note(&self, rid: NoteRid, note: &Note) -> Result<()> {
        (**self).update_note(rid, note)
    }

    fn index_note_text(&self, rid: NoteRid, summary: &str, tags: &Tags) -> Result<()> {
        (**self).index_note_text(rid, summary, tags)
    }

    fn insert_indexed_note(&self, note: &Note) -> Result<NoteRid> {
        (**self).insert_indexed_note(note)
    }

    fn insert_indexed_notes(&self, notes: &[(Note, Option<String>)]) -> Result<Vec<NoteRid>> {
        (**self).insert_indexed_notes(notes)
    }

    fn insert_versions(
        &self,
        rows: &[(NoteRid, i64, &Version, Option<&str>)],
    ) -> Result<Vec<VersionRid>> {
        (**self).insert_versions(rows)
    }

    fn insert_parts(&self, rows: &[(NoteRid, &Part, Option<&str>)]) -> Result<Vec<PartRid>> {
        (**self).insert_parts(rows)
    }

    fn index_note_body(&self, rid: NoteRid, body: &str) -> Result<()> {
        (**self).index_note_body(rid, body)
    }

    fn replace_parts(&self, rid: NoteRid, parts: &[Part]) -> Result<()> {
        (**self).replace_parts(rid, parts)
    }

    fn append_version(&self, rid: NoteRid, version: &Version) -> Result<VersionRid> {
        (**self).append_version(rid, version)
    }

    fn insert_version(&self, rid: NoteRid, seq: i64, version: &Version) -> Result<()> {
        (**self).insert_version(rid, seq, version)
    }
}

impl Vectors for Handle<'_> {
    fn create_vector_space(&self, space: &VectorSpace) -> Result<()> {
        (**self).create_vector_space(space)
    }

    fn codes_missing(&self) -> Result<bool> {
        (**self).codes_missing()
    }

    fn create_codes(&self) -> Result<()> {
        (**self).create_codes()
    }

    fn drop_vector_space(&self) -> Result<()> {
        (**self).drop_vector_space()
    }

    fn put_next_vector(&self, row: VecRow, hash: &str, vector: &[u8]) -> Result<()> {
        (**self).put_next_vector(row, hash, vector)
    }

    fn adopt_next_space(&self, space: &VectorSpace) -> Result<()> {
        (**self).adopt_next_space(space)
    }

    fn set_pending_scope(&self, notes: &[NoteRid]) -> Result<()> {
        (**self).set_pending_scope(notes)
    }

    fn put_vector(&self, row: VecRow, vector: &[u8]) -> Result<()> {
        (**self).put_vector(row, vector)
    }

    fn put_vectors(&self, vectors: &[(VecRow, Vec<u8>)]) -> Result<()> {
        (**self).put_vectors(vectors)
    }

    fn set_vectors(&self, vectors: &[NewVector]) -> Result<usize> {
        (**self).set_vectors(vectors)
    }

    fn vector_bytes(&self, row: VecRow) -> Result<Option<Vec<u8>>> {
        (**self).vector_bytes(row)
    }

    fn vector(&self, row: VecRow) -> Result<Option<Vec<f32>>> {
        (**self).vector(row)
    }

    fn nearest(&self, kind: VecKind, dims: usize, query: &[f32], k: usize) -> Result<Nearest> {
        (**self).nearest(kind, dims, query, k)
    }

    fn nearest_passing(&self, query: &[f32], filter: &NoteFilter, k: usize) -> Result<Nearest> {
        (**self).nearest_passing(query, filter, k)
    }

    fn note_distances(&self, query: &[f32], rids: &[NoteRid]) -> Result<Vec<(NoteRid, f64)>> {
        (**self).note_distances(query, rids)
    }
}
