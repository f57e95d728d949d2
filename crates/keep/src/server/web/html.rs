//! Escaping, links and the small pieces every view is made of. Notes are
//! untrusted: every text a note holds goes through `esc`, and every link
//! to a note is a path of this server with the id percent-encoded, so no
//! id or tag value can become markup, a script or another scheme's link.

use std::fmt::Write;

use keep_commands::shapes::ViewJson;
use keep_core::model::{Tags, Timestamp};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// What stays as it is in a path segment or query value.
const KEPT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `text` as HTML text or attribute value.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` percent-encoded for a path segment or a query value.
pub fn encode(text: &str) -> String {
    utf8_percent_encode(text, KEPT).to_string()
}

/// The page of note `id` (which may carry `@V{N}` or `@P{N}`).
pub fn note_href(id: &str) -> String {
    format!("/note/{}", encode(id))
}

/// A link to note `id` showing `label`.
pub fn note_link(id: &str, label: &str) -> String {
    format!(
        "<a class=\"note-link\" href=\"{}\">{}</a>",
        esc(&note_href(id)),
        esc(label)
    )
}

/// `path?k=v&...` with each value encoded.
pub fn with_query(path: &str, pairs: &[(&str, &str)]) -> String {
    let query: Vec<String> = pairs
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect();
    if query.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", query.join("&"))
    }
}

pub use crate::render::text::first_line_of as first_line;

/// What a note is called: its `title` tag, else the first line of its
/// summary, at most `most` characters.
pub fn label_of(summary: &str, tags: &Tags, most: usize) -> String {
    match tags.first("title").filter(|t| !t.trim().is_empty()) {
        Some(title) => first_line(title, most),
        None => first_line(summary, most),
    }
}

/// A timestamp as `<time>`: the day and minute, the whole value on hover.
pub fn time(at: Timestamp) -> String {
    let text = at.to_string();
    let short = text.get(..16).unwrap_or(&text).replace('T', " ");
    format!(
        "<time datetime=\"{}\" title=\"{}\">{}</time>",
        esc(&text),
        esc(&text),
        esc(&short)
    )
}

/// Tags as `(key, value)` pairs.
pub type Pairs = Vec<(String, String)>;

/// The `key=value` pairs of a note's tags, keep's own (`_`) ones apart.
pub fn tag_pairs(tags: &Tags) -> (Pairs, Pairs) {
    let (system, user): (Pairs, Pairs) = tags
        .pairs()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .partition(|(k, _)| k.starts_with('_'));
    (user, system)
}

/// A tag `key=value` as a link to the notes that carry it.
pub fn tag_link(pair: &str) -> String {
    format!(
        "<a class=\"tag\" href=\"{}\">{}</a>",
        esc(&with_query("/", &[("tag", pair)])),
        esc(pair)
    )
}

/// How a note is linked to another: the link's name, the other note, and
/// the arrow that says which way (`→` out, `←` in, none for replacements,
/// whose names say it).
pub struct Relation<'a> {
    pub name: &'a str,
    pub other: &'a str,
    pub arrow: &'static str,
}

/// Every link of a note (as `get` gives it): edges both ways, the notes it
/// replaces and those that replace it.
pub fn relations(note: &ViewJson) -> Vec<Relation<'_>> {
    let out_edges = note.edges.iter().map(|e| Relation {
        name: &e.key,
        other: &e.target,
        arrow: "→",
    });
    let in_edges = note.inverse_edges.iter().map(|e| Relation {
        name: &e.inverse,
        other: &e.source,
        arrow: "←",
    });
    let replaced = [
        ("replaces", &note.replaces),
        ("replaced by", &note.replaced_by),
    ]
    .into_iter()
    .flat_map(|(name, others)| {
        others.iter().map(move |other| Relation {
            name,
            other,
            arrow: "",
        })
    });
    out_edges.chain(in_edges).chain(replaced).collect()
}

/// A note's own tags as chips (each a search for notes with it).
pub fn tag_chips(tags: &Tags) -> String {
    let (user, _) = tag_pairs(tags);
    if user.is_empty() {
        return String::new();
    }
    let mut out = String::from("<ul class=\"tags\">");
    for (key, value) in &user {
        let _ = write!(out, "<li>{}</li>", tag_link(&format!("{key}={value}")));
    }
    out.push_str("</ul>");
    out
}

/// A score as the command line prints it.
pub fn score(score: f64) -> String {
    format!("{score:.3}")
}

/// A message in the page, read out by screen readers.
pub fn alert(message: &str) -> String {
    format!("<p class=\"error\" role=\"alert\">{}</p>", esc(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_foreign_schemes_stay_text() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(
            note_href("javascript:alert(1)"),
            "/note/javascript%3Aalert%281%29"
        );
        assert_eq!(
            note_href("file:///a b/c"),
            "/note/file%3A%2F%2F%2Fa%20b%2Fc"
        );
        let link = note_link("x\" onmouseover=\"y", "<b>");
        assert!(!link.contains("\" onmouseover"), "{link}");
        assert!(link.contains("&lt;b&gt;"), "{link}");
    }
}
