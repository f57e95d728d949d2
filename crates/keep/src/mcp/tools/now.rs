//! `now`: read or replace the working-intentions note.

use keep_core::Keeper;
use keep_core::keeper::PutOptions;
use keep_core::model::{self, NoteRef};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{CallError, Context, Hints, MAX_TEXT_BYTES, ToolDef};
use crate::render::json::ViewJson;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// New text for the 'now' note. Leave out to read it.
    pub text: Option<String>,
    /// Use a separate 'now' note of this name (a project or agent name).
    /// "scope" is accepted for it too, as before.
    #[serde(alias = "scope")]
    pub now_name: Option<String>,
    /// Tags to set with the new text, as "key=value".
    #[serde(default)]
    pub tags: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// The note, or null when it was never set.
    pub note: Option<ViewJson>,
}

pub struct Now;

impl ToolDef for Now {
    const NAME: &'static str = "now";
    const TITLE: &'static str = "Now";
    const DESCRIPTION: &'static str = "Read or replace the 'now' note: the current intentions and state of work. Use it at the start of a session to pick up where you left off, and before it ends to say where things stand. Setting it keeps the previous text as a version. Use a scope for a separate 'now' per project or agent. Returns the note, or null when it was never set.";
    const HINTS: Hints = Hints::WRITE;
    const EXAMPLE: &'static str = r#"{"text": "Reviewing the backup runbook.", "now_name": "ops"}"#;
    type Args = Args;
    type Output = Output;

    fn call(keeper: &mut Keeper, ctx: &Context, args: Args) -> Result<Output, CallError> {
        let id = Keeper::now_id(ctx.now_scope(args.now_name.as_deref()).as_deref())?;
        if let Some(text) = &args.text {
            if text.len() > MAX_TEXT_BYTES {
                return Err(CallError::Failed(format!(
                    "the text is {} bytes; the limit is {MAX_TEXT_BYTES}",
                    text.len()
                )));
            }
            let opts = PutOptions {
                id: Some(id.clone()),
                tags: ctx.scoped(model::parse_user_tags(&args.tags)?)?,
                within: ctx.scope_filters(),
                summary: None,
                ..PutOptions::default()
            };
            keeper.put_text(text, "inline", opts)?;
        } else if !args.tags.is_empty() {
            return Err(CallError::Failed("tags are set together with text".into()));
        }
        if keeper.peek(&id)?.is_none() || ctx.check(keeper, &id).is_err() {
            return Ok(Output { note: None });
        }
        let view = keeper.get(&NoteRef::plain(id))?;
        Ok(Output {
            note: Some(ViewJson::without_history(&view)),
        })
    }
}
