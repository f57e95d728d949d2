//! A note: its summary, tags, edges both ways, rating, parts in order,
//! versions with what each changed, and its log; with the writes the
//! caller's token allows (tag and untag, rate, accept a probable update,
//! trash and restore) as forms the page's script sends to the JSON API.

use std::fmt::Write;

use keep_commands::get::{Get, History};
use keep_commands::log::Log;
use keep_commands::shapes::ViewJson;
use keep_core::model::{Rating, keys};
use serde_json::{Value, json};

use crate::render::text::change_label;

use super::Seen;
use super::html::{
    alert, encode, esc, first_line, label_of, note_href, note_link, relations, tag_link, tag_pairs,
    time,
};

/// How many log entries a note's page shows.
const LOG_SHOWN: usize = 50;

pub fn page(seen: &Seen<'_>, id: &str) -> (u16, String, String) {
    let note = match seen.run(Get::id(id)) {
        Ok(viewed) => ViewJson::full(&viewed.view),
        Err((status, message)) => return (status, "No such note".into(), alert(&message)),
    };
    let plain_id = note.note.id.clone();
    let summary = note.note.summary.as_str();
    let current = note.version == 0 && note.part.is_none();
    let mut body = heading(&note, &plain_id, id);
    if current && seen.writes() {
        body.push_str(&actions(&note, &plain_id));
    }
    if let Some(part) = &note.part {
        let _ = write!(
            body,
            "<p class=\"muted\">Part {} of {}</p><div class=\"text\">{}</div>",
            part.part,
            note_link(&plain_id, &plain_id),
            esc(&part.text)
        );
    } else {
        let _ = write!(
            body,
            "<section aria-label=\"Summary\"><div class=\"text\">{}</div></section>",
            esc(summary)
        );
    }
    body.push_str(&tags(&note, &plain_id, current && seen.writes()));
    body.push_str(&edges(&note));
    body.push_str(&parts(&note, &plain_id));
    if note.part.is_none() {
        body.push_str(&versions(seen, &plain_id, note.version));
    }
    if current {
        body.push_str(&log(seen, &plain_id));
    }
    (200, label(&note, 80), body)
}

/// What the note shown is called.
fn label(note: &ViewJson, most: usize) -> String {
    label_of(&note.note.summary, &note.note.tags, most)
}

fn heading(note: &ViewJson, plain_id: &str, asked: &str) -> String {
    let mut out = format!(
        "<h1>{}</h1><dl class=\"facts\"><dt>id</dt><dd class=\"id\">{}</dd>",
        esc(&label(note, 200)),
        esc(asked)
    );
    let n = &note.note;
    for (label, at) in [
        ("event time", Some(n.at)),
        ("created", Some(n.created)),
        ("updated", Some(n.updated)),
        ("until", note.until),
    ] {
        if let Some(at) = at {
            let _ = write!(out, "<dt>{label}</dt><dd>{}</dd>", time(at));
        }
    }
    if let Some(author) = n.tags.first(keys::AGENT) {
        let origin = n
            .tags
            .first(keys::ORIGIN)
            .map(|o| format!(" ({o})"))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<dt>written by</dt><dd id=\"author\">{}{}</dd>",
            esc(author),
            esc(&origin)
        );
    }
    if note.rating != Rating::default() {
        let _ = write!(
            out,
            "<dt>rated</dt><dd id=\"rating\">useful {}, wrong {}</dd>",
            note.rating.useful, note.rating.wrong
        );
    }
    let _ = write!(
        out,
        "</dl><p><a href=\"{}\">Neighbourhood graph</a></p>",
        esc(&format!("/graph/{}", encode(plain_id)))
    );
    if let Some(deleted) = n.tags.first(keys::DELETED) {
        let reason = n
            .tags
            .first(keys::DELETED_REASON)
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<p class=\"notice\" id=\"trashed\">In the trash since {}{}.</p>",
            esc(deleted),
            esc(&reason)
        );
    }
    out
}

/// A form the page's script sends as JSON to `route` (a path under
/// `/v1/notes/ID/`), its fixed body `body`, the fields `fields` and a
/// button `label`.
fn act(id: &str, route: &str, body: &Value, fields: &str, label: &str, class: &str) -> String {
    let button = format!("<button type=\"submit\">{}</button>", esc(label));
    act_with(id, route, body, fields, &button, class)
}

/// `act` with a button of its own.
fn act_with(
    id: &str,
    route: &str,
    body: &Value,
    fields: &str,
    button: &str,
    class: &str,
) -> String {
    format!(
        "<form class=\"act {class}\" method=\"post\" action=\"/v1/notes/{}/{route}\" data-body=\"{}\">{fields}{button}</form>",
        encode(id),
        esc(&body.to_string())
    )
}

