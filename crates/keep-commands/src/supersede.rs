//! `supersede`: accept a note as the successor of older ones.

use keep_core::keeper::WriteOutcome;
use keep_core::{Keeper, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Command, plain_id, wire};

/// Accept a note as the successor of the notes it replaces (by default
/// those it may supersede); recall then hides them.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Supersede {
    /// The newer note.
    pub id: String,
    /// The notes it replaces; empty for those it may supersede.
    #[serde(default, deserialize_with = "wire::many")]
    pub olds: Vec<String>,
}

impl Command for Supersede {
    type Output = WriteOutcome;

    fn run(self, keeper: &mut Keeper) -> Result<WriteOutcome> {
        let id = plain_id(
            keeper,
            &self.id,
            "a note supersedes, not one of its versions or parts",
        )?;
        keeper.supersede(&id, &self.olds)
    }
}
