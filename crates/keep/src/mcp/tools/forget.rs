//! `forget`: put a note in the trash (or delete it for good), or delete
//! one archived version of it.

use keep_commands::Command;
use keep_commands::trash::Delete;
use keep_core::Keeper;
use keep_core::keeper::Deleted;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallError, Context, Hints, ToolDef};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The note's id, or "ID@V{N}" to delete only that older version.
    pub id: String,
    /// Why it is forgotten, kept with the note in the trash.
    pub reason: Option<String>,
    /// Delete for good at once instead of putting in the trash.
    #[serde(default)]
    pub purge: bool,
}

pub struct Forget;

impl ToolDef for Forget {
    const NAME: &'static str = "forget";
    const TITLE: &'static str = "Forget a note";
    const DESCRIPTION: &'static str = "Use it when a note is wrong or no longer wanted: put it in the trash with its whole history (give a reason; restore brings it back), or delete it for good with purge (no text of it is left in the store's files), or only one older version with \"ID@V{N}\" (for good).";
    const HINTS: Hints = Hints::DESTRUCTIVE;
    const EXAMPLE: &'static str =
        r#"{"id": "ops/backup", "reason": "replaced by the new runbook"}"#;
    type Args = Args;
    type Output = Deleted;

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<Deleted, CallError> {
        Ok(Delete {
            id: args.id,
            purge: args.purge,
            reason: args.reason,
        }
        .run(keeper)?)
    }
}
