//! `keep find`: ranked recall.

use serde_json::Value;

use super::filter::FilterArgs;
use super::output::{Format, note_json};
use super::{CliError, CliResult, Ctx, Status};
use crate::keeper::FindQuery;

/// Find notes matching a query, best first.
///
/// Ranks notes by BM25 over their summaries, tags and full text. Filters
/// apply before ranking. Each line shows the id, the last update, the score
/// and the first line of the summary.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to look for
    #[arg(required = true, value_name = "QUERY", num_args = 1..)]
    pub query: Vec<String>,

    #[command(flatten)]
    pub filter: FilterArgs,

    /// Only ids matching this prefix or glob
    #[arg(short = 'S', long = "scope", value_name = "PREFIX|GLOB")]
    pub scope: Option<String>,

    /// Show at most N notes
    #[arg(short = 'n', long, value_name = "N", default_value_t = 10)]
    pub limit: usize,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let text = args.query.join(" ");
    if text.trim().is_empty() {
        return Err(CliError::Usage("the query is empty".into()));
    }
    let keeper = ctx.keeper()?;
    let query = FindQuery {
        text,
        filter: args.filter.to_filter(args.scope.clone(), keeper.now())?,
        limit: args.limit,
    };
    let hits = keeper.find(&query)?;
    match ctx.format {
        Format::Json => {
            let items = hits
                .iter()
                .map(|h| {
                    let mut v = note_json(&h.note);
                    v["score"] = serde_json::json!(h.score);
                    v
                })
                .collect();
            ctx.out.json(&Value::Array(items))?
        }
        Format::Ids => {
            for h in &hits {
                ctx.out.line(&h.note.id)?;
            }
        }
        Format::Text => {
            for h in &hits {
                ctx.out.note_line(&h.note, Some(h.score))?;
            }
        }
    }
    Ok(Status::Success)
}
