//! Reading one note: `Get` (a state, a version or a part), `History`
//! (every version), `Parts` (its parts), `Text` (its whole text) and
//! `Similar` (the notes nearest to it in meaning).

use keep_core::keeper::NoteView;
use keep_core::model::Selector;
use keep_core::recall::FindResult;
use keep_core::{Error, Keeper, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::shapes::{
    self, HistoryJson, PartJson, PartsJson, SimilarJson, TextJson, VersionJson, ViewJson,
};
use crate::{Command, answers_as, plain_id, wire};

/// Show a note, an archived version (`ID@V{N}`) or a part (`ID@P{N}`).
/// Reading it records its access time, unless the caller only reads.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Get {
    /// The note's id, with `@V{N}` or `@P{N}` for a version or a part.
    pub id: String,
    /// Version N: 0 current, 1 previous, negative counts from the oldest.
    #[serde(default, deserialize_with = "wire::maybe_number")]
    pub version: Option<i64>,
    /// The state that held then: a date, a timestamp, a duration back from now or a spoken day.
    #[serde(default)]
    pub as_of: Option<String>,
}

impl Get {
    pub fn id(id: impl Into<String>) -> Get {
        Get {
            id: id.into(),
            version: None,
            as_of: None,
        }
    }
}

/// A note as one state with its history, parts and links.
#[derive(Debug)]
pub struct Viewed {
    pub view: NoteView,
}

answers_as!(Viewed => ViewJson, |viewed| ViewJson::full(&viewed.view));

impl Command for Get {
    type Output = Viewed;

    fn run(self, keeper: &mut Keeper) -> Result<Viewed> {
        let mut target = keeper.resolve(&self.id)?;
        if let Some(n) = self.version {
            if target.selector.is_some() {
                return Err(Error::Invalid(format!(
                    "'{}' already selects a version or part; give the version once",
                    self.id
                )));
            }
            target.selector = Some(Selector::Version(n));
        }
        let view = match &self.as_of {
            Some(when) => {
                let id = plain_id(
                    keeper,
                    &self.id,
                    "as of picks the version; give the plain id",
                )?;
                let at = keep_core::model::dates::parse_instant(when, keeper.now())?;
                keeper.get_as_of(&id, at)?
            }
            None => keeper.get(&target)?,
        };
        Ok(Viewed { view })
    }
}

/// Every version of a note, the current first, each with what it changed.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct History {
    /// The note's id.
    pub id: String,
}

impl Command for History {
    type Output = HistoryJson;

    fn run(self, keeper: &mut Keeper) -> Result<HistoryJson> {
        let id = plain_id(
            keeper,
            &self.id,
            "the history shows every version; give the plain id",
        )?;
        let current = keeper
            .peek(&id)?
            .ok_or_else(|| Error::NotFound(id.clone()))?;
        let history = keeper.history(&id)?;
        Ok(HistoryJson {
            versions: VersionJson::all(&current, &history),
            id,
        })
    }
}

/// The parts of a note, in order.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Parts {
    /// The note's id.
    pub id: String,
}

impl Command for Parts {
    type Output = PartsJson;

    fn run(self, keeper: &mut Keeper) -> Result<PartsJson> {
        let id = plain_id(
            keeper,
            &self.id,
            "the parts list is the whole note's; give the plain id",
        )?;
        let view = keeper.view(&keeper.resolve(&id)?)?;
        Ok(PartsJson {
            parts: view.parts.iter().map(PartJson::from).collect(),
            id,
        })
    }
}

/// The whole text of a note: its parts joined by a blank line (each
/// part's overlap with the one before left out), or its summary when it
/// has none.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Text {
    /// The note's id.
    pub id: String,
}

impl Command for Text {
    type Output = TextJson;

    fn run(self, keeper: &mut Keeper) -> Result<TextJson> {
        let id = plain_id(
            keeper,
            &self.id,
            "the text is the whole note's; give the plain id",
        )?;
        let view = keeper.view(&keeper.resolve(&id)?)?;
        let text = if view.parts.is_empty() {
            view.note.summary.clone()
        } else {
            keep_core::rejoin(view.parts.iter().map(|p| p.summary.as_str()))
        };
        Ok(TextJson { id, text })
    }
}

/// The notes nearest in meaning to a note.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Similar {
    /// The note's id.
    pub id: String,
    /// At most this many notes.
    #[serde(default = "ten", deserialize_with = "wire::number")]
    pub limit: usize,
}

fn ten() -> usize {
    10
}

/// The notes like one note, nearest first.
#[derive(Debug)]
pub struct Alike {
    pub id: String,
    pub result: FindResult,
}

answers_as!(Alike => SimilarJson, |alike| SimilarJson {
    id: alike.id.clone(),
    similar: shapes::hits(&alike.result),
});

impl Command for Similar {
    type Output = Alike;

    fn run(self, keeper: &mut Keeper) -> Result<Alike> {
        let id = keeper.resolve(&self.id)?.id;
        let before = keeper.embed_before_search();
        let mut result = keeper.similar(&id, self.limit)?;
        result.notices.splice(0..0, before);
        Ok(Alike { id, result })
    }
}
