//! Which notes a listing or a recall may return, and in which order a
//! listing returns them.

use super::tags::TagFilter;
use super::time::Timestamp;

/// Which notes a listing or search may return.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NoteFilter {
    /// Id prefix, or a glob (`*`, `?`, `[...]`) when it contains one.
    pub pattern: Option<String>,
    /// Include dot-prefixed system notes, and notes whose watched file
    /// was deleted.
    pub include_system: bool,
    /// Every filter must match.
    pub tags: Vec<TagFilter>,
    /// Bounds on the last update time, inclusive.
    pub since: Option<Timestamp>,
    pub until: Option<Timestamp>,
}

impl NoteFilter {
    /// True when the filter only hides system notes.
    pub fn is_trivial(&self) -> bool {
        self.pattern.is_none()
            && self.tags.is_empty()
            && self.since.is_none()
            && self.until.is_none()
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
