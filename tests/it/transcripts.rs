//! Agents' transcripts in: Claude Code's session files and Codex's
//! rollout files, written here in those formats from the real dialogue
//! of the LongMemEval sample, imported as a user would (`keep import
//! --format claude-code|codex FILE|DIR`, or `--format chat`). Turns are
//! what was said, a tool call is a short turn, what a tool printed is
//! left out; a second import reads only the lines added since, and a
//! damaged line refuses the file naming it.

use serde_json::{Value, json};

use crate::common::{Env, repo_root};

/// The user and assistant turns of the first sessions of the sample.
fn dialogue(sessions: usize) -> Vec<(String, String)> {
    let path = repo_root().join("testdata/real/longmemeval/longmemeval_oracle_sample_seed_42.json");
    let data: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("sample")).expect("JSON");
    data.iter()
        .flat_map(|q| q["haystack_sessions"].as_array().expect("sessions").clone())
        .take(sessions)
        .flat_map(|s| s.as_array().expect("turns").clone())
        .map(|t| {
            (
                t["role"].as_str().expect("role").to_string(),
                t["content"].as_str().expect("content").to_string(),
            )
        })
        .collect()
}

/// A Claude Code transcript line of `turn` (its `n`th), with a tool
/// call and a megabyte of tool output after every assistant turn.
fn claude_code_lines(session: &str, turns: &[(String, String)], from: usize) -> String {
    let mut out = String::new();
    for (i, (role, text)) in turns.iter().enumerate() {
        let n = from + i;
        let at = format!("2026-03-02T09:{:02}:{:02}.000Z", n / 60 % 60, n % 60);
        let common = json!({"sessionId": session, "cwd": "/home/ana/src/greenhouse", "timestamp": at, "uuid": format!("u{n}")});
        let mut line = common.clone();
        line["type"] = json!(role);
        line["message"] = json!({"role": role, "content": [{"type": "text", "text": text}]});
        if role == "assistant" {
            line["message"]["content"]
                .as_array_mut()
                .expect("blocks")
                .push(json!({"type": "tool_use", "id": format!("t{n}"), "name": "Read", "input": {"file_path": format!("/home/ana/notes/{n}.md")}}));
        }
        out.push_str(&line.to_string());
        out.push('\n');
        if role == "assistant" {
            let mut result = common;
            result["type"] = json!("user");
            result["message"] = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("t{n}"), "content": "x".repeat(1 << 20)}]});
            out.push_str(&result.to_string());
            out.push('\n');
        }
    }
    out
}

