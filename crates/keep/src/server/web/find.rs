//! Find: the search form with the command line's filters, results as
//! `find` ranks them (score, summary, tags, the passage that matched, weak
//! matches marked), or the newest notes when nothing is asked. The page's
//! script runs the same search as the person types.

use std::fmt::Write;

use keep_commands::Filters;
use keep_commands::find::Find;
use keep_commands::list::List;
use keep_core::recall::{FindResult, Hit, RecallMode};

use super::Seen;
use super::html::{alert, esc, label_of, note_link, score, tag_chips, time};
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

/// The filters the form sets, as the commands take them.
fn filters(query: &Query) -> Filters {
    let set = |name: &str| {
        query
            .one(name)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    Filters {
        tag: set("tag").into_iter().collect(),
        since: set("since"),
        until: set("until"),
        when: set("when"),
        ..Filters::default()
    }
}

fn results(seen: &Seen<'_>, query: &Query, q: &str) -> (u16, String) {
    let mode = match query.one("mode").map(str::trim) {
        Some("keyword") => RecallMode::Keyword,
        Some("semantic") => RecallMode::Semantic,
        _ => RecallMode::Hybrid,
    };
    let find = Find {
        filters: filters(query),
        limit: SHOWN,
        mode,
        ..Find::text(q)
    };
    match seen.run(find) {
        Ok(found) => (200, hit_list(&found.result, q)),
        Err((status, message)) => (
            status,
            format!("<ol id=\"results\"></ol>{}", alert(&message)),
        ),
    }
}

/// The results as a list, with what the command line says when nothing
/// is relevant or every hit is weak.
pub fn hit_list(result: &FindResult, q: &str) -> String {
    let hits = &result.hits;
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
    let nothing_relevant = result
        .notices
        .iter()
        .find(|n| n.text.starts_with("nothing relevant"));
    if let Some(notice) = nothing_relevant {
        let _ = write!(
            out,
            "<p class=\"notice\">{}</p>",
            esc(&capitalised(&notice.text))
        );
    } else if !hits.is_empty() && hits.iter().all(|h| h.weak) {
        out.push_str(
            "<p class=\"notice\">No close match: every result is below the relevance floor.</p>",
        );
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

fn hit_item(hit: &Hit) -> String {
    let note = &hit.note;
    let id = note.id.as_str();
    let mut out = format!(
        "<li class=\"hit{}\"><div class=\"line\">{} <span class=\"end\">{}<span class=\"score\" title=\"score\">{}</span></span></div><div class=\"id muted\">{}</div>",
        if hit.weak { " weak" } else { "" },
        note_link(id, &label_of(&note.summary, &note.tags, 160)),
        if hit.weak {
            "<span class=\"badge\" title=\"below the relevance floor\">weak</span> "
        } else {
            ""
        },
        score(hit.score),
        esc(id)
    );
    if !hit.passage.is_empty() {
        let _ = write!(out, "<p class=\"passage\">{}</p>", esc(&hit.passage));
    }
    if let Some(via) = &hit.via {
        let _ = write!(
            out,
            "<p class=\"muted\">reached from {} by {}</p>",
            note_link(&via.from, &via.from),
            esc(&via.link)
        );
    }
    let _ = write!(
        out,
        "<div class=\"meta\">{}{}</div></li>",
        time(note.at),
        tag_chips(&note.tags)
    );
    out
}

/// The newest notes, for a page opened without a query.
fn recent(seen: &Seen<'_>, query: &Query) -> String {
    let list = List {
        filters: filters(query),
        limit: Some(SHOWN),
        ..List::default()
    };
    match seen.run(list) {
        Ok(listed) => {
            let mut out = String::from(
                "<h2 id=\"status\">Newest notes</h2><ol id=\"results\" class=\"results\">",
            );
            for note in &listed.notes {
                let _ = write!(
                    out,
                    "<li class=\"hit\"><div class=\"line\">{}</div><div class=\"id muted\">{}</div><div class=\"meta\">{}{}</div></li>",
                    note_link(&note.id, &label_of(&note.summary, &note.tags, 160)),
                    esc(&note.id),
                    time(note.updated),
                    tag_chips(&note.tags)
                );
            }
            if listed.notes.is_empty() {
                out.push_str("<li class=\"muted\">The store holds no notes yet.</li>");
            }
            out.push_str("</ol>");
            out
        }
        Err((_, message)) => alert(&message),
    }
}

/// `text` with its first letter in capitals.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
