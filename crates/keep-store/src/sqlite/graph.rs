//! The index of each kind of vector in a large store, in a file beside
//! the database, made from the codes as they stood at one change of the
//! code log: the signs of the codes (`signs`), and from `GRAPH_FROM`
//! vectors an HNSW graph (usearch) over them.
//!
//! A search maps the file (for a graph reading only the pages it visits,
//! see `graph_view`), leaves out
//! the rows changed since the index's change, scores those rows from their
//! codes instead, and scores every candidate again from its code, so the
//! similarities are the same as an exact search's. Writers never touch the
//! index: `refresh` brings it up to date later (a graph by adding the
//! changed rows to a copy, or building it whole when there is none or the
//! log no longer reaches back to it; the signs by writing them again),
//! and records the new file in the store's meta table
//! in one transaction. A store emptied of vectors or given a new model
//! starts a new generation, which every older index file is not part of.

use crate::prelude::*;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rusqlite::OptionalExtension;
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use super::graph_view::GraphView;
use super::index_keys::{graph_key as meta_key, signs_key};
use super::{SqliteDb, SqliteStore, code_cache, quant};
use crate::error::{Error, Result};
use crate::vectors::{VecKind, from_bytes};

/// Vectors of a kind at or above which searches go through a graph (a
/// setting, defined with the others).
pub use keep_model::settings::DEFAULT_VECTOR_INDEX_FROM as DEFAULT_GRAPH_FROM;

/// Changed rows a search scores one by one beside the graph; past this the
/// graph is not used until it is refreshed.
const CHANGES_SEARCHED: usize = 20_000;

/// Changed rows after which a graph is due for a refresh.
pub const REFRESH_AFTER: usize = 2_000;

/// Vectors of a kind from which its index is a graph rather than the
/// signs of its codes. Measured at a million notes on two cores, a
/// meaning search through the signs takes 13.4 ms (the query's embedding
/// included) and finds 0.996 of the true ten nearest, and they are
/// written in 3.6 s; through the graph 12.7 ms and 0.968, built in 375 to
/// 461 s. A scan of the signs grows with the store, a graph walk hardly
/// does.
pub const GRAPH_FROM: usize = 2_000_000;

/// The sizes that decide an index's upkeep: the vectors a kind has before
/// it gets one, the changed rows a refresh folds into one (fewer are
/// searched beside it), and the vectors from which it is a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphSizes {
    pub from: usize,
    pub fold_from: usize,
    pub graph_from: usize,
}

impl GraphSizes {
    /// An index from `from` vectors, folding changes in when they are due.
    pub fn from(from: usize) -> Self {
        GraphSizes {
            from,
            fold_from: REFRESH_AFTER,
            graph_from: GRAPH_FROM,
        }
    }
}

/// Graph candidates scored again from their codes, per row wanted, and at
/// least this many.
const CANDIDATE_FACTOR: usize = 4;
const CANDIDATES_MIN: usize = 100;

/// The rows nearest by their codes that are scored again from their
/// floats (a read each): the `k` wanted and this many more, up to
/// `EXACT_ROWS`; rows further down keep the distance of their code.
pub(super) const EXACT_EXTRA: usize = 10;
const EXACT_ROWS: usize = 20;

/// The graph's shape: links per node and the candidate list kept while
/// adding.
const CONNECTIVITY: usize = 16;
const EXPANSION_ADD: usize = 96;
/// The candidate list kept while searching, at least...
const EXPANSION_SEARCH: usize = 128;

/// ...and more for larger graphs: a walk through a larger graph needs a
/// longer list to find the same share of the true nearest (measured on
/// the scale bench: 0.98 of the true ten at 100,000 vectors with 128,
/// 0.946 at a million).
fn search_expansion(rows: usize) -> usize {
    ((rows as f64).sqrt() / 2.0).clamp(EXPANSION_SEARCH as f64, 1024.0) as usize
}

/// Rows added to a graph between two progress reports.
const BATCH: usize = 4_096;

/// Which graph file holds a kind's vectors, and as of which change of the
/// code log, in which generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct GraphMeta {
    pub(super) generation: i64,
    pub(super) change: i64,
    pub(super) file: String,
}

impl GraphMeta {
    pub(super) fn parse(value: &str) -> Option<Self> {
        let mut words = value.split(' ');
        let meta = GraphMeta {
            generation: words.next()?.parse().ok()?,
            change: words.next()?.parse().ok()?,
            file: words.next()?.to_string(),
        };
        let plain = !meta.file.is_empty()
            && meta
                .file
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        (plain && words.next().is_none()).then_some(meta)
    }

    pub(super) fn value(&self) -> String {
        format!("{} {} {}", self.generation, self.change, self.file)
    }
}

/// What a refresh did to one kind's graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphWork {
    /// Fewer vectors than the size a graph starts at (any graph dropped).
    Small { vectors: usize },
    /// Already up to date.
    Current { vectors: usize },
    /// Left as it is: the rows changed since it was made, fewer than a
    /// refresh folds in, are searched beside it by their codes.
    Recent { vectors: usize, changed: usize },
    /// Built whole from every code.
    Built { vectors: usize },
    /// The changed rows applied to the graph it had.
    Updated { vectors: usize, changed: usize },
    /// Another process is refreshing it now.
    Busy,
    /// Another process was refreshing it; this one waited for it to
    /// finish, and the graph is up to date.
    Waited { vectors: usize },
    /// Stopped by the caller before it was done; the graph is as it was
    /// (the signs written for searches meanwhile stay until a graph is
    /// saved).
    Stopped,
}

/// Where a kind's graph stands, for `keep doctor` and the decision to
/// refresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphState {
    pub kind: VecKind,
    /// The rows the graph holds, if there is a usable one.
    pub rows: Option<usize>,
    /// Rows changed since (searched one by one).
    pub changed: usize,
    /// Without a usable graph: the rows of the signs searches use until
    /// one is built, if there are any.
    pub signs: Option<usize>,
    /// Whether a refresh would do anything.
    pub due: bool,
}

/// A graph opened by this process, searched by any number of threads.
type SharedGraph = Arc<GraphView>;

/// Index files opened by this process, by database file and kind: the
/// file named by the meta row they were opened for.
pub(super) type Opened<T> = HashMap<(PathBuf, VecKind), (String, Arc<T>)>;

fn open_graphs() -> std::sync::MutexGuard<'static, Opened<GraphView>> {
    static GRAPHS: OnceLock<Mutex<Opened<GraphView>>> = OnceLock::new();
    GRAPHS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

