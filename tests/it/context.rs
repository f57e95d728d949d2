//! `keep context`: the block a session starts with. It holds the `now`
//! note, what changed since the last session and the project's notes,
//! stays within its token budget, gives the same bytes for the same
//! store, changes only a changed note's lines, and says in one line when
//! nothing is relevant.

use std::collections::BTreeSet;

use serde_json::json;

use crate::budget::conversations;
use crate::common::Env;
use crate::mcp::{exchange, handshake, request};

/// Real conversations, a project's notes (one written on a later day)
/// and `now`.
fn store() -> Env {
    let mut env = Env::with_model();
    env.at("2026-03-01T09:00:00Z");
    env.ok_stdin(&["import", "--format", "chat", "-"], &conversations());
    env.ok(&[
        "put",
        "The greenhouse planner keeps each bed's layout as JSON under data/beds.",
        "--id",
        "planner-beds",
    ]);
    env.ok(&[
        "put",
        "The greenhouse planner draws its seedling calendar from the last frost date.",
        "--id",
        "planner-calendar",
    ]);
    env.ok(&[
        "now",
        "Finishing the watering schedule of the greenhouse planner.",
    ]);
    env.at("2026-03-02T09:00:00Z");
    env.ok(&[
        "put",
        "The greenhouse planner waters every bed at 6:00 each morning.",
        "--id",
        "planner-watering",
    ]);
    // Every text embedded, so that the MCP server's embedding of what
    // waits does not change the store between two reads.
    env.ok(&["reindex"]);
    env
}

fn section<'a>(text: &'a str, heading: &str) -> Vec<&'a str> {
    text.split("\n\n")
        .find(|s| s.starts_with(heading))
        .map(|s| s.lines().skip(1).collect())
        .unwrap_or_default()
}

#[test]
fn a_session_starts_with_now_what_changed_and_the_projects_notes() {
    let env = store();
    let args = [
        "context",
        "--project",
        "greenhouse planner",
        "--since",
        "2026-03-02",
    ];
    let text = env.ok(&args);
    assert_eq!(env.ok(&args), text, "the same store gives the same bytes");
    assert!(text.starts_with("# keep context\n"), "{text}");
    let now = section(&text, "## now");
    assert!(
        now.len() == 1 && now[0].contains("watering schedule"),
        "{text}"
    );
    let changed = section(&text, "## changed since 2026-03-02");
    assert_eq!(changed.len(), 1, "{text}");
    assert!(
        changed[0].starts_with("- 2026-03-02 planner-watering: "),
        "{text}"
    );
    let relevant = section(&text, "## relevant to greenhouse planner");
    assert!(
        relevant.iter().any(|l| l.contains(" planner-beds: ")),
        "{text}"
    );
    assert!(
        relevant.iter().any(|l| l.contains(" planner-calendar: ")),
        "{text}"
    );
    assert!(
        !relevant.iter().any(|l| l.contains("planner-watering")),
        "a line is not given twice: {text}"
    );
    let days: Vec<&str> = relevant.iter().map(|l| &l[2..12]).collect();
    assert!(days.is_sorted(), "by event time: {text}");

    let json = env.json(&["context", "--project", "greenhouse planner", "--json"]);
    assert_eq!(json["max_tokens"], 1500);
    assert!(json["tokens"].as_u64().unwrap() <= 1500, "{json}");
    assert_eq!(
        json["changed"].as_array().unwrap().len(),
        0,
        "no --since: {json}"
    );
    assert_eq!(json["now"]["address"], "now");
    let before = env.sql_count("SELECT count(*) FROM notes WHERE accessed > updated");
    env.ok(&args);
    assert_eq!(
        env.sql_count("SELECT count(*) FROM notes WHERE accessed > updated"),
        before,
        "nothing is recorded"
    );
}

#[test]
fn a_changed_note_changes_only_its_own_lines() {
    let mut env = store();
    let args = ["context", "--project", "greenhouse planner"];
    let before = env.ok(&args);
    env.at("2026-03-03T09:00:00Z");
    env.ok(&[
        "put",
        "The greenhouse planner keeps each bed's layout as TOML under data/beds.",
        "--id",
        "planner-beds",
    ]);
    let after = env.ok(&args);
    assert_ne!(before, after);
    let lines = |t: &str| t.lines().map(str::to_string).collect::<BTreeSet<_>>();
    let (old, new) = (lines(&before), lines(&after));
    let changed: Vec<&String> = old.symmetric_difference(&new).collect();
    assert!(
        !changed.is_empty() && changed.iter().all(|l| l.contains(" planner-beds: ")),
        "{changed:?}"
    );
}

