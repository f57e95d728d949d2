//! `conflicts`: live notes that give two values for one subject.

use keep_commands::{Command, Filters};
use keep_core::Keeper;
use keep_core::keeper::Conflict;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{CallError, Context, Hints, ToolDef, limit};

const DEFAULT: usize = 20;
const MAX: usize = 100;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Only notes with these tags ("key" or "key=value"; all must match).
    #[serde(default)]
    pub tags: Vec<String>,
    /// How many pairs (default 20, at most 100).
    pub limit: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// Newest first; call supersede with the newer id and the older in "olds" to resolve one.
    pub conflicts: Vec<Conflict>,
}

pub struct Conflicts;

impl ToolDef for Conflicts {
    const NAME: &'static str = "conflicts";
    const TITLE: &'static str = "Conflicting notes";
    const DESCRIPTION: &'static str = "Use it when recalled notes disagree, or to tidy memory: pairs of live notes that look like two values for one subject (two passwords, two dates), with what tells them apart: pairs remember linked as a possible update, then close pairs among the newest notes. Resolve one with supersede (the newer replaces the older).";
    const HINTS: Hints = Hints::READ_ONLY;
    const EXAMPLE: &'static str = r#"{"limit": 10}"#;
    type Args = Args;
    type Output = Output;

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<Output, CallError> {
        let conflicts = keep_commands::conflicts::Conflicts {
            filters: Filters {
                tag: args.tags,
                ..Filters::default()
            },
            limit: limit(args.limit, DEFAULT, MAX)?,
        }
        .run(keeper)?;
        Ok(Output { conflicts })
    }
}
