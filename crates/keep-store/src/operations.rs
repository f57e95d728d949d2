//! The operations log as every backend sees it: one entry per write (when,
//! who, what, which note, its version count), appended and never changed,
//! and the filter it is read back with.

use keep_model::time::Timestamp;

/// Who writes when nobody said: keep itself (its background work).
pub const DEFAULT_AGENT: &str = "keep";

/// Between an author and the name its client gave, in an agent.
const VIA: char = '\u{1f}';

/// An agent whose writes are by `author` (a token's name: the log's agent
/// and the `_agent` tag) through a client that calls itself `client`
/// (kept in the log's detail, `via CLIENT`).
pub fn agent_via(author: &str, client: &str) -> String {
    let client: String = client.chars().filter(|c| *c != VIA).collect();
    format!("{author}{VIA}{client}")
}

/// The author of an agent, and the client's own name when one was given.
pub fn author_of(agent: &str) -> (&str, Option<&str>) {
    match agent.split_once(VIA) {
        Some((author, client)) => (author, Some(client)),
        None => (agent, None),
    }
}

/// One write, as logged.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Operation {
    /// Its place in the log, from 1.
    pub seq: i64,
    pub at: Timestamp,
    /// Who wrote: `cli`, `browser`, `watch`, an MCP client's
    /// `name/version`, or `keep` for its own background work.
    pub agent: String,
    /// `create`, `update` (new text), `tag`, `trash`, `restore`, `revert`,
    /// `purge`, `delete-version`, `move`, `import`.
    pub op: String,
    pub note: String,
    /// How many versions the note had after the write (before it, for a
    /// purge), the current one included.
    pub version: i64,
    /// More about it, when there is more: the reason of a trash, where a
    /// move went.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl Operation {
    /// A write by `agent`, to be appended (its place is given then).
    pub(super) fn by(
        agent: &str,
        at: Timestamp,
        op: &str,
        note: &str,
        version: i64,
        detail: &str,
    ) -> Operation {
        let (author, client) = author_of(agent);
        let detail = match client {
            Some(client) if detail.is_empty() => format!("via {client}"),
            Some(client) => format!("{detail}; via {client}"),
            None => detail.to_string(),
        };
        Operation {
            seq: 0,
            at,
            agent: author.into(),
            op: op.into(),
            note: note.into(),
            version,
            detail,
        }
    }
}

/// Which entries to read, newest first.
#[derive(Debug, Clone, Default)]
pub struct OperationFilter {
    pub note: Option<String>,
    pub agent: Option<String>,
    pub since: Option<Timestamp>,
    pub limit: Option<usize>,
}

/// The log's columns, in the order `Operation` is read from.
pub(super) const COLUMNS: &str = "seq, at, agent, op, note, version, detail";

/// The WHERE clause and its values for `filter`, with placeholders made
/// by `placeholder(n)` for the n-th value (from 1).
pub(super) fn filter_sql(
    filter: &OperationFilter,
    placeholder: impl Fn(usize) -> String,
) -> (String, Vec<FilterValue>) {
    let mut clauses = Vec::new();
    let mut values = Vec::new();
    if let Some(note) = &filter.note {
        values.push(FilterValue::Text(note.clone()));
        clauses.push(format!("note = {}", placeholder(values.len())));
    }
    if let Some(agent) = &filter.agent {
        values.push(FilterValue::Text(agent.clone()));
        clauses.push(format!("agent = {}", placeholder(values.len())));
    }
    if let Some(since) = filter.since {
        values.push(FilterValue::Int(since.millis()));
        clauses.push(format!("at >= {}", placeholder(values.len())));
    }
    let mut sql = format!("SELECT {COLUMNS} FROM operations");
    if !clauses.is_empty() {
        sql.push_str(" WHERE ");
        sql.push_str(&clauses.join(" AND "));
    }
    sql.push_str(" ORDER BY seq DESC");
    if let Some(limit) = filter.limit {
        sql.push_str(&format!(" LIMIT {limit}"));
    }
    (sql, values)
}

/// A value of `filter_sql`'s WHERE clause.
pub(super) enum FilterValue {
    Text(String),
    Int(i64),
}

pub(super) const INSERT: &str =
    "INSERT INTO operations (at, agent, op, note, version, detail) VALUES";
