//! `keep mcp`: the end-to-end run of the reference Python client, and raw
//! JSON-RPC lines written straight to the server's stdin.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::common::Env;

/// The Python with the `mcp` package installed by `./scripts/setup.sh`.
pub(crate) fn client_python() -> PathBuf {
    let python = std::env::var_os("KEEP_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::common::repo_root().join("target/test-tools/venv/bin/python"));
    assert!(
        python.is_file(),
        "the Python MCP client is not installed at {}: run ./scripts/setup.sh",
        python.display()
    );
    python
}

#[test]
fn the_reference_client_drives_every_tool_resource_and_prompt() {
    let env = Env::with_model();
    let allowed = env.path("allowed");
    std::fs::create_dir_all(&allowed).unwrap();
    std::fs::write(allowed.join("plan.md"), "# Plan\n\nShip the MCP server.\n").unwrap();
    let outside = env.path("outside.txt");
    std::fs::write(&outside, "not for agents\n").unwrap();
    std::os::unix::fs::symlink(&outside, allowed.join("escape-link")).unwrap();
    let script = crate::common::repo_root().join("tests/mcp_client.py");
    let output = env
        .program(
            &client_python(),
            &[
                script.to_str().unwrap(),
                Env::bin(),
                allowed.to_str().unwrap(),
                outside.to_str().unwrap(),
            ],
        )
        .output()
        .expect("run the MCP client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the MCP client failed:\n{stderr}\n{stdout}"
    );
    let timings: Value = serde_json::from_str(stdout.trim()).expect("timings line");
    assert!(timings["handshake_ms"].as_f64().is_some(), "{timings}");
    eprintln!("mcp timings: {timings}");
}

/// Writes `lines` to a fresh `keep mcp`, closes stdin, and returns the
/// responses by id (`null` ids under "null"), checking every stdout line is
/// a JSON-RPC message.
pub(crate) fn exchange(env: &Env, lines: &[String]) -> HashMap<String, Vec<Value>> {
    exchange_with(env, &["mcp"], lines)
}

/// `exchange` with a `keep mcp` started with `args`.
pub(crate) fn exchange_with(
    env: &Env,
    args: &[&str],
    lines: &[String],
) -> HashMap<String, Vec<Value>> {
    let mut input = lines.join("\n");
    input.push('\n');
    let output = env.run_with_stdin(args, input.as_bytes());
    assert!(
        output.status.success(),
        "keep mcp exited with {:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let mut by_id: HashMap<String, Vec<Value>> = HashMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let msg: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert_eq!(msg["jsonrpc"], "2.0", "{line}");
        // Notifications (log messages, resource changes) answer nothing.
        let key = match msg.get("method") {
            Some(_) => "notifications".to_string(),
            None => msg["id"].to_string(),
        };
        by_id.entry(key).or_default().push(msg);
    }
    by_id
}

pub(crate) fn request(id: u64, method: &str, params: Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()
}

pub(crate) fn handshake() -> Vec<String> {
    vec![
        request(
            1,
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "raw", "version": "0" }
            }),
        ),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string(),
    ]
}

pub(crate) fn call(id: u64, tool: &str, args: Value) -> String {
    request(id, "tools/call", json!({ "name": tool, "arguments": args }))
}

