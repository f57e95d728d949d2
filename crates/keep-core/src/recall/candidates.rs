//! Candidate lists for fusion: keyword (BM25) hits and nearest vectors
//! among notes, parts and archived versions, best first, each passing the
//! filter.

use std::collections::HashSet;

use super::Matched;
use super::fusion::{Ranked, Unit, roll_up, roll_up_units};
use super::weights::{
    CANDIDATES, HIDDEN_MATCH_COVERAGE, MIN_SIMILARITY, OLD_WORDING_KEYWORD_FACTOR,
    OLD_WORDING_VECTOR_FACTOR,
};
use crate::error::Result;
use keep_model::NoteFilter;
use keep_store::{Db, Embedded, Keyword, NoteReads, NoteRid, NoteRows, TextIndex, VecRow};

/// BM25 candidates from current text, parts and archived versions, best first.
pub(crate) fn keyword(db: &Db<'_>, text: &str, filter: &NoteFilter) -> Result<Vec<Ranked>> {
    let Some(plan) = db.keyword_plan(text)? else {
        return Ok(Vec::new());
    };
    let mut scored: Vec<(f64, Ranked)> = db
        .keyword_search(&plan, filter, CANDIDATES)?
        .into_iter()
        .map(|h| (h.score, Ranked::note(h.rid)))
        .collect();
    for h in db.keyword_search_within(TextIndex::Parts, &plan, filter, CANDIDATES)? {
        scored.push((
            h.score,
            Ranked::within(
                h.rid,
                Matched::Part {
                    part: h.number,
                    section: None,
                },
                None,
            ),
        ));
    }
    for h in db.keyword_search_within(TextIndex::Versions, &plan, filter, CANDIDATES)? {
        scored.push((
            h.score * OLD_WORDING_KEYWORD_FACTOR,
            Ranked::within(h.rid, Matched::Version { version: h.number }, None),
        ));
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(scored
        .into_iter()
        .map(|(score, r)| Ranked {
            bm25: plan.ranked().then_some(score),
            ..r
        })
        .collect())
}

/// Nearest notes, parts and versions by cosine similarity, best first.
pub(crate) fn vector(db: &Db<'_>, q: &[f32], filter: &NoteFilter) -> Result<Vec<Ranked>> {
    let mut found: Vec<Ranked> = Vec::new();
    let notes = if filter.is_trivial() {
        db.nearest_notes(q, CANDIDATES * 2)?
    } else {
        db.nearest_filtered(q, filter, CANDIDATES)?
    };
    for (rid, distance) in notes {
        let mut r = Ranked::note(rid);
        r.similarity = Some(1.0 - distance);
        found.push(r);
    }
    for (rid, number, distance) in db.nearest_parts(q, CANDIDATES)? {
        found.push(Ranked::within(
            rid,
            Matched::Part {
                part: number,
                section: None,
            },
            Some(1.0 - distance),
        ));
    }
    for (rid, offset, distance) in db.nearest_versions(q, CANDIDATES)? {
        found.push(Ranked::within(
            rid,
            Matched::Version { version: offset },
            Some((1.0 - distance) * OLD_WORDING_VECTOR_FACTOR),
        ));
    }
    found.retain(|r| r.similarity.is_some_and(|s| s >= MIN_SIMILARITY));
    sort_by_similarity(&mut found);
    let rids: Vec<_> = found.iter().map(|r| r.rid).collect();
    let passing = db.notes_passing(&rids, filter)?;
    found.retain(|r| passing.contains_key(&r.rid));
    Ok(found)
}

/// Adds to `vector` the similarity of each keyword candidate's note that
/// is not among the nearest, so fusion weighs every candidate on both
/// signals: a note outside the nearest hundred is not without meaning,
/// only less close than they are.
pub(crate) fn complete_similarities(
    db: &Db<'_>,
    q: &[f32],
    keyword: &[Ranked],
    vector: &mut Vec<Ranked>,
) -> Result<()> {
    let near: HashSet<_> = vector.iter().map(|r| r.rid).collect();
    let missing: Vec<_> = roll_up(keyword)
        .into_iter()
        .map(|r| r.rid)
        .filter(|rid| !near.contains(rid))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    for (rid, distance) in db.note_distances(q, &missing)? {
        let similarity = 1.0 - distance;
        if similarity >= MIN_SIMILARITY {
            vector.push(Ranked {
                similarity: Some(similarity),
                ..Ranked::note(rid)
            });
        }
    }
    sort_by_similarity(vector);
    Ok(())
}

/// Adds to `vector` the similarity of each keyword candidate that is a
/// part of one of `turns` (a result of its own) and not among the
/// nearest, read from the part's own vector: a turn found by its words
/// is weighed on its meaning too, not on its conversation's.
pub(crate) fn complete_part_similarities(
    db: &Db<'_>,
    q: &[f32],
    keyword: &[Ranked],
    vector: &mut Vec<Ranked>,
    turns: &HashSet<NoteRid>,
) -> Result<()> {
    if turns.is_empty() {
        return Ok(());
    }
    let near: HashSet<Unit> = vector.iter().map(|r| r.unit(turns)).collect();
    let mut added = false;
    for r in roll_up_units(keyword, turns) {
        let unit = r.unit(turns);
        let (rid, Some(part)) = unit else { continue };
        if near.contains(&unit) {
            continue;
        }
        let Ok(number) = u32::try_from(part) else {
            continue;
        };
        let Some(key) = db.part_key(rid, number)? else {
            continue;
        };
        let Some(stored) = db.vector(VecRow::Part(key))? else {
            continue;
        };
        let similarity = cosine(q, &stored);
        if similarity >= MIN_SIMILARITY {
            vector.push(Ranked::within(
                rid,
                Matched::Part {
                    part,
                    section: None,
                },
                Some(similarity),
            ));
            added = true;
        }
    }
    if added {
        sort_by_similarity(vector);
    }
    Ok(())
}

/// Cosine similarity of two vectors (0 when either is zero).
fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut aa, mut bb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa <= 0.0 || bb <= 0.0 {
        return 0.0;
    }
    dot / (aa.sqrt() * bb.sqrt())
}

