//! Vectors in pgvector: one table per kind of row (current notes, archived
//! versions, parts), keyed by that row's key and deleted with it. The HNSW
//! indexes (cosine) are made when a model is first used, for its
//! dimension, over half-precision copies of the vectors; nearest-neighbour
//! search runs over them and ranks what they find by the exact distances,
//! and over the exact distances of the notes a filter lets through.

use std::collections::{HashMap, HashSet};

use crate::prelude::*;
use pgvector::Vector;
use postgres::types::ToSql;

use super::PgDb;
use crate::dialect::Dialect;
use crate::error::Result;
use crate::filter::push_filter;
use crate::ids::NoteRid;
use crate::plain::{Query, Sql};
use crate::vectors::{
    DIMS_KEY, MODEL_KEY, Nearest, NewVector, VecKind, VecRow, VectorSpace, adopt_next_sql,
    forget_stale_next_sql, from_bytes, to_bytes,
};
use keep_model::NoteFilter;

/// The largest candidate list HNSW may keep while searching (pgvector's
/// limit).
const MAX_EF_SEARCH: usize = 1_000;

/// The smallest candidate list HNSW keeps while searching. With pgvector's
/// default of 40 (and with 100) the graph search stopped in the wrong
/// region for queries alike to nothing much: on 4,381 parts of Debian's
/// manuals, "web server configuration" got a part 0.279 alike for its
/// best, while the exact best, 0.469 alike, was found from 200 on.
const MIN_EF_SEARCH: usize = 200;

/// Memory an index build may use for each vector: its half-precision
/// copy and about a kilobyte of graph (pgvector keeps 32 neighbours a vector on the lowest
/// layer). A build whose graph outgrows its memory goes on inserting into
/// the index on disk, one vector at a time, many times slower.
const BUILD_BYTES_A_VECTOR: u64 = 1_024;

/// The least and the most memory an index build asks for, in megabytes:
/// a million vectors of 384 dimensions ask for 1.8 GB.
const BUILD_MEGABYTES: (u64, u64) = (64, 4_096);

/// The memory, in megabytes, to build an index over `rows` vectors of
/// `dims` dimensions in.
fn build_megabytes(rows: u64, dims: usize) -> u64 {
    let bytes = rows * (dims as u64 * 2 + BUILD_BYTES_A_VECTOR);
    (bytes / 1_000_000).clamp(BUILD_MEGABYTES.0, BUILD_MEGABYTES.1)
}

/// A vector as pgvector reads it from text: `[x,y,...]`, each number
/// written so it reads back the same.
fn vector_literal(v: &[f32]) -> String {
    let numbers: Vec<String> = v.iter().map(f32::to_string).collect();
    format!("[{}]", numbers.join(","))
}

pub(super) fn index_name(kind: VecKind) -> String {
    format!("{}_hnsw", kind.vec_table())
}

fn create_index_sql(kind: VecKind, dims: usize) -> String {
    format!(
        "CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw ((embedding::halfvec({dims})) halfvec_cosine_ops)",
        index_name(kind),
        kind.vec_table(),
    )
}

impl PgDb<'_> {
    /// The nearest-neighbour expression of the index for `dims`: the
    /// distance between half-precision copies.
    fn indexed_distance(dims: usize, param: &str) -> String {
        format!("embedding::halfvec({dims}) <=> {param}::halfvec({dims})")
    }

    fn create_vector_indexes(&self, dims: usize) -> Result<()> {
        for kind in VecKind::ALL {
            self.batch(&create_index_sql(kind, dims))?;
        }
        Ok(())
    }

    /// Builds each missing index with the memory its vectors need.
    pub(super) fn build_sized_indexes(&self, dims: usize) -> Result<()> {
        for kind in VecKind::ALL {
            let sql = format!("SELECT count(*) FROM {}", kind.vec_table());
            let rows = self.row(&sql, &[])?.map_or(0, |r| r.get::<_, i64>(0));
            let megabytes = build_megabytes(rows as u64, dims);
            self.batch(&format!(
                "SET LOCAL maintenance_work_mem = '{megabytes}MB'; {}",
                create_index_sql(kind, dims)
            ))?;
        }
        Ok(())
    }
}

