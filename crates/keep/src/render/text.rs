//! Text forms shared by the command line, the browser and the MCP server:
//! the frontmatter view of a note, one-line listings, the first line of a
//! summary, and the labels of where a hit matched or how it was reached.
//! Colour (ANSI) only when the caller asks for it.

use keep_core::keeper::{NoteView, WriteStatus};
use keep_core::model::{Change, Edge, Note, Rating, keys};
use keep_core::recall::{Hit, Matched, Via};

pub use keep_commands::shapes::part_line;
use keep_commands::shapes::{LINE_CHARS, shorten};

/// Wraps text in ANSI colours, or leaves it alone.
#[derive(Clone, Copy)]
pub struct Painter {
    pub color: bool,
}

impl Painter {
    pub fn paint(&self, style: Style, text: &str) -> String {
        if !self.color || text.is_empty() {
            return text.to_string();
        }
        let code = match style {
            Style::Id => "1;36",
            Style::Dim => "2",
            Style::Key => "34",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

#[derive(Clone, Copy)]
pub enum Style {
    Id,
    Dim,
    Key,
}

/// The date a listing shows: when the note's state was written, or, for a
/// note dated otherwise (`put --at`, a transcript), when it happened.
pub fn listed_date(note: &Note) -> String {
    if dated_otherwise(note) {
        format!("{} (at {})", note.updated.short(), note.at.short())
    } else {
        note.updated.short()
    }
}

/// Whether a note's event time says more than its store times: it lies
/// more than a minute from both when it was created and last written.
fn dated_otherwise(note: &Note) -> bool {
    const MINUTE: i64 = 60_000;
    (note.at.millis() - note.updated.millis()).abs() > MINUTE
        && (note.at.millis() - note.created.millis()).abs() > MINUTE
}

/// `ID  DATE  first line` (with a score, and a remark, when given).
pub fn note_line(note: &Note, score: Option<f64>, remark: &str, painter: Painter) -> String {
    let first = display_line(note);
    let first = if first.is_empty() && note.tags.contains_key(keys::STUB) {
        painter.paint(Style::Dim, "(stub)")
    } else {
        first
    };
    let id = painter.paint(Style::Id, &note.id);
    let date = painter.paint(Style::Dim, &listed_date(note));
    let deleted = match (
        note.tags.contains_key(keys::DELETED),
        note.tags.first(keys::DELETED_REASON),
    ) {
        (false, _) => String::new(),
        (true, None) => "(in the trash)".to_string(),
        (true, Some(why)) => format!("(in the trash: {why})"),
    };
    let remark = [deleted.as_str(), remark]
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| format!("  {}", painter.paint(Style::Dim, r)))
        .collect::<String>();
    match score {
        Some(s) => {
            let s = painter.paint(Style::Dim, &format!("{s:.4}"));
            format!("{id}  {date}  {s}  {first}{remark}")
        }
        None => format!("{id}  {date}  {first}{remark}"),
    }
}

/// The word for what a write did: `created`, `updated`, `unchanged`,
/// `duplicate` or `possible update`.
/// What a write redacted from one note, as one line: `ID: 2 secrets
/// redacted: aws-access-key 3f2a in the text, password 91bc in part 2`.
pub fn redaction_line(id: &str, found: &[keep_core::model::secrets::Redaction]) -> String {
    let each: Vec<String> = found
        .iter()
        .map(|r| {
            let the = match r.place.as_str() {
                "text" | "summary" | "description" | "title" | "transcript" => "the ",
                _ => "",
            };
            format!("{} {} in {the}{}", r.kind, r.fingerprint, r.place)
        })
        .collect();
    let count = match found.len() {
        1 => "1 secret".to_string(),
        n => format!("{n} secrets"),
    };
    format!("{id}: {count} redacted: {}", each.join(", "))
}

pub fn status_word(status: WriteStatus) -> &'static str {
    match status {
        WriteStatus::Created => "created",
        WriteStatus::Updated => "updated",
        WriteStatus::Unchanged => "unchanged",
        WriteStatus::Duplicate => "duplicate",
        WriteStatus::PossibleUpdate => "possible update",
    }
}

/// What a version changed, in a few words: `created`, `summary`,
/// `content`, `tags +k=v -k=w`, joined with `; `; `no change` otherwise.
pub fn change_label(change: &Change) -> String {
    if change.created {
        return "created".into();
    }
    let mut parts = Vec::new();
    if change.content {
        parts.push("content".to_string());
    }
    if change.summary {
        parts.push("summary".to_string());
    }
    let tags: Vec<String> = change
        .tags_added
        .pairs()
        .map(|(k, v)| format!("+{k}={v}"))
        .chain(
            change
                .tags_removed
                .pairs()
                .map(|(k, v)| format!("-{k}={v}")),
        )
        .collect();
    if !tags.is_empty() {
        parts.push(format!("tags {}", tags.join(" ")));
    }
    if parts.is_empty() {
        return "no change".into();
    }
    parts.join("; ")
}

/// Where inside its note a hit matched: `@P{2}` or `@V{1}`.
pub fn matched_label(matched: &Matched) -> String {
    match matched {
        Matched::Part {
            part,
            section: Some(section),
        } => format!("@P{{{part}}} {section}"),
        Matched::Part {
            part,
            section: None,
        } => format!("@P{{{part}}}"),
        Matched::Version { version } => format!("@V{{{version}}}"),
    }
}

/// A part shown beside a part found: `    @P{3} alice: text`, on one line.
pub fn neighbour_line(n: &keep_core::recall::Neighbour) -> String {
    let text: String = n
        .text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(NEIGHBOUR_CHARS)
        .collect();
    format!("    @P{{{}}} {}", n.part, printable(&text))
}

/// `text` with control characters shown as `?`, so what a note (or a
/// request) says cannot drive the terminal it is printed on.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// The colours `Painter` gives, the only escape sequences text output
/// keeps: SGR with these parameters.
const OWN_STYLES: [&str; 5] = ["0", "1;36", "2", "34", ""];

/// `text` made inert for a terminal: every control character but a line
/// break and a tab is shown as `\xNN` (a carriage return before a line
/// break is dropped), so text that came from a note, a file or a web page
/// cannot move the cursor, clear the screen, set the clipboard (OSC 52),
/// hide a link (OSC 8) or retitle the window, and what it tried is seen;
/// keep's own colours (SGR sequences of `Painter`) are kept.
pub fn inert(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let len = c.len_utf8();
        if c == '\x1b'
            && let Some(sequence) = own_colour(rest)
        {
            out.push_str(sequence);
            rest = &rest[sequence.len()..];
            continue;
        }
        match c {
            '\n' | '\t' => out.push(c),
            '\r' if rest[len..].starts_with('\n') => {}
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => out.push(c),
        }
        rest = &rest[len..];
    }
    out
}

