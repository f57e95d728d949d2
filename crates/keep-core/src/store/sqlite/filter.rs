//! Note filters pushed into SQL, so tag filters apply before ranking and
//! limits.

use rusqlite::types::Value;

use crate::model::{Expired, NoteFilter, keys};

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

/// Appends `AND ...` clauses of `filter` over alias `n` and their parameters.
pub(super) fn push_filter_sql(filter: &NoteFilter, sql: &mut String, args: &mut Vec<Value>) {
    let explicit_system = filter
        .pattern
        .as_deref()
        .is_some_and(|p| p.starts_with('.'));
    if !filter.include_system && !explicit_system {
        sql.push_str(" AND substr(n.id, 1, 1) <> '.'");
    }
    let asks_deleted = filter.tags.iter().any(|t| t.key == keys::DELETED);
    if !filter.include_system && !asks_deleted {
        // One set built from the (key, value) index, not a probe per note.
        sql.push_str(" AND n.rid NOT IN (SELECT t.note FROM tags t WHERE t.key = ?)");
        args.push(Value::Text(keys::DELETED.into()));
    }
    push_expiry_sql(filter, sql, args);
    if filter.hide_superseded {
        sql.push_str(" AND n.id NOT IN (SELECT e.target FROM edges e WHERE e.key = ?)");
        args.push(Value::Text(keys::SUPERSEDES.into()));
    }
    if let Some(pattern) = &filter.pattern {
        let glob = if is_glob(pattern) {
            pattern.clone()
        } else {
            format!("{}*", glob_literal(pattern))
        };
        sql.push_str(" AND n.id GLOB ?");
        args.push(Value::Text(glob));
    }
    for tag in &filter.tags {
        match &tag.value {
            Some(value) => {
                sql.push_str(
                    " AND EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = ? AND t.value = ?)",
                );
                args.push(Value::Text(tag.key.clone()));
                args.push(Value::Text(value.clone()));
            }
            None => {
                sql.push_str(
                    " AND EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = ?)",
                );
                args.push(Value::Text(tag.key.clone()));
            }
        }
    }
    if let Some(since) = filter.since {
        sql.push_str(" AND n.updated >= ?");
        args.push(Value::Integer(since.millis()));
    }
    if let Some(until) = filter.until {
        sql.push_str(" AND n.updated <= ?");
        args.push(Value::Integer(until.millis()));
    }
}

/// Expired notes: `_expires` values are RFC 3339 in UTC with milliseconds,
/// so they compare as text.
fn push_expiry_sql(filter: &NoteFilter, sql: &mut String, args: &mut Vec<Value>) {
    let Some(as_of) = filter.as_of else {
        return;
    };
    let clause = match filter.expired {
        Expired::Hidden if !filter.include_system => "NOT IN",
        Expired::Only => "IN",
        Expired::Hidden | Expired::Included => return,
    };
    sql.push_str(&format!(
        " AND n.rid {clause} (SELECT t.note FROM tags t WHERE t.key = ? AND t.value <= ?)"
    ));
    args.push(Value::Text(keys::EXPIRES.into()));
    args.push(Value::Text(as_of.to_string()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_literal_escapes_metacharacters() {
        assert_eq!(glob_literal("a*b?[c"), "a[*]b[?][[]c");
    }
}
