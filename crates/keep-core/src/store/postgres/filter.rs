//! Statements built at run time: their text and numbered parameters, and
//! note filters pushed into them (the same rules as the SQLite side).

use postgres::types::ToSql;

use super::Params;
use crate::model::{Expired, NoteFilter, keys};

/// A statement under construction.
#[derive(Default)]
pub(super) struct Query {
    pub sql: String,
    args: Vec<Box<dyn ToSql + Sync>>,
}

impl Query {
    pub fn new(sql: impl Into<String>) -> Self {
        Query {
            sql: sql.into(),
            args: Vec::new(),
        }
    }

    /// Adds a parameter; returns its placeholder (`$N`).
    pub fn arg(&mut self, value: impl ToSql + Sync + 'static) -> String {
        self.args.push(Box::new(value));
        format!("${}", self.args.len())
    }

    pub fn push(&mut self, text: &str) {
        self.sql.push_str(text);
    }

    pub fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.args.iter().map(|a| a.as_ref() as _).collect()
    }
}

/// Runs a built query's parameters as a slice.
pub(super) fn with_params<T>(q: &Query, f: impl FnOnce(&str, &Params<'_>) -> T) -> T {
    f(&q.sql, &q.params())
}

fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// A shell glob (`*`, `?`, `[...]`, `[!...]`) as an anchored regular
/// expression; everything else matches itself.
pub(super) fn glob_regex(glob: &str) -> String {
    let mut out = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            '[' => {
                let mut class = String::new();
                let mut closed = false;
                if chars.peek() == Some(&'!') {
                    chars.next();
                    class.push('^');
                }
                for d in chars.by_ref() {
                    if d == ']' && !(class.is_empty() || class == "^") {
                        closed = true;
                        break;
                    }
                    if d == '\\' {
                        class.push('\\');
                    }
                    class.push(d);
                }
                if closed {
                    out.push('[');
                    out.push_str(&class);
                    out.push(']');
                } else {
                    out.push_str("\\[");
                    out.push_str(&regex_literal(&class));
                }
            }
            other => out.push_str(&regex_literal(&other.to_string())),
        }
    }
    out.push('$');
    out
}

fn regex_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.^$|()[]{}*+?".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Appends `AND ...` clauses of `filter` over alias `n`.
pub(super) fn push_filter(filter: &NoteFilter, q: &mut Query) {
    let explicit_system = filter
        .pattern
        .as_deref()
        .is_some_and(|p| p.starts_with('.'));
    if !filter.include_system && !explicit_system {
        q.push(" AND left(n.id, 1) <> '.'");
    }
    let asks_deleted = filter.tags.iter().any(|t| t.key == keys::DELETED);
    if !filter.include_system && !asks_deleted {
        let key = q.arg(keys::DELETED.to_string());
        q.push(&format!(
            " AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = {key})"
        ));
    }
    push_expiry(filter, q);
    if filter.hide_superseded {
        let key = q.arg(keys::SUPERSEDES.to_string());
        q.push(&format!(
            " AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.target = n.id AND e.key = {key})"
        ));
    }
    if let Some(pattern) = &filter.pattern {
        if is_glob(pattern) {
            let re = q.arg(glob_regex(pattern));
            q.push(&format!(" AND n.id ~ {re}"));
        } else {
            let prefix = q.arg(pattern.clone());
            q.push(&format!(" AND starts_with(n.id, {prefix})"));
        }
    }
    for tag in &filter.tags {
        let key = q.arg(tag.key.clone());
        match &tag.value {
            Some(value) => {
                let value = q.arg(value.clone());
                q.push(&format!(
                    " AND EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = {key} AND t.value = {value})"
                ));
            }
            None => q.push(&format!(
                " AND EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = {key})"
            )),
        }
    }
    if let Some(since) = filter.since {
        let at = q.arg(since.millis());
        q.push(&format!(" AND n.updated >= {at}"));
    }
    if let Some(until) = filter.until {
        let at = q.arg(until.millis());
        q.push(&format!(" AND n.updated <= {at}"));
    }
}

/// Expired notes: `_expires` values are RFC 3339 in UTC with milliseconds,
/// so they compare as text.
fn push_expiry(filter: &NoteFilter, q: &mut Query) {
    let Some(as_of) = filter.as_of else {
        return;
    };
    let clause = match filter.expired {
        Expired::Hidden if !filter.include_system => "NOT EXISTS",
        Expired::Only => "EXISTS",
        Expired::Hidden | Expired::Included => return,
    };
    let key = q.arg(keys::EXPIRES.to_string());
    let at = q.arg(as_of.to_string());
    q.push(&format!(
        " AND {clause} (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = {key} AND t.value <= {at})"
    ));
}

/// Listings also hide stub notes unless system notes are asked for.
pub(super) fn push_listing(filter: &NoteFilter, q: &mut Query) {
    let asks_stubs = filter.tags.iter().any(|t| t.key == keys::STUB);
    if !filter.include_system && !asks_stubs {
        let key = q.arg(keys::STUB.to_string());
        q.push(&format!(
            " AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = {key})"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_become_anchored_regular_expressions() {
        assert_eq!(glob_regex("file://*.txt"), "^file://.*\\.txt$");
        assert_eq!(glob_regex("a?c"), "^a.c$");
        assert_eq!(glob_regex("[!a]b"), "^[^a]b$");
        assert_eq!(glob_regex("x[y"), "^x\\[y$");
        assert_eq!(glob_regex("(a)+"), "^\\(a\\)\\+$");
    }
}
