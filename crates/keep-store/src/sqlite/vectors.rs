//! Vectors in sqlite-vec: one `vec0` table (cosine) per kind of row (current
//! notes, archived versions, parts), keyed by that row's integer key. The
//! tables are created when a model is first used, since the dimension comes
//! from the model; the store records which model made them.
//!
//! Beside each float table sits a plain table of int8 codes of the same
//! vectors (see `quant`). Nearest-neighbour search runs over those codes,
//! held in memory and kept up to date from a change log (`code_cache`);
//! the float tables serve exact searches over filtered notes.

use crate::prelude::*;
use std::sync::Arc;

use rusqlite::{OptionalExtension, params};

use super::{SqliteDb, code_cache, index_keys, quant};
use crate::error::Result;
use crate::ids::NoteRid;
use crate::vectors::{
    DIMS_KEY, MODEL_KEY, Nearest, NewVector, VecKind, VecRow, VectorSpace, adopt_next_sql,
    forget_stale_next_sql, from_bytes, to_bytes,
};
use keep_model::NoteFilter;

/// Set once the code tables exist and are filled...
const CODES_KEY: &str = "vector_codes";
/// ...to this, with a change log beside each (an older keep made them
/// without).
const LOGGED_CODES: &str = "int8 logged";
const UNLOGGED_CODES: &str = "int8";

/// Rows whose codes a search among given rows reads one by one when this
/// process does not hold every code already.
const KEYS_READ_BY_KEY: usize = 20_000;

