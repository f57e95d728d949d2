//! The signs of a kind's codes: one bit a dimension of each code, set
//! when the vector lies above the mean of all of them there, in a file
//! beside the database. It is written in seconds before a graph is built
//! whole, and searched while the graph is missing: the bits of every row
//! (48 bytes at 384 dimensions, an eighth of the codes) are compared with
//! the query's, and the closest few thousand scored again from their
//! codes. Without it, a search during a first build at a million vectors
//! reads and scores all 384 MB of codes.
//!
//! The file (little-endian): `keepsig1`, the dimensions and the rows (two
//! u64), the mean (one f32 a dimension, padded to eight bytes), the rows'
//! keys (i64, ascending), then each row's bits (u64 words).

use crate::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use memmap2::Mmap;

use super::graph::{GraphMeta, Opened};
use super::{SqliteDb, SqliteStore, quant};
use crate::error::{Error, Result};
use crate::vectors::VecKind;

const MAGIC: &[u8; 8] = b"keepsig1";
const HEADER: usize = 24;

/// Rows whose bits come closest to the query's, scored again from their
/// codes: one in this many rows...
const CANDIDATE_SHARE: usize = 250;
/// ...between these bounds (measured at a million notes of the scale
/// bench: 4,000 candidates hold 0.99 of the true ten nearest, 2,000 hold
/// 0.984).
const CANDIDATES_MIN: usize = 1_000;
const CANDIDATES_MAX: usize = 8_000;

fn words_of(dims: usize) -> usize {
    dims.div_ceil(64)
}

fn mean_bytes(dims: usize) -> usize {
    (dims * 4).next_multiple_of(8)
}

/// The bits of `v` against `mean`: bit `i` set when `v[i]` is above it.
fn sign_bits(v: impl Iterator<Item = f32>, mean: &[f32], out: &mut [u64]) {
    out.fill(0);
    for (i, (x, m)) in v.zip(mean).enumerate() {
        if x > *m {
            out[i / 64] |= 1 << (i % 64);
        }
    }
}

/// A signs file, mapped.
pub(super) struct Signs {
    map: Mmap,
    dims: usize,
    rows: usize,
}

impl Signs {
    /// The signs saved at `path`, if it is a whole file of `dims`
    /// dimensions.
    pub(super) fn open(path: &Path, dims: usize) -> Option<Signs> {
        if cfg!(target_endian = "big") {
            return None;
        }
        let file = File::open(path).ok()?;
        // SAFETY: signs files are written whole under another name and
        // renamed into place, never changed after; a file removed while
        // mapped stays readable.
        let map = unsafe { Mmap::map(&file) }.ok()?;
        let word = |at: usize| -> Option<usize> {
            Some(u64::from_le_bytes(map.get(at..at + 8)?.try_into().ok()?) as usize)
        };
        if map.get(..8)? != MAGIC || word(8)? != dims {
            return None;
        }
        let rows = word(16)?;
        let size = HEADER + mean_bytes(dims) + rows.checked_mul(8 * (1 + words_of(dims)))?;
        let signs = Signs { map, dims, rows };
        (signs.map.len() == size
            && signs.mean().len() == dims
            && signs.keys().len() == rows
            && signs.bits().len() == rows * words_of(dims))
        .then_some(signs)
    }

    /// The part of the file at `at`, `len` values of `T` long; empty when
    /// it is not aligned for them (never, the mapping starting a page).
    fn slice<T: Copy>(&self, at: usize, len: usize) -> &[T] {
        let bytes = &self.map[at..at + len * std::mem::size_of::<T>()];
        // SAFETY: T is f32, i64 or u64, for which every bit pattern is a
        // value; `align_to` leaves what is not aligned in the prefix.
        let (prefix, values, _) = unsafe { bytes.align_to::<T>() };
        if prefix.is_empty() { values } else { &[] }
    }

    fn mean(&self) -> &[f32] {
        self.slice(HEADER, self.dims)
    }

    fn keys(&self) -> &[i64] {
        self.slice(HEADER + mean_bytes(self.dims), self.rows)
    }

    fn bits(&self) -> &[u64] {
        let at = HEADER + mean_bytes(self.dims) + self.rows * 8;
        self.slice(at, self.rows * words_of(self.dims))
    }

    pub(super) fn rows(&self) -> usize {
        self.rows
    }

