//! `keep revert`: undo the last change of a note.

use keep_core::keeper::RevertOutcome;

use super::output::Format;
use super::{CliError, CliResult, Ctx, Failures};

/// Undo the last change of notes: restore the previous version.
///
/// The previous version (ID@V{1}) becomes the current one and leaves the
/// archive; the current state is discarded, with its parts. A note with no
/// archived versions is deleted, exactly as 'keep del ID' would. Exits 1 if
/// any id is unknown.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Note ids
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let mut failures = Failures::default();
    let mut outcomes = Vec::new();
    for arg in &args.ids {
        match revert_one(ctx, arg) {
            Ok(outcome) => {
                print_line(ctx, &outcome)?;
                outcomes.push(outcome);
            }
            Err(e) => failures.record(e)?,
        }
    }
    if ctx.format == Format::Json {
        ctx.out.json(&outcomes)?;
    }
    Ok(failures.status())
}

fn revert_one(ctx: &mut Ctx, arg: &str) -> Result<RevertOutcome, CliError> {
    let keeper = ctx.keeper()?;
    let target = keeper.resolve(arg)?;
    if target.selector.is_some() {
        return Err(CliError::Usage(format!(
            "'{arg}': revert works on a whole note; give the plain id"
        )));
    }
    Ok(keeper.revert(&target.id)?)
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
