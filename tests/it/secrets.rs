//! Secrets on the way in: made-up credentials of each kind, put through
//! every way a note comes in (the command line's text, files and a folder,
//! a URL, MCP remember and put_file, the JSON API, a chat import, a tag),
//! are reported, never reach any file of the store, and the notes still
//! find by their other words; `--allow-secrets` keeps them as written.

use crate::common::{Env, repo_root};
use crate::mcp::{call, handshake};
use crate::serve::{Server, curl};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;

const AWS: &str = "AKIAQ3EGRTX7LMN4ZP2W";
const GITHUB: &str = "ghp_Zr8q2LmW9x4TnB7vK1pDa6Hs3Jf5Qe0Cy9Uo";
const SLACK: &str = "xoxb-20311924831-4419287461903-Hq7Vt2KsW9mB4nXc8LpD3eRf";
const STRIPE: &str = "sk_live_51Hq7Vt2KsW9mB4nXc8LpD3eRfZr";
const JWT: &str =
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJiYWNrdXAtYm90In0.Xq8Vt2KsW9mB4nXc8LpD3eRfZr8q2LmW9x4TnB7vK1p";
const DB_PASSWORD: &str = "Tr0ub4dor&3-mango";
const URL_PASSWORD: &str = "Wq9-zLk2Vb7x";
const PEM_BODY: &str = "MIIEowIBAAKCAQEAr8q2LmW9x4TnB7vK1pDa6Hs3Jf5Qe0Cy9UoXq8Vt2KsW9mB4nXc8";
const TAGGED: &str = "glpat-Hq7Vt2KsW9mB4nXc8LpD";
const GOOGLE: &str = "AIzaSyB7vK1pDa6Hs3Jf5Qe0Cy9UoXq8Vt2KsW9";
const BEARER: &str = "Hq7Vt2KsW9mB4nXc8LpD3eRfZr8q2LmW9x4TnB7v";

fn every_secret() -> [&'static str; 11] {
    [
        GOOGLE,
        BEARER,
        AWS,
        GITHUB,
        SLACK,
        STRIPE,
        JWT,
        DB_PASSWORD,
        URL_PASSWORD,
        PEM_BODY,
        TAGGED,
    ]
}

/// Every file under `dir` whose bytes hold `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_holding(&path, needle));
        } else if let Ok(bytes) = std::fs::read(&path)
            && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
        {
            found.push(path.display().to_string());
        }
    }
    found
}

/// Serves one page with a token in an example, at `/howto`.
pub(crate) fn serve_page() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = String::new();
            BufReader::new(&stream).read_line(&mut request).unwrap();
            let body = format!(
                "<html><head><title>Deploy howto</title></head><body><p>The lighthouse deploy job clones with <code>git clone https://{GITHUB}@github.com/acme/site.git</code> every night.</p></body></html>"
            );
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

