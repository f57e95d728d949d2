//! Fusion of candidate lists: parts and versions roll up to their note
//! (but the turns of a conversation, each ranked on its own), the keyword
//! and vector lists combine by normalised score weighted by each list's
//! confidence, then recency decay and feedback. Pure functions over
//! ranked lists.

use std::collections::{HashMap, HashSet};

use super::Matched;
use super::weights::{
    self, CONFIDENCE_DEPTH, CONFIDENCE_WEIGHT, COVERAGE_EXPONENT, KEYWORD_WEIGHT, PIECE_TOP,
    SIMILARITY_FLOOR, VECTOR_TRUST_FROM, VECTOR_TRUST_FULL, VECTOR_WEIGHT,
};
use keep_store::NoteRid;

/// One entry of a ranked candidate list (best first).
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub rid: NoteRid,
    pub matched: Option<Matched>,
    /// Cosine similarity, for vector candidates.
    pub similarity: Option<f64>,
    /// BM25 score (higher is better, after column and body factors), for
    /// keyword candidates.
    pub bm25: Option<f64>,
    /// Share of the query's words the note says, for keyword candidates
    /// (`candidates::set_coverage`); None counts as all.
    pub coverage: Option<f64>,
}

/// What a result is: a note, or one turn (part) of a conversation note.
pub type Unit = (NoteRid, Option<i64>);

/// A note (or a turn of one) after fusion.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub rid: NoteRid,
    /// The turn (part number) this result is, when it is one.
    pub turn: Option<i64>,
    pub score: f64,
    /// 1-based rank in the keyword list.
    pub keyword_rank: Option<usize>,
    /// 1-based rank in the vector list.
    pub vector_rank: Option<usize>,
    pub similarity: Option<f64>,
    pub matched: Option<Matched>,
    /// What the keyword list gave its fused score.
    pub by_keyword: f64,
    /// What the vector list gave its fused score.
    pub by_meaning: f64,
    /// The share of the query the note holds, when it was a keyword
    /// candidate matched in its own text (None counts as all there).
    pub coverage: Option<f64>,
}

impl Fused {
    pub fn unit(&self) -> Unit {
        (self.rid, self.turn)
    }
}

impl Ranked {
    /// What the candidate counts for: its turn when its note is one of
    /// `turns` (a conversation) and it matched a part, else its note.
    pub fn unit(&self, turns: &HashSet<NoteRid>) -> Unit {
        match &self.matched {
            Some(Matched::Part { part, .. }) if turns.contains(&self.rid) => {
                (self.rid, Some(*part))
            }
            _ => (self.rid, None),
        }
    }

    /// A candidate matching a note's current text.
    pub fn note(rid: NoteRid) -> Self {
        Ranked {
            rid,
            matched: None,
            similarity: None,
            bm25: None,
            coverage: None,
        }
    }

    /// A candidate matching inside a part or an archived version of a note.
    pub fn within(rid: NoteRid, matched: Matched, similarity: Option<f64>) -> Self {
        Ranked {
            rid,
            matched: Some(matched),
            similarity,
            bm25: None,
            coverage: None,
        }
    }
}

/// Keeps the first entry of each note: parts and versions roll up to it.
pub(crate) fn roll_up(list: &[Ranked]) -> Vec<Ranked> {
    roll_up_units(list, &HashSet::new())
}

/// Keeps the first entry of each unit: the parts and versions of a note
/// roll up to it, but each turn of a note in `turns` stands alone.
pub(crate) fn roll_up_units(list: &[Ranked], turns: &HashSet<NoteRid>) -> Vec<Ranked> {
    let mut seen = HashSet::new();
    list.iter()
        .filter(|r| seen.insert(r.unit(turns)))
        .cloned()
        .collect()
}

