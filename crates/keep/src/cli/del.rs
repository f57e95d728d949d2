//! `keep del`: delete notes or archived versions.

use clap_complete::ArgValueCompleter;

use super::complete;
use keep_core::keeper::Deleted;

use super::output::Format;
use super::{CliError, CliResult, Ctx, Failures};

/// Delete notes for good, or one archived version of a note.
///
/// 'keep del ID' removes the note with its whole version history, its parts,
/// its tags, its outgoing edges and its index entries. Notes that link to it
/// keep their tags. 'keep del ID@V{N}' (N = 1 previous, -1 oldest, ...)
/// removes only that archived version and leaves the note and its other
/// versions as they are. To undo the last change instead, use 'keep revert'.
/// Exits 1 if any id is unknown.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Note ids, or ID@V{N} for one archived version
    #[arg(required = true, value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub ids: Vec<String>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let mut failures = Failures::default();
    let mut deleted = Vec::new();
    for arg in &args.ids {
        match delete_one(ctx, arg) {
            Ok(d) => {
                print_line(ctx, &d)?;
                deleted.push(d);
            }
            Err(e) => failures.record(&mut ctx.out, e)?,
        }
    }
    if ctx.format == Format::Json {
        ctx.out.json(&deleted)?;
    }
    Ok(failures.status())
}

fn delete_one(ctx: &mut Ctx, arg: &str) -> Result<Deleted, CliError> {
    let keeper = ctx.keeper()?;
    let target = keeper.resolve(arg)?;
    Ok(keeper.delete(&target)?)
}

fn print_line(ctx: &mut Ctx, d: &Deleted) -> Result<(), CliError> {
    let (id, text) = match d {
        Deleted::Note { id, versions } => (
            id.clone(),
            format!("deleted {id} (with {versions} archived version(s))"),
        ),
        Deleted::Version { id, version } => (
            format!("{id}@V{{{version}}}"),
            format!("deleted {id}@V{{{version}}}"),
        ),
    };
    match ctx.format {
        Format::Json => {}
        Format::Ids => ctx.out.line(&id)?,
        Format::Text => ctx.out.line(&text)?,
    }
    Ok(())
}
