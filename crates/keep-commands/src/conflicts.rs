//! `conflicts`: live notes that give two values for one subject.

use keep_core::keeper::Conflict;
use keep_core::{Keeper, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Command, Filters, wire};

/// Pairs of live notes that give two values for one subject, newer first;
/// `supersede` settles one.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Conflicts {
    #[serde(flatten)]
    pub filters: Filters,
    /// At most this many pairs.
    #[serde(default = "twenty", deserialize_with = "wire::number")]
    pub limit: usize,
}

fn twenty() -> usize {
    20
}

impl Command for Conflicts {
    type Output = Vec<Conflict>;

    fn run(self, keeper: &mut Keeper) -> Result<Vec<Conflict>> {
        let filter = self.filters.to_filter(keeper, None)?;
        keeper.conflicts(&filter, self.limit)
    }
}