/// Fusion by score: a weighted sum of each note's normalised evidence,
/// cosine above the floor over the best cosine, BM25 over the best BM25
/// (or 1/rank when keyword hits are ordered newest first) times a root of
/// the share of the query the note holds (`COVERAGE_EXPONENT`). Each
/// list's weight grows with its confidence: how far its first score stands
/// above its fifth (for the keyword list, times the share of the query its
/// first hit holds). Best first, ties broken by rid for a stable order.
///
/// The parts of the notes in `turns` (conversations) are results of their
/// own, so several turns of one conversation may be found.
pub fn fuse(keyword: &[Ranked], vector: &[Ranked], turns: &HashSet<NoteRid>) -> Vec<Fused> {
    let keyword = roll_up_units(keyword, turns);
    let vector = roll_up_units(vector, turns);
    let bm25: Vec<f64> = keyword
        .iter()
        .enumerate()
        .map(|(i, r)| r.bm25.unwrap_or(1.0 / (i + 1) as f64))
        .collect();
    let best_bm25 = bm25.iter().copied().fold(0.0, f64::max);
    let keyword_evidence: Vec<f64> = keyword
        .iter()
        .zip(&bm25)
        .map(|(r, b)| {
            let coverage = r.coverage.unwrap_or(1.0).powf(COVERAGE_EXPONENT);
            if best_bm25 > 0.0 {
                b / best_bm25 * coverage
            } else {
                0.0
            }
        })
        .collect();
    let top_coverage = keyword.first().and_then(|r| r.coverage).unwrap_or(1.0);
    let distances: Vec<f64> = vector
        .iter()
        .map(|r| (r.similarity.unwrap_or(0.0) - SIMILARITY_FLOOR).max(0.0))
        .collect();
    let best_distance = distances.iter().copied().fold(0.0, f64::max);
    let vector_evidence: Vec<f64> = distances
        .iter()
        .map(|d| {
            if best_distance > 0.0 {
                d / best_distance
            } else {
                0.0
            }
        })
        .collect();
    let mut by_unit: HashMap<Unit, Fused> = HashMap::new();
    let lists = [
        (KEYWORD_WEIGHT, &keyword, &keyword_evidence, true),
        (VECTOR_WEIGHT, &vector, &vector_evidence, false),
    ];
    let similarities: Vec<f64> = vector.iter().filter_map(|r| r.similarity).collect();
    let confidences = [confidence(&bm25) * top_coverage, confidence(&similarities)];
    for ((weight, list, evidence, is_keyword), sure) in lists.into_iter().zip(confidences) {
        let mut weight = weight * (1.0 + CONFIDENCE_WEIGHT * sure);
        if !is_keyword {
            weight *= vector_trust(similarities.first().copied()).max(1.0 - top_coverage);
        }
        for (i, (r, e)) in list.iter().zip(evidence).enumerate() {
            let rank = i + 1;
            let (rid, turn) = r.unit(turns);
            let entry = by_unit.entry((rid, turn)).or_insert(Fused {
                rid,
                turn,
                score: 0.0,
                keyword_rank: None,
                vector_rank: None,
                similarity: None,
                matched: r.matched.clone(),
                by_keyword: 0.0,
                by_meaning: 0.0,
                coverage: None,
            });
            entry.score += weight * e;
            if is_keyword {
                entry.by_keyword += weight * e;
            } else {
                entry.by_meaning += weight * e;
            }
            if is_keyword {
                entry.keyword_rank = Some(rank);
                if r.matched.is_none() {
                    entry.coverage = Some(r.coverage.unwrap_or(1.0));
                }
            } else {
                entry.vector_rank = Some(rank);
                entry.similarity = r.similarity;
                if entry.keyword_rank.is_none_or(|k| rank < k) {
                    entry.matched = r.matched.clone();
                }
            }
        }
    }
    let mut fused: Vec<Fused> = by_unit.into_values().collect();
    sort_by_score(&mut fused);
    fused
}

/// How far the vector list is trusted, from its best cosine: not at all
/// at `VECTOR_TRUST_FROM` or below (the query's meaning matched nothing
/// closely, as when a long question meets long turns of talk), fully from
/// `VECTOR_TRUST_FULL`, linearly between. Fusion trusts it at least as
/// much as the first keyword hit misses of the query: when the words are
/// not there, meaning is all there is.
fn vector_trust(best: Option<f64>) -> f64 {
    let best = best.unwrap_or(0.0);
    ((best - VECTOR_TRUST_FROM) / (VECTOR_TRUST_FULL - VECTOR_TRUST_FROM)).clamp(0.0, 1.0)
}