fn options(dims: usize) -> IndexOptions {
    IndexOptions {
        dimensions: dims,
        metric: MetricKind::Cos,
        quantization: ScalarKind::I8,
        connectivity: CONNECTIVITY,
        expansion_add: EXPANSION_ADD,
        expansion_search: EXPANSION_SEARCH,
        multi: false,
    }
}

fn graph_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::io(path, std::io::Error::other(format!("vector graph: {e}")))
}

/// Codes as stored (int8 values in bytes) read as the graph takes them.
fn as_i8(code: &[u8]) -> &[i8] {
    // SAFETY: u8 and i8 have the same size and alignment.
    unsafe { std::slice::from_raw_parts(code.as_ptr().cast::<i8>(), code.len()) }
}

impl SqliteDb<'_> {
    /// The folder of the database, where graph files live.
    pub(super) fn graph_dir(&self) -> Option<PathBuf> {
        let path = self.conn.path().filter(|p| !p.is_empty())?;
        Path::new(path).parent().map(Path::to_path_buf)
    }

    pub(super) fn generation(&self) -> Result<i64> {
        Ok(self
            .meta(code_cache::GENERATION_KEY)?
            .and_then(|g| g.parse().ok())
            .unwrap_or(0))
    }

    /// The graph meta of a kind, if it is of this generation.
    fn graph_meta(&self, kind: VecKind) -> Result<Option<GraphMeta>> {
        self.index_meta(&meta_key(kind))
    }

    /// The index file the meta row `key` names, if it is of this
    /// generation.
    pub(super) fn index_meta(&self, key: &str) -> Result<Option<GraphMeta>> {
        let Some(meta) = self.meta(key)?.as_deref().and_then(GraphMeta::parse) else {
            return Ok(None);
        };
        Ok((meta.generation == self.generation()?).then_some(meta))
    }

    /// The distinct rows changed after `change`, when the log still reaches
    /// back to it and they are at most `limit`.
    pub(super) fn changed_since(
        &self,
        kind: VecKind,
        change: i64,
        limit: usize,
    ) -> Result<Option<Vec<i64>>> {
        let log = code_cache::log_table(kind);
        // Each bound on its own: SQLite reads min() or max() alone from the
        // key's end, but scans the whole log for both in one select.
        let (first, last): (Option<i64>, Option<i64>) = self
            .conn
            .prepare_cached(&format!(
                "SELECT (SELECT min(seq) FROM {log}), (SELECT max(seq) FROM {log})"
            ))?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let reaches = match (first, last) {
            (Some(first), Some(last)) => first <= change + 1 && last >= change,
            _ => change == 0 || self.log_sequence(kind)? == change,
        };
        if !reaches {
            return Ok(None);
        }
        let keys: Vec<i64> = self
            .conn
            .prepare_cached(&format!(
                "SELECT DISTINCT key FROM {log} WHERE seq > ?1 LIMIT ?2"
            ))?
            .query_map(rusqlite::params![change, limit as i64 + 1], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok((keys.len() <= limit).then_some(keys))
    }

    /// The last change ever logged for a kind, even when the log rows are
    /// pruned away.
    pub(super) fn log_sequence(&self, kind: VecKind) -> Result<i64> {
        Ok(self
            .conn
            .prepare_cached("SELECT seq FROM sqlite_sequence WHERE name = ?1")?
            .query_row([code_cache::log_table(kind)], |r| r.get(0))
            .optional()?
            .unwrap_or(0))
    }

    /// The graph of a kind as the meta row names it, opened once per
    /// process (mapped, not read).
    fn open_graph(&self, kind: VecKind, meta: &GraphMeta, dims: usize) -> Option<SharedGraph> {
        self.opened(&mut open_graphs(), kind, meta, |path| {
            GraphView::open(path, dims)
        })
    }

    /// The index file `meta` names for a kind, from `opened` when this
    /// process opened it already, else by `open` (and kept there).
    pub(super) fn opened<T>(
        &self,
        opened: &mut Opened<T>,
        kind: VecKind,
        meta: &GraphMeta,
        open: impl FnOnce(&Path) -> Option<T>,
    ) -> Option<Arc<T>> {
        let dir = self.graph_dir()?;
        let db = PathBuf::from(self.conn.path()?);
        if let Some((file, index)) = opened.get(&(db.clone(), kind))
            && *file == meta.file
        {
            return Some(index.clone());
        }
        let index = Arc::new(open(&dir.join(&meta.file))?);
        opened.insert((db, kind), (meta.file.clone(), index.clone()));
        Some(index)
    }

    /// The index file `meta` names, opened by `open`, and the rows changed
    /// since it was made; None when there is none, the log no longer
    /// reaches back to it, too many changed or the file does not open.
    pub(super) fn searchable<T>(
        &self,
        kind: VecKind,
        meta: Option<GraphMeta>,
        open: impl FnOnce(&GraphMeta) -> Option<Arc<T>>,
    ) -> Result<Option<(Arc<T>, Vec<i64>)>> {
        let Some(meta) = meta else {
            return Ok(None);
        };
        let Some(changed) = self.changed_since(kind, meta.change, CHANGES_SEARCHED)? else {
            return Ok(None);
        };
        Ok(open(&meta).map(|index| (index, changed)))
    }

    /// The `k` nearest rows of a kind through its graph, or None when it
    /// has no usable graph (the caller then scans every code).
    pub(super) fn nearest_by_graph(
        &self,
        kind: VecKind,
        dims: usize,
        query: &[f32],
        k: usize,
    ) -> Result<Option<Vec<(i64, f64)>>> {
        let meta = self.graph_meta(kind)?;
        let Some((graph, changed)) =
            self.searchable(kind, meta, |meta| self.open_graph(kind, meta, dims))?
        else {
            return Ok(None);
        };
        let wanted = (k * CANDIDATE_FACTOR).max(CANDIDATES_MIN);
        let skipped: HashSet<u64> = changed.iter().map(|&k| k as u64).collect();
        let found = graph.search(query, wanted, search_expansion(graph.size()), &|key| {
            skipped.contains(&key)
        });
        let mut keys: Vec<i64> = found.iter().map(|&k| k as i64).collect();
        keys.extend(changed);
        Ok(Some(self.rescored(kind, dims, query, &keys, k)?))
    }

    /// The `k` nearest of the candidate rows `keys`: scored from their
    /// codes, the nearest few again from their floats.
    fn rescored(
        &self,
        kind: VecKind,
        dims: usize,
        query: &[f32],
        keys: &[i64],
        k: usize,
    ) -> Result<Vec<(i64, f64)>> {
        let by_code = self
            .codes_of(kind, dims, keys)?
            .nearest(query, k + EXACT_EXTRA);
        self.nearest_exactly(kind, query, by_code, k)
    }

    /// The `k` nearest of `by_code` (nearest first by their codes, at
    /// least `k` and a few more when there are): the nearest twenty scored
    /// again from their floats.
    pub(super) fn nearest_exactly(
        &self,
        kind: VecKind,
        query: &[f32],
        mut by_code: Vec<(i64, f64)>,
        k: usize,
    ) -> Result<Vec<(i64, f64)>> {
        let rest = by_code.split_off(by_code.len().min(EXACT_ROWS));
        let mut found = self.exactly(kind, query, by_code)?;
        found.extend(rest);
        found.sort_by(|a, b| a.1.total_cmp(&b.1));
        found.truncate(k);
        Ok(found)
    }

    /// `found` (nearest first by their codes) scored again from their
    /// stored floats and put in that order: among a million vectors many
    /// lie closer together than the codes can tell apart.
    fn exactly(
        &self,
        kind: VecKind,
        query: &[f32],
        found: Vec<(i64, f64)>,
    ) -> Result<Vec<(i64, f64)>> {
        let unit = quant::unit_vector(query);
        let mut read = self.conn.prepare_cached(&format!(
            "SELECT embedding FROM {} WHERE rowid = ?1",
            kind.vec_table()
        ))?;
        let mut scored = Vec::with_capacity(found.len());
        for (key, by_code) in found {
            let stored: Option<Vec<u8>> = read.query_row([key], |r| r.get(0)).optional()?;
            let distance = match stored.map(|b| from_bytes(&b)) {
                Some(v) if v.len() == unit.len() => {
                    let v = quant::unit_vector(&v);
                    1.0 - f64::from(v.iter().zip(&unit).map(|(a, b)| a * b).sum::<f32>())
                }
                _ => by_code,
            };
            scored.push((key, distance));
        }
        scored.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        Ok(scored)
    }

    /// The codes of the rows `keys` (those that have one).
    pub(super) fn codes_of(
        &self,
        kind: VecKind,
        dims: usize,
        keys: &[i64],
    ) -> Result<quant::Codes> {
        let mut codes = quant::Codes::new(dims);
        let sql = format!(
            "SELECT key, scale, code FROM {} WHERE key IN (SELECT value FROM json_each(?1)) ORDER BY key",
            kind.code_table()
        );
        let keys = serde_json::to_string(keys).expect("ints serialise");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut rows = stmt.query([keys])?;
        while let Some(row) = rows.next()? {
            let scale: f64 = row.get(1)?;
            let code = row.get_ref(2)?.as_blob().map_err(rusqlite::Error::from)?;
            codes.push(row.get(0)?, scale as f32, code);
        }
        Ok(codes)
    }

    /// Where the graph of a kind stands.
    pub fn graph_state(&self, kind: VecKind, sizes: GraphSizes) -> Result<GraphState> {
        let mut state = GraphState {
            kind,
            rows: None,
            changed: 0,
            signs: None,
            due: false,
        };
        if !self.has_codes()? {
            return Ok(state);
        }
        if let Some(meta) = self.graph_meta(kind)?
            && let Some(changed) = self.changed_since(kind, meta.change, CHANGES_SEARCHED)?
            && let Some(dir) = self.graph_dir()
            && let Ok(rows) = Index::metadata(&dir.join(&meta.file).to_string_lossy())
        {
            let rows = rows.count_present as usize;
            state.rows = Some(rows);
            state.changed = changed.len();
            state.due = changed.len() >= REFRESH_AFTER || rows < sizes.graph_from;
            return Ok(state);
        }
        if let Some((rows, changed)) = self.usable_signs(kind)? {
            state.signs = Some(rows);
            state.changed = changed;
            state.due = changed >= REFRESH_AFTER || rows >= sizes.graph_from;
            return Ok(state);
        }
        // Keys are distinct positive integers, so there are no more rows
        // than the largest key: below the size an index starts at, the
        // table need not be counted.
        let from = sizes.from;
        state.due = self.largest_code_key(kind)? >= from as i64 && self.code_count(kind)? >= from;
        Ok(state)
    }

    fn largest_code_key(&self, kind: VecKind) -> Result<i64> {
        let sql = format!("SELECT coalesce(max(key), 0) FROM {}", kind.code_table());
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row([], |r| r.get(0))?)
    }

    pub(super) fn code_count(&self, kind: VecKind) -> Result<usize> {
        let n: i64 = self.conn.query_row(
            &format!("SELECT count(*) FROM {}", kind.code_table()),
            [],
            |r| r.get(0),
        )?;
        Ok(n as usize)
    }
}

