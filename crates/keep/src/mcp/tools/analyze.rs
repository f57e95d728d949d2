//! `analyze`: cut a note into parts with the configured language model.

use keep_core::Keeper;
use keep_core::keeper::Analysis;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallError, Context, Hints, ToolDef, plain_id};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The note to cut into parts.
    pub id: String,
    /// Cut by headings and paragraphs, as storing a document does, instead of asking the model.
    #[serde(default)]
    pub heuristic: bool,
}

pub struct Analyze;

impl ToolDef for Analyze {
    const NAME: &'static str = "analyze";
    const TITLE: &'static str = "Cut a note into parts";
    const DESCRIPTION: &'static str = "Use it when a long document should be found part by part: cuts a long note into meaningful parts with the configured language model: each part covers a run of the document's own text and has a title, a one-sentence summary and topic tags; the parts replace the old ones (get ID@P{N}) and are found by recall. heuristic=true cuts by headings without a model.";
    const HINTS: Hints = Hints::WRITE;
    const EXAMPLE: &'static str = r#"{"id": "ops/backup"}"#;
    const RARE: bool = true;
    type Args = Args;
    type Output = Analysis;

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<Analysis, CallError> {
        let id = plain_id(keeper, &args.id, "analysing")?;
        if !args.heuristic && keeper.settings().providers.analyze.is_none() {
            return Err(keep_core::Error::invalid(
                "no model is configured to analyse with ([providers.analyze] in keep's config file); call with heuristic=true",
            )
            .into());
        }
        Ok(keeper.analyze(&id, args.heuristic)?)
    }
}