/// How much a list's first score (BM25, or cosine) stands above its score
/// at `CONFIDENCE_DEPTH`, relative to the first: 0 for a flat list, 1 for
/// a list of one.
fn confidence(evidence: &[f64]) -> f64 {
    match evidence {
        [] => 0.0,
        [_] => 1.0,
        [first, ..] if *first <= 0.0 => 0.0,
        [first, rest @ ..] => {
            let at_depth = rest[rest.len().min(CONFIDENCE_DEPTH - 1) - 1];
            ((first - at_depth) / first).clamp(0.0, 1.0)
        }
    }
}

/// The whole query's ranking blended with its pieces' (a compound
/// question): the first `PIECE_TOP` of each piece's list, scaled so that
/// its best scores `piece_weight` of the whole's best; each note keeps its
/// highest score, so every piece's best match stands near the top.
pub fn blend(whole: Vec<Fused>, pieces: Vec<Vec<Fused>>, piece_weight: f64) -> Vec<Fused> {
    let top = |list: &[Fused]| list.first().map_or(0.0, |f| f.score);
    let whole_top = top(&whole);
    let mut by_unit: HashMap<Unit, Fused> = whole.into_iter().map(|f| (f.unit(), f)).collect();
    for list in pieces {
        let piece_top = top(&list);
        if piece_top <= 0.0 || whole_top <= 0.0 {
            continue;
        }
        let scale = piece_weight * whole_top / piece_top;
        for mut f in list.into_iter().take(PIECE_TOP) {
            f.score *= scale;
            match by_unit.get(&f.unit()) {
                Some(kept) if kept.score >= f.score => {}
                _ => {
                    by_unit.insert(f.unit(), f);
                }
            }
        }
    }
    let mut fused: Vec<Fused> = by_unit.into_values().collect();
    sort_by_score(&mut fused);
    fused
}

/// Leaves out a conversation's own entry (its synopsis) when turns of it
/// are ranked: the turns are what was said, and the synopsis would take a
/// place of its own beside them. Returns the entries left out.
pub fn prefer_turns(fused: &mut Vec<Fused>) -> Vec<Fused> {
    let with_turns: HashSet<NoteRid> = fused
        .iter()
        .filter(|f| f.turn.is_some())
        .map(|f| f.rid)
        .collect();
    let (kept, left): (Vec<Fused>, Vec<Fused>) = std::mem::take(fused)
        .into_iter()
        .partition(|f| f.turn.is_some() || !with_turns.contains(&f.rid));
    *fused = kept;
    left
}

pub fn sort_by_score(fused: &mut [Fused]) {
    fused.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.rid.cmp(&b.rid))
            .then(a.turn.cmp(&b.turn))
    });
}

/// ACT-R style decay: halves every `half_life_days`; 0 disables it.
pub fn decay_factor(age_days: f64, half_life_days: f64) -> f64 {
    if half_life_days <= 0.0 {
        return 1.0;
    }
    0.5f64.powf(age_days.max(0.0) / half_life_days)
}

/// Score factor from importance (1 to 5): 1 at the default 3, bounded by
/// `IMPORTANCE_MAX_BOOST` either way.
pub fn importance_factor(importance: u8) -> f64 {
    let centred = f64::from(importance.clamp(1, 5)) - f64::from(weights::IMPORTANCE_DEFAULT);
    1.0 + weights::IMPORTANCE_MAX_BOOST * centred / 2.0
}

/// Score factor from feedback: 1 with no net rating, bounded by
/// `FEEDBACK_MAX_BOOST` either way.
pub fn feedback_factor(useful: i64, wrong: i64) -> f64 {
    let net = (useful - wrong) as f64;
    1.0 + weights::FEEDBACK_MAX_BOOST * (net / weights::FEEDBACK_SCALE).tanh()
}

