//! Keyword search over the FTS5 indexes, as `store::keyword` asks it: the
//! hits of each index ranked by BM25 (or newest first), and the rows that
//! hold a word counted through the index.

use std::collections::HashMap;

use super::SqliteDb;
use crate::error::Result;
use crate::ids::NoteRid;
use crate::keyword::{BM25_SUMMARY, BM25_TAGS, BODY_FACTOR, NAME_FACTOR};
use crate::keyword::{IndexSearch, TextIndex, TextSearch};
use crate::plain::Query;
use crate::plan::Join;

/// The FTS5 expression matching notes with all or any of `words`.
fn expression(words: &[String], join: Join) -> String {
    quoted(words, if join == Join::All { "AND" } else { "OR" })
}

/// Every word quoted, so no user input is read as FTS5 syntax.
fn quoted(words: &[String], operator: &str) -> String {
    words
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(&format!(" {operator} "))
}

/// The FTS5 table of an index, its BM25 call and the weight of its scores.
fn fts(index: TextIndex) -> (&'static str, String, f64) {
    match index {
        TextIndex::NoteText => (
            "notes_fts",
            format!("bm25(notes_fts, {BM25_SUMMARY:?}, {BM25_TAGS:?})"),
            1.0,
        ),
        TextIndex::NoteNames => ("names_fts", "bm25(names_fts)".into(), NAME_FACTOR),
        TextIndex::Bodies => ("body_fts", "bm25(body_fts)".into(), BODY_FACTOR),
        TextIndex::Parts => ("parts_fts", "bm25(parts_fts)".into(), 1.0),
        TextIndex::Versions => ("versions_fts", "bm25(versions_fts)".into(), 1.0),
    }
}

/// The FTS5 select for one index: `(rid, score)` rows, best (or newest)
/// first, at most `rows` of them, matching `expr`; with `skip`, only
/// the rows from the one past `skip` newer matches on.
fn index_hits(
    index: TextIndex,
    ranked: bool,
    expr: &str,
    rows: &str,
    skip: Option<&str>,
) -> String {
    let (table, bm25, weight) = fts(index);
    let (score, order) = if ranked {
        (format!("-{weight:?} * {bm25}"), "2 DESC")
    } else {
        ("0.0".to_string(), "rowid DESC")
    };
    // FTS5 walks a word's rows by rowid, so the window costs a read of
    // its rows, not a score of each.
    let window = skip.map_or(String::new(), |skip| {
        format!(
            " AND rowid >= coalesce((SELECT rowid FROM {table} WHERE {table} MATCH {expr}
                                     ORDER BY rowid DESC LIMIT 1 OFFSET {skip}), 0)"
        )
    });
    format!(
        "SELECT * FROM (SELECT rowid AS rid, {score} AS score FROM {table}
         WHERE {table} MATCH {expr}{window} ORDER BY {order} LIMIT {rows})"
    )
}

