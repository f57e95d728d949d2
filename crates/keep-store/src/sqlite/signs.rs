//! The signs of a kind's codes: one bit a dimension of each code, set
//! when the vector lies above the mean of all of them there, with the
//! codes themselves, in a file beside the database. They are the index
//! of a large store's vectors below the size graphs start at, and what
//! searches use while a graph is built whole. A search compares the bits
//! of every row (48 bytes at 384 dimensions, an eighth of the codes) with
//! the query's, and scores the closest few thousand again from their
//! codes in the file: at a million vectors it reads 48 MB of bits and a
//! few thousand codes, where a scan reads and scores 384 MB of codes.
//!
//! The file (little-endian): `keepsig2`, the dimensions and the rows (two
//! u64), the mean (one f32 a dimension, padded to eight bytes), the rows'
//! keys (i64, ascending), each row's bits (u64 words), each row's scale
//! (f32, padded to eight bytes), then each row's code (one byte a
//! dimension).

use crate::prelude::*;
use std::collections::HashSet;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use memmap2::Mmap;

use super::graph::{GraphMeta, GraphSizes, GraphWork, Opened, remove_graphs_but};
use super::index_keys::signs_key as meta_key;
use super::{SqliteDb, SqliteStore, quant};
use crate::error::{Error, Result};
use crate::vectors::VecKind;

const MAGIC: &[u8; 8] = b"keepsig2";
const HEADER: usize = 24;

/// Rows whose bits come closest to the query's, scored again from their
/// codes: one in this many rows...
const CANDIDATE_SHARE: usize = 250;
/// ...between these bounds (measured at a million notes of the scale
/// bench: 4,000 candidates hold 0.99 of the true ten nearest, 2,000 hold
/// 0.984).
const CANDIDATES_MIN: usize = 1_000;
const CANDIDATES_MAX: usize = 8_000;
/// ...and at least this many per row wanted (a hybrid search asks for 210).
const CANDIDATES_PER_ROW: usize = 4;

/// Rows read between two progress reports.
const PROGRESS_EVERY: usize = 65_536;

fn words_of(dims: usize) -> usize {
    dims.div_ceil(64)
}

/// Where each part of a signs file of `rows` rows begins, and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    dims: usize,
    rows: usize,
    keys: usize,
    bits: usize,
    scales: usize,
    codes: usize,
    size: usize,
}

impl Layout {
    fn of(dims: usize, rows: usize) -> Option<Layout> {
        let keys = HEADER + (dims * 4).next_multiple_of(8);
        let bits = keys.checked_add(rows.checked_mul(8)?)?;
        let scales = bits.checked_add(rows.checked_mul(words_of(dims) * 8)?)?;
        let codes = scales.checked_add(rows.checked_mul(4)?.next_multiple_of(8))?;
        let size = codes.checked_add(rows.checked_mul(dims)?)?;
        Some(Layout {
            dims,
            rows,
            keys,
            bits,
            scales,
            codes,
            size,
        })
    }
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
    layout: Layout,
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
        // renamed into place; after, a purge only overwrites the rows it
        // removed with zeros (rows every search leaves out, as changed
        // since the file's change); a file removed while mapped stays
        // readable.
        let map = unsafe { Mmap::map(&file) }.ok()?;
        // The bits are all read by each search; the codes of a few
        // thousand rows are, here and there.
        let _ = map.advise(memmap2::Advice::Random);
        let word = |at: usize| -> Option<usize> {
            Some(u64::from_le_bytes(map.get(at..at + 8)?.try_into().ok()?) as usize)
        };
        if map.get(..8)? != MAGIC || word(8)? != dims {
            return None;
        }
        let layout = Layout::of(dims, word(16)?)?;
        let signs = Signs { map, layout };
        (signs.map.len() == layout.size
            && signs.mean().len() == dims
            && signs.keys().len() == layout.rows
            && signs.bits().len() == layout.rows * words_of(dims)
            && signs.scales().len() == layout.rows)
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
        self.slice(HEADER, self.layout.dims)
    }

    fn keys(&self) -> &[i64] {
        self.slice(self.layout.keys, self.layout.rows)
    }

    fn bits(&self) -> &[u64] {
        let words = self.layout.rows * words_of(self.layout.dims);
        self.slice(self.layout.bits, words)
    }

    fn scales(&self) -> &[f32] {
        self.slice(self.layout.scales, self.layout.rows)
    }

    fn code(&self, row: usize) -> &[u8] {
        let at = self.layout.codes + row * self.layout.dims;
        &self.map[at..at + self.layout.dims]
    }

    pub(super) fn rows(&self) -> usize {
        self.layout.rows
    }

    /// Where the rows of `keys` lie in the file, with the zeros that
    /// overwrite them: their bits, scales and codes.
    pub(super) fn spans_of(&self, keys: &HashSet<i64>) -> Vec<(usize, Vec<u8>)> {
        let layout = self.layout;
        let words = words_of(layout.dims) * 8;
        let all = self.keys();
        let mut spans = Vec::new();
        for key in keys {
            if let Ok(row) = all.binary_search(key) {
                spans.push((layout.bits + row * words, vec![0; words]));
                spans.push((layout.scales + row * 4, vec![0; 4]));
                spans.push((layout.codes + row * layout.dims, vec![0; layout.dims]));
            }
        }
        spans
    }

    /// The rows (by position, ascending) of the `wanted` whose bits differ
    /// least from the query's.
    fn closest(&self, query: &[f32], wanted: usize) -> Vec<usize> {
        let unit = quant::unit_vector(query);
        let mut bits = vec![0u64; words_of(self.layout.dims)];
        sign_bits(unit.into_iter(), self.mean(), &mut bits);
        let distances = hamming_distances(self.bits(), &bits);
        fewest(&distances, self.layout.dims, wanted)
    }

    /// The codes of `rows` (ascending positions), but for the keys in
    /// `left_out`.
    fn codes(&self, rows: &[usize], left_out: &HashSet<i64>) -> quant::Codes {
        let mut codes = quant::Codes::new(self.layout.dims);
        let (keys, scales) = (self.keys(), self.scales());
        for &row in rows {
            if !left_out.contains(&keys[row]) {
                codes.push(keys[row], scales[row], self.code(row));
            }
        }
        codes
    }
}

