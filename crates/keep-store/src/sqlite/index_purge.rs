//! The codes of purged rows taken out of the index files beside the
//! database. An index file is made from the codes as they stood at one
//! change and searches leave out the rows changed since, so a purged row
//! is never found through it; but its code would stay in the file until
//! the next rebuild. A purge records the keys of the rows it removed, in
//! the same transaction, and then overwrites their codes (and, in a
//! signs file, their bits and scale) with zeros in every index file of
//! the kind, and marks their graph nodes removed, with the refresh lock
//! held. While another process holds the lock, its refresh does it
//! before it lets go.

use crate::prelude::*;
use std::collections::HashSet;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::graph_view::GraphView;
use super::signs::Signs;
use super::{SqliteDb, SqliteStore, code_cache};
use crate::error::{Error, Result};
use crate::vectors::VecKind;

/// The meta key listing the purged rows of a kind whose codes may still
/// be in an index file.
fn pending_key(kind: VecKind) -> String {
    format!("purged_{}", kind.code_table())
}

/// Where each kind's code log stood before a purge.
pub(super) struct LogMarks([i64; 3]);

impl SqliteDb<'_> {
    pub(super) fn log_marks(&self) -> Result<LogMarks> {
        let mut marks = [0; 3];
        for (mark, kind) in marks.iter_mut().zip(VecKind::ALL) {
            *mark = self.log_sequence(kind)?;
        }
        Ok(LogMarks(marks))
    }

    /// Records the rows whose codes were deleted since `marks` (and are
    /// still gone) as purged, for their codes to be taken out of the
    /// index files.
    pub(super) fn record_purged_codes(&self, marks: &LogMarks) -> Result<()> {
        if !self.has_codes()? {
            return Ok(());
        }
        for (mark, kind) in marks.0.iter().zip(VecKind::ALL) {
            let gone: Vec<i64> = self
                .conn
                .prepare(&format!(
                    "SELECT DISTINCT key FROM {log} WHERE seq > ?1
                       AND key NOT IN (SELECT key FROM {codes})",
                    log = code_cache::log_table(kind),
                    codes = kind.code_table(),
                ))?
                .query_map([mark], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            if gone.is_empty() {
                continue;
            }
            let mut keys = self.purged_codes(kind)?;
            keys.extend(gone);
            let value: Vec<String> = keys.iter().map(i64::to_string).collect();
            self.set_meta(&pending_key(kind), &value.join(" "))?;
        }
        Ok(())
    }

    /// The purged rows of a kind whose codes may still be in an index
    /// file.
    fn purged_codes(&self, kind: VecKind) -> Result<HashSet<i64>> {
        Ok(self
            .meta(&pending_key(kind))?
            .unwrap_or_default()
            .split(' ')
            .filter_map(|k| k.parse().ok())
            .collect())
    }

    /// Of `keys`, those no row holds now (a key a later write took again
    /// is that row's).
    fn still_gone(&self, kind: VecKind, keys: HashSet<i64>) -> Result<HashSet<i64>> {
        let mut held = self.conn.prepare_cached(&format!(
            "SELECT 1 FROM {} WHERE key = ?1",
            kind.code_table()
        ))?;
        let mut gone = HashSet::with_capacity(keys.len());
        for key in keys {
            if !held.exists([key])? {
                gone.insert(key);
            }
        }
        Ok(gone)
    }
}

impl SqliteStore {
    /// Takes the codes of purged rows out of every index file, with the
    /// refresh lock held by the caller; stale partial files of a kind
    /// with purged rows are removed.
    pub(super) fn drop_purged_codes(&mut self, dir: &Path) -> Result<()> {
        let dims = self.db().vector_space()?.map(|s| s.dims);
        for kind in VecKind::ALL {
            let db = self.db();
            let pending = db.purged_codes(kind)?;
            if pending.is_empty() {
                continue;
            }
            let gone = db.still_gone(kind, pending)?;
            if let Some(dims) = dims {
                for path in index_files(dir, kind) {
                    zero_rows(&path, dims, &gone)?;
                }
            }
            self.write(|db| {
                db.conn
                    .execute("DELETE FROM meta WHERE key = ?1", [pending_key(kind)])?;
                Ok(())
            })?;
        }
        Ok(())
    }
}

/// The index files of a kind in `dir` (graphs and signs of any change or
/// generation); half-written ones, left by a refresh that stopped, are
/// removed instead.
fn index_files(dir: &Path, kind: VecKind) -> Vec<std::path::PathBuf> {
    let prefix = format!("graph-{}-", kind.code_table());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(&prefix) {
            continue;
        }
        if name.ends_with(".partial") {
            let _ = std::fs::remove_file(entry.path());
        } else {
            files.push(entry.path());
        }
    }
    files
}

