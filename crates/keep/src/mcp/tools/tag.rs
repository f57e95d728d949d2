//! `tag`: add and remove tags on a note.

use keep_commands::Command;
use keep_core::Keeper;
use keep_core::keeper::WriteStatus;
use keep_core::model::Tags;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{CallError, Context, Hints, ToolDef, plain_id};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The note's id.
    pub id: String,
    /// Tags to add, as "key=value".
    #[serde(default)]
    pub add: Vec<String>,
    /// Tags to remove: "key" removes every value of the key, "key=value" one value.
    #[serde(default)]
    pub remove: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub id: String,
    pub status: WriteStatus,
    /// The note's tags after the change.
    pub tags: Tags,
}

pub struct Tag;

impl ToolDef for Tag {
    const NAME: &'static str = "tag";
    const TITLE: &'static str = "Tag a note";
    const DESCRIPTION: &'static str = "Add or remove tags on a note. Use it to classify a note or link it to others. Tags are \"key=value\"; a key may hold several values. Tags whose key is a link (such as references, author, from, to) connect notes. The previous state is kept as a version.";
    const HINTS: Hints = Hints::IDEMPOTENT_WRITE;
    const EXAMPLE: &'static str = r#"{"id": "ops/backup", "add": ["status=checked"]}"#;
    type Args = Args;
    type Output = Output;

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<Output, CallError> {
        if args.add.is_empty() && args.remove.is_empty() {
            return Err(CallError::Failed(
                "nothing to do: give tags to add or remove".into(),
            ));
        }
        let id = plain_id(keeper, &args.id, "tagged")?;
        let (remove_value, remove) = args.remove.into_iter().partition(|r| r.contains('='));
        let outcome = keep_commands::tag::Tag {
            id: id.clone(),
            add: args.add.into(),
            remove,
            remove_value,
        }
        .run(keeper)?;
        let tags = keeper.peek(&id)?.map(|n| n.tags).unwrap_or_default();
        Ok(Output {
            id: outcome.id,
            status: outcome.status,
            tags,
        })
    }
}
