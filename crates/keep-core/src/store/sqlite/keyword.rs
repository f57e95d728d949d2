//! Keyword search over the FTS5 indexes. A query is planned first: words
//! found in a large share of the notes carry almost no BM25 weight but cost
//! a score per matching row, so when rarer words are present only those are
//! searched and ranked; when every word is that common, the newest notes
//! holding all of them (then any of them) come first, without BM25.

use rusqlite::params_from_iter;
use rusqlite::types::Value;

use super::SqliteDb;
use super::filter::push_filter_sql;
use crate::error::Result;
use crate::model::NoteFilter;
use crate::recall::weights::{BM25_SUMMARY, BM25_TAGS, BODY_FACTOR, NAME_FACTOR};
use crate::store::plan::{
    COMMON_MIN_MATCHES, Join, KeywordPlan, common_threshold, run_plan, topic_words,
};
use crate::store::types::{FtsHit, SubHit};

/// The FTS5 expression matching notes with all or any of `words`.
fn expression(words: &[String], join: Join) -> String {
    quoted(words, if join == Join::All { "AND" } else { "OR" })
}

/// Rows read per index for common words when a filter narrows the set.
const FILTERED_COMMON_ROWS: i64 = 10_000;

/// Every word quoted, so no user input is read as FTS5 syntax.
fn quoted(words: &[String], operator: &str) -> String {
    words
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(&format!(" {operator} "))
}

/// The FTS5 select for one index: `(rid, score)` rows, best first, at most
/// `?2` of them, matching `?1`.
fn index_hits(index: &str, bm25: &str, weight: f64, ranked: bool) -> String {
    if ranked {
        format!(
            "SELECT * FROM (SELECT rowid AS rid, -{weight:?} * {bm25} AS score FROM {index}
             WHERE {index} MATCH ?1 ORDER BY 2 DESC LIMIT ?2)"
        )
    } else {
        format!(
            "SELECT * FROM (SELECT rowid AS rid, 0.0 AS score FROM {index}
             WHERE {index} MATCH ?1 ORDER BY rowid DESC LIMIT ?2)"
        )
    }
}

