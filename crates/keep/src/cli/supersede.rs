//! `keep supersede`: accept a note as the successor of an older one.

use clap_complete::ArgValueCompleter;

use super::complete;
use super::put::print_outcome;
use super::{CliResult, Ctx, Status};
use keep_commands::supersede::Supersede;

/// Accept a note as the successor of the notes it replaces.
///
/// 'keep put' links text that probably updates a note (the same subject,
/// another detail) to it with the tag may-supersede. 'keep supersede ID'
/// accepts that: ID gets supersedes=OLD for each note it may supersede,
/// the may-supersede links go, and find and recall hide the older notes
/// from then on ('--all-versions' still shows them). Name OLD to supersede
/// another note than the one suggested. To dismiss a suggestion instead,
/// remove the tag: 'keep tag ID --remove may-supersede'. Prints the id.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// The newer note
    #[arg(value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub id: String,

    /// The notes it replaces [default: those it may supersede]
    #[arg(value_name = "OLD", add = ArgValueCompleter::new(complete::note_id))]
    pub olds: Vec<String>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let outcome = ctx.run(Supersede {
        id: args.id,
        olds: args.olds,
    })?;
    print_outcome(ctx, &outcome)?;
    Ok(Status::Success)
}