impl Vectors for PgDb<'_> {
    fn create_vector_space(&self, space: &VectorSpace) -> Result<()> {
        self.create_vector_indexes(space.dims)?;
        self.set_meta(MODEL_KEY, &space.model)?;
        self.set_meta(DIMS_KEY, &space.dims.to_string())
    }

    fn codes_missing(&self) -> Result<bool> {
        Ok(false)
    }

    fn create_codes(&self) -> Result<()> {
        Ok(())
    }

    /// Drops every vector. The tables are truncated, not deleted from: an
    /// index built later in the same write would otherwise still read the
    /// deleted rows, which may be of another dimension.
    fn drop_vector_space(&self) -> Result<()> {
        let mut sql = String::new();
        for kind in VecKind::ALL {
            sql.push_str(&format!(
                "DROP INDEX IF EXISTS {}; TRUNCATE {}; UPDATE {} SET embedded = NULL;\n",
                index_name(kind),
                kind.vec_table(),
                kind.row_table()
            ));
        }
        sql.push_str(&format!(
            "DELETE FROM meta WHERE key IN ('{MODEL_KEY}', '{DIMS_KEY}');"
        ));
        self.batch(&sql)?;
        self.conn.prepared.borrow_mut().clear();
        Ok(())
    }

    /// Keeps a row's vector of the next space, made from text of `hash`.
    fn put_next_vector(&self, row: VecRow, hash: &str, vector: &[u8]) -> Result<()> {
        let kind = row.kind().number() as i16;
        self.exec(
            "INSERT INTO next_vectors (kind, key, hash, embedding) VALUES ($1, $2, $3, $4)
             ON CONFLICT (kind, key) DO UPDATE SET hash = excluded.hash, embedding = excluded.embedding",
            &[&kind, &row.key(), &hash, &Vector::from(from_bytes(vector))],
        )?;
        Ok(())
    }

    /// The next space becomes the store's: its vectors replace the old
    /// ones (the index is built once over them); rows whose text changed
    /// since wait for a vector.
    fn adopt_next_space(&self, space: &VectorSpace) -> Result<()> {
        self.batch(&forget_stale_next_sql())?;
        self.drop_vector_space()?;
        self.batch(&adopt_next_sql("key"))?;
        self.build_sized_indexes(space.dims)?;
        self.create_vector_space(space)
    }

    fn set_pending_scope(&self, notes: &[NoteRid]) -> Result<()> {
        self.batch(
            "CREATE TEMP TABLE IF NOT EXISTS pending_scope (rid bigint PRIMARY KEY);
             DELETE FROM pending_scope;",
        )?;
        let rids: Vec<i64> = notes.iter().map(|r| r.0).collect();
        self.exec(
            "INSERT INTO pending_scope (rid) SELECT DISTINCT unnest($1::bigint[])",
            &[&rids],
        )?;
        Ok(())
    }

    fn set_vectors(&self, vectors: &[NewVector]) -> Result<usize> {
        let mut stored = 0;
        for kind in VecKind::ALL {
            let mut latest: HashMap<i64, &NewVector> = HashMap::new();
            for v in vectors.iter().filter(|v| v.row.kind() == kind) {
                latest.insert(v.row.key(), v);
            }
            let of_kind: Vec<&NewVector> = latest.into_values().collect();
            for chunk in of_kind.chunks(VECTORS_PER_STATEMENT) {
                stored += self.set_vectors_of_kind(kind, chunk)?;
            }
        }
        Ok(stored)
    }

    fn put_vectors(&self, vectors: &[(VecRow, Vec<u8>)]) -> Result<()> {
        for kind in VecKind::ALL {
            let mut latest: HashMap<i64, &[u8]> = HashMap::new();
            for (row, vector) in vectors.iter().filter(|(row, _)| row.kind() == kind) {
                latest.insert(row.key(), vector);
            }
            let stored: Vec<(i64, Vector)> = latest
                .into_iter()
                .map(|(key, vector)| (key, Vector::from(from_bytes(vector))))
                .collect();
            self.store_vectors(kind, &stored)?;
        }
        Ok(())
    }

    fn put_vector(&self, row: VecRow, vector: &[u8]) -> Result<()> {
        let (kind, key) = (row.kind(), row.key());
        let vector = Vector::from(from_bytes(vector));
        let sql = format!(
            "INSERT INTO {} (key, embedding) VALUES ($1, $2)
             ON CONFLICT (key) DO UPDATE SET embedding = excluded.embedding",
            kind.vec_table()
        );
        self.exec(&sql, &[&key, &vector])?;
        Ok(())
    }

    fn vector_bytes(&self, row: VecRow) -> Result<Option<Vec<u8>>> {
        let (kind, key) = (row.kind(), row.key());
        let sql = format!(
            "SELECT v.embedding FROM {v} v JOIN {r} r ON r.{k} = v.key
             WHERE v.key = $1 AND r.embedded IS NOT NULL",
            v = kind.vec_table(),
            r = kind.row_table(),
            k = kind.key()
        );
        Ok(self
            .row(&sql, &[&key])?
            .map(|r| to_bytes(r.get::<_, Vector>(0).as_slice())))
    }

    fn vector(&self, row: VecRow) -> Result<Option<Vec<f32>>> {
        let (kind, key) = (row.kind(), row.key());
        let sql = format!("SELECT embedding FROM {} WHERE key = $1", kind.vec_table());
        Ok(self
            .row(&sql, &[&key])?
            .map(|r| r.get::<_, Vector>(0).to_vec()))
    }

    /// The `k` nearest rows of a kind by cosine distance, found through
    /// the HNSW index and ranked by their exact distances.
    fn nearest(&self, kind: VecKind, dims: usize, query: &[f32], k: usize) -> Result<Nearest> {
        let ef_search = k.saturating_mul(2).clamp(MIN_EF_SEARCH, MAX_EF_SEARCH);
        if self.conn.words.ef_search.get() != ef_search {
            self.batch(&format!("SET hnsw.ef_search = {ef_search}"))?;
            self.conn.words.ef_search.set(ef_search);
        }
        let sql = format!(
            "SELECT key, (embedding <=> $1)::float8 FROM {t} ORDER BY {d} LIMIT $2",
            d = Self::indexed_distance(dims, "$1"),
            t = kind.vec_table()
        );
        let mut nearest: Nearest = self
            .rows(&sql, &[&Vector::from(query.to_vec()), &(k as i64)])?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        nearest.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        Ok(nearest)
    }

    fn nearest_passing(&self, query: &[f32], filter: &NoteFilter, k: usize) -> Result<Nearest> {
        let mut q = Query::default();
        let v = q.arg(vector_literal(query));
        q.push(&format!(
            "SELECT n.rid, (v.embedding <=> {v}::text::vector)::float8 AS d
             FROM notes n JOIN vec_notes v ON v.key = n.rid WHERE TRUE"
        ));
        push_filter(Dialect::Postgres, filter, &mut q);
        let k = q.arg(k as i64);
        q.push(&format!(" ORDER BY d, n.rid LIMIT {k}"));
        self.rows_of(&q)?
            .iter()
            .map(|r| Ok((r[0].int()?, r[1].real()?)))
            .collect()
    }

    fn note_distances(&self, query: &[f32], rids: &[NoteRid]) -> Result<Vec<(NoteRid, f64)>> {
        if rids.is_empty() || self.vector_space()?.is_none() {
            return Ok(Vec::new());
        }
        let keys: Vec<i64> = rids.iter().map(|r| r.0).collect();
        let rows = self.rows(
            "SELECT key, (embedding <=> $1)::float8 FROM vec_notes WHERE key = ANY($2)",
            &[&Vector::from(query.to_vec()), &keys],
        )?;
        Ok(rows.iter().map(|r| (NoteRid(r.get(0)), r.get(1))).collect())
    }
}

