//! Listing and note filters pushed into SQL, so tag filters apply before
//! ranking and limits.

use rusqlite::params_from_iter;
use rusqlite::types::Value;

use super::Db;
use super::notes::{NOTE_COLUMNS, note_from_row};
use crate::error::Result;
use crate::note::{DELETED_KEY, Note, TagFilter};
use crate::time::Timestamp;

/// Which notes a listing or search may return.
#[derive(Debug, Clone, Default)]
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

/// A keyword hit: the note and its BM25 score (higher is better).
#[derive(Debug, Clone)]
pub struct FtsHit {
    pub rid: i64,
    pub note: Note,
    pub score: f64,
}

fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// Escapes GLOB metacharacters so `text` matches itself.
fn glob_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '*' | '?' | '[' => {
                out.push('[');
                out.push(c);
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

impl NoteFilter {
    /// True when the filter only hides system notes.
    pub fn is_trivial(&self) -> bool {
        self.pattern.is_none()
            && self.tags.is_empty()
            && self.since.is_none()
            && self.until.is_none()
    }

    /// Appends `AND ...` clauses over alias `n` and their parameters.
    pub(super) fn push_sql(&self, sql: &mut String, args: &mut Vec<Value>) {
        let explicit_system = self.pattern.as_deref().is_some_and(|p| p.starts_with('.'));
        if !self.include_system && !explicit_system {
            sql.push_str(" AND substr(n.id, 1, 1) <> '.'");
        }
        let asks_deleted = self.tags.iter().any(|t| t.key == DELETED_KEY);
        if !self.include_system && !asks_deleted {
            // One set built from the (key, value) index, not a probe per note.
            sql.push_str(" AND n.rid NOT IN (SELECT t.note FROM tags t WHERE t.key = ?)");
            args.push(Value::Text(DELETED_KEY.into()));
        }
        if let Some(pattern) = &self.pattern {
            let glob = if is_glob(pattern) {
                pattern.clone()
            } else {
                format!("{}*", glob_literal(pattern))
            };
            sql.push_str(" AND n.id GLOB ?");
            args.push(Value::Text(glob));
        }
        for filter in &self.tags {
            match &filter.value {
                Some(value) => {
                    sql.push_str(
                        " AND EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = ? AND t.value = ?)",
                    );
                    args.push(Value::Text(filter.key.clone()));
                    args.push(Value::Text(value.clone()));
                }
                None => {
                    sql.push_str(
                        " AND EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = ?)",
                    );
                    args.push(Value::Text(filter.key.clone()));
                }
            }
        }
        if let Some(since) = self.since {
            sql.push_str(" AND n.updated >= ?");
            args.push(Value::Integer(since.millis()));
        }
        if let Some(until) = self.until {
            sql.push_str(" AND n.updated <= ?");
            args.push(Value::Integer(until.millis()));
        }
    }
}

impl Db<'_> {
    pub fn list_notes(
        &self,
        filter: &NoteFilter,
        order: ListOrder,
        limit: Option<usize>,
    ) -> Result<Vec<Note>> {
        self.list_notes_from(filter, order, 0, limit)
    }

    /// `list_notes` skipping the first `offset` notes of the order.
    pub fn list_notes_from(
        &self,
        filter: &NoteFilter,
        order: ListOrder,
        offset: usize,
        limit: Option<usize>,
    ) -> Result<Vec<Note>> {
        let mut sql = format!("SELECT {NOTE_COLUMNS} FROM notes n WHERE 1");
        let mut args = Vec::new();
        filter.push_sql(&mut sql, &mut args);
        sql.push_str(match order {
            ListOrder::Updated => " ORDER BY n.updated DESC, n.id",
            ListOrder::Accessed => " ORDER BY n.accessed DESC, n.id",
            ListOrder::Created => " ORDER BY n.created DESC, n.id",
            ListOrder::Id => " ORDER BY n.id",
        });
        sql.push_str(" LIMIT ? OFFSET ?");
        args.push(Value::Integer(limit.map_or(-1, |l| l as i64)));
        args.push(Value::Integer(offset as i64));
        let mut stmt = self.conn.prepare(&sql)?;
        let notes = stmt
            .query_map(params_from_iter(args), note_from_row)?
            .map(|r| r.map(|(_, n)| n))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(notes)
    }

    /// How many notes pass `filter`.
    pub fn count_notes(&self, filter: &NoteFilter) -> Result<usize> {
        let mut sql = "SELECT count(*) FROM notes n WHERE 1".to_string();
        let mut args = Vec::new();
        filter.push_sql(&mut sql, &mut args);
        let count: i64 = self
            .conn
            .query_row(&sql, params_from_iter(args), |row| row.get(0))?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// User tag keys with their values, most used first, for completion.
    pub fn tag_catalog(&self, values_per_key: usize) -> Result<Vec<(String, Vec<String>)>> {
        let mut stmt = self.conn.prepare(
            "SELECT key, value, count(*) AS uses FROM tags
             WHERE substr(key, 1, 1) <> '_'
             GROUP BY key, value ORDER BY key, uses DESC, value",
        )?;
        let mut catalog: Vec<(String, Vec<String>)> = Vec::new();
        let rows = stmt.query_map([], |row| Ok((row.get::<_, String>(0)?, row.get(1)?)))?;
        for row in rows {
            let (key, value) = row?;
            match catalog.last_mut() {
                Some((k, values)) if *k == key => {
                    if values.len() < values_per_key {
                        values.push(value);
                    }
                }
                _ => catalog.push((key, vec![value])),
            }
        }
        Ok(catalog)
    }

    /// Changes whenever another connection commits to the database.
    pub fn data_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA data_version", [], |row| row.get(0))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_literal_escapes_metacharacters() {
        assert_eq!(glob_literal("a*b?[c"), "a[*]b[?][[]c");
    }
}

