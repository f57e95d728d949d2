//! Note filters pushed into SQL, written once for every database, so tag,
//! id and time filters apply before ranking and limits.

use super::dialect::Dialect;
use super::plain::Query;
use keep_model::{Expired, NoteFilter, Period, keys};

fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// Appends the `AND ...` clauses of `filter` over notes aliased `n`.
pub(super) fn push_filter(d: Dialect, filter: &NoteFilter, q: &mut Query) {
    let explicit_system = filter
        .pattern
        .as_deref()
        .is_some_and(|p| p.starts_with('.'));
    if !filter.include_system && !explicit_system {
        q.push(" AND substr(n.id, 1, 1) <> '.'");
    }
    let asks_deleted = filter.tags.iter().any(|t| t.key == keys::DELETED);
    if !filter.include_system && !asks_deleted {
        let key = q.arg(keys::DELETED);
        q.push(&format!(" AND {}", d.untagged(&key)));
    }
    push_expiry(d, filter, q);
    if filter.hide_superseded {
        let key = q.arg(keys::SUPERSEDES);
        match filter.held_at {
            Some(at) => {
                let at = q.arg(at.millis());
                q.push(&format!(
                    " AND NOT EXISTS (SELECT 1 FROM edges e JOIN notes s ON s.rid = e.source
                       WHERE e.target = n.id AND e.key = {key} AND s.event_at <= {at})"
                ));
            }
            None => q.push(&format!(" AND {}", d.not_edge_target(&key))),
        }
    }
    if let Some(at) = filter.held_at {
        let at = q.arg(at.millis());
        q.push(&format!(
            " AND (n.event_at <= {at} OR EXISTS (SELECT 1 FROM versions v WHERE v.note = n.rid AND v.event_at <= {at}))"
        ));
    }
    if let Some(period) = &filter.happened {
        push_happened(period, q);
    }
    if let Some(pattern) = &filter.pattern {
        let clause = if is_glob(pattern) {
            matches_glob(d, q, "n.id", pattern)
        } else {
            starts_with(d, q, "n.id", pattern)
        };
        q.push(&format!(" AND {clause}"));
    }
    for tag in &filter.tags {
        let key = q.arg(tag.key.as_str());
        match &tag.value {
            Some(value) => {
                let value = q.arg(value.as_str());
                q.push(&format!(
                    " AND EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = {key} AND t.value = {value})"
                ));
            }
            None => q.push(&format!(
                " AND EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = {key})"
            )),
        }
    }
    if !filter.origins.is_empty() {
        let key = q.arg(keys::ORIGIN);
        let values: Vec<String> = filter.origins.iter().map(|o| q.arg(o.as_str())).collect();
        q.push(&format!(
            " AND EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = {key} AND t.value IN ({}))",
            values.join(", ")
        ));
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

/// Notes whose state began within `period`, or whose text speaks of a
/// day within it (`_dates`, compared as `YYYY-MM-DD` text).
fn push_happened(period: &Period, q: &mut Query) {
    let mut own = Vec::new();
    let mut spoken = Vec::new();
    if let Some(from) = period.from {
        own.push(format!("n.event_at >= {}", q.arg(from.millis())));
        spoken.push(format!("t.value >= {}", q.arg(from.day())));
    }
    if let Some(until) = period.until {
        own.push(format!("n.event_at <= {}", q.arg(until.millis())));
        spoken.push(format!("t.value <= {}", q.arg(until.day())));
    }
    if own.is_empty() {
        return;
    }
    let key = q.arg(keys::DATES);
    q.push(&format!(
        " AND (({}) OR EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = {key} AND {}))",
        own.join(" AND "),
        spoken.join(" AND ")
    ));
}

/// Expired notes: `_expires` values are RFC 3339 in UTC with milliseconds,
/// so they compare as text.
fn push_expiry(d: Dialect, filter: &NoteFilter, q: &mut Query) {
    let Some(as_of) = filter.as_of else {
        return;
    };
    let negated = match filter.expired {
        Expired::Hidden if !filter.include_system => true,
        Expired::Only => false,
        Expired::Hidden | Expired::Included => return,
    };
    let key = q.arg(keys::EXPIRES);
    let at = q.arg(as_of.to_string());
    q.push(&format!(" AND {}", d.tagged_up_to(&key, &at, negated)));
}

/// Listings also hide stub notes (made by edges, with no text of their
/// own) unless system notes are asked for; recall still reaches them.
pub(super) fn push_listing(d: Dialect, filter: &NoteFilter, q: &mut Query) {
    let asks_stubs = filter.tags.iter().any(|t| t.key == keys::STUB);
    if !filter.include_system && !asks_stubs {
        let key = q.arg(keys::STUB);
        q.push(&format!(" AND {}", d.untagged(&key)));
    }
}

/// `column` matches the shell glob `glob`: bound as GLOB takes it on
/// SQLite, as an anchored regular expression on PostgreSQL.
pub(super) fn matches_glob(d: Dialect, q: &mut Query, column: &str, glob: &str) -> String {
    match d {
        Dialect::Sqlite => format!("{column} GLOB {}", q.arg(sqlite_glob(glob))),
        Dialect::Postgres => format!("{column} ~ {}", q.arg(glob_regex(glob))),
    }
}

/// `column` starts with `prefix`: a range of its index on SQLite.
pub(super) fn starts_with(d: Dialect, q: &mut Query, column: &str, prefix: &str) -> String {
    let start = q.arg(prefix);
    match d {
        Dialect::Sqlite => {
            let end = q.arg(format!("{prefix}\u{10FFFF}"));
            format!("{column} >= {start} AND {column} < {end}")
        }
        Dialect::Postgres => format!("starts_with({column}, {start})"),
    }
}

/// A shell glob as SQLite's GLOB reads it: a `[` that opens no class
/// matches itself, as it does in the regular expression PostgreSQL gets
/// (`glob_regex`), instead of making the pattern match nothing.
fn sqlite_glob(glob: &str) -> String {
    let chars: Vec<char> = glob.chars().collect();
    let mut out = String::with_capacity(glob.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == '[' && !opens_class(&chars[i + 1..]) {
            out.push_str("[[]");
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether the text after a `[` closes a class: a `]` after at least one
/// character (a `!` first does not count).
fn opens_class(rest: &[char]) -> bool {
    let skip = usize::from(rest.first() == Some(&'!'));
    rest.iter().skip(skip + 1).any(|&c| c == ']')
}

/// A shell glob (`*`, `?`, `[...]`, `[!...]`) as an anchored regular
/// expression; everything else matches itself.
fn glob_regex(glob: &str) -> String {
    let mut out = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            '[' => {
                let mut class = String::new();
                let mut raw = String::new();
                let mut closed = false;
                if chars.peek() == Some(&'!') {
                    chars.next();
                    class.push('^');
                    raw.push('!');
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
                    raw.push(d);
                }
                if closed {
                    out.push('[');
                    out.push_str(&class);
                    out.push(']');
                } else {
                    out.push_str("\\[");
                    out.push_str(&regex_literal(&raw));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_become_anchored_regular_expressions() {
        assert_eq!(glob_regex("file://*.txt"), "^file://.*\\.txt$");
        assert_eq!(glob_regex("a?c"), "^a.c$");
        assert_eq!(glob_regex("[!a]b"), "^[^a]b$");
        assert_eq!(glob_regex("x[y"), "^x\\[y$");
        assert_eq!(glob_regex("x[!]"), "^x\\[!\\]$");
        assert_eq!(glob_regex("(a)+"), "^\\(a\\)\\+$");
    }

    #[test]
    fn a_plain_pattern_is_a_prefix_and_a_glob_a_glob() {
        let filter = |pattern: &str| NoteFilter {
            pattern: Some(pattern.into()),
            include_system: true,
            ..NoteFilter::default()
        };
        let mut q = Query::default();
        push_filter(Dialect::Sqlite, &filter("notes/a*b"), &mut q);
        assert_eq!(q.sql, " AND n.id GLOB ?1");
        let mut q = Query::default();
        push_filter(Dialect::Sqlite, &filter("notes/[x"), &mut q);
        assert_eq!(q.sql, " AND n.id GLOB ?1");
        let mut q = Query::default();
        push_filter(Dialect::Postgres, &filter("notes/"), &mut q);
        assert_eq!(q.sql, " AND starts_with(n.id, ?1)");
        let mut q = Query::default();
        push_filter(Dialect::Sqlite, &filter("notes/"), &mut q);
        assert_eq!(q.sql, " AND n.id >= ?1 AND n.id < ?2");
    }

    #[test]
    fn a_bracket_that_opens_no_class_matches_itself_on_sqlite() {
        assert_eq!(sqlite_glob("notes/a["), "notes/a[[]");
        assert_eq!(sqlite_glob("notes/[ab]*"), "notes/[ab]*");
        assert_eq!(sqlite_glob("x[!]"), "x[[]!]");
        assert_eq!(sqlite_glob("x[]]"), "x[]]");
        assert_eq!(glob_regex("notes/a["), "^notes/a\\[$");
    }
}
