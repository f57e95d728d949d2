//! Who may do what through `keep serve`: every MCP tool, a resource and
//! every JSON API route, called by the reference Python MCP client and by
//! curl with each kind of token (the owner's, read-only, scoped, expired,
//! revoked, unknown, none on a loopback address with and without
//! `--require-token`, none on an open address); and the operations log
//! naming a token's writes by its name, whatever the client calls itself.
//! One test is generated from the registries themselves: every route the
//! OpenAPI document lists and every tool `tools/list` offers, each with
//! the example it declares aimed at another project's note every way
//! (directly, as what it supersedes, planting that project's tag,
//! removing one's own), plus the resources, prompts, completions and the
//! web page's views, so a route or tool added later is covered as it is.

use serde_json::{Value, json};

use crate::common::Env;
use crate::mcp::client_python;
use crate::serve::{Server, curl};

/// The tools that only read; every other tool writes.
const READING: &[&str] = &[
    "conflicts",
    "get",
    "list",
    "log",
    "recall",
    "related",
    "stats",
];

const ALL_TOOLS: usize = 18;

/// Every tool, with arguments that are valid where it matters here (the
/// others are refused for their arguments, after the rights).
fn calls(who: &str) -> Value {
    json!({
        "remember": {"text": format!("Queue restarted at noon, said {who}.")},
        "recall": {"query": "queue"},
        "get": {"id": "ops"}, "list": {}, "tag": {}, "forget": {}, "restore": {},
        "revert": {}, "now": {}, "move": {}, "put_file": {}, "related": {"id": "ops"},
        "feedback": {}, "supersede": {}, "conflicts": {}, "analyze": {}, "log": {}, "stats": {},
    })
}

/// One session of the reference client with `token` ("-" for none),
/// calling every tool and reading note `note` as a resource.
fn session(env: &Env, url: &str, token: &str, note: &str) -> Value {
    let who = &token[token.len().saturating_sub(6)..];
    let script = crate::common::repo_root().join("tests/mcp_rights_client.py");
    let out = env
        .program(
            &client_python(),
            &[
                script.to_str().unwrap(),
                url,
                token,
                &calls(who).to_string(),
            ],
        )
        .env("NOTE", note)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the client failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap()
}

fn refused_for_rights(answer: &Value, tool: &str) -> bool {
    let call = &answer["calls"][tool];
    call["error"] == json!(true)
        && call["text"]
            .as_str()
            .unwrap_or("")
            .contains("may only read")
}

/// `curl` with `token` (None for none): the status and the body.
fn api(token: Option<&str>, method: &str, url: &str, body: Option<&str>) -> (u16, String) {
    let auth = token.map(|t| format!("Authorization: Bearer {t}"));
    let mut args = vec!["-X", method, "-w", "\n%{http_code}", "-D", "-"];
    if let Some(header) = &auth {
        args.extend(["-H", header]);
    }
    if let Some(body) = body {
        args.extend(["-H", "Content-Type: application/json", "-d", body]);
    }
    let (code, out) = curl(&args, url);
    assert_eq!(code, 0, "{out}");
    let (rest, status) = out.trim_end().rsplit_once('\n').unwrap();
    (status.parse().unwrap(), rest.to_string())
}