/// How far the refresh of a graph stands, as the process holding the
/// refresh lock publishes it (in the lock file) for others to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphBuild {
    /// The kind being refreshed, once the holder has said.
    pub kind: Option<VecKind>,
    /// Rows added, of `total`.
    pub done: usize,
    pub total: usize,
}

impl GraphBuild {
    fn line(kind: VecKind, done: usize, total: usize) -> String {
        format!("{} {done} {total}\n", kind.code_table())
    }

    /// What a lock file says; a file the holder has not written yet (or
    /// is writing) says only that a refresh runs.
    fn parse(text: &str) -> Self {
        let mut words = text.lines().next().unwrap_or("").split_whitespace();
        let kind = words
            .next()
            .and_then(|t| VecKind::ALL.into_iter().find(|k| k.code_table() == t));
        let mut number = || words.next().and_then(|w| w.parse().ok());
        match (kind, number(), number()) {
            (Some(kind), Some(done), Some(total)) => GraphBuild {
                kind: Some(kind),
                done,
                total,
            },
            _ => GraphBuild {
                kind: None,
                done: 0,
                total: 0,
            },
        }
    }
}

/// Holds the refresh lock of a store's graphs while it lives.
pub(super) struct RefreshLock(File);

impl RefreshLock {
    /// The lock, or None when another process holds it.
    pub(super) fn take(dir: &Path) -> Result<Option<Self>> {
        let path = dir.join("graph.lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {
                // An earlier holder's figures are not this refresh's.
                let _ = file.set_len(0);
                Ok(Some(RefreshLock(file)))
            }
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::io(&path, e)),
        }
    }
}

impl RefreshLock {
    /// Writes how far the refresh is into the lock file, for other
    /// processes to show, over what the file said before, then cuts what
    /// is left of the old line: a reader in between reads the new line
    /// first (it reads only the first line), never an empty file. Best
    /// effort: a write that fails only leaves them an older figure.
    fn publish(&self, kind: VecKind, done: usize, total: usize) {
        use std::os::unix::fs::FileExt;
        let line = GraphBuild::line(kind, done, total);
        if self.0.write_all_at(line.as_bytes(), 0).is_ok() {
            let _ = self.0.set_len(line.len() as u64);
        }
    }

