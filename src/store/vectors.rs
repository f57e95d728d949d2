//! Vectors in sqlite-vec: one `vec0` table (cosine) per kind of row (current
//! notes, archived versions, parts), keyed by that row's integer key. The
//! tables are created when a model is first used, since the dimension comes
//! from the model; the store records which model made them.

use rusqlite::{OptionalExtension, params};

use super::Db;
use crate::error::Result;

const MODEL_KEY: &str = "vector_model";
const DIMS_KEY: &str = "vector_dims";

/// The kinds of rows that carry vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VecKind {
    Note,
    Version,
    Part,
}

impl VecKind {
    pub const ALL: [VecKind; 3] = [VecKind::Note, VecKind::Version, VecKind::Part];

    fn vec_table(self) -> &'static str {
        match self {
            VecKind::Note => "vec_notes",
            VecKind::Version => "vec_versions",
            VecKind::Part => "vec_parts",
        }
    }

    fn row_table(self) -> &'static str {
        match self {
            VecKind::Note => "notes",
            VecKind::Version => "versions",
            VecKind::Part => "parts",
        }
    }

    fn key(self) -> &'static str {
        match self {
            VecKind::Note => "rid",
            VecKind::Version => "vid",
            VecKind::Part => "pid",
        }
    }
}

/// A row waiting for its embedding.
#[derive(Debug, Clone)]
pub struct PendingText {
    pub kind: VecKind,
    pub key: i64,
    pub text: String,
}

/// The model and dimension that made the stored vectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorSpace {
    pub model: String,
    pub dims: usize,
}

