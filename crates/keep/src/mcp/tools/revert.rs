//! `revert`: the previous version of a note becomes current.

use keep_core::Keeper;
use keep_core::keeper::RevertOutcome;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallError, Context, Hints, ToolDef, plain_id};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The note's id.
    pub id: String,
}

pub struct Revert;

impl ToolDef for Revert {
    const NAME: &'static str = "revert";
    const TITLE: &'static str = "Revert a note";
    const DESCRIPTION: &'static str = "Undo the last change to a note: its previous version becomes current. A note without history is deleted.";
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
    };
    type Args = Args;
    type Output = RevertOutcome;

    fn call(keeper: &mut Keeper, _: &Context, args: Args) -> Result<RevertOutcome, CallError> {
        let id = plain_id(keeper, &args.id, "reverted")?;
        Ok(keeper.revert(&id)?)
    }
}