fn sort_by_similarity(list: &mut [Ranked]) {
    list.sort_by(|a, b| {
        b.similarity
            .unwrap_or(0.0)
            .total_cmp(&a.similarity.unwrap_or(0.0))
    });
}

/// Sets, on each keyword candidate, the share of the query its note
/// holds (in its summary, tags, name or full text), each word weighed by
/// its rarity as BM25 weighs it: a note that holds one word of three with
/// the query ("rug" of "a kitten resting on a rug") is weaker keyword
/// evidence than its BM25 alone says, since BM25 is read against the best
/// hit, not against a note that holds the whole query. A match in a part
/// or an old version counts as `HIDDEN_MATCH_COVERAGE` at least.
/// One-word queries are left alone.
pub(crate) fn set_coverage(db: &Db<'_>, text: &str, keyword: &mut [Ranked]) -> Result<()> {
    let words = keep_store::plan::topic_words(text);
    if words.len() < 2 || keyword.is_empty() {
        return Ok(());
    }
    let (total, counts) = db.word_frequencies(&words, COVERAGE_COUNT_CAP)?;
    let weights: Vec<f64> = counts.iter().map(|&df| idf(total, df)).collect();
    let whole: f64 = weights.iter().sum();
    if whole.is_nan() || whole <= 0.0 {
        return Ok(());
    }
    let rids: Vec<_> = roll_up(keyword).into_iter().map(|r| r.rid).collect();
    let held = db.words_held(&rids, &words)?;
    for r in keyword.iter_mut() {
        let bits = held.get(&r.rid).copied().unwrap_or(0);
        let said: f64 = weights
            .iter()
            .enumerate()
            .filter(|(i, _)| *i < 64 && bits & (1u64 << i) != 0)
            .map(|(_, w)| w)
            .sum();
        let shown = said / whole;
        r.coverage = Some(if r.matched.is_some() {
            shown.max(HIDDEN_MATCH_COVERAGE)
        } else {
            shown
        });
    }
    Ok(())
}

/// Notes counted at most for a word's rarity in `set_coverage`.
const COVERAGE_COUNT_CAP: usize = 10_000;

/// A word's weight by how few of `total` notes hold it (`df`), as BM25
/// weighs it, never quite zero: one that no note holds weighs most. The
/// two counts are taken one after the other, so while others write `df`
/// may exceed `total`: it counts as every note then (never a NaN score).
pub(crate) fn idf(total: usize, df: usize) -> f64 {
    let (n, df) = (total as f64, df.min(total) as f64);
    ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
}

#[cfg(test)]
mod tests {
    use super::idf;

    #[test]
    fn a_word_counted_in_more_notes_than_were_counted_weighs_like_one_in_all() {
        let racing = idf(5, 8);
        assert!(racing.is_finite() && racing > 0.0, "{racing}");
        assert_eq!(racing, idf(5, 5));
        assert!(idf(5, 0) > idf(5, 1));
    }
}