#[test]
fn the_budget_holds_and_nothing_relevant_is_one_line() {
    let env = store();
    let small = env.json(&[
        "context",
        "--project",
        "greenhouse planner",
        "--since",
        "2026-01-01",
        "--max-tokens",
        "80",
        "--json",
    ]);
    assert!(small["tokens"].as_u64().unwrap() <= 80, "{small}");
    assert!(small["left_out"].as_u64().unwrap() > 0, "{small}");

    let text = env.ok(&["context", "--project", "quantum chromodynamics lattice"]);
    assert_eq!(
        section(&text, "## relevant to quantum chromodynamics lattice"),
        ["nothing stored is relevant to quantum chromodynamics lattice"],
        "{text}"
    );
    env.fails(&["context", "--max-tokens", "0"], 2);
}

#[test]
fn mcp_gives_the_same_block_as_a_prompt_and_a_resource() {
    let env = store();
    let cli = env.ok(&[
        "context",
        "--project",
        "greenhouse planner",
        "--since",
        "2026-03-02",
    ]);
    let mut lines = handshake();
    lines.push(request(
        2,
        "prompts/get",
        json!({"name": "keep-context", "arguments": {"project": "greenhouse planner", "since": "2026-03-02"}}),
    ));
    lines.push(request(
        3,
        "resources/read",
        json!({"uri": "keep://context/greenhouse%20planner"}),
    ));
    lines.push(request(4, "prompts/list", json!({})));
    let responses = exchange(&env, &lines);
    let prompt = &responses["2"][0]["result"]["messages"][0]["content"]["text"];
    assert_eq!(prompt.as_str(), Some(cli.as_str()));
    let resource = responses["3"][0]["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let plain = env.ok(&["context", "--project", "greenhouse planner"]);
    assert_eq!(resource, plain);
    let names: Vec<&str> = responses["4"][0]["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(names.contains(&"keep-context"), "{names:?}");
}

#[test]
fn the_docs_show_what_keep_context_prints() {
    let env = store();
    let text = env.ok(&[
        "context",
        "--project",
        "greenhouse planner",
        "--since",
        "2026-03-02",
    ]);
    let docs = std::fs::read_to_string(crate::common::repo_root().join("docs/agents.md"))
        .expect("docs/agents.md");
    let shown = docs
        .split("```text\n")
        .find(|block| block.starts_with("# keep context\n"))
        .and_then(|block| block.split("```").next())
        .expect("docs/agents.md shows a context block");
    assert_eq!(
        shown, text,
        "docs/agents.md quotes another block than keep prints"
    );
}

#[test]
fn many_changes_leave_room_for_the_projects_notes() {
    let mut env = store();
    env.at("2026-03-04T09:00:00Z");
    let folder = env.path("minutes");
    std::fs::create_dir_all(&folder).expect("folder");
    for i in 0..40 {
        std::fs::write(
            folder.join(format!("meeting-{i:02}.md")),
            format!("# Meeting {i}\n\nThe committee discussed the budget of the library, item {i}, and the opening hours of the reading room.\n"),
        )
        .expect("written");
    }
    env.ok(&["put", folder.to_str().unwrap()]);
    let json = env.json(&[
        "context",
        "--project",
        "greenhouse planner",
        "--since",
        "2026-03-04",
        "--max-tokens",
        "600",
        "--json",
    ]);
    assert!(json["tokens"].as_u64().unwrap() <= 600, "{json}");
    let count = |key: &str| json[key].as_array().map_or(0, Vec::len);
    assert!(count("changed") >= 3, "{json}");
    assert!(json["left_out"].as_u64().unwrap() > 0, "{json}");
    let relevant: Vec<&str> = json["relevant"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["address"].as_str())
        .collect();
    assert!(relevant.contains(&"planner-beds"), "{json}");
}
