//! The first results of a compound question cover each of its pieces.
//! Ranked by score alone, the notes that answer one piece well fill the
//! first places and the other piece's answer falls below them. So the
//! first results are chosen one at a time (xQuAD): each for its own score
//! and for what it adds to the pieces that the results before it left
//! uncovered, a piece being covered as far as a chosen result is among
//! its own best matches.

use std::collections::HashMap;

use super::fusion::{Fused, Unit};
use super::weights::{COVERAGE_POOL, COVERAGE_SHARE, FACET_POOL};

/// One piece of the question: its best matches, each with its share of
/// the piece's best score.
#[derive(Debug, Clone, Default)]
pub struct Facet(HashMap<Unit, f64>);

impl Facet {
    /// The first `FACET_POOL` matches of the piece's own ranking (a
    /// conversation's synopsis among them: leaving it out, so that a
    /// piece counts covered by its best turn, gave all@5 0.362 against
    /// 0.375 on the dev questions of the conversation benchmark).
    pub fn of(ranked: &[Fused]) -> Facet {
        let best = ranked.first().map_or(0.0, |f| f.score);
        if best <= 0.0 {
            return Facet::default();
        }
        Facet(
            ranked
                .iter()
                .take(FACET_POOL)
                .map(|f| (f.unit(), (f.score / best).clamp(0.0, 1.0)))
                .collect(),
        )
    }

    fn share(&self, unit: &Unit) -> f64 {
        self.0.get(unit).copied().unwrap_or(0.0)
    }
}

/// Reorders the first `limit` of `fused` (sorted by score) so that they
/// cover every piece: the first `limit × COVERAGE_POOL` results compete
/// for each place by `(1 − COVERAGE_SHARE) · score / best + COVERAGE_SHARE
/// · Σ share · uncovered / pieces`. Scores are left as they were.
pub fn diversify(fused: &mut Vec<Fused>, facets: &[Facet], limit: usize) {
    let best = fused.first().map_or(0.0, |f| f.score);
    if facets.len() < 2 || best <= 0.0 {
        return;
    }
    let pool = (limit * COVERAGE_POOL).min(fused.len());
    let mut rest: Vec<Fused> = fused.drain(..pool).collect();
    let mut uncovered = vec![1.0; facets.len()];
    let mut chosen = Vec::with_capacity(pool);
    while chosen.len() < limit && !rest.is_empty() {
        let gain = |f: &Fused| {
            let adds: f64 = facets
                .iter()
                .zip(&uncovered)
                .map(|(facet, left)| facet.share(&f.unit()) * left)
                .sum::<f64>()
                / facets.len() as f64;
            (1.0 - COVERAGE_SHARE) * f.score / best + COVERAGE_SHARE * adds
        };
        let mut pick = 0;
        let mut pick_gain = f64::MIN;
        for (i, f) in rest.iter().enumerate() {
            let g = gain(f);
            if g > pick_gain {
                pick = i;
                pick_gain = g;
            }
        }
        let f = rest.remove(pick);
        for (facet, left) in facets.iter().zip(uncovered.iter_mut()) {
            *left *= 1.0 - facet.share(&f.unit());
        }
        chosen.push(f);
    }
    chosen.append(&mut rest);
    chosen.append(fused);
    *fused = chosen;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::fusion::fused;

    fn ranked(scores: &[(i64, f64)]) -> Vec<Fused> {
        scores.iter().map(|&(rid, s)| fused(rid, s)).collect()
    }

    fn rids(list: &[Fused]) -> Vec<i64> {
        list.iter().map(|f| f.rid.0).collect()
    }

    #[test]
    fn the_second_pieces_answer_reaches_the_first_places() {
        // Notes 1-4 answer the first piece, note 9 the second; by score
        // alone note 9 is sixth.
        let mut whole = ranked(&[(1, 1.0), (2, 0.9), (3, 0.85), (4, 0.8), (5, 0.75), (9, 0.7)]);
        let first = Facet::of(&ranked(&[(1, 1.0), (2, 0.95), (3, 0.9), (4, 0.9)]));
        let second = Facet::of(&ranked(&[(9, 1.0), (5, 0.2)]));
        diversify(&mut whole, &[first, second], 3);
        assert_eq!(&rids(&whole)[..3], [1, 9, 2]);
        assert_eq!(whole.len(), 6, "nothing is lost");
    }

    #[test]
    fn one_piece_changes_nothing() {
        let mut whole = ranked(&[(1, 1.0), (2, 0.9), (3, 0.8)]);
        let before = whole.clone();
        diversify(&mut whole, &[Facet::of(&ranked(&[(3, 1.0)]))], 2);
        assert_eq!(whole, before);
    }
}
