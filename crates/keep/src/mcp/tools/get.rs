//! `get`: one note in full, optionally with its history and similar notes.

use keep_commands::Command;
use keep_commands::get::{Similar, Text};
use keep_core::Keeper;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{CallError, Context, Hints, ToolDef, limit};
use crate::render::json::{BriefHit, ViewJson};

const SIMILAR_MAX: usize = 50;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The note's id. Append "@V{N}" for an older version (1 = previous) or "@P{N}" for a part (1-based).
    pub id: String,
    /// The state that held at this time instead of the current one (the latest begun by then): a timestamp, a date, a duration back from now or a spoken day. Not with "@V{N}" or "@P{N}".
    pub as_of: Option<String>,
    /// Include the list of older versions.
    #[serde(default)]
    pub history: bool,
    /// Include up to this many notes most similar in meaning (at most 50).
    pub similar: Option<usize>,
    /// Include the note's whole text: its parts joined, or its summary when it has none (a long document's summary is only its start). Not with "@V{N}" or "@P{N}".
    #[serde(default)]
    pub text: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub note: ViewJson,
    /// With `similar`: the notes nearest in meaning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similar: Option<Vec<BriefHit>>,
    /// With `text`: the note's whole text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

pub struct Get;

impl ToolDef for Get {
    const NAME: &'static str = "get";
    const TITLE: &'static str = "Get a note";
    const DESCRIPTION: &'static str = "Fetch one note in full: summary, tags, dates, parts, and its links to and from other notes. Use it when a recalled hit's summary is not enough. \"ID@V{1}\" reads the previous version, \"ID@P{2}\" the second part. With as_of, the state that held at that time. Optionally include its version history, its most similar notes and its whole text (text: a long document's summary is only its start).";
    const HINTS: Hints = Hints::READ_ONLY;
    const EXAMPLE: &'static str = r#"{"id": "ops/backup", "history": true}"#;
    type Args = Args;
    type Output = Output;

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<Output, CallError> {
        let view = keep_commands::get::Get {
            id: args.id.clone(),
            version: None,
            as_of: args.as_of,
        }
        .run(keeper)?
        .view;
        let note = if args.history {
            ViewJson::full(&view)
        } else {
            ViewJson::without_history(&view)
        };
        let similar = match args.similar {
            Some(n) => {
                let alike = Similar {
                    id: view.note.id.clone(),
                    limit: limit(Some(n), n, SIMILAR_MAX)?,
                }
                .run(keeper)?;
                Some(alike.result.hits.iter().map(BriefHit::from).collect())
            }
            None => None,
        };
        let text = if args.text {
            Some(Text { id: args.id }.run(keeper)?.text)
        } else {
            None
        };
        Ok(Output {
            note,
            similar,
            text,
        })
    }
}