/// The SGR sequence `Painter` writes at the start of `text`, if it is one.
fn own_colour(text: &str) -> Option<&str> {
    let body = text.strip_prefix("\x1b[")?;
    let end = body.find('m')?;
    OWN_STYLES
        .contains(&&body[..end])
        .then(|| &text[..2 + end + 1])
}

/// What made a hit's score, on one indented line: `    keyword 0.312 +
/// meaning 0.520 × recency 0.97` (factors of 1 left out).
pub fn explanation_line(why: &keep_core::recall::Explanation) -> String {
    if let Some(reached) = &why.reached_by {
        return format!("    reached by {}", printable(reached));
    }
    let mut line = format!(
        "    keyword {:.3} + meaning {:.3}",
        why.keyword, why.meaning
    );
    let factors = [
        ("recency", why.recency),
        ("feedback", why.feedback),
        ("importance", why.importance),
        ("superseded", why.superseded),
        ("time", why.time),
    ];
    for (name, factor) in factors {
        if (factor - 1.0).abs() > 1e-9 {
            line.push_str(&format!(" × {name} {factor:.2}"));
        }
    }
    if let Some(reply) = &why.credited_from {
        line.push_str(&format!("; credited from {}", printable(reply)));
    }
    line
}

/// Characters of a neighbouring part a listing shows.
const NEIGHBOUR_CHARS: usize = 200;

/// How deep recall reached a note: `via author of ID`.
pub fn via_label(via: &Via) -> String {
    format!("via {} of {}", via.link, via.from)
}

/// The remark after a hit in a listing: `[in @P{2}]` or
/// `[via author of ID, hop 1]`; empty for a plain hit.
pub fn hit_remark(hit: &Hit) -> String {
    if let Some(via) = &hit.via {
        return format!("[{}, hop {}]", via_label(via), via.hop);
    }
    if let Some(part) = &hit.part {
        let said = [part.speaker.as_deref(), part.said_at.as_deref()];
        let said: Vec<&str> = said.into_iter().flatten().collect();
        return match said.is_empty() {
            true => String::new(),
            false => format!("[{}]", said.join(", ")),
        };
    }
    match &hit.matched {
        Some(m) => format!("[in {}]", matched_label(m)),
        None => String::new(),
    }
}

