//! A saved graph file searched in place. usearch builds and saves the
//! graph; opening it with usearch's own view reads every node's key to
//! build a table of keys (150 MB of the file and a million-entry table at
//! a million vectors, once per process). A search needs neither: this
//! view maps the file, reads the header and the level of each node (two
//! bytes a node) to find where nodes begin, and walks the graph reading
//! only the nodes and codes it visits, from any number of threads at once.
//!
//! The file, as usearch 2 writes it (little-endian): the rows and the
//! bytes of each code (two u32), the codes in slot order, a 64-byte
//! header, the graph's header (size, connectivity, connectivity of level
//! 0, top level, entry slot: five u64), each node's level (i16), then the
//! nodes: key (u64), level (i16), and for each level from 0 up the count
//! of its links (u32) and room for that many slots (u32).

use super::quant;
use memmap2::Mmap;
use std::collections::BinaryHeap;
use std::fs::File;
use std::path::Path;

/// The key usearch leaves on a node it removed.
const REMOVED: u64 = u64::MAX;
const DENSE_HEADER: usize = 64;
const GRAPH_HEADER: usize = 40;
const NODE_HEAD: usize = 10;

pub(super) struct GraphView {
    map: Mmap,
    /// Nodes, and the bytes of a code (one i8 a dimension).
    rows: usize,
    dims: usize,
    connectivity: usize,
    connectivity_base: usize,
    top_level: usize,
    entry: usize,
    /// Where each node starts in the file.
    offsets: Vec<usize>,
}

/// A candidate by its distance; the heap keeps the farthest on top.
#[derive(Clone, Copy, PartialEq)]
struct Scored(f32, u32);

impl Eq for Scored {}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

fn u32_at(bytes: &[u8], at: usize) -> Option<usize> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes(b.try_into().ok()?) as usize)
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let b = bytes.get(at..at + 8)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

impl GraphView {
    /// The graph saved at `path`, if it is a whole file of codes of
    /// `dims` bytes.
    pub(super) fn open(path: &Path, dims: usize) -> Option<GraphView> {
        let file = File::open(path).ok()?;
        // SAFETY: graph files are written whole under another name and
        // renamed into place; after, a purge only overwrites the codes and
        // keys of the rows it removed (rows every search leaves out, as
        // changed since the file's change); a file removed while mapped
        // stays readable.
        let map = unsafe { Mmap::map(&file) }.ok()?;
        // A walk jumps from node to node: reading ahead of each would map
        // pages it never visits.
        let _ = map.advise(memmap2::Advice::Random);
        let bytes: &[u8] = &map;
        let rows = u32_at(bytes, 0)?;
        if u32_at(bytes, 4)? != dims {
            return None;
        }
        let dense = 8 + rows.checked_mul(dims)?;
        if bytes.get(dense..dense + 7)? != b"usearch" {
            return None;
        }
        let graph = dense + DENSE_HEADER;
        let field = |i: usize| u64_at(bytes, graph + 8 * i).map(|v| v as usize);
        let (size, connectivity, connectivity_base) = (field(0)?, field(1)?, field(2)?);
        let (top_level, entry) = (field(3)?, field(4)?);
        if size != rows || (rows > 0 && entry >= rows) || connectivity == 0 {
            return None;
        }
        let levels = graph + GRAPH_HEADER;
        let mut at = levels + 2 * rows;
        let mut offsets = Vec::with_capacity(rows);
        for i in 0..rows {
            offsets.push(at);
            let level = i16::from_le_bytes(
                bytes
                    .get(levels + 2 * i..levels + 2 * i + 2)?
                    .try_into()
                    .ok()?,
            );
            let level = usize::try_from(level).ok()?;
            at += NODE_HEAD + 4 + 4 * connectivity_base + level * (4 + 4 * connectivity);
        }
        if at > bytes.len() {
            return None;
        }
        Some(GraphView {
            map,
            rows,
            dims,
            connectivity,
            connectivity_base,
            top_level,
            entry,
            offsets,
        })
    }

    /// Nodes in the graph, removed ones included.
    pub(super) fn size(&self) -> usize {
        self.rows
    }

    /// Where the nodes of `keys` lie in the file, with what overwrites
    /// them: zeros for their codes, the removed mark for their keys.
    pub(super) fn spans_of(&self, keys: &std::collections::HashSet<i64>) -> Vec<(usize, Vec<u8>)> {
        let mut spans = Vec::new();
        for slot in 0..self.rows {
            let key = self.key(slot);
            if key != REMOVED && keys.contains(&(key as i64)) {
                spans.push((8 + slot * self.dims, vec![0; self.dims]));
                spans.push((self.offsets[slot], REMOVED.to_le_bytes().to_vec()));
            }
        }
        spans
    }

    fn key(&self, slot: usize) -> u64 {
        u64_at(&self.map, self.offsets[slot]).unwrap_or(REMOVED)
    }

