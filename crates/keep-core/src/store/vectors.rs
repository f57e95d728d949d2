//! Vectors as every backend sees them: the kinds of rows that carry one,
//! a row's key, the rows waiting for one, and the model that made them.

use super::{NoteRid, PartRid, VersionRid};

/// The kinds of rows that carry vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VecKind {
    Note,
    Version,
    Part,
}

impl VecKind {
    pub const ALL: [VecKind; 3] = [VecKind::Note, VecKind::Version, VecKind::Part];

    pub(super) fn vec_table(self) -> &'static str {
        match self {
            VecKind::Note => "vec_notes",
            VecKind::Version => "vec_versions",
            VecKind::Part => "vec_parts",
        }
    }

    pub(super) fn code_table(self) -> &'static str {
        match self {
            VecKind::Note => "codes_notes",
            VecKind::Version => "codes_versions",
            VecKind::Part => "codes_parts",
        }
    }

    /// The `meta` key counting changes to the code table.
    pub(super) fn epoch_key(self) -> &'static str {
        match self {
            VecKind::Note => "codes_epoch_notes",
            VecKind::Version => "codes_epoch_versions",
            VecKind::Part => "codes_epoch_parts",
        }
    }

    pub(super) fn row_table(self) -> &'static str {
        match self {
            VecKind::Note => "notes",
            VecKind::Version => "versions",
            VecKind::Part => "parts",
        }
    }

    /// The column that names the note a row belongs to.
    pub(super) fn note_column(self) -> &'static str {
        match self {
            VecKind::Note => "rid",
            VecKind::Version | VecKind::Part => "note",
        }
    }

    pub(super) fn key(self) -> &'static str {
        match self {
            VecKind::Note => "rid",
            VecKind::Version => "vid",
            VecKind::Part => "pid",
        }
    }
}

/// A row that carries a vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VecRow {
    Note(NoteRid),
    Version(VersionRid),
    Part(PartRid),
}

impl VecRow {
    pub fn kind(self) -> VecKind {
        match self {
            VecRow::Note(_) => VecKind::Note,
            VecRow::Version(_) => VecKind::Version,
            VecRow::Part(_) => VecKind::Part,
        }
    }

    pub(super) fn key(self) -> i64 {
        match self {
            VecRow::Note(r) => r.0,
            VecRow::Version(r) => r.0,
            VecRow::Part(r) => r.0,
        }
    }

    pub(super) fn of(kind: VecKind, key: i64) -> VecRow {
        match kind {
            VecKind::Note => VecRow::Note(NoteRid(key)),
            VecKind::Version => VecRow::Version(VersionRid(key)),
            VecKind::Part => VecRow::Part(PartRid(key)),
        }
    }
}

/// A row waiting for its embedding.
#[derive(Debug, Clone)]
pub struct PendingText {
    pub row: VecRow,
    pub text: String,
}

/// The model and dimension that made the stored vectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorSpace {
    pub model: String,
    pub dims: usize,
}

pub fn to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn from_bytes(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The condition a row of `kind` must meet to wait for a vector; with a
/// scope table, only rows of the notes it lists.
pub(super) fn pending_condition(kind: VecKind, scope: Option<&str>) -> String {
    let mut condition = String::from("embedded IS NULL AND summary <> ''");
    if let Some(table) = scope {
        condition.push_str(&format!(
            " AND {} IN (SELECT rid FROM {table})",
            kind.note_column()
        ));
    }
    condition
}
