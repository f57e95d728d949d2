//! What the writers did and what the store holds: the operations log
//! filtered by agent and time, `stats` (with the notes waiting for a
//! vector), and the conflicts list, each pair with the write that
//! resolves it.

use std::fmt::Write;

use serde_json::{Value, json};

use super::Seen;
use super::html::{alert, encode, esc, label_of, note_link, time, with_query};
use crate::server::query::Query;

pub fn log(seen: &Seen<'_>, query: &Query) -> (u16, String, String) {
    let agent = query.one("agent").unwrap_or("").trim();
    let since = query.one("since").unwrap_or("").trim();
    let mut body = format!(
        "<h1>Log</h1><form method=\"get\" action=\"/log\" class=\"filters\">\
         <label>Agent <input name=\"agent\" value=\"{}\" placeholder=\"cli, api, claude-code/1.0\"></label>\
         <label>Since <input name=\"since\" value=\"{}\" placeholder=\"P7D, 2026-05-01\"></label>\
         <button type=\"submit\">Show</button></form>",
        esc(agent),
        esc(since)
    );
    let mut pairs = vec!["limit=200".to_string()];
    for (name, value) in [("agent", agent), ("since", since)] {
        if !value.is_empty() {
            pairs.push(format!("{name}={}", encode(value)));
        }
    }
    match seen.read("/v1/log", &pairs.join("&")) {
        Ok(Value::Array(entries)) => {
            body.push_str(&log_table(&entries, true));
            (200, "Log".into(), body)
        }
        Ok(_) => (200, "Log".into(), body),
        Err((status, message)) => {
            body.push_str(&alert(&message));
            (status, "Log".into(), body)
        }
    }
}

/// Log entries as a table; `with_note` adds the note's column.
pub fn log_table(entries: &[Value], with_note: bool) -> String {
    if entries.is_empty() {
        return "<p id=\"log\" class=\"muted\">No entries.</p>".into();
    }
    let note_head = if with_note { "<th>note</th>" } else { "" };
    let mut out = format!(
        "<div class=\"scroll\"><table id=\"log\"><thead><tr><th>when</th><th>agent</th><th>what</th>{note_head}<th>version</th></tr></thead><tbody>"
    );
    for entry in entries {
        let agent = entry["agent"].as_str().unwrap_or("");
        let note = entry["note"].as_str().unwrap_or("");
        let note_cell = if with_note {
            format!("<td>{}</td>", note_link(note, note))
        } else {
            String::new()
        };
        let detail = entry["detail"]
            .as_str()
            .map(|d| format!(" <span class=\"muted\">{}</span>", esc(d)))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<tr><td>{}</td><td><a href=\"{}\">{}</a>{detail}</td><td>{}</td>{note_cell}<td>{}</td></tr>",
            time(&entry["at"]),
            esc(&with_query("/log", &[("agent", agent)])),
            esc(agent),
            esc(entry["op"].as_str().unwrap_or("")),
            entry["version"]
                .as_i64()
                .map(|v| v.to_string())
                .unwrap_or_default()
        );
    }
    out.push_str("</tbody></table></div>");
    out
}

/// How many of the notes waiting for a vector the stats page names.
const WAITING_SHOWN: usize = 20;

