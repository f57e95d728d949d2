//! `why`: where a note stands for a search, and the stage that keeps it
//! from the hits.

use keep_core::keeper::Why as Standing;
use keep_core::{Keeper, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::Command;
use crate::find::Find;

/// Where note `id` stands for the search the other arguments describe:
/// shown at its rank, ranked below the cut, left out by a filter (each
/// named), never a candidate (no word of the query in it, and too far in
/// meaning), or not indexed yet.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Why {
    /// The note's id.
    pub id: String,
    #[serde(flatten)]
    pub find: Find,
}

impl Command for Why {
    type Output = Standing;

    fn run(self, keeper: &mut Keeper) -> Result<Standing> {
        let id = keeper.resolve(&self.id)?.id;
        let query = self.find.query(keeper)?;
        keeper.why(&id, &query)
    }
}
