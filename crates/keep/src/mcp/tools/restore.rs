//! `restore`: take a note out of the trash.

use keep_commands::Command;
use keep_core::Keeper;
use keep_core::keeper::WriteOutcome;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallError, Context, Hints, ToolDef, plain_id};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The id of a note in the trash (put there by forget).
    pub id: String,
}

pub struct Restore;

impl ToolDef for Restore {
    const NAME: &'static str = "restore";
    const TITLE: &'static str = "Restore a forgotten note";
    const DESCRIPTION: &'static str = "Use it when a note was forgotten by mistake: brings a note forget put in the trash back, as it was, into recall and listings.";
    const HINTS: Hints = Hints::WRITE;
    const EXAMPLE: &'static str = r#"{"id": "ops/backup"}"#;
    const RARE: bool = true;
    type Args = Args;
    type Output = WriteOutcome;

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<WriteOutcome, CallError> {
        plain_id(keeper, &args.id, "restored")?;
        Ok(keep_commands::restore::Restore { id: args.id }.run(keeper)?)
    }
}
