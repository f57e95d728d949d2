//! Keyword search on PostgreSQL: the same plans as the SQLite side (rare
//! words ranked, common words newest first) over `tsvector` columns.
//!
//! Ranked plans score by BM25 as FTS5 does (`keep_bm25`, migration 6): a
//! word's occurrences in a text, weighed by their class, against the
//! text's length in words and the average of its index, times the word's
//! inverse document frequency in that index. A note's summary and tags,
//! its name and its full text are ranked apart, weighted as the SQLite
//! side weighs its FTS5 tables and columns, and a note scores its best.

use std::collections::HashMap;

use super::PgDb;
use crate::error::Result;
use crate::ids::NoteRid;
use crate::keyword::{BM25_SUMMARY, BM25_TAGS, BODY_FACTOR, NAME_FACTOR};
use crate::keyword::{IndexSearch, TextIndex, TextSearch};
use crate::plain::{Cell, Query};
use crate::plan::Join;
/// Matches counted at most for a word's document frequency when the
/// server has no statistics of the index yet.
const MAX_COUNTED: i64 = 2_000;

/// How many times the matches a search ranks the latest keys searched
/// first should hold, were matches spread evenly: fewer keys, fewer pages
/// read; too few, and the matches below are read as well.
const NEWEST_SPAN_MARGIN: f64 = 1.25;

/// One indexed column: its table, the key a hit reports, the column and
/// the column holding each text's length in words, the weights of its
/// lexeme classes {D, C, B, A} (None: one class, weight 1), and the
/// weight of its scores.
struct Index {
    table: &'static str,
    key: &'static str,
    column: &'static str,
    length: &'static str,
    classes: Option<[f64; 4]>,
    weight: f64,
}