#[test]
fn every_tool_resource_and_route_checks_the_callers_rights() {
    let mut env = Env::new();
    env.ok(&[
        "put",
        "Ops runbook: restart the queue with systemctl.",
        "--id",
        "ops",
        "-t",
        "project=ops",
    ]);
    env.ok(&[
        "put",
        "Design notes for the web page queue.",
        "--id",
        "web",
        "-t",
        "project=web",
    ]);
    let secret = |args: &[&str]| env.ok(args).trim().to_string();
    let reviewer = secret(&["token", "add", "reviewer", "--read-only"]);
    let opsbot = secret(&["token", "add", "opsbot", "--scope", "project=ops"]);
    let old = secret(&["token", "add", "old", "--expires", "PT1H"]);
    let gone = secret(&["token", "add", "gone"]);
    env.ok(&["token", "revoke", "gone"]);
    // A name nothing answers to is not found, as a missing note is.
    let again = env.fails(&["token", "revoke", "gone"], 1);
    assert!(again.contains("no token named 'gone'"), "{again}");
    env.fails(&["token", "rotate", "nobody"], 1);
    let owner = secret(&["serve", "--token"]);
    // The owner's token is the owner's alone; the folder, until made so.
    {
        use std::os::unix::fs::PermissionsExt;
        let store = env.store();
        let mode = std::fs::metadata(store.join("serve.token"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o755)).unwrap();
        let said = String::from_utf8(env.run(&["doctor"]).stdout).unwrap();
        assert!(
            said.contains("warn  secrets    other users may read"),
            "{said}"
        );
        std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o700)).unwrap();
        let said = String::from_utf8(env.run(&["doctor"]).stdout).unwrap();
        assert!(said.contains("ok    secrets"), "{said}");
    }
    // Two hours on: 'old' has expired.
    env.at("2026-11-22T12:00:00Z");

    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let url = server.url.clone();

    // The owner, by token or from this machine without one: everything.
    for token in [owner.as_str(), "-"] {
        let answer = session(&env, &url, token, "web");
        assert_eq!(answer["http"], 200, "{answer}");
        assert_eq!(answer["tools"].as_array().unwrap().len(), ALL_TOOLS);
        assert_eq!(answer["calls"]["remember"]["error"], false, "{answer}");
        assert!(
            answer["calls"]["recall"]["text"]
                .as_str()
                .unwrap()
                .contains("web")
        );
        assert!(answer["resource"]["text"].is_string(), "{answer}");
        for tool in answer["calls"].as_object().unwrap().keys() {
            assert!(!refused_for_rights(&answer, tool), "{tool}: {answer}");
        }
    }

    // Read-only: offered the reading tools only; every writing one refused.
    let answer = session(&env, &url, &reviewer, "web");
    assert_eq!(answer["http"], 200);
    let offered: Vec<&str> = answer["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(offered, READING);
    for (tool, _) in calls("").as_object().unwrap() {
        let reads = READING.contains(&tool.as_str());
        assert_eq!(
            refused_for_rights(&answer, tool),
            !reads,
            "{tool}: {answer}"
        );
    }
    assert!(
        answer["calls"]["remember"]["text"]
            .as_str()
            .unwrap()
            .contains("the token 'reviewer' may only read: remember writes")
    );
    assert!(answer["resource"]["text"].is_string(), "{answer}");

    // Scoped: sees and writes its scope only, resources included; its
    // writes are logged under its name, not the client's.
    let answer = session(&env, &url, &opsbot, "web");
    assert_eq!(answer["tools"].as_array().unwrap().len(), ALL_TOOLS);
    assert_eq!(answer["calls"]["remember"]["error"], false, "{answer}");
    let found = answer["calls"]["recall"]["text"].as_str().unwrap();
    assert!(found.contains("ops") && !found.contains("web"), "{found}");
    assert!(answer["calls"]["get"]["error"] == false, "{answer}");
    assert!(
        answer["resource"]["error"].is_string(),
        "web is outside: {answer}"
    );
    let log = env.ok(&["log", "--agent", "opsbot"]);
    assert_eq!(log.lines().count(), 1, "{log}");
    let logged = env.json(&["log", "--agent", "opsbot"]);
    assert_eq!(logged[0]["agent"], "opsbot", "{logged}");
    assert!(
        logged[0]["detail"].as_str().unwrap().starts_with("via "),
        "the client's own name beside it: {logged}"
    );
    let remembered = log.split_whitespace().find(|w| w.starts_with('%')).unwrap();
    let note = env.json(&["get", remembered]);
    assert_eq!(note[0]["tags"]["project"], json!(["ops"]), "{note}");
    assert_eq!(note[0]["tags"]["_agent"], json!(["opsbot"]), "{note}");

    // Expired, revoked, unknown: refused before any session.
    for token in [old.as_str(), gone.as_str(), "keep_not_a_token"] {
        assert_eq!(session(&env, &url, token, "")["http"], 401, "{token}");
    }

    // The JSON API, route by route.
    let origin = url.trim_end_matches("/mcp");
    let notes = format!("{origin}/v1/notes");
    let (status, body) = api(Some(&reviewer), "POST", &notes, Some(r#"{"text": "x"}"#));
    assert_eq!(status, 403, "{body}");
    assert!(body.contains(r#"error="insufficient_scope""#), "{body}");
    let (status, _) = api(
        Some(&reviewer),
        "POST",
        &format!("{notes}/ops/tags"),
        Some(r#"{"add": ["a=b"]}"#),
    );
    assert_eq!(status, 403);
    let (status, body) = api(
        Some(&reviewer),
        "GET",
        &format!("{origin}/v1/find?q=queue"),
        None,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("web"), "{body}");
    let (status, body) = api(Some(&opsbot), "GET", &notes, None);
    assert_eq!(status, 200);
    assert!(
        body.contains("Ops runbook") && !body.contains("Design notes"),
        "{body}"
    );
    let (status, _) = api(Some(&opsbot), "GET", &format!("{notes}/web"), None);
    assert_eq!(status, 404);
    let (status, body) = api(
        Some(&opsbot),
        "POST",
        &notes,
        Some(r#"{"text": "Queue drained."}"#),
    );
    assert_eq!(status, 201, "{body}");
    // The routes the web page writes through, and its views, by the same rights.
    for action in ["rate", "supersede", "trash", "restore", "tags"] {
        let body = match action {
            "rate" => r#"{"rating": "useful"}"#,
            "tags" => r#"{"add": ["a=b"]}"#,
            _ => "{}",
        };
        let (status, said) = api(
            Some(&reviewer),
            "POST",
            &format!("{notes}/ops/{action}"),
            Some(body),
        );
        assert_eq!(status, 403, "{action}: {said}");
        let (status, said) = api(
            Some(&opsbot),
            "POST",
            &format!("{notes}/web/{action}"),
            Some(body),
        );
        assert_eq!(status, 404, "{action} outside the scope: {said}");
    }
    let (status, said) = api(
        Some(&opsbot),
        "POST",
        &format!("{notes}/ops/rate"),
        Some(r#"{"rating": "useful"}"#),
    );
    assert_eq!(status, 200, "{said}");
    let (status, _) = api(Some(&opsbot), "GET", &format!("{origin}/v1/stats"), None);
    assert_eq!(status, 403, "stats count the whole store");
    let (status, said) = api(
        Some(&opsbot),
        "GET",
        &format!("{origin}/v1/log?limit=100"),
        None,
    );
    assert_eq!(status, 200, "{said}");
    assert!(
        said.contains(r#""note": "ops""#) && !said.contains(r#""note": "web""#),
        "{said}"
    );
    let (status, _) = api(Some(&opsbot), "GET", &format!("{origin}/note/web"), None);
    assert_eq!(status, 404, "the page keeps the scope");
    let (status, said) = api(Some(&reviewer), "GET", &format!("{origin}/note/ops"), None);
    assert_eq!(status, 200, "{said}");
    assert!(
        said.contains("Ops runbook") && !said.contains("class=\"act "),
        "a read-only page: {said}"
    );
    let (status, said) = api(Some(&reviewer), "GET", &format!("{origin}/stats"), None);
    assert_eq!(status, 200, "{said}");
    let (status, body) = api(Some("keep_not_a_token"), "GET", &notes, None);
    assert_eq!(status, 401);
    assert!(body.contains(r#"error="invalid_token""#), "{body}");
    let (status, _) = api(Some(&old), "GET", &format!("{origin}/health"), None);
    assert_eq!(status, 401);
    assert!(server.terminate().success());

    // --require-token: no token is no entry, on loopback too.
    let server = Server::start(&env, &["--listen", "127.0.0.1:0", "--require-token"]);
    assert_eq!(session(&env, &server.url, "-", "")["http"], 401);
    assert_eq!(session(&env, &server.url, &owner, "")["http"], 200);
    let origin = server.url.trim_end_matches("/mcp");
    let (status, body) = api(None, "GET", &format!("{origin}/health"), None);
    assert_eq!(status, 401);
    assert!(body.contains(r#"Bearer realm="keep""#), "{body}");
    assert!(server.terminate().success());

    // An open address: no token is no entry.
    let server = Server::start(&env, &["--listen", "0.0.0.0:0"]);
    let url = server.url.replace("0.0.0.0", "127.0.0.1");
    assert_eq!(session(&env, &url, "-", "")["http"], 401);
    assert_eq!(session(&env, &url, &reviewer, "")["http"], 200);
    assert!(server.terminate().success());
}

#[test]
fn two_servers_on_one_database_accept_the_same_tokens() {
    let a = Env::new();
    if !a.on_postgres() {
        // One SQLite store has one server; this is the PostgreSQL pass's.
        return;
    }
    // Another machine: its own home and local folder, the same database.
    let mut b = Env::on(false);
    b.set("KEEP_STORE", &a.store_arg());
    a.ok(&["put", "Shared from machine A.", "--id", "shared"]);
    let reviewer = a
        .ok(&["token", "add", "reviewer", "--read-only"])
        .trim()
        .to_string();
    let owner_a = a.ok(&["serve", "--token"]).trim().to_string();
    let server_a = Server::start(&a, &["--listen", "127.0.0.1:0", "--require-token"]);
    let server_b = Server::start(&b, &["--listen", "127.0.0.1:0", "--require-token"]);
    for url in [&server_a.url, &server_b.url] {
        let origin = url.trim_end_matches("/mcp");
        let (status, body) = api(
            Some(&reviewer),
            "GET",
            &format!("{origin}/v1/notes/shared"),
            None,
        );
        assert_eq!(status, 200, "{url}: {body}");
        let (status, body) = api(
            Some(&owner_a),
            "GET",
            &format!("{origin}/v1/notes/shared"),
            None,
        );
        assert_eq!(status, 200, "{url}: {body}");
    }
    // Revoked on one machine, refused by both.
    b.ok(&["token", "revoke", "reviewer"]);
    for url in [&server_a.url, &server_b.url] {
        let origin = url.trim_end_matches("/mcp");
        let (status, _) = api(
            Some(&reviewer),
            "GET",
            &format!("{origin}/v1/notes/shared"),
            None,
        );
        assert_eq!(status, 401, "{url}");
    }
    assert!(server_a.terminate().success());
    assert!(server_b.terminate().success());
}

/// The notes a token scoped to project a must leave as they are: project
/// b's and the unscoped `now`, as an export holds them (every version,
/// part, rating and access time).
fn others(env: &Env) -> Vec<String> {
    env.ok(&["export", "--no-vectors"])
        .lines()
        .filter(|line| {
            let record: Value = serde_json::from_str(line).unwrap_or(Value::Null);
            record["id"] == "now"
                || record["tags"]["project"]
                    .as_array()
                    .is_some_and(|v| v.contains(&json!("b")))
        })
        .map(str::to_string)
        .collect()
}

/// The secrets of project b, which nothing a project-a token is answered
/// may hold.
const SECRETS: [&str; 4] = [
    "hunter2",
    "Tr0ub4dor&3",
    "importer in March",
    "sk-test-4242",
];

fn holds_a_secret(body: &str) -> Option<&'static str> {
    SECRETS.into_iter().find(|s| body.contains(s))
}

/// Project b's notes (a secret with two versions, a plan, another
/// secret), project a's roadmap, and the unscoped `now` note.
fn seed_projects(env: &Env) {
    let notes = [
        ("The production database password is hunter2", THEIRS, "b"),
        (
            "The production database password is hunter2, rotated monthly",
            THEIRS,
            "b",
        ),
        ("Team B plan: ship the importer in March.", "b/plan", "b"),
        (
            "The backup root password is Tr0ub4dor&3 on the vault host.",
            "ops/backup-root",
            "b",
        ),
        ("Team A roadmap: a new search page.", OURS, "a"),
    ];
    for (text, id, project) in notes {
        env.ok(&["put", text, "--id", id, "-t", &format!("project={project}")]);
    }
    env.ok(&[
        "put",
        "The staging API key is sk-test-4242.",
        "-t",
        "project=b",
    ]);
    env.ok(&["now", "Reviewing the release notes."]);
}

#[test]
fn a_scoped_token_reaches_nothing_of_another_project() {
    let mut env = Env::new();
    seed_projects(&env);
    let secret = |args: &[&str]| env.ok(args).trim().to_string();
    let teama = secret(&["token", "add", "teama", "--scope", "project=a"]);
    env.at("2026-11-22T12:00:00Z");
    let before = others(&env);
    assert_eq!(before.len(), 5, "{before:?}");

    let server = Server::start(&env, &["--listen", "127.0.0.1:0", "--require-token"]);
    let origin = server.url.trim_end_matches("/mcp").to_string();
    let notes = format!("{origin}/v1/notes");
    let as_a = |method: &str, url: &str, body: Option<&str>| {
        let (status, said) = api(Some(&teama), method, url, body);
        assert_eq!(holds_a_secret(&said), None, "{method} {url}: {said}");
        (status, said)
    };

    // Each way in that was open before, by name.
    let cases: [(&str, String, Option<&str>, u16); 12] = [
        (
            "POST",
            notes.clone(),
            Some(r#"{"id": "secret/db", "text": "owned by team a"}"#),
            409,
        ),
        (
            "POST",
            notes.clone(),
            Some(r#"{"id": "now", "text": "Team A took over."}"#),
            409,
        ),
        (
            "POST",
            notes.clone(),
            Some(r#"{"text": "A planted note.", "tags": ["project=b"]}"#),
            403,
        ),
        (
            "POST",
            notes.clone(),
            Some(r#"{"text": "Team A plan, the new one.", "supersedes": ["b/plan"]}"#),
            404,
        ),
        (
            "POST",
            format!("{notes}/a%2Froadmap/supersede"),
            Some(r#"{"olds": ["b/plan"]}"#),
            404,
        ),
        (
            "POST",
            format!("{notes}/b%2Fplan/supersede"),
            Some(r#"{"olds": ["a/roadmap"]}"#),
            404,
        ),
        (
            "POST",
            format!("{notes}/a%2Froadmap/tags"),
            Some(r#"{"remove": ["project"]}"#),
            403,
        ),
        (
            "POST",
            format!("{notes}/a%2Froadmap/tags"),
            Some(r#"{"add": ["project=b"]}"#),
            403,
        ),
        ("GET", format!("{notes}/secret%2Fdb"), None, 404),
        ("GET", format!("{notes}/secret%2Fdb%40V%7B1%7D"), None, 404),
        ("GET", format!("{notes}/secret%2Fdb/history"), None, 404),
        (
            "POST",
            format!("{notes}/secret%2Fdb/trash"),
            Some("{}"),
            404,
        ),
    ];
    for (method, url, body, expected) in &cases {
        let (status, said) = as_a(method, url, *body);
        assert_eq!(status, *expected, "{method} {url} {body:?}: {said}");
    }
    // The duplicate verdict compares with project a's notes only, and
    // names nothing else; asked to update, it updates nothing else.
    for body in [
        r#"{"text": "The backup root password is Tr0ub4dor&4 on the vault host."}"#,
        r#"{"text": "The production database password is hunter3, rotated monthly", "update": true}"#,
    ] {
        let (status, said) = api(Some(&teama), "POST", &notes, Some(body));
        assert!(status == 200 || status == 201, "{body}: {said}");
        for other in ["ops/backup-root", "secret/db", "Tr0ub4dor&3", "hunter2"] {
            assert!(!said.contains(other), "{body}: {said}");
        }
    }
    for url in [
        format!("{origin}/v1/find?q=password"),
        format!("{origin}/v1/find?q=password&deep=true"),
        format!("{notes}?limit=100"),
        format!("{origin}/v1/log?limit=100"),
        format!("{origin}/v1/conflicts"),
    ] {
        let (status, said) = as_a("GET", &url, None);
        assert!(status == 200 || status == 403, "{url}: {said}");
        assert!(
            !said.contains("secret/db") && !said.contains("b/plan"),
            "{url}: {said}"
        );
    }

    // The same text as a note of project b is a note of project a's own,
    // under an id of its own: neither a refusal nor the id says that b
    // holds that text.
    let theirs = env.ok(&["list", "--ids", "-t", "project=b"]);
    let (status, said) = api(
        Some(&teama),
        "POST",
        &notes,
        Some(r#"{"text": "The staging API key is sk-test-4242."}"#),
    );
    assert_eq!(status, 201, "{said}");
    let mine: Value = serde_json::from_str(said.split_once("\r\n\r\n").unwrap().1).unwrap();
    let mine = mine["id"].as_str().unwrap();
    assert!(
        mine.starts_with('%') && !theirs.contains(mine),
        "{mine} in {theirs}"
    );
    assert!(server.terminate().success());
    assert_eq!(others(&env), before, "project b and 'now' as they were");
}

#[test]
fn an_mcp_session_answers_only_the_token_that_opened_it() {
    let env = Env::new();
    let secret = |args: &[&str]| env.ok(args).trim().to_string();
    let alice = secret(&["token", "add", "alice"]);
    let bob = secret(&["token", "add", "bob"]);
    let server = Server::start(&env, &["--listen", "127.0.0.1:0", "--require-token"]);
    let post = |token: &str, session: Option<&str>, body: &str| {
        let auth = format!("Authorization: Bearer {token}");
        let mut args = vec![
            "-X",
            "POST",
            "-D",
            "-",
            "-w",
            "\n%{http_code}",
            "-H",
            &auth,
            "-H",
            "Content-Type: application/json",
            "-H",
            "Accept: application/json, text/event-stream",
            "-d",
            body,
        ];
        let header = session.map(|s| format!("Mcp-Session-Id: {s}"));
        if let Some(header) = &header {
            args.extend(["-H", header]);
        }
        let (code, out) = curl(&args, &server.url);
        assert_eq!(code, 0, "{out}");
        let (rest, status) = out.trim_end().rsplit_once('\n').unwrap();
        (status.parse::<u16>().unwrap(), rest.to_string())
    };
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let (status, said) = post(&alice, None, initialize);
    assert_eq!(status, 200, "{said}");
    let session = said
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id in {said}"));
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#;
    let (status, said) = post(&bob, Some(&session), list);
    assert_eq!(status, 404, "another token's session: {said}");
    assert!(!said.contains("remember"), "{said}");
    let (status, said) = post(&alice, Some(&session), list);
    assert_eq!(status, 200, "{said}");
    assert!(said.contains("remember"), "{said}");
    // Each request is named on stderr by its caller, with an id it was
    // answered with.
    let said = server.said();
    assert!(
        said.iter().any(|l| l.contains(" bob POST /mcp 404 ")),
        "{said:?}"
    );
    assert!(server.terminate().success());
}

/// The note of project b every generated request aims at, and project a's
/// own note, for requests that join the two.
const THEIRS: &str = "secret/db";
const OURS: &str = "a/roadmap";

fn encoded(id: &str) -> String {
    id.replace('%', "%25")
        .replace('/', "%2F")
        .replace('@', "%40")
        .replace('{', "%7B")
        .replace('}', "%7D")
}

/// The ways a request can reach project b's note: aimed at it directly,
/// or at project a's note with b's note as what it supersedes, with b's
/// scope tag planted, or with a's own scope key removed. `example` is the
/// registry's example; `takes` the names of the arguments the entry takes.
fn aimed(example: &Value, takes: &[String]) -> Vec<(&'static str, Value)> {
    let has = |key: &str| takes.iter().any(|k| k == key);
    let with = |pairs: &[(&str, Value)]| {
        let mut args = example.clone();
        for (key, value) in pairs {
            if has(key) {
                args[*key] = value.clone();
            }
        }
        args
    };
    let theirs = json!(THEIRS);
    let ours = json!(OURS);
    let mut variants = vec![(
        "theirs",
        with(&[
            ("id", theirs.clone()),
            ("source", theirs.clone()),
            ("target", theirs.clone()),
        ]),
    )];
    if example.get("like").is_some() {
        variants.push(("like", with(&[("like", theirs.clone())])));
    }
    for list in ["olds", "supersedes"] {
        if has(list) {
            variants.push((
                "olds",
                with(&[("id", ours.clone()), (list, json!([THEIRS]))]),
            ));
        }
    }
    for tags in ["tags", "add"] {
        if has(tags) {
            variants.push((
                "plant",
                with(&[("id", ours.clone()), (tags, json!(["project=b"]))]),
            ));
        }
    }
    if has("remove") {
        variants.push((
            "unscope",
            with(&[("id", ours.clone()), ("remove", json!(["project"]))]),
        ));
    }
    if has("source") && has("target") {
        variants.push((
            "into",
            with(&[("source", ours.clone()), ("target", theirs.clone())]),
        ));
    }
    variants
}

/// Every JSON API route the document describes, with its example aimed
/// at project b's note each way: (label, method, path and query, body).
/// A request: its label, method, path with query, and body.
type Request = (String, String, String, Option<String>);

fn api_requests(described: &Value) -> Vec<Request> {
    let mut requests = Vec::new();
    for (path, operations) in described["paths"].as_object().unwrap() {
        for (method, operation) in operations.as_object().unwrap() {
            let method = method.to_uppercase();
            let parameters = operation["parameters"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let body = &operation["requestBody"]["content"]["application/json"];
            let (example, takes): (Value, Vec<String>) = if method == "GET" {
                let example = parameters
                    .iter()
                    .filter(|p| p["in"] == "query" && p.get("example").is_some())
                    .map(|p| {
                        (
                            p["name"].as_str().unwrap().to_string(),
                            p["example"].clone(),
                        )
                    })
                    .collect::<serde_json::Map<_, _>>();
                let takes = parameters
                    .iter()
                    .filter_map(|p| p["name"].as_str().map(str::to_string))
                    .collect();
                (Value::Object(example), takes)
            } else {
                let takes = body["schema"]["properties"]
                    .as_object()
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                let mut takes: Vec<String> = takes;
                if path.contains("{id}") {
                    takes.push("id".into());
                }
                (body["example"].clone(), takes)
            };
            for (variant, mut args) in aimed(&example, &takes) {
                let id = args
                    .as_object_mut()
                    .and_then(|a| {
                        if path.contains("{id}") {
                            a.remove("id")
                        } else {
                            None
                        }
                    })
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_else(|| THEIRS.to_string());
                let mut url = path.replace("{id}", &encoded(&id));
                let body = if method == "GET" {
                    let query: Vec<String> = args
                        .as_object()
                        .unwrap()
                        .iter()
                        .flat_map(|(k, v)| {
                            match v {
                                Value::Array(values) => values.clone(),
                                other => vec![other.clone()],
                            }
                            .into_iter()
                            .map(move |v| {
                                let v = v.as_str().map_or(v.to_string(), str::to_string);
                                format!(
                                    "{k}={}",
                                    encoded(&v).replace(' ', "%20").replace('=', "%3D")
                                )
                            })
                        })
                        .collect();
                    if !query.is_empty() {
                        url = format!("{url}?{}", query.join("&"));
                    }
                    None
                } else {
                    Some(args.to_string())
                };
                requests.push((
                    format!("{method} {path} {variant}"),
                    method.clone(),
                    url,
                    body,
                ));
            }
        }
    }
    requests
}

/// Every MCP tool the registry lists, with its example aimed at project
/// b's note each way: [label, tool, arguments].
fn tool_calls(schemas: &Value) -> Value {
    let mut calls = Vec::new();
    for (tool, schema) in schemas.as_object().unwrap() {
        let example = schema["examples"][0].clone();
        assert!(example.is_object(), "{tool} declares no example: {schema}");
        let takes: Vec<String> = schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        for (variant, args) in aimed(&example, &takes) {
            calls.push(json!([format!("{tool}:{variant}"), tool, args]));
        }
    }
    Value::Array(calls)
}

/// The web page's views, each aimed at project b's note where it names one.
fn views() -> Vec<String> {
    let theirs = encoded(THEIRS);
    vec![
        "/".into(),
        "/?q=password".into(),
        format!("/note/{theirs}"),
        format!("/graph/{theirs}"),
        "/log".into(),
        "/stats".into(),
        "/conflicts".into(),
    ]
}

/// One session of the reference MCP client: the calls, project b's note
/// as a resource, `now`, the prompts and the completion of note ids.
fn mcp_session(env: &Env, url: &str, token: &str, calls: &Value) -> Value {
    let script = crate::common::repo_root().join("tests/mcp_rights_client.py");
    let out = env
        .program(
            &client_python(),
            &[script.to_str().unwrap(), url, token, &calls.to_string()],
        )
        .env("NOTE", THEIRS)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(said.trim()).unwrap()
}

#[test]
fn every_route_tool_resource_prompt_and_view_holds_each_caller_to_its_rights() {
    let mut env = Env::new();
    seed_projects(&env);
    let secret = |args: &[&str]| env.ok(args).trim().to_string();
    let teama = secret(&["token", "add", "teama", "--scope", "project=a"]);
    let teamb = secret(&["token", "add", "teamb", "--scope", "project=b"]);
    let reader = secret(&["token", "add", "ro", "--read-only"]);
    let expired = secret(&["token", "add", "old", "--expires", "PT1H"]);
    let revoked = secret(&["token", "add", "gone"]);
    env.ok(&["token", "revoke", "gone"]);
    let owner = secret(&["serve", "--token"]);
    env.at("2026-11-22T12:00:00Z");
    let before = others(&env);

    let strict = Server::start(&env, &["--listen", "127.0.0.1:0", "--require-token"]);
    let origin = strict.url.trim_end_matches("/mcp").to_string();
    let (status, described) = api(Some(&owner), "GET", &format!("{origin}/openapi.json"), None);
    assert_eq!(status, 200);
    let described: Value =
        serde_json::from_str(described.split_once("\r\n\r\n").unwrap().1).unwrap();
    let requests = api_requests(&described);
    let registry = mcp_session(&env, &strict.url, &owner, &json!([]));
    let calls = tool_calls(&registry["schemas"]);
    assert!(requests.len() >= 20, "{} requests", requests.len());
    assert_eq!(
        calls
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c[1].as_str().unwrap().to_string())
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        ALL_TOOLS
    );

    // Callers that may not change project b: each asked everything.
    let page =
        |token: Option<&str>, path: &str| api(token, "GET", &format!("{origin}{path}"), None);
    // A refused caller waits longer with each failure, so they ask at once.
    let refused = [
        ("none", None),
        ("expired", Some(expired.as_str())),
        ("revoked", Some(revoked.as_str())),
        ("unknown", Some("keep_not_a_token")),
    ];
    let asks: Vec<(&str, Option<&str>, Request)> = refused
        .iter()
        .flat_map(|(who, token)| {
            let views = views()
                .into_iter()
                .map(|path| (path.clone(), "GET".to_string(), path, None));
            requests
                .iter()
                .cloned()
                .chain(views)
                .map(move |request| (*who, *token, request))
        })
        .collect();
    for chunk in asks.chunks(48) {
        std::thread::scope(|threads| {
            for (who, token, (label, method, url, body)) in chunk {
                let origin = &origin;
                threads.spawn(move || {
                    let (status, said) =
                        api(*token, method, &format!("{origin}{url}"), body.as_deref());
                    assert_eq!(status, 401, "{who}: {label}: {said}");
                    assert_eq!(holds_a_secret(&said), None, "{who}: {label}: {said}");
                });
            }
        });
    }
    std::thread::scope(|threads| {
        for (who, token) in &refused {
            let (env, url, calls) = (&env, &strict.url, &calls);
            threads.spawn(move || {
                let answer = mcp_session(env, url, token.unwrap_or("-"), calls);
                assert_eq!(answer["http"], 401, "{who}: {answer}");
            });
        }
    });
    for (label, method, url, body) in &requests {
        let (status, said) = api(
            Some(&reader),
            method,
            &format!("{origin}{url}"),
            body.as_deref(),
        );
        if method == "POST" {
            assert_eq!(status, 403, "read-only: {label}: {said}");
        } else {
            assert!(status < 500, "read-only: {label}: {status} {said}");
        }
        let (status, said) = api(
            Some(&teama),
            method,
            &format!("{origin}{url}"),
            body.as_deref(),
        );
        assert!(status < 500, "teama: {label}: {status} {said}");
        assert_eq!(holds_a_secret(&said), None, "teama: {label}: {said}");
        let path = url.split('?').next().unwrap_or(url);
        if label.ends_with(" theirs") && path.contains(&encoded(THEIRS)) {
            assert!(
                status == 404 || status == 409,
                "teama: {label}: {status} {said}"
            );
        }
    }
    for path in views() {
        let (status, said) = page(Some(&teama), &path);
        assert_eq!(holds_a_secret(&said), None, "teama: {path}: {said}");
        if path.contains(&encoded(THEIRS)) {
            assert_eq!(status, 404, "teama: {path}");
        }
        let (status, _) = page(Some(&reader), &path);
        assert_eq!(status, 200, "read-only: {path}");
    }
    let answer = mcp_session(&env, &strict.url, &reader, &calls);
    for call in calls.as_array().unwrap() {
        let (label, tool) = (call[0].as_str().unwrap(), call[1].as_str().unwrap());
        if !READING.contains(&tool) {
            assert!(
                refused_for_rights(&answer, label),
                "read-only: {label}: {answer}"
            );
        }
    }
    let answer = mcp_session(&env, &strict.url, &teama, &calls);
    let said = answer.to_string();
    assert_eq!(holds_a_secret(&said), None, "teama over MCP: {said}");
    assert!(answer["resource"]["error"].is_string(), "{answer}");
    assert!(
        !answer["completion"].to_string().contains(THEIRS),
        "{answer}"
    );
    for call in calls.as_array().unwrap() {
        let (label, tool) = (call[0].as_str().unwrap(), call[1].as_str().unwrap());
        let names_it = registry["schemas"][tool]["required"]
            .as_array()
            .is_some_and(|r| r.contains(&json!("id")));
        if label.ends_with(":theirs") && names_it {
            assert_eq!(
                answer["calls"][label]["error"], true,
                "teama: {label}: {answer}"
            );
        }
    }
    assert_eq!(others(&env), before, "project b and 'now' as they were");

    // Project b's own token, the owner by token, and the owner on loopback
    // where no token is asked: they reach the note.
    let (status, said) = api(
        Some(&teamb),
        "GET",
        &format!("{origin}/v1/notes/{}", encoded(THEIRS)),
        None,
    );
    assert_eq!(status, 200, "{said}");
    assert!(said.contains("hunter2"));
    let get = json!([["get", "get", {"id": THEIRS}]]);
    for token in [teamb.as_str(), owner.as_str()] {
        let answer = mcp_session(&env, &strict.url, token, &get);
        assert_eq!(answer["calls"]["get"]["error"], false, "{answer}");
        assert!(
            answer["resource"]["text"]
                .as_str()
                .unwrap()
                .contains("hunter2"),
            "{answer}"
        );
    }
    assert!(strict.terminate().success());
    let open = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let origin = open.url.trim_end_matches("/mcp").to_string();
    let (status, said) = api(
        None,
        "GET",
        &format!("{origin}/v1/notes/{}", encoded(THEIRS)),
        None,
    );
    assert_eq!(status, 200, "{said}");
    let answer = mcp_session(&env, &open.url, "-", &get);
    assert_eq!(answer["calls"]["get"]["error"], false, "{answer}");
    assert!(open.terminate().success());
}
