//! Which text a row's vector was made from, written once over each
//! database's own storage of the vectors (`Backend::put_vector`,
//! `Backend::vector_bytes`): storing a vector only while its text is
//! unchanged, reusing a vector made from the same text, and carrying a
//! vector to another row; and the nearest notes, parts and versions over
//! each database's own nearest-neighbour search (`Backend::nearest`).

use std::collections::HashMap;

use super::backend::Backend;
use super::plain::{Cell, Query, cells};
use super::vectors::{Nearest, VecKind, VecRow};
use crate::error::Result;
use crate::ids::{NoteRid, PartRid, VersionRid};
use crate::tables::{History, Meta};
use keep_model::NoteFilter;

/// Rows of one kind that hold a vector made from the text with `hash`,
/// looked at for a donor.
const DONORS_TRIED: i64 = 4;

/// A part's vector kept while its note's parts are replaced.
#[derive(Debug, Clone)]
pub struct CarriedVector {
    text: String,
    hash: String,
    vector: Vec<u8>,
}

/// Vector writes every database makes alike.
pub trait Embedded: Backend {
    /// Stores the vector of a row if its text is still `text`; returns
    /// whether it was stored.
    fn set_vector(&self, row: VecRow, text: &str, hash: &str, vector: &[u8]) -> Result<bool> {
        let kind = row.kind();
        let sql = format!(
            "UPDATE {} SET embedded = ?2 WHERE {} = ?1 AND summary = ?3",
            kind.row_table(),
            kind.key()
        );
        if self.execute(&sql, &[row.key().into(), hash.into(), text.into()])? == 0 {
            return Ok(false);
        }
        self.put_vector(row, vector)?;
        Ok(true)
    }

    /// A stored vector made from the text with this hash, if any row has one.
    fn donor_vector(&self, hash: &str) -> Result<Option<Vec<u8>>> {
        for kind in VecKind::ALL {
            let sql = format!(
                "SELECT {k} FROM {r} WHERE embedded = ?1 LIMIT {DONORS_TRIED}",
                r = kind.row_table(),
                k = kind.key()
            );
            for row in self.query(&sql, &[hash.into()])? {
                if let Some(vector) = self.vector_bytes(VecRow::of(kind, row[0].int()?))? {
                    return Ok(Some(vector));
                }
            }
        }
        Ok(None)
    }

    /// Copies a row's vector to another row (archiving or restoring a
    /// version); the target then counts as embedded from the same text.
    fn copy_vector(&self, from: VecRow, to: VecRow) -> Result<()> {
        let Some(vector) = self.vector_bytes(from)? else {
            return Ok(());
        };
        let hash_sql = format!(
            "SELECT embedded FROM {} WHERE {} = ?1",
            from.kind().row_table(),
            from.kind().key()
        );
        let Some(hash) = self.query(&hash_sql, &[from.key().into()])?.pop() else {
            return Ok(());
        };
        let Cell::Text(hash) = &hash[0] else {
            return Ok(());
        };
        let sql = format!(
            "UPDATE {} SET embedded = ?2 WHERE {} = ?1",
            to.kind().row_table(),
            to.kind().key()
        );
        self.execute(&sql, &[to.key().into(), hash.as_str().into()])?;
        self.put_vector(to, &vector)
    }

    /// The vectors of a note's parts, each with its text and the hash of
    /// the text it was made from, to carry over when the parts are
    /// replaced (`restore_part_vectors`).
    fn part_vectors(&self, rid: NoteRid) -> Result<Vec<CarriedVector>> {
        let rows = self.query(
            "SELECT pid, summary, embedded FROM parts WHERE note = ?1 AND embedded IS NOT NULL",
            &[rid.0.into()],
        )?;
        let mut carried = Vec::with_capacity(rows.len());
        for row in rows {
            let [pid, text, hash] = cells(&row)?;
            if let Some(vector) = self.vector_bytes(VecRow::Part(PartRid(pid.int()?)))? {
                carried.push(CarriedVector {
                    text: text.text()?,
                    hash: hash.text()?,
                    vector,
                });
            }
        }
        Ok(carried)
    }

