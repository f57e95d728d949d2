//! Vectors as every backend sees them: the kinds of rows that carry one,
//! a row's key, the rows waiting for one, and the model that made them.

use crate::error::Result;
use crate::ids::{NoteRid, PartRid, VersionRid};

/// Rows nearest a query: (row key, cosine distance), nearest first.
pub type Nearest = Vec<(i64, f64)>;

/// The kinds of rows that carry vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VecKind {
    Note,
    Version,
    Part,
}

impl VecKind {
    pub const ALL: [VecKind; 3] = [VecKind::Note, VecKind::Version, VecKind::Part];

    /// What the rows of this kind are called: notes, versions, parts.
    pub fn name(self) -> &'static str {
        self.row_table()
    }

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

    /// The kind's number in `next_vectors`.
    pub(super) fn number(self) -> i64 {
        match self {
            VecKind::Note => 0,
            VecKind::Version => 1,
            VecKind::Part => 2,
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

/// A vector to store on a row while the row's text is still `text`
/// (`Vectors::set_vectors`).
#[derive(Debug, Clone)]
pub struct NewVector {
    pub row: VecRow,
    pub text: String,
    /// The hash of `text`, recorded as what the vector was made from.
    pub hash: String,
    /// Little-endian f32, as stored.
    pub vector: Vec<u8>,
}

/// A row waiting for its embedding.
#[derive(Debug, Clone)]
pub struct PendingText {
    pub row: VecRow,
    pub text: String,
}

/// The space named by a model and a dimension read from `meta`.
pub(super) fn space_of(model: Option<String>, dims: Option<String>) -> Option<VectorSpace> {
    let dims = dims?.parse().ok()?;
    Some(VectorSpace {
        model: model?,
        dims,
    })
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

/// The `meta` keys naming the space of `next_vectors` while a store
/// changes model.
/// Where the store's settings name the model and width of its vectors.
pub(super) const MODEL_KEY: &str = "vector_model";
pub(super) const DIMS_KEY: &str = "vector_dims";
pub(super) const NEXT_MODEL_KEY: &str = "next_vector_model";
pub(super) const NEXT_DIMS_KEY: &str = "next_vector_dims";

/// Rows of `kind` with a vector of the store's space and none of the next
/// space made from the same text. Rows without a vector are not the
/// switch's work: they are embedded with the new model once it is the
/// store's.
pub(super) fn next_pending_condition(kind: VecKind) -> String {
    format!(
        "embedded IS NOT NULL AND NOT EXISTS (SELECT 1 FROM next_vectors n \
         WHERE n.kind = {n} AND n.key = {r}.{k} AND n.hash = {r}.embedded)",
        n = kind.number(),
        r = kind.row_table(),
        k = kind.key()
    )
}

/// The first `limit` rows of `kind` meeting `condition`: key, text.
fn texts_sql(kind: VecKind, condition: &str, limit: usize) -> String {
    format!(
        "SELECT {k}, summary FROM {r} WHERE {condition} ORDER BY {k} LIMIT {limit}",
        k = kind.key(),
        r = kind.row_table(),
    )
}

/// How many rows of `kind` meet `condition`.
fn count_sql(kind: VecKind, condition: &str) -> String {
    format!(
        "SELECT count(*) FROM {} WHERE {condition}",
        kind.row_table()
    )
}

/// Up to `limit` rows meeting `condition` (of their kind), notes first.
pub(super) fn texts_where<Q: super::plain::PlainQueries + ?Sized>(
    db: &Q,
    limit: usize,
    condition: impl Fn(VecKind) -> String,
) -> Result<Vec<PendingText>> {
    let mut out = Vec::new();
    for kind in VecKind::ALL {
        if out.len() >= limit {
            break;
        }
        let sql = texts_sql(kind, &condition(kind), limit - out.len());
        for (key, text) in db.key_texts(&sql)? {
            out.push(PendingText {
                row: VecRow::of(kind, key),
                text,
            });
        }
    }
    Ok(out)
}

/// How many rows, of every kind, meet `condition`.
pub(super) fn count_where<Q: super::plain::PlainQueries + ?Sized>(
    db: &Q,
    condition: impl Fn(VecKind) -> String,
) -> Result<i64> {
    VecKind::ALL
        .iter()
        .map(|kind| db.count(&count_sql(*kind, &condition(*kind))))
        .sum()
}

/// Drops the next vectors whose row is gone or whose text changed since
/// (its old vector went with the change): run before the old vectors go.
pub(super) fn forget_stale_next_sql() -> String {
    VecKind::ALL
        .iter()
        .map(|kind| {
            format!(
                "DELETE FROM next_vectors WHERE kind = {n} AND NOT EXISTS \
                 (SELECT 1 FROM {r} x WHERE x.{k} = next_vectors.key AND x.embedded = next_vectors.hash);\n",
                n = kind.number(),
                r = kind.row_table(),
                k = kind.key()
            )
        })
        .collect()
}

/// Moves the next vectors into the (new, empty) vector tables, whose key
/// column is `vec_key`, and marks their rows embedded; then empties the
/// staging table and forgets its space.
pub(super) fn adopt_next_sql(vec_key: &str) -> String {
    let mut sql = String::new();
    for kind in VecKind::ALL {
        sql.push_str(&format!(
            "UPDATE {r} SET embedded = n.hash FROM next_vectors n WHERE n.kind = {n} AND n.key = {r}.{k};
             INSERT INTO {t} ({vec_key}, embedding) SELECT key, embedding FROM next_vectors WHERE kind = {n};\n",
            r = kind.row_table(),
            t = kind.vec_table(),
            n = kind.number(),
            k = kind.key()
        ));
    }
    sql.push_str(&clear_next_sql());
    sql
}

/// Empties the staging table and forgets its space.
pub(super) fn clear_next_sql() -> String {
    format!(
        "DELETE FROM next_vectors; DELETE FROM meta WHERE key IN ('{NEXT_MODEL_KEY}', '{NEXT_DIMS_KEY}');"
    )
}
