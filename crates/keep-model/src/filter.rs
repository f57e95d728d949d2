//! Which notes a listing or a recall may return, and in which order a
//! listing returns them.

use super::note::Note;
use super::tags::TagFilter;
use super::time::Timestamp;

/// Which notes a listing or search may return.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NoteFilter {
    /// Id prefix, or a glob (`*`, `?`, `[...]`) when it contains one.
    pub pattern: Option<String>,
    /// Include dot-prefixed system notes, and notes in the trash.
    pub include_system: bool,
    /// Every filter must match.
    pub tags: Vec<TagFilter>,
    /// Only notes whose text came from one of these origins (`_origin`:
    /// typed, agent, document, web, imported); empty: any.
    pub origins: Vec<String>,
    /// Bounds on the last update time, inclusive.
    pub since: Option<Timestamp>,
    pub until: Option<Timestamp>,
    /// Which notes whose `_expires` time has passed may be returned.
    pub expired: Expired,
    /// The instant expiry is judged at; the keeper sets it to now when the
    /// caller leaves it out.
    pub as_of: Option<Timestamp>,
    /// Leave out notes that another note supersedes.
    pub hide_superseded: bool,
    /// Only what held at this instant (`--as-of`): notes with a state
    /// begun by then, neither expired nor superseded by a note begun by
    /// then. `as_of` is the same instant.
    pub held_at: Option<Timestamp>,
    /// Bounds on the event time, inclusive: when a note's state began, or
    /// a date its text speaks of (`_dates`).
    pub happened: Option<Period>,
}

/// An inclusive span of event time; either end may be open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Period {
    pub from: Option<Timestamp>,
    pub until: Option<Timestamp>,
}

/// Which expired notes pass a filter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Expired {
    /// Expired notes are left out (unless system notes are asked for).
    #[default]
    Hidden,
    /// Expired notes pass like any other.
    Included,
    /// Only expired notes pass.
    Only,
}

impl NoteFilter {
    /// True when the filter only hides system, expired and superseded
    /// notes: candidates may then be taken from every note, and the few
    /// hidden ones dropped afterwards.
    pub fn is_trivial(&self) -> bool {
        self.pattern.is_none()
            && self.tags.is_empty()
            && self.since.is_none()
            && self.until.is_none()
            && self.held_at.is_none()
            && self.happened.is_none()
            && self.expired != Expired::Only
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ListOrder {
    /// Most recently updated first.
    #[default]
    Updated,
    /// Most recently accessed first.
    Accessed,
    /// Most recently created first.
    Created,
    /// By id, ascending.
    Id,
}

/// A note's place in a listing's order: its date in that order (in
/// milliseconds; 0 for `Id`) and its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListKey {
    pub at: i64,
    pub id: String,
}

impl ListKey {
    pub fn of(note: &Note, order: ListOrder) -> ListKey {
        let at = match order {
            ListOrder::Updated => note.updated.millis(),
            ListOrder::Accessed => note.accessed.millis(),
            ListOrder::Created => note.created.millis(),
            ListOrder::Id => 0,
        };
        ListKey {
            at,
            id: note.id.clone(),
        }
    }
}

/// Where a page of a listing begins: the first or last notes of the
/// order, or the notes right after or right before a place in it. A page
/// is found through the order's index however deep it lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageFrom {
    First,
    Last,
    After(ListKey),
    Before(ListKey),
}
