//! `forget`: delete a note, or one archived version of it.

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
}

pub struct Forget;

impl ToolDef for Forget {
    const NAME: &'static str = "forget";
    const TITLE: &'static str = "Forget a note";
    const DESCRIPTION: &'static str = "Delete a note with its whole history, or only one older version with \"ID@V{N}\". This cannot be undone.";
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
    };
    type Args = Args;
    type Output = Deleted;

    fn call(keeper: &mut Keeper, ctx: &Context, args: Args) -> Result<Deleted, CallError> {
        let target = keeper.resolve(&args.id)?;
        ctx.check(keeper, &target.id)?;
        Ok(keeper.delete(&target)?)
    }
}
