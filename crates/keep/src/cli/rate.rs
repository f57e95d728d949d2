//! `keep rate`: say whether a note was useful or wrong.

use clap_complete::ArgValueCompleter;

use keep_core::keeper::Feedback;

use super::complete;
use super::output::Format;
use super::{CliError, CliResult, Ctx, Status};
use crate::render::json::RatedJson;

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
    let keeper = ctx.keeper()?;
    let target = keeper.resolve(&args.id)?;
    if target.selector.is_some() {
        return Err(CliError::Usage(format!(
            "'{}': rate the note, not one of its versions or parts",
            args.id
        )));
    }
    let feedback = match args.rating {
        RatingArg::Useful => Feedback::Useful,
        RatingArg::Wrong => Feedback::Wrong,
    };
    let rating = keeper.rate(&target.id, feedback)?;
    let rated = RatedJson::new(&target.id, rating);
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