    fn level(&self, slot: usize) -> usize {
        let at = self.offsets[slot] + 8;
        i16::from_le_bytes([self.map[at], self.map[at + 1]]).max(0) as usize
    }

    /// The links of node `slot` at `level` (none above its own level).
    fn links(&self, slot: usize, level: usize) -> impl Iterator<Item = usize> + '_ {
        let base = self.offsets[slot] + NODE_HEAD;
        let (at, room) = match level {
            0 => (base, self.connectivity_base),
            l if l <= self.level(slot) => (
                base + 4 + 4 * self.connectivity_base + (l - 1) * (4 + 4 * self.connectivity),
                self.connectivity,
            ),
            _ => (base, 0),
        };
        let count = match room {
            0 => 0,
            _ => u32_at(&self.map, at).unwrap_or(0).min(room),
        };
        self.map[at + 4..at + 4 + 4 * count]
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .filter(|&s| s < self.rows)
    }

    /// Asks the CPU to bring the code of `slot` into its cache: a walk
    /// reads the codes of a node's links one after another, each
    /// elsewhere in the file, and waits on memory for each unless they
    /// are asked for together first.
    fn prefetch_code(&self, slot: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let start = 8 + slot * self.dims;
            let code = &self.map[start..start + self.dims];
            for line in code.chunks(64) {
                // SAFETY: a prefetch of mapped bytes reads nothing and
                // cannot fault.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast::<i8>()) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// Cosine distance of the query's code (`code`, of length `norm`)
    /// from the code of `slot`.
    fn distance(&self, code: &[i8], norm: f32, slot: usize) -> f32 {
        let start = 8 + slot * self.dims;
        let (dot, square) = quant::dot_and_square(code, as_i8(&self.map[start..start + self.dims]));
        if square == 0 || norm == 0.0 {
            return 1.0;
        }
        1.0 - dot as f32 / (norm * (square as f32).sqrt())
    }

    /// The keys of up to `wanted` nodes nearest `query` (of the graph's
    /// dimensions), nearest first, with a candidate list of `expansion`;
    /// removed nodes and keys `skip` says true of are walked through but
    /// not returned.
    pub(super) fn search(
        &self,
        query: &[f32],
        wanted: usize,
        expansion: usize,
        skip: &dyn Fn(u64) -> bool,
    ) -> Vec<u64> {
        if self.rows == 0 || query.len() != self.dims || wanted == 0 {
            return Vec::new();
        }
        let (_, code) = quant::quantize(query);
        let norm = (quant::dot_and_square(&code, &code).0 as f32).sqrt();
        let distance = |slot: usize| self.distance(&code, norm, slot);
        let mut at = self.entry;
        let mut best = distance(at);
        for level in (1..=self.top_level).rev() {
            let mut moved = true;
            while moved {
                moved = false;
                for next in self.links(at, level) {
                    let d = distance(next);
                    if d < best {
                        (best, at, moved) = (d, next, true);
                    }
                }
            }
        }
        let limit = expansion.max(wanted);
        let mut visited = vec![0u64; self.rows.div_ceil(64)];
        let mut visit = |slot: usize| {
            let (word, bit) = (slot / 64, 1u64 << (slot % 64));
            let seen = visited[word] & bit != 0;
            visited[word] |= bit;
            !seen
        };
        let counts = |slot: usize| {
            let key = self.key(slot);
            key != REMOVED && !skip(key)
        };
        visit(at);
        // Nearest first to explore (distances negated), farthest first
        // among the kept.
        let mut next = BinaryHeap::from([Scored(-best, at as u32)]);
        let mut fresh = Vec::with_capacity(self.connectivity_base);
        let mut top: BinaryHeap<Scored> = BinaryHeap::new();
        if counts(at) {
            top.push(Scored(best, at as u32));
        }
        let radius = |top: &BinaryHeap<Scored>| top.peek().map_or(f32::INFINITY, |s| s.0);
        while let Some(Scored(negated, slot)) = next.pop() {
            if -negated > radius(&top) && top.len() == limit {
                break;
            }
            fresh.clear();
            fresh.extend(self.links(slot as usize, 0).filter(|&link| visit(link)));
            for &link in &fresh {
                self.prefetch_code(link);
            }
            for &link in &fresh {
                let d = distance(link);
                if top.len() < limit || d < radius(&top) {
                    next.push(Scored(-d, link as u32));
                    if counts(link) {
                        top.push(Scored(d, link as u32));
                        if top.len() > limit {
                            top.pop();
                        }
                    }
                }
            }
        }
        let mut found = top.into_sorted_vec();
        found.truncate(wanted);
        found.into_iter().map(|s| self.key(s.1 as usize)).collect()
    }
}

/// Stored code bytes as the int8 values they are.
fn as_i8(code: &[u8]) -> &[i8] {
    // SAFETY: u8 and i8 have the same size and alignment.
    unsafe { std::slice::from_raw_parts(code.as_ptr().cast::<i8>(), code.len()) }
}
