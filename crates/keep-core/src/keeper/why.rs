//! Why a note is, or is not, among the hits of a search: shown at its
//! rank, ranked below the cut, left out by a filter, never a candidate
//! (sharing no word with the query, or too far in meaning), or not indexed
//! yet. Every step is a search the caller could run, held to its rights.

use keep_model::{Expired, ListOrder, NoteFilter};
use serde::Serialize;

use super::Keeper;
use crate::error::{Error, Result};
use crate::recall::weights::MIN_SIMILARITY;
use crate::recall::{Explanation, FindQuery, Query, RecallMode, question};
use keep_store::prelude::*;

/// How many hits the wide searches look through.
const WIDE: usize = 1000;

/// Where a note stands for one search.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum Why {
    /// Among the hits shown, at `rank` (from 1).
    Shown {
        rank: usize,
        score: f64,
        /// What made its score.
        explain: Option<Explanation>,
    },
    /// Found, but ranked below the `limit` hits shown.
    BelowCut {
        rank: usize,
        limit: usize,
        score: f64,
        /// The score of the last hit shown.
        last_shown: f64,
    },
    /// A hit without the search's filters; these leave it out.
    Filtered {
        /// Each filter that leaves it out, in words.
        by: Vec<String>,
    },
    /// Found by neither list of candidates.
    NotCandidate {
        /// Whether a word of the query is in its text.
        shares_words: bool,
        /// How close in meaning it is to the query, when it has a vector.
        similarity: Option<f64>,
        /// How close the farthest note that was a candidate by meaning is.
        farthest_candidate: Option<f64>,
        /// The similarity below which meaning counts as no evidence.
        floor: f64,
    },
    /// It has no vector yet, so only its words can find it, and none
    /// matched.
    NotIndexed,
}

impl Keeper {
    /// Where note `id` stands for `query`: the first stage that keeps it
    /// from the hits, or its rank among them.
    pub fn why(&mut self, id: &str, query: &FindQuery) -> Result<Why> {
        if self.peek(id)?.is_none() {
            return Err(Error::NotFound(id.to_string()));
        }
        let wide = FindQuery {
            limit: WIDE,
            deep: false,
            explain: true,
            ..query.clone()
        };
        let found = self.find(&wide)?.hits;
        if let Some(at) = found.iter().position(|h| h.note.id == id) {
            let hit = &found[at];
            return Ok(if at < query.limit {
                Why::Shown {
                    rank: at + 1,
                    score: hit.score,
                    explain: hit.explain.clone(),
                }
            } else {
                Why::BelowCut {
                    rank: at + 1,
                    limit: query.limit,
                    score: hit.score,
                    last_shown: found.get(query.limit - 1).map_or(0.0, |h| h.score),
                }
            });
        }
        let unfiltered = FindQuery {
            filter: everything(),
            include_superseded: true,
            ..wide.clone()
        };
        if self.find(&unfiltered)?.hits.iter().any(|h| h.note.id == id) {
            return Ok(Why::Filtered {
                by: self.filters_leaving_out(id, query)?,
            });
        }
        self.not_found(id, &unfiltered)
    }

    /// Why a note no list of candidates holds was not found.
    fn not_found(&mut self, id: &str, unfiltered: &FindQuery) -> Result<Why> {
        let alone = |mode| FindQuery {
            filter: NoteFilter {
                pattern: Some(id.to_string()),
                ..everything()
            },
            mode,
            ..unfiltered.clone()
        };
        let shares_words = self
            .find(&alone(RecallMode::Keyword))?
            .hits
            .iter()
            .any(|h| h.note.id == id);
        let by_meaning = match (&unfiltered.query, unfiltered.mode) {
            (_, RecallMode::Keyword) | (Query::Like(_), _) => None,
            (Query::Text(text), _) => self.similarity_of(id, text)?,
        };
        if matches!(by_meaning, Some(None)) && !shares_words {
            return Ok(Why::NotIndexed);
        }
        let similarity = by_meaning.flatten();
        let farthest_candidate = match by_meaning {
            None => None,
            Some(_) => self
                .find(&FindQuery {
                    mode: RecallMode::Semantic,
                    ..unfiltered.clone()
                })
                .map(|r| r.hits.iter().filter_map(|h| h.similarity).reduce(f64::min))
                .unwrap_or(None),
        };
        Ok(Why::NotCandidate {
            shares_words,
            similarity,
            farthest_candidate,
            floor: MIN_SIMILARITY,
        })
    }

