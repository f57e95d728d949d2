//! The operations log: every write, by whom, newest first.

use crate::common::Env;

fn ops(env: &Env, args: &[&str]) -> Vec<(String, String, String, i64)> {
    let mut all = vec!["log"];
    all.extend(args);
    env.json(&all)
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["agent"].as_str().unwrap().to_string(),
                e["op"].as_str().unwrap().to_string(),
                e["note"].as_str().unwrap().to_string(),
                e["version"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn entry(agent: &str, op: &str, note: &str, version: i64) -> (String, String, String, i64) {
    (agent.into(), op.into(), note.into(), version)
}

/// Calls `tool` with `args` through `keep mcp` as the client `(name, version)`.
fn call_as(env: &Env, (name, version): (&str, &str), tool: &str, args: serde_json::Value) {
    let lines = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": name, "version": version}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = env.run_with_stdin(&["mcp"], input.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(
        !answer.contains("\"isError\":true"),
        "{tool} as {name}: {answer}"
    );
}

#[test]
fn every_write_is_logged_with_its_agent_and_outlives_the_note() {
    let mut env = Env::new();
    env.ok(&["put", "The wifi password is hunter2", "--id", "wifi"]);
    env.at("2026-11-22T11:00:00Z");
    env.ok(&["tag", "wifi", "-t", "place=office"]);
    env.ok(&["put", "The wifi password is hunter3", "--id", "wifi"]);
    env.ok(&["del", "wifi", "--reason", "rotated again"]);
    env.ok(&["restore", "wifi"]);
    env.ok(&["del", "wifi@V{1}"]);
    env.ok(&["put", "Guest wifi is open", "--id", "guest"]);
    env.ok(&["del", "--purge", "guest"]);
    call_as(
        &env,
        ("planner", "1.2"),
        "tag",
        serde_json::json!({"id": "wifi", "add": ["checked=yes"]}),
    );

    assert_eq!(
        ops(&env, &[]),
        [
            entry("planner/1.2", "tag", "wifi", 5),
            entry("cli", "purge", "guest", 1),
            entry("cli", "create", "guest", 1),
            entry("cli", "delete-version", "wifi", 4),
            entry("cli", "restore", "wifi", 5),
            entry("cli", "trash", "wifi", 4),
            entry("cli", "update", "wifi", 3),
            entry("cli", "tag", "wifi", 2),
            entry("cli", "create", "wifi", 1),
        ]
    );
    let trash = &env.json(&["log", "wifi", "--agent", "cli", "-n", "5"])[2];
    assert_eq!(trash["detail"], "rotated again");
    assert_eq!(ops(&env, &["guest"]).len(), 2, "a purged note's log stays");
    assert_eq!(ops(&env, &["--agent", "planner/1.2"]).len(), 1);
    assert_eq!(
        ops(&env, &["--since", "2026-11-22T10:30:00Z"]).len(),
        8,
        "all but the first put"
    );
    assert_eq!(ops(&env, &["-n", "2"]).len(), 2);
    let text = env.ok(&["log", "-n", "1"]);
    assert!(
        text.starts_with("2026-11-22 11:00  planner/1.2  tag  wifi  v5"),
        "{text}"
    );
    let err = env.fails(&["log", "--since", "someday"], 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    env.fails(&["log", "nope@V{x}"], 2);

    // The note names who wrote each version; the same text put again by
    // someone else is no new version.
    let agent = |selector: &str| env.json(&["get", selector])[0]["tags"]["_agent"].clone();
    assert_eq!(agent("wifi"), serde_json::json!(["planner/1.2"]));
    assert_eq!(agent("wifi@V{1}"), serde_json::json!(["cli"]));
    let by_planner = env.ok(&["list", "--ids", "-t", "_agent=planner/1.2"]);
    assert_eq!(by_planner, "wifi\n");
    call_as(
        &env,
        ("copier", "1"),
        "remember",
        serde_json::json!({"text": "Guest wifi is closed", "id": "guest2"}),
    );
    env.ok(&["put", "Guest wifi is closed", "--id", "guest2"]);
    assert_eq!(agent("guest2"), serde_json::json!(["copier/1"]));
    assert_eq!(
        env.json(&["get", "guest2", "--history"])[0]["versions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let err = env.fails(&["tag", "guest2", "-t", "_agent=me"], 2);
    assert!(err.contains("_agent"), "{err}");
}

#[test]
fn a_failed_write_logs_nothing() {
    let env = Env::new();
    env.ok(&["put", "one", "--id", "a"]);
    env.fails(&["tag", "a", "-t", "_system=x"], 2);
    env.fails(&["restore", "a"], 2);
    env.fails(&["del", "missing"], 1);
    assert_eq!(ops(&env, &[]), [entry("cli", "create", "a", 1)]);
}

#[test]
fn stats_counts_what_the_store_holds_and_who_wrote_it() {
    let env = Env::new();
    let empty = env.json(&["stats"]);
    assert_eq!(empty["notes"], 0);
    assert_eq!(empty["agents"], serde_json::json!([]));
    env.ok(&[
        "put",
        "Ferry to Mull at 07:45",
        "--id",
        "ferry",
        "-t",
        "topic=travel",
        "-t",
        "author=ann",
    ]);
    env.ok(&["put", "Ferry to Mull at 08:15", "--id", "ferry"]);
    env.ok(&[
        "put",
        "Buses meet the ferry",
        "--id",
        "bus",
        "-t",
        "topic=travel",
    ]);
    env.ok(&["put", "Old timetable", "--id", "old"]);
    env.ok(&["del", "old"]);
    let stats = env.json(&["stats"]);
    assert_eq!(stats["notes"], 2, "{stats}");
    assert_eq!(stats["in_trash"], 1);
    assert_eq!(stats["stubs"], 1, "ann exists only as a link's target");
    assert_eq!(
        stats["versions"], 2,
        "ferry's first text and old's before the trash"
    );
    assert_eq!(
        stats["waiting_for_vectors"], 5,
        "no model here: three notes and two versions wait"
    );
    assert_eq!(
        stats["tag_keys"][0],
        serde_json::json!({"key": "topic", "notes": 2})
    );
    assert_eq!(stats["agents"][0]["agent"], "cli");
    assert_eq!(stats["agents"][0]["writes"], 5);
    assert!(stats["bytes"].as_i64().unwrap() > 0);
    let text = env.ok(&["stats"]);
    assert!(
        text.starts_with("notes     2 (1 in the trash, 0 system, 1 stubs)\n"),
        "{text}"
    );
    assert!(text.contains("agent     cli: 5 write(s)"), "{text}");
}

#[test]
fn keep_log_says_which_command_ran_and_nothing_of_the_notes() {
    let env = Env::new();
    env.ok(&["put", "The vault combination is 31-07-19.", "--id", "vault"]);
    let quiet = env.run(&["find", "vault", "--mode", "keyword"]);
    assert!(quiet.status.success());
    assert_eq!(String::from_utf8_lossy(&quiet.stderr), "", "off by default");
    let told = env
        .cmd(&["find", "vault combination", "--mode", "keyword"])
        .env("KEEP_LOG", "debug")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&told.stderr);
    assert!(told.status.success(), "{said}");
    assert!(
        said.lines()
            .any(|l| l.contains("DEBUG keep_commands: ran command=\"Find\" ms=")),
        "{said}"
    );
    for private in ["31-07-19", "vault combination", "The vault"] {
        assert!(!said.contains(private), "{private} logged: {said}");
    }
    let failed = env
        .cmd(&["get", "nowhere"])
        .env("KEEP_LOG", "keep_commands=debug")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&failed.stderr);
    assert!(
        said.contains("command=\"Get\"") && said.contains("kind=NotFound"),
        "{said}"
    );
    let unreadable = env
        .cmd(&["list"])
        .env("KEEP_LOG", "keep=loud")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&unreadable.stderr);
    assert!(unreadable.status.success());
    assert!(
        said.starts_with("keep: KEEP_LOG: ") && said.contains("logging at the default (off)"),
        "{said}"
    );
}
