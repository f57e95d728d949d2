//! `rate`: say whether a note was useful or wrong.

use keep_core::keeper::Feedback;
use keep_core::{Keeper, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::shapes::RatedJson;
use crate::{Command, plain_id};

/// Rate a note useful or wrong: a bounded lift or drop in recall.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    /// The note's id.
    pub id: String,
    /// How the note served.
    pub rating: Verdict,
}

/// How a note served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// It helped.
    Useful,
    /// It is wrong or misleading.
    Wrong,
}

impl Command for Rate {
    type Output = RatedJson;

    fn run(self, keeper: &mut Keeper) -> Result<RatedJson> {
        let id = plain_id(
            keeper,
            &self.id,
            "rate the note, not one of its versions or parts",
        )?;
        let feedback = match self.rating {
            Verdict::Useful => Feedback::Useful,
            Verdict::Wrong => Feedback::Wrong,
        };
        let rating = keeper.rate(&id, feedback)?;
        Ok(RatedJson::new(&id, rating))
    }
}
