//! Upkeep of the FTS5 word indexes. Each write adds a segment to an index
//! and FTS5 merges them only in part, so a store written note by note or
//! imported in bulk ends with a score of segments; looking a word up for
//! fifty notes of a million then reads every one of them (13 ms against
//! 0.4 ms once merged). An index holding more than `MAX_SEGMENTS` is
//! merged into one, a slice per transaction, so writers wait for a slice
//! at most.

use rusqlite::Connection;

use super::SqliteStore;
use crate::error::Result;

/// The FTS5 indexes kept, each with what it indexes.
pub(super) const TEXT_INDEXES: [(&str, &str); 5] = [
    ("notes_fts", "summaries and tags"),
    ("names_fts", "names"),
    ("body_fts", "full texts"),
    ("parts_fts", "parts"),
    ("versions_fts", "versions"),
];

/// Segments an index may hold before it is merged. Writes add them by
/// the thousand; FTS5's own merging keeps a few per level of size.
pub const MAX_SEGMENTS: i64 = 12;

/// Pages written per slice of a merge (about 20 ms).
const SLICE_PAGES: i64 = 500;

/// How many segments the FTS5 index `table` holds: one seek per segment
/// in its table of segment pages, never a scan.
fn segments(conn: &Connection, table: &str) -> Result<i64> {
    let sql = format!(
        "WITH RECURSIVE s(id) AS (
             SELECT min(segid) FROM {table}_idx
             UNION ALL
             SELECT (SELECT min(segid) FROM {table}_idx WHERE segid > s.id) FROM s
             WHERE s.id IS NOT NULL)
         SELECT count(id) FROM s"
    );
    Ok(conn.prepare_cached(&sql)?.query_row([], |r| r.get(0))?)
}

/// A word index and the segments it holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct TextIndexState {
    /// What it indexes: "summaries and tags", "names", "full texts",
    /// "parts" or "versions".
    pub index: &'static str,
    pub segments: i64,
}

/// What a merge of the word indexes did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct TextMerge {
    /// The indexes merged into one segment, with the segments each held.
    pub merged: Vec<TextIndexState>,
    /// Whether it stopped before all were merged.
    pub stopped: bool,
}

impl SqliteStore {
    /// The word indexes holding more segments than `MAX_SEGMENTS`.
    pub fn text_indexes_due(&self) -> Result<Vec<TextIndexState>> {
        Ok(self
            .due_tables()?
            .into_iter()
            .map(|(_, state)| state)
            .collect())
    }

    fn due_tables(&self) -> Result<Vec<(&'static str, TextIndexState)>> {
        let mut due = Vec::new();
        for (table, index) in TEXT_INDEXES {
            let segments = segments(&self.conn, table)?;
            if segments > MAX_SEGMENTS {
                due.push((table, TextIndexState { index, segments }));
            }
        }
        Ok(due)
    }

    /// Merges each index that is due into one segment, a slice per
    /// transaction; `progress(index, pages done, pages)` hears each slice
    /// and stops the merge by answering false (what is merged so far is
    /// kept). A store opened for reading is left as it is.
    pub fn merge_text_indexes(
        &mut self,
        progress: &mut dyn FnMut(&str, usize, usize) -> bool,
    ) -> Result<TextMerge> {
        let mut report = TextMerge::default();
        if self.read_only {
            return Ok(report);
        }
        for (table, state) in self.due_tables()? {
            let pages = pages(&self.conn, table)?;
            let mut done = 0;
            loop {
                if !progress(state.index, done.min(pages), pages) {
                    report.stopped = true;
                    return Ok(report);
                }
                if !self.merge_slice(table)? {
                    break;
                }
                done += SLICE_PAGES as usize;
            }
            report.merged.push(state);
        }
        Ok(report)
    }

    /// One slice of the merge of `table`; false when nothing was left to
    /// merge.
    fn merge_slice(&mut self, table: &str) -> Result<bool> {
        self.write(|db| {
            let before = db.conn.total_changes();
            db.conn.execute(
                &format!("INSERT INTO {table} ({table}, rank) VALUES ('merge', ?1)"),
                [-SLICE_PAGES],
            )?;
            // FTS5 says a slice found nothing left to merge by changing
            // fewer than two rows.
            Ok(db.conn.total_changes() - before >= 2)
        })
    }
}

/// The pages of the FTS5 index `table`: what a merge into one segment
/// writes, about.
fn pages(conn: &Connection, table: &str) -> Result<usize> {
    let n: i64 = conn.query_row(&format!("SELECT count(*) FROM {table}_data"), [], |r| {
        r.get(0)
    })?;
    Ok(n.max(0) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;
    use crate::store::test_note;
    use keep_model::NoteFilter;
    use keep_model::time::Timestamp;

    /// A store of `n` notes, each written in its own transaction.
    fn store_written_one_by_one(n: usize) -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = SqliteStore::open(dir.path()).unwrap();
        for i in 0..n {
            store
                .write(|db| {
                    let summary = format!("lamp {} wick oil {}", i % 7, i % 3);
                    let note = test_note(&format!("n{i}"), &summary, Timestamp::from_millis(0));
                    let rid = db.insert_note(&note)?;
                    db.index_note_text(rid, &note.summary, &note.tags)
                })
                .unwrap();
        }
        (dir, store)
    }

    fn found(store: &SqliteStore, query: &str) -> Vec<crate::ids::NoteRid> {
        let db = store.db();
        let plan = db.keyword_plan(query).unwrap().unwrap();
        db.keyword_search(&plan, &NoteFilter::default(), 1000)
            .unwrap()
            .into_iter()
            .map(|h| h.rid)
            .collect()
    }

    #[test]
    fn an_index_of_many_segments_is_merged_into_one_and_answers_alike() {
        let (_dir, mut store) = store_written_one_by_one(300);
        let held = segments(&store.conn, "notes_fts").unwrap();
        assert!(held > MAX_SEGMENTS, "{held} segments");
        let before = found(&store, "wick");
        assert_eq!(before.len(), 300);
        let due = store.text_indexes_due().unwrap();
        assert_eq!(
            due[0],
            TextIndexState {
                index: "summaries and tags",
                segments: held
            }
        );
        assert_eq!(due[1].index, "names");

        let report = store.merge_text_indexes(&mut |_, _, _| true).unwrap();
        assert_eq!(report.merged, due);
        assert_eq!(segments(&store.conn, "notes_fts").unwrap(), 1);
        assert!(store.text_indexes_due().unwrap().is_empty());
        assert_eq!(found(&store, "wick"), before);
        assert!(store.check().unwrap().is_empty());
        // Nothing left: nothing done.
        assert_eq!(
            store.merge_text_indexes(&mut |_, _, _| true).unwrap(),
            TextMerge::default()
        );
    }

    #[test]
    fn a_stopped_merge_leaves_a_whole_index() {
        let (_dir, mut store) = store_written_one_by_one(300);
        assert!(!store.text_indexes_due().unwrap().is_empty());
        let report = store.merge_text_indexes(&mut |_, _, _| false).unwrap();
        assert!(report.stopped && report.merged.is_empty());
        assert_eq!(found(&store, "lamp").len(), 300);
        assert!(store.check().unwrap().is_empty());
    }
}
