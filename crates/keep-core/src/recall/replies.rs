//! Replies and the messages they answer. A reply (a note with an
//! `in-reply-to` edge, or a turn of a conversation answering the turn
//! before it) often matches a query by restating the message it
//! answers: an assistant's "Congratulations on adopting Luna!" under the
//! person's "I adopted a cat, Luna, two years ago". The message is where
//! the fact was said, so a reply's match is credited to it: the answered
//! message scores at least what its reply scores, and comes just above it.
//! The reply keeps `REPLY_SHARE` of its score, since with the message
//! shown it says less that is new; the place it gives up goes to other
//! evidence.

use std::collections::HashMap;

use super::Matched;
use super::fusion::{Fused, Unit, sort_by_score};
use super::weights::REPLY_SHARE;

/// Credits each reply's score to the message it answers (`answered`:
/// reply → message, both able to be shown). A message not yet among
/// `fused` joins it. Returns the messages whose place comes from a reply,
/// each with that reply. Best first afterwards.
pub(crate) fn credit_answered(
    fused: &mut Vec<Fused>,
    answered: &HashMap<Unit, Unit>,
) -> HashMap<Unit, Unit> {
    let mut credit: HashMap<Unit, (f64, Unit)> = HashMap::new();
    for f in fused.iter() {
        if let Some(&message) = answered.get(&f.unit())
            && message != f.unit()
        {
            let best = credit.entry(message).or_insert((f.score, f.unit()));
            if f.score > best.0 {
                *best = (f.score, f.unit());
            }
        }
    }
    for f in fused.iter_mut() {
        if answered.get(&f.unit()).is_some_and(|m| *m != f.unit()) {
            f.score *= REPLY_SHARE;
        }
    }
    let mut lifted = HashMap::new();
    for f in fused.iter_mut() {
        if let Some(&(score, reply)) = credit.get(&f.unit())
            && score > f.score
        {
            f.score = score;
            lifted.insert(f.unit(), reply);
        }
    }
    for (message, (score, reply)) in credit {
        if !fused.iter().any(|f| f.unit() == message) {
            let (rid, turn) = message;
            fused.push(Fused {
                rid,
                turn,
                score,
                keyword_rank: None,
                vector_rank: None,
                similarity: None,
                matched: turn.map(|part| Matched::Part {
                    part,
                    section: None,
                }),
                by_keyword: 0.0,
                by_meaning: 0.0,
                coverage: None,
            });
            lifted.insert(message, reply);
        }
    }
    sort_by_score(fused);
    lifted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::fusion::fused;
    use keep_store::NoteRid;

    fn n(rid: i64) -> Unit {
        (NoteRid(rid), None)
    }

    fn order(fused: &[Fused]) -> Vec<i64> {
        fused.iter().map(|f| f.rid.0).collect()
    }

    #[test]
    fn a_matching_reply_brings_the_message_it_answers_just_above_it() {
        // 2 answers 1, which did not match; 3 and 4 matched on their own.
        let mut list = vec![fused(2, 1.0), fused(3, 0.8), fused(4, 0.5)];
        let answered = HashMap::from([(n(2), n(1))]);
        let lifted = credit_answered(&mut list, &answered);
        assert_eq!(order(&list), [1, 3, 2, 4]);
        assert_eq!(list[0].score, 1.0);
        assert!((list[2].score - REPLY_SHARE).abs() < 1e-12);
        assert_eq!(lifted, HashMap::from([(n(1), n(2))]));
    }

    #[test]
    fn a_message_that_matched_better_than_its_replies_keeps_its_own_score() {
        let mut list = vec![fused(1, 2.0), fused(2, 1.0), fused(5, 0.9), fused(6, 0.3)];
        let answered = HashMap::from([(n(2), n(1)), (n(5), n(1))]);
        let lifted = credit_answered(&mut list, &answered);
        assert_eq!(order(&list), [1, 2, 5, 6]);
        assert_eq!(list[0].score, 2.0);
        assert!(lifted.is_empty());
    }

    #[test]
    fn a_message_takes_its_best_replys_score_and_a_chain_credits_one_step() {
        // 3 answers 2, 2 answers 1: 2 is lifted by 3, and its own match
        // lifts 1 only as far as that match went.
        let mut list = vec![fused(3, 1.0), fused(2, 0.4), fused(9, 0.7)];
        let answered = HashMap::from([(n(3), n(2)), (n(2), n(1))]);
        let lifted = credit_answered(&mut list, &answered);
        assert_eq!(order(&list), [2, 9, 3, 1]);
        assert_eq!(list[0].score, 1.0);
        assert!((list[2].score - REPLY_SHARE).abs() < 1e-12);
        assert_eq!(list[3].score, 0.4);
        assert_eq!(lifted[&n(2)], n(3));
        assert_eq!(lifted[&n(1)], n(2));
    }

    #[test]
    fn notes_without_replies_keep_their_order_and_scores() {
        let mut list = vec![fused(1, 1.0), fused(2, 0.5)];
        let before = list.clone();
        assert!(credit_answered(&mut list, &HashMap::new()).is_empty());
        assert_eq!(list, before);
    }
}
