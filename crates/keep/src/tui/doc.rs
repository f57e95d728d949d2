//! The preview as a document: the selected note laid out as lines wrapped
//! to the pane's width, each line knowing what it belongs to (the text, an
//! edge, a version, a part, a similar note). `update` moves the preview's
//! cursor and acts on these lines; `view` draws them: both read this one
//! layout, so what is highlighted is what `Enter` acts on.

use unicode_width::UnicodeWidthStr;

use super::diff::{self, Change};
use super::note::Preview;

/// What a piece of text is, for the theme to colour it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Text,
    Muted,
    Heading,
    Id,
    Tag,
    Added,
    Removed,
}

/// What a line of the preview belongs to, and so what `Enter` does on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// The note itself: Enter pipes its text to the pager.
    Note,
    Edge(usize),
    /// An archived version: `@V{N}`.
    Version(i64),
    /// A part, 0-based.
    Part(usize),
    Similar(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocLine {
    pub item: Item,
    pub spans: Vec<(String, Role)>,
}

impl DocLine {
    fn blank() -> DocLine {
        DocLine {
            item: Item::Note,
            spans: Vec::new(),
        }
    }

    fn heading(text: &str) -> DocLine {
        DocLine {
            item: Item::Note,
            spans: vec![(text.to_string(), Role::Heading)],
        }
    }

    /// The line's text, without styles.
    pub fn text(&self) -> String {
        self.spans.iter().map(|(s, _)| s.as_str()).collect()
    }
}

/// The preview of `p` as lines at most `width` columns wide.
pub fn lines(p: &Preview, width: usize) -> Vec<DocLine> {
    let width = width.max(8);
    let mut out = Vec::new();
    header(p, &mut out, width);
    body(p, &mut out, width);
    tags(p, &mut out, width);
    edges(p, &mut out, width);
    versions(p, &mut out, width);
    parts(p, &mut out, width);
    similar(p, &mut out, width);
    out
}

fn header(p: &Preview, out: &mut Vec<DocLine>, width: usize) {
    let text = if p.version == 0 {
        let older = match p.versions {
            0 => "no older versions".to_string(),
            1 => "1 older version ([)".to_string(),
            n => format!("{n} older versions ([)"),
        };
        format!("updated {}{} · {older}", p.date, written_by(p))
    } else {
        format!(
            "version @V{{{}}} of {}, saved {}{} · changes up to the current one (] newer)",
            p.version,
            p.versions,
            p.date,
            written_by(p)
        )
    };
    push_wrapped(out, Item::Note, words(&text, Role::Muted), width, 0);
}

/// ` by AUTHOR (ORIGIN)`: who wrote the state shown and where its text
/// came from (`_agent`, `_origin`), when the note says.
fn written_by(p: &Preview) -> String {
    let tag = |key: &str| {
        p.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    match (
        tag(keep_core::model::keys::AGENT),
        tag(keep_core::model::keys::ORIGIN),
    ) {
        (Some(author), Some(origin)) => format!(" by {author} ({origin})"),
        (Some(author), None) => format!(" by {author}"),
        (None, Some(origin)) => format!(" ({origin})"),
        (None, None) => String::new(),
    }
}

fn body(p: &Preview, out: &mut Vec<DocLine>, width: usize) {
    match &p.current {
        Some(current) => {
            let tokens = diff::words(&p.summary, current)
                .into_iter()
                .map(|c| match c {
                    Change::Same(w) => (w.to_string(), Role::Text),
                    Change::Added(w) => (w.to_string(), Role::Added),
                    Change::Removed(w) => (w.to_string(), Role::Removed),
                })
                .collect();
            push_wrapped(out, Item::Note, tokens, width, 0);
            if p.summary.split_whitespace().eq(current.split_whitespace()) {
                push_wrapped(
                    out,
                    Item::Note,
                    words("(the text is the same as the current one)", Role::Muted),
                    width,
                    0,
                );
            }
            tag_changes(p, out, width);
        }
        None => {
            for line in p.summary.lines() {
                if line.trim().is_empty() {
                    out.push(DocLine::blank());
                } else {
                    push_wrapped(out, Item::Note, words(line, Role::Text), width, 0);
                }
            }
        }
    }
}

/// For an archived version: the user tags the current version added and
/// removed since it.
fn tag_changes(p: &Preview, out: &mut Vec<DocLine>, width: usize) {
    if p.tags_added.is_empty() && p.tags_removed.is_empty() {
        return;
    }
    let mut tokens = vec![("tags since:".to_string(), Role::Muted)];
    tokens.extend(p.tags_added.iter().map(|t| (format!("+{t}"), Role::Added)));
    tokens.extend(
        p.tags_removed
            .iter()
            .map(|t| (format!("−{t}"), Role::Removed)),
    );
    out.push(DocLine::blank());
    push_wrapped(out, Item::Note, tokens, width, 2);
}

fn tags(p: &Preview, out: &mut Vec<DocLine>, width: usize) {
    if p.tags.is_empty() {
        return;
    }
    out.push(DocLine::blank());
    out.push(DocLine::heading("tags"));
    for (k, v) in &p.tags {
        let system = k.starts_with('_');
        let (key_role, value_role) = if system {
            (Role::Muted, Role::Muted)
        } else {
            (Role::Tag, Role::Text)
        };
        let spans = vec![(format!("  {k}"), key_role), (format!("={v}"), value_role)];
        out.push(clipped(Item::Note, spans, width));
    }
}

fn edges(p: &Preview, out: &mut Vec<DocLine>, width: usize) {
    if p.edges.is_empty() {
        return;
    }
    out.push(DocLine::blank());
    out.push(DocLine::heading("edges (Enter follows)"));
    for (i, (label, target)) in p.edges.iter().enumerate() {
        let spans = vec![
            (format!("  {label} → "), Role::Text),
            (target.clone(), Role::Id),
        ];
        out.push(clipped(Item::Edge(i), spans, width));
    }
}

fn versions(p: &Preview, out: &mut Vec<DocLine>, width: usize) {
    if p.history.is_empty() {
        return;
    }
    out.push(DocLine::blank());
    out.push(DocLine::heading("versions (Enter shows one, [ ] step)"));
    for (n, date, what) in &p.history {
        let marker = if *n == p.version { "▸" } else { " " };
        let spans = vec![
            (format!(" {marker}@V{{{n}}} {date}  "), Role::Muted),
            (what.clone(), Role::Text),
        ];
        out.push(clipped(Item::Version(*n), spans, width));
    }
}

fn parts(p: &Preview, out: &mut Vec<DocLine>, width: usize) {
    if p.parts.is_empty() {
        return;
    }
    out.push(DocLine::blank());
    out.push(DocLine::heading(&format!(
        "parts ({}; Enter opens one in the pager)",
        p.parts.len()
    )));
    for (i, text) in p.parts.iter().enumerate() {
        let spans = vec![
            (format!("  @P{{{}}} ", i + 1), Role::Muted),
            (keep_core::part_line(text), Role::Text),
        ];
        out.push(clipped(Item::Part(i), spans, width));
    }
}

fn similar(p: &Preview, out: &mut Vec<DocLine>, width: usize) {
    let Some(similar) = &p.similar else {
        return;
    };
    out.push(DocLine::blank());
    out.push(DocLine::heading("similar (Enter goes there)"));
    if similar.is_empty() {
        out.push(DocLine {
            item: Item::Note,
            spans: vec![("  none".into(), Role::Muted)],
        });
    }
    for (i, row) in similar.iter().enumerate() {
        let spans = vec![
            (
                format!("  {} ", row.title.as_deref().unwrap_or(&row.id)),
                Role::Id,
            ),
            (row.line.clone(), Role::Text),
        ];
        out.push(clipped(Item::Similar(i), spans, width));
    }
}

fn words(text: &str, role: Role) -> Vec<(String, Role)> {
    text.split_whitespace()
        .map(|w| (w.to_string(), role))
        .collect()
}

/// One line of `spans`, cut with `…` when wider than `width`.
fn clipped(item: Item, spans: Vec<(String, Role)>, width: usize) -> DocLine {
    let mut used = 0;
    let mut kept = Vec::with_capacity(spans.len());
    for (text, role) in spans {
        let w = text.width();
        if used + w <= width {
            used += w;
            kept.push((text, role));
            continue;
        }
        let room = width.saturating_sub(used + 1);
        kept.push((format!("{}…", take_width(&text, room)), role));
        break;
    }
    DocLine { item, spans: kept }
}

/// The longest start of `text` at most `width` columns wide.
pub fn take_width(text: &str, width: usize) -> &str {
    let mut used = 0;
    for (i, c) in text.char_indices() {
        used += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used > width {
            return &text[..i];
        }
    }
    text
}

/// Lays `tokens` (words) out in lines of at most `width` columns, a space
/// between words and `indent` spaces before every line after the first; a
/// word wider than a line is cut into pieces.
fn push_wrapped(
    out: &mut Vec<DocLine>,
    item: Item,
    tokens: Vec<(String, Role)>,
    width: usize,
    indent: usize,
) {
    let mut line: Vec<(String, Role)> = Vec::new();
    let mut used = 0;
    // Ends the line and starts the next with the indent.
    let new_line = |out: &mut Vec<DocLine>, line: &mut Vec<(String, Role)>, used: &mut usize| {
        out.push(DocLine {
            item,
            spans: std::mem::take(line),
        });
        *used = 0;
        if indent > 0 {
            line.push((" ".repeat(indent), Role::Text));
            *used = indent;
        }
    };
    for (word, role) in tokens {
        let mut rest = word.as_str();
        while !rest.is_empty() {
            let w = rest.width();
            let gap = usize::from(used > 0);
            if used + gap + w <= width {
                if gap == 1 {
                    line.push((" ".into(), Role::Text));
                }
                line.push((rest.to_string(), role));
                used += gap + w;
                break;
            }
            if used > indent {
                new_line(out, &mut line, &mut used);
                continue;
            }
            let piece = take_width(rest, width.saturating_sub(used).max(1));
            let piece = if piece.is_empty() {
                &rest[..rest.chars().next().map_or(rest.len(), char::len_utf8)]
            } else {
                piece
            };
            line.push((piece.to_string(), role));
            rest = &rest[piece.len()..];
            new_line(out, &mut line, &mut used);
        }
    }
    if used > indent {
        out.push(DocLine { item, spans: line });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preview(summary: &str) -> Preview {
        Preview {
            id: "doc".into(),
            summary: summary.into(),
            date: "2026-11-20 10:00".into(),
            ..Preview::default()
        }
    }

    fn texts(lines: &[DocLine]) -> Vec<String> {
        lines.iter().map(DocLine::text).collect()
    }

    /// The lines from the first that starts with `start` on.
    fn from_line(lines: &[DocLine], start: &str) -> Vec<String> {
        texts(lines)
            .into_iter()
            .skip_while(|l| !l.starts_with(start))
            .collect()
    }

    #[test]
    fn the_header_says_who_wrote_the_note_and_where_its_text_came_from() {
        let mut p = preview("text");
        p.tags = vec![
            ("topic".into(), "sea".into()),
            ("_agent".into(), "planner/1.2".into()),
            ("_origin".into(), "agent".into()),
        ];
        let doc = lines(&p, 80);
        assert_eq!(
            doc[0].text(),
            "updated 2026-11-20 10:00 by planner/1.2 (agent) · no older versions"
        );
    }

    #[test]
    fn text_wraps_at_word_boundaries_within_the_width() {
        let doc = lines(&preview("one two three four five six seven"), 14);
        assert_eq!(
            from_line(&doc, "one"),
            vec!["one two three", "four five six", "seven"]
        );
        assert!(doc.iter().all(|l| l.text().width() <= 14), "{doc:?}");
    }

    #[test]
    fn a_word_wider_than_the_pane_is_cut_into_pieces() {
        let doc = lines(&preview("abcdefghijklmnopqrstuvwxyz"), 10);
        assert_eq!(
            from_line(&doc, "abc"),
            vec!["abcdefghij", "klmnopqrst", "uvwxyz"]
        );
    }

    #[test]
    fn every_part_has_a_line_of_its_own_that_knows_its_number() {
        let mut p = preview("A long manual.");
        p.parts = std::sync::Arc::new(
            (1..=40)
                .map(|i| format!("Section {i}\nmore text"))
                .collect(),
        );
        let doc = lines(&p, 60);
        let parts: Vec<&DocLine> = doc
            .iter()
            .filter(|l| matches!(l.item, Item::Part(_)))
            .collect();
        assert_eq!(parts.len(), 40);
        assert_eq!(parts[39].item, Item::Part(39));
        assert_eq!(parts[39].text(), "  @P{40} Section 40");
    }

    #[test]
    fn an_archived_version_shows_its_diff_and_the_tags_changed_since() {
        let mut p = preview("The lights were broken.");
        p.version = 1;
        p.versions = 2;
        p.current = Some("The lights were broken.".into());
        p.tags_added = vec!["status=fixed".into()];
        p.tags_removed = vec!["status=open".into()];
        let text = texts(&lines(&p, 80)).join("\n");
        assert!(text.contains("version @V{1} of 2"), "{text}");
        assert!(text.contains("the same as the current one"), "{text}");
        assert!(
            text.contains("tags since: +status=fixed −status=open"),
            "{text}"
        );
    }

    #[test]
    fn long_lines_are_clipped_not_wrapped_in_lists() {
        let mut p = preview("x");
        p.edges = vec![(
            "mentions".into(),
            "file:///a/very/long/path/to/somewhere".into(),
        )];
        let doc = lines(&p, 24);
        let edge = doc.iter().find(|l| l.item == Item::Edge(0)).unwrap();
        assert_eq!(edge.text().width(), 24);
        assert!(edge.text().ends_with('…'));
    }
}
