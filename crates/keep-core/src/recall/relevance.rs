//! How relevant a hit is to its query on a scale of its own, not against
//! the other hits: the share of the query's wording its text holds (each
//! word weighed by its rarity) and how close in meaning it is. The ranking
//! scores only order one list; this is what the relevance floor compares,
//! so a search about something no note holds can say "nothing relevant"
//! (and name the words of the query that nothing in the store holds).

use std::collections::HashSet;

use keep_store::Db;
use keep_store::prelude::*;

use crate::error::Result;
use crate::facts::words::{plain_words, stem};
use crate::recall::weights::{
    RELEVANCE_COVERAGE_WEIGHT, RELEVANCE_MEANING_FLOOR, SHORT_QUERY_MEANING_FLOOR,
    SHORT_QUERY_WORDS,
};

/// The judge of one search: the words of the query, whether meaning
/// counts, the floor, and the closest hit so far.
#[derive(Debug, Clone)]
pub(crate) struct Judge {
    words: QueryWords,
    by_meaning: bool,
    pub(crate) floor: f64,
    closest: Option<(f64, String)>,
}

/// A hit's relevance and the share of the query's wording it holds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Judged {
    pub(crate) relevance: f64,
    pub(crate) wording: f64,
}

impl Judge {
    /// The judge of a search for `text`; `dated` when it names a time;
    /// `by_meaning` when it has a query vector.
    pub(crate) fn of(
        db: &Db<'_>,
        text: &str,
        dated: bool,
        by_meaning: bool,
        floor: f64,
    ) -> Result<Judge> {
        Ok(Judge {
            words: QueryWords::of(db, text, dated)?,
            by_meaning,
            floor,
            closest: None,
        })
    }

    /// Judges the hit `address` whose matched text is `text`; `held` is
    /// the share of the query its note holds in all its text, when known.
    pub(crate) fn judge(
        &mut self,
        address: &str,
        text: &str,
        held: Option<f64>,
        similarity: Option<f64>,
    ) -> Judged {
        let wording = self.words.coverage(text).max(held.unwrap_or(0.0));
        let relevance = relevance(self.words.is_short(), wording, similarity, self.by_meaning);
        if self.closest.as_ref().is_none_or(|(b, _)| relevance > *b) {
            self.closest = Some((relevance, address.to_string()));
        }
        Judged { relevance, wording }
    }

    /// Whether nothing found is relevant: the best hit is below the floor.
    pub(crate) fn nothing_relevant(&self) -> bool {
        self.closest
            .as_ref()
            .is_some_and(|(best, _)| *best < self.floor)
    }

    /// The best relevance of any hit, and that hit's address.
    pub(crate) fn closest(&self) -> Option<(f64, &str)> {
        self.closest.as_ref().map(|(b, a)| (*b, a.as_str()))
    }

    /// The query's words that nothing in the store holds.
    pub(crate) fn unheard(&self) -> &[String] {
        &self.words.unheard
    }
}

/// Texts counted at most, in each index, for a word's rarity: a word held
/// by more weighs little either way, and counting stops early in a large
/// store.
const RARITY_COUNT_CAP: usize = 1_000;

/// The query's topic words, stemmed, each with its weight by rarity.
#[derive(Debug, Clone, Default)]
pub(crate) struct QueryWords {
    words: Vec<(String, f64)>,
    whole: f64,
    /// The query's topic words that nothing in the store holds, as written.
    pub(crate) unheard: Vec<String>,
}

impl QueryWords {
    /// The topic words of `text` weighed as BM25 weighs them over every
    /// text a search can return (`candidates::idf`). When the query names
    /// a time (`dated`), the words that name it (a year, a month, a day of
    /// the week) are left out: the time is matched as a time.
    pub(crate) fn of(db: &Db<'_>, text: &str, dated: bool) -> Result<QueryWords> {
        let topic: Vec<String> = keep_store::plan::topic_words(text)
            .into_iter()
            .filter(|w| !(dated && keep_model::dates::names_a_time(w)))
            .collect();
        if topic.is_empty() {
            return Ok(QueryWords::default());
        }
        let (total, counts) = db.text_frequencies(&topic, RARITY_COUNT_CAP)?;
        let unheard = topic
            .iter()
            .zip(&counts)
            .filter(|(_, df)| **df == 0)
            .map(|(word, _)| word.clone())
            .collect();
        let mut seen = HashSet::new();
        let words: Vec<(String, f64)> = topic
            .iter()
            .zip(counts)
            .map(|(word, df)| (stem(word), super::candidates::idf(total, df)))
            .filter(|(s, w)| w.is_finite() && seen.insert(s.clone()))
            .collect();
        let whole = words.iter().map(|(_, w)| w).sum();
        Ok(QueryWords {
            words,
            whole,
            unheard,
        })
    }

    /// A query of one or two topic words: too little for the model to
    /// compare, so its cosine sits low even when right.
    pub(crate) fn is_short(&self) -> bool {
        self.words.len() <= SHORT_QUERY_WORDS
    }

    /// The share of the query's weight that `text` holds, 0 to 1.
    pub(crate) fn coverage(&self, text: &str) -> f64 {
        if self.whole <= 0.0 {
            return 0.0;
        }
        let held: HashSet<String> = plain_words(text).iter().map(|w| stem(w)).collect();
        let said: f64 = self
            .words
            .iter()
            .filter(|(s, _)| held.contains(s))
            .map(|(_, w)| w)
            .sum();
        said / self.whole
    }
}

/// A hit's relevance from the share of the query its text holds and its
/// cosine similarity to the query (None when it has none above the
/// candidates' floor), each counted above what unrelated text reaches. A
/// short query is also judged by meaning alone, where a lower cosine
/// already counts; a search without a query vector (keywords only) by
/// its wording alone.
pub(crate) fn relevance(
    short: bool,
    coverage: f64,
    similarity: Option<f64>,
    by_meaning_too: bool,
) -> f64 {
    if !by_meaning_too {
        return coverage.clamp(0.0, 1.0);
    }
    let above = |floor: f64| similarity.map_or(0.0, |s| ((s - floor) / (1.0 - floor)).max(0.0));
    let blended = RELEVANCE_COVERAGE_WEIGHT * coverage
        + (1.0 - RELEVANCE_COVERAGE_WEIGHT) * above(RELEVANCE_MEANING_FLOOR);
    let by_meaning = if short {
        above(SHORT_QUERY_MEANING_FLOOR)
    } else {
        0.0
    };
    blended.max(by_meaning).clamp(0.0, 1.0)
}