/// A fused note with a score and nothing else, for tests of rankings.
#[cfg(test)]
pub(crate) fn fused(rid: i64, score: f64) -> Fused {
    Fused {
        rid: NoteRid(rid),
        turn: None,
        score,
        keyword_rank: None,
        vector_rank: None,
        similarity: None,
        matched: None,
        by_keyword: 0.0,
        by_meaning: 0.0,
        coverage: None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_conversations_own_entry_gives_way_to_its_turns() {
        let turn = |rid, part, score| super::Fused {
            turn: Some(part),
            ..super::fused(rid, score)
        };
        let mut list = vec![
            super::fused(1, 3.0),
            turn(1, 4, 2.0),
            super::fused(2, 1.5),
            turn(3, 1, 1.0),
        ];
        let left = super::prefer_turns(&mut list);
        assert_eq!(left.len(), 1);
        let units: Vec<_> = list.iter().map(|f| (f.rid.0, f.turn)).collect();
        assert_eq!(units, [(1, Some(4)), (2, None), (3, Some(1))]);
    }

    #[test]
    fn each_pieces_best_match_joins_just_below_the_whole_questions_best() {
        let whole = vec![fused(1, 2.0), fused(2, 1.6), fused(3, 1.2)];
        let piece = vec![fused(4, 0.5), fused(5, 0.45), fused(1, 0.4)];
        let blended = blend(whole, vec![piece], 0.95);
        let order: Vec<i64> = blended.iter().map(|f| f.rid.0).collect();
        assert_eq!(order, [1, 4, 2, 3]);
        assert!((blended[1].score - 1.9).abs() < 1e-9);
    }
    use super::*;

    fn none() -> HashSet<NoteRid> {
        HashSet::new()
    }

    fn r(rid: i64) -> Ranked {
        Ranked {
            rid: NoteRid(rid),
            matched: None,
            similarity: None,
            bm25: None,
            coverage: None,
        }
    }

    fn kw(rid: i64, bm25: f64) -> Ranked {
        Ranked {
            bm25: Some(bm25),
            ..r(rid)
        }
    }

    fn vec(rid: i64, similarity: f64) -> Ranked {
        Ranked {
            similarity: Some(similarity),
            ..r(rid)
        }
    }

    #[test]
    fn notes_in_both_lists_rank_above_notes_in_one() {
        let fused = fuse(
            &[kw(1, 9.0), kw(2, 8.0), kw(3, 8.0)],
            &[vec(3, 0.7), vec(4, 0.6)],
            &none(),
        );
        assert_eq!(fused[0].rid, NoteRid(3));
        assert_eq!(fused[0].keyword_rank, Some(3));
        assert_eq!(fused[0].vector_rank, Some(1));
        assert_eq!(fused.len(), 4);
    }

    #[test]
    fn a_close_paraphrase_outranks_a_note_sharing_one_weak_word() {
        // Rank fusion gave both 1/61: one is first by keyword, the other
        // first by meaning. By score, the weak keyword list is flat and
        // the strong similarity stands out.
        let fused = fuse(
            &[kw(1, 2.1), kw(3, 2.0), kw(4, 2.0), kw(5, 1.9), kw(6, 1.9)],
            &[vec(2, 0.79), vec(7, 0.35), vec(1, 0.30)],
            &none(),
        );
        assert_eq!(fused[0].rid, NoteRid(2));
    }

    #[test]
    fn a_note_holding_one_word_of_the_query_does_not_beat_its_meaning() {
        // "a kitten resting on a rug": the dog note holds only "rug" (a
        // sixth of the query by rarity), the cat note means it.
        let dog = Ranked {
            coverage: Some(0.16),
            ..kw(2, 1.0)
        };
        let fused = fuse(
            std::slice::from_ref(&dog),
            &[vec(1, 0.59), vec(2, 0.42)],
            &none(),
        );
        assert_eq!(fused[0].rid, NoteRid(1), "{fused:?}");
        // Without coverage (a note holding the whole query) the same lists
        // rank the keyword match first.
        let whole = Ranked {
            coverage: Some(1.0),
            ..dog
        };
        let fused = fuse(&[whole], &[vec(1, 0.59), vec(2, 0.42)], &none());
        assert_eq!(fused[0].rid, NoteRid(2), "{fused:?}");
    }

    #[test]
    fn a_clear_keyword_match_beats_a_flat_list_of_similar_notes() {
        let fused = fuse(
            &[kw(1, 20.0), kw(2, 7.0)],
            &[
                vec(3, 0.53),
                vec(4, 0.53),
                vec(5, 0.52),
                vec(6, 0.52),
                vec(7, 0.52),
            ],
            &none(),
        );
        assert_eq!(fused[0].rid, NoteRid(1));
    }

    #[test]
    fn equal_evidence_ties_break_by_rid() {
        let fused = fuse(&[kw(9, 5.0), kw(4, 5.0)], &[], &none());
        assert_eq!(fused[0].score, fused[1].score);
        assert_eq!(fused[0].rid, NoteRid(4));
        assert_eq!(fused[1].rid, NoteRid(9));
    }

    #[test]
    fn confidence_is_how_far_the_first_stands_above_the_fifth() {
        assert_eq!(confidence(&[]), 0.0);
        assert_eq!(confidence(&[0.4]), 1.0);
        assert_eq!(confidence(&[0.5, 0.5, 0.5, 0.5, 0.5, 0.1]), 0.0);
        assert!((confidence(&[10.0, 9.0, 8.0, 7.0, 2.0]) - 0.8).abs() < 1e-12);
        assert!((confidence(&[10.0, 5.0]) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn newest_first_keyword_hits_count_by_rank() {
        let fused = fuse(&[r(1), r(2)], &[], &none());
        assert!(fused[0].score > fused[1].score && fused[1].score > 0.0);
        assert_eq!(fused[0].rid, NoteRid(1));
    }

    #[test]
    fn parts_roll_up_to_their_note_at_the_best_rank() {
        let part = Ranked {
            rid: NoteRid(7),
            matched: Some(Matched::Part {
                part: 2,
                section: None,
            }),
            similarity: Some(0.9),
            bm25: None,
            coverage: None,
        };
        let fused = fuse(&[], &[part, r(8), r(7)], &none());
        assert_eq!(fused.len(), 2);
        assert_eq!(fused[0].rid, NoteRid(7));
        assert_eq!(
            fused[0].matched,
            Some(Matched::Part {
                part: 2,
                section: None
            })
        );
        assert_eq!(fused[1].vector_rank, Some(2));
    }

    #[test]
    fn the_turns_of_a_conversation_are_results_of_their_own() {
        let turn = |part, similarity| Ranked {
            rid: NoteRid(7),
            matched: Some(Matched::Part {
                part,
                section: None,
            }),
            similarity: Some(similarity),
            bm25: None,
            coverage: None,
        };
        let list = [turn(2, 0.9), turn(5, 0.8), vec(8, 0.7)];
        let fused = fuse(&[], &list, &HashSet::from([NoteRid(7)]));
        let units: Vec<Unit> = fused.iter().map(Fused::unit).collect();
        assert_eq!(
            units,
            [
                (NoteRid(7), Some(2)),
                (NoteRid(7), Some(5)),
                (NoteRid(8), None)
            ]
        );
        // Another note's parts still roll up.
        assert_eq!(fuse(&[], &list, &none()).len(), 2);
    }

    #[test]
    fn feedback_is_neutral_unused_and_bounded_used() {
        assert_eq!(feedback_factor(0, 0), 1.0);
        assert_eq!(feedback_factor(4, 4), 1.0);
        assert!(feedback_factor(1, 0) > 1.0 && feedback_factor(0, 1) < 1.0);
        assert!(feedback_factor(1_000, 0) <= 1.0 + weights::FEEDBACK_MAX_BOOST);
        assert!(feedback_factor(0, 1_000) >= 1.0 - weights::FEEDBACK_MAX_BOOST);
    }

    #[test]
    fn decay_halves_per_half_life_and_zero_disables_it() {
        assert_eq!(decay_factor(0.0, 30.0), 1.0);
        assert!((decay_factor(30.0, 30.0) - 0.5).abs() < 1e-12);
        assert!((decay_factor(60.0, 30.0) - 0.25).abs() < 1e-12);
        assert_eq!(decay_factor(365.0, 0.0), 1.0);
        assert_eq!(decay_factor(-5.0, 30.0), 1.0);
    }
}
