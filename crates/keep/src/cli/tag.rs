//! `keep tag`: add and remove tags.

use clap_complete::ArgValueCompleter;

use super::complete;
use keep_commands::tag::Tag;
use keep_core::keeper::WriteOutcome;

use super::output::Format;
use super::{CliError, CliResult, Ctx};
use crate::render::text::status_word;

/// Add or remove tags on notes.
///
/// -t adds a value to a key (a key can hold several values), --remove drops
/// a key with all its values, --remove-value drops one value. Removals apply
/// before additions. A note whose tags change gets a new version; its
/// previous state is kept in its history. Keys starting with '_' belong to
/// keep and cannot be changed. Prints each id with 'updated' or
/// 'unchanged'. Exits 1 if any id is unknown.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Note ids
    #[arg(required = true, value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub ids: Vec<String>,

    /// Add a tag (repeatable)
    #[arg(short = 't', long = "tag", value_name = "KEY=VALUE", add = ArgValueCompleter::new(complete::tag))]
    pub tags: Vec<String>,

    /// Remove a key with all its values (repeatable)
    #[arg(long = "remove", value_name = "KEY")]
    pub remove: Vec<String>,

    /// Remove one value of a key (repeatable)
    #[arg(long = "remove-value", value_name = "KEY=VALUE")]
    pub remove_value: Vec<String>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    if args.tags.is_empty() && args.remove.is_empty() && args.remove_value.is_empty() {
        return Err(CliError::Usage(
            "nothing to do: give -t KEY=VALUE, --remove KEY or --remove-value KEY=VALUE".into(),
        ));
    }
    let tag = |id: &str| Tag {
        id: id.into(),
        add: args.tags.clone().into(),
        remove: args.remove.clone(),
        remove_value: args.remove_value.clone(),
    };
    tag("").check()?;
    super::for_each_id(ctx, &args.ids, |ctx, id| ctx.run(tag(id)), print_line)
}

fn print_line(ctx: &mut Ctx, outcome: &WriteOutcome) -> Result<(), CliError> {
    match ctx.format {
        Format::Json => {}
        Format::Ids => ctx.out.line(&outcome.id)?,
        Format::Text => {
            ctx.out
                .line(&format!("{}  {}", outcome.id, status_word(outcome.status)))?
        }
    }
    super::put::tell_redacted(&mut ctx.out, &outcome.id, &outcome.redacted);
    Ok(())
}
