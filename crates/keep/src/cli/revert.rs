//! `keep revert`: undo the last change of a note.

use clap_complete::ArgValueCompleter;

use super::complete;
use keep_core::keeper::RevertOutcome;

use super::output::Format;
use super::{CliError, CliResult, Ctx};

/// Undo the last change of notes: restore the previous version.
///
/// The previous version (ID@V{1}) becomes the current one and leaves the
/// archive; the current state is discarded, with its parts. A note with no
/// archived versions is left alone and reported, unless --delete is given:
/// then it is deleted for good, as 'keep del --purge ID' would. Exits 1 if any id is
/// unknown, 2 if a note had nothing to revert to.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Note ids
    #[arg(required = true, value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub ids: Vec<String>,

    /// Delete a note that has no earlier version instead of refusing
    #[arg(long)]
    pub delete: bool,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    super::for_each_id(
        ctx,
        &args.ids,
        |ctx, arg| revert_one(ctx, arg, args.delete),
        print_line,
    )
}

fn revert_one(ctx: &mut Ctx, arg: &str, delete: bool) -> Result<RevertOutcome, CliError> {
    let keeper = ctx.keeper()?;
    let target = keeper.resolve(arg)?;
    if target.selector.is_some() {
        return Err(CliError::Usage(format!(
            "'{arg}': revert works on a whole note; give the plain id"
        )));
    }
    match keeper.revert(&target.id, delete) {
        Err(e @ keep_core::Error::NoEarlierVersion { .. }) => Err(CliError::Hinted {
            message: e.to_string(),
            hint: format!(
                "'keep revert --delete {}' deletes it for good; 'keep del' puts it in the trash",
                target.id
            ),
        }),
        other => Ok(other?),
    }
}

fn print_line(ctx: &mut Ctx, outcome: &RevertOutcome) -> Result<(), CliError> {
    let (id, text) = match outcome {
        RevertOutcome::Restored { id, versions } => (
            id,
            format!("reverted {id} to its previous version ({versions} archived version(s) left)"),
        ),
        RevertOutcome::Deleted { id } => (id, format!("deleted {id} (it had no previous version)")),
    };
    match ctx.format {
        Format::Json => {}
        Format::Ids => ctx.out.line(id)?,
        Format::Text => ctx.out.line(&text)?,
    }
    Ok(())
}