const NOTE_TEXT: Index = Index {
    table: "notes",
    key: "rid",
    column: "words",
    length: "words_length",
    // Tags (B) and the summary (A), as the SQLite BM25 column weights.
    classes: Some([0.0, 0.0, BM25_TAGS, BM25_SUMMARY]),
    weight: 1.0,
};
const NOTE_NAMES: Index = Index {
    table: "notes",
    key: "rid",
    column: "name_words",
    length: "name_length",
    classes: None,
    weight: NAME_FACTOR,
};
const BODIES: Index = Index {
    table: "bodies",
    key: "note",
    column: "words",
    length: "length",
    classes: None,
    weight: BODY_FACTOR,
};
const PARTS: Index = Index {
    table: "parts",
    key: "pid",
    column: "words",
    length: "length",
    classes: None,
    weight: 1.0,
};
const VERSIONS: Index = Index {
    table: "versions",
    key: "vid",
    column: "words",
    length: "length",
    classes: None,
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

/// BM25's constants as FTS5 sets them: term frequency saturation (k1)
/// and length normalisation (b).
const K1: f64 = 1.2;
const K1_PLUS_1: f64 = K1 + 1.0;
const B: f64 = 0.75;
const ONE_LESS_B: f64 = 1.0 - B;

/// The inverse document frequency of a word found in `df` of `n` rows,
/// as SQLite's FTS5 computes it for BM25: a word in most rows weighs next
/// to nothing.
fn idf(n: f64, df: f64) -> f64 {
    ((n - df + 0.5) / (df + 0.5)).ln().max(1e-6)
}

/// The most rows that can match all (the fewest of any word) or any (the
/// sum) of words held by `counts` rows each; None when a count stopped at
/// its cap, and so says only that there are at least that many.
fn most_matching(counts: &[f64], join: Join) -> Option<f64> {
    if counts.contains(&(MAX_COUNTED as f64)) {
        return None;
    }
    let fewest = counts.iter().copied().reduce(f64::min).unwrap_or(0.0);
    Some(match join {
        Join::All => fewest,
        Join::Any => counts.iter().sum(),
    })
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
    /// first, matching `q.any`, at most `rows` of them; None when its word
    /// counts show it holds no match. A ranked select scores each text by
    /// BM25 over the stems of the words, each weighed by its rarity in
    /// this index. When the counts allow more matches than the search's
    /// window, only that many of the latest are ranked, taken in one pass
    /// over them; below, every match is, found through the word index
    /// alone: asked for the latest matches of words no name holds, the
    /// server walked all the notes newest first (1.3 s at a million).
    fn index_hits(
        &self,
        q: &mut Query,
        index: &Index,
        search: &IndexSearch<'_>,
        rows: &str,
    ) -> Result<Option<String>> {
        let (key, table, column) = (index.key, index.table, index.column);
        let (score, order, newest, matches) = if search.ranked {
            let (score, matches) = self.bm25(q, index, search.words, search.join)?;
            if matches == Some(0.0) {
                return Ok(None);
            }
            let newest = search
                .newest
                .filter(|&n| matches.is_none_or(|m| m > n as f64));
            (score, "2 DESC".to_string(), newest, matches)
        } else {
            if self.most_matching_rows(index, search.words, search.join)? == Some(0.0) {
                return Ok(None);
            }
            ("0.0".to_string(), format!("{key} DESC"), None, None)
        };
        let matching = format!("{table}, q WHERE {column} @@ q.any");
        let source = match newest {
            Some(n) => self.newest_matches(q, index, &matching, n, matches)?,
            None => matching,
        };
        Ok(Some(format!(
            "(SELECT {key} AS rid, ({score})::float8 AS score FROM {source}
              ORDER BY {order} LIMIT {rows})"
        )))
    }

    /// The `n` latest rows of `index` that are `matching`, as a source
    /// named after its table. Walking the key newest first tests every
    /// row on the way: for a word in 2.7% of a million notes, 187,000 rows
    /// on 31,000 pages to find 5,000 (230 ms). When the counts say how
    /// dense the matches are, only the keys that should hold
    /// `NEWEST_SPAN_MARGIN` times `n` of them are searched, through both
    /// indexes at once; the matches below are read only when those keys
    /// held fewer than `n`, so the rows ranked are the same. Both read
    /// only pages holding matches: counts summed over words overstate
    /// the notes holding any of them, and walking the key down to find
    /// matches that are not there would read every row.
    fn newest_matches(
        &self,
        q: &mut Query,
        index: &Index,
        matching: &str,
        n: i64,
        matches: Option<f64>,
    ) -> Result<String> {
        let (key, table) = (index.key, index.table);
        // Only what the score reads: whole rows spilled to disk when kept.
        let columns = format!(
            "{table}.{key}, {table}.{}, {table}.{}",
            index.column, index.length
        );
        let bound = match matches {
            Some(m) if m > 0.0 => self.newest_keys_bound(index, n as f64 / m)?,
            _ => None,
        };
        let n = q.arg(n);
        let Some(bound) = bound else {
            return Ok(format!(
                "(SELECT {columns} FROM {matching} ORDER BY {key} DESC LIMIT {n}) AS {table}"
            ));
        };
        let bound = q.arg(bound);
        // `{key} + 0` keeps the planner from walking the key's index.
        Ok(format!(
            "(WITH recent AS MATERIALIZED (
                 SELECT {columns} FROM {matching} AND {key} > {bound}
                 ORDER BY {key} + 0 DESC LIMIT {n})
              SELECT * FROM recent
              UNION ALL
              (SELECT {columns} FROM {matching} AND {key} <= {bound}
                 AND (SELECT count(*) FROM recent) < {n}
               ORDER BY {key} + 0 DESC LIMIT {n})
              ORDER BY {key} DESC LIMIT {n}) AS {table}"
        ))
    }

    /// The key above which the latest `share` of `index`'s keys hold, with
    /// a margin, the matches asked for; None when that is all of them.
    fn newest_keys_bound(&self, index: &Index, share: f64) -> Result<Option<i64>> {
        let sql = format!(
            "SELECT min({key}), max({key}) FROM {table}",
            key = index.key,
            table = index.table
        );
        let row = self.one(&sql, &[])?;
        let (Some(least), Some(most)) =
            (row.get::<_, Option<i64>>(0), row.get::<_, Option<i64>>(1))
        else {
            return Ok(None);
        };
        let keys = ((most - least + 1) as f64 * share * NEWEST_SPAN_MARGIN).ceil() as i64;
        Ok((most - keys > least).then_some(most - keys))
    }

    /// The most rows of `index` that can match all or any of `words`
    /// (None when a count stopped at its cap). Asked for the latest
    /// notes whose names hold a common word no name holds, the server
    /// walked every note newest first: 0.6 to 4.6 s at a million.
    fn most_matching_rows(
        &self,
        index: &Index,
        words: &[String],
        join: Join,
    ) -> Result<Option<f64>> {
        let mut counts = Vec::with_capacity(words.len());
        for word in words {
            counts.push(self.rows_holding(index.table, index.column, word, MAX_COUNTED)?);
        }
        Ok(most_matching(&counts, join))
    }

    /// The weighted BM25 score of a row of `index` for `words`, and the
    /// most rows that can match all or any of them (None when a count
    /// stopped at its cap); words the index leaves out (stop words) score
    /// nothing, as they match nothing.
    fn bm25(
        &self,
        q: &mut Query,
        index: &Index,
        words: &[String],
        join: Join,
    ) -> Result<(String, Option<f64>)> {
        let (n, average) = self.text_totals(index.table, index.length)?;
        let (mut stems, mut idfs, mut counts) = (Vec::new(), Vec::new(), Vec::new());
        for word in words {
            let Some(stem) = self.stem(word)? else {
                continue;
            };
            if stems.contains(&stem) {
                continue;
            }
            let df = self.rows_holding(index.table, index.column, word, MAX_COUNTED)?;
            stems.push(stem);
            idfs.push(idf(n, df));
            counts.push(df);
        }
        let matches = most_matching(&counts, join);
        if matches == Some(0.0) {
            // No row to score: no argument is added that no select uses.
            return Ok((String::new(), matches));
        }
        // An index whose texts have no words yet (the names of a store of
        // inline notes) averages 0, and a row committed since the totals
        // were read may match: never divide by 0 (PostgreSQL would fail
        // the search).
        let average = q.arg(if average > 0.0 { average } else { 1.0 });
        let weight = q.arg(index.weight);
        let list = |q: &mut Query, values: Vec<Cell>| {
            let args: Vec<String> = values.into_iter().map(|v| q.arg(v)).collect();
            args.join(", ")
        };
        let stems = list(q, stems.into_iter().map(Cell::Text).collect());
        let idfs = list(q, idfs.into_iter().map(Cell::Real).collect());
        let (column, length) = (index.column, index.length);
        // A lexeme appears once in a `tsvector`; its positions are its
        // occurrences, each of its text's class.
        let (lexemes, frequency) = match index.classes {
            None => (
                format!(
                    "unnest(ts_filter(setweight({column}, 'A', ARRAY[{stems}]::text[]), '{{a}}')) u"
                ),
                "cardinality(u.positions)".to_string(),
            ),
            Some(classes) => {
                let counted: Vec<String> = classes
                    .into_iter()
                    .zip(["D", "C", "B", "A"])
                    .filter(|(weight, _)| *weight != 0.0)
                    .map(|(weight, class)| {
                        let weight = q.arg(weight);
                        format!(
                            "{weight}::float8 * cardinality(array_positions(u.weights, '{class}'))"
                        )
                    })
                    .collect();
                // The text's other lexemes are deleted before unnesting,
                // keeping the classes of those asked: unnesting every
                // lexeme cost 10 µs a note, half of a common word's search.
                let others = format!(
                    "tsvector_to_array(ts_filter(setweight(setweight({column}, 'D'), 'A', ARRAY[{stems}]::text[]), '{{d}}'))"
                );
                (
                    format!("unnest(ts_delete({column}, {others})) u"),
                    counted.join(" + "),
                )
            }
        };
        // A sum over the lexemes asked that the text holds, each with its
        // frequency `f`.
        let score = format!(
            "{weight}::float8 * (SELECT coalesce(sum(
                 (ARRAY[{idfs}]::float8[])[array_position(ARRAY[{stems}]::text[], t.lexeme)]
                 * t.f * {K1_PLUS_1} / (t.f + {K1} * ({ONE_LESS_B} + {B} * {length} / {average}::float8))), 0)
             FROM (SELECT u.lexeme, ({frequency})::float8 AS f FROM {lexemes}
                   WHERE u.lexeme = ANY (ARRAY[{stems}]::text[])) t)"
        );
        Ok((score, matches))
    }
}

