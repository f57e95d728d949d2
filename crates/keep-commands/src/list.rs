//! `list`: notes by recency, id prefix or glob, tags and time.

use keep_core::model::{Expired, ListOrder, Note};
use keep_core::{Keeper, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::shapes::{self, NoteJson};
use crate::{Command, Filters, answers_as, wire};

/// List notes, most recently updated first.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct List {
    /// An id prefix, or a glob over whole ids when it has `*`, `?` or `[`.
    #[serde(default)]
    pub pattern: Option<String>,
    #[serde(flatten)]
    pub filters: Filters,
    /// The order: updated, accessed, created (each newest first) or id.
    #[serde(default)]
    pub sort: ListOrder,
    /// At most this many notes.
    #[serde(default, deserialize_with = "wire::maybe_number")]
    pub limit: Option<usize>,
    /// Only notes whose expiry time has passed.
    #[serde(default, deserialize_with = "wire::flag")]
    pub expired: bool,
    /// Only notes in the trash.
    #[serde(default, deserialize_with = "wire::flag")]
    pub deleted: bool,
}

/// The notes listed, in order.
#[derive(Debug)]
pub struct Listed {
    pub notes: Vec<Note>,
}

answers_as!(Listed => Vec<NoteJson>, |listed| shapes::notes(&listed.notes));

impl Command for List {
    type Output = Listed;

    fn run(self, keeper: &mut Keeper) -> Result<Listed> {
        let mut filter = self.filters.to_filter(keeper, self.pattern.as_deref())?;
        if self.expired {
            filter.expired = Expired::Only;
        }
        if self.deleted {
            filter.tags.push(Keeper::trash_filter());
        }
        let notes = keeper.list(&filter, self.sort, self.limit)?;
        Ok(Listed { notes })
    }
}
