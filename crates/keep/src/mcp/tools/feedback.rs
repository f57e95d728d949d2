//! `feedback`: say whether a recalled note was useful or wrong.

use keep_commands::Command;
use keep_commands::rate::{Rate, Verdict as Rating};
use keep_core::Keeper;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallError, Context, Hints, ToolDef, plain_id};
use crate::render::json::RatedJson;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The note helped.
    Useful,
    /// The note is wrong or misleading.
    Wrong,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The note's id.
    pub id: String,
    /// How the note served.
    pub rating: Verdict,
}

pub struct Feedback;

impl ToolDef for Feedback {
    const NAME: &'static str = "feedback";
    const TITLE: &'static str = "Rate a note";
    const DESCRIPTION: &'static str = "Use it after a recalled note helped or misled: say whether it was useful or wrong. Ratings are counted and give the note a small, bounded lift or drop in recall; to correct a wrong note, remember the right fact with supersedes set to its id.";
    const HINTS: Hints = Hints::WRITE;
    const EXAMPLE: &'static str = r#"{"id": "ops/backup", "rating": "useful"}"#;
    const RARE: bool = true;
    type Args = Args;
    type Output = RatedJson;

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<RatedJson, CallError> {
        plain_id(keeper, &args.id, "rated")?;
        let rating = match args.rating {
            Verdict::Useful => Rating::Useful,
            Verdict::Wrong => Rating::Wrong,
        };
        Ok(Rate {
            id: args.id,
            rating,
        }
        .run(keeper)?)
    }
}