/// A note as YAML frontmatter (id, tags, edges, versions, parts, dates)
/// followed by its summary; coloured for a terminal when `color`.
pub fn view_text(view: &NoteView, color: bool) -> String {
    let painter = Painter { color };
    let key = |k: &str| painter.paint(Style::Key, k);
    let mut lines: Vec<String> = vec!["---".into()];
    lines.push(format!(
        "{}: {}",
        key("id"),
        painter.paint(Style::Id, &yaml(&view.note.id))
    ));
    if view.version != 0 {
        lines.push(format!("{}: {}", key("version"), view.version));
    }
    if let Some(part) = &view.part {
        lines.push(format!("{}: {}", key("part"), part.number));
    }
    if !view.note.tags.is_empty() {
        lines.push(format!("{}:", key("tags")));
        for k in view.note.tags.keys() {
            lines.push(format!(
                "  {}: {}",
                key(&yaml(k)),
                yaml_values(view.note.tags.values(k))
            ));
        }
    }
    let edges = edge_lines(&view.edges, &view.inverse_edges);
    if !edges.is_empty() {
        lines.push(format!("{}:", key("edges")));
        for (k, values) in edges {
            lines.push(format!(
                "  {}: {}",
                key(&yaml(&k)),
                yaml_values(values.iter().map(String::as_str))
            ));
        }
    }
    if !view.replaced_by.is_empty() {
        lines.push(format!(
            "{}: {}",
            key("replaced-by"),
            yaml(&format!("{} (current)", view.replaced_by.join(" -> ")))
        ));
    }
    if !view.replaces.is_empty() {
        lines.push(format!(
            "{}: {}",
            key("replaces"),
            yaml(&view.replaces.join(" -> "))
        ));
    }
    if view.rating != Rating::default() {
        lines.push(format!(
            "{}: {}",
            key("rated"),
            yaml(&format!(
                "{} useful, {} wrong",
                view.rating.useful, view.rating.wrong
            ))
        ));
    }
    if view.version == 0 && !view.history.is_empty() {
        lines.push(format!("{}:", key("versions")));
        for (offset, v) in &view.history {
            let text = format!("{}  {}", v.updated.short(), first_line(&v.summary));
            lines.push(format!("  {offset}: {}", yaml(&text)));
        }
    }
    if view.part.is_none() && !view.parts.is_empty() {
        lines.push(format!("{}:", key("parts")));
        for p in &view.parts {
            lines.push(format!("  {}: {}", p.number, yaml(&part_line(&p.summary))));
        }
    }
    if dated_otherwise(&view.note) {
        lines.push(format!("{}: {}", key("at"), view.note.at));
    }
    if let Some(until) = view.until {
        lines.push(format!("{}: {}", key("until"), until));
    }
    lines.push(format!("{}: {}", key("created"), view.note.created));
    lines.push(format!("{}: {}", key("updated"), view.note.updated));
    lines.push("---".into());
    let body = match &view.part {
        Some(part) => &part.summary,
        None => &view.note.summary,
    };
    if !body.is_empty() {
        lines.push(body.clone());
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// Outgoing edges by key, then incoming edges by inverse name.
fn edge_lines(out: &[Edge], inverse: &[Edge]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut push = |k: &str, v: &str| match groups.iter_mut().find(|(g, _)| g == k) {
        Some((_, values)) => values.push(v.to_string()),
        None => groups.push((k.to_string(), vec![v.to_string()])),
    };
    for e in out {
        push(&e.key, &e.target);
    }
    for e in inverse {
        push(&e.inverse, &e.source);
    }
    groups
}

/// How a note reads in a listing: its title when it has one, then the
/// start of its summary (unless the summary starts with the title, or
/// with the title as a Markdown heading), or the first line of the
/// summary; shortened.
pub fn display_line(note: &Note) -> String {
    let Some(title) = note
        .tags
        .first("title")
        .map(str::trim)
        .filter(|t| !t.is_empty())
    else {
        return first_line(&note.summary);
    };
    let summary = first_line(after_heading(&note.summary, title));
    if summary.is_empty() || summary.starts_with(title) {
        return shorten(&format!(
            "{title}{}",
            summary.strip_prefix(title).unwrap_or("")
        ));
    }
    shorten(&format!("{title} — {summary}"))
}

/// The summary after its first line when that line is `title` as a
/// Markdown heading (`# Title`), else the whole summary.
fn after_heading<'a>(summary: &'a str, title: &str) -> &'a str {
    let text = summary.trim_start();
    let first = text.lines().next().unwrap_or("");
    let heading = first.trim_start_matches('#');
    if heading.len() < first.len() && heading.trim() == title {
        &text[first.len()..]
    } else {
        summary
    }
}

/// The first line of a summary, shortened for listings.
pub fn first_line(summary: &str) -> String {
    first_line_of(summary, LINE_CHARS)
}