impl SqliteDb<'_> {
    /// (Re)creates the triggers that drop a row's vectors with the row, and
    /// a note's vectors when its summary changes.
    fn create_vector_triggers(&self) -> Result<()> {
        let mut sql = String::new();
        for kind in VecKind::ALL {
            sql.push_str(&format!(
                "DROP TRIGGER IF EXISTS {t}_delete;
                 CREATE TRIGGER {t}_delete AFTER DELETE ON {r} BEGIN
                     DELETE FROM {t} WHERE rowid = old.{k};
                     {coarse}
                 END;\n",
                t = kind.vec_table(),
                r = kind.row_table(),
                k = kind.key(),
                coarse = self.code_delete(kind, &format!("old.{}", kind.key()))?,
            ));
        }
        sql.push_str(&format!(
            "DROP TRIGGER IF EXISTS vec_notes_stale;
             CREATE TRIGGER vec_notes_stale AFTER UPDATE OF summary ON notes
                 WHEN old.summary IS NOT new.summary BEGIN
                 DELETE FROM vec_notes WHERE rowid = old.rid;
                 {}
                 UPDATE notes SET embedded = NULL WHERE rid = old.rid;
             END;",
            self.code_delete(VecKind::Note, "old.rid")?
        ));
        self.conn.execute_batch(&sql)?;
        Ok(())
    }

    /// The statement deleting row `key` from the code table of `kind`, or
    /// nothing when there is no code table.
    fn code_delete(&self, kind: VecKind, key: &str) -> Result<String> {
        Ok(if self.table_exists(kind.code_table())? {
            format!("DELETE FROM {} WHERE key = {key};", kind.code_table())
        } else {
            String::new()
        })
    }

    fn table_exists(&self, name: &str) -> Result<bool> {
        Ok(self
            .conn
            .prepare_cached("SELECT 1 FROM sqlite_master WHERE name = ?1")?
            .query_row([name], |_| Ok(()))
            .optional()?
            .is_some())
    }

    fn put_code(&self, kind: VecKind, key: i64, vector: &[u8]) -> Result<()> {
        let (scale, code) = quant::quantize(&from_bytes(vector));
        let code: Vec<u8> = code.into_iter().map(|c| c as u8).collect();
        self.conn
            .prepare_cached(&format!(
                "INSERT OR REPLACE INTO {} (key, scale, code) VALUES (?1, ?2, ?3)",
                kind.code_table()
            ))?
            .execute(params![key, f64::from(scale), code])?;
        Ok(())
    }

    /// Whether the code tables exist with their change logs (a store made
    /// by an older keep has codes without logs, which get them on first
    /// use; until then searches are exact).
    pub(super) fn has_codes(&self) -> Result<bool> {
        Ok(self.meta(CODES_KEY)?.as_deref() == Some(LOGGED_CODES))
    }

    /// The `k` rows among `keys` nearest to `query` by cosine distance.
    pub fn nearest_among(
        &self,
        kind: VecKind,
        query: &[f32],
        keys: &[i64],
        k: usize,
    ) -> Result<Vec<(i64, f64)>> {
        let Some(space) = self.vector_space()? else {
            return Ok(Vec::new());
        };
        if self.has_codes()? {
            // A few rows are read by key rather than every code.
            let codes = if keys.len() <= KEYS_READ_BY_KEY && !self.codes_held(kind) {
                Arc::new(self.codes_of(kind, space.dims, keys)?)
            } else {
                self.codes(kind, space.dims)?
            };
            return Ok(codes.nearest_among(query, keys, k));
        }
        let sql = format!(
            "SELECT rowid, vec_distance_cosine(embedding, ?1) AS d FROM {}
             WHERE rowid IN (SELECT value FROM json_each(?2)) ORDER BY d LIMIT ?3",
            kind.vec_table()
        );
        let keys = serde_json::to_string(keys).expect("ints serialise");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt
            .query_map(params![to_bytes(query), keys, k as i64], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The `k` nearest rows of a kind by exact cosine distance over every
    /// float vector.
    pub fn nearest_exact(&self, kind: VecKind, query: &[f32], k: usize) -> Result<Vec<(i64, f64)>> {
        if k == 0 || self.vector_space()?.is_none() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT rowid, distance FROM {} WHERE embedding MATCH ?1 AND k = ?2 ORDER BY distance",
            kind.vec_table()
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt
            .query_map(params![to_bytes(query), k as i64], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }
}

impl Vectors for SqliteDb<'_> {
    /// Creates the vector tables and the triggers that keep them in step.
    fn create_vector_space(&self, space: &VectorSpace) -> Result<()> {
        let mut sql = String::new();
        for kind in VecKind::ALL {
            sql.push_str(&format!(
                "CREATE VIRTUAL TABLE IF NOT EXISTS {} USING vec0(embedding float[{}] distance_metric=cosine);\n",
                kind.vec_table(),
                space.dims
            ));
        }
        self.conn.execute_batch(&sql)?;
        self.create_vector_triggers()?;
        self.set_meta(MODEL_KEY, &space.model)?;
        self.set_meta(DIMS_KEY, &space.dims.to_string())?;
        self.create_codes()
    }

    /// Whether the store has vectors but no code tables yet (made by an
    /// older keep).
    fn codes_missing(&self) -> Result<bool> {
        Ok(self.vector_space()?.is_some() && !self.has_codes()?)
    }

    /// Creates the code tables, fills them from the float tables, then
    /// starts their change logs and brings the triggers up to date. Codes
    /// made by an older keep, the same but without logs, are kept: only
    /// their logs are started.
    fn create_codes(&self) -> Result<()> {
        if self.meta(CODES_KEY)?.as_deref() == Some(UNLOGGED_CODES) {
            for kind in VecKind::ALL {
                self.conn.execute_batch(&code_cache::log_sql(kind))?;
            }
            return self.set_meta(CODES_KEY, LOGGED_CODES);
        }
        for kind in VecKind::ALL {
            self.conn.execute_batch(&format!(
                "DROP TABLE IF EXISTS {c};
                 CREATE TABLE {c} (key INTEGER PRIMARY KEY, scale REAL NOT NULL, code BLOB NOT NULL);",
                c = kind.code_table(),
            ))?;
            let sql = format!("SELECT rowid, embedding FROM {}", kind.vec_table());
            let mut stmt = self.conn.prepare(&sql)?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let key: i64 = row.get(0)?;
                let vector: Vec<u8> = row.get(1)?;
                self.put_code(kind, key, &vector)?;
            }
            self.conn.execute_batch(&code_cache::log_sql(kind))?;
        }
        self.create_vector_triggers()?;
        self.set_meta(CODES_KEY, LOGGED_CODES)
    }

    /// Drops every vector; all rows wait for embeddings again.
    fn drop_vector_space(&self) -> Result<()> {
        let mut sql = String::from("DROP TRIGGER IF EXISTS vec_notes_stale;\n");
        for kind in VecKind::ALL {
            sql.push_str(&format!(
                "DROP TRIGGER IF EXISTS {t}_delete; DROP TABLE IF EXISTS {t}; DROP TABLE IF EXISTS {c};
                 DROP TABLE IF EXISTS {l}; UPDATE {r} SET embedded = NULL;\n",
                t = kind.vec_table(),
                c = kind.code_table(),
                l = code_cache::log_table(kind),
                r = kind.row_table()
            ));
        }
        sql.push_str(&format!(
            "DELETE FROM meta WHERE key IN ('{MODEL_KEY}', '{DIMS_KEY}', '{CODES_KEY}', '{}');",
            index_keys::all().join("', '")
        ));
        sql.push_str(&code_cache::next_generation_sql());
        self.conn.execute_batch(&sql)?;
        Ok(())
    }

    /// Keeps a row's vector of the next space, made from text of `hash`.
    fn put_next_vector(&self, row: VecRow, hash: &str, vector: &[u8]) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO next_vectors (kind, key, hash, embedding) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![row.kind().number(), row.key(), hash, vector])?;
        Ok(())
    }

    /// The next space becomes the store's: its vectors replace the old
    /// ones; rows whose text changed since wait for a vector.
    fn adopt_next_space(&self, space: &VectorSpace) -> Result<()> {
        self.conn.execute_batch(&forget_stale_next_sql())?;
        self.drop_vector_space()?;
        self.create_vector_space(space)?;
        self.conn.execute_batch(&adopt_next_sql("rowid"))?;
        self.create_codes()
    }

    /// Limits `pending_texts` and `count_pending` with `scoped` to the rows
    /// of these notes (kept in a temporary table of this connection).
    fn set_pending_scope(&self, notes: &[NoteRid]) -> Result<()> {
        self.conn.execute_batch(
            "CREATE TEMP TABLE IF NOT EXISTS pending_scope (rid INTEGER PRIMARY KEY);
             DELETE FROM temp.pending_scope;",
        )?;
        let mut insert = self
            .conn
            .prepare_cached("INSERT OR IGNORE INTO temp.pending_scope (rid) VALUES (?1)")?;
        for rid in notes {
            insert.execute([rid.0])?;
        }
        Ok(())
    }

    /// Stores a row's vector, replacing any it had.
    fn set_vectors(&self, vectors: &[NewVector]) -> Result<usize> {
        let mut stored = 0;
        for v in vectors {
            if self.set_vector(v.row, &v.text, &v.hash, &v.vector)? {
                stored += 1;
            }
        }
        Ok(stored)
    }

    fn put_vectors(&self, vectors: &[(VecRow, Vec<u8>)]) -> Result<()> {
        vectors
            .iter()
            .try_for_each(|(row, vector)| self.put_vector(*row, vector))
    }

    fn put_vector(&self, row: VecRow, vector: &[u8]) -> Result<()> {
        let (kind, key) = (row.kind(), row.key());
        let t = kind.vec_table();
        self.conn
            .prepare_cached(&format!("DELETE FROM {t} WHERE rowid = ?1"))?
            .execute([key])?;
        self.conn
            .prepare_cached(&format!(
                "INSERT INTO {t} (rowid, embedding) VALUES (?1, ?2)"
            ))?
            .execute(params![key, vector])?;
        if self.has_codes()? {
            self.put_code(kind, key, vector)?;
        }
        Ok(())
    }

    /// The stored vector of a row as it is stored (little-endian f32), if
    /// it was made from the row's current text.
    fn vector_bytes(&self, row: VecRow) -> Result<Option<Vec<u8>>> {
        let (kind, key) = (row.kind(), row.key());
        if self.vector_space()?.is_none() {
            return Ok(None);
        }
        let sql = format!(
            "SELECT v.embedding FROM {v} v JOIN {r} r ON r.{k} = v.rowid WHERE v.rowid = ?1 AND r.embedded IS NOT NULL",
            v = kind.vec_table(),
            r = kind.row_table(),
            k = kind.key()
        );
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row([key], |r| r.get::<_, Vec<u8>>(0))
            .optional()?)
    }

    /// The stored vector of a row.
    fn vector(&self, row: VecRow) -> Result<Option<Vec<f32>>> {
        let (kind, key) = (row.kind(), row.key());
        if self.vector_space()?.is_none() {
            return Ok(None);
        }
        let sql = format!(
            "SELECT embedding FROM {} WHERE rowid = ?1",
            kind.vec_table()
        );
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row([key], |r| r.get::<_, Vec<u8>>(0))
            .optional()?
            .map(|b| from_bytes(&b)))
    }

    /// The `k` nearest rows of a kind by cosine distance, from the int8
    /// codes (similarities exact to about three decimals).
    fn nearest(&self, kind: VecKind, dims: usize, query: &[f32], k: usize) -> Result<Nearest> {
        if !self.has_codes()? {
            return self.nearest_exact(kind, query, k);
        }
        if let Some(found) = self.nearest_by_graph(kind, dims, query, k)? {
            return Ok(found);
        }
        if let Some(found) = self.nearest_by_signs(kind, dims, query, k)? {
            return Ok(found);
        }
        Ok(self.codes(kind, dims)?.nearest(query, k))
    }

    fn note_distances(&self, query: &[f32], rids: &[NoteRid]) -> Result<Vec<(NoteRid, f64)>> {
        let keys: Vec<i64> = rids.iter().map(|r| r.0).collect();
        Ok(self
            .nearest_among(VecKind::Note, query, &keys, keys.len())?
            .into_iter()
            .map(|(key, d)| (NoteRid(key), d))
            .collect())
    }

    /// Cosine distances to the notes passing `filter`, nearest first.
    fn nearest_passing(&self, query: &[f32], filter: &NoteFilter, k: usize) -> Result<Nearest> {
        let rids = self.rids_passing(filter)?;
        self.nearest_among(VecKind::Note, query, &rids, k)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::embedded::Embedded;
    use crate::sqlite::SqliteStore as Store;
    use crate::store::test_note;
    use keep_model::time::Timestamp;

    pub(in crate::sqlite) const DIMS: usize = 16;

    /// A unit vector pointing mostly along axis `i`, a little along `j`.
    pub(in crate::sqlite) fn vector(i: usize, j: usize, lean: f32) -> Vec<f32> {
        let mut v = [-0.05f32; DIMS];
        v[i] = 1.0;
        v[j] += lean;
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / norm).collect()
    }

    /// A store with one note per vector, rids 1, 2, ... in order.
    pub(in crate::sqlite) fn store_with(vectors: &[Vec<f32>]) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        store
            .write(|db| {
                db.create_vector_space(&VectorSpace {
                    model: "test".into(),
                    dims: DIMS,
                })?;
                for (i, v) in vectors.iter().enumerate() {
                    let at = Timestamp::from_millis(0);
                    let summary = format!("note {i}");
                    let note = test_note(&format!("n{i}"), &summary, at);
                    let rid = db.insert_note(&note)?;
                    assert!(db.set_vector(VecRow::Note(rid), &summary, "h", &to_bytes(v))?);
                }
                Ok(())
            })
            .unwrap();
        (dir, store)
    }

    fn sample() -> Vec<Vec<f32>> {
        (0..60)
            .map(|n| vector(n % DIMS, (n * 7 + 3) % DIMS, (n % 5) as f32 / 4.0))
            .collect()
    }

    /// `found` holds true nearest rows (up to ties within the code
    /// precision) with distances close to the exact ones.
    fn assert_near_exact(db: &SqliteDb<'_>, q: &[f32], found: &[(i64, f64)], k: usize) {
        let all = db.nearest_exact(VecKind::Note, q, 1000).unwrap();
        assert_eq!(found.len(), k.min(all.len()));
        let kth = all[found.len() - 1].1;
        for (key, d) in found {
            let exact = all.iter().find(|(k, _)| k == key).unwrap().1;
            assert!((d - exact).abs() < 2e-3, "{key}: {d} vs {exact}");
            assert!(exact <= kth + 2e-3, "{key} is not among the nearest");
        }
    }

    #[test]
    fn code_search_ranks_like_the_exact_one() {
        let vectors = sample();
        let (_dir, store) = store_with(&vectors);
        let db = store.db();
        assert!(db.has_codes().unwrap());
        for q in [vector(3, 9, 0.5), vector(0, 1, 0.0), vector(15, 2, 1.0)] {
            let found = db.nearest_rows(VecKind::Note, &q, 5).unwrap();
            assert_near_exact(&db, &q, &found, 5);
        }
    }

    #[test]
    fn codes_follow_deletes_and_changed_summaries() {
        let vectors = sample();
        let (_dir, mut store) = store_with(&vectors);
        let q = vectors[10].clone();
        let best = store.db().nearest_rows(VecKind::Note, &q, 1).unwrap()[0].0;
        store
            .write(|db| {
                db.conn.execute(
                    "UPDATE notes SET summary = 'changed' WHERE rid = ?1",
                    [best],
                )?;
                Ok(())
            })
            .unwrap();
        let count = |store: &Store, table: &str| -> i64 {
            store
                .db()
                .conn
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(count(&store, "codes_notes"), 59);
        assert_ne!(
            store.db().nearest_rows(VecKind::Note, &q, 1).unwrap()[0].0,
            best
        );
        store
            .write(|db| {
                db.conn.execute("DELETE FROM notes WHERE rid <= 5", [])?;
                Ok(())
            })
            .unwrap();
        assert_eq!(count(&store, "codes_notes"), count(&store, "vec_notes"));
    }

    #[test]
    fn a_store_without_codes_is_upgraded() {
        let vectors = sample();
        let (_dir, mut store) = store_with(&vectors);
        store
            .write(|db| {
                db.conn.execute_batch(
                    "DROP TABLE codes_notes; DROP TABLE codes_versions; DROP TABLE codes_parts;
                     DELETE FROM meta WHERE key = 'vector_codes';",
                )?;
                db.create_vector_triggers()
            })
            .unwrap();
        let q = vector(4, 5, 0.3);
        let exact = store.db().nearest_exact(VecKind::Note, &q, 3).unwrap();
        assert!(store.db().codes_missing().unwrap());
        assert_eq!(
            store.db().nearest_rows(VecKind::Note, &q, 3).unwrap(),
            exact
        );
        store.write(|db| db.create_codes()).unwrap();
        assert!(!store.db().codes_missing().unwrap());
        let found = store.db().nearest_rows(VecKind::Note, &q, 3).unwrap();
        assert_near_exact(&store.db(), &q, &found, 3);
        let gone = found[0].0;
        store
            .write(|db| {
                db.conn
                    .execute("DELETE FROM notes WHERE rid = ?1", [gone])?;
                Ok(())
            })
            .unwrap();
        let found = store.db().nearest_rows(VecKind::Note, &q, 3).unwrap();
        assert!(found.iter().all(|(key, _)| *key != gone));
        assert_near_exact(&store.db(), &q, &found, 3);
    }

    #[test]
    fn after_a_write_only_the_changed_codes_are_read_again() {
        let vectors = sample();
        let (_dir, mut store) = store_with(&vectors);
        let q = vectors[20].clone();
        let best = store.db().nearest_rows(VecKind::Note, &q, 1).unwrap()[0].0;
        assert_eq!(store.db().full_code_reads(VecKind::Note), 1);
        let new = store
            .write(|db| {
                db.conn.execute(
                    "UPDATE notes SET summary = 'changed' WHERE rid = ?1",
                    [best],
                )?;
                db.conn.execute("DELETE FROM notes WHERE rid = 3", [])?;
                let note = test_note("new", "new", Timestamp::from_millis(0));
                let rid = db.insert_note(&note)?;
                assert!(db.set_vector(VecRow::Note(rid), "new", "h", &to_bytes(&q))?);
                Ok(rid)
            })
            .unwrap();
        let found = store.db().nearest_rows(VecKind::Note, &q, 5).unwrap();
        assert_eq!(
            store.db().full_code_reads(VecKind::Note),
            1,
            "read from the log"
        );
        assert_eq!(found[0].0, new.0);
        assert!(found.iter().all(|(key, _)| *key != best && *key != 3));
        assert_near_exact(&store.db(), &q, &found, 5);
        // A log pruned past the codes in memory (one change logged, then
        // dropped, then another): all of them are read again.
        store
            .write(|db| {
                db.conn.execute("DELETE FROM notes WHERE rid = 7", [])?;
                db.conn.execute("DELETE FROM codes_notes_changes", [])?;
                db.conn.execute("DELETE FROM notes WHERE rid = 8", [])?;
                Ok(())
            })
            .unwrap();
        let found = store.db().nearest_rows(VecKind::Note, &q, 5).unwrap();
        assert_eq!(store.db().full_code_reads(VecKind::Note), 2);
        assert!(found.iter().all(|(key, _)| *key != 7 && *key != 8));
        assert_near_exact(&store.db(), &q, &found, 5);
    }

    #[test]
    fn codes_of_an_older_keep_are_kept_and_get_their_logs() {
        let vectors = sample();
        let (_dir, mut store) = store_with(&vectors);
        store
            .write(|db| {
                db.conn.execute_batch(
                    "DROP TABLE codes_notes_changes; DROP TABLE codes_versions_changes;
                     DROP TABLE codes_parts_changes; DROP TRIGGER codes_notes_insert;
                     UPDATE meta SET value = 'int8' WHERE key = 'vector_codes';
                     UPDATE codes_notes SET scale = 42.0 WHERE key = 1;",
                )?;
                Ok(())
            })
            .unwrap();
        assert!(store.db().codes_missing().unwrap());
        store.write(|db| db.create_codes()).unwrap();
        assert!(!store.db().codes_missing().unwrap());
        let scale: f64 = store
            .db()
            .conn
            .query_row("SELECT scale FROM codes_notes WHERE key = 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(scale, 42.0, "the codes were kept, not made again");
        store
            .write(|db| {
                db.conn.execute("DELETE FROM notes WHERE rid = 2", [])?;
                Ok(())
            })
            .unwrap();
        let logged: i64 = store
            .db()
            .conn
            .query_row(
                "SELECT count(*) FROM codes_notes_changes WHERE key = 2",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(logged, 1);
    }
}