    /// Gives each part of note `rid` whose text is one of `carried` that
    /// text's vector again (a longer conversation, a document edited in
    /// one place: the parts that stayed are not embedded again). Returns
    /// how many.
    fn restore_part_vectors(&self, rid: NoteRid, carried: &[CarriedVector]) -> Result<usize> {
        if carried.is_empty() {
            return Ok(0);
        }
        let by_text: HashMap<&str, &CarriedVector> =
            carried.iter().map(|c| (c.text.as_str(), c)).collect();
        let rows = self.query(
            "SELECT pid, summary FROM parts WHERE note = ?1",
            &[rid.0.into()],
        )?;
        let mut restored = 0;
        for row in rows {
            let [pid, text] = cells(&row)?;
            let text = text.text()?;
            if let Some(c) = by_text.get(text.as_str()) {
                let row = VecRow::Part(PartRid(pid.int()?));
                if self.set_vector(row, &text, &c.hash, &c.vector)? {
                    restored += 1;
                }
            }
        }
        Ok(restored)
    }

    /// The `k` rows of a kind nearest `query`: (row key, cosine distance).
    fn nearest_rows(&self, kind: VecKind, query: &[f32], k: usize) -> Result<Nearest> {
        if k == 0 {
            return Ok(Vec::new());
        }
        match self.vector_space()? {
            Some(space) => self.nearest(kind, space.dims, query, k),
            None => Ok(Vec::new()),
        }
    }

    /// The nearest notes: (note, cosine distance).
    fn nearest_notes(&self, query: &[f32], k: usize) -> Result<Vec<(NoteRid, f64)>> {
        Ok(self
            .nearest_rows(VecKind::Note, query, k)?
            .into_iter()
            .map(|(key, d)| (NoteRid(key), d))
            .collect())
    }

    /// Cosine distances to the notes passing `filter`, nearest first.
    fn nearest_filtered(
        &self,
        query: &[f32],
        filter: &NoteFilter,
        k: usize,
    ) -> Result<Vec<(NoteRid, f64)>> {
        if self.vector_space()?.is_none() {
            return Ok(Vec::new());
        }
        Ok(self
            .nearest_passing(query, filter, k)?
            .into_iter()
            .map(|(key, d)| (NoteRid(key), d))
            .collect())
    }

    /// The nearest parts: (owning note, part number, cosine distance).
    fn nearest_parts(&self, query: &[f32], k: usize) -> Result<Vec<(NoteRid, i64, f64)>> {
        let nearest = self.nearest_rows(VecKind::Part, query, k)?;
        if nearest.is_empty() {
            return Ok(Vec::new());
        }
        let mut q = Query::new("SELECT pid, note, number FROM parts WHERE ");
        let list = q.arg(nearest.iter().map(|(pid, _)| *pid).collect::<Vec<_>>());
        q.push(&self.dialect().among("pid", &list));
        let mut owner = HashMap::new();
        for r in self.rows_of(&q)? {
            let [pid, note, number] = cells(&r)?;
            owner.insert(pid.int()?, (NoteRid(note.int()?), number.int()?));
        }
        Ok(nearest
            .into_iter()
            .filter_map(|(pid, d)| owner.get(&pid).map(|&(rid, n)| (rid, n, d)))
            .collect())
    }

    /// The nearest archived versions: (owning note, version offset with 1
    /// the previous version, cosine distance).
    fn nearest_versions(&self, query: &[f32], k: usize) -> Result<Vec<(NoteRid, i64, f64)>> {
        let mut out = Vec::new();
        for (vid, distance) in self.nearest_rows(VecKind::Version, query, k)? {
            if let Some((rid, offset)) = self.version_offset(VersionRid(vid))? {
                out.push((rid, offset, distance));
            }
        }
        Ok(out)
    }
}

impl<T: Backend + ?Sized> Embedded for T {}
