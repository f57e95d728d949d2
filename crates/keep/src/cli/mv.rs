//! `keep move`: move version history into a named note.

use clap_complete::ArgValueCompleter;

use super::complete;
use keep_core::Keeper;
use keep_core::keeper::parse_filters;

use super::output::Format;
use super::{CliResult, Ctx, Status};

/// Move the version history of 'now' (or of another note) into a named note.
///
/// Every state of the source (its archived versions and its current text)
/// is appended, oldest first, to the history of NAME, which is created if
/// needed; the newest moved state becomes NAME's current text and NAME's
/// previous text is archived. With -t only the states carrying those tags
/// move; with --only only the current state moves. The source keeps what
/// did not move (its newest remaining version becomes current) and is
/// deleted when nothing is left.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// The note to move the history into
    #[arg(value_name = "NAME")]
    pub name: String,

    /// Move from this note instead of 'now'
    #[arg(long, value_name = "ID", conflicts_with_all = ["now_name", "scope"], add = ArgValueCompleter::new(complete::note_id))]
    pub source: Option<String>,

    /// Move from 'now:NAME' instead of 'now'
    #[arg(long, value_name = "NAME")]
    #[serde(default)]
    pub now_name: Option<String>,

    /// Old name of --now-name, kept for one release
    #[arg(
        long = "scope",
        value_name = "NAME",
        hide = true,
        conflicts_with = "now_name"
    )]
    #[serde(default)]
    pub scope: Option<String>,

    /// Only move states with this tag: KEY or KEY=VALUE (repeatable)
    #[arg(short = 't', long = "tag", value_name = "KEY[=VALUE]", add = ArgValueCompleter::new(complete::tag))]
    pub tags: Vec<String>,

    /// Only move the current state
    #[arg(long)]
    pub only: bool,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let source = match &args.source {
        Some(s) => s.clone(),
        None => {
            let name = super::renamed(ctx, "move --scope", "--now-name", &args.scope)
                .or_else(|| args.now_name.clone());
            Keeper::now_id(name.as_deref())?
        }
    };
    let filters = parse_filters(&args.tags)?;
    let outcome = ctx
        .keeper()?
        .move_history(&source, &args.name, &filters, args.only)?;
    match ctx.format {
        Format::Json => ctx.out.json(&outcome)?,
        Format::Ids => ctx.out.line(&outcome.target)?,
        Format::Text => ctx.out.line(&format!(
            "moved {} version(s) of {} into {}{}",
            outcome.moved,
            outcome.source,
            outcome.target,
            if outcome.source_deleted {
                format!(
                    "; nothing was left of {}, so it was removed",
                    outcome.source
                )
            } else {
                String::new()
            }
        ))?,
    }
    Ok(Status::Success)
}
