//! Keyword search on PostgreSQL: the same plans as the SQLite side (rare
//! words ranked, common words newest first) over `tsvector` columns.
//!
//! Ranked plans score like BM25: each word's `ts_rank` (length-normalised
//! term frequency) is weighed by the word's inverse document frequency in
//! that index, so a word rare among parts counts more there than in notes
//! where it is common. A note's summary and tags, its name and its full
//! text are ranked apart, weighted as the SQLite side weighs its BM25
//! columns, and a note scores its best.

use std::collections::HashMap;

use super::PgDb;
use crate::error::Result;
use crate::recall::weights::{BM25_SUMMARY, BODY_FACTOR, NAME_FACTOR};
use crate::store::NoteRid;
use crate::store::keyword::{IndexSearch, TextIndex, TextSearch};
use crate::store::plain::Query;
use crate::store::plan::Join;
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

/// The column of an index.
fn index(index: TextIndex) -> &'static Index {
    match index {
        TextIndex::NoteText => &NOTE_TEXT,
        TextIndex::NoteNames => &NOTE_NAMES,
        TextIndex::Bodies => &BODIES,
        TextIndex::Parts => &PARTS,
        TextIndex::Versions => &VERSIONS,
    }
}

impl PgDb<'_> {
    /// The select of one index: `(rid, score)` rows, best (or newest)
    /// first, matching `q.any`, at most `rows` of them. A ranked select sums
    /// each word's rank (`q.w0`, `q.w1`, ...) weighed by its rarity in this
    /// index.
    fn index_hits(
        &self,
        q: &mut Query,
        index: &Index,
        words: &[String],
        ranked: bool,
        rows: &str,
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
              WHERE {column} @@ q.any ORDER BY {order} LIMIT {rows})",
            key = index.key,
            table = index.table,
            column = index.column,
        ))
    }
}

impl TextSearch for PgDb<'_> {
    fn note_total(&self) -> Result<f64> {
        self.rows_in("notes")
    }

    fn rows_holding_word(&self, index: TextIndex, word: &str, cap: i64) -> Result<f64> {
        let index = self::index(index);
        self.rows_holding(index.table, index.column, word, cap)
    }

    /// `q` holds the query matching all or any of `words` and, for
    /// ranking, each word alone.
    fn hits_clause(&self, q: &mut Query, search: &IndexSearch<'_>) -> Result<String> {
        let (words, ranked) = (search.words, search.ranked);
        let any = q.arg(tsquery(words, search.join));
        let rows = q.arg(search.rows);
        let mut columns = vec![format!("to_tsquery('english', {any}::text) AS any")];
        for (i, word) in words.iter().enumerate() {
            let alone = q.arg(tsquery(std::slice::from_ref(word), Join::Any));
            columns.push(format!("to_tsquery('english', {alone}::text) AS w{i}"));
        }
        let mut selects = Vec::with_capacity(search.indexes.len());
        for &each in search.indexes {
            selects.push(self.index_hits(q, index(each), words, ranked, &rows)?);
        }
        Ok(format!(
            "WITH q AS (SELECT {}), hits AS ({})",
            columns.join(", "),
            selects.join(" UNION ALL ")
        ))
    }

    /// Which of `words` each of the notes `rids` holds, in its summary,
    /// tags, name or full text (bit i for `words[i]`, stemmed as indexed).
    fn words_held(&self, rids: &[NoteRid], words: &[String]) -> Result<HashMap<NoteRid, u64>> {
        let mut held = HashMap::new();
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