    /// How close in meaning note `id` is to `text`: None when nothing is
    /// compared by meaning (no model), Some(None) when the note has no
    /// vector.
    fn similarity_of(&mut self, id: &str, text: &str) -> Result<Option<Option<f64>>> {
        let Ok(query) = self.query_vector(Some(question::topic(text.trim())), None)? else {
            return Ok(None);
        };
        let db = self.store.db();
        let Some(rid) = db.note_rid(id)? else {
            return Ok(Some(None));
        };
        let distances = db.note_distances(&query, &[rid])?;
        Ok(Some(distances.first().map(|(_, distance)| 1.0 - distance)))
    }

    /// Each part of `query`'s filter that leaves note `id` out, in words.
    fn filters_leaving_out(&self, id: &str, query: &FindQuery) -> Result<Vec<String>> {
        let asked = &query.filter;
        let mut parts: Vec<(String, NoteFilter)> = Vec::new();
        let only = |f: NoteFilter| NoteFilter {
            include_system: true,
            expired: Expired::Included,
            ..f
        };
        for tag in &asked.tags {
            parts.push((
                format!("the tag filter {tag}"),
                only(NoteFilter {
                    tags: vec![tag.clone()],
                    ..NoteFilter::default()
                }),
            ));
        }
        if asked.since.is_some() || asked.until.is_some() {
            parts.push((
                "the update time (since, until)".into(),
                only(NoteFilter {
                    since: asked.since,
                    until: asked.until,
                    ..NoteFilter::default()
                }),
            ));
        }
        if asked.happened.is_some() {
            parts.push((
                "the event time (when)".into(),
                only(NoteFilter {
                    happened: asked.happened,
                    ..NoteFilter::default()
                }),
            ));
        }
        if asked.held_at.is_some() {
            parts.push((
                "what held then (as of)".into(),
                only(NoteFilter {
                    held_at: asked.held_at,
                    as_of: asked.as_of,
                    ..NoteFilter::default()
                }),
            ));
        }
        if !query.include_superseded {
            parts.push((
                "being superseded by a newer note".into(),
                only(NoteFilter {
                    hide_superseded: true,
                    ..NoteFilter::default()
                }),
            ));
        }
        if asked.expired != Expired::Included {
            parts.push((
                "its expiry".into(),
                NoteFilter {
                    include_system: true,
                    expired: asked.expired,
                    ..NoteFilter::default()
                },
            ));
        }
        if !asked.include_system {
            parts.push((
                "being a system note or in the trash".into(),
                NoteFilter {
                    expired: Expired::Included,
                    ..NoteFilter::default()
                },
            ));
        }
        let mut by = Vec::new();
        if let Some(pattern) = &asked.pattern {
            let listed = self.list(
                &only(NoteFilter {
                    pattern: Some(pattern.clone()),
                    ..NoteFilter::default()
                }),
                ListOrder::Id,
                None,
            )?;
            if !listed.iter().any(|n| n.id == id) {
                by.push(format!("the id pattern {pattern}"));
            }
        }
        for (said, filter) in parts {
            let narrowed = NoteFilter {
                pattern: Some(id.to_string()),
                ..filter
            };
            let listed = self.list(&narrowed, ListOrder::Id, None)?;
            if !listed.iter().any(|n| n.id == id) {
                by.push(said);
            }
        }
        if by.is_empty() {
            by.push("the filters together".into());
        }
        Ok(by)
    }
}

/// A filter that leaves nothing out but what the caller may not see.
fn everything() -> NoteFilter {
    NoteFilter {
        include_system: true,
        expired: Expired::Included,
        ..NoteFilter::default()
    }
}
