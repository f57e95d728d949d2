//! `keep rate`: say whether a note was useful or wrong.

use clap_complete::ArgValueCompleter;

use keep_commands::rate::{Rate, Verdict};

use super::complete;
use super::output::Format;
use super::{CliResult, Ctx, Status};

/// Rate a note as useful or wrong.
///
/// Ratings are counted per note (shown by 'keep get') and give the note a
/// bounded lift or drop in find and recall: at most a quarter of its score
/// either way, so a rating reorders near ties but never buries a clearly
/// better match. A note never rated ranks exactly as before. Prints the
/// note's totals.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// The note's id
    #[arg(value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub id: String,

    /// How the note served
    #[arg(value_enum, value_name = "RATING")]
    pub rating: RatingArg,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
pub enum RatingArg {
    /// It helped
    Useful,
    /// It is wrong or misleading
    Wrong,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let rated = ctx.run(Rate {
        id: args.id,
        rating: match args.rating {
            RatingArg::Useful => Verdict::Useful,
            RatingArg::Wrong => Verdict::Wrong,
        },
    })?;
    match ctx.format {
        Format::Json => ctx.out.json(&rated)?,
        Format::Ids => ctx.out.line(&rated.id)?,
        Format::Text => ctx.out.line(&format!(
            "{}  {} useful, {} wrong",
            rated.id, rated.useful, rated.wrong
        ))?,
    }
    Ok(Status::Success)
}
