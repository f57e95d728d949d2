//! Memory without asking: `keep connect claude-code --hooks --write`
//! installs Claude Code's session hooks, and the commands it wrote are
//! run here as Claude Code runs them (through the shell, with the hook's
//! JSON on standard input), on transcripts in Claude Code's own format
//! made from the LongMemEval sample's real dialogue: the start hook gives
//! the session its context, the end hook imports the session in the
//! background, and the next session starts with what the first one said.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Env, repo_root};

/// The sessions of the sample's first question, whose evidence is a
/// user's turn in each (`has_answer`).
fn sessions() -> Vec<(String, Vec<Value>)> {
    let path = repo_root().join("testdata/real/longmemeval/longmemeval_oracle_sample_seed_42.json");
    let data: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("sample")).expect("JSON");
    let q = &data[0];
    q["haystack_session_ids"]
        .as_array()
        .expect("ids")
        .iter()
        .zip(q["haystack_sessions"].as_array().expect("sessions"))
        .map(|(id, s)| {
            (
                id.as_str().expect("id").to_string(),
                s.as_array().expect("turns").clone(),
            )
        })
        .collect()
}

/// A session as Claude Code writes it.
fn transcript(session: &str, cwd: &str, turns: &[Value]) -> String {
    turns
        .iter()
        .enumerate()
        .map(|(n, t)| {
            let role = t["role"].as_str().expect("role");
            let line = json!({
                "parentUuid": if n == 0 { Value::Null } else { json!(format!("u{}", n - 1)) },
                "isSidechain": false,
                "userType": "external",
                "cwd": cwd,
                "sessionId": session,
                "version": "2.0.14",
                "type": role,
                "message": {"role": role, "content": [{"type": "text", "text": t["content"]}]},
                "uuid": format!("u{n}"),
                "timestamp": format!("2026-03-02T09:{:02}:00.000Z", n % 60),
            });
            format!("{line}\n")
        })
        .collect()
}

/// The command Claude Code runs at `event`, as the settings file says.
fn hook_command(env: &Env, event: &str) -> String {
    let text =
        std::fs::read_to_string(env.path(".claude/settings.json")).expect("settings written");
    let without_comments: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let settings: Value = serde_json::from_str(&without_comments).expect("JSON");
    settings["hooks"][event][0]["hooks"][0]["command"]
        .as_str()
        .expect("a command")
        .to_string()
}