impl TextSearch for PgDb<'_> {
    fn note_total(&self) -> Result<f64> {
        self.rows_in("notes")
    }

    fn part_total(&self) -> Result<f64> {
        self.rows_in("parts")
    }

    fn rows_holding_word(&self, index: TextIndex, word: &str, cap: i64) -> Result<f64> {
        let index = self::index(index);
        self.rows_holding(index.table, index.column, word, cap)
    }

    /// `q` holds the query matching all or any of `words` and, for
    /// ranking, each word alone.
    fn hits_clause(&self, q: &mut Query, search: &IndexSearch<'_>) -> Result<String> {
        let words = search.words;
        let any = q.arg(tsquery(words, search.join));
        let rows = q.arg(search.rows);
        let mut columns = vec![format!("to_tsquery('english', {any}::text) AS any")];
        for (i, word) in words.iter().enumerate() {
            let alone = q.arg(tsquery(std::slice::from_ref(word), Join::Any));
            columns.push(format!("to_tsquery('english', {alone}::text) AS w{i}"));
        }
        let mut selects = Vec::with_capacity(search.indexes.len());
        for &each in search.indexes {
            selects.extend(self.index_hits(q, index(each), search, &rows)?);
        }
        if selects.is_empty() {
            selects.push(format!(
                "(SELECT NULL::bigint AS rid, 0::float8 AS score WHERE false LIMIT {rows})"
            ));
        }
        Ok(format!(
            "WITH q AS NOT MATERIALIZED (SELECT {}), hits AS ({})",
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

    #[test]
    fn rarer_words_weigh_more_and_tags_weigh_as_on_sqlite() {
        assert!(idf(1000.0, 1.0) > idf(1000.0, 100.0));
        assert_eq!(idf(1.0, 1.0), 1e-6);
        assert!((idf(4.0, 1.0) - (3.5f64 / 1.5).ln()).abs() < 1e-12);
        assert_eq!(NOTE_TEXT.classes, Some([0.0, 0.0, BM25_TAGS, BM25_SUMMARY]));
    }

    #[test]
    fn matches_are_bounded_by_the_word_counts_unless_one_was_capped() {
        assert_eq!(most_matching(&[3.0, 40.0], Join::Any), Some(43.0));
        assert_eq!(most_matching(&[3.0, 40.0], Join::All), Some(3.0));
        assert_eq!(most_matching(&[], Join::All), Some(0.0));
        assert_eq!(most_matching(&[3.0, MAX_COUNTED as f64], Join::All), None);
    }
}