impl TextSearch for SqliteDb<'_> {
    /// Read from the count the store's triggers keep.
    fn note_total(&self) -> Result<f64> {
        let total: i64 = self
            .conn
            .prepare_cached(crate::reads::SQLITE_NOTE_TOTAL)?
            .query_row([], |r| r.get(0))?;
        Ok(total as f64)
    }

    fn part_total(&self) -> Result<f64> {
        let total: i64 = self
            .conn
            .prepare_cached(
                "SELECT coalesce((SELECT n FROM counts WHERE name = 'parts'),
                                 (SELECT count(*) FROM parts))",
            )?
            .query_row([], |r| r.get(0))?;
        Ok(total as f64)
    }

    /// Reads at most `cap` rows of the index.
    fn rows_holding_word(&self, index: TextIndex, word: &str, cap: i64) -> Result<f64> {
        let (table, _, _) = fts(index);
        let sql =
            format!("SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ?1 LIMIT ?2)");
        let expr = quoted(std::slice::from_ref(&word.to_string()), "");
        let count: i64 = self
            .conn
            .prepare_cached(&sql)?
            .query_row(rusqlite::params![expr, cap], |r| r.get(0))?;
        Ok(count as f64)
    }

    fn hits_clause(&self, q: &mut Query, search: &IndexSearch<'_>) -> Result<String> {
        let expr = q.arg(expression(search.words, search.join));
        let rows = q.arg(search.rows);
        let skip = search.newest.map(|n| q.arg(n - 1));
        let selects: Vec<String> = search
            .indexes
            .iter()
            .map(|&index| index_hits(index, search.ranked, &expr, &rows, skip.as_deref()))
            .collect();
        Ok(format!("WITH hits AS ({})", selects.join(" UNION ALL ")))
    }

    fn words_held(&self, rids: &[NoteRid], words: &[String]) -> Result<HashMap<NoteRid, u64>> {
        let mut held = HashMap::new();
        if rids.is_empty() {
            return Ok(held);
        }
        let list =
            serde_json::to_string(&rids.iter().map(|r| r.0).collect::<Vec<_>>()).expect("ints");
        // One seek per note and index (FTS5 looks the rowid up in the
        // word's list), never a walk through every note holding a common
        // word: at 10,000 notes a find through a server went from 40 to
        // 23 ms.
        let mut stmt = self.conn.prepare_cached(
            "SELECT j.value FROM json_each(?2) AS j
             WHERE EXISTS (SELECT 1 FROM notes_fts WHERE notes_fts MATCH ?1 AND rowid = j.value)
                OR EXISTS (SELECT 1 FROM body_fts WHERE body_fts MATCH ?1 AND rowid = j.value)
                OR EXISTS (SELECT 1 FROM names_fts WHERE names_fts MATCH ?1 AND rowid = j.value)",
        )?;
        for (i, word) in words.iter().take(64).enumerate() {
            let expr = quoted(std::slice::from_ref(word), "");
            let found = stmt.query_map(rusqlite::params![expr, list], |r| r.get::<_, i64>(0))?;
            for rid in found {
                *held.entry(NoteRid(rid?)).or_insert(0) |= 1u64 << i;
            }
        }
        Ok(held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyword::Keyword;
    use crate::plan::KeywordPlan;
    use crate::plan::words;
    use crate::prelude::*;
    use crate::reads::NoteReads;
    use crate::sqlite::SqliteStore as Store;
    use crate::store::test_note;
    use crate::types::FtsHit;
    use keep_model::NoteFilter;
    use keep_model::time::Timestamp;

    /// A store whose notes have these summaries, rids 1, 2, ... in order.
    fn store_of(summaries: &[&str]) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        store
            .write(|db| {
                for (i, summary) in summaries.iter().enumerate() {
                    let at = Timestamp::from_millis(1_000 * i as i64);
                    let note = test_note(&format!("n{}", i + 1), summary, at);
                    let rid = db.insert_note(&note)?;
                    db.index_note_text(rid, summary, &note.tags)?;
                }
                Ok(())
            })
            .unwrap();
        (dir, store)
    }

    fn ids(db: &SqliteDb<'_>, hits: &[FtsHit]) -> Vec<String> {
        hits.iter()
            .map(|h| db.note_by_rid(h.rid).unwrap().unwrap().id)
            .collect()
    }

    #[test]
    fn common_words_are_left_out_when_a_rarer_one_is_asked() {
        let (_dir, store) = store_of(&["alpha one", "alpha two", "alpha three beta", "alpha"]);
        let db = store.db();
        let plan = db.plan_words(words("Alpha beta"), 2).unwrap().unwrap();
        assert_eq!(
            plan,
            KeywordPlan::Ranked {
                any: vec!["beta".into()]
            }
        );
        let hits = db
            .keyword_search(&plan, &NoteFilter::default(), 10)
            .unwrap();
        assert_eq!(ids(&db, &hits), ["n3"]);
        // With the usual threshold no word of a small store is common.
        let plan = db.keyword_plan("alpha beta").unwrap().unwrap();
        let hits = db
            .keyword_search(&plan, &NoteFilter::default(), 10)
            .unwrap();
        assert_eq!(ids(&db, &hits)[0], "n3");
        assert_eq!(hits.len(), 4);
    }

    #[test]
    fn only_common_words_give_notes_with_all_then_any_newest_first() {
        let (_dir, store) = store_of(&["alpha beta", "alpha", "beta", "alpha beta", "gamma"]);
        let db = store.db();
        let plan = db.plan_words(words("beta alpha"), 2).unwrap().unwrap();
        assert!(matches!(plan, KeywordPlan::Newest { .. }));
        let hits = db
            .keyword_search(&plan, &NoteFilter::default(), 10)
            .unwrap();
        assert_eq!(ids(&db, &hits), ["n4", "n1", "n3", "n2"]);
        let scores: Vec<f64> = hits.iter().map(|h| h.score).collect();
        assert_eq!(scores, [1.0, 0.5, 1.0 / 3.0, 0.25]);
        let first = db.keyword_search(&plan, &NoteFilter::default(), 1).unwrap();
        assert_eq!(ids(&db, &first), ["n4"]);
        assert_eq!(db.plan_words(words(" ,, "), 2).unwrap(), None);
    }

    #[test]
    fn past_the_window_only_the_latest_matches_are_ranked_unless_filtered() {
        use crate::keyword::RANKED_WINDOW;
        let window = RANKED_WINDOW as usize;
        let mut summaries = vec!["alpha alpha alpha", "alpha alpha"];
        summaries.resize(window + 1, "alpha and some other words");
        let (_dir, mut store) = store_of(&summaries);
        let db = store.db();
        let plan = db.plan_words(words("alpha"), 100_000).unwrap().unwrap();
        assert!(plan.ranked());
        let hits = db.keyword_search(&plan, &NoteFilter::default(), 3).unwrap();
        assert_eq!(ids(&db, &hits)[0], "n2", "the best of the latest {window}");
        let filtered = NoteFilter {
            since: Some(Timestamp::from_millis(0)),
            ..NoteFilter::default()
        };
        let hits = db.keyword_search(&plan, &filtered, 3).unwrap();
        assert_eq!(
            ids(&db, &hits)[..2],
            ["n1", "n2"],
            "a filter ranks every match"
        );
        store
            .write(|db| {
                db.conn.execute("DELETE FROM notes WHERE rid = 5", [])?;
                Ok(())
            })
            .unwrap();
        let db = store.db();
        let hits = db.keyword_search(&plan, &NoteFilter::default(), 3).unwrap();
        assert_eq!(
            ids(&db, &hits)[..2],
            ["n1", "n2"],
            "{window} matches are all ranked"
        );
    }

    #[test]
    fn the_note_total_follows_puts_and_deletes() {
        let (_dir, mut store) = store_of(&["alpha", "beta", "gamma"]);
        assert_eq!(store.db().note_total().unwrap(), 3.0);
        store
            .write(|db| {
                db.conn.execute("DELETE FROM notes WHERE rid = 2", [])?;
                Ok(())
            })
            .unwrap();
        let db = store.db();
        let counted: i64 = db
            .conn
            .query_row("SELECT count(*) FROM notes", [], |r| r.get(0))
            .unwrap();
        assert_eq!((db.note_total().unwrap(), counted), (2.0, 2));
        assert!(store.check().unwrap().is_empty());
        // A lost count: every note is counted, and the check says so.
        db.conn.execute("DELETE FROM counts", []).unwrap();
        assert_eq!(db.note_total().unwrap(), 2.0);
        assert_eq!(
            store.check().unwrap(),
            ["2 note(s) miscounted by the store's count of notes"]
        );
    }

    #[test]
    fn words_are_quoted_so_they_are_never_syntax() {
        let words = ["a".to_string(), "near".to_string(), "b".to_string()];
        assert_eq!(expression(&words, Join::Any), "\"a\" OR \"near\" OR \"b\"");
        assert_eq!(expression(&words[..1], Join::All), "\"a\"");
    }
}