/// Runs the hook of `event` as Claude Code does: through the shell, the
/// hook's input on standard input; it must answer at once and exit 0.
fn run_hook(env: &Env, event: &str, input: &Value) -> String {
    use std::io::Write;
    let started = Instant::now();
    let mut child = env
        .program(
            std::path::Path::new("/bin/sh"),
            &["-c", &hook_command(env, event)],
        )
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the hook starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("input written");
    let out = child.wait_with_output().expect("the hook ends");
    assert!(out.status.success(), "{event}: {out:?}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{event} took longer than Claude Code waits"
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn context_of(answer: &str) -> String {
    let value: Value = serde_json::from_str(answer).expect("the start hook answers JSON");
    assert_eq!(value["hookSpecificOutput"]["hookEventName"], "SessionStart");
    value["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("additionalContext")
        .to_string()
}

/// Waits for the background import of a session's transcript.
fn wait_for(env: &Env, id: &str) {
    let until = Instant::now() + Duration::from_secs(60);
    while !env.all_ids().iter().any(|i| i == id) {
        assert!(Instant::now() < until, "{id} was not imported");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_session_starts_with_what_the_last_one_said_and_ends_by_keeping_it() {
    let env = Env::with_model();
    std::fs::create_dir_all(env.path(".claude")).expect("folder");
    std::fs::write(
        env.path(".claude/settings.json"),
        "{\n  // my settings\n  \"model\": \"opus\"\n}\n",
    )
    .expect("written");
    let out = env.ok(&["connect", "claude-code", "--hooks", "--write"]);
    assert!(out.contains("added keep"), "{out}");
    let again = env.run(&["connect", "claude-code", "--hooks", "--write"]);
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already holds keep's session hooks"),
        "{again:?}"
    );

    let repo = env.path("farmers-market");
    std::fs::create_dir_all(repo.join(".git")).expect("a repository");
    let cwd = repo.to_str().expect("UTF-8").to_string();
    let first = run_hook(
        &env,
        "SessionStart",
        &json!({"session_id": "s1", "transcript_path": env.path("s1.jsonl"), "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"}),
    );
    let context = context_of(&first);
    assert!(
        context.contains("nothing stored is relevant to farmers-market"),
        "{context}"
    );

    // The first session: the sample's evidence sessions, as Claude Code
    // wrote them; its end hook imports them in the background.
    let mut evidence = Vec::new();
    for (n, (id, turns)) in sessions().into_iter().enumerate() {
        let session = format!("5e55{n:04}-aaaa-4bbb-8ccc-000000000000");
        let path = env.path(&format!("{session}.jsonl"));
        std::fs::write(&path, transcript(&session, &cwd, &turns)).expect("written");
        for (i, t) in turns.iter().enumerate() {
            if t["has_answer"] == true {
                evidence.push(format!("chat/claude-code/{session}@P{{{}}}", i + 1));
            }
        }
        let ended = run_hook(
            &env,
            "SessionEnd",
            &json!({"session_id": session, "transcript_path": path, "cwd": cwd, "hook_event_name": "SessionEnd", "reason": "exit"}),
        );
        assert!(ended.trim().is_empty(), "{ended}");
        wait_for(&env, &format!("chat/claude-code/{session}"));
        assert!(id.starts_with("answer_"), "{id}");
    }
    env.ok(&["reindex"]);

    // The next session starts with what the first one said.
    let second = context_of(&run_hook(
        &env,
        "SessionStart",
        &json!({"session_id": "s2", "transcript_path": env.path("s2.jsonl"), "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"}),
    ));
    assert!(second.contains("## changed since "), "{second}");
    assert!(second.contains("chat/claude-code/5e550000-"), "{second}");
    assert!(
        evidence.iter().any(|e| second.contains(&format!(" {e}: "))),
        "the context names an evidence turn of {evidence:?}: {second}"
    );
    let ends: Value = serde_json::from_str(
        &std::fs::read_to_string(env.store().join("hooks.json")).expect("ends recorded"),
    )
    .expect("JSON");
    let since = ends[cwd.as_str()]
        .as_str()
        .expect("the end of the last session");
    let json = env.json(&[
        "context",
        "--project",
        "farmers-market",
        "--since",
        since,
        "--json",
    ]);
    assert_eq!(
        json["text"].as_str(),
        Some(second.as_str()),
        "the hook gives keep context's block"
    );
    assert!(json["tokens"].as_u64().expect("tokens") <= 1500, "{json}");
    assert!(!env.store().join("hooks.log").exists(), "no hook failed");

    // A hook given nonsense still exits 0, and says so in hooks.log.
    run_hook(
        &env,
        "SessionEnd",
        &json!({"hook_event_name": "SessionEnd", "cwd": cwd}),
    );
    let log = std::fs::read_to_string(env.store().join("hooks.log")).expect("a failure logged");
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(
        log.contains("SessionEnd: SessionEnd: no transcript_path"),
        "{log}"
    );
    let doctor = env.run(&["doctor"]);
    assert!(
        String::from_utf8_lossy(&doctor.stdout).contains("1 failure(s) of a session hook"),
        "{doctor:?}"
    );

    // --remove takes keep's entries out again, and nothing else.
    env.ok(&["connect", "claude-code", "--hooks", "--remove"]);
    let settings = std::fs::read_to_string(env.path(".claude/settings.json")).expect("settings");
    assert!(!settings.contains("hook claude-code"), "{settings}");
    assert!(
        settings.contains("// my settings") && settings.contains("\"model\": \"opus\""),
        "{settings}"
    );
    let servers = std::fs::read_to_string(env.path(".claude.json")).expect(".claude.json");
    assert!(!servers.contains("\"keep\""), "{servers}");
}
