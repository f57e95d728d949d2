//! `put` of text: a new note, the next version of one, or the verdict
//! that the text restates a note already there.

use keep_core::keeper::{OnDuplicate, PutOptions, WriteOutcome};
use keep_core::model::{dates, parse_user_tags, time};
use keep_core::{Error, Keeper, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::wire::TagList;
use crate::{Command, wire};

/// Store text as a note. Text put without an id is first judged against
/// the notes the caller may read: a restatement is not stored twice
/// (`duplicate`), and text with another detail is a probable update
/// (`possible_update`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Put {
    /// The text.
    pub text: String,
    /// Store under this id instead of one derived from the content.
    #[serde(default)]
    pub id: Option<String>,
    /// Tags to add.
    #[serde(default)]
    pub tags: TagList,
    /// Use this summary instead of one made from the text.
    #[serde(default)]
    pub summary: Option<String>,
    /// When it happened or began to hold: a duration back from now (P2D), a date, a timestamp or a spoken day.
    #[serde(default)]
    pub at: Option<String>,
    /// When the note stops being true: a duration from now (from `at` when given), a date or a timestamp.
    #[serde(default)]
    pub expires: Option<String>,
    /// How much the note matters, 1 to 5 (3 is usual).
    #[serde(default, deserialize_with = "wire::maybe_number")]
    #[schemars(range(min = 1, max = 5))]
    pub importance: Option<u8>,
    /// Notes this one replaces, which recall then hides.
    #[serde(default, deserialize_with = "wire::many")]
    pub supersedes: Vec<String>,
    /// When the text restates or probably updates a note, store it as that note's next version.
    #[serde(default, deserialize_with = "wire::flag")]
    pub update: bool,
    /// Store the text even when it restates a note.
    #[serde(default, deserialize_with = "wire::flag")]
    pub allow_duplicate: bool,
    /// Keep secrets as written: set by the command line's
    /// `--allow-secrets` only, never from a request.
    #[serde(skip)]
    #[schemars(skip)]
    pub allow_secrets: bool,
}

impl Put {
    fn options(&self, keeper: &Keeper) -> Result<PutOptions> {
        if self.update && self.allow_duplicate {
            return Err(Error::Invalid(
                "give either update or allow_duplicate, not both".into(),
            ));
        }
        if self.importance.is_some_and(|n| !(1..=5).contains(&n)) {
            return Err(Error::Invalid("importance is a number from 1 to 5".into()));
        }
        let now = keeper.now();
        let at = match &self.at {
            Some(when) => Some(dates::parse_event_time(when, now)?),
            None => None,
        };
        let expires = match &self.expires {
            Some(when) => Some(time::parse_expiry_from(when, now, at)?),
            None => None,
        };
        Ok(PutOptions {
            id: self.id.clone(),
            tags: parse_user_tags(&self.tags.clone().pairs())?,
            summary: self.summary.clone(),
            at,
            expires,
            supersedes: self.supersedes.clone(),
            importance: self.importance,
            on_duplicate: OnDuplicate::asked(self.update, self.allow_duplicate),
            within: Vec::new(),
            keep_secrets: self.allow_secrets,
        })
    }
}

impl Command for Put {
    type Output = WriteOutcome;

    fn run(self, keeper: &mut Keeper) -> Result<WriteOutcome> {
        let options = self.options(keeper)?;
        keeper.put_text(&self.text, "inline", options)
    }
}
