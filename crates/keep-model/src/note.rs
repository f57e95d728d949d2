//! The states of a note: the current one, archived versions, parts, and
//! the links edge tags make between notes.

use super::change::StateRef;
use super::tags::Tags;
use super::time::Timestamp;

/// The current state of a note.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub id: String,
    pub summary: String,
    pub tags: Tags,
    pub content_hash: Option<String>,
    pub created: Timestamp,
    pub updated: Timestamp,
    pub accessed: Timestamp,
    /// When this state began to hold: when the thing it records happened
    /// or became true (`put --at`, a transcript's time); by default when
    /// it was stored.
    pub at: Timestamp,
}

/// An archived state of a note. `seq` counts from 1 (the oldest).
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    pub seq: i64,
    pub summary: String,
    pub tags: Tags,
    pub content_hash: Option<String>,
    pub created: Timestamp,
    pub updated: Timestamp,
    /// When this state began to hold (see `Note::at`).
    pub at: Timestamp,
}

/// A part of a long note, numbered from 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub number: u32,
    pub summary: String,
    pub tags: Tags,
}

/// A link from one note to another, made by an edge tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The tag key, for example `author`.
    pub key: String,
    /// The name of the link seen from the target, for example `authored`.
    pub inverse: String,
    pub source: String,
    pub target: String,
}

impl Note {
    pub fn state(&self) -> StateRef<'_> {
        StateRef {
            summary: &self.summary,
            tags: &self.tags,
            content_hash: self.content_hash.as_deref(),
        }
    }
}

impl Version {
    pub fn state(&self) -> StateRef<'_> {
        StateRef {
            summary: &self.summary,
            tags: &self.tags,
            content_hash: self.content_hash.as_deref(),
        }
    }
}

/// How often a note was rated useful or wrong.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Rating {
    pub useful: i64,
    pub wrong: i64,
}