    /// The keys of the `wanted` rows whose bits differ least from the
    /// query's.
    pub(super) fn closest(&self, query: &[f32], wanted: usize) -> Vec<i64> {
        let unit = quant::unit_vector(query);
        let mut bits = vec![0u64; words_of(self.dims)];
        sign_bits(unit.into_iter(), self.mean(), &mut bits);
        let distances = hamming_distances(self.bits(), &bits);
        let keys = self.keys();
        fewest(&distances, self.dims, wanted)
            .into_iter()
            .map(|i| keys[i])
            .collect()
    }
}

/// How many bits of each row differ from `query`'s.
#[inline(always)]
fn hamming_portable(bits: &[u64], query: &[u64], out: &mut [u16]) {
    for (row, d) in bits.chunks_exact(query.len()).zip(out) {
        *d = row
            .iter()
            .zip(query)
            .map(|(a, b)| (a ^ b).count_ones() as u16)
            .sum();
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn hamming_popcnt(bits: &[u64], query: &[u64], out: &mut [u16]) {
    hamming_portable(bits, query, out);
}

/// The same loop, compiled with the processor's bit count when it has one.
fn hamming_distances(bits: &[u64], query: &[u64]) -> Vec<u16> {
    let mut out = vec![0u16; bits.len() / query.len().max(1)];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the processor has POPCNT, checked just above.
        unsafe { hamming_popcnt(bits, query, &mut out) };
        return out;
    }
    hamming_portable(bits, query, &mut out);
    out
}

/// The positions of the `wanted` smallest distances (each at most
/// `dims`), in one pass to count them and one to pick them.
fn fewest(distances: &[u16], dims: usize, wanted: usize) -> Vec<usize> {
    let mut counts = vec![0usize; dims + 1];
    for &d in distances {
        counts[usize::from(d).min(dims)] += 1;
    }
    let (mut below, mut edge) = (0, dims);
    for (d, &n) in counts.iter().enumerate() {
        if below + n >= wanted {
            edge = d;
            break;
        }
        below += n;
    }
    let mut at_edge = wanted.saturating_sub(below);
    let mut picked = Vec::with_capacity(wanted.min(distances.len()));
    for (i, &d) in distances.iter().enumerate() {
        let d = usize::from(d);
        if d < edge {
            picked.push(i);
        } else if d == edge && at_edge > 0 {
            picked.push(i);
            at_edge -= 1;
        }
    }
    picked
}

/// Writes a signs file to `path`: under another name first, renamed into
/// place once synced.
fn save(path: &Path, dims: usize, mean: &[f32], keys: &[i64], bits: &[u64]) -> Result<()> {
    let partial = path.with_extension("signs.partial");
    let write = || -> std::io::Result<()> {
        let file = File::create(&partial)?;
        let mut out = BufWriter::new(&file);
        out.write_all(MAGIC)?;
        out.write_all(&(dims as u64).to_le_bytes())?;
        out.write_all(&(keys.len() as u64).to_le_bytes())?;
        for m in mean {
            out.write_all(&m.to_le_bytes())?;
        }
        out.write_all(&vec![0u8; mean_bytes(dims) - dims * 4])?;
        for key in keys {
            out.write_all(&key.to_le_bytes())?;
        }
        for word in bits {
            out.write_all(&word.to_le_bytes())?;
        }
        out.flush()?;
        drop(out);
        file.sync_all()
    };
    write().map_err(|e| Error::io(&partial, e))?;
    std::fs::rename(&partial, path).map_err(|e| Error::io(path, e))
}

fn open_signs() -> std::sync::MutexGuard<'static, Opened<Signs>> {
    static SIGNS: OnceLock<Mutex<Opened<Signs>>> = OnceLock::new();
    SIGNS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// The meta key naming the signs file of a kind.
pub(super) fn meta_key(kind: VecKind) -> String {
    format!("signs_{}", kind.code_table())
}

/// The name of the signs file of a kind as of a change: beside its
/// graphs, and removed with them when a graph is saved.
pub(super) fn file_name(kind: VecKind, generation: i64, change: i64) -> String {
    format!("graph-{}-{generation}-{change}.signs", kind.code_table())
}

impl SqliteDb<'_> {
    /// The mean of every code of a kind, as unit vectors.
    fn code_mean(&self, kind: VecKind, dims: usize) -> Result<(Vec<f32>, usize)> {
        let mut sum = vec![0f64; dims];
        let mut rows = 0usize;
        self.each_code(kind, dims, |_, scale, code| {
            for (s, &c) in sum.iter_mut().zip(code) {
                *s += f64::from(c as i8) * f64::from(scale);
            }
            rows += 1;
        })?;
        let mean = sum
            .iter()
            .map(|s| (s / rows.max(1) as f64) as f32)
            .collect();
        Ok((mean, rows))
    }

    /// Each code of a kind of `dims` bytes, by ascending key.
    fn each_code(
        &self,
        kind: VecKind,
        dims: usize,
        mut each: impl FnMut(i64, f32, &[u8]),
    ) -> Result<()> {
        let sql = format!(
            "SELECT key, scale, code FROM {} ORDER BY key",
            kind.code_table()
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let code = row.get_ref(2)?.as_blob().map_err(rusqlite::Error::from)?;
            if code.len() == dims {
                let scale: f64 = row.get(1)?;
                each(row.get(0)?, scale as f32, code);
            }
        }
        Ok(())
    }

    /// Writes the signs of every code of a kind to `path` (under another
    /// name first, renamed into place once synced); the rows written.
    fn write_signs(&self, kind: VecKind, dims: usize, path: &Path) -> Result<usize> {
        let (mean, rows) = self.code_mean(kind, dims)?;
        let words = words_of(dims);
        let mut keys = Vec::with_capacity(rows);
        let mut bits = Vec::with_capacity(rows * words);
        let mut row_bits = vec![0u64; words];
        let mut unit = vec![0f32; dims];
        self.each_code(kind, dims, |key, scale, code| {
            for (u, &c) in unit.iter_mut().zip(code) {
                *u = f32::from(c as i8) * scale;
            }
            sign_bits(unit.iter().copied(), &mean, &mut row_bits);
            keys.push(key);
            bits.extend_from_slice(&row_bits);
        })?;
        save(path, dims, &mean, &keys, &bits)?;
        Ok(keys.len())
    }

    /// The signs file of a kind, if one of this generation is recorded.
    pub(super) fn signs_meta(&self, kind: VecKind) -> Result<Option<GraphMeta>> {
        self.index_meta(&meta_key(kind))
    }

    /// The signs of a kind as the meta row names them, opened once per
    /// process (mapped, not read).
    fn open_signs(&self, kind: VecKind, meta: &GraphMeta, dims: usize) -> Option<Arc<Signs>> {
        self.opened(&mut open_signs(), kind, meta, |path| {
            Signs::open(path, dims)
        })
    }

    /// The rows of the signs of a kind, when a search would use them.
    pub(super) fn usable_signs(&self, kind: VecKind) -> Result<Option<usize>> {
        let Some(space) = self.vector_space()? else {
            return Ok(None);
        };
        let found = self.searchable(kind, self.signs_meta(kind)?, |meta| {
            self.open_signs(kind, meta, space.dims)
        })?;
        Ok(found.map(|(signs, _)| signs.rows()))
    }

    /// The `k` nearest rows of a kind through its signs, or None when it
    /// has none that are usable (the caller then scans every code).
    pub(super) fn nearest_by_signs(
        &self,
        kind: VecKind,
        dims: usize,
        query: &[f32],
        k: usize,
    ) -> Result<Option<Vec<(i64, f64)>>> {
        let meta = self.signs_meta(kind)?;
        let Some((signs, changed)) =
            self.searchable(kind, meta, |meta| self.open_signs(kind, meta, dims))?
        else {
            return Ok(None);
        };
        let wanted = (signs.rows() / CANDIDATE_SHARE)
            .clamp(CANDIDATES_MIN, CANDIDATES_MAX)
            .max(k * 40);
        // A changed row's old bits may be among them: its code is read as
        // it is now, or not at all when it is gone.
        let mut keys = signs.closest(query, wanted);
        keys.extend(changed);
        Ok(Some(self.rescored(kind, dims, query, &keys, k)?))
    }
}

