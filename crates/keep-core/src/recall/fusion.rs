//! Fusion of candidate lists: parts and versions roll up to their note,
//! reciprocal-rank fusion of the keyword and vector lists, and recency
//! decay. Pure functions over ranked lists.

use std::collections::HashMap;

use super::Matched;
use super::weights::{self, KEYWORD_WEIGHT, RRF_K, VECTOR_WEIGHT};
use crate::store::NoteRid;

/// One entry of a ranked candidate list (best first).
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub rid: NoteRid,
    pub matched: Option<Matched>,
    /// Cosine similarity, for vector candidates.
    pub similarity: Option<f64>,
}

/// A note after fusion.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub rid: NoteRid,
    pub score: f64,
    /// 1-based rank in the keyword list.
    pub keyword_rank: Option<usize>,
    /// 1-based rank in the vector list.
    pub vector_rank: Option<usize>,
    pub similarity: Option<f64>,
    pub matched: Option<Matched>,
}

impl Ranked {
    /// A candidate matching a note's current text.
    pub fn note(rid: NoteRid) -> Self {
        Ranked {
            rid,
            matched: None,
            similarity: None,
        }
    }

    /// A candidate matching inside a part or an archived version of a note.
    pub fn within(rid: NoteRid, matched: Matched, similarity: Option<f64>) -> Self {
        Ranked {
            rid,
            matched: Some(matched),
            similarity,
        }
    }
}

/// Keeps the first entry of each note: parts and versions roll up to it.
fn roll_up(list: &[Ranked]) -> Vec<Ranked> {
    let mut seen = std::collections::HashSet::new();
    list.iter()
        .filter(|r| seen.insert(r.rid))
        .cloned()
        .collect()
}

/// Weighted reciprocal-rank fusion of a keyword and a vector list; best
/// first, ties broken by rid for a stable order.
pub fn fuse(keyword: &[Ranked], vector: &[Ranked]) -> Vec<Fused> {
    let mut by_rid: HashMap<NoteRid, Fused> = HashMap::new();
    let lists = [
        (KEYWORD_WEIGHT, roll_up(keyword), true),
        (VECTOR_WEIGHT, roll_up(vector), false),
    ];
    for (weight, list, is_keyword) in lists {
        for (i, r) in list.iter().enumerate() {
            let rank = i + 1;
            let entry = by_rid.entry(r.rid).or_insert(Fused {
                rid: r.rid,
                score: 0.0,
                keyword_rank: None,
                vector_rank: None,
                similarity: None,
                matched: r.matched.clone(),
            });
            entry.score += weight / (RRF_K + rank as f64);
            if is_keyword {
                entry.keyword_rank = Some(rank);
            } else {
                entry.vector_rank = Some(rank);
                entry.similarity = r.similarity;
                if entry.keyword_rank.is_none_or(|k| rank < k) {
                    entry.matched = r.matched.clone();
                }
            }
        }
    }
    let mut fused: Vec<Fused> = by_rid.into_values().collect();
    sort_by_score(&mut fused);
    fused
}

pub fn sort_by_score(fused: &mut [Fused]) {
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.rid.cmp(&b.rid)));
}

/// ACT-R style decay: halves every `half_life_days`; 0 disables it.
pub fn decay_factor(age_days: f64, half_life_days: f64) -> f64 {
    if half_life_days <= 0.0 {
        return 1.0;
    }
    0.5f64.powf(age_days.max(0.0) / half_life_days)
}

/// Score factor from feedback: 1 with no net rating, bounded by
/// `FEEDBACK_MAX_BOOST` either way.
pub fn feedback_factor(useful: i64, wrong: i64) -> f64 {
    let net = (useful - wrong) as f64;
    1.0 + weights::FEEDBACK_MAX_BOOST * (net / weights::FEEDBACK_SCALE).tanh()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rid: i64) -> Ranked {
        Ranked {
            rid: NoteRid(rid),
            matched: None,
            similarity: None,
        }
    }

    #[test]
    fn notes_in_both_lists_rank_above_notes_in_one() {
        let fused = fuse(&[r(1), r(2), r(3)], &[r(3), r(4)]);
        assert_eq!(fused[0].rid, NoteRid(3));
        assert_eq!(fused[0].keyword_rank, Some(3));
        assert_eq!(fused[0].vector_rank, Some(1));
        assert!((fused[0].score - (1.0 / 63.0 + 1.0 / 61.0)).abs() < 1e-12);
        assert_eq!(fused.len(), 4);
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
        };
        let fused = fuse(&[], &[part, r(8), r(7)]);
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
    fn decay_halves_per_half_life_and_zero_disables_it() {
        assert_eq!(decay_factor(0.0, 30.0), 1.0);
        assert!((decay_factor(30.0, 30.0) - 0.5).abs() < 1e-12);
        assert!((decay_factor(60.0, 30.0) - 0.25).abs() < 1e-12);
        assert_eq!(decay_factor(365.0, 0.0), 1.0);
        assert_eq!(decay_factor(-5.0, 30.0), 1.0);
    }
}
