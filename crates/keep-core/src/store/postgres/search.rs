//! Keyword search on PostgreSQL: the same plans as the SQLite side (rare
//! words ranked, common words newest first) over `tsvector` columns.
//!
//! Ranked plans score like BM25: each word's `ts_rank` (length-normalised
//! term frequency) is weighed by the word's inverse document frequency in
//! that index, so a word rare among parts counts more there than in notes
//! where it is common. A note's summary and tags, its name and its full
//! text are ranked apart, weighted as the SQLite side weighs its BM25
//! columns, and a note scores its best.

use super::PgDb;
use super::filter::{Query, push_filter, with_params};
use crate::error::Result;
use crate::model::NoteFilter;
use crate::recall::weights::{BM25_SUMMARY, BODY_FACTOR, NAME_FACTOR};
use crate::store::NoteRid;
use crate::store::plan::{
    COMMON_MIN_MATCHES, Join, KeywordPlan, common_threshold, run_plan, topic_words,
};
use crate::store::types::{FtsHit, SubHit};

/// Rows read per index for common words when a filter narrows the set.
const FILTERED_COMMON_ROWS: i64 = 10_000;
/// Matches counted at most for a word's document frequency when the
/// server has no statistics of the index yet.
const MAX_COUNTED: i64 = 2_000;

/// One indexed column: its table, the key a hit reports, the column, the
/// `ts_rank` weights of its lexeme classes {D, C, B, A}, and its weight.
struct Index {
    table: &'static str,
    key: &'static str,
    column: &'static str,
    classes: &'static str,
    weight: f64,
}

/// Text indexed without classes is all class D.
const PLAIN: &str = "{1, 1, 1, 1}";

const NOTE_TEXT: Index = Index {
    table: "notes",
    key: "rid",
    column: "words",
    // Tags (B) against the summary (A), as the SQLite BM25 column weights.
    classes: "{0, 0, 0.5, 1}",
    weight: BM25_SUMMARY,
};
const NOTE_NAMES: Index = Index {
    table: "notes",
    key: "rid",
    column: "name_words",
    classes: PLAIN,
    weight: NAME_FACTOR,
};
const BODIES: Index = Index {
    table: "bodies",
    key: "note",
    column: "words",
    classes: PLAIN,
    weight: BODY_FACTOR,
};
const PARTS: Index = Index {
    table: "parts",
    key: "pid",
    column: "words",
    classes: PLAIN,
    weight: 1.0,
};
const VERSIONS: Index = Index {
    table: "versions",
    key: "vid",
    column: "words",
    classes: PLAIN,
    weight: 1.0,
};

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

