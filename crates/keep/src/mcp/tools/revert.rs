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
    /// When the note has no earlier version: delete it (true) instead of refusing (the default).
    #[serde(default)]
    pub delete: bool,
}

pub struct Revert;

impl ToolDef for Revert {
    const NAME: &'static str = "revert";
    const TITLE: &'static str = "Revert a note";
    const DESCRIPTION: &'static str = "Use it when the last change to a note was a mistake: its previous version becomes current. A note without history is refused unless delete is true, which deletes it.";
    const HINTS: Hints = Hints::DESTRUCTIVE;
    const EXAMPLE: &'static str = r#"{"id": "ops/backup"}"#;
    const RARE: bool = true;
    type Args = Args;
    type Output = RevertOutcome;

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<RevertOutcome, CallError> {
        let id = plain_id(keeper, &args.id, "reverted")?;
        match keeper.revert(&id, args.delete) {
            Err(e @ keep_core::Error::NoEarlierVersion { .. }) => Err(CallError::Failed(format!(
                "{e}; call revert with \"delete\": true to delete the note instead"
            ))),
            other => Ok(other?),
        }
    }
}
