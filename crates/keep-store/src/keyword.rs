//! Keyword search written once for every database: which words of a query
//! are rare enough to rank by, how each index's hits are joined to notes,
//! parts or versions, filtered, ordered and merged. What a database does
//! its own way (FTS5 against `tsvector`, FTS5's BM25 against `keep_bm25`,
//! how it counts the rows holding a word) it answers through `TextSearch`.

use std::collections::HashMap;

use super::filter::push_filter;
use super::plain::{Cell, Query, Sql, cells};
use super::plan::{COMMON_MIN_MATCHES, Join, KeywordPlan, common_threshold, run_plan, topic_words};
use super::types::{FtsHit, SubHit};
use crate::error::Result;
use crate::ids::NoteRid;
use keep_model::NoteFilter;

/// BM25 weight of a note's summary column. A word in the summary is the
/// strongest keyword evidence: the summary is what the note is about.
pub const BM25_SUMMARY: f64 = 4.0;
/// BM25 weight of a note's user tags column: tags are chosen words, but
/// short, so they weigh half the summary.
pub const BM25_TAGS: f64 = 2.0;
/// Factor on matches in a note's name (the last segment of a URI, or the
/// whole of any other id): a name is chosen like a tag, and weighs as a
/// tag does in the summary index.
pub const NAME_FACTOR: f64 = BM25_TAGS;
/// Factor on full-text (body) matches of long documents: a word somewhere
/// in the body is weaker evidence than one in the summary or tags.
pub const BODY_FACTOR: f64 = 0.5;

/// A word index keyword search reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextIndex {
    /// A note's summary and tags.
    NoteText,
    /// The words of a note's name.
    NoteNames,
    /// A note's full text.
    Bodies,
    Parts,
    Versions,
}

/// One search of the word indexes: the rows of each of `indexes` matching
/// all or any of `words`, at most `rows` from each, ranked by relevance
/// (`ranked`) or newest first with score 0. With `newest`, only that many
/// of an index's latest matching rows are ranked.
pub struct IndexSearch<'a> {
    pub indexes: &'a [TextIndex],
    pub words: &'a [String],
    pub join: Join,
    pub ranked: bool,
    pub rows: i64,
    pub newest: Option<i64>,
}

/// Matching rows of an index ranked at most, the latest added, when no
/// filter narrows the search. Ranking costs about a microsecond a row,
/// and a word in 1.5% of a million notes matches 15,000: a search stays
/// near 5 ms on any store, and below this many matches it is exact.
pub const RANKED_WINDOW: i64 = 5_000;

/// How many of each index's latest matches a search ranks: all of them
/// when a filter may leave few, or when the plan is not ranked.
fn ranked_window(plan: &KeywordPlan, filter: &NoteFilter) -> Option<i64> {
    (plan.ranked() && filter.is_trivial()).then_some(RANKED_WINDOW)
}

/// Rows read per index for common words when a filter narrows the set.
const FILTERED_COMMON_ROWS: i64 = 10_000;

/// What each database does its own way in keyword search.
pub trait TextSearch: Sql {
    /// How many notes the store holds (estimated where counting costs).
    fn note_total(&self) -> Result<f64>;
    /// How many parts the store holds (estimated where counting costs).
    fn part_total(&self) -> Result<f64>;
    /// How many rows of `index` hold `word`, counted up to `cap` (or
    /// estimated).
    fn rows_holding_word(&self, index: TextIndex, word: &str, cap: i64) -> Result<f64>;
    /// The `WITH` clause defining `hits(rid, score)` for `search`; `rid`
    /// is the key of the index's own table.
    fn hits_clause(&self, q: &mut Query, search: &IndexSearch<'_>) -> Result<String>;
    /// Which of `words` each of the notes `rids` holds, in its summary,
    /// tags, name or full text (bit i for `words[i]`, stemmed as indexed).
    fn words_held(&self, rids: &[NoteRid], words: &[String]) -> Result<HashMap<NoteRid, u64>>;
}

/// Rows each index contributes before joining and grouping: without a
/// filter that could drop many, only the best matches.
fn index_rows(plan: &KeywordPlan, filter: &NoteFilter, limit: usize) -> i64 {
    match (filter.is_trivial(), plan.ranked()) {
        (true, _) => (limit * 4).max(200) as i64,
        (false, true) => i64::MAX,
        (false, false) => FILTERED_COMMON_ROWS,
    }
}

/// A part's or an archived version's select over `hits`: its note, its
/// number (the version offset, 1 = previous) and its score.
fn sub_select(index: TextIndex) -> (&'static str, &'static str) {
    match index {
        TextIndex::Parts => (
            "parts",
            "SELECT n.rid, p.number, h.score AS score
             FROM hits h JOIN parts p ON p.pid = h.rid JOIN notes n ON n.rid = p.note WHERE TRUE",
        ),
        _ => (
            "versions",
            "SELECT n.rid, (SELECT count(*) FROM versions w WHERE w.note = v.note AND w.seq >= v.seq),
                    h.score AS score
             FROM hits h JOIN versions v ON v.vid = h.rid JOIN notes n ON n.rid = v.note WHERE TRUE",
        ),
    }
}

/// Keyword search, the same on every database.
pub trait Keyword: TextSearch {
    /// Plans a keyword query from free text; `None` when it has no words.
    fn keyword_plan(&self, text: &str) -> Result<Option<KeywordPlan>> {
        self.plan_words(topic_words(text), COMMON_MIN_MATCHES)
    }