fn error_code(responses: &HashMap<String, Vec<Value>>, id: &str) -> i64 {
    let msg = &responses
        .get(id)
        .unwrap_or_else(|| panic!("no response to {id}"))[0];
    msg["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("response {id} is not an error: {msg}"))
}

#[test]
fn malformed_lines_get_json_rpc_errors_and_the_server_keeps_serving() {
    let env = Env::new();
    let mut lines = handshake();
    lines.extend([
        "{this is not json".to_string(),
        "\u{1}\u{2} binary noise".to_string(),
        json!({ "jsonrpc": "2.0", "id": 2 }).to_string(),
        request(3, "no/such/method", json!({})),
        json!({ "jsonrpc": "2.0", "id": 10, "method": "tools/call" }).to_string(),
        json!({ "jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": "str" }).to_string(),
        call(4, "no_such_tool", json!({})),
        call(5, "remember", json!({ "text": ["not", "a", "string"] })),
        call(6, "get", json!({ "id": "missing-note" })),
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"pad\":\"{}\"}}",
            "x".repeat(9 << 20)
        ),
        call(
            8,
            "remember",
            json!({ "text": "Still serving after all that." }),
        ),
        request(9, "tools/list", json!({})),
    ]);
    let responses = exchange(&env, &lines);

    assert_eq!(responses["1"][0]["result"]["serverInfo"]["name"], "keep");
    let parse_errors = &responses["null"];
    let codes: Vec<i64> = parse_errors
        .iter()
        .map(|m| m["error"]["code"].as_i64().unwrap())
        .collect();
    assert_eq!(
        codes.iter().filter(|&&c| c == -32700).count(),
        2,
        "{parse_errors:?}"
    );
    assert!(codes.contains(&-32600), "oversized line: {parse_errors:?}");
    assert_eq!(error_code(&responses, "2"), -32600);
    assert_eq!(error_code(&responses, "3"), -32601);
    assert_eq!(error_code(&responses, "10"), -32602);
    assert_eq!(error_code(&responses, "11"), -32602);
    assert_eq!(error_code(&responses, "4"), -32602);
    let bad_arguments = &responses["5"][0]["result"];
    assert_eq!(bad_arguments["isError"], true, "{bad_arguments}");
    let reason = bad_arguments["content"][0]["text"].as_str().unwrap();
    assert!(
        reason.starts_with("invalid arguments for remember: invalid type: sequence"),
        "{reason}"
    );
    let missing = &responses["6"][0]["result"];
    assert_eq!(missing["isError"], true, "{missing}");
    let reason = missing["content"][0]["text"].as_str().unwrap();
    assert!(
        reason.contains("missing-note") && !reason.contains('\n'),
        "{reason}"
    );
    assert!(
        !responses.contains_key("7"),
        "the oversized request was answered by id"
    );
    assert_eq!(
        responses["8"][0]["result"]["structuredContent"]["status"],
        "created"
    );
    assert_eq!(
        responses["9"][0]["result"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        10,
        "the core tools"
    );
    assert_eq!(env.all_ids().len(), 1, "only the good note was stored");
}

#[test]
fn the_handshake_needs_no_model_and_recall_falls_back_to_keywords() {
    let env = Env::new();
    let mut lines = handshake();
    lines.extend([
        call(
            2,
            "remember",
            json!({ "text": "Lighthouse keepers log the weather." }),
        ),
        call(
            3,
            "recall",
            json!({ "query": "lighthouse", "format": "ids" }),
        ),
    ]);
    let responses = exchange(&env, &lines);
    assert!(responses["1"][0]["result"]["capabilities"]["tools"].is_object());
    assert_eq!(
        responses["2"][0]["result"]["structuredContent"]["status"],
        "created"
    );
    let recall = &responses["3"][0]["result"]["structuredContent"];
    assert_eq!(recall["ids"].as_array().unwrap().len(), 1, "{recall}");
    let notices = recall["notices"]
        .as_array()
        .expect("a notice about the model");
    assert!(
        notices[0].as_str().unwrap().contains("keyword"),
        "{notices:?}"
    );
}

#[test]
fn recall_follows_as_many_links_as_hops_asks() {
    let env = Env::new();
    env.ok(&[
        "put",
        "Design review of the storage engine",
        "--id",
        "review",
        "-t",
        "author=alice",
    ]);
    env.ok(&[
        "put",
        "Alice leads the infrastructure team",
        "--id",
        "alice",
        "-t",
        "author=bob",
    ]);
    env.ok(&["put", "Bob maintains the build farm", "--id", "bob"]);
    let ask = |id: u64, hops: Value| {
        call(
            id,
            "recall",
            json!({ "query": "storage engine review", "limit": 1, "mode": "keyword", "hops": hops, "format": "ids" }),
        )
    };
    let mut lines = handshake();
    // The refused call is the last line before the input closes: it is
    // answered all the same.
    lines.extend([ask(2, json!(1)), ask(3, json!(2)), ask(4, json!(9))]);
    let responses = exchange(&env, &lines);
    let ids = |id: &str| responses[id][0]["result"]["structuredContent"]["ids"].clone();
    assert_eq!(ids("2"), json!(["review", "alice"]), "{responses:?}");
    assert_eq!(ids("3"), json!(["review", "alice", "bob"]));
    let too_deep = &responses["4"][0]["result"];
    assert_eq!(too_deep["isError"], true, "{too_deep}");
    assert!(too_deep.to_string().contains("1 to 5 links"), "{too_deep}");
}

#[test]
fn allow_must_name_an_existing_folder() {
    let env = Env::new();
    let err = env.fails(&["mcp", "--allow", "/no/such/folder"], 2);
    assert!(err.contains("--allow /no/such/folder"), "{err}");
}

#[test]
fn calls_sent_without_waiting_act_in_the_order_sent() {
    // The first remember loads the model to embed its text before it
    // writes; the calls behind it need no model or need it later, and
    // must still see what it wrote.
    let env = Env::with_model();
    let mut lines = handshake();
    lines.extend([
        call(
            2,
            "remember",
            json!({ "text": "The harbour master rings the bell at every high tide." }),
        ),
        call(3, "list", json!({ "format": "ids" })),
        call(
            4,
            "remember",
            json!({ "text": "At every high tide the harbour master rings the bell." }),
        ),
        call(
            5,
            "recall",
            json!({ "query": "who rings the bell", "format": "ids" }),
        ),
        call(6, "list", json!({ "format": "ids" })),
    ]);
    let responses = exchange(&env, &lines);
    let result = |id: &str| responses[id][0]["result"]["structuredContent"].clone();
    let first = result("2");
    assert_eq!(first["status"], "created", "{first}");
    let id = first["id"].as_str().unwrap();
    assert_eq!(result("3")["ids"], json!([id]), "list ran before the write");
    let second = result("4");
    assert_eq!(second["status"], "duplicate", "{second}");
    assert_eq!(second["duplicate_of"], id, "{second}");
    assert_eq!(result("5")["ids"], json!([id]));
    assert_eq!(result("6")["ids"], json!([id]));
}

#[test]
fn the_agents_guide_has_a_row_for_every_tool() {
    let env = Env::new();
    let mut lines = handshake();
    lines.push(request(2, "tools/list", json!({})));
    let responses = exchange_with(&env, &["mcp", "--tools", "all"], &lines);
    let guide = std::fs::read_to_string(crate::common::repo_root().join("docs/agents.md")).unwrap();
    let tools = responses["2"][0]["result"]["tools"].as_array().unwrap();
    assert!(tools.len() >= 18);
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        assert!(
            guide.contains(&format!("| `{name}` |")),
            "docs/agents.md has no row for the {name} tool"
        );
        assert!(
            examples(&guide).iter().any(|(tool, _)| tool == name),
            "docs/agents.md has no example call of the {name} tool"
        );
    }
}

