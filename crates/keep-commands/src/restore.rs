//! `restore`: take a note out of the trash.

use keep_core::keeper::WriteOutcome;
use keep_core::{Keeper, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Command, plain_id};

/// Take a note out of the trash, as it was; the return is a new version.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Restore {
    /// The id of a note in the trash.
    pub id: String,
}

impl Command for Restore {
    type Output = WriteOutcome;

    fn run(self, keeper: &mut Keeper) -> Result<WriteOutcome> {
        let id = plain_id(
            keeper,
            &self.id,
            "a whole note is restored; give the plain id",
        )?;
        keeper.restore(&id)
    }
}
