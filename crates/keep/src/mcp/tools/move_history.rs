//! `move`: move version history into a named note.

use keep_core::Keeper;
use keep_core::keeper::{MoveOutcome, parse_filters};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallError, Context, Hints, ToolDef, plain_id};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The note to move the history into; created if needed.
    pub target: String,
    /// The note to move from (default: the 'now' note).
    pub source: Option<String>,
    /// Move from the 'now' note of this now-name instead (a project or agent name, as given to now).
    pub now_name: Option<String>,
    /// Only move the states carrying these tags ("key" or "key=value"; all must match).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Only move the current state.
    #[serde(default)]
    pub only_current: bool,
}

pub struct Move;

impl ToolDef for Move {
    const NAME: &'static str = "move";
    const TITLE: &'static str = "Move history into a note";
    const DESCRIPTION: &'static str = "Append the states of a note (by default the 'now' note: its archived versions and its current text, or only those carrying the given tags, or only the current one) to the history of a named note, whose current text becomes the newest moved state. The source keeps what did not move and is removed when nothing is left. Use it to file away finished work.";
    const HINTS: Hints = Hints::WRITE;
    const EXAMPLE: &'static str = r#"{"target": "ops/journal", "now_name": "ops"}"#;
    const RARE: bool = true;
    type Args = Args;
    type Output = MoveOutcome;

    fn call(keeper: &mut Keeper, ctx: &Context, args: Args) -> Result<MoveOutcome, CallError> {
        if args.source.is_some() && args.now_name.is_some() {
            return Err(CallError::Failed(
                "give source or now_name, not both".into(),
            ));
        }
        let source = match &args.source {
            Some(s) => plain_id(keeper, s, "moved")?,
            None => Keeper::now_id(ctx.now_scope(args.now_name.as_deref()).as_deref())?,
        };
        let target = plain_id(keeper, &args.target, "moved into")?;
        let filters = parse_filters(&args.tags)?;
        Ok(keeper.move_history(&source, &target, &filters, args.only_current)?)
    }
}
