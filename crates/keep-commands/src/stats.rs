//! `stats`: what the store holds, and who wrote it.

use keep_core::keeper::Census;
use keep_core::{Keeper, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Command, wire};

/// Counts of notes, versions, parts and vectors, the size, the tag keys
/// and the writers; the whole store's, so an unscoped caller's only.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stats {
    /// Also name up to this many notes waiting for their vectors.
    #[serde(default, deserialize_with = "wire::maybe_number")]
    pub waiting: Option<usize>,
}

/// The census, with the model that made the vectors.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Counted {
    #[serde(flatten)]
    pub census: Census,
    /// The vector space of the store's vectors (the model that made them
    /// and its fingerprint), if any.
    pub model: Option<String>,
    /// The embedding model set for this store now, by name.
    pub model_in_use: Option<String>,
    /// Notes waiting for their vectors, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<Vec<String>>,
}

impl Command for Stats {
    type Output = Counted;

    fn run(self, keeper: &mut Keeper) -> Result<Counted> {
        let census = keeper.census()?;
        let model = keeper.vector_model()?;
        let model_in_use = keeper.model_in_use();
        let waiting = match self.waiting {
            Some(limit) => Some(keeper.waiting_for_vectors(limit)?),
            None => None,
        };
        Ok(Counted {
            census,
            model,
            model_in_use,
            waiting,
        })
    }
}
