//! The store seen as a graph for deep recall: edges both ways and
//! distinctive shared tags.

use keep_store::prelude::*;
use std::collections::HashSet;

use super::deep::{self, Graph, Neighbour};
use super::fusion::Fused;
use super::weights::{DEEP_SEEDS, DISTINCTIVE_TAG_MAX};
use super::{Hit, Via};
use crate::edges::EdgeKeys;
use crate::error::Result;
use keep_model::{Note, NoteFilter};
use keep_store::NoteReads;
use keep_store::{Db, NoteRid};

/// The edges and distinctive shared tags of the store.
pub(crate) struct StoreGraph<'a, 'c> {
    db: &'a Db<'c>,
    edge_keys: EdgeKeys,
}

impl<'a, 'c> StoreGraph<'a, 'c> {
    pub(crate) fn new(db: &'a Db<'c>) -> Result<Self> {
        Ok(StoreGraph {
            db,
            edge_keys: EdgeKeys::load(db)?,
        })
    }
}

impl Graph for StoreGraph<'_, '_> {
    fn id_of(&self, rid: NoteRid) -> Result<String> {
        Ok(self.db.note_by_rid(rid)?.map(|n| n.id).unwrap_or_default())
    }

    fn neighbours(&self, rid: NoteRid) -> Result<Vec<Neighbour>> {
        let Some(note) = self.db.note_by_rid(rid)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for edge in self.edge_keys.edges_of(&note) {
            if let Some(target) = self.db.note_rid(&edge.target)? {
                out.push(Neighbour {
                    rid: target,
                    link: edge.key,
                    weight: 1.0,
                });
            }
        }
        for edge in self.edge_keys.edges_into(self.db, &note.id)? {
            if let Some(source) = self.db.note_rid(&edge.source)? {
                out.push(Neighbour {
                    rid: source,
                    link: edge.inverse,
                    weight: 1.0,
                });
            }
        }
        for (key, value) in note.tags.user_tags().pairs() {
            if self.edge_keys.is_edge(key) {
                continue;
            }
            let count = self.db.tag_count(key, value)?;
            if !(2..=DISTINCTIVE_TAG_MAX).contains(&count) {
                continue;
            }
            let weight = 1.0 / (1.0 + (count as f64).ln());
            for other in self
                .db
                .rids_with_tag(key, value, DISTINCTIVE_TAG_MAX as usize)?
            {
                out.push(Neighbour {
                    rid: other,
                    link: format!("tag {key}={value}"),
                    weight,
                });
            }
        }
        Ok(out)
    }
}

/// Notes reached from the top direct hits within `hops` links, up to
/// `limit`, that pass `filter`.
pub(crate) fn deep_hits(
    db: &Db<'_>,
    direct: &[Fused],
    filter: &NoteFilter,
    hops: u8,
    limit: usize,
) -> Result<Vec<Hit>> {
    let graph = StoreGraph::new(db)?;
    let seeds: Vec<(NoteRid, f64)> = direct
        .iter()
        .take(DEEP_SEEDS)
        .map(|f| (f.rid, f.score))
        .collect();
    let exclude: HashSet<NoteRid> = direct.iter().map(|f| f.rid).collect();
    let reached = deep::expand(&seeds, &graph, hops, &exclude)?;
    let rids: Vec<NoteRid> = reached.iter().map(|h| h.rid).collect();
    let notes = db.notes_passing(&rids, filter)?;
    Ok(reached
        .into_iter()
        .filter_map(|h| {
            notes
                .get(&h.rid)
                .map(|note| reached_hit(note.clone(), h.score, h.via))
        })
        .take(limit)
        .collect())
}

/// Notes one hop from note `rid`, strongest link first.
pub(crate) fn neighbours_of(db: &Db<'_>, rid: NoteRid, limit: usize) -> Result<Vec<Hit>> {
    let graph = StoreGraph::new(db)?;
    let exclude = HashSet::from([rid]);
    let reached = deep::expand(&[(rid, 1.0)], &graph, 1, &exclude)?;
    let mut hits = Vec::new();
    for h in reached.into_iter().take(limit) {
        if let Some(note) = db.note_by_rid(h.rid)? {
            hits.push(reached_hit(note, h.score, h.via));
        }
    }
    Ok(hits)
}

/// A note reached along a link rather than matched: its passage is the
/// opening of its summary.
fn reached_hit(note: Note, score: f64, via: Via) -> Hit {
    Hit {
        passage: super::passage::passage(&note.summary, None),
        note,
        score,
        keyword_rank: None,
        vector_rank: None,
        similarity: None,
        matched: None,
        via: Some(via),
        relevance: None,
        weak: false,
        part: None,
        explain: None,
    }
}
