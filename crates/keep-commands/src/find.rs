//! `find`: hybrid recall, by a query or by likeness to a note.

use keep_core::recall::weights::DEEP_HOPS;
use keep_core::recall::{FindQuery, FindResult, Query, RecallMode};
use keep_core::{Error, Keeper, Notice, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::shapes::{self, HitJson};
use crate::{Command, Filters, answers_as, budget, wire};

/// Find notes by meaning and by keyword, best first.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Find {
    /// What to look for.
    #[serde(default)]
    pub q: String,
    /// Find notes similar to this note instead of matching a query.
    #[serde(default)]
    pub like: Option<String>,
    #[serde(flatten)]
    pub filters: Filters,
    /// Only ids matching this prefix or glob.
    #[serde(default)]
    pub id_pattern: Option<String>,
    /// At most this many notes (deep recall adds up to as many more, at least 10).
    #[serde(default = "ten", deserialize_with = "wire::number")]
    #[schemars(range(min = 1))]
    pub limit: usize,
    /// Also follow edges and shared tags from the top hits.
    #[serde(default, deserialize_with = "wire::flag")]
    pub deep: bool,
    /// How many links deep recall follows, 1 to 5 (2 unless given); implies `deep`.
    #[serde(default, deserialize_with = "wire::maybe_number")]
    #[schemars(range(min = 1, max = 5))]
    pub hops: Option<u8>,
    /// Which candidates to rank: both fused, keywords only or embeddings only.
    #[serde(default)]
    pub mode: RecallMode,
    /// Also find notes superseded by newer ones (ranked below them).
    #[serde(default, deserialize_with = "wire::flag")]
    pub all_versions: bool,
    /// Whole results, best first, until their JSON forms reach this many tokens.
    #[serde(default, deserialize_with = "wire::maybe_number")]
    pub max_tokens: Option<usize>,
    /// Recency half-life in days; 0 turns decay off.
    #[serde(default, deserialize_with = "wire::maybe_number")]
    pub half_life: Option<f64>,
    /// The parts (turns) before and after each part found.
    #[serde(default, deserialize_with = "wire::number")]
    pub around: usize,
    /// Find each part of a document on its own, as each turn of a conversation always is.
    #[serde(default, deserialize_with = "wire::flag")]
    pub parts: bool,
    /// Say what made each hit's score.
    #[serde(default, deserialize_with = "wire::flag")]
    pub explain: bool,
    /// The relevance floor, 0 to 1 (the default unless given): when every hit is below it, none is returned; 0 returns the nearest, however far.
    #[serde(default, deserialize_with = "wire::maybe_number")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub floor: Option<f64>,
}

fn ten() -> usize {
    10
}

impl Find {
    /// A search for `query` with everything else as by default.
    pub fn text(query: impl Into<String>) -> Find {
        Find {
            q: query.into(),
            like: None,
            filters: Filters::default(),
            id_pattern: None,
            limit: ten(),
            deep: false,
            hops: None,
            mode: RecallMode::Hybrid,
            all_versions: false,
            max_tokens: None,
            half_life: None,
            around: 0,
            parts: false,
            explain: false,
            floor: None,
        }
    }

    /// The core's query: the arguments checked and resolved.
    pub fn query(&self, keeper: &Keeper) -> Result<FindQuery> {
        if self.like.is_none() && self.q.trim().is_empty() {
            return Err(Error::Invalid("the query is empty".into()));
        }
        if self.like.is_some() && !self.q.trim().is_empty() {
            return Err(Error::Invalid(
                "give a query or a note to find notes like, not both".into(),
            ));
        }
        if self.half_life.is_some_and(|h| h < 0.0 || !h.is_finite()) {
            return Err(Error::Invalid(
                "the half-life must be 0 or more days".into(),
            ));
        }
        if self.floor.is_some_and(|f| !(0.0..=1.0).contains(&f)) {
            return Err(Error::Invalid(
                "the relevance floor is a number from 0 to 1".into(),
            ));
        }
        if self.limit == 0 {
            return Err(Error::Invalid("the limit is a number from 1 up".into()));
        }
        Ok(FindQuery {
            query: match &self.like {
                Some(id) => Query::Like(id.clone()),
                None => Query::Text(self.q.clone()),
            },
            filter: self.filters.to_filter(keeper, self.id_pattern.as_deref())?,
            limit: self.limit,
            deep: self.deep || self.hops.is_some(),
            hops: self.hops.unwrap_or(DEEP_HOPS),
            half_life_days: self.half_life,
            mode: self.mode,
            include_superseded: self.all_versions,
            parts: self.parts,
            around: self.around,
            explain: self.explain,
            floor: self.floor,
        })
    }
}

/// The hits of a search, best first, and what the caller should know.
#[derive(Debug)]
pub struct Found {
    pub result: FindResult,
}

answers_as!(Found => Vec<HitJson>, |found| shapes::hits(&found.result));

impl Command for Find {
    type Output = Found;

    fn run(self, keeper: &mut Keeper) -> Result<Found> {
        let query = self.query(keeper)?;
        let before = match query.mode {
            RecallMode::Keyword => None,
            _ => keeper.embed_before_search(),
        };
        let mut result = keeper.find(&query)?;
        result.notices.splice(0..0, before);
        if let Some(max_tokens) = self.max_tokens {
            fit(keeper, &mut result, max_tokens)?;
        }
        Ok(Found { result })
    }
}

/// Keeps the hits whose JSON forms fit in `max_tokens`, saying how many
/// were left out.
fn fit(keeper: &mut Keeper, result: &mut FindResult, max_tokens: usize) -> Result<()> {
    let counter = keeper.token_counter()?;
    let fitted = budget::fit(shapes::hits(result), max_tokens, &counter)?;
    result.hits.truncate(fitted.kept.len());
    if fitted.left_out > 0 {
        result.notices.push(Notice::new(budget::left_out_notice(
            fitted.left_out,
            max_tokens,
        )));
    }
    Ok(())
}
