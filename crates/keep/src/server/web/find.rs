//! Find: the search form with the command line's filters, results as
//! `find` ranks them (score, summary, tags, the passage that matched, weak
//! matches marked), or the newest notes when nothing is asked. The page's
//! script runs the same search as the person types.

use std::fmt::Write;

use serde_json::Value;

use super::Seen;
use super::html::{alert, encode, esc, label_of, note_link, score, tag_chips, time};
use crate::server::query::Query;

/// The filters of the form: query parameter, label, hint.
const FILTERS: [(&str, &str, &str); 4] = [
    ("tag", "Tag", "key or key=value"),
    ("since", "Updated since", "P7D, 2026-05-01"),
    ("until", "Updated until", "P1D, 2026-06-01"),
    ("when", "Event time", "2023-05, last week"),
];

/// How many results a page shows.
const SHOWN: usize = 20;

pub fn page(seen: &Seen<'_>, query: &Query) -> (u16, String, String) {
    let q = query.one("q").unwrap_or("").trim().to_string();
    let mut body = form(query, &q);
    let (status, title) = if q.is_empty() {
        body.push_str(&recent(seen, query));
        (200, "Find".to_string())
    } else {
        let (status, results) = results(seen, query, &q);
        body.push_str(&results);
        (status, q.clone())
    };
    (status, title, body)
}

/// The search form: the query, then the filters folded away (open when
/// one is set).
fn form(query: &Query, q: &str) -> String {
    let mut filters = String::new();
    let mut any_set = false;
    for (name, label, hint) in FILTERS {
        let value = query.one(name).unwrap_or("");
        any_set |= !value.is_empty();
        let _ = write!(
            filters,
            "<label>{label} <input name=\"{name}\" value=\"{}\" placeholder=\"{}\" autocomplete=\"off\"></label>",
            esc(value),
            esc(hint)
        );
    }
    let mode = query.one("mode").unwrap_or("hybrid");
    let mut modes = String::new();
    for (value, label) in [
        ("hybrid", "words and meaning"),
        ("keyword", "words"),
        ("semantic", "meaning"),
    ] {
        let selected = if value == mode { " selected" } else { "" };
        let _ = write!(
            modes,
            "<option value=\"{value}\"{selected}>{label}</option>"
        );
    }
    let open = if any_set || mode != "hybrid" {
        " open"
    } else {
        ""
    };
    format!(
        "<form id=\"find\" role=\"search\" method=\"get\" action=\"/\">\
         <input id=\"q\" name=\"q\" type=\"search\" value=\"{}\" placeholder=\"Find notes\" aria-label=\"Find notes\" autocomplete=\"off\" autofocus>\
         <button type=\"submit\">Find</button>\
         <details{open}><summary>Filters</summary><div class=\"filters\">{filters}\
         <label>Match <select name=\"mode\">{modes}</select></label></div></details></form>",
        esc(q)
    )
}

/// The API query of the form's values.
fn api_query(query: &Query, q: &str) -> String {
    let mut pairs = vec![format!("q={}", encode(q)), format!("limit={SHOWN}")];
    for name in ["tag", "since", "until", "when", "mode"] {
        if let Some(value) = query.one(name).filter(|v| !v.trim().is_empty()) {
            pairs.push(format!("{name}={}", encode(value.trim())));
        }
    }
    pairs.join("&")
}

fn results(seen: &Seen<'_>, query: &Query, q: &str) -> (u16, String) {
    match seen.read("/v1/find", &api_query(query, q)) {
        Ok(Value::Array(hits)) => (200, hit_list(&hits, q)),
        Ok(_) => (200, hit_list(&[], q)),
        Err((status, message)) => (
            status,
            format!("<ol id=\"results\"></ol>{}", alert(&message)),
        ),
    }
}

/// The results as a list, with the note the command line gives when every
/// one is weak.
pub fn hit_list(hits: &[Value], q: &str) -> String {
    let mut out = String::new();
    let status = match hits.len() {
        0 => "No notes match.".to_string(),
        1 => "1 note.".to_string(),
        n => format!("{n} notes, best first."),
    };
    let _ = write!(
        out,
        "<p id=\"status\" class=\"muted\" aria-live=\"polite\">{status}</p>"
    );
    if !hits.is_empty() && hits.iter().all(|h| h["weak"] == true) {
        out.push_str("<p class=\"notice\">No close match: no note shares a word with the query, and the nearest in meaning are only weakly alike.</p>");
    }
    let _ = write!(
        out,
        "<ol id=\"results\" class=\"results\" data-query=\"{}\">",
        esc(q)
    );
    for hit in hits {
        out.push_str(&hit_item(hit));
    }
    out.push_str("</ol>");
    out
}

fn hit_item(hit: &Value) -> String {
    let id = hit["id"].as_str().unwrap_or("");
    let weak = hit["weak"] == true;
    let mut out = format!(
        "<li class=\"hit{}\"><div class=\"line\">{} <span class=\"score\" title=\"score\">{}</span>{}</div><div class=\"id muted\">{}</div>",
        if weak { " weak" } else { "" },
        note_link(id, &label_of(hit, 160)),
        score(&hit["score"]),
        if weak {
            " <span class=\"badge\" title=\"found only by meaning, and only weakly\">weak</span>"
        } else {
            ""
        },
        esc(id)
    );
    if let Some(passage) = hit["passage"].as_str().filter(|p| !p.is_empty()) {
        let _ = write!(out, "<p class=\"passage\">{}</p>", esc(passage));
    }
    if let Some(via) = hit["via"].as_object() {
        let _ = write!(
            out,
            "<p class=\"muted\">reached from {} by {}</p>",
            note_link(
                via["from"].as_str().unwrap_or(""),
                via["from"].as_str().unwrap_or("")
            ),
            esc(via["link"].as_str().unwrap_or(""))
        );
    }
    let _ = write!(
        out,
        "<div class=\"meta\">{}{}</div></li>",
        time(&hit["at"]),
        tag_chips(&hit["tags"])
    );
    out
}

/// The newest notes, for a page opened without a query.
fn recent(seen: &Seen<'_>, query: &Query) -> String {
    let mut pairs = vec![format!("limit={SHOWN}")];
    for name in ["tag", "since", "until", "when"] {
        if let Some(value) = query.one(name).filter(|v| !v.trim().is_empty()) {
            pairs.push(format!("{name}={}", encode(value.trim())));
        }
    }
    match seen.read("/v1/notes", &pairs.join("&")) {
        Ok(Value::Array(notes)) => {
            let mut out = String::from(
                "<h2 id=\"status\">Newest notes</h2><ol id=\"results\" class=\"results\">",
            );
            for note in &notes {
                let id = note["id"].as_str().unwrap_or("");
                let _ = write!(
                    out,
                    "<li class=\"hit\"><div class=\"line\">{}</div><div class=\"id muted\">{}</div><div class=\"meta\">{}{}</div></li>",
                    note_link(id, &label_of(note, 160)),
                    esc(id),
                    time(&note["updated"]),
                    tag_chips(&note["tags"])
                );
            }
            if notes.is_empty() {
                out.push_str("<li class=\"muted\">The store holds no notes yet.</li>");
            }
            out.push_str("</ol>");
            out
        }
        Ok(_) => String::new(),
        Err((_, message)) => alert(&message),
    }
}