pub fn stats(seen: &Seen<'_>) -> (u16, String, String) {
    let stats = match seen.read("/v1/stats", &format!("waiting={WAITING_SHOWN}")) {
        Ok(stats) => stats,
        Err((status, message)) => {
            return (
                status,
                "Stats".into(),
                format!("<h1>Stats</h1>{}", alert(&message)),
            );
        }
    };
    let mut out = String::from("<h1>Stats</h1><dl class=\"facts\" id=\"stats\">");
    for (label, key) in [
        ("notes", "notes"),
        ("in the trash", "in_trash"),
        ("versions", "versions"),
        ("parts", "parts"),
        ("vectors", "vectors"),
        ("waiting for a vector", "waiting_for_vectors"),
    ] {
        let _ = write!(
            out,
            "<dt>{label}</dt><dd data-key=\"{key}\">{}</dd>",
            stats[key]
                .as_i64()
                .map(|n| n.to_string())
                .unwrap_or_default()
        );
    }
    let _ = write!(
        out,
        "<dt>on disk</dt><dd data-key=\"bytes\">{}</dd>",
        crate::render::text::human_bytes(stats["bytes"].as_i64().unwrap_or(0))
    );
    let _ = write!(
        out,
        "<dt>model</dt><dd>{}</dd></dl>",
        esc(stats["model"].as_str().unwrap_or("none"))
    );
    let waiting: Vec<&str> = stats["waiting"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !waiting.is_empty() {
        out.push_str("<h2>Waiting for a vector</h2><p class=\"muted\">Found by their words until the server's embedder reaches them; the most recently updated first.</p><ul id=\"waiting\" class=\"edges\">");
        for id in &waiting {
            let _ = write!(out, "<li>{}</li>", note_link(id, id));
        }
        out.push_str("</ul>");
    }
    out.push_str("<h2>Agents</h2><div class=\"scroll\"><table id=\"agents\"><thead><tr><th>agent</th><th>writes</th><th>last</th></tr></thead><tbody>");
    for agent in stats["agents"].as_array().into_iter().flatten() {
        let name = agent["agent"].as_str().unwrap_or("");
        let _ = write!(
            out,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td></tr>",
            esc(&with_query("/log", &[("agent", name)])),
            esc(name),
            agent["writes"].as_i64().unwrap_or(0),
            time(&agent["last"])
        );
    }
    out.push_str("</tbody></table></div><h2>Tag keys</h2><div class=\"scroll\"><table id=\"tag-keys\"><thead><tr><th>key</th><th>notes</th></tr></thead><tbody>");
    for key in stats["tag_keys"].as_array().into_iter().flatten() {
        let name = key["key"].as_str().unwrap_or("");
        let _ = write!(
            out,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td></tr>",
            esc(&with_query("/", &[("tag", name)])),
            esc(name),
            key["notes"].as_i64().unwrap_or(0)
        );
    }
    out.push_str("</tbody></table></div>");
    (200, "Stats".into(), out)
}

/// A link to a note named as the page names it, with its id.
fn labelled(seen: &Seen<'_>, id: &str) -> String {
    let label = seen
        .read(&format!("/v1/notes/{}", encode(id)), "")
        .map(|note| label_of(&note, 120))
        .unwrap_or_else(|_| id.to_string());
    format!(
        "{} <span class=\"id muted\">{}</span>",
        note_link(id, &label),
        esc(id)
    )
}

pub fn conflicts(seen: &Seen<'_>) -> (u16, String, String) {
    let pairs = match seen.read("/v1/conflicts", "limit=50") {
        Ok(Value::Array(pairs)) => pairs,
        Ok(_) => Vec::new(),
        Err((status, message)) => {
            return (
                status,
                "Conflicts".into(),
                format!("<h1>Conflicts</h1>{}", alert(&message)),
            );
        }
    };
    let mut out = String::from(
        "<h1>Conflicts</h1><p class=\"muted\">Live notes that give two values for one subject. Accepting the newer hides the older from recall; its history keeps it.</p>",
    );
    if pairs.is_empty() {
        out.push_str("<p id=\"conflicts\" class=\"muted\">No conflicts.</p>");
        return (200, "Conflicts".into(), out);
    }
    out.push_str("<ul id=\"conflicts\" class=\"results\">");
    for pair in &pairs {
        let newer = pair["newer"].as_str().unwrap_or("");
        let older = pair["older"].as_str().unwrap_or("");
        let differences: Vec<&str> = pair["differences"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let _ = write!(
            out,
            "<li class=\"hit conflict\"><div><span class=\"muted\">newer</span> {}</div><div><span class=\"muted\">older</span> {}</div><p class=\"passage\">{}</p>",
            labelled(seen, newer),
            labelled(seen, older),
            esc(&differences.join("; "))
        );
        if seen.writes() {
            let _ = write!(
                out,
                "<form class=\"act supersede\" method=\"post\" action=\"/v1/notes/{}/supersede\" data-body=\"{}\"><button type=\"submit\">Keep the newer: {} replaces {}</button></form>",
                encode(newer),
                esc(&json!({ "olds": [older] }).to_string()),
                esc(newer),
                esc(older)
            );
        }
        out.push_str("</li>");
    }
    out.push_str("</ul>");
    (200, "Conflicts".into(), out)
}
