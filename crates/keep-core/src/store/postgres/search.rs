//! Keyword search on PostgreSQL: the same plans as the SQLite side (rare
//! words ranked, common words newest first) over `tsvector` columns. A
//! note's summary and tags, its name and its full text are ranked apart
//! with `ts_rank` (length-normalised) and weighted as the SQLite side
//! weighs its BM25 columns; a note scores its best.

use super::PgDb;
use super::filter::{Query, push_filter, with_params};
use crate::error::Result;
use crate::model::NoteFilter;
use crate::recall::weights::{BM25_SUMMARY, BM25_TAGS, BODY_FACTOR, NAME_FACTOR};
use crate::store::NoteRid;
use crate::store::plan::{
    COMMON_MIN_MATCHES, Join, KeywordPlan, common_threshold, run_plan, topic_words,
};
use crate::store::types::{FtsHit, SubHit};

/// Rows read per index for common words when a filter narrows the set.
const FILTERED_COMMON_ROWS: i64 = 10_000;

/// `ts_rank` weights of the lexeme classes {D, C, B, A}: tags (B) against
/// the summary (A) as the SQLite side's BM25 column weights.
fn rank_weights() -> String {
    format!("'{{0, 0, {}, 1}}'", BM25_TAGS / BM25_SUMMARY)
}

/// A `tsquery` matching all or any of `words` (letters and digits only,
/// so never syntax).
fn tsquery(words: &[String], join: Join) -> String {
    let op = if join == Join::All { " & " } else { " | " };
    words
        .iter()
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(op)
}

/// Rows each index contributes before joining: without a filter that
/// could drop many, only the best matches (None: all).
fn index_rows(plan: &KeywordPlan, filter: &NoteFilter, limit: usize) -> Option<i64> {
    match (filter.is_trivial(), plan.ranked()) {
        (true, _) => Some((limit * 4).max(200) as i64),
        (false, true) => None,
        (false, false) => Some(FILTERED_COMMON_ROWS),
    }
}

/// The select of one index: `(rid, score)` rows, best (or newest) first;
/// `classes` weighs the lexeme classes of a column that has them.
fn index_hits(
    (table, key, column): (&str, &str, &str),
    classes: Option<&str>,
    weight: f64,
    ranked: bool,
) -> String {
    // Text indexed without classes is all class D, which ts_rank weighs
    // 0.1 by default.
    let classes = classes.unwrap_or("'{1, 1, 1, 1}'");
    let (score, order) = if ranked {
        (
            format!("{weight:?} * ts_rank({classes}, {column}, q.q, 1)"),
            "2 DESC".to_string(),
        )
    } else {
        ("0.0".to_string(), format!("{key} DESC"))
    };
    format!(
        "(SELECT {key} AS rid, {score}::float8 AS score FROM {table}, q
          WHERE {column} @@ q.q ORDER BY {order} LIMIT $2)"
    )
}

impl PgDb<'_> {
    pub fn keyword_plan(&self, text: &str) -> Result<Option<KeywordPlan>> {
        let words = topic_words(text);
        if words.is_empty() {
            return Ok(None);
        }
        let total: i64 = self.one("SELECT count(*) FROM notes", &[])?.get(0);
        let threshold = common_threshold(total, COMMON_MIN_MATCHES) as i64;
        let mut rare = Vec::new();
        for word in &words {
            let q = tsquery(std::slice::from_ref(word), Join::Any);
            let mut common = false;
            for column in ["words", "name_words"] {
                let sql = format!(
                    "SELECT count(*) FROM (SELECT 1 FROM notes
                     WHERE {column} @@ to_tsquery('english', $1) LIMIT $2) AS x"
                );
                let count: i64 = self.one(&sql, &[&q, &(threshold + 1)])?.get(0);
                common |= count > threshold;
            }
            if !common {
                rare.push(word.clone());
            }
        }
        Ok(KeywordPlan::of(words, rare))
    }

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
        let weights = rank_weights();
        run_plan(
            plan,
            limit,
            |words, join| {
                let mut q = Query::default();
                q.arg(tsquery(words, join));
                q.arg(index_rows(plan, filter, limit));
                q.push(&format!(
                    "WITH q AS (SELECT to_tsquery('english', $1) AS q),
                     hits AS ({} UNION ALL {} UNION ALL {})
                     SELECT n.rid, max(h.score) AS score
                     FROM hits h JOIN notes n ON n.rid = h.rid WHERE TRUE",
                    index_hits(("notes", "rid", "words"), Some(&weights), 1.0, ranked),
                    index_hits(
                        ("bodies", "note", "words"),
                        None,
                        BODY_FACTOR / BM25_SUMMARY,
                        ranked
                    ),
                    index_hits(
                        ("notes", "rid", "name_words"),
                        None,
                        NAME_FACTOR / BM25_SUMMARY,
                        ranked
                    ),
                ));
                push_filter(filter, &mut q);
                let limit = q.arg(limit as i64);
                q.push(&format!(" GROUP BY n.rid ORDER BY {order} LIMIT {limit}"));
                let rows = with_params(&q, |sql, params| self.rows(sql, params))?;
                Ok(rows
                    .iter()
                    .map(|r| FtsHit {
                        rid: NoteRid(r.get(0)),
                        score: r.get(1),
                    })
                    .collect())
            },
            |a, b| a.rid == b.rid,
            |h| &mut h.score,
        )
    }

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
            ("parts", "pid"),
            "SELECT n.rid, p.number, h.score AS score
             FROM hits h JOIN parts p ON p.pid = h.rid JOIN notes n ON n.rid = p.note WHERE TRUE",
        )
    }

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
            ("versions", "vid"),
            "SELECT n.rid, (SELECT count(*) FROM versions w WHERE w.note = v.note AND w.seq >= v.seq),
                    h.score AS score
             FROM hits h JOIN versions v ON v.vid = h.rid JOIN notes n ON n.rid = v.note WHERE TRUE",
        )
    }

    fn sub_keyword_search(
        &self,
        plan: &KeywordPlan,
        filter: &NoteFilter,
        limit: usize,
        (table, key): (&str, &str),
        select: &str,
    ) -> Result<Vec<SubHit>> {
        let ranked = plan.ranked();
        let order = if ranked { "score DESC" } else { "h.rid DESC" };
        let rows = if ranked {
            None
        } else {
            index_rows(plan, filter, limit)
        };
        run_plan(
            plan,
            limit,
            |words, join| {
                let mut q = Query::default();
                q.arg(tsquery(words, join));
                q.arg(rows);
                q.push(&format!(
                    "WITH q AS (SELECT to_tsquery('english', $1) AS q),
                     hits AS {} {select}",
                    index_hits((table, key, "words"), None, 1.0, ranked)
                ));
                push_filter(filter, &mut q);
                let limit = q.arg(limit as i64);
                q.push(&format!(" ORDER BY {order} LIMIT {limit}"));
                let found = with_params(&q, |sql, params| self.rows(sql, params))?;
                Ok(found
                    .iter()
                    .map(|r| SubHit {
                        rid: NoteRid(r.get(0)),
                        number: r.get(1),
                        score: r.get(2),
                    })
                    .collect())
            },
            |a, b| a == b,
            |h| &mut h.score,
        )
    }
}