/// Rows whose vectors one statement stores (two parameters each).
const VECTORS_PER_STATEMENT: usize = 1_000;

impl PgDb<'_> {
    /// `set_vectors` for rows of one kind, each key once: the rows whose
    /// text is unchanged are marked in one statement, and their vectors
    /// stored in another.
    fn set_vectors_of_kind(&self, kind: VecKind, vectors: &[&NewVector]) -> Result<usize> {
        let keys: Vec<i64> = vectors.iter().map(|v| v.row.key()).collect();
        let hashes: Vec<&str> = vectors.iter().map(|v| v.hash.as_str()).collect();
        let texts: Vec<&str> = vectors.iter().map(|v| v.text.as_str()).collect();
        let marked = self.rows(
            &format!(
                "UPDATE {r} r SET embedded = x.hash
                 FROM unnest($1::bigint[], $2::text[], $3::text[]) AS x(key, hash, text)
                 WHERE r.{k} = x.key AND r.summary = x.text
                 RETURNING r.{k}",
                r = kind.row_table(),
                k = kind.key()
            ),
            &[&keys, &hashes, &texts],
        )?;
        let marked: HashSet<i64> = marked.iter().map(|row| row.get(0)).collect();
        let stored: Vec<(i64, Vector)> = vectors
            .iter()
            .filter(|v| marked.contains(&v.row.key()))
            .map(|v| (v.row.key(), Vector::from(from_bytes(&v.vector))))
            .collect();
        self.store_vectors(kind, &stored)?;
        Ok(stored.len())
    }

    /// Writes the vectors of rows of one kind, each key once, up to
    /// `VECTORS_PER_STATEMENT` to a statement.
    fn store_vectors(&self, kind: VecKind, stored: &[(i64, Vector)]) -> Result<()> {
        for chunk in stored.chunks(VECTORS_PER_STATEMENT) {
            let values: Vec<String> = (0..chunk.len())
                .map(|i| format!("(${}, ${})", 2 * i + 1, 2 * i + 2))
                .collect();
            let params: Vec<&(dyn ToSql + Sync)> = chunk
                .iter()
                .flat_map(|(key, vector)| {
                    [key as &(dyn ToSql + Sync), vector as &(dyn ToSql + Sync)]
                })
                .collect();
            // Prepared for this run only: each number of rows is its own text.
            self.rows_unprepared(
                &format!(
                    "INSERT INTO {} (key, embedding) VALUES {}
                     ON CONFLICT (key) DO UPDATE SET embedding = excluded.embedding",
                    kind.vec_table(),
                    values.join(", ")
                ),
                &params,
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::build_megabytes;

    #[test]
    fn an_index_build_asks_for_memory_as_its_vectors_need() {
        assert_eq!(build_megabytes(0, 384), 64);
        assert_eq!(build_megabytes(100_000, 384), 179);
        assert_eq!(build_megabytes(1_000_000, 384), 1_792);
        assert_eq!(build_megabytes(10_000_000, 384), 4_096);
    }
}
