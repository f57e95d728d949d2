//! `related`: notes linked to a note, then its neighbours by meaning.

use keep_core::Keeper;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallError, Context, Format, Hints, HitListing, ToolDef, hit_listing, limit, plain_id};

const DEFAULT: usize = 10;
const MAX: usize = 50;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The note's id.
    pub id: String,
    /// How many notes (default 10, at most 50).
    pub limit: Option<usize>,
    /// How much of each note to return (default brief).
    #[serde(default)]
    pub format: Format,
}

pub struct Related;

impl ToolDef for Related {
    const NAME: &'static str = "related";
    const TITLE: &'static str = "Related notes";
    const DESCRIPTION: &'static str = "Use it to explore around a note: its links in both directions and notes sharing a distinctive tag, then its nearest neighbours by meaning. Each is marked with how it is related.";
    const HINTS: Hints = Hints::READ_ONLY;
    const EXAMPLE: &'static str = r#"{"id": "ops/backup", "limit": 5}"#;
    const RARE: bool = true;
    type Args = Args;
    type Output = HitListing;

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<HitListing, CallError> {
        let id = plain_id(keeper, &args.id, "related")?;
        let limit = limit(args.limit, DEFAULT, MAX)?;
        let mut notices: Vec<keep_core::Notice> =
            keeper.embed_before_search().into_iter().collect();
        let mut result = keeper.related(&id, limit)?;
        notices.append(&mut result.notices);
        result.notices = notices;
        Ok(hit_listing(&result, args.format))
    }
}
