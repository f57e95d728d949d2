//! `log`: the operations log, newest first.

use keep_core::keeper::{Operation, OperationFilter};
use keep_core::model::time::parse_bound;
use keep_core::{Error, Keeper, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Command, wire};

/// What each writer did, newest first: puts, tags, deletions and the rest,
/// each with the note, its version and who did it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Log {
    /// Only this note's entries.
    #[serde(default)]
    pub id: Option<String>,
    /// Only this writer's entries (`cli`, `mcp:NAME`, `api:NAME`, ...).
    #[serde(default)]
    pub agent: Option<String>,
    /// Only entries since: a duration back from now, a date or a timestamp.
    #[serde(default)]
    pub since: Option<String>,
    /// At most this many entries.
    #[serde(default = "twenty", deserialize_with = "wire::number")]
    #[schemars(range(min = 1, max = 10000))]
    pub limit: usize,
}

/// The most entries one call gives.
pub const MOST_ENTRIES: usize = 10_000;

fn twenty() -> usize {
    20
}

impl Command for Log {
    type Output = Vec<Operation>;

    fn run(self, keeper: &mut Keeper) -> Result<Vec<Operation>> {
        if !(1..=MOST_ENTRIES).contains(&self.limit) {
            return Err(Error::Invalid(format!(
                "the limit is a number from 1 to {MOST_ENTRIES}"
            )));
        }
        let since = match &self.since {
            Some(text) => Some(parse_bound(text, keeper.now())?),
            None => None,
        };
        let note = match &self.id {
            Some(id) => Some(keeper.resolve(id)?.id),
            None => None,
        };
        keeper.operations(&OperationFilter {
            note,
            agent: self.agent,
            since,
            limit: Some(self.limit),
        })
    }
}