/// Overwrites the rows of `keys` in the index file at `path` with zeros:
/// their codes, and their bits and scales in a signs file; graph nodes
/// keep their links (a walk passes through them) but lose their key.
fn zero_rows(path: &Path, dims: usize, keys: &HashSet<i64>) -> Result<()> {
    let spans = if path.extension().is_some_and(|e| e == "signs") {
        Signs::open(path, dims).map(|s| s.spans_of(keys))
    } else {
        GraphView::open(path, dims).map(|g| g.spans_of(keys))
    };
    let Some(spans) = spans else {
        return Ok(());
    };
    if spans.is_empty() {
        return Ok(());
    }
    let file = File::options()
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    for (at, bytes) in &spans {
        file.write_all_at(bytes, *at as u64)
            .map_err(|e| Error::io(path, e))?;
    }
    file.sync_data().map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NoteRid;
    use crate::sqlite::forget::Scrub;
    use crate::sqlite::graph::tests::spread;
    use crate::sqlite::graph::{GraphSizes, GraphWork, RefreshLock};
    use crate::sqlite::vectors::tests::{DIMS, store_with};
    use crate::tables::NoteRows;

    fn sizes(graph_from: usize) -> GraphSizes {
        GraphSizes {
            from: 10,
            fold_from: 1,
            graph_from,
        }
    }

    fn refresh(store: &mut SqliteStore, graph_from: usize) -> GraphWork {
        store
            .refresh_graph(VecKind::Note, sizes(graph_from), 1, &mut |_, _| true)
            .expect("refresh")
    }

    /// The code key of note `n{i}` and its code.
    fn code_of(store: &SqliteStore, i: usize) -> (i64, Vec<u8>) {
        store
            .conn
            .query_row(
                "SELECT c.key, c.code FROM codes_notes c JOIN notes n ON n.rid = c.key
                 WHERE n.id = ?1",
                [format!("n{i}")],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("the note has a code")
    }

    fn purge(store: &mut SqliteStore, key: i64) -> Scrub {
        store
            .purge(|db| db.delete_note(NoteRid(key)))
            .expect("purge")
            .1
    }

    /// The one index file of the store's folder, and its bytes.
    fn index_file(store: &SqliteStore) -> (std::path::PathBuf, Vec<u8>) {
        let dir = store.path.parent().expect("a folder");
        let files = index_files(dir, VecKind::Note);
        assert_eq!(files.len(), 1, "{files:?}");
        let bytes = std::fs::read(&files[0]).expect("readable");
        (files[0].clone(), bytes)
    }

    /// Where the rows of `key` lie in the index file at `path`.
    fn spans(path: &Path, key: i64) -> Vec<(usize, Vec<u8>)> {
        let keys = HashSet::from([key]);
        if path.extension().is_some_and(|e| e == "signs") {
            Signs::open(path, DIMS).expect("signs").spans_of(&keys)
        } else {
            GraphView::open(path, DIMS).expect("graph").spans_of(&keys)
        }
    }

    /// Purges a note of a store whose index is signs (`graph_from`
    /// beyond its size) or a graph, and checks that its code is gone from
    /// the file and the others' are not, and that searches still answer.
    fn purge_drops_the_code(graph_from: usize, suffix: &str) {
        let all = spread(200, 5);
        let (_dir, mut store) = store_with(&all);
        assert!(matches!(
            refresh(&mut store, graph_from),
            GraphWork::Built { .. }
        ));
        let (path, before) = index_file(&store);
        assert!(path.to_string_lossy().ends_with(suffix), "{path:?}");
        let (key, code) = code_of(&store, 7);
        let (other, other_code) = code_of(&store, 8);
        let rows = spans(&path, key);
        assert!(!rows.is_empty());
        let code_at = rows
            .iter()
            .find(|(_, b)| b.len() == DIMS)
            .expect("a code")
            .0;
        assert_eq!(&before[code_at..code_at + DIMS], &code[..]);

        let scrub = purge(&mut store, key);
        assert!(!scrub.index_kept);
        let (_, after) = index_file(&store);
        assert_eq!(after.len(), before.len());
        assert!(after[code_at..code_at + DIMS].iter().all(|&b| b == 0));
        assert!(
            spans(&path, other)
                .iter()
                .any(|(at, b)| b.len() == DIMS && after[*at..*at + DIMS] == other_code[..])
        );
        if suffix == ".usearch" {
            assert!(spans(&path, key).is_empty(), "the node keeps no key");
        }
        let db = store.db();
        assert!(db.purged_codes(VecKind::Note).expect("meta").is_empty());
        let found = db.nearest_exact(VecKind::Note, &all[7], 3).expect("search");
        assert!(found.iter().all(|(k, _)| *k != key), "{found:?}");
    }

    #[test]
    fn a_purge_zeroes_the_code_in_the_signs_file() {
        purge_drops_the_code(usize::MAX, ".signs");
    }

    #[test]
    fn a_purge_zeroes_the_code_and_key_in_the_graph_file() {
        purge_drops_the_code(0, ".usearch");
    }

    #[test]
    fn a_purge_during_a_refresh_leaves_the_code_to_that_refresh() {
        let all = spread(200, 5);
        let (_dir, mut store) = store_with(&all);
        refresh(&mut store, usize::MAX);
        let (path, _) = index_file(&store);
        let (key, code) = code_of(&store, 3);
        let code_at = spans(&path, key)
            .into_iter()
            .find(|(_, b)| b.len() == DIMS)
            .expect("a code")
            .0;
        let held = RefreshLock::take(path.parent().expect("a folder"))
            .expect("lock file")
            .expect("free");
        let scrub = purge(&mut store, key);
        assert!(scrub.index_kept);
        let (_, kept) = index_file(&store);
        assert_eq!(&kept[code_at..code_at + DIMS], &code[..]);
        assert_eq!(
            store.db().purged_codes(VecKind::Note).expect("meta"),
            HashSet::from([key])
        );
        drop(held);
        refresh(&mut store, usize::MAX);
        for file in index_files(path.parent().expect("a folder"), VecKind::Note) {
            let bytes = std::fs::read(&file).expect("readable");
            assert!(!bytes.windows(DIMS).any(|w| w == &code[..]), "{file:?}");
        }
        assert!(
            store
                .db()
                .purged_codes(VecKind::Note)
                .expect("meta")
                .is_empty()
        );
    }
}
