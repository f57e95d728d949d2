//! Plain rows the store hands back: search hits, watched folders and
//! leases.

use crate::ids::NoteRid;

/// A keyword hit: the note and its relevance score (higher is better).
#[derive(Debug, Clone)]
pub struct FtsHit {
    pub rid: NoteRid,
    pub score: f64,
}

/// A keyword or vector match inside a part or an archived version,
/// reported against its note.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubHit {
    pub rid: NoteRid,
    /// Part number, or version offset (1 = previous).
    pub number: i64,
    pub score: f64,
}

/// A registered folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchedDir {
    pub dir: String,
    pub recursive: bool,
    pub excludes: Vec<String>,
}

/// Who holds a lease, and until when (milliseconds since the epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub holder: String,
    pub pid: i64,
    pub since: i64,
    pub expires: i64,
}

/// What a store's own check finds: its schema version against the newest
/// this keep knows, and any problem.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Health {
    pub schema_version: i64,
    pub known_version: i64,
    pub problems: Vec<String>,
}
