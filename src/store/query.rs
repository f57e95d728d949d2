//! Listing and keyword search with filters pushed into SQL, so tag filters
//! apply before ranking and limits.

use rusqlite::params_from_iter;
use rusqlite::types::Value;

use super::Db;
use super::notes::{NOTE_COLUMNS, note_from_row};
use crate::error::Result;
use crate::note::{Note, TagFilter};
use crate::time::Timestamp;

/// Which notes a listing or search may return.
#[derive(Debug, Clone, Default)]
pub struct NoteFilter {
    /// Id prefix, or a glob (`*`, `?`, `[...]`) when it contains one.
    pub pattern: Option<String>,
    /// Include dot-prefixed system notes.
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
    /// Appends `AND ...` clauses over alias `n` and their parameters.
    fn push_sql(&self, sql: &mut String, args: &mut Vec<Value>) {
        let explicit_system = self.pattern.as_deref().is_some_and(|p| p.starts_with('.'));
        if !self.include_system && !explicit_system {
            sql.push_str(" AND substr(n.id, 1, 1) <> '.'");
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

/// Turns free text into an FTS5 query: every word quoted, joined by OR, so
/// no user input is read as FTS5 syntax and more matching words rank higher.
pub fn fts_query(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{}\"", w.to_lowercase()))
        .collect();
    (!words.is_empty()).then(|| words.join(" OR "))
}

impl Db<'_> {
    pub fn list_notes(
        &self,
        filter: &NoteFilter,
        order: ListOrder,
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
        if let Some(limit) = limit {
            sql.push_str(" LIMIT ?");
            args.push(Value::Integer(limit as i64));
        }
        let mut stmt = self.conn.prepare(&sql)?;
        let notes = stmt
            .query_map(params_from_iter(args), note_from_row)?
            .map(|r| r.map(|(_, n)| n))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(notes)
    }

    /// BM25-ranked notes matching any word of `text`, best first.
    pub fn keyword_search(
        &self,
        text: &str,
        filter: &NoteFilter,
        limit: usize,
    ) -> Result<Vec<FtsHit>> {
        let Some(query) = fts_query(text) else {
            return Ok(Vec::new());
        };
        // Summary and tag matches count fully, full-text matches half.
        let mut sql = format!(
            "WITH hits AS (
                 SELECT rowid AS rid, -bm25(notes_fts, 4.0, 2.0) AS score
                 FROM notes_fts WHERE notes_fts MATCH ?1
                 UNION ALL
                 SELECT rowid, -0.5 * bm25(body_fts) FROM body_fts WHERE body_fts MATCH ?1
             )
             SELECT {NOTE_COLUMNS}, max(h.score) AS score
             FROM hits h JOIN notes n ON n.rid = h.rid WHERE 1"
        );
        let mut args = vec![Value::Text(query)];
        filter.push_sql(&mut sql, &mut args);
        sql.push_str(" GROUP BY n.rid ORDER BY score DESC, n.id LIMIT ?");
        args.push(Value::Integer(limit as i64));
        let mut stmt = self.conn.prepare(&sql)?;
        let hits = stmt
            .query_map(params_from_iter(args), |row| {
                let (rid, note) = note_from_row(row)?;
                let score: f64 = row.get(8)?;
                Ok(FtsHit { rid, note, score })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fts_query_quotes_every_word() {
        assert_eq!(
            fts_query("Hello, \"world\" AND near(").as_deref(),
            Some("\"hello\" OR \"world\" OR \"and\" OR \"near\"")
        );
        assert_eq!(fts_query("  ,, "), None);
    }

    #[test]
    fn glob_literal_escapes_metacharacters() {
        assert_eq!(glob_literal("a*b?[c"), "a[*]b[?][[]c");
    }
}
