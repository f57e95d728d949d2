//! Deleting: `Trash` (a whole note, which `restore` brings back) and
//! `Delete` (the trash, a purge for good, or one archived version).

use keep_core::keeper::{DeleteHow, Deleted};
use keep_core::{Keeper, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Command, plain_id, wire};

/// Put a note in the trash, with its history; `restore` brings it back.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Trash {
    /// The note's id.
    pub id: String,
    /// Why, kept with the note in the trash.
    #[serde(default)]
    pub reason: Option<String>,
}

impl Command for Trash {
    type Output = Deleted;

    fn run(self, keeper: &mut Keeper) -> Result<Deleted> {
        plain_id(
            keeper,
            &self.id,
            "the trash takes a whole note; give the plain id",
        )?;
        Delete {
            id: self.id,
            purge: false,
            reason: self.reason,
        }
        .run(keeper)
    }
}

/// Put a note in the trash, delete it for good (`purge`), or delete one
/// archived version (`ID@V{N}`) for good.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Delete {
    /// The note's id, or `ID@V{N}` for one archived version.
    pub id: String,
    /// Delete for good now instead of putting in the trash.
    #[serde(default, deserialize_with = "wire::flag")]
    pub purge: bool,
    /// Why, kept with the note in the trash.
    #[serde(default)]
    pub reason: Option<String>,
}

impl Command for Delete {
    type Output = Deleted;

    fn run(self, keeper: &mut Keeper) -> Result<Deleted> {
        let target = keeper.resolve(&self.id)?;
        let how = DeleteHow {
            purge: self.purge,
            reason: self.reason.filter(|r| !r.trim().is_empty()),
        };
        keeper.delete(&target, &how)
    }
}