#[cfg(test)]
mod name_tests {
    use crate::prelude::*;
    use crate::sqlite::SqliteStore as Store;
    use crate::store::test_note;
    use keep_model::NoteFilter;
    use keep_model::time::Timestamp;

    fn found(store: &Store, query: &str) -> Vec<String> {
        let db = store.db();
        let Some(plan) = db.keyword_plan(query).unwrap() else {
            return Vec::new();
        };
        db.keyword_search(&plan, &NoteFilter::default(), 10)
            .unwrap()
            .iter()
            .map(|h| db.note_by_rid(h.rid).unwrap().unwrap().id)
            .collect()
    }

    #[test]
    fn notes_are_found_by_the_words_of_their_names_and_follow_renames() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let ids = [
            "notes/caribou-migration",
            "file:///home/ana/projects/reindeer-plan.txt",
            "https://example.org/guides/",
        ];
        let rids = store
            .write(|db| {
                let mut rids = Vec::new();
                for id in ids {
                    let note = test_note(id, "Herd counts.", Timestamp::from_millis(0));
                    let rid = db.insert_note(&note)?;
                    db.index_note_text(rid, &note.summary, &note.tags)?;
                    rids.push(rid);
                }
                Ok(rids)
            })
            .unwrap();
        assert_eq!(found(&store, "caribou"), [ids[0]]);
        assert_eq!(found(&store, "reindeer plans"), [ids[1]]);
        // Only a URI's last segment names it; its folders do not.
        assert!(found(&store, "projects").is_empty());
        // A URI ending in a slash is named by all of it.
        assert_eq!(found(&store, "guides"), [ids[2]]);
        store
            .write(|db| db.rename_note(rids[0], "notes/elk-count"))
            .unwrap();
        assert!(found(&store, "caribou").is_empty());
        assert_eq!(found(&store, "elk"), ["notes/elk-count"]);
        store.write(|db| db.delete_note(rids[0])).unwrap();
        assert!(found(&store, "elk").is_empty());
    }
}