#[test]
fn secrets_from_every_way_in_are_reported_and_never_reach_the_store() {
    let env = Env::with_model();
    let docs = env.path("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for real in ["sqlite-about.html", "sphinx-python-tutorial-appetite.html"] {
        std::fs::copy(
            repo_root().join("testdata/real").join(real),
            docs.join(real),
        )
        .unwrap();
    }
    std::fs::write(
        docs.join("deploy.conf"),
        format!("# the harbour database\nDB_HOST=db.internal\nDB_PASSWORD={DB_PASSWORD}\n"),
    )
    .unwrap();
    std::fs::write(
        docs.join("map.html"),
        format!(
            "<html><head><title>Harbour map</title></head><body><p>The harbour map page shows the moorings of the marina.</p><p>Its embed is loaded with the key {GOOGLE} from the maps console.</p></body></html>"
        ),
    )
    .unwrap();
    std::fs::write(
        docs.join("tides-api.txt"),
        format!("The tide service answers this call:\ncurl -H 'Authorization: Bearer {BEARER}' https://api.internal/v1/tides\n"),
    )
    .unwrap();
    std::fs::write(
        docs.join("keys.md"),
        format!(
            "# Ferry signing key\n\nThe ferry timetable is signed with this key:\n\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\n"
        ),
    )
    .unwrap();

    // The command line: text, then a folder of real documents and secrets.
    let out = env
        .cmd(&[
            "put",
            "--text",
            &format!("The backup bucket of the lighthouse uses the AWS key {AWS}."),
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("1 secret redacted: aws-access-key"), "{said}");
    assert!(!said.contains(AWS), "{said}");
    let aws_note = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let out = env.cmd(&["put", docs.to_str().unwrap()]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("deploy.conf: 1 secret redacted: password"),
        "{said}"
    );
    assert!(
        said.contains("keys.md: 1 secret redacted: private-key"),
        "{said}"
    );
    assert!(
        said.contains("tides-api.txt: 1 secret redacted: bearer-token"),
        "{said}"
    );
    assert!(
        said.contains("map.html: 1 secret redacted: google-api-key"),
        "{said}"
    );

    // A URL.
    let port = serve_page();
    let report = env.json(&["put", &format!("http://127.0.0.1:{port}/howto"), "--json"]);
    assert_eq!(
        report["redacted"][0]["secrets"][0]["kind"], "github-token",
        "{report}"
    );

    // A tag's value.
    let out = env
        .cmd(&["tag", &aws_note, "-t", &format!("deploy={TAGGED}")])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("gitlab-token") && said.contains("in tag 'deploy'"),
        "{said}"
    );

    // MCP: remember and put_file.
    let chat_dir = env.path("mcp");
    std::fs::create_dir_all(&chat_dir).unwrap();
    std::fs::write(
        chat_dir.join("bot.txt"),
        format!("The harbour bot signs its calls with the token {JWT} until June."),
    )
    .unwrap();
    let mut lines = handshake();
    lines.push(call(
        10,
        "remember",
        json!({ "text": format!("The harbour bot posts to Slack with {SLACK} each morning.") }),
    ));
    lines.push(call(
        11,
        "put_file",
        json!({ "path": chat_dir.join("bot.txt").display().to_string() }),
    ));
    let mut input = lines.join("\n");
    input.push('\n');
    let output = env.run_with_stdin(
        &["mcp", "--allow", chat_dir.to_str().unwrap()],
        input.as_bytes(),
    );
    let answers = String::from_utf8_lossy(&output.stdout).to_string();
    for id in [10, 11] {
        let answer = answers
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|m| m["id"] == id)
            .unwrap();
        let text = answer["result"]["content"][0]["text"].to_string();
        assert!(text.contains("redacted"), "{answer}");
        assert!(!text.contains(SLACK) && !text.contains(JWT), "{answer}");
    }

    // The JSON API.
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let body = json!({ "text": format!("The lighthouse shop charges cards with {STRIPE}.") });
    let (code, answer) = curl(
        &[
            "-X",
            "POST",
            "-H",
            "Content-Type: application/json",
            "-d",
            &body.to_string(),
        ],
        &format!("http://{}/v1/notes", server.addr),
    );
    assert_eq!(code, 0, "{answer}");
    assert!(answer.contains("stripe-key"), "{answer}");
    assert!(!answer.contains(STRIPE), "{answer}");
    assert!(server.terminate().success());

    // A chat export.
    let export = env.path("chat.jsonl");
    std::fs::write(
        &export,
        format!(
            "{{\"session\": \"s1\", \"speaker\": \"user\", \"text\": \"The lighthouse wiki is at https://ana:{URL_PASSWORD}@wiki.internal/start\"}}\n{{\"session\": \"s1\", \"speaker\": \"assistant\", \"text\": \"Noted, the wiki address.\"}}\n"
        ),
    )
    .unwrap();
    let out = env
        .cmd(&["import", "--format", "chat", export.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("url-password"), "{said}");

    // Nothing of any secret is in any file of the store (WAL, indexes and
    // sidecar files included), and the notes find by their other words.
    let store = env.store();
    for secret in every_secret() {
        let holding = files_holding(&store, secret);
        assert!(holding.is_empty(), "{secret} is in {holding:?}");
    }
    for (query, wanted) in [
        ("backup bucket lighthouse", aws_note.clone()),
        ("harbour database host", "deploy.conf".to_string()),
        ("ferry timetable signing", "keys.md".to_string()),
        ("tide service call", "tides-api.txt".to_string()),
        ("moorings of the marina", "map.html".to_string()),
        ("harbour bot slack morning", "%".to_string()),
        ("lighthouse deploy job clones", "howto".to_string()),
        ("lighthouse wiki address", "chat".to_string()),
    ] {
        let found = env.ok(&["find", query, "--ids", "-n", "3"]);
        assert!(
            found.lines().any(|id| id.contains(&wanted)),
            "{query}: {found}"
        );
    }
    let tagged = env.json(&["get", &aws_note, "--json"]);
    let redacted = tagged[0]["tags"]["_redacted"].to_string();
    assert!(
        redacted.contains("aws-access-key") && redacted.contains("gitlab-token"),
        "{tagged}"
    );
}

