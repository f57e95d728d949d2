//! What SQLite and PostgreSQL spell differently in the queries written
//! once for both: a note row's tags, a list of row keys and the anti-join
//! each planner runs best (id globs and prefixes are in `filter`).

/// The database a statement is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// The select list of a note aliased `n`, as `note_of` reads it: its
    /// tags are one JSON text of `[key, value]` pairs.
    pub fn note_columns(self) -> &'static str {
        match self {
            Dialect::Sqlite => {
                "n.rid, n.id, n.summary, n.content_hash, n.created, n.updated, n.accessed, n.event_at,
                 (SELECT json_group_array(json_array(t.key, t.value)) FROM tags t WHERE t.note = n.rid)"
            }
            Dialect::Postgres => {
                "n.rid, n.id, n.summary, n.content_hash, n.created, n.updated, n.accessed, n.event_at,
                 (SELECT json_agg(json_build_array(t.key, t.value) ORDER BY t.key, t.value)::text
                  FROM tags t WHERE t.note = n.rid)"
            }
        }
    }

    /// `column` is one of the integers of the list bound at `list`
    /// (`Cell::Ints`).
    pub fn among(self, column: &str, list: &str) -> String {
        match self {
            Dialect::Sqlite => format!("{column} IN (SELECT value FROM json_each({list}))"),
            Dialect::Postgres => format!("{column} = ANY({list})"),
        }
    }

    /// Note `n` has no tag with the key bound at `key`. SQLite builds the
    /// set of tagged notes once from the (key, value) index; PostgreSQL
    /// plans the same as an anti-join.
    pub fn untagged(self, key: &str) -> String {
        match self {
            Dialect::Sqlite => {
                format!("n.rid NOT IN (SELECT t.note FROM tags t WHERE t.key = {key})")
            }
            Dialect::Postgres => {
                format!("NOT EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = {key})")
            }
        }
    }

    /// As `untagged`, for notes that do have such a tag whose value is at
    /// most the one bound at `value` (or, `negated`, that do not).
    pub fn tagged_up_to(self, key: &str, value: &str, negated: bool) -> String {
        let not = if negated { "NOT " } else { "" };
        match self {
            Dialect::Sqlite => format!(
                "n.rid {not}IN (SELECT t.note FROM tags t WHERE t.key = {key} AND t.value <= {value})"
            ),
            Dialect::Postgres => format!(
                "{not}EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = {key} AND t.value <= {value})"
            ),
        }
    }

    /// No edge with the key bound at `key` points at note `n`.
    pub fn not_edge_target(self, key: &str) -> String {
        match self {
            Dialect::Sqlite => {
                format!("n.id NOT IN (SELECT e.target FROM edges e WHERE e.key = {key})")
            }
            Dialect::Postgres => {
                format!(
                    "NOT EXISTS (SELECT 1 FROM edges e WHERE e.target = n.id AND e.key = {key})"
                )
            }
        }
    }
}
