//! A note: its summary, tags, edges both ways, rating, parts in order,
//! versions with what each changed, and its log; with the writes the
//! caller's token allows (tag and untag, rate, accept a probable update,
//! trash and restore) as forms the page's script sends to the JSON API.

use std::fmt::Write;

use serde_json::{Value, json};

use super::Seen;
use super::html::{
    alert, encode, esc, first_line, label_of, note_href, note_link, relations, tag_link, tag_pairs,
    time,
};

/// How many log entries a note's page shows.
const LOG_SHOWN: usize = 50;

pub fn page(seen: &Seen<'_>, id: &str) -> (u16, String, String) {
    let note = match seen.read(&format!("/v1/notes/{}", encode(id)), "") {
        Ok(note) => note,
        Err((status, message)) => return (status, "No such note".into(), alert(&message)),
    };
    let plain_id = note["id"].as_str().unwrap_or(id).to_string();
    let summary = note["summary"].as_str().unwrap_or("");
    let current = note["version"].as_i64().unwrap_or(0) == 0 && note["part"].is_null();
    let mut body = heading(&note, &plain_id, id);
    if current && seen.writes() {
        body.push_str(&actions(&note, &plain_id));
    }
    if let Some(part) = note["part"].as_object() {
        let _ = write!(
            body,
            "<p class=\"muted\">Part {} of {}</p><div class=\"text\">{}</div>",
            part.get("part").and_then(Value::as_i64).unwrap_or(0),
            note_link(&plain_id, &plain_id),
            esc(part.get("text").and_then(Value::as_str).unwrap_or(""))
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
    if note["part"].is_null() {
        body.push_str(&versions(
            seen,
            &plain_id,
            note["version"].as_i64().unwrap_or(0),
        ));
    }
    if current {
        body.push_str(&log(seen, &plain_id));
    }
    (200, label_of(&note, 80), body)
}

fn heading(note: &Value, plain_id: &str, asked: &str) -> String {
    let mut out = format!(
        "<h1>{}</h1><dl class=\"facts\"><dt>id</dt><dd class=\"id\">{}</dd>",
        esc(&label_of(note, 200)),
        esc(asked)
    );
    for (label, key) in [
        ("event time", "at"),
        ("created", "created"),
        ("updated", "updated"),
        ("until", "until"),
    ] {
        if note[key].is_string() {
            let _ = write!(out, "<dt>{label}</dt><dd>{}</dd>", time(&note[key]));
        }
    }
    if let Some(rating) = note["rating"].as_object() {
        let _ = write!(
            out,
            "<dt>rated</dt><dd id=\"rating\">useful {}, wrong {}</dd>",
            rating.get("useful").and_then(Value::as_i64).unwrap_or(0),
            rating.get("wrong").and_then(Value::as_i64).unwrap_or(0)
        );
    }
    let _ = write!(
        out,
        "</dl><p><a href=\"{}\">Neighbourhood graph</a></p>",
        esc(&format!("/graph/{}", encode(plain_id)))
    );
    if let Some(deleted) = first_tag(note, "_deleted") {
        let reason = first_tag(note, "_deleted_reason")
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<p class=\"notice\" id=\"trashed\">In the trash since {}{}.</p>",
            esc(&deleted),
            esc(&reason)
        );
    }
    out
}

fn first_tag(note: &Value, key: &str) -> Option<String> {
    match &note["tags"][key] {
        Value::Array(values) => values.first()?.as_str().map(str::to_string),
        Value::String(value) => Some(value.clone()),
        _ => None,
    }
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

fn actions(note: &Value, id: &str) -> String {
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
    let olds: Vec<String> = match &note["tags"]["may-supersede"] {
        Value::Array(values) => values
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
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
    if first_tag(note, "_deleted").is_some() {
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

fn tags(note: &Value, id: &str, writes: bool) -> String {
    let (user, system) = tag_pairs(&note["tags"]);
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

fn edges(note: &Value) -> String {
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

fn parts(note: &Value, id: &str) -> String {
    let Some(parts) = note["parts"].as_array().filter(|p| !p.is_empty()) else {
        return String::new();
    };
    let mut out = format!(
        "<section aria-labelledby=\"parts-h\"><h2 id=\"parts-h\">Parts ({})</h2><ol id=\"parts\" class=\"parts\">",
        parts.len()
    );
    for part in parts {
        let n = part["part"].as_i64().unwrap_or(0);
        let selector = format!("{id}@P{{{n}}}");
        let _ = write!(
            out,
            "<li id=\"p{n}\"><h3><a href=\"{}\">@P{{{n}}}</a> {}</h3><div class=\"text\">{}</div></li>",
            esc(&note_href(&selector)),
            esc(&first_line(part["summary"].as_str().unwrap_or(""), 120)),
            esc(part["text"].as_str().unwrap_or(""))
        );
    }
    out.push_str("</ol></section>");
    out
}

/// What a version changed, as the command line labels it.
fn change(changed: &Value) -> String {
    let mut what = Vec::new();
    if changed["created"] == true {
        what.push("created".to_string());
    }
    if changed["summary"] == true {
        what.push("summary".to_string());
    }
    if changed["content"] == true {
        what.push("content".to_string());
    }
    for (sign, key) in [("+", "tags_added"), ("−", "tags_removed")] {
        let (user, system) = tag_pairs(&changed[key]);
        for (k, v) in user.iter().chain(&system) {
            what.push(format!("{sign}{k}={v}"));
        }
    }
    if what.is_empty() {
        what.push("no change".into());
    }
    what.join(", ")
}

/// Every version, the current first, each with what it changed; the one
/// shown marked.
fn versions(seen: &Seen<'_>, id: &str, shown: i64) -> String {
    let history = match seen.read(&format!("/v1/notes/{}/history", encode(id)), "") {
        Ok(history) => history,
        Err((_, message)) => return alert(&message),
    };
    let Some(versions) = history["versions"].as_array().filter(|v| v.len() > 1) else {
        return String::new();
    };
    let mut out = format!(
        "<section aria-labelledby=\"versions-h\"><h2 id=\"versions-h\">Versions ({})</h2><div class=\"scroll\"><table id=\"versions\"><thead><tr><th>version</th><th>when</th><th>summary</th><th>changed</th></tr></thead><tbody>",
        versions.len()
    );
    for version in versions {
        let n = version["version"].as_i64().unwrap_or(0);
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
            time(&version["updated"]),
            esc(&first_line(version["summary"].as_str().unwrap_or(""), 100)),
            esc(&change(&version["changed"]))
        );
    }
    out.push_str("</tbody></table></div></section>");
    out
}

fn log(seen: &Seen<'_>, id: &str) -> String {
    let entries = match seen.read("/v1/log", &format!("id={}&limit={LOG_SHOWN}", encode(id))) {
        Ok(Value::Array(entries)) => entries,
        Ok(_) => Vec::new(),
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