#[test]
fn allow_secrets_and_the_config_keep_text_as_written_and_prose_is_never_redacted() {
    let env = Env::new();
    let prose = "The office Wi-Fi password is BlueOtter-7731.";
    let id = env.ok(&["put", "--text", prose]).trim().to_string();
    assert!(env.ok(&["get", &id]).contains("BlueOtter-7731"));
    let kept = env
        .ok(&[
            "put",
            "--allow-secrets",
            "--text",
            &format!("key {AWS} kept"),
        ])
        .trim()
        .to_string();
    assert!(env.ok(&["get", &kept]).contains(AWS));
    let redacted = env.ok(&["put", "--text", &format!("key {GITHUB} gone")]);
    assert!(!env.ok(&["get", redacted.trim()]).contains(GITHUB));
    std::fs::write(env.path("config.toml"), "redact_secrets = false\n").unwrap();
    let as_written = env.ok(&["put", "--text", &format!("token {SLACK} as written")]);
    assert!(env.ok(&["get", as_written.trim()]).contains(SLACK));
}

#[test]
fn a_purged_note_leaves_no_byte_of_its_text_in_any_file_of_the_store() {
    let env = Env::with_model();
    let word = "QuetzalMarmot4471";
    let long: String = (1..=40)
        .map(|i| {
            format!("Paragraph {i} of the ferry plan says the code word {word} opens gate {i}.\n\n")
        })
        .collect();
    env.ok(&["put", "--allow-secrets", "--id", "plan", "--text", &long]);
    env.ok(&[
        "put",
        "--id",
        "plan",
        "--text",
        &format!("{long}One more line."),
    ]);
    env.ok(&["tag", "plan", "-t", &format!("code={word}")]);
    for i in 0..20 {
        env.ok(&[
            "put",
            "--text",
            &format!("Harbour note {i}: the tide tables of pier {i}."),
        ]);
    }
    let parts = env.json(&["get", "plan", "--parts", "--json"]);
    assert!(
        parts.to_string().matches("Paragraph").count() > 5,
        "{parts}"
    );
    let held = env.run(&["check", "--residue", word]);
    assert_eq!(held.status.code(), Some(1), "the note holds it before");
    let backup = env.path("before.db");
    if !env.on_postgres() {
        env.ok(&["backup", backup.to_str().unwrap()]);
    }
    env.ok(&["del", "plan", "--reason", &format!("mentions {word}")]);
    let out = env.cmd(&["del", "--purge", "plan"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    if !env.on_postgres() {
        assert!(
            said.contains("still in the backup") && said.contains("before.db"),
            "{said}"
        );
    }

    // On PostgreSQL this asks every row; on SQLite, the rows and every
    // file of the store's folder.
    let residue = env.run_with_stdin(&["check", "--residue", "-"], format!("{word}\n").as_bytes());
    assert!(
        residue.status.success(),
        "{}",
        String::from_utf8_lossy(&residue.stdout)
    );
    for needle in [word.to_string(), word.to_lowercase()] {
        let holding = files_holding(&env.store(), &needle);
        assert!(holding.is_empty(), "{needle} is in {holding:?}");
    }
    assert!(env.ok(&["check"]).starts_with("ok"));
    let found = env.ok(&["find", "tide tables of the pier", "--ids"]);
    assert!(found.lines().count() >= 3, "{found}");
    let log = env.ok(&["log", "plan"]);
    assert!(log.contains("purge") && !log.contains(word), "{log}");
}