/// The inverse document frequency of a word found in `df` of `n` rows,
/// as SQLite's FTS5 computes it for BM25: a word in most rows weighs next
/// to nothing.
fn idf(n: f64, df: f64) -> f64 {
    ((n - df + 0.5) / (df + 0.5)).ln().max(1e-6)
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

impl PgDb<'_> {
    pub fn keyword_plan(&self, text: &str) -> Result<Option<KeywordPlan>> {
        let words = topic_words(text);
        if words.is_empty() {
            return Ok(None);
        }
        let total = self.rows_in("notes")? as i64;
        let threshold = common_threshold(total, COMMON_MIN_MATCHES) as f64;
        let mut rare = Vec::new();
        for word in &words {
            let mut common = false;
            for index in [&NOTE_TEXT, &NOTE_NAMES] {
                common |=
                    self.rows_holding(index.table, index.column, word, threshold as i64 + 1)?
                        > threshold;
            }
            if !common {
                rare.push(word.clone());
            }
        }
        Ok(KeywordPlan::of(words, rare))
    }

    /// Which of `words` each of the notes `rids` holds, in its summary,
    /// tags, name or full text (bit i for `words[i]`, stemmed as indexed).
    pub fn words_held(
        &self,
        rids: &[NoteRid],
        words: &[String],
    ) -> Result<std::collections::HashMap<NoteRid, u64>> {
        let mut held = std::collections::HashMap::new();
        if rids.is_empty() || words.is_empty() {
            return Ok(held);
        }
        let list: Vec<i64> = rids.iter().map(|r| r.0).collect();
        let queries: Vec<String> = words
            .iter()
            .take(64)
            .map(|w| tsquery(std::slice::from_ref(w), Join::Any))
            .collect();
        for row in self.rows(
            "SELECT n.rid, w.i FROM notes n
               CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS w(text, i)
               CROSS JOIN LATERAL (SELECT to_tsquery('english', w.text) AS q) t
               LEFT JOIN bodies b ON b.note = n.rid
             WHERE n.rid = ANY($1)
               AND (n.words @@ t.q OR n.name_words @@ t.q OR coalesce(b.words @@ t.q, false))",
            &[&list, &queries],
        )? {
            let i: i64 = row.get(1);
            *held.entry(NoteRid(row.get(0))).or_insert(0) |= 1u64 << (i - 1);
        }
        Ok(held)
    }

    /// The number of notes, and how many of them hold each of `words` in
    /// their text or full text (counted up to `cap`).
    pub fn word_frequencies(&self, words: &[String], cap: usize) -> Result<(usize, Vec<usize>)> {
        let total = self.rows_in("notes")?;
        let mut counts = Vec::with_capacity(words.len());
        for word in words {
            let text = self.rows_holding("notes", "words", word, cap as i64)?;
            let body = self.rows_holding("bodies", "words", word, cap as i64)?;
            counts.push(text.max(body).min(cap as f64) as usize);
        }
        Ok((total as usize, counts))
    }

    /// The select of one index: `(rid, score)` rows, best (or newest)
    /// first, matching `q.any`, at most `$2` of them. A ranked select sums
    /// each word's rank (`q.w0`, `q.w1`, ...) weighed by its rarity in this
    /// index.
    fn index_hits(
        &self,
        q: &mut Query,
        index: &Index,
        words: &[String],
        ranked: bool,
    ) -> Result<String> {
        let (score, order) = if ranked {
            let n = self.rows_in(index.table)?;
            let mut terms = Vec::new();
            for (i, word) in words.iter().enumerate() {
                let df = self.rows_holding(index.table, index.column, word, MAX_COUNTED)?;
                let weight = q.arg(index.weight * idf(n, df));
                terms.push(format!(
                    "{weight}::float8 * ts_rank('{}', {}, q.w{i}, 1)",
                    index.classes, index.column
                ));
            }
            (terms.join(" + "), "2 DESC".to_string())
        } else {
            ("0.0".to_string(), format!("{} DESC", index.key))
        };
        Ok(format!(
            "(SELECT {key} AS rid, ({score})::float8 AS score FROM {table}, q
              WHERE {column} @@ q.any ORDER BY {order} LIMIT $2)",
            key = index.key,
            table = index.table,
            column = index.column,
        ))
    }

    /// The `q` of a search: the query matching all or any of `words` (`$1`)
    /// and, for ranking, each word alone; `$2` is the rows per index.
    fn search_words(q: &mut Query, words: &[String], join: Join, rows: Option<i64>) -> String {
        q.arg(tsquery(words, join));
        q.arg(rows);
        let mut columns = vec!["to_tsquery('english', $1::text) AS any".to_string()];
        for (i, word) in words.iter().enumerate() {
            let alone = q.arg(tsquery(std::slice::from_ref(word), Join::Any));
            columns.push(format!("to_tsquery('english', {alone}::text) AS w{i}"));
        }
        format!("q AS (SELECT {})", columns.join(", "))
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
        run_plan(
            plan,
            limit,
            |words, join| {
                let mut q = Query::default();
                let terms =
                    Self::search_words(&mut q, words, join, index_rows(plan, filter, limit));
                let text = self.index_hits(&mut q, &NOTE_TEXT, words, ranked)?;
                let bodies = self.index_hits(&mut q, &BODIES, words, ranked)?;
                let names = self.index_hits(&mut q, &NOTE_NAMES, words, ranked)?;
                q.push(&format!(
                    "WITH {terms}, hits AS ({text} UNION ALL {bodies} UNION ALL {names})
                     SELECT n.rid, max(h.score) AS score
                     FROM hits h JOIN notes n ON n.rid = h.rid WHERE TRUE"
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
            &PARTS,
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
            &VERSIONS,
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
        index: &Index,
        select: &str,
    ) -> Result<Vec<SubHit>> {
        if self.rows_in(index.table)? == 0.0 {
            return Ok(Vec::new());
        }
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
                let terms = Self::search_words(&mut q, words, join, rows);
                let hits = self.index_hits(&mut q, index, words, ranked)?;
                q.push(&format!("WITH {terms}, hits AS {hits} {select}"));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::weights::BM25_TAGS;

    #[test]
    fn rarer_words_weigh_more_and_tags_weigh_as_on_sqlite() {
        assert!(idf(1000.0, 1.0) > idf(1000.0, 100.0));
        assert_eq!(idf(1.0, 1.0), 1e-6);
        assert!((idf(4.0, 1.0) - (3.5f64 / 1.5).ln()).abs() < 1e-12);
        assert_eq!(
            NOTE_TEXT.classes,
            format!("{{0, 0, {}, 1}}", BM25_TAGS / BM25_SUMMARY)
        );
    }
}