/// A keyword or vector match inside a part or an archived version,
/// reported against its note.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubHit {
    pub rid: i64,
    /// Part number, or version offset (1 = previous).
    pub number: i64,
    pub score: f64,
}

impl Db<'_> {
    /// The notes among `rids` that pass `filter`, by rid.
    pub fn notes_passing(
        &self,
        rids: &[i64],
        filter: &NoteFilter,
    ) -> Result<std::collections::HashMap<i64, Note>> {
        let mut out = std::collections::HashMap::new();
        if rids.is_empty() {
            return Ok(out);
        }
        let mut sql = format!(
            "SELECT {NOTE_COLUMNS} FROM notes n WHERE n.rid IN (SELECT value FROM json_each(?))"
        );
        let mut args = vec![Value::Text(
            serde_json::to_string(rids).expect("ints serialise"),
        )];
        filter.push_sql(&mut sql, &mut args);
        let mut stmt = self.conn.prepare(&sql)?;
        for row in stmt.query_map(params_from_iter(args), note_from_row)? {
            let (rid, note) = row?;
            out.insert(rid, note);
        }
        Ok(out)
    }

    /// Cosine distances to the notes passing `filter`, nearest first.
    pub fn nearest_filtered(
        &self,
        query: &[f32],
        filter: &NoteFilter,
        k: usize,
    ) -> Result<Vec<(i64, f64)>> {
        if self.vector_space()?.is_none() {
            return Ok(Vec::new());
        }
        let mut sql = String::from("SELECT n.rid FROM notes n WHERE 1");
        let mut args = Vec::new();
        filter.push_sql(&mut sql, &mut args);
        sql.push_str(" ORDER BY n.rid");
        let rids = self
            .conn
            .prepare(&sql)?
            .query_map(params_from_iter(args), |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        self.nearest_among(super::VecKind::Note, query, &rids, k)
    }

    /// How many notes carry tag `key=value`.
    pub fn tag_count(&self, key: &str, value: &str) -> Result<i64> {
        Ok(self
            .conn
            .prepare_cached("SELECT count(*) FROM tags WHERE key = ?1 AND value = ?2")?
            .query_row([key, value], |r| r.get(0))?)
    }

    /// Rids of notes carrying tag `key=value`.
    pub fn rids_with_tag(&self, key: &str, value: &str, limit: usize) -> Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT note FROM tags WHERE key = ?1 AND value = ?2 LIMIT ?3")?;
        let rows = stmt
            .query_map(rusqlite::params![key, value, limit as i64], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        Ok(rows)
    }

    /// The offset (1 = previous) of the archived version with key `vid`.
    pub fn version_offset(&self, vid: i64) -> Result<Option<(i64, i64)>> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn
            .prepare_cached(
                "SELECT v.note, (SELECT count(*) FROM versions w WHERE w.note = v.note AND w.seq >= v.seq)
                 FROM versions v WHERE v.vid = ?1",
            )?
            .query_row([vid], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?)
    }
}