pub fn to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn from_bytes(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

impl Db<'_> {
    pub fn vector_space(&self) -> Result<Option<VectorSpace>> {
        let (Some(model), Some(dims)) = (self.meta(MODEL_KEY)?, self.meta(DIMS_KEY)?) else {
            return Ok(None);
        };
        Ok(dims.parse().ok().map(|dims| VectorSpace { model, dims }))
    }

    /// Creates the vector tables and the triggers that keep them in step.
    pub fn create_vector_space(&self, space: &VectorSpace) -> Result<()> {
        let dims = space.dims;
        let mut sql = String::new();
        for kind in VecKind::ALL {
            sql.push_str(&format!(
                "CREATE VIRTUAL TABLE IF NOT EXISTS {} USING vec0(embedding float[{dims}] distance_metric=cosine);\n",
                kind.vec_table()
            ));
            sql.push_str(&format!(
                "CREATE TRIGGER IF NOT EXISTS {t}_delete AFTER DELETE ON {r} BEGIN
                     DELETE FROM {t} WHERE rowid = old.{k};
                 END;\n",
                t = kind.vec_table(),
                r = kind.row_table(),
                k = kind.key()
            ));
        }
        sql.push_str(
            "CREATE TRIGGER IF NOT EXISTS vec_notes_stale AFTER UPDATE OF summary ON notes
                 WHEN old.summary IS NOT new.summary BEGIN
                 DELETE FROM vec_notes WHERE rowid = old.rid;
                 UPDATE notes SET embedded = NULL WHERE rid = old.rid;
             END;",
        );
        self.conn.execute_batch(&sql)?;
        self.set_meta(MODEL_KEY, &space.model)?;
        self.set_meta(DIMS_KEY, &dims.to_string())?;
        Ok(())
    }

    /// Drops every vector; all rows wait for embeddings again.
    pub fn drop_vector_space(&self) -> Result<()> {
        let mut sql = String::from("DROP TRIGGER IF EXISTS vec_notes_stale;\n");
        for kind in VecKind::ALL {
            sql.push_str(&format!(
                "DROP TRIGGER IF EXISTS {t}_delete; DROP TABLE IF EXISTS {t};
                 UPDATE {r} SET embedded = NULL;\n",
                t = kind.vec_table(),
                r = kind.row_table()
            ));
        }
        sql.push_str(&format!(
            "DELETE FROM meta WHERE key IN ('{MODEL_KEY}', '{DIMS_KEY}');"
        ));
        self.conn.execute_batch(&sql)?;
        Ok(())
    }

    /// Rows with text and no vector, notes first.
    pub fn pending_texts(&self, limit: usize) -> Result<Vec<PendingText>> {
        let mut out = Vec::new();
        for kind in VecKind::ALL {
            if out.len() >= limit {
                break;
            }
            let sql = format!(
                "SELECT {k}, summary FROM {r} WHERE embedded IS NULL AND summary <> '' ORDER BY {k} LIMIT ?1",
                k = kind.key(),
                r = kind.row_table()
            );
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let rows = stmt.query_map([(limit - out.len()) as i64], |r| {
                Ok(PendingText {
                    kind,
                    key: r.get(0)?,
                    text: r.get(1)?,
                })
            })?;
            for row in rows {
                out.push(row?);
            }
        }
        Ok(out)
    }

    pub fn count_pending(&self) -> Result<i64> {
        let mut total = 0;
        for kind in VecKind::ALL {
            let sql = format!(
                "SELECT count(*) FROM {} WHERE embedded IS NULL AND summary <> ''",
                kind.row_table()
            );
            total += self.conn.query_row(&sql, [], |r| r.get::<_, i64>(0))?;
        }
        Ok(total)
    }

    /// A stored vector made from the text with this hash, if any row has one.
    pub fn donor_vector(&self, hash: &str) -> Result<Option<Vec<u8>>> {
        for kind in VecKind::ALL {
            let sql = format!(
                "SELECT v.embedding FROM {r} x JOIN {t} v ON v.rowid = x.{k}
                 WHERE x.embedded = ?1 LIMIT 1",
                r = kind.row_table(),
                t = kind.vec_table(),
                k = kind.key()
            );
            let found = self
                .conn
                .prepare_cached(&sql)?
                .query_row([hash], |r| r.get::<_, Vec<u8>>(0))
                .optional()?;
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }

    /// Stores the vector of a row if its text is still `text`; returns
    /// whether it was stored.
    pub fn set_vector(
        &self,
        kind: VecKind,
        key: i64,
        text: &str,
        hash: &str,
        vector: &[u8],
    ) -> Result<bool> {
        let sql = format!(
            "UPDATE {r} SET embedded = ?2 WHERE {k} = ?1 AND summary = ?3",
            r = kind.row_table(),
            k = kind.key()
        );
        let changed = self
            .conn
            .prepare_cached(&sql)?
            .execute(params![key, hash, text])?;
        if changed == 0 {
            return Ok(false);
        }
        self.put_vector(kind, key, vector)?;
        Ok(true)
    }

    fn put_vector(&self, kind: VecKind, key: i64, vector: &[u8]) -> Result<()> {
        let t = kind.vec_table();
        self.conn
            .prepare_cached(&format!("DELETE FROM {t} WHERE rowid = ?1"))?
            .execute([key])?;
        self.conn
            .prepare_cached(&format!(
                "INSERT INTO {t} (rowid, embedding) VALUES (?1, ?2)"
            ))?
            .execute(params![key, vector])?;
        Ok(())
    }

    /// The stored vector of a row.
    pub fn vector(&self, kind: VecKind, key: i64) -> Result<Option<Vec<f32>>> {
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

    /// Copies a row's vector to another row (archiving or restoring a
    /// version); the target then counts as embedded from the same text.
    pub fn copy_vector(&self, from: (VecKind, i64), to: (VecKind, i64)) -> Result<()> {
        if self.vector_space()?.is_none() {
            return Ok(());
        }
        let hash_sql = format!(
            "SELECT embedded FROM {} WHERE {} = ?1",
            from.0.row_table(),
            from.0.key()
        );
        let hash: Option<String> = self
            .conn
            .prepare_cached(&hash_sql)?
            .query_row([from.1], |r| r.get(0))
            .optional()?
            .flatten();
        let vector_sql = format!(
            "SELECT embedding FROM {} WHERE rowid = ?1",
            from.0.vec_table()
        );
        let vector: Option<Vec<u8>> = self
            .conn
            .prepare_cached(&vector_sql)?
            .query_row([from.1], |r| r.get(0))
            .optional()?;
        if let (Some(hash), Some(vector)) = (hash, vector) {
            let sql = format!(
                "UPDATE {} SET embedded = ?2 WHERE {} = ?1",
                to.0.row_table(),
                to.0.key()
            );
            self.conn
                .prepare_cached(&sql)?
                .execute(params![to.1, hash])?;
            self.put_vector(to.0, to.1, &vector)?;
        }
        Ok(())
    }

    /// The `k` nearest rows of a kind by cosine distance.
    pub fn nearest(&self, kind: VecKind, query: &[f32], k: usize) -> Result<Vec<(i64, f64)>> {
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

    /// The note rid that owns a version or part row.
    pub fn owner_rid(&self, kind: VecKind, key: i64) -> Result<Option<(i64, i64)>> {
        let sql = match kind {
            VecKind::Note => return Ok(Some((key, 0))),
            VecKind::Version => "SELECT note, seq FROM versions WHERE vid = ?1",
            VecKind::Part => "SELECT note, number FROM parts WHERE pid = ?1",
        };
        Ok(self
            .conn
            .prepare_cached(sql)?
            .query_row([key], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?)
    }
}