impl SqliteStore {
    /// Writes the signs of a kind's codes and records them as of
    /// `change`, for searches while its graph is built; false when the
    /// vectors changed generation meanwhile (nothing is recorded).
    pub(super) fn record_signs(
        &mut self,
        kind: VecKind,
        dims: usize,
        generation: i64,
        change: i64,
        dir: &Path,
    ) -> Result<bool> {
        let file = file_name(kind, generation, change);
        let path = dir.join(&file);
        self.db().write_signs(kind, dims, &path)?;
        let meta = GraphMeta {
            generation,
            change,
            file,
        };
        let recorded = self.write(|db| {
            if db.generation()? != generation {
                return Ok(false);
            }
            db.set_meta(&meta_key(kind), &meta.value())?;
            Ok(true)
        })?;
        if !recorded {
            let _ = std::fs::remove_file(&path);
        }
        Ok(recorded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Deterministic pseudo-random numbers in [-1, 1).
    fn noise(state: &mut u64, n: usize) -> Vec<f32> {
        (0..n)
            .map(|_| {
                *state ^= *state << 13;
                *state ^= *state >> 7;
                *state ^= *state << 17;
                (*state % 2000) as f32 / 1000.0 - 1.0
            })
            .collect()
    }

    /// Unit vectors in clusters around 40 topics that share a lean, as
    /// sentence embeddings are.
    fn vectors(n: usize, dims: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut state = 0x9e37_79b9_7f4a_7c15;
        let topics: Vec<Vec<f32>> = (0..40).map(|_| noise(&mut state, dims)).collect();
        state ^= seed;
        (0..n)
            .map(|i| {
                let jitter = noise(&mut state, dims);
                let v: Vec<f32> = (0..dims)
                    .map(|d| {
                        topics[i % 40][d] + 0.6 * jitter[d] + if d % 3 == 0 { 0.5 } else { 0.0 }
                    })
                    .collect();
                quant::unit_vector(&v)
            })
            .collect()
    }

    fn dot(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    /// A signs file of `all`, keys 10, 20, ... written as a store would.
    fn saved(dir: &Path, all: &[Vec<f32>], dims: usize) -> PathBuf {
        let mean: Vec<f32> = (0..dims)
            .map(|i| all.iter().map(|v| v[i]).sum::<f32>() / all.len() as f32)
            .collect();
        let path = dir.join("s.signs");
        let keys: Vec<i64> = (0..all.len() as i64).map(|i| i * 10 + 10).collect();
        let mut bits = vec![0u64; all.len() * words_of(dims)];
        for (v, row) in all.iter().zip(bits.chunks_exact_mut(words_of(dims))) {
            sign_bits(v.iter().copied(), &mean, row);
        }
        save(&path, dims, &mean, &keys, &bits).unwrap();
        path
    }

    #[test]
    fn the_closest_signs_hold_the_true_nearest() {
        let dims = 96;
        let all = vectors(3_000, dims, 7);
        let dir = tempfile::tempdir().unwrap();
        let signs = Signs::open(&saved(dir.path(), &all, dims), dims).expect("opens");
        assert_eq!(signs.rows(), 3_000);
        let (mut wanted, mut held) = (0, 0);
        for q in vectors(20, dims, 99) {
            let mut exact: Vec<(f32, i64)> = all
                .iter()
                .enumerate()
                .map(|(i, v)| (-dot(&q, v), i as i64 * 10 + 10))
                .collect();
            exact.sort_by(|a, b| a.0.total_cmp(&b.0));
            let closest = signs.closest(&q, 300);
            assert_eq!(closest.len(), 300);
            assert!(closest.contains(&exact[0].1), "the nearest is always held");
            wanted += 10;
            held += exact[..10]
                .iter()
                .filter(|e| closest.contains(&e.1))
                .count();
        }
        assert!(held * 10 >= wanted * 9, "{held} of {wanted}");
    }

    #[test]
    fn a_file_cut_short_or_of_other_dimensions_is_not_used() {
        let dims = 70;
        let all = vectors(50, dims, 3);
        let dir = tempfile::tempdir().unwrap();
        let path = saved(dir.path(), &all, dims);
        assert!(Signs::open(&path, dims).is_some());
        assert!(Signs::open(&path, 64).is_none());
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 8]).unwrap();
        assert!(Signs::open(&path, dims).is_none());
        std::fs::write(&path, b"keepsig1").unwrap();
        assert!(Signs::open(&path, dims).is_none());
    }

    #[test]
    fn fewest_picks_the_smallest_distances_and_no_more() {
        let distances = [5u16, 1, 3, 1, 9, 3, 0];
        let mut picked = fewest(&distances, 9, 4);
        picked.sort_unstable();
        assert_eq!(picked.len(), 4);
        assert!(picked.contains(&6) && picked.contains(&1) && picked.contains(&3));
        assert!(picked.contains(&2) || picked.contains(&5));
        assert_eq!(fewest(&distances, 9, 20).len(), distances.len());
        let bits = [0b1011u64, 0, u64::MAX, 1];
        assert_eq!(hamming_distances(&bits, &[0b0001, 0]), vec![2, 64]);
    }
}
