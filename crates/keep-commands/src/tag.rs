//! `tag`: add and remove a note's tags.

use keep_core::keeper::{TagEdit, WriteOutcome};
use keep_core::model::{parse_user_tag, parse_user_tags, validate_tag_key};
use keep_core::{Error, Keeper, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::wire::TagList;
use crate::{Command, plain_id, wire};

/// Add or remove tags on a note; removals apply before additions, and a
/// change makes a new version. Keys starting with `_` are keep's.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tag {
    /// The note's id.
    pub id: String,
    /// Tags to add.
    #[serde(default)]
    pub add: TagList,
    /// Keys to remove with all their values.
    #[serde(default, deserialize_with = "wire::many")]
    pub remove: Vec<String>,
    /// `KEY=VALUE` pairs to remove one value each.
    #[serde(default, deserialize_with = "wire::many")]
    pub remove_value: Vec<String>,
}

impl Tag {
    /// Fails when the change is empty or malformed, before any note is
    /// read.
    pub fn check(&self) -> Result<()> {
        self.edit().map(drop)
    }

    fn edit(&self) -> Result<TagEdit> {
        let add = self.add.clone().pairs();
        if add.is_empty() && self.remove.is_empty() && self.remove_value.is_empty() {
            return Err(Error::Invalid(
                "nothing to do: give tags to add or remove".into(),
            ));
        }
        for key in &self.remove {
            validate_tag_key(key, key)?;
        }
        Ok(TagEdit {
            add: parse_user_tags(&add)?,
            remove_keys: self.remove.clone(),
            remove_values: self
                .remove_value
                .iter()
                .map(|pair| parse_user_tag(pair))
                .collect::<std::result::Result<_, _>>()?,
            keep_secrets: false,
        })
    }
}

impl Command for Tag {
    type Output = WriteOutcome;

    fn run(self, keeper: &mut Keeper) -> Result<WriteOutcome> {
        let edit = self.edit()?;
        let id = plain_id(
            keeper,
            &self.id,
            "only the current version of a note can be tagged",
        )?;
        keeper.tag(&id, &edit)
    }
}