impl SqliteDb<'_> {
    /// Plans a keyword query from free text; `None` when it has no words.
    pub fn keyword_plan(&self, text: &str) -> Result<Option<KeywordPlan>> {
        self.plan_words(topic_words(text), COMMON_MIN_MATCHES)
    }

    fn plan_words(&self, words: Vec<String>, min_common: usize) -> Result<Option<KeywordPlan>> {
        if words.is_empty() {
            return Ok(None);
        }
        let total: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM notes")?
            .query_row([], |r| r.get(0))?;
        let threshold = common_threshold(total, min_common);
        let mut rare = Vec::new();
        for word in &words {
            if self.matches_at_most(&quoted(std::slice::from_ref(word), ""), threshold)? {
                rare.push(word.clone());
            }
        }
        Ok(KeywordPlan::of(words, rare))
    }

    /// Whether `expr` matches at most `limit` notes, in their text and in
    /// their names; reads at most `limit + 1` rows of each index.
    fn matches_at_most(&self, expr: &str, limit: usize) -> Result<bool> {
        for sql in [
            "SELECT count(*) FROM (SELECT 1 FROM notes_fts WHERE notes_fts MATCH ?1 LIMIT ?2)",
            "SELECT count(*) FROM (SELECT 1 FROM names_fts WHERE names_fts MATCH ?1 LIMIT ?2)",
        ] {
            let count: i64 = self
                .conn
                .prepare_cached(sql)?
                .query_row(rusqlite::params![expr, limit as i64 + 1], |r| r.get(0))?;
            if count as usize > limit {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Which of `words` each of the notes `rids` holds, in its summary,
    /// tags, name or full text (bit i for `words[i]`, stemmed as indexed).
    pub fn words_held(
        &self,
        rids: &[crate::store::NoteRid],
        words: &[String],
    ) -> Result<std::collections::HashMap<crate::store::NoteRid, u64>> {
        let mut held = std::collections::HashMap::new();
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
                *held.entry(crate::store::NoteRid(rid?)).or_insert(0) |= 1u64 << i;
            }
        }
        Ok(held)
    }

    /// The number of notes, and how many of them hold each of `words` in
    /// their text or full text (counted up to `cap`).
    pub fn word_frequencies(&self, words: &[String], cap: usize) -> Result<(usize, Vec<usize>)> {
        let total: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM notes")?
            .query_row([], |r| r.get(0))?;
        let mut counts = Vec::with_capacity(words.len());
        for word in words {
            let expr = quoted(std::slice::from_ref(word), "");
            let mut most = 0;
            for sql in [
                "SELECT count(*) FROM (SELECT 1 FROM notes_fts WHERE notes_fts MATCH ?1 LIMIT ?2)",
                "SELECT count(*) FROM (SELECT 1 FROM body_fts WHERE body_fts MATCH ?1 LIMIT ?2)",
            ] {
                let n: i64 = self
                    .conn
                    .prepare_cached(sql)?
                    .query_row(rusqlite::params![expr, cap as i64], |r| r.get(0))?;
                most = most.max(n as usize);
            }
            counts.push(most);
        }
        Ok((total.max(0) as usize, counts))
    }

    /// Rows each index contributes before joining and grouping: without a
    /// filter that could drop many, only the best matches (-1: all).
    fn index_rows(plan: &KeywordPlan, filter: &NoteFilter, limit: usize) -> i64 {
        match (filter.is_trivial(), plan.ranked()) {
            (true, _) => (limit * 4).max(200) as i64,
            (false, true) => -1,
            (false, false) => FILTERED_COMMON_ROWS,
        }
    }

    /// Notes matching the plan, best first. Summary and tag matches count
    /// fully, name matches as tags, full-text matches half.
    pub fn keyword_search(
        &self,
        plan: &KeywordPlan,
        filter: &NoteFilter,
        limit: usize,
    ) -> Result<Vec<FtsHit>> {
        let ranked = plan.ranked();
        let order = if ranked {
            "score DESC, n.id"
        } else {
            "n.rid DESC"
        };
        run_plan(
            plan,
            limit,
            |words, join| {
                let expr = expression(words, join);
                let mut sql = format!(
                    "WITH hits AS ({} UNION ALL {} UNION ALL {})
                     SELECT n.rid, max(h.score) AS score
                     FROM hits h JOIN notes n ON n.rid = h.rid WHERE 1",
                    index_hits(
                        "notes_fts",
                        &format!("bm25(notes_fts, {BM25_SUMMARY:?}, {BM25_TAGS:?})"),
                        1.0,
                        ranked
                    ),
                    index_hits("body_fts", "bm25(body_fts)", BODY_FACTOR, ranked),
                    index_hits("names_fts", "bm25(names_fts)", NAME_FACTOR, ranked),
                );
                let mut args = vec![
                    Value::Text(expr.to_string()),
                    Value::Integer(Self::index_rows(plan, filter, limit)),
                ];
                push_filter_sql(filter, &mut sql, &mut args);
                sql.push_str(&format!(" GROUP BY n.rid ORDER BY {order} LIMIT ?"));
                args.push(Value::Integer(limit as i64));
                let mut stmt = self.conn.prepare(&sql)?;
                let hits = stmt
                    .query_map(params_from_iter(args), |row| {
                        Ok(FtsHit {
                            rid: row.get(0)?,
                            score: row.get(1)?,
                        })
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(hits)
            },
            |a, b| a.rid == b.rid,
            |h| &mut h.score,
        )
    }

    /// Parts matching the plan, whose notes pass `filter`, best first.
    pub fn keyword_search_parts(
        &self,
        plan: &KeywordPlan,
        filter: &NoteFilter,
        limit: usize,
    ) -> Result<Vec<SubHit>> {
        self.sub_keyword_search(
            plan,
            filter,
            limit,
            ("parts_fts", "bm25(parts_fts)"),
            "SELECT n.rid, p.number, h.score AS score
             FROM hits h JOIN parts p ON p.pid = h.rid JOIN notes n ON n.rid = p.note WHERE 1",
        )
    }

    /// Archived versions matching the plan, best first; the number is the
    /// version offset (1 = previous).
    pub fn keyword_search_versions(
        &self,
        plan: &KeywordPlan,
        filter: &NoteFilter,
        limit: usize,
    ) -> Result<Vec<SubHit>> {
        self.sub_keyword_search(
            plan,
            filter,
            limit,
            ("versions_fts", "bm25(versions_fts)"),
            "SELECT n.rid, (SELECT count(*) FROM versions w WHERE w.note = v.note AND w.seq >= v.seq),
                    h.score AS score
             FROM hits h JOIN versions v ON v.vid = h.rid JOIN notes n ON n.rid = v.note WHERE 1",
        )
    }

    fn sub_keyword_search(
        &self,
        plan: &KeywordPlan,
        filter: &NoteFilter,
        limit: usize,
        (index, bm25): (&str, &str),
        select: &str,
    ) -> Result<Vec<SubHit>> {
        let ranked = plan.ranked();
        let order = if ranked { "score DESC" } else { "h.rid DESC" };
        let rows = if ranked {
            -1
        } else {
            Self::index_rows(plan, filter, limit)
        };
        run_plan(
            plan,
            limit,
            |words, join| {
                let expr = expression(words, join);
                let mut sql = format!(
                    "WITH hits AS ({}) {select}",
                    index_hits(index, bm25, 1.0, ranked)
                );
                let mut args = vec![Value::Text(expr.to_string()), Value::Integer(rows)];
                push_filter_sql(filter, &mut sql, &mut args);
                sql.push_str(&format!(" ORDER BY {order} LIMIT ?"));
                args.push(Value::Integer(limit as i64));
                let mut stmt = self.conn.prepare(&sql)?;
                let hits = stmt
                    .query_map(params_from_iter(args), |r| {
                        Ok(SubHit {
                            rid: r.get(0)?,
                            number: r.get(1)?,
                            score: r.get(2)?,
                        })
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(hits)
            },
            |a, b| a == b,
            |h| &mut h.score,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::time::Timestamp;
    use crate::store::plan::words;
    use crate::store::sqlite::SqliteStore as Store;
    use crate::store::test_note;

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
    fn words_are_quoted_so_they_are_never_syntax() {
        let words = ["a".to_string(), "near".to_string(), "b".to_string()];
        assert_eq!(expression(&words, Join::Any), "\"a\" OR \"near\" OR \"b\"");
        assert_eq!(expression(&words[..1], Join::All), "\"a\"");
    }
}

#[cfg(test)]
mod name_tests {
    use crate::model::NoteFilter;
    use crate::model::time::Timestamp;
    use crate::store::sqlite::SqliteStore as Store;
    use crate::store::{Shared, test_note};

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
