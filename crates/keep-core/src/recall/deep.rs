//! Deep recall: from the top hits, walk edges and distinctive shared tags
//! one or two hops (associative recall, as in a key graph), scoring each
//! note reached by the score it was reached from, halved per hop.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::weights::HOP_DECAY;
use crate::error::Result;
use keep_store::NoteRid;

/// How a note reached by deep recall was reached.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Via {
    /// 1 for a neighbour of a direct hit, 2 for a neighbour of that.
    pub hop: u8,
    /// The id of the note it was reached from.
    pub from: String,
    /// The link followed: an edge name (`author`, `authored`) or `tag K=V`.
    pub link: String,
}

/// A neighbour of a note, with the strength of the link (0..=1).
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbour {
    pub rid: NoteRid,
    pub link: String,
    pub weight: f64,
}

/// The links deep recall may follow.
pub trait Graph {
    fn id_of(&self, rid: NoteRid) -> Result<String>;
    fn neighbours(&self, rid: NoteRid) -> Result<Vec<Neighbour>>;
}

#[derive(Debug, Clone, PartialEq)]
pub struct DeepHit {
    pub rid: NoteRid,
    pub score: f64,
    pub via: Via,
}

/// Expands `seeds` (rid, score) by up to `hops` hops; notes in `exclude`
/// (the direct hits) are never returned. Best first.
pub fn expand(
    seeds: &[(NoteRid, f64)],
    graph: &dyn Graph,
    hops: u8,
    exclude: &HashSet<NoteRid>,
) -> Result<Vec<DeepHit>> {
    let mut found: HashMap<NoteRid, DeepHit> = HashMap::new();
    let mut frontier: Vec<(NoteRid, f64)> = seeds.to_vec();
    for hop in 1..=hops {
        let mut next = Vec::new();
        for &(rid, score) in &frontier {
            let from = graph.id_of(rid)?;
            for n in graph.neighbours(rid)? {
                if exclude.contains(&n.rid) || n.rid == rid {
                    continue;
                }
                let candidate = score * HOP_DECAY * n.weight;
                let better = found.get(&n.rid).is_none_or(|h| candidate > h.score);
                if better {
                    found.insert(
                        n.rid,
                        DeepHit {
                            rid: n.rid,
                            score: candidate,
                            via: Via {
                                hop,
                                from: from.clone(),
                                link: n.link.clone(),
                            },
                        },
                    );
                    next.push((n.rid, candidate));
                }
            }
        }
        next.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut seen = HashSet::new();
        next.retain(|(rid, _)| seen.insert(*rid));
        next.truncate(super::weights::DEEP_FRONTIER);
        frontier = next;
    }
    let mut hits: Vec<DeepHit> = found.into_values().collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.rid.cmp(&b.rid)));
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Chain;

    impl Graph for Chain {
        fn id_of(&self, rid: NoteRid) -> Result<String> {
            Ok(format!("n{}", rid.0))
        }
        fn neighbours(&self, rid: NoteRid) -> Result<Vec<Neighbour>> {
            Ok(match rid.0 {
                1 => vec![Neighbour {
                    rid: NoteRid(2),
                    link: "author".into(),
                    weight: 1.0,
                }],
                2 => vec![
                    Neighbour {
                        rid: NoteRid(1),
                        link: "authored".into(),
                        weight: 1.0,
                    },
                    Neighbour {
                        rid: NoteRid(3),
                        link: "tag topic=x".into(),
                        weight: 0.5,
                    },
                ],
                _ => vec![],
            })
        }
    }

    #[test]
    fn walks_two_hops_halving_the_score_per_hop() {
        let hits = expand(
            &[(NoteRid(1), 1.0)],
            &Chain,
            2,
            &HashSet::from([NoteRid(1)]),
        )
        .unwrap();
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].rid, NoteRid(2));
        assert_eq!(
            hits[0].via,
            Via {
                hop: 1,
                from: "n1".into(),
                link: "author".into()
            }
        );
        assert!((hits[0].score - 0.5).abs() < 1e-12);
        assert_eq!(hits[1].rid, NoteRid(3));
        assert_eq!(hits[1].via.hop, 2);
        assert!((hits[1].score - 0.125).abs() < 1e-12);
    }

    #[test]
    fn one_hop_stops_early_and_direct_hits_are_excluded() {
        let hits = expand(
            &[(NoteRid(1), 1.0)],
            &Chain,
            1,
            &HashSet::from([NoteRid(1), NoteRid(2)]),
        )
        .unwrap();
        assert!(hits.is_empty());
    }
}