fn codex_lines(turns: &[(String, String)]) -> String {
    let mut out = json!({"timestamp": "2026-03-03T10:00:00.000Z", "type": "session_meta", "payload": {"id": "5d0e6a2b-0c1d-4e2f-8a9b-1c2d3e4f5a6b", "timestamp": "2026-03-03T10:00:00.000Z", "cwd": "/home/ana/src/greenhouse"}}).to_string();
    out.push('\n');
    for (n, (role, text)) in turns.iter().enumerate() {
        let kind = if role == "user" {
            "input_text"
        } else {
            "output_text"
        };
        let at = format!("2026-03-03T10:{:02}:00.000Z", n % 60);
        let line = json!({"timestamp": at, "type": "response_item", "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}});
        out.push_str(&line.to_string());
        out.push('\n');
        if role == "assistant" {
            let call = json!({"timestamp": at, "type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": format!("c{n}")}});
            let output = json!({"timestamp": at, "type": "response_item", "payload": {"type": "function_call_output", "call_id": format!("c{n}"), "output": "y".repeat(1 << 16)}});
            out.push_str(&format!("{call}\n{output}\n"));
        }
    }
    out
}

fn turn_count(env: &Env, id: &str) -> usize {
    env.json(&["get", id, "--parts", "--json"])[0]["parts"]
        .as_array()
        .map_or(0, Vec::len)
}

#[test]
fn a_claude_code_transcript_comes_in_as_it_grows() {
    let env = Env::with_model();
    let turns = dialogue(2);
    assert!(turns.len() >= 12, "{} turns", turns.len());
    let half = turns.len() / 2;
    let dir = env.path("projects/-home-ana-src-greenhouse");
    std::fs::create_dir_all(&dir).expect("folder");
    let file = dir.join("abc-123.jsonl");
    let mut text = claude_code_lines("abc-123", &turns[..half], 0);
    // The agent is writing its next line.
    text.push_str("{\"sessionId\": \"abc-123\", \"type\": \"user\", \"mess");
    std::fs::write(&file, &text).expect("written");

    let out = env.ok(&[
        "import",
        "--format",
        "claude-code",
        env.path("projects").to_str().unwrap(),
    ]);
    assert!(out.contains("created  chat/claude-code/abc-123"), "{out}");
    let id = "chat/claude-code/abc-123";
    let tools = turns[..half].iter().filter(|t| t.0 == "assistant").count();
    assert_eq!(turn_count(&env, id), half + tools);
    let note = env.json(&["get", id, "--json"]);
    assert_eq!(
        note[0]["tags"]["cwd"][0], "/home/ana/src/greenhouse",
        "{note}"
    );
    let whole = env.ok(&["get", id, "--text"]);
    assert!(
        whole.contains("tool: Read: {\"file_path\":\"/home/ana/notes/1.md\"}"),
        "{whole}"
    );
    assert!(!whole.contains("xxxxxxxx"), "a tool's output is left out");
    if !env.on_postgres() {
        let size = std::fs::metadata(env.store().join("keep.db"))
            .expect("db")
            .len();
        assert!(
            size < 4 << 20,
            "the store holds no megabytes of tool output: {size}"
        );
    }
    let chars = env.json(&["stats", "--json"])["sources"][0]["chars"]
        .as_u64()
        .expect("characters counted");
    assert!(
        chars < 1 << 20,
        "no megabyte of tool output is stored: {chars}"
    );

    // The line being written is finished and more turns follow; the first
    // line is then damaged: a second import reads only what was added
    // (read whole, the file would be refused at line 1).
    let cut = text.rfind('\n').expect("a line") + 1;
    let mut grown = text[..cut].to_string();
    grown.push_str(&claude_code_lines("abc-123", &turns[half..], half));
    let damaged = grown
        .replacen("\"uuid\":\"u0\"", "\"uuid\":\"!0\"", 1)
        .replacen('{', "#", 1);
    std::fs::write(&file, &damaged).expect("written");
    let out = env.ok(&["import", "--format", "chat", file.to_str().unwrap()]);
    assert!(out.contains("updated  chat/claude-code/abc-123"), "{out}");
    let all_tools = turns.iter().filter(|t| t.0 == "assistant").count();
    assert_eq!(turn_count(&env, id), turns.len() + all_tools);
    let history = env.ok(&["get", id, "--history"]);
    assert_eq!(history.lines().count(), 2, "{history}");
    let again = env.ok(&["import", "--format", "claude-code", file.to_str().unwrap()]);
    assert!(again.contains("unchanged"), "{again}");

    let stats = env.json(&["stats", "--json"]);
    let from_transcripts = stats["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .find(|s| s["source"] == "chat:claude-code")
        .cloned()
        .expect("stats count what transcripts added");
    assert_eq!(from_transcripts["notes"], 1, "{stats}");
    assert_eq!(
        from_transcripts["parts"],
        turns.len() + all_tools,
        "{stats}"
    );

    let (_, asked) = &turns[half + 1];
    let words: Vec<&str> = asked.split_whitespace().take(12).collect();
    let found = env.ok(&["find", &words.join(" "), "--ids", "-n", "3"]);
    assert!(
        found.lines().any(|l| l.starts_with(&format!("{id}@P{{"))),
        "{found}"
    );
}

#[test]
fn a_codex_rollout_file_comes_in_and_a_damaged_line_is_named() {
    let env = Env::with_model();
    let turns = dialogue(1);
    let dir = env.path("sessions/2026/03/03");
    std::fs::create_dir_all(&dir).expect("folder");
    let file = dir.join("rollout-2026-03-03T10-00-00-5d0e.jsonl");
    std::fs::write(&file, codex_lines(&turns)).expect("written");
    let out = env.ok(&[
        "import",
        "--format",
        "codex",
        env.path("sessions").to_str().unwrap(),
    ]);
    let id = "chat/codex/5d0e6a2b-0c1d-4e2f-8a9b-1c2d3e4f5a6b";
    assert!(out.contains(&format!("created  {id}")), "{out}");
    let calls = turns.iter().filter(|t| t.0 == "assistant").count();
    assert_eq!(turn_count(&env, id), turns.len() + calls);
    assert!(!env.ok(&["get", id, "--text"]).contains("yyyyyyyy"));

    let broken = env.path("broken.jsonl");
    let mut lines: Vec<String> = codex_lines(&turns).lines().map(str::to_string).collect();
    lines[3] = lines[3][..lines[3].len() / 2].to_string();
    std::fs::write(&broken, lines.join("\n") + "\n").expect("written");
    let before = env.all_ids();
    let err = env.fails(
        &["import", "--format", "codex", broken.to_str().unwrap()],
        2,
    );
    assert!(
        err.contains("broken.jsonl: line 4: not a JSON object"),
        "{err}"
    );
    assert_eq!(env.all_ids(), before, "nothing is written");
    let err = env.fails(
        &["import", "--format", "claude-code", file.to_str().unwrap()],
        2,
    );
    assert!(
        err.contains("line 1: not a Claude Code transcript"),
        "{err}"
    );
}

#[test]
fn a_turn_that_restates_a_stored_note_is_linked_not_stored_again() {
    let env = Env::with_model();
    let fact = env.put(
        "I earned $420 at the Downtown Farmers Market on my most recent visit.",
        &[],
    );
    let said = [
        (
            "user",
            "I'm thinking of setting up a loyalty program to reward my repeat customers.",
        ),
        (
            "assistant",
            "A loyalty program is a great way to keep regulars coming back.",
        ),
        (
            "user",
            "By the way, I earned $420 at the Downtown Farmers Market on my most recent visit.",
        ),
        (
            "user",
            "At the Downtown Farmers Market in May I earned $350.",
        ),
    ];
    let turns: Vec<(String, String)> = said
        .iter()
        .map(|(r, t)| (r.to_string(), t.to_string()))
        .collect();
    let file = env.path("loyalty.jsonl");
    std::fs::write(&file, claude_code_lines("loyal-1", &turns, 0)).expect("written");
    env.ok(&["import", "--format", "claude-code", file.to_str().unwrap()]);
    let id = "chat/claude-code/loyal-1";
    let text = env.ok(&["get", id, "--text"]);
    assert!(text.contains(&format!("user: (restates {fact})")), "{text}");
    assert!(
        !text.contains("By the way"),
        "the restatement is not stored again: {text}"
    );
    assert!(
        text.contains("in May I earned $350"),
        "another value is kept: {text}"
    );

    // Imported again with a line more, the link stays and the new turn is
    // judged on its own.
    let mut grown = turns.clone();
    grown.push((
        "user".into(),
        "I earned $420 at the Downtown Farmers Market on my most recent visit!".into(),
    ));
    std::fs::write(&file, claude_code_lines("loyal-1", &grown, 0)).expect("written");
    env.ok(&["import", "--format", "claude-code", file.to_str().unwrap()]);
    let text = env.ok(&["get", id, "--text"]);
    assert_eq!(
        text.matches(&format!("(restates {fact})")).count(),
        2,
        "{text}"
    );
}
