//! `keep log`: the operations log, newest first.

use clap_complete::ArgValueCompleter;
use keep_commands::log::Log;
use keep_core::keeper::Operation;

use super::complete;
use super::output::Format;
use super::{CliResult, Ctx, Status};

/// Show who changed what: every write, newest first.
///
/// Each write to the store is logged, appended and never changed: when, by
/// whom (cli for the command line, browser, watch, api for the JSON API,
/// an MCP client's name/version, keep for its own background work), what
/// (create, update, tag, trash, restore, revert, purge, delete-version,
/// move, import), which note, and how many versions it had after. Give an
/// id for one note's log. A purged note's log stays.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Only the log of this note
    #[arg(value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub id: Option<String>,

    /// Only writes by this agent (cli, browser, watch, api, keep, or an MCP client's name/version)
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,

    /// Only writes since: an ISO 8601 duration back from now (P7D), a date or a timestamp
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Show at most N entries
    #[arg(short = 'n', long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let entries = ctx.run(Log {
        id: args.id,
        agent: args.agent,
        since: args.since,
        limit: args.limit,
    })?;
    match ctx.format {
        Format::Json => ctx.out.json(&entries)?,
        Format::Ids => {
            for e in &entries {
                ctx.out.line(&e.note)?;
            }
        }
        Format::Text => {
            for e in &entries {
                ctx.out.line(&line(e))?;
            }
        }
    }
    Ok(Status::Success)
}

/// `TIME  AGENT  OP  NOTE  vN  (detail)`.
fn line(e: &Operation) -> String {
    let detail = if e.detail.is_empty() {
        String::new()
    } else {
        format!("  ({})", e.detail)
    };
    format!(
        "{}  {}  {}  {}  v{}{detail}",
        e.at.short(),
        e.agent,
        e.op,
        e.note,
        e.version
    )
}