fn actions(note: &ViewJson, id: &str) -> String {
    let mut out = String::from("<div class=\"actions\" aria-label=\"Act on this note\">");
    out.push_str(&act(
        id,
        "rate",
        &json!({"rating": "useful"}),
        "",
        "Useful",
        "rate-useful",
    ));
    out.push_str(&act(
        id,
        "rate",
        &json!({"rating": "wrong"}),
        "",
        "Wrong",
        "rate-wrong",
    ));
    let olds: Vec<&str> = note.note.tags.values("may-supersede").collect();
    if !olds.is_empty() {
        let label = format!("Accept as the update of {}", olds.join(", "));
        out.push_str(&act(
            id,
            "supersede",
            &json!({ "olds": olds }),
            "",
            &label,
            "supersede",
        ));
    }
    if note.note.tags.first(keys::DELETED).is_some() {
        out.push_str(&act(
            id,
            "restore",
            &json!({}),
            "",
            "Restore from the trash",
            "restore",
        ));
    } else {
        out.push_str(&act(
            id,
            "trash",
            &json!({}),
            "<input name=\"reason\" placeholder=\"why (optional)\" aria-label=\"Why it goes to the trash\">",
            "Move to the trash",
            "trash",
        ));
    }
    out.push_str("</div>");
    out
}

fn tags(note: &ViewJson, id: &str, writes: bool) -> String {
    let (user, system) = tag_pairs(&note.note.tags);
    let mut out = String::from(
        "<section aria-labelledby=\"tags-h\"><h2 id=\"tags-h\">Tags</h2><ul class=\"tags\" id=\"tags\">",
    );
    for (key, value) in &user {
        let pair = format!("{key}={value}");
        let _ = write!(out, "<li>{}", tag_link(&pair));
        if writes {
            let button = format!(
                "<button type=\"submit\" aria-label=\"{0}\" title=\"{0}\">×</button>",
                esc(&format!("Remove {pair}"))
            );
            out.push_str(&act_with(
                id,
                "tags",
                &json!({ "remove_value": [pair] }),
                "",
                &button,
                "untag",
            ));
        }
        out.push_str("</li>");
    }
    if user.is_empty() {
        out.push_str("<li class=\"muted\">none</li>");
    }
    out.push_str("</ul>");
    if writes {
        out.push_str(&act(
            id,
            "tags",
            &json!({}),
            "<input name=\"add\" data-list placeholder=\"key=value\" aria-label=\"Tag to add (key=value)\" required>",
            "Add tag",
            "tag-add",
        ));
    }
    if !system.is_empty() {
        out.push_str("<details><summary>keep's tags</summary><ul class=\"tags system\">");
        for (key, value) in &system {
            let _ = write!(out, "<li>{}</li>", esc(&format!("{key}={value}")));
        }
        out.push_str("</ul></details>");
    }
    out.push_str("</section>");
    out
}

fn edges(note: &ViewJson) -> String {
    let mut rows = String::new();
    for link in relations(note) {
        let _ = write!(
            rows,
            "<li>{} {} {}</li>",
            esc(link.name),
            link.arrow,
            note_link(link.other, link.other)
        );
    }
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "<section aria-labelledby=\"edges-h\"><h2 id=\"edges-h\">Edges</h2><ul id=\"edges\" class=\"edges\">{rows}</ul></section>"
    )
}

fn parts(note: &ViewJson, id: &str) -> String {
    let parts = &note.parts;
    if parts.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<section aria-labelledby=\"parts-h\"><h2 id=\"parts-h\">Parts ({})</h2><ol id=\"parts\" class=\"parts\">",
        parts.len()
    );
    for part in parts {
        let n = part.part;
        let selector = format!("{id}@P{{{n}}}");
        let _ = write!(
            out,
            "<li id=\"p{n}\"><h3><a href=\"{}\">@P{{{n}}}</a> {}</h3><div class=\"text\">{}</div></li>",
            esc(&note_href(&selector)),
            esc(&first_line(&part.summary, 120)),
            esc(&part.text)
        );
    }
    out.push_str("</ol></section>");
    out
}

/// Every version, the current first, each with what it changed; the one
/// shown marked.
fn versions(seen: &Seen<'_>, id: &str, shown: i64) -> String {
    let history = match seen.run(History { id: id.into() }) {
        Ok(history) => history,
        Err((_, message)) => return alert(&message),
    };
    let versions = &history.versions;
    if versions.len() < 2 {
        return String::new();
    }
    let mut out = format!(
        "<section aria-labelledby=\"versions-h\"><h2 id=\"versions-h\">Versions ({})</h2><div class=\"scroll\"><table id=\"versions\"><thead><tr><th>version</th><th>when</th><th>summary</th><th>changed</th></tr></thead><tbody>",
        versions.len()
    );
    for version in versions {
        let n = version.version;
        let (href, label) = if n == 0 {
            (note_href(id), "current".to_string())
        } else {
            (note_href(&format!("{id}@V{{{n}}}")), format!("@V{{{n}}}"))
        };
        let here = if n == shown {
            " aria-current=\"true\" class=\"shown\""
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr{here}><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&href),
            esc(&label),
            time(version.updated),
            esc(&first_line(&version.summary, 100)),
            esc(&change_label(&version.changed))
        );
    }
    out.push_str("</tbody></table></div></section>");
    out
}

fn log(seen: &Seen<'_>, id: &str) -> String {
    let asked = Log {
        id: Some(id.into()),
        agent: None,
        since: None,
        limit: LOG_SHOWN,
    };
    let entries = match seen.run(asked) {
        Ok(entries) => entries,
        Err((_, message)) => return alert(&message),
    };
    if entries.is_empty() {
        return String::new();
    }
    format!(
        "<section aria-labelledby=\"log-h\"><h2 id=\"log-h\">Log</h2>{}</section>",
        super::activity::log_table(&entries, false)
    )
}
