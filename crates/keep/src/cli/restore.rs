//! `keep restore`: take notes out of the trash.

use clap_complete::ArgValueCompleter;

use super::complete;
use keep_commands::restore::Restore;
use keep_core::keeper::WriteOutcome;

use super::output::Format;
use super::{CliError, CliResult, Ctx};

/// Take notes out of the trash.
///
/// A note put in the trash by 'keep del' (or whose watched file was
/// deleted) comes back as it was, in listings and recall; the restore is
/// a new version, so its history shows the deletion and the return.
/// 'keep list --deleted' shows what the trash holds. Exits 1 if any id is
/// unknown or not in the trash.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Ids of notes in the trash
    #[arg(required = true, value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub ids: Vec<String>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    super::for_each_id(ctx, &args.ids, restore_one, |ctx, outcome| {
        match ctx.format {
            Format::Json => {}
            Format::Ids => ctx.out.line(&outcome.id)?,
            Format::Text => ctx.out.line(&format!("restored {}", outcome.id))?,
        }
        Ok(())
    })
}

fn restore_one(ctx: &mut Ctx, arg: &str) -> Result<WriteOutcome, CliError> {
    ctx.run(Restore { id: arg.into() })
}
