//! `stats`: what the store holds, and who wrote it.

use keep_commands::Command;
use keep_core::Keeper;
use keep_core::keeper::Census;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{CallError, Context, Hints, ToolDef};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    #[serde(flatten)]
    pub census: Census,
    /// The model that made the vectors, if any were made.
    pub model: Option<String>,
}

pub struct Stats;

impl ToolDef for Stats {
    const NAME: &'static str = "stats";
    const TITLE: &'static str = "What memory holds";
    const DESCRIPTION: &'static str = "Use it to see what memory holds: counts of notes (and in the trash, system notes, stubs), versions, parts, vectors and those waiting, the commonest tag keys, each agent's writes and the store's size.";
    const HINTS: Hints = Hints::READ_ONLY;
    const EXAMPLE: &'static str = r#"{}"#;
    const RARE: bool = true;
    type Args = Args;
    type Output = Output;

    fn call(keeper: &mut Keeper, _ctx: &Context, _args: Args) -> Result<Output, CallError> {
        let counted = keep_commands::stats::Stats { waiting: None }.run(keeper)?;
        Ok(Output {
            census: counted.census,
            model: counted.model,
        })
    }
}
