//! `keep tag`: add and remove tags.

use clap_complete::ArgValueCompleter;

use super::complete;
use keep_core::keeper::{TagEdit, WriteOutcome};
use keep_core::model::{parse_user_tag, validate_tag_key};

use super::output::Format;
use super::put::parse_tags;
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
    let edit = parse_edit(&args)?;
    super::for_each_id(
        ctx,
        &args.ids,
        |ctx, id| tag_one(ctx, id, &edit),
        print_line,
    )
}

fn parse_edit(args: &Args) -> Result<TagEdit, CliError> {
    if args.tags.is_empty() && args.remove.is_empty() && args.remove_value.is_empty() {
        return Err(CliError::Usage(
            "nothing to do: give -t KEY=VALUE, --remove KEY or --remove-value KEY=VALUE".into(),
        ));
    }
    for key in &args.remove {
        validate_tag_key(key, key)?;
    }
    Ok(TagEdit {
        add: parse_tags(&args.tags)?,
        remove_keys: args.remove.clone(),
        remove_values: args
            .remove_value
            .iter()
            .map(|a| parse_user_tag(a))
            .collect::<Result<_, _>>()?,
    })
}

fn tag_one(ctx: &mut Ctx, arg: &str, edit: &TagEdit) -> Result<WriteOutcome, CliError> {
    let keeper = ctx.keeper()?;
    let target = keeper.resolve(arg)?;
    if target.selector.is_some() {
        return Err(CliError::Usage(format!(
            "'{arg}': only the current version of a note can be tagged"
        )));
    }
    Ok(keeper.tag(&target.id, edit)?)
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
    Ok(())
}
