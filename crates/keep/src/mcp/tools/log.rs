//! `log`: who changed what, newest first.

use keep_commands::Command;
use keep_core::Keeper;
use keep_core::keeper::Operation;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{CallError, Context, Hints, ToolDef, limit};

const DEFAULT: usize = 20;
const MAX: usize = 200;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Only the log of this note.
    pub id: Option<String>,
    /// Only writes by this agent: "cli", "browser", "watch", "api", "keep", or an MCP client's "name/version".
    pub agent: Option<String>,
    /// Only writes since: an ISO 8601 duration back from now ("P7D"), a date or a timestamp.
    pub since: Option<String>,
    /// How many entries (default 20, at most 200).
    pub limit: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// Newest first.
    pub entries: Vec<Operation>,
}

pub struct Log;

impl ToolDef for Log {
    const NAME: &'static str = "log";
    const TITLE: &'static str = "Who changed what";
    const DESCRIPTION: &'static str = "Use it to see who changed what: the operations log, newest first: when, which agent (an MCP client's name/version, cli, ...), what (create, update, tag, trash, restore, revert, purge, move, import), which note and its version count after. Filter by note, agent and time.";
    const HINTS: Hints = Hints::READ_ONLY;
    const EXAMPLE: &'static str = r#"{"id": "ops/backup", "limit": 10}"#;
    const RARE: bool = true;
    type Args = Args;
    type Output = Output;

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<Output, CallError> {
        let entries = keep_commands::log::Log {
            id: args.id,
            agent: args.agent,
            since: args.since,
            limit: limit(args.limit, DEFAULT, MAX)?,
        }
        .run(keeper)?;
        Ok(Output { entries })
    }
}