    /// A plan of `words`: those matching more than a share of the notes
    /// (at least `min_common`) in their text or names are common.
    fn plan_words(&self, words: Vec<String>, min_common: usize) -> Result<Option<KeywordPlan>> {
        if words.is_empty() {
            return Ok(None);
        }
        let threshold = common_threshold(self.note_total()? as i64, min_common) as f64;
        let mut rare = Vec::new();
        for word in &words {
            let mut common = false;
            for index in [TextIndex::NoteText, TextIndex::NoteNames] {
                common |= self.rows_holding_word(index, word, threshold as i64 + 1)? > threshold;
            }
            if !common {
                rare.push(word.clone());
            }
        }
        Ok(KeywordPlan::of(words, rare))
    }

    /// The number of texts a search can return (notes and their parts),
    /// and how many of them hold each of `words` (each index counted up to
    /// `cap`): 0 for a word that nothing in the store holds.
    fn text_frequencies(&self, words: &[String], cap: usize) -> Result<(usize, Vec<usize>)> {
        let mut counts = Vec::with_capacity(words.len());
        for word in words {
            let mut notes: f64 = 0.0;
            for index in [TextIndex::NoteText, TextIndex::Bodies, TextIndex::NoteNames] {
                notes = notes.max(self.rows_holding_word(index, word, cap as i64)?);
            }
            let parts = self.rows_holding_word(TextIndex::Parts, word, cap as i64)?;
            counts.push((notes + parts) as usize);
        }
        let total = self.note_total()?.max(0.0) + self.part_total()?.max(0.0);
        Ok((total as usize, counts))
    }

    /// The number of notes, and how many of them hold each of `words` in
    /// their text or full text (counted up to `cap`).
    fn word_frequencies(&self, words: &[String], cap: usize) -> Result<(usize, Vec<usize>)> {
        let mut counts = Vec::with_capacity(words.len());
        for word in words {
            let mut most: f64 = 0.0;
            for index in [TextIndex::NoteText, TextIndex::Bodies] {
                most = most.max(self.rows_holding_word(index, word, cap as i64)?);
            }
            counts.push((most as usize).min(cap));
        }
        Ok((self.note_total()?.max(0.0) as usize, counts))
    }

    /// The rows of `select` over the `hits` of `search` whose notes pass
    /// `filter`, then `tail` (grouping, order), at most `limit`.
    fn search_rows(
        &self,
        search: &IndexSearch<'_>,
        select: &str,
        filter: &NoteFilter,
        tail: &str,
        limit: usize,
    ) -> Result<Vec<Vec<Cell>>> {
        let mut q = Query::default();
        let hits = self.hits_clause(&mut q, search)?;
        q.push(&format!("{hits} {select}"));
        push_filter(self.dialect(), filter, &mut q);
        let limit = q.arg(limit as i64);
        q.push(&format!(" {tail} LIMIT {limit}"));
        self.rows_planned_for(&q)
    }

    /// Notes matching the plan, best first. Summary and tag matches count
    /// fully, name matches as tags, full-text matches half.
    fn keyword_search(
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
        let indexes = [TextIndex::NoteText, TextIndex::Bodies, TextIndex::NoteNames];
        run_plan(
            plan,
            limit,
            |words, join| {
                let search = IndexSearch {
                    indexes: &indexes,
                    words,
                    join,
                    ranked,
                    rows: index_rows(plan, filter, limit),
                    newest: ranked_window(plan, filter),
                };
                let select = "SELECT n.rid, max(h.score) AS score
                     FROM hits h JOIN notes n ON n.rid = h.rid WHERE TRUE";
                let tail = format!("GROUP BY n.rid ORDER BY {order}");
                self.search_rows(&search, select, filter, &tail, limit)?
                    .iter()
                    .map(|r| {
                        Ok(FtsHit {
                            rid: NoteRid(r[0].int()?),
                            score: r[1].real()?,
                        })
                    })
                    .collect()
            },
            |a, b| a.rid == b.rid,
            |h| &mut h.score,
        )
    }

    /// Parts or archived versions (`index`) matching the plan, whose notes
    /// pass `filter`, best first; the number is the part's, or the
    /// version offset (1 = previous).
    fn keyword_search_within(
        &self,
        index: TextIndex,
        plan: &KeywordPlan,
        filter: &NoteFilter,
        limit: usize,
    ) -> Result<Vec<SubHit>> {
        let (table, select) = sub_select(index);
        if self
            .query(&format!("SELECT 1 FROM {table} LIMIT 1"), &[])?
            .is_empty()
        {
            return Ok(Vec::new());
        }
        let ranked = plan.ranked();
        let order = if ranked { "score DESC" } else { "h.rid DESC" };
        let rows = if ranked {
            i64::MAX
        } else {
            index_rows(plan, filter, limit)
        };
        run_plan(
            plan,
            limit,
            |words, join| {
                let search = IndexSearch {
                    indexes: &[index],
                    words,
                    join,
                    ranked,
                    rows,
                    newest: ranked_window(plan, filter),
                };
                let tail = format!("ORDER BY {order}");
                self.search_rows(&search, select, filter, &tail, limit)?
                    .iter()
                    .map(|r| {
                        let [rid, number, score] = cells(r)?;
                        Ok(SubHit {
                            rid: NoteRid(rid.int()?),
                            number: number.int()?,
                            score: score.real()?,
                        })
                    })
                    .collect()
            },
            |a, b| a == b,
            |h| &mut h.score,
        )
    }
}

impl<T: TextSearch + ?Sized> Keyword for T {}
