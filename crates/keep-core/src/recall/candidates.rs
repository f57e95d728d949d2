//! Candidate lists for fusion: keyword (BM25) hits and nearest vectors
//! among notes, parts and archived versions, best first, each passing the
//! filter.

use std::collections::HashSet;

use super::Matched;
use super::fusion::{Ranked, roll_up};
use super::weights::{
    CANDIDATES, HIDDEN_MATCH_COVERAGE, MIN_SIMILARITY, OLD_WORDING_KEYWORD_FACTOR,
    OLD_WORDING_VECTOR_FACTOR,
};
use crate::error::Result;
use crate::facts::words::{plain_words, stem};
use crate::model::NoteFilter;
use crate::store::Db;

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
    for h in db.keyword_search_parts(&plan, filter, CANDIDATES)? {
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
    for h in db.keyword_search_versions(&plan, filter, CANDIDATES)? {
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

fn sort_by_similarity(list: &mut [Ranked]) {
    list.sort_by(|a, b| {
        b.similarity
            .unwrap_or(0.0)
            .total_cmp(&a.similarity.unwrap_or(0.0))
    });
}

/// Sets, on each keyword candidate passing `filter`, the share of the
/// query's topic words its note says in its summary, user tags or name
/// (compared by stem): a note that shares one word of three with the query
/// ("rug" of "a kitten resting on a rug") is weaker keyword evidence than
/// its BM25 alone says. A match that this text does not show (in the body
/// of a long document, a part, an old version) counts as
/// `HIDDEN_MATCH_COVERAGE` at least. One-word queries are left alone.
pub(crate) fn set_coverage(
    db: &Db<'_>,
    text: &str,
    filter: &NoteFilter,
    keyword: &mut [Ranked],
) -> Result<()> {
    let mut words: Vec<String> = crate::store::plan::topic_words(text)
        .iter()
        .map(|w| stem(w))
        .collect();
    words.sort();
    words.dedup();
    if words.len() < 2 || keyword.is_empty() {
        return Ok(());
    }
    let rids: Vec<_> = roll_up(keyword).into_iter().map(|r| r.rid).collect();
    let notes = db.notes_passing(&rids, filter)?;
    for r in keyword.iter_mut() {
        let Some(note) = notes.get(&r.rid) else {
            continue;
        };
        let said = said_words(note);
        let shown = words.iter().filter(|w| said.contains(*w)).count() as f64 / words.len() as f64;
        let hidden = r.matched.is_some() || shown == 0.0;
        r.coverage = Some(if hidden {
            shown.max(HIDDEN_MATCH_COVERAGE)
        } else {
            shown
        });
    }
    Ok(())
}

/// The stems of the words a note says where a keyword match shows: its
/// summary, user tags and name.
fn said_words(note: &crate::model::Note) -> HashSet<String> {
    let name = note.id.rsplit('/').next().unwrap_or(&note.id);
    let tags = crate::store::plan::tags_index_text(&note.tags);
    [note.summary.as_str(), tags.as_str(), name]
        .iter()
        .flat_map(|t| plain_words(t))
        .map(|w| stem(&w))
        .collect()
}