/// The example calls of the agents' guide: (tool, arguments).
fn examples(guide: &str) -> Vec<(String, serde_json::Value)> {
    let block = guide
        .split("One call of each")
        .nth(1)
        .and_then(|rest| rest.split("```").nth(1))
        .expect("the guide's block of example calls");
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (tool, args) = l.split_once(' ').expect("a tool and its arguments");
            let args = serde_json::from_str(args.trim())
                .unwrap_or_else(|e| panic!("example of {tool} is not JSON: {e}"));
            (tool.to_string(), args)
        })
        .collect()
}

#[test]
fn every_example_call_of_the_agents_guide_is_accepted() {
    let env = Env::with_model();
    env.ok(&[
        "put",
        "Notes could go in SQLite.",
        "--id",
        "decision/db-draft",
    ]);
    env.ok(&[
        "put",
        "We store notes in SQLite.",
        "--id",
        "decision/db",
        "-t",
        "draft=yes",
    ]);
    let guide = std::fs::read_to_string(crate::common::repo_root().join("docs/agents.md")).unwrap();
    let calls = examples(&guide);
    let mut lines = handshake();
    for (i, (tool, args)) in calls.iter().enumerate() {
        lines.push(request(
            10 + i as u64,
            "tools/call",
            json!({"name": tool, "arguments": args}),
        ));
    }
    let responses = exchange(&env, &lines);
    for (i, (tool, args)) in calls.iter().enumerate() {
        let answer = &responses[&(10 + i).to_string()][0];
        assert!(answer.get("error").is_none(), "{tool} {args}: {answer}");
        let result = &answer["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or("");
        assert!(!text.contains("invalid arguments"), "{tool} {args}: {text}");
        if tool != "put_file" {
            assert_ne!(result["isError"], true, "{tool} {args}: {text}");
        }
    }
}

#[test]
fn put_file_says_nothing_of_files_outside_and_reads_hidden_ones_only_when_allowed() {
    let env = Env::new();
    let allowed = env.path("notes");
    std::fs::create_dir_all(allowed.join(".ssh")).unwrap();
    std::fs::write(
        allowed.join("plan.md"),
        "# Plan\n\nShip the importer in March.\n",
    )
    .unwrap();
    std::fs::write(allowed.join(".env"), "TOKEN=sk-live-1234\n").unwrap();
    std::fs::write(
        allowed.join(".ssh/id_ed25519"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\n",
    )
    .unwrap();
    let dir = allowed.to_str().unwrap();
    let ask = |args: &[&str], paths: &[String]| -> Vec<Value> {
        let mut lines = handshake();
        for (i, path) in paths.iter().enumerate() {
            lines.push(call(10 + i as u64, "put_file", json!({ "path": path })));
        }
        let mut input = lines.join("\n");
        input.push('\n');
        let output = env.run_with_stdin(args, input.as_bytes());
        assert!(output.status.success());
        let mut answers: Vec<Value> = String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|m| m["id"].as_u64().is_some_and(|id| id >= 10))
            .collect();
        answers.sort_by_key(|m| m["id"].as_u64());
        answers.into_iter().map(|m| m["result"].clone()).collect()
    };
    let text = |answer: &Value| {
        answer["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    let paths = [
        "/etc/passwd".to_string(),
        "/etc/no-such-file-here".to_string(),
        format!("{dir}/.env"),
        format!("{dir}/.ssh/id_ed25519"),
        format!("{dir}/plan.md"),
    ];
    let answers = ask(&["mcp", "--allow", dir], &paths);
    assert_eq!(
        text(&answers[0]),
        "'/etc/passwd' is outside the allowed folders"
    );
    assert_eq!(
        text(&answers[1]),
        "'/etc/no-such-file-here' is outside the allowed folders"
    );
    for answer in &answers[2..4] {
        assert_eq!(answer["isError"], true, "{answer}");
        assert!(text(answer).contains("is hidden"), "{answer}");
    }
    assert_eq!(answers[4]["isError"], false, "{}", answers[4]);
    assert!(
        env.ok(&["list", "--ids"])
            .lines()
            .all(|id| !id.contains(".env"))
    );
    let answers = ask(&["mcp", "--allow", dir, "--allow-hidden"], &paths[2..3]);
    assert_eq!(answers[0]["isError"], false, "{}", answers[0]);
    assert!(env.ok(&["list", "--ids"]).contains(".env"));
}