/// The first line of a summary that is not blank, at most `most`
/// characters (the last a `…` when it is cut).
pub fn first_line_of(summary: &str, most: usize) -> String {
    let line = summary
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() > most {
        let cut: String = line.chars().take(most.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    } else {
        line.to_string()
    }
}

/// A YAML scalar: plain when safe, double-quoted (JSON escaping) otherwise.
pub fn yaml(text: &str) -> String {
    const INDICATORS: &[char] = &[
        '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@',
        '`',
    ];
    let needs_quotes = text.is_empty()
        || text.starts_with(INDICATORS)
        || text.starts_with(char::is_whitespace)
        || text.ends_with(char::is_whitespace)
        || text.contains(": ")
        || text.contains(" #")
        || text.ends_with(':')
        || text.chars().any(char::is_control)
        || matches!(text, "true" | "false" | "null" | "~" | "yes" | "no")
        || text.parse::<f64>().is_ok();
    if needs_quotes {
        serde_json::to_string(text).expect("strings serialise")
    } else {
        text.to_string()
    }
}

/// One value plain, several as a flow sequence.
fn yaml_values<'a>(values: impl Iterator<Item = &'a str>) -> String {
    let values: Vec<&str> = values.collect();
    if values.len() == 1 {
        return yaml(values[0]);
    }
    let items: Vec<String> = values
        .iter()
        .map(|v| {
            if v.contains([',', '[', ']', '{', '}']) {
                serde_json::to_string(v).expect("strings serialise")
            } else {
                yaml(v)
            }
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// Quotes text for a shell command line when it needs it.
pub fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-%+=:,@".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// How far a replica trails the primary, for people: "up to date", "at
/// most 0.4 s behind", or "lag unknown".
pub fn replica_lag(lag_seconds: Option<f64>) -> String {
    match lag_seconds {
        Some(s) if s <= 0.0 => "up to date".into(),
        Some(s) => format!("at most {s:.1} s behind"),
        None => "lag unknown".into(),
    }
}

/// A replica's state in one clause: whether it takes reads, and how far
/// behind it is or why it is skipped.
pub fn replica_clause(server: &str, lag_seconds: Option<f64>, skipped: Option<&str>) -> String {
    match skipped {
        None => format!(
            "replica {server} takes reads ({})",
            replica_lag(lag_seconds)
        ),
        Some(why) => format!("replica {server} SKIPPED: {why}"),
    }
}

pub use keep_core::model::size::human_bytes;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heading_that_repeats_the_title_is_not_shown_twice() {
        let summary = "# Store layer design\n\nThe store keeps one database.";
        assert_eq!(
            first_line(after_heading(summary, "Store layer design")),
            "The store keeps one database."
        );
        assert_eq!(after_heading(summary, "Another title"), summary);
        let plain = "Store layer design is done";
        assert_eq!(after_heading(plain, "Store layer design"), plain);
    }

    #[test]
    fn text_from_notes_cannot_drive_the_terminal() {
        let hostile = "a\x1b]52;c;ZXZpbA==\x07b\x1b[2Jc\u{9b}31md\re\x08f\x1b]8;;http://x\x07g\x1b]8;;\x07\r\nh\ti";
        let shown = inert(hostile);
        assert_eq!(
            shown,
            "a\\x1b]52;c;ZXZpbA==\\x07b\\x1b[2Jc\\x9b31md\\x0de\\x08f\\x1b]8;;http://x\\x07g\\x1b]8;;\\x07\nh\ti"
        );
        let painted = Painter { color: true }.paint(Style::Id, "id");
        assert_eq!(inert(&painted), painted);
        assert_eq!(inert("\x1b[8mhidden\x1b[0m"), "\\x1b[8mhidden\x1b[0m");
    }

    #[test]
    fn yaml_quotes_only_when_needed() {
        assert_eq!(yaml("plain words"), "plain words");
        assert_eq!(yaml("%2cf24dba5fb0"), "\"%2cf24dba5fb0\"");
        assert_eq!(yaml("a: b"), "\"a: b\"");
        assert_eq!(yaml("file:///tmp/x.md"), "file:///tmp/x.md");
        assert_eq!(yaml("42"), "\"42\"");
        assert_eq!(yaml(""), "\"\"");
    }

    #[test]
    fn first_line_skips_blank_lines_and_shortens() {
        assert_eq!(first_line("\n\n  hello\nworld"), "hello");
        let long = "x".repeat(200);
        assert_eq!(first_line(&long).chars().count(), LINE_CHARS);
    }

    #[test]
    fn a_first_line_is_cut_at_a_character_boundary() {
        assert_eq!(first_line_of("\n  héllo wörld\nnext", 6), "héllo…");
        assert_eq!(first_line_of("short", 10), "short");
    }
}