/// Writes a signs file row by row: the codes as they come, the keys, bits
/// and scales (60 bytes a row) once all are in; under another name, renamed
/// into place once synced.
struct SignsWriter {
    file: File,
    partial: std::path::PathBuf,
    layout: Layout,
    row: usize,
    keys: Vec<u8>,
    bits: Vec<u8>,
    scales: Vec<u8>,
    codes: Vec<u8>,
    codes_from: usize,
}

/// Codes held before they are written, in rows.
const CODES_BUFFERED: usize = 4_096;

impl SignsWriter {
    fn create(path: &Path, mean: &[f32], rows: usize) -> std::io::Result<SignsWriter> {
        let dims = mean.len();
        let layout = Layout::of(dims, rows)
            .ok_or_else(|| std::io::Error::other("too many vectors for a signs file"))?;
        let partial = path.with_extension("signs.partial");
        let file = File::create(&partial)?;
        file.set_len(layout.size as u64)?;
        let mut head = MAGIC.to_vec();
        head.extend((dims as u64).to_le_bytes());
        head.extend((rows as u64).to_le_bytes());
        mean.iter().for_each(|m| head.extend(m.to_le_bytes()));
        file.write_all_at(&head, 0)?;
        Ok(SignsWriter {
            file,
            partial,
            layout,
            row: 0,
            keys: Vec::with_capacity(rows * 8),
            bits: Vec::with_capacity(rows * words_of(dims) * 8),
            scales: Vec::with_capacity(rows * 4),
            codes: Vec::with_capacity(CODES_BUFFERED * dims),
            codes_from: 0,
        })
    }

    fn push(&mut self, key: i64, scale: f32, code: &[u8], bits: &[u64]) -> std::io::Result<()> {
        if self.row == self.layout.rows || code.len() != self.layout.dims {
            return Err(std::io::Error::other(
                "the codes changed while they were read",
            ));
        }
        self.keys.extend(key.to_le_bytes());
        bits.iter().for_each(|w| self.bits.extend(w.to_le_bytes()));
        self.scales.extend(scale.to_le_bytes());
        self.codes.extend_from_slice(code);
        self.row += 1;
        if self.codes.len() == CODES_BUFFERED * self.layout.dims {
            self.write_codes()?;
        }
        Ok(())
    }