    /// How far the refresh of the process holding the lock stands; None
    /// when no process holds it.
    fn holder_progress(dir: &Path) -> Result<Option<GraphBuild>> {
        if RefreshLock::take(dir)?.is_some() {
            return Ok(None);
        }
        let path = dir.join("graph.lock");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        Ok(Some(GraphBuild::parse(&text)))
    }
}

impl Drop for RefreshLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

impl SqliteStore {
    /// Whether another process is refreshing this store's graphs now.
    pub fn graph_refresh_running(&self) -> Result<bool> {
        Ok(self.graph_build()?.is_some())
    }

    /// How far the refresh another process runs now stands; None when
    /// none runs.
    pub fn graph_build(&self) -> Result<Option<GraphBuild>> {
        RefreshLock::holder_progress(self.path.parent().unwrap_or(Path::new(".")))
    }

    /// Like `refresh_graph`, but while another process refreshes the
    /// graphs this one waits for it (`waiting` hears how far it stands
    /// every tenth of a second, and stops the wait by answering false),
    /// then does what is left: nothing when the other brought the graph
    /// up to date (`Waited`). Two processes never build the same graph.
    pub fn refresh_graph_or_wait(
        &mut self,
        kind: VecKind,
        sizes: GraphSizes,
        threads: usize,
        progress: &mut dyn FnMut(usize, usize) -> bool,
        waiting: &mut dyn FnMut(&GraphBuild) -> bool,
    ) -> Result<GraphWork> {
        let mut waited = false;
        loop {
            match self.refresh_graph(kind, sizes, threads, progress)? {
                GraphWork::Busy => {}
                GraphWork::Current { vectors } if waited => {
                    return Ok(GraphWork::Waited { vectors });
                }
                work => return Ok(work),
            }
            loop {
                match self.graph_build()? {
                    None => break,
                    Some(build) if !waiting(&build) => return Ok(GraphWork::Busy),
                    Some(_) => std::thread::sleep(std::time::Duration::from_millis(100)),
                }
            }
            waited = true;
        }
    }

    /// Brings the index of a kind up to date. Below `graph_from` vectors
    /// it is the signs of the codes (see `refresh_signs`). From there it
    /// is a graph: built whole when it has none (or the log no longer
    /// reaches back to it), the signs written first for searches
    /// meanwhile, else the rows changed
    /// since applied to a copy once there are `fold_from` of them (fewer
    /// are searched beside the graph, which is left as it is: folding
    /// them in reads and writes the whole file). Below `from` vectors any
    /// index is dropped.
    /// Rows are added on `threads` threads; `progress(done, total)` hears
    /// how far it is, and stops it by answering false.
    pub fn refresh_graph(
        &mut self,
        kind: VecKind,
        sizes: GraphSizes,
        threads: usize,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<GraphWork> {
        let dir = self
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let Some(lock) = RefreshLock::take(&dir)? else {
            return Ok(GraphWork::Busy);
        };
        let work = self.refresh_locked(kind, sizes, threads, progress, &lock, &dir);
        // A purge while this refresh held the lock left its rows' codes to
        // it, in the files it found and the one it wrote.
        self.drop_purged_codes(&dir)?;
        work
    }

    /// `refresh_graph` with the refresh lock held.
    fn refresh_locked(
        &mut self,
        kind: VecKind,
        sizes: GraphSizes,
        threads: usize,
        progress: &mut dyn FnMut(usize, usize) -> bool,
        lock: &RefreshLock,
        dir: &Path,
    ) -> Result<GraphWork> {
        let dir = dir.to_path_buf();
        let progress = &mut |done: usize, total: usize| {
            lock.publish(kind, done, total);
            progress(done, total)
        };
        let db = self.db();
        let Some(space) = db.vector_space()? else {
            return Ok(GraphWork::Small { vectors: 0 });
        };
        if !db.has_codes()? {
            return Ok(GraphWork::Small { vectors: 0 });
        }
        let generation = db.generation()?;
        let change = db.log_sequence(kind)?;
        let vectors = db.code_count(kind)?;
        let old = db.graph_meta(kind)?;
        if vectors < sizes.from {
            if old.is_some() || db.signs_meta(kind)?.is_some() {
                self.set_graph(kind, generation, None)?;
            }
            remove_graphs_but(&dir, kind, Path::new(""));
            return Ok(GraphWork::Small { vectors });
        }
        if vectors < sizes.graph_from {
            if old.is_some() {
                self.set_graph(kind, generation, None)?;
            }
            return self.refresh_signs(kind, sizes, space.dims, &dir, progress);
        }
        let changed = match &old {
            Some(meta) => db.changed_since(kind, meta.change, vectors / 4)?,
            None => None,
        };
        if let (Some(changed), Some(meta)) = (&changed, &old)
            && changed.len() < sizes.fold_from.max(1)
            && db.open_graph(kind, meta, space.dims).is_some()
        {
            return Ok(match changed.len() {
                0 => GraphWork::Current { vectors },
                n => GraphWork::Recent {
                    vectors,
                    changed: n,
                },
            });
        }
        lock.publish(kind, 0, vectors);
        let old_graph = old
            .as_ref()
            .and_then(|m| load_graph(&dir.join(&m.file), space.dims));
        let update = match (changed, old_graph) {
            (Some(changed), Some(graph)) if !changed.is_empty() => Some((changed, graph)),
            _ => None,
        };
        if update.is_none()
            && self
                .record_signs(kind, space.dims, (generation, change), &dir, progress)?
                .is_none()
        {
            return Ok(GraphWork::Stopped);
        }
        let db = self.db();
        let (graph, work) = match update {
            Some((changed, graph)) => {
                if !db.apply_changes(&graph, kind, space.dims, &changed, progress)? {
                    return Ok(GraphWork::Stopped);
                }
                let work = GraphWork::Updated {
                    vectors,
                    changed: changed.len(),
                };
                (graph, work)
            }
            None => match db.build_graph(kind, space.dims, vectors, threads, progress)? {
                Some(graph) => (graph, GraphWork::Built { vectors }),
                None => return Ok(GraphWork::Stopped),
            },
        };
        let file = format!("graph-{}-{generation}-{change}.usearch", kind.code_table());
        let path = dir.join(&file);
        let partial = dir.join(format!("{file}.partial"));
        graph
            .save(&partial.to_string_lossy())
            .map_err(|e| graph_error(&partial, e))?;
        File::open(&partial)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(&partial, e))?;
        std::fs::rename(&partial, &path).map_err(|e| Error::io(&path, e))?;
        let meta = GraphMeta {
            generation,
            change,
            file,
        };
        if !self.set_graph(kind, generation, Some(&meta))? {
            let _ = std::fs::remove_file(&path);
        }
        remove_graphs_but(&dir, kind, &path);
        Ok(work)
    }

