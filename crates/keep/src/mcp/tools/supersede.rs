//! `supersede`: accept a note as the successor of older notes.

use keep_commands::Command;
use keep_core::Keeper;
use keep_core::keeper::WriteOutcome;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallError, Context, Hints, ToolDef, plain_id};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The newer note's id (for example one `remember` returned with "possible_update_of").
    pub id: String,
    /// Ids of the notes it replaces. Leave out to accept the notes it was linked to as a possible update.
    #[serde(default)]
    pub olds: Vec<String>,
}

pub struct Supersede;

impl ToolDef for Supersede {
    const NAME: &'static str = "supersede";
    const TITLE: &'static str = "Accept an update";
    const DESCRIPTION: &'static str = "Accept a note as the successor of older notes: recall hides the older ones from then on. When remember answers \"possible_update\" (the new fact is about what an older note says, with another detail), call this with the new id to accept it; name olds to supersede other notes.";
    const HINTS: Hints = Hints::IDEMPOTENT_WRITE;
    const EXAMPLE: &'static str = r#"{"id": "ops/backup-v2", "olds": ["ops/backup"]}"#;
    type Args = Args;
    type Output = WriteOutcome;

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<WriteOutcome, CallError> {
        plain_id(keeper, &args.id, "superseding")?;
        Ok(keep_commands::supersede::Supersede {
            id: args.id,
            olds: args.olds,
        }
        .run(keeper)?)
    }
}
