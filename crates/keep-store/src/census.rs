//! What a store holds, counted the same way in every backend: notes by
//! kind, versions, parts, vectors, the commonest tag keys, each agent's
//! writes and the bytes on disk. The queries are plain SQL both databases
//! read alike; a backend only runs them (`PlainQueries`).

use super::plain::PlainQueries;
use crate::error::Result;
use keep_model::time::Timestamp;

/// A store's contents at one moment.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Census {
    /// Notes in listings and recall: not system notes (`.` ids), stubs or
    /// notes in the trash.
    pub notes: i64,
    pub in_trash: i64,
    pub system: i64,
    /// Notes that exist only as the target of a link.
    pub stubs: i64,
    /// Archived versions.
    pub versions: i64,
    pub parts: i64,
    /// Rows (notes, versions, parts) with a vector.
    pub vectors: i64,
    /// Rows with text and no vector yet.
    pub waiting_for_vectors: i64,
    /// The commonest user tag keys and how many notes carry each.
    pub tag_keys: Vec<KeyCount>,
    /// What each source added: notes, parts and the characters of their
    /// text, by `_source` (a conversation by its format: `chat:claude-code`).
    pub sources: Vec<SourceCount>,
    /// Who wrote, by the operations log.
    pub agents: Vec<AgentActivity>,
    /// The database's size on disk.
    pub bytes: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct KeyCount {
    pub key: String,
    pub notes: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct SourceCount {
    pub source: String,
    pub notes: i64,
    pub parts: i64,
    /// Characters of the notes' summaries and their parts' text.
    pub chars: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct AgentActivity {
    pub agent: String,
    pub writes: i64,
    pub last: Timestamp,
}

/// How many tag keys a census names.
const TOP_KEYS: usize = 20;

fn trash_or_stub(key: &str) -> String {
    format!("rid IN (SELECT note FROM tags WHERE key = '{key}')")
}

/// Ids of up to `limit` notes with a row (the note, a version or a part)
/// that has text and no vector, the most recently updated first.
pub(super) fn waiting<D: PlainQueries + ?Sized>(db: &D, limit: usize) -> Result<Vec<String>> {
    const WAITS: &str = "embedded IS NULL AND summary <> ''";
    let limit = limit.min(i64::MAX as usize);
    let sql = format!(
        "SELECT n.id, n.updated, CAST(0 AS BIGINT) FROM notes n WHERE (n.{WAITS}) \
         OR EXISTS (SELECT 1 FROM versions v WHERE v.note = n.rid AND v.{WAITS}) \
         OR EXISTS (SELECT 1 FROM parts p WHERE p.note = n.rid AND p.{WAITS}) \
         ORDER BY n.updated DESC, n.id LIMIT {limit}"
    );
    Ok(db.rows3(&sql)?.into_iter().map(|(id, _, _)| id).collect())
}

/// A note's source as `sources` counts it, in SQL over notes `n`.
const SOURCE_OF: &str = "COALESCE('chat:' || (SELECT min(value) FROM tags c WHERE c.note = n.rid AND c.key = 'chat'), \
     (SELECT min(value) FROM tags s WHERE s.note = n.rid AND s.key = '_source'), 'unknown')";

/// What each source added to the notes in listings (system notes, stubs
/// and the trash left out), the most notes first.
fn sources<D: PlainQueries + ?Sized>(db: &D) -> Result<Vec<SourceCount>> {
    let user = format!(
        "substr(n.id, 1, 1) <> '.' AND n.rid NOT IN (SELECT note FROM tags WHERE key IN ('{}', '{}'))",
        keep_model::keys::DELETED,
        keep_model::keys::STUB
    );
    let notes = db.rows3(&format!(
        "SELECT {SOURCE_OF}, count(*), CAST(sum(length(n.summary)) AS BIGINT) FROM notes n \
         WHERE {user} GROUP BY 1"
    ))?;
    let parts = db.rows3(&format!(
        "SELECT {SOURCE_OF}, count(*), CAST(sum(length(p.summary)) AS BIGINT) FROM parts p \
         JOIN notes n ON n.rid = p.note WHERE {user} GROUP BY 1"
    ))?;
    let mut out: Vec<SourceCount> = notes
        .into_iter()
        .map(|(source, notes, chars)| SourceCount {
            source,
            notes,
            parts: 0,
            chars,
        })
        .collect();
    for (source, count, chars) in parts {
        if let Some(row) = out.iter_mut().find(|r| r.source == source) {
            row.parts = count;
            row.chars += chars;
        }
    }
    out.sort_by(|a, b| b.notes.cmp(&a.notes).then_with(|| a.source.cmp(&b.source)));
    Ok(out)
}

/// Counts everything `db` holds.
pub(super) fn take<D: PlainQueries + ?Sized>(db: &D) -> Result<Census> {
    let deleted = trash_or_stub(keep_model::keys::DELETED);
    let stub = trash_or_stub(keep_model::keys::STUB);
    let user = "substr(id, 1, 1) <> '.'";
    let count_where =
        |condition: &str| db.count(&format!("SELECT count(*) FROM notes WHERE {condition}"));
    let rows_with = |condition: &str| -> Result<i64> {
        ["notes", "versions", "parts"]
            .iter()
            .map(|t| db.count(&format!("SELECT count(*) FROM {t} WHERE {condition}")))
            .sum()
    };
    let tag_keys = db
        .rows3(&format!(
            "SELECT key, count(DISTINCT note), CAST(0 AS BIGINT) FROM tags WHERE substr(key, 1, 1) <> '_' \
             GROUP BY key ORDER BY 2 DESC, key LIMIT {TOP_KEYS}"
        ))?
        .into_iter()
        .map(|(key, notes, _)| KeyCount { key, notes })
        .collect();
    let agents = db
        .rows3(
            "SELECT agent, count(*), max(at) FROM operations GROUP BY agent ORDER BY 2 DESC, agent",
        )?
        .into_iter()
        .map(|(agent, writes, last)| AgentActivity {
            agent,
            writes,
            last: Timestamp::from_millis(last),
        })
        .collect();
    Ok(Census {
        notes: count_where(&format!("{user} AND NOT {deleted} AND NOT {stub}"))?,
        in_trash: count_where(&deleted)?,
        system: count_where(&format!("NOT ({user})"))?,
        stubs: count_where(&stub)?,
        versions: db.count("SELECT count(*) FROM versions")?,
        parts: db.count("SELECT count(*) FROM parts")?,
        vectors: rows_with("embedded IS NOT NULL")?,
        waiting_for_vectors: rows_with("embedded IS NULL AND summary <> ''")?,
        tag_keys,
        sources: sources(db)?,
        agents,
        bytes: db.bytes()?,
    })
}
