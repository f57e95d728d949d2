//! Where each note came from (`_origin`): typed on the command line, put
//! by an agent through MCP or the JSON API, read from a file or a web
//! page, imported from a chat; `find`, `list`, MCP `recall` and `list`,
//! and the JSON API return only the origins asked for, and a hit from the
//! web is marked as quoted material.

use crate::common::Env;
use crate::mcp::{call, handshake};
use crate::secrets::serve_page;
use crate::serve::{Server, curl};
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn ids(text: &str) -> BTreeSet<String> {
    text.lines().map(str::to_string).collect()
}

#[test]
fn each_way_in_records_its_origin_and_every_front_end_filters_on_it() {
    let env = Env::with_model();
    let typed = env.put("The lighthouse keeper typed this note about the lamp.", &[]);
    let file = env.path("lamp.md");
    std::fs::write(
        &file,
        "# Lamp\n\nA document about the lighthouse lamp and its wick.\n",
    )
    .unwrap();
    env.ok(&["put", file.to_str().unwrap()]);
    let document = format!("file://{}", file.display());
    let port = serve_page();
    env.ok(&["put", &format!("http://127.0.0.1:{port}/howto")]);
    let chat = env.path("chat.jsonl");
    std::fs::write(
        &chat,
        "{\"session\": \"c1\", \"speaker\": \"ana\", \"text\": \"The lighthouse lamp needs a new wick.\"}\n",
    )
    .unwrap();
    env.ok(&["import", "--format", "chat", chat.to_str().unwrap()]);
    let mut lines = handshake();
    lines.push(call(
        10,
        "remember",
        json!({ "text": "An agent noted that the lighthouse lamp was cleaned." }),
    ));
    let mut input = lines.join("\n");
    input.push('\n');
    assert!(
        env.run_with_stdin(&["mcp"], input.as_bytes())
            .status
            .success()
    );

    let origin_of = |id: &str| -> String {
        env.json(&["get", id, "--json"])[0]["tags"]["_origin"][0]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(origin_of(&typed), "typed");
    assert_eq!(origin_of(&document), "document");
    let listed = |from: &str| ids(&env.ok(&["list", "--ids", "--from", from]));
    let web = listed("web");
    assert_eq!(web.len(), 1, "{web:?}");
    assert!(web.iter().all(|id| id.contains("/howto")));
    assert_eq!(listed("typed"), BTreeSet::from([typed.clone()]));
    assert_eq!(listed("imported").len(), 1);
    let agent = listed("agent");
    assert_eq!(agent.len(), 1, "{agent:?}");
    let both = listed("typed,document");
    assert_eq!(both, BTreeSet::from([typed.clone(), document.clone()]));
    let found = ids(&env.ok(&[
        "find",
        "lighthouse lamp",
        "--ids",
        "--floor",
        "0",
        "--from",
        "document,typed",
    ]));
    assert_eq!(found, both, "find keeps to the origins asked");
    let refused = env.run(&["list", "--from", "rumour"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("'rumour' is not an origin"));

    // MCP recall: only the origins asked; a web hit is quoted material.
    let mut lines = handshake();
    lines.push(call(
        11,
        "recall",
        json!({ "query": "lighthouse lamp", "from": ["typed"], "floor": 0 }),
    ));
    lines.push(call(
        12,
        "recall",
        json!({ "query": "lighthouse deploy job", "trust": "web", "floor": 0 }),
    ));
    let mut input = lines.join("\n");
    input.push('\n');
    let out = env.run_with_stdin(&["mcp"], input.as_bytes());
    let answers: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    let hits = |id: u64| -> Vec<Value> {
        let answer = answers.iter().find(|m| m["id"] == id).unwrap();
        answer["result"]["structuredContent"]["notes"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .clone()
    };
    let typed_hits = hits(11);
    assert!(!typed_hits.is_empty());
    assert!(
        typed_hits.iter().all(|h| h["id"] == typed.as_str()),
        "{typed_hits:?}"
    );
    let web_hits = hits(12);
    assert!(!web_hits.is_empty());
    assert!(web_hits.iter().all(|h| h["quoted"] == true), "{web_hits:?}");

    // The JSON API.
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let (code, answer) = curl(
        &[],
        &format!("http://{}/v1/notes?from=document", server.addr),
    );
    assert_eq!(code, 0, "{answer}");
    let listed: Value = serde_json::from_str(&answer).unwrap();
    let got: Vec<&str> = listed
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert_eq!(got, [document.as_str()], "{listed}");
    assert!(server.terminate().success());
}
