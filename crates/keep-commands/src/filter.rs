//! The tag and time filters that `find`, `list` and `conflicts` share.

use keep_core::Result;
use keep_core::keeper::{FilterSpec, Keeper};
use keep_core::model::{Expired, NoteFilter};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::wire;

/// Which notes a listing or a search looks at.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct Filters {
    /// Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match).
    #[serde(default, deserialize_with = "wire::many")]
    pub tag: Vec<String>,
    /// Only notes updated since: a duration back from now (P7D, PT1H), a date or a timestamp.
    #[serde(default)]
    pub since: Option<String>,
    /// Only notes updated until: a duration back from now, a date or a timestamp.
    #[serde(default)]
    pub until: Option<String>,
    /// Only what held then, each note as it stood: a date, a timestamp, a duration back from now or a spoken day.
    #[serde(default)]
    pub as_of: Option<String>,
    /// Only notes whose event time, or a date their text speaks of, falls in PERIOD: 2023, 2023-05, last week, P7D or FROM..UNTIL.
    #[serde(default)]
    pub when: Option<String>,
    /// Only notes whose text came from these origins: typed (by a person), agent, document (a file), web (a page) or imported; a list or one name.
    #[serde(default, deserialize_with = "wire::many")]
    pub from: Vec<String>,
    /// Include system notes (ids starting with '.'), expired notes and notes in the trash.
    #[serde(default, deserialize_with = "wire::flag")]
    pub all: bool,
}

impl Filters {
    /// The store's filter, with ids limited to `pattern` (a prefix or a
    /// glob) when one is given.
    pub fn to_filter(&self, keeper: &Keeper, pattern: Option<&str>) -> Result<NoteFilter> {
        keeper.filter(&FilterSpec {
            tags: &self.tag,
            since: self.since.as_deref(),
            until: self.until.as_deref(),
            scope: pattern,
            as_of: self.as_of.as_deref(),
            when: self.when.as_deref(),
            from: &self.from,
            include_system: self.all,
            expired: Expired::Hidden,
        })
    }
}