    /// Records (or, with None, forgets) the graph of a kind, unless the
    /// vectors changed generation meanwhile; whether it was recorded.
    fn set_graph(
        &mut self,
        kind: VecKind,
        generation: i64,
        meta: Option<&GraphMeta>,
    ) -> Result<bool> {
        self.write(|db| {
            if db.generation()? != generation {
                return Ok(false);
            }
            match meta {
                Some(meta) => db.set_meta(&meta_key(kind), &meta.value())?,
                None => {
                    db.conn
                        .execute("DELETE FROM meta WHERE key = ?1", [meta_key(kind)])?;
                }
            }
            // The signs served searches until now; their file goes with
            // the older graphs.
            db.conn
                .execute("DELETE FROM meta WHERE key = ?1", [signs_key(kind)])?;
            Ok(true)
        })
    }
}

impl SqliteDb<'_> {
    /// Every code of a kind added to a new graph on `threads` threads;
    /// None when `progress` stopped it.
    fn build_graph(
        &self,
        kind: VecKind,
        dims: usize,
        vectors: usize,
        threads: usize,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<Option<Index>> {
        let graph = Index::new(&options(dims)).map_err(|e| graph_error(Path::new("graph"), e))?;
        let threads = threads.max(1);
        graph
            .reserve_capacity_and_threads(vectors, threads)
            .map_err(|e| graph_error(Path::new("graph"), e))?;
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT key, code FROM {}", kind.code_table()))?;
        let mut rows = stmt.query([])?;
        let mut batch: Vec<(u64, Vec<u8>)> = Vec::with_capacity(BATCH);
        let mut done = 0;
        loop {
            let row = rows.next()?;
            if let Some(row) = row {
                let code = row.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
                if code.len() == dims {
                    batch.push((row.get::<_, i64>(0)? as u64, code.to_vec()));
                }
            }
            if batch.len() == BATCH || (row.is_none() && !batch.is_empty()) {
                add_all(&graph, &batch, threads)?;
                done += batch.len();
                batch.clear();
                if !progress(done, vectors.max(done)) {
                    return Ok(None);
                }
            }
            if row.is_none() {
                break;
            }
        }
        Ok(Some(graph))
    }

    /// The rows changed since a graph was saved, applied to it: each taken
    /// out, and put back with its code if it still has one; false when
    /// `progress` stopped it.
    fn apply_changes(
        &self,
        graph: &Index,
        kind: VecKind,
        dims: usize,
        changed: &[i64],
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<bool> {
        let fail = |e| graph_error(Path::new("graph"), e);
        for &key in changed {
            graph.remove(key as u64).map_err(fail)?;
        }
        let codes = self.codes_of(kind, dims, changed)?;
        graph.reserve(graph.size() + codes.len()).map_err(fail)?;
        for (i, (key, code)) in codes.iter().enumerate() {
            graph.add(key as u64, code).map_err(fail)?;
            if i % BATCH == 0 && !progress(i, codes.len()) {
                return Ok(false);
            }
        }
        Ok(progress(codes.len(), codes.len()))
    }
}

/// The graph saved at `path`, read whole (to be changed), if it is one of
/// vectors of `dims` dimensions.
fn load_graph(path: &Path, dims: usize) -> Option<Index> {
    let path = path.to_str()?;
    let meta = Index::metadata(path).ok()?;
    if meta.dimensions != dims as u64 {
        return None;
    }
    let graph = Index::new(&options(dims)).ok()?;
    graph.load(path).ok()?;
    Some(graph)
}

/// Removes the graph files of a kind other than `kept` (of older changes
/// or generations, or left half-written), with the refresh lock held.
pub(super) fn remove_graphs_but(dir: &Path, kind: VecKind, kept: &Path) {
    let prefix = format!("graph-{}-", kind.code_table());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(&prefix) && path != kept {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Adds a batch of codes to the graph, split across `threads`.
fn add_all(graph: &Index, batch: &[(u64, Vec<u8>)], threads: usize) -> Result<()> {
    let per_thread = batch.len().div_ceil(threads.max(1));
    let failed: Option<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = batch
            .chunks(per_thread.max(1))
            .map(|chunk| {
                scope.spawn(move || {
                    for (key, code) in chunk {
                        graph.add(*key, as_i8(code)).map_err(|e| e.to_string())?;
                    }
                    Ok::<(), String>(())
                })
            })
            .collect();
        workers
            .into_iter()
            .find_map(|w| w.join().ok().and_then(|r| r.err()))
    });
    match failed {
        Some(e) => Err(graph_error(Path::new("graph"), e)),
        None => Ok(()),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::embedded::Embedded;
    use crate::sqlite::vectors::tests::{DIMS, store_with};
    use crate::store::test_note;
    use crate::vectors::{VecRow, to_bytes};
    use keep_model::time::Timestamp;

    /// `n` unit vectors spread over the sphere, the same for each seed.
    pub(in crate::sqlite) fn spread(n: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).max(1);
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        (0..n)
            .map(|_| {
                let v: Vec<f32> = (0..DIMS).map(|_| next()).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter().map(|x| x / norm).collect()
            })
            .collect()
    }

    /// Graphs from `from` vectors, every change folded in at once.
    fn folding(from: usize) -> GraphSizes {
        GraphSizes {
            from,
            fold_from: 1,
            graph_from: 0,
        }
    }

    /// A refresh on one thread: the same graph every time (rows added on
    /// several threads at once link a little differently each run).
    fn refresh(store: &mut SqliteStore, from: usize) -> GraphWork {
        store
            .refresh_graph(VecKind::Note, folding(from), 1, &mut |_, _| true)
            .unwrap()
    }

    /// The graph's answer for `q`, checked against the exact search of
    /// every float vector: the same rows and distances (the graph of a
    /// few hundred rows finds the true nearest).
    fn assert_graph_answers(store: &SqliteStore, q: &[f32], k: usize) -> Vec<(i64, f64)> {
        let db = store.db();
        let by_graph = db
            .nearest_by_graph(VecKind::Note, DIMS, q, k)
            .unwrap()
            .expect("the graph answers");
        let exact = db.nearest_exact(VecKind::Note, q, k).unwrap();
        let keys = |found: &[(i64, f64)]| found.iter().map(|f| f.0).collect::<Vec<_>>();
        assert_eq!(keys(&by_graph), keys(&exact));
        for ((_, a), (_, b)) in by_graph.iter().zip(&exact) {
            assert!((a - b).abs() < 1e-5, "{by_graph:?} against {exact:?}");
        }
        by_graph
    }

    /// Whether a search scans the codes rather than asking the graph.
    fn graph_unused(store: &SqliteStore, q: &[f32]) -> bool {
        let db = store.db();
        db.nearest_by_graph(VecKind::Note, DIMS, q, 5)
            .unwrap()
            .is_none()
    }

    /// A vector the opposite of `v`: like no other row's.
    fn opposite(v: &[f32]) -> Vec<f32> {
        v.iter().map(|x| -x).collect()
    }

    /// Gives the note of `rid` the vector `v`.
    fn set_vector(store: &mut SqliteStore, rid: i64, v: &[f32]) {
        store
            .write(|db| db.put_vector(VecRow::Note(crate::ids::NoteRid(rid)), &to_bytes(v)))
            .unwrap();
    }

    fn graph_files(store: &SqliteStore) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(store.path.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("graph-"))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_graph_answers_like_exact_search_and_follows_every_change() {
        let vectors = spread(600, 1);
        let (_dir, mut store) = store_with(&vectors);
        assert!(graph_unused(&store, &vectors[0]));
        assert_eq!(refresh(&mut store, 100), GraphWork::Built { vectors: 600 });
        assert_eq!(graph_files(&store).len(), 1);
        let found = store
            .db()
            .nearest(VecKind::Note, DIMS, &vectors[7], 5)
            .unwrap();
        assert_eq!(found[0].0, 8, "rid 8 holds vector 7");
        assert_eq!(
            store.db().full_code_reads(VecKind::Note),
            0,
            "no code was scanned"
        );
        // Changes after the graph: a row deleted, a summary changed (its
        // vector goes), a new row; searches see them at once.
        let new = store
            .write(|db| {
                db.conn.execute("DELETE FROM notes WHERE rid = 8", [])?;
                db.conn
                    .execute("UPDATE notes SET summary = 'changed' WHERE rid = 21", [])?;
                let note = test_note("new", "new", Timestamp::from_millis(0));
                let rid = db.insert_note(&note)?;
                assert!(db.set_vector(VecRow::Note(rid), "new", "h", &to_bytes(&vectors[20]))?);
                Ok(rid)
            })
            .unwrap();
        let found = assert_graph_answers(&store, &vectors[7], 5);
        assert!(found.iter().all(|(key, _)| *key != 8));
        let found = assert_graph_answers(&store, &vectors[20], 3);
        assert_eq!(found[0].0, new.0);
        assert!(found.iter().all(|(key, _)| *key != 21));
        let state = store.db().graph_state(VecKind::Note, folding(100)).unwrap();
        assert_eq!(
            (state.rows, state.changed, state.due),
            (Some(600), 3, false)
        );
        assert_eq!(
            refresh(&mut store, 100),
            GraphWork::Updated {
                vectors: 599,
                changed: 3
            }
        );
        assert_eq!(
            refresh(&mut store, 100),
            GraphWork::Current { vectors: 599 }
        );
        assert_eq!(graph_files(&store).len(), 1, "the older file is gone");
        let state = store.db().graph_state(VecKind::Note, folding(100)).unwrap();
        assert_eq!((state.rows, state.changed), (Some(599), 0));
        let found = assert_graph_answers(&store, &vectors[20], 3);
        assert_eq!(found[0].0, new.0);
        for q in spread(20, 2) {
            assert_graph_answers(&store, &q, 10);
        }
    }

    #[test]
    fn a_few_changes_are_searched_beside_the_graph_until_enough_are_folded_in() {
        let vectors = spread(400, 5);
        let (_dir, mut store) = store_with(&vectors);
        let sizes = GraphSizes {
            from: 100,
            fold_from: 3,
            graph_from: 0,
        };
        let refresh_with = |store: &mut SqliteStore| {
            store
                .refresh_graph(VecKind::Note, sizes, 1, &mut |_, _| true)
                .unwrap()
        };
        assert_eq!(refresh_with(&mut store), GraphWork::Built { vectors: 400 });
        let built = graph_files(&store);
        let opposite = |i: usize| opposite(&vectors[i]);
        let change = |store: &mut SqliteStore, rid: i64, like: usize| {
            set_vector(store, rid, &opposite(like));
        };
        // Two changed rows: the graph file stays, and searches find them.
        change(&mut store, 30, 200);
        change(&mut store, 31, 201);
        assert_eq!(
            refresh_with(&mut store),
            GraphWork::Recent {
                vectors: 400,
                changed: 2
            }
        );
        assert_eq!(graph_files(&store), built, "the file is left as it was");
        assert_eq!(assert_graph_answers(&store, &opposite(201), 3)[0].0, 31);
        // The third is folded in, with the two before.
        change(&mut store, 32, 202);
        assert_eq!(
            refresh_with(&mut store),
            GraphWork::Updated {
                vectors: 400,
                changed: 3
            }
        );
        assert_ne!(graph_files(&store), built);
        assert_eq!(
            refresh_with(&mut store),
            GraphWork::Current { vectors: 400 }
        );
        assert_eq!(assert_graph_answers(&store, &opposite(202), 3)[0].0, 32);
        assert_eq!(assert_graph_answers(&store, &opposite(200), 3)[0].0, 30);
    }

    #[test]
    fn a_graph_of_another_generation_or_a_lost_file_is_not_used() {
        let vectors = spread(300, 3);
        let (_dir, mut store) = store_with(&vectors);
        assert_eq!(refresh(&mut store, 100), GraphWork::Built { vectors: 300 });
        // The codes made again (as `keep repair` or a model change does).
        store.write(|db| db.create_codes()).unwrap();
        assert!(graph_unused(&store, &vectors[0]));
        assert!(
            store
                .db()
                .graph_state(VecKind::Note, folding(100))
                .unwrap()
                .due
        );
        assert_eq!(refresh(&mut store, 100), GraphWork::Built { vectors: 300 });
        assert_eq!(graph_files(&store).len(), 1);
        assert_graph_answers(&store, &vectors[0], 5);
        // The file lost, then a damaged one in its place: searches scan
        // the codes, and the next refresh builds it again.
        let file = store.path.parent().unwrap().join(&graph_files(&store)[0]);
        std::fs::remove_file(&file).unwrap();
        open_graphs().clear();
        assert!(graph_unused(&store, &vectors[0]));
        assert_eq!(
            store
                .db()
                .nearest(VecKind::Note, DIMS, &vectors[4], 1)
                .unwrap()[0]
                .0,
            5
        );
        std::fs::write(&file, b"not a graph").unwrap();
        assert!(graph_unused(&store, &vectors[0]));
        assert_eq!(refresh(&mut store, 100), GraphWork::Built { vectors: 300 });
        assert_graph_answers(&store, &vectors[0], 5);
    }

    #[test]
    fn a_small_store_has_no_graph_and_a_stopped_refresh_keeps_nothing() {
        let vectors = spread(150, 4);
        let (_dir, mut store) = store_with(&vectors);
        assert!(
            !store
                .db()
                .graph_state(VecKind::Note, folding(200))
                .unwrap()
                .due
        );
        assert_eq!(refresh(&mut store, 200), GraphWork::Small { vectors: 150 });
        assert!(graph_files(&store).is_empty());
        let stopped = store
            .refresh_graph(VecKind::Note, folding(100), 1, &mut |_, _| false)
            .unwrap();
        assert_eq!(stopped, GraphWork::Stopped);
        assert_eq!(graph_files(&store).len(), 1);
        assert!(graph_files(&store)[0].ends_with(".signs"), "no graph");
        assert_eq!(refresh(&mut store, 100), GraphWork::Built { vectors: 150 });
        // Shrunk below the size a graph starts at: the graph goes.
        store
            .write(|db| {
                db.conn.execute("DELETE FROM notes WHERE rid <= 100", [])?;
                Ok(())
            })
            .unwrap();
        assert!(
            store
                .db()
                .graph_state(VecKind::Note, folding(100))
                .unwrap()
                .rows
                .is_some()
        );
        assert_eq!(refresh(&mut store, 100), GraphWork::Small { vectors: 50 });
        assert!(graph_files(&store).is_empty());
        assert_eq!(store.db().graph_meta(VecKind::Note).unwrap(), None);
    }

    #[test]
    fn a_first_build_writes_signs_that_answer_searches_until_the_graph_is_saved() {
        let vectors = spread(600, 11);
        let (_dir, mut store) = store_with(&vectors);
        let stopped = store
            .refresh_graph(VecKind::Note, folding(100), 1, &mut |_, _| false)
            .unwrap();
        assert_eq!(stopped, GraphWork::Stopped);
        assert!(graph_unused(&store, &vectors[0]));
        let by_signs = |store: &SqliteStore, q: &[f32], k: usize| {
            store
                .db()
                .nearest_by_signs(VecKind::Note, DIMS, q, k)
                .unwrap()
                .expect("the signs answer")
        };
        for q in spread(20, 12) {
            let exact = store.db().nearest_exact(VecKind::Note, &q, 10).unwrap();
            let found = by_signs(&store, &q, 10);
            let keys = |found: &[(i64, f64)]| found.iter().map(|f| f.0).collect::<Vec<_>>();
            assert_eq!(keys(&found), keys(&exact));
            for ((_, a), (_, b)) in found.iter().zip(&exact) {
                assert!((a - b).abs() < 1e-5, "{found:?} against {exact:?}");
            }
        }
        assert_eq!(store.db().full_code_reads(VecKind::Note), 0);
        // A row changed after the signs were written is found by its new
        // vector, not its old one.
        let away: Vec<f32> = vectors[40].iter().map(|x| -x).collect();
        set_vector(&mut store, 9, &away);
        assert_eq!(by_signs(&store, &away, 1)[0].0, 9);
        assert!(by_signs(&store, &vectors[8], 3).iter().all(|f| f.0 != 9));
        // Once the graph is saved, the signs are forgotten and their file
        // removed.
        assert_eq!(refresh(&mut store, 100), GraphWork::Built { vectors: 600 });
        assert!(store.db().signs_meta(VecKind::Note).unwrap().is_none());
        let files = graph_files(&store);
        assert!(
            files.len() == 1 && files[0].ends_with(".usearch"),
            "{files:?}"
        );
        assert_graph_answers(&store, &away, 1);
    }

    #[test]
    fn below_the_size_graphs_start_at_the_signs_are_the_index_and_follow_changes() {
        let vectors = spread(600, 13);
        let (_dir, mut store) = store_with(&vectors);
        let sizes = GraphSizes {
            from: 100,
            fold_from: 3,
            graph_from: usize::MAX,
        };
        let refresh_with = |store: &mut SqliteStore, sizes: GraphSizes| {
            store
                .refresh_graph(VecKind::Note, sizes, 1, &mut |_, _| true)
                .unwrap()
        };
        let state = |store: &SqliteStore| {
            let state = store.db().graph_state(VecKind::Note, sizes).unwrap();
            (state.rows, state.signs, state.changed, state.due)
        };
        assert_eq!(state(&store), (None, None, 0, true));
        assert_eq!(
            refresh_with(&mut store, sizes),
            GraphWork::Built { vectors: 600 }
        );
        let written = graph_files(&store);
        assert!(
            written.len() == 1 && written[0].ends_with(".signs"),
            "{written:?}"
        );
        assert_eq!(state(&store), (None, Some(600), 0, false));
        assert!(graph_unused(&store, &vectors[0]));
        let found = store
            .db()
            .nearest(VecKind::Note, DIMS, &vectors[7], 5)
            .unwrap();
        assert_eq!(found[0].0, 8, "rid 8 holds vector 7");
        assert_eq!(store.db().full_code_reads(VecKind::Note), 0);
        // Two rows changed: searched beside the signs, which stay.
        let away = |i: usize| opposite(&vectors[i]);
        let change = |store: &mut SqliteStore, rid: i64, like: usize| {
            set_vector(store, rid, &away(like));
        };
        change(&mut store, 30, 200);
        change(&mut store, 31, 201);
        let nearest = |store: &SqliteStore, q: &[f32]| {
            store.db().nearest(VecKind::Note, DIMS, q, 3).unwrap()[0].0
        };
        assert_eq!(nearest(&store, &away(201)), 31);
        assert_eq!(
            refresh_with(&mut store, sizes),
            GraphWork::Recent {
                vectors: 600,
                changed: 2
            }
        );
        assert_eq!(graph_files(&store), written);
        assert_eq!(state(&store), (None, Some(600), 2, false));
        // The third: written again, the older file gone.
        change(&mut store, 32, 202);
        assert_eq!(
            refresh_with(&mut store, sizes),
            GraphWork::Updated {
                vectors: 600,
                changed: 3
            }
        );
        let rewritten = graph_files(&store);
        assert!(
            rewritten.len() == 1 && rewritten != written,
            "{rewritten:?}"
        );
        assert_eq!(nearest(&store, &away(202)), 32);
        // From the size graphs start at, a graph replaces the signs; and
        // below it again, the signs replace the graph.
        let graph_sizes = GraphSizes {
            graph_from: 600,
            ..sizes
        };
        assert!(!state(&store).3);
        assert!(
            store
                .db()
                .graph_state(VecKind::Note, graph_sizes)
                .unwrap()
                .due
        );
        assert_eq!(
            refresh_with(&mut store, graph_sizes),
            GraphWork::Built { vectors: 600 }
        );
        let files = graph_files(&store);
        assert!(
            files.len() == 1 && files[0].ends_with(".usearch"),
            "{files:?}"
        );
        assert!(store.db().signs_meta(VecKind::Note).unwrap().is_none());
        assert_graph_answers(&store, &away(202), 1);
        assert!(
            state(&store).3,
            "a graph below the size graphs start at is due"
        );
        assert_eq!(
            refresh_with(&mut store, sizes),
            GraphWork::Built { vectors: 600 }
        );
        let files = graph_files(&store);
        assert!(
            files.len() == 1 && files[0].ends_with(".signs"),
            "{files:?}"
        );
        assert_eq!(store.db().graph_meta(VecKind::Note).unwrap(), None);
        assert_eq!(nearest(&store, &away(202)), 32);
    }

    #[test]
    fn many_threads_search_one_graph_at_once() {
        let vectors = spread(400, 6);
        let (dir, mut store) = store_with(&vectors);
        assert_eq!(refresh(&mut store, 100), GraphWork::Built { vectors: 400 });
        std::thread::scope(|scope| {
            for t in 0..8 {
                let (dir, vectors) = (dir.path(), &vectors);
                scope.spawn(move || {
                    let store = SqliteStore::open(dir).unwrap();
                    for i in 0..50 {
                        let n = (t * 50 + i) % vectors.len();
                        let found = store
                            .db()
                            .nearest_by_graph(VecKind::Note, DIMS, &vectors[n], 3)
                            .unwrap()
                            .expect("the graph answers every search");
                        assert_eq!(found[0].0, n as i64 + 1, "{found:?}");
                    }
                });
            }
        });
        assert_eq!(store.db().full_code_reads(VecKind::Note), 0);
    }

    #[test]
    fn one_process_refreshes_at_a_time() {
        let vectors = spread(120, 5);
        let (_dir, mut store) = store_with(&vectors);
        let held = RefreshLock::take(store.path.parent().unwrap()).unwrap();
        assert!(held.is_some());
        assert_eq!(refresh(&mut store, 100), GraphWork::Busy);
        drop(held);
        assert_eq!(refresh(&mut store, 100), GraphWork::Built { vectors: 120 });
    }

    #[test]
    fn a_second_builder_waits_for_the_first_and_builds_nothing() {
        use std::sync::mpsc;
        let vectors = spread(5_000, 9);
        let (_dir, mut first) = store_with(&vectors);
        let mut second = SqliteStore::open(first.path.parent().unwrap()).unwrap();
        let (started, building) = mpsc::channel::<()>();
        let (seen, go_on) = mpsc::channel::<GraphBuild>();
        std::thread::scope(|scope| {
            let builder = scope.spawn(move || {
                let mut told = false;
                first
                    .refresh_graph(VecKind::Note, folding(100), 1, &mut |_, _| {
                        if !told {
                            told = true;
                            started.send(()).unwrap();
                            // Holds the build until the second has seen it.
                            let build = go_on.recv().unwrap();
                            assert_eq!(build.kind, Some(VecKind::Note));
                            assert_eq!(build.total, 5_000);
                        }
                        true
                    })
                    .unwrap()
            });
            building.recv().unwrap();
            let mut heard = Vec::new();
            let work = second
                .refresh_graph_or_wait(
                    VecKind::Note,
                    folding(100),
                    1,
                    &mut |_, _| true,
                    &mut |build| {
                        if heard.is_empty() {
                            seen.send(*build).unwrap();
                        }
                        heard.push(*build);
                        true
                    },
                )
                .unwrap();
            assert_eq!(builder.join().unwrap(), GraphWork::Built { vectors: 5_000 });
            assert_eq!(work, GraphWork::Waited { vectors: 5_000 });
            assert!(heard.iter().all(|b| b.total == 5_000), "{heard:?}");
        });
        assert_eq!(graph_files(&second).len(), 1);
        assert_eq!(second.graph_build().unwrap(), None);
    }

    #[test]
    fn the_graph_read_in_place_finds_what_usearch_finds() {
        let vectors = spread(3_000, 11);
        let (_dir, mut store) = store_with(&vectors);
        assert_eq!(
            refresh(&mut store, 100),
            GraphWork::Built { vectors: 3_000 }
        );
        let dir = store.path.parent().unwrap().to_path_buf();
        let file = dir.join(&graph_files(&store)[0]);
        let view = GraphView::open(&file, DIMS).expect("the saved graph opens");
        assert_eq!(view.size(), 3_000);
        let theirs = Index::restore_view(file.to_str().unwrap()).unwrap();
        theirs.change_expansion_search(EXPANSION_SEARCH);
        let (mut same, mut total) = (0, 0);
        for q in spread(40, 12) {
            let ours = view.search(&q, 10, EXPANSION_SEARCH, &|_| false);
            let (_, code) = quant::quantize(&q);
            let found = theirs.search(&code, 10).unwrap();
            assert_eq!(ours.len(), 10);
            total += 10;
            same += ours.iter().filter(|k| found.keys.contains(k)).count();
            // Keys the caller leaves out never come back.
            let without = view.search(&q, 10, EXPANSION_SEARCH, &|k| k == ours[0]);
            assert!(!without.contains(&ours[0]));
            assert_eq!(without[0], ours[1]);
        }
        assert!(same * 100 >= total * 95, "{same} of {total} the same");
        // Not a graph, a graph of other codes, a cut file: none opens.
        std::fs::write(dir.join("bad"), b"not a graph").unwrap();
        assert!(GraphView::open(&dir.join("bad"), DIMS).is_none());
        assert!(GraphView::open(&file, DIMS + 1).is_none());
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(dir.join("cut"), &bytes[..bytes.len() - 100]).unwrap();
        assert!(GraphView::open(&dir.join("cut"), DIMS).is_none());
    }

    #[test]
    fn graph_meta_reads_only_what_it_wrote() {
        let meta = GraphMeta {
            generation: 3,
            change: 42,
            file: "graph-codes_notes-3-42.usearch".into(),
        };
        assert_eq!(GraphMeta::parse(&meta.value()), Some(meta));
        for bad in ["", "3 42", "x 42 f", "3 42 ../f", "3 42 f g", "3 42 a/b"] {
            assert_eq!(GraphMeta::parse(bad), None, "{bad}");
        }
    }
}
