//! What the writers did and what the store holds: the operations log
//! filtered by agent and time, `stats` (with the notes waiting for a
//! vector), and the conflicts list, each pair with the write that
//! resolves it.

use std::fmt::Write;

use keep_commands::Filters;
use keep_commands::conflicts::Conflicts;
use keep_commands::get::Get;
use keep_commands::log::Log;
use keep_commands::stats::Stats;
use keep_core::keeper::Operation;
use serde_json::json;

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
    let given = |value: &str| (!value.is_empty()).then(|| value.to_string());
    let asked = Log {
        id: None,
        agent: given(agent),
        since: given(since),
        limit: 200,
    };
    match seen.run(asked) {
        Ok(entries) => {
            body.push_str(&log_table(&entries, true));
            (200, "Log".into(), body)
        }
        Err((status, message)) => {
            body.push_str(&alert(&message));
            (status, "Log".into(), body)
        }
    }
}

/// Log entries as a table; `with_note` adds the note's column.
pub fn log_table(entries: &[Operation], with_note: bool) -> String {
    if entries.is_empty() {
        return "<p id=\"log\" class=\"muted\">No entries.</p>".into();
    }
    let note_head = if with_note { "<th>note</th>" } else { "" };
    let mut out = format!(
        "<div class=\"scroll\"><table id=\"log\"><thead><tr><th>when</th><th>agent</th><th>what</th>{note_head}<th>version</th></tr></thead><tbody>"
    );
    for entry in entries {
        let agent = entry.agent.as_str();
        let note = entry.note.as_str();
        let note_cell = if with_note {
            format!("<td>{}</td>", note_link(note, note))
        } else {
            String::new()
        };
        let detail = if entry.detail.is_empty() {
            String::new()
        } else {
            format!(" <span class=\"muted\">{}</span>", esc(&entry.detail))
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td><a href=\"{}\">{}</a>{detail}</td><td>{}</td>{note_cell}<td>{}</td></tr>",
            time(entry.at),
            esc(&with_query("/log", &[("agent", agent)])),
            esc(agent),
            esc(&entry.op),
            entry.version
        );
    }
    out.push_str("</tbody></table></div>");
    out
}

/// How many of the notes waiting for a vector the stats page names.
const WAITING_SHOWN: usize = 20;

pub fn stats(seen: &Seen<'_>) -> (u16, String, String) {
    let stats = match seen.run(Stats {
        waiting: Some(WAITING_SHOWN),
    }) {
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
    let census = &stats.census;
    for (label, key, n) in [
        ("notes", "notes", census.notes),
        ("in the trash", "in_trash", census.in_trash),
        ("versions", "versions", census.versions),
        ("parts", "parts", census.parts),
        ("vectors", "vectors", census.vectors),
        (
            "waiting for a vector",
            "waiting_for_vectors",
            census.waiting_for_vectors,
        ),
    ] {
        let _ = write!(out, "<dt>{label}</dt><dd data-key=\"{key}\">{n}</dd>");
    }
    let _ = write!(
        out,
        "<dt>on disk</dt><dd data-key=\"bytes\">{}</dd>",
        crate::render::text::human_bytes(census.bytes)
    );
    let _ = write!(
        out,
        "<dt>model</dt><dd>{}</dd></dl>",
        esc(stats.model.as_deref().unwrap_or("none"))
    );
    let waiting = stats.waiting.clone().unwrap_or_default();
    if !waiting.is_empty() {
        out.push_str("<h2>Waiting for a vector</h2><p class=\"muted\">Found by their words until the server's embedder reaches them; the most recently updated first.</p><ul id=\"waiting\" class=\"edges\">");
        for id in &waiting {
            let _ = write!(out, "<li>{}</li>", note_link(id, id));
        }
        out.push_str("</ul>");
    }
    out.push_str("<h2>Agents</h2><div class=\"scroll\"><table id=\"agents\"><thead><tr><th>agent</th><th>writes</th><th>last</th></tr></thead><tbody>");
    for agent in &census.agents {
        let _ = write!(
            out,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td></tr>",
            esc(&with_query("/log", &[("agent", &agent.agent)])),
            esc(&agent.agent),
            agent.writes,
            time(agent.last)
        );
    }
    out.push_str("</tbody></table></div><h2>Tag keys</h2><div class=\"scroll\"><table id=\"tag-keys\"><thead><tr><th>key</th><th>notes</th></tr></thead><tbody>");
    for key in &census.tag_keys {
        let _ = write!(
            out,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td></tr>",
            esc(&with_query("/", &[("tag", &key.key)])),
            esc(&key.key),
            key.notes
        );
    }
    out.push_str("</tbody></table></div>");
    (200, "Stats".into(), out)
}

/// A link to a note named as the page names it, with its id.
fn labelled(seen: &Seen<'_>, id: &str) -> String {
    let label = seen
        .run(Get::id(id))
        .map(|viewed| label_of(&viewed.view.note.summary, &viewed.view.note.tags, 120))
        .unwrap_or_else(|_| id.to_string());
    format!(
        "{} <span class=\"id muted\">{}</span>",
        note_link(id, &label),
        esc(id)
    )
}

pub fn conflicts(seen: &Seen<'_>) -> (u16, String, String) {
    let asked = Conflicts {
        filters: Filters::default(),
        limit: 50,
    };
    let pairs = match seen.run(asked) {
        Ok(pairs) => pairs,
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
        let (newer, older) = (pair.newer.as_str(), pair.older.as_str());
        let differences = &pair.differences;
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