    fn write_codes(&mut self) -> std::io::Result<()> {
        let at = self.layout.codes + self.codes_from * self.layout.dims;
        self.file.write_all_at(&self.codes, at as u64)?;
        self.codes_from = self.row;
        self.codes.clear();
        Ok(())
    }

    fn finish(mut self, path: &Path) -> std::io::Result<()> {
        if self.row != self.layout.rows {
            return Err(std::io::Error::other(
                "the codes changed while they were read",
            ));
        }
        self.write_codes()?;
        self.file
            .write_all_at(&self.keys, self.layout.keys as u64)?;
        self.file
            .write_all_at(&self.bits, self.layout.bits as u64)?;
        self.file
            .write_all_at(&self.scales, self.layout.scales as u64)?;
        self.file.sync_all()?;
        std::fs::rename(&self.partial, path)
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

fn open_signs() -> std::sync::MutexGuard<'static, Opened<Signs>> {
    static SIGNS: OnceLock<Mutex<Opened<Signs>>> = OnceLock::new();
    SIGNS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// The name of the signs file of a kind as of a change: named as its
/// graphs are, so that saving a newer index file of the kind removes it.
pub(super) fn file_name(kind: VecKind, generation: i64, change: i64) -> String {
    format!("graph-{}-{generation}-{change}.signs", kind.code_table())
}

impl SqliteDb<'_> {
    /// The mean of every code of a kind, as unit vectors, and the rows
    /// read; None when `progress` stopped it.
    fn code_mean(
        &self,
        kind: VecKind,
        dims: usize,
        progress: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<(Vec<f32>, usize)>> {
        let mut sum = vec![0f64; dims];
        let mut rows = 0usize;
        let read = self.each_code(kind, dims, &mut |_, scale, code| {
            for (s, &c) in sum.iter_mut().zip(code) {
                *s += f64::from(c as i8) * f64::from(scale);
            }
            rows += 1;
            !rows.is_multiple_of(PROGRESS_EVERY) || progress(rows)
        })?;
        let mean = sum
            .iter()
            .map(|s| (s / rows.max(1) as f64) as f32)
            .collect();
        Ok(read.then_some((mean, rows)))
    }

    /// What `read` returns, its reads all from one snapshot of the store
    /// (when not already inside a transaction).
    fn in_snapshot<T>(&self, read: impl FnOnce() -> Result<T>) -> Result<T> {
        let snapshot = self.conn.is_autocommit();
        if snapshot {
            self.conn.execute_batch("BEGIN")?;
        }
        let result = read();
        if snapshot {
            self.conn.execute_batch("COMMIT")?;
        }
        result
    }

    /// Writes the signs and codes of every code of a kind to `path`,
    /// reading the codes twice (their mean, then each; from one snapshot,
    /// see `in_snapshot`); the rows written, or None when
    /// `progress(done, total)` stopped it.
    fn write_signs(
        &self,
        kind: VecKind,
        dims: usize,
        path: &Path,
        total: usize,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<Option<usize>> {
        let first_pass = self.code_mean(kind, dims, &mut |done| progress(done / 2, total))?;
        let Some((mean, rows)) = first_pass else {
            return Ok(None);
        };
        let total = total.max(rows);
        let failed = |e| Error::io(path, e);
        let mut out = SignsWriter::create(path, &mean, rows).map_err(failed)?;
        let mut row_bits = vec![0u64; words_of(dims)];
        let mut unit = vec![0f32; dims];
        let mut error = None;
        let mut done = 0usize;
        let read = self.each_code(kind, dims, &mut |key, scale, code| {
            for (u, &c) in unit.iter_mut().zip(code) {
                *u = f32::from(c as i8) * scale;
            }
            sign_bits(unit.iter().copied(), &mean, &mut row_bits);
            if let Err(e) = out.push(key, scale, code, &row_bits) {
                error = Some(e);
                return false;
            }
            done += 1;
            !done.is_multiple_of(PROGRESS_EVERY) || progress((rows + done) / 2, total)
        })?;
        if let Some(e) = error {
            return Err(failed(e));
        }
        if !read {
            return Ok(None);
        }
        out.finish(path).map_err(failed)?;
        Ok(Some(rows))
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

    /// The rows of the signs of a kind and the rows changed since, when a
    /// search would use them.
    pub(super) fn usable_signs(&self, kind: VecKind) -> Result<Option<(usize, usize)>> {
        let Some(space) = self.vector_space()? else {
            return Ok(None);
        };
        let found = self.searchable(kind, self.signs_meta(kind)?, |meta| {
            self.open_signs(kind, meta, space.dims)
        })?;
        Ok(found.map(|(signs, changed)| (signs.rows(), changed.len())))
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
            .max(k * CANDIDATES_PER_ROW);
        // A changed row's old code may be in the file: it is read as it is
        // now, or not at all when it is gone.
        let left_out: HashSet<i64> = changed.iter().copied().collect();
        let closest = signs.codes(&signs.closest(query, wanted), &left_out);
        let wanted = k + super::graph::EXACT_EXTRA;
        let mut by_code = closest.nearest(query, wanted);
        by_code.extend(self.codes_of(kind, dims, &changed)?.nearest(query, wanted));
        by_code.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        by_code.truncate(wanted);
        Ok(Some(self.nearest_exactly(kind, query, by_code, k)?))
    }
}

impl SqliteStore {
    /// Writes the signs of a kind's codes and records them as of
    /// `change` (of `generation`); whether they were recorded (not when
    /// the vectors changed generation meanwhile), None when `progress`
    /// stopped it.
    pub(super) fn record_signs(
        &mut self,
        kind: VecKind,
        dims: usize,
        (generation, change): (i64, i64),
        dir: &Path,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<Option<bool>> {
        let file = file_name(kind, generation, change);
        let path = dir.join(&file);
        let db = self.db();
        let total = db.code_count(kind)?;
        let written = db.in_snapshot(|| db.write_signs(kind, dims, &path, total, progress))?;
        if written.is_none() {
            return Ok(None);
        }
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
        Ok(Some(recorded))
    }

    /// Brings the signs of a kind up to date, its index below the size
    /// graphs start at: written whole when there are none usable, or once
    /// `fold_from` rows changed since (fewer are searched beside them).
    pub(super) fn refresh_signs(
        &mut self,
        kind: VecKind,
        sizes: GraphSizes,
        dims: usize,
        dir: &Path,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<GraphWork> {
        let db = self.db();
        let at = (db.generation()?, db.log_sequence(kind)?);
        let vectors = db.code_count(kind)?;
        let old = db.signs_meta(kind)?;
        let changed = match &old {
            Some(meta) if db.open_signs(kind, meta, dims).is_some() => {
                db.changed_since(kind, meta.change, vectors / 4)?
            }
            _ => None,
        };
        if let Some(changed) = &changed
            && changed.len() < sizes.fold_from.max(1)
        {
            return Ok(match changed.len() {
                0 => GraphWork::Current { vectors },
                n => GraphWork::Recent {
                    vectors,
                    changed: n,
                },
            });
        }
        progress(0, vectors);
        match self.record_signs(kind, dims, at, dir, progress)? {
            None => return Ok(GraphWork::Stopped),
            Some(true) => remove_graphs_but(dir, kind, &dir.join(file_name(kind, at.0, at.1))),
            Some(false) => {}
        }
        Ok(match changed {
            Some(changed) => GraphWork::Updated {
                vectors,
                changed: changed.len(),
            },
            None => GraphWork::Built { vectors },
        })
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
        let mut out = SignsWriter::create(&path, &mean, all.len()).unwrap();
        let mut bits = vec![0u64; words_of(dims)];
        for (i, v) in all.iter().enumerate() {
            sign_bits(v.iter().copied(), &mean, &mut bits);
            let (scale, code) = quant::quantize(v);
            let code: Vec<u8> = code.iter().map(|&c| c as u8).collect();
            out.push(i as i64 * 10 + 10, scale, &code, &bits).unwrap();
        }
        out.finish(&path).unwrap();
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
            let rows = signs.closest(&q, 300);
            assert_eq!(rows.len(), 300);
            let closest: Vec<i64> = rows.iter().map(|&row| row as i64 * 10 + 10).collect();
            let left_out = exact[5].1;
            let codes = signs.codes(&rows, &HashSet::from([left_out]));
            let scored: Vec<i64> = codes.iter().map(|(key, _)| key).collect();
            assert_eq!(scored.len(), 300 - usize::from(closest.contains(&left_out)));
            assert!(!scored.contains(&left_out), "left out");
            let found = codes.nearest(&q, 1);
            assert_eq!(found[0].0, exact[0].1, "scored from the file's codes");
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
