//! `keep serve`: the real server driven over HTTP by the reference Python
//! MCP client and by raw requests, one server per store, stopped by
//! SIGTERM and killed by SIGKILL.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::common::Env;
use crate::mcp::client_python;

/// A running `keep serve` and the URL it printed.
pub(crate) struct Server {
    child: Child,
    pub(crate) url: String,
    /// `host:port` to connect to.
    pub(crate) addr: String,
    /// Every line it wrote on stderr so far.
    said: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub(crate) fn start(env: &Env, args: &[&str]) -> Server {
        Server::start_with(env, args, None)
    }

    /// `start`, with at most `files` open files (RLIMIT_NOFILE) when given.
    pub(crate) fn start_with(env: &Env, args: &[&str], files: Option<u64>) -> Server {
        let mut all = vec!["serve"];
        all.extend_from_slice(args);
        // Every tool listed, so that what is generated from the listing
        // (the rights test) covers every tool there is.
        if !args.contains(&"--tools") {
            all.extend(["--tools", "all"]);
        }
        let mut command = env.cmd(&all);
        if let Some(files) = files {
            use std::os::unix::process::CommandExt;
            let limit = libc::rlimit {
                rlim_cur: files,
                rlim_max: files,
            };
            // SAFETY: setrlimit is async-signal-safe and touches only the
            // child about to run keep.
            unsafe {
                command.pre_exec(move || {
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
        let mut child = command
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("start keep serve");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let said = Arc::new(Mutex::new(Vec::new()));
        let url = loop {
            let line = lines.next().expect("a line from keep serve").unwrap();
            said.lock().unwrap().push(line.clone());
            if line.contains("serving MCP at") {
                break line
                    .split_whitespace()
                    .find(|w| w.starts_with("http://") || w.starts_with("https://"))
                    .unwrap_or_else(|| panic!("no URL in {line:?}"))
                    .to_string();
            }
        };
        let kept = Arc::clone(&said);
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                kept.lock().unwrap().push(line);
            }
        });
        let base = url.trim_end_matches("/mcp");
        let said_now = said.lock().unwrap().last().cloned().unwrap_or_default();
        assert!(
            said_now.contains(&format!(
                "the web page at {base}/ and the JSON API at {base}/v1/"
            )),
            "the start line names the page and the API: {said_now}"
        );
        let port = url.rsplit(':').next().unwrap().trim_end_matches("/mcp");
        Server {
            child,
            addr: format!("127.0.0.1:{port}"),
            url,
            said,
        }
    }

    /// What it wrote on stderr so far, one line each.
    pub(crate) fn said(&self) -> Vec<String> {
        self.said.lock().unwrap().clone()
    }

    /// Sends one raw HTTP/1.1 request and returns the status code.
    pub(crate) fn status_of(&self, head: &str, body: &str) -> u16 {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let request = format!(
            "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        // The status line is all that is needed; an event stream stays open.
        while !answer.windows(2).any(|w| w == b"\r\n") {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
        let text = String::from_utf8_lossy(&answer);
        text.split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {text:?}"))
    }

    fn initialize(&self, extra_headers: &str) -> u16 {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
        self.status_of(
            &format!(
                "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream{extra_headers}",
                self.addr
            ),
            body,
        )
    }

    pub(crate) fn terminate(mut self) -> std::process::ExitStatus {
        // SAFETY: a signal to a child this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        self.child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run_clients(env: &Env, url: &str, token: &str, sessions: usize, seconds: f64) -> Value {
    let script = crate::common::repo_root().join("tests/mcp_http_client.py");
    let output = env
        .program(
            &client_python(),
            &[
                script.to_str().unwrap(),
                url,
                token,
                &sessions.to_string(),
                &seconds.to_string(),
            ],
        )
        .output()
        .expect("run the HTTP MCP clients");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the clients failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).expect("one JSON line")
}

#[test]
fn many_sessions_remember_and_recall_and_every_acknowledged_note_is_kept() {
    let env = Env::with_model();
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let report = run_clients(&env, &server.url, "-", 4, 4.0);
    assert_eq!(report["errors"], 0, "{report}");
    let ids: Vec<&str> = report["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(ids.len() >= 8, "every session wrote: {report}");
    let status = env.ok(&["serve", "--status"]);
    assert!(status.contains("4 session(s)"), "{status}");
    let stopped = server.terminate();
    assert!(stopped.success(), "SIGTERM ends it cleanly: {stopped:?}");
    let stored = env.all_ids();
    for id in ids {
        assert!(
            stored.iter().any(|s| s == id),
            "{id} was acknowledged but is missing"
        );
    }
    eprintln!(
        "serve: {} recalls, p50 {} ms, p95 {} ms",
        report["recalls"], report["recall_p50_ms"], report["recall_p95_ms"]
    );
}

#[test]
fn foreign_origins_and_hosts_garbage_and_dropped_clients_are_refused_and_it_keeps_serving() {
    let env = Env::new();
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    assert_eq!(server.initialize(""), 200);
    assert_eq!(
        server.initialize("\r\nOrigin: http://evil.example"),
        403,
        "a web page elsewhere cannot call it"
    );
    assert_eq!(server.initialize("\r\nOrigin: http://localhost:3000"), 200);
    let foreign_host = server.status_of(
        "POST /mcp HTTP/1.1\r\nHost: rebound.example\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream",
        "{}",
    );
    assert_eq!(foreign_host, 403, "DNS rebinding is refused");
    let garbage = server.status_of(
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream",
            server.addr
        ),
        "not json {{{",
    );
    assert!((400..500).contains(&garbage), "garbage: {garbage}");
    let elsewhere = server.status_of(&format!("GET /other HTTP/1.1\r\nHost: {}", server.addr), "");
    assert_eq!(elsewhere, 404);
    // A client that goes away in the middle of sending a request.
    let mut half = TcpStream::connect(&server.addr).unwrap();
    half.write_all(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{{\"jsonrpc\":",
            server.addr
        )
        .as_bytes(),
    )
    .unwrap();
    drop(half);
    // Not HTTP at all.
    let mut noise = TcpStream::connect(&server.addr).unwrap();
    noise
        .write_all(&[0u8, 159, 146, 150, 255, 10, 13, 10])
        .unwrap();
    drop(noise);
    assert_eq!(server.initialize(""), 200, "it still serves");
}

#[test]
fn a_non_loopback_address_needs_the_stores_token() {
    let env = Env::new();
    let token = env.ok(&["serve", "--token"]).trim().to_string();
    assert_eq!(token.len(), 64, "{token}");
    let mode = std::fs::metadata(env.store().join("serve.token")).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
        0o600
    );
    assert_eq!(env.ok(&["serve", "--token"]).trim(), token, "made once");
    let server = Server::start(&env, &["--listen", "0.0.0.0:0"]);
    assert_eq!(server.initialize(""), 401, "no token");
    assert_eq!(
        server.initialize("\r\nAuthorization: Bearer 0000"),
        401,
        "a wrong token"
    );
    assert_eq!(
        server.initialize(&format!("\r\nAuthorization: Bearer {token}")),
        200
    );
}

#[test]
fn one_server_per_store_and_a_killed_one_leaves_nothing_in_the_way() {
    let env = Env::new();
    let first = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let second = env.run(&["serve", "--listen", "127.0.0.1:0"]);
    assert_eq!(second.status.code(), Some(1));
    let message = String::from_utf8_lossy(&second.stderr);
    assert!(
        message.contains(&format!("pid {}", first.child.id())) && message.contains(&first.url),
        "{message}"
    );
    let mut first = first;
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    let none = env.run(&["serve", "--status"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stdout).starts_with("no server"));
    let again = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let status = env.json(&["serve", "--status"]);
    assert_eq!(status["status"], "ok", "{status}");
    assert_eq!(status["url"], again.url.as_str(), "{status}");
    assert!(again.terminate().success());
    assert!(!env.store().join("serve.json").exists());
}

/// Takes the store's server lock in this process, as a keep that only
/// asked whether a server runs used to for a moment; released when dropped.
fn hold_server_lock(env: &Env) -> std::fs::File {
    use std::os::unix::io::AsRawFd;
    std::fs::create_dir_all(env.store()).unwrap();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(env.store().join("serve.lock"))
        .unwrap();
    // SAFETY: flock on a descriptor this test owns.
    let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(taken, 0, "the lock is free");
    file
}

#[test]
fn asking_whether_a_server_runs_never_keeps_one_from_starting() {
    let env = Env::new();
    // Held for a moment when the server starts: it waits its turn.
    let held = hold_server_lock(&env);
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        drop(held);
    });
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    release.join().unwrap();
    assert!(server.terminate().success());

    // Probes asking all the while: every start succeeds.
    let asking = std::sync::atomic::AtomicBool::new(true);
    std::thread::scope(|scope| {
        let probes = scope.spawn(|| {
            let mut asked = 0;
            while asking.load(std::sync::atomic::Ordering::Relaxed) {
                env.run(&["serve", "--status"]);
                asked += 1;
            }
            asked
        });
        for _ in 0..5 {
            let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
            let doctor = env.run(&["doctor"]);
            let said = String::from_utf8_lossy(&doctor.stdout);
            assert!(said.contains(&server.url), "{said}");
            assert!(server.terminate().success());
        }
        asking.store(false, std::sync::atomic::Ordering::Relaxed);
        assert!(probes.join().unwrap() > 0);
    });

    // Held for good by a process that writes no status: named by its pid.
    let _held = hold_server_lock(&env);
    let me = format!("pid {}", std::process::id());
    let refused = env.run(&["serve", "--listen", "127.0.0.1:0"]);
    assert_eq!(refused.status.code(), Some(1));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(message.contains(&me), "{message}");
    let status = env.run(&["serve", "--status"]);
    let said = String::from_utf8_lossy(&status.stdout);
    assert!(said.contains(&me), "{said}");
}

#[test]
fn find_get_and_list_are_answered_by_a_running_server_and_work_alone_when_it_dies() {
    let env = Env::with_model();
    let lights = env.put(
        "The harbour lights were repaired on Tuesday",
        &["topic=sea"],
    );
    env.put(
        "Buy rope and new sails before the storm season",
        &["topic=boat"],
    );
    env.put("Tide pools hold anemones and small crabs", &["topic=sea"]);
    let commands: Vec<Vec<&str>> = vec![
        vec!["find", "lamps by the sea"],
        vec!["find", "storm", "--json"],
        vec!["list", "--ids", "-t", "topic=sea"],
        vec!["get", &lights],
        vec!["get", "no/such/note", &lights],
    ];
    let alone: Vec<_> = commands.iter().map(|c| env.run(c)).collect();

    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    for (command, before) in commands.iter().zip(&alone) {
        let served = env.run(command);
        assert_eq!(served.stdout, before.stdout, "{command:?}");
        assert_eq!(served.stderr, before.stderr, "{command:?}");
        assert_eq!(served.status.code(), before.status.code(), "{command:?}");
    }
    let status = env.json(&["serve", "--status"]);
    assert_eq!(status["commands"], commands.len(), "{status}");

    let mut server = server;
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    assert!(
        env.store().join("serve.sock").exists(),
        "a killed server leaves its socket"
    );
    for (command, before) in commands.iter().zip(&alone) {
        let after = env.run(command);
        assert_eq!(after.stdout, before.stdout, "{command:?}");
        assert_eq!(
            after.stderr, before.stderr,
            "falls back silently: {command:?}"
        );
    }
    let again = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let listed = env.run(&commands[2]);
    assert_eq!(listed.stdout, alone[2].stdout);
    let status = env.json(&["serve", "--status"]);
    assert_eq!(
        status["commands"], 1,
        "the stale socket was replaced: {status}"
    );
    assert!(again.terminate().success());
    assert!(!env.store().join("serve.sock").exists());
}

#[test]
fn a_request_of_another_version_is_declined_and_a_killed_servers_watch_lease_lapses() {
    let env = Env::new();
    let folder = env.path("watched");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("a.md"), "# A\n\nA watched note.\n").unwrap();
    env.ok(&["put", folder.to_str().unwrap(), "--watch"]);
    let mut server = Server::start(&env, &["--listen", "127.0.0.1:0"]);

    // What a keep from before frames sends: the server declines, so that
    // client runs the command itself.
    let mut socket =
        std::os::unix::net::UnixStream::connect(env.store().join("serve.sock")).unwrap();
    socket
        .write_all(b"{\"version\":\"0.0.0\",\"args\":[\"list\"],\"color\":false,\"clock\":null}\n")
        .unwrap();
    let mut answer = String::new();
    BufReader::new(socket).read_line(&mut answer).unwrap();
    assert_eq!(answer.trim(), "\"Declined\"");
    // A keep of another version that speaks frames is told the server's.
    let mut socket =
        std::os::unix::net::UnixStream::connect(env.store().join("serve.sock")).unwrap();
    write_frame(
        &mut socket,
        1,
        br#"{"version":"0.0.0","clock":null,"ask":"Health"}"#,
    );
    let (kind, payload) = read_frame(&mut socket);
    assert_eq!(kind, 9, "OtherVersion");
    let other: Value = serde_json::from_slice(&payload).unwrap();
    assert_eq!(other["pid"], server.child.id(), "{other}");

    let pid = server.child.id();
    let watcher = |env: &Env| env.json(&["watch", "--list"])["watcher"]["pid"].as_u64();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while watcher(&env) != Some(u64::from(pid)) {
        assert!(
            std::time::Instant::now() < deadline,
            "the server never took the watch lease"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while watcher(&env).is_some() {
        assert!(
            std::time::Instant::now() < deadline,
            "the lease of a killed server never lapsed"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// One frame of the store socket: kind, length, payload.
fn write_frame(socket: &mut impl Write, kind: u8, payload: &[u8]) {
    let mut frame = vec![kind];
    frame.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    frame.extend_from_slice(payload);
    socket.write_all(&frame).unwrap();
}

fn read_frame(socket: &mut impl Read) -> (u8, Vec<u8>) {
    let mut head = [0u8; 5];
    socket.read_exact(&mut head).unwrap();
    let mut payload = vec![0u8; u32::from_le_bytes(head[1..].try_into().unwrap()) as usize];
    socket.read_exact(&mut payload).unwrap();
    (head[0], payload)
}

#[test]
fn a_server_of_another_version_is_named_and_the_command_runs_without_it() {
    let env = Env::new();
    env.put("The harbour light is lit at dusk.", &["topic=sea"]);
    let alone = env.run(&["list", "--ids"]);
    // A server of version 9.9.9 holds the socket: it answers every
    // request with its version.
    let listener = std::os::unix::net::UnixListener::bind(env.store().join("serve.sock")).unwrap();
    let fake = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let (kind, _) = read_frame(&mut stream);
        assert_eq!(kind, 1, "a request");
        write_frame(&mut stream, 9, br#"{"version":"9.9.9","pid":4242}"#);
    });
    let served = env.run(&["list", "--ids"]);
    fake.join().unwrap();
    assert_eq!(served.stdout, alone.stdout, "the command ran here");
    assert_eq!(served.status.code(), Some(0));
    let said = String::from_utf8_lossy(&served.stderr);
    assert!(
        said.contains("keep serve (pid 4242) runs keep 9.9.9 and this is keep")
            && said.contains("working without it until it is restarted"),
        "{said}"
    );
}

#[test]
fn the_json_api_answers_as_its_openapi_document_says_under_the_same_rules_as_mcp() {
    let env = Env::with_model();
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let script = crate::common::repo_root().join("tests/api_client.py");
    let base = format!("http://{}", server.addr);
    let output = env
        .program(&client_python(), &[script.to_str().unwrap(), &base])
        .output()
        .expect("run the API client");
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{said}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        said.contains("all calls answer as the document says"),
        "{said}"
    );
    // What the API stored is what the command line sees.
    let listed = env.ok(&["list", "--ids"]);
    assert!(listed.lines().any(|l| l == "light"), "{listed}");
    let get = |head: &str| server.status_of(head, "");
    let host = format!("Host: {}", server.addr);
    assert_eq!(get(&format!("GET /health HTTP/1.1\r\n{host}")), 200);
    assert_eq!(
        get("GET /health HTTP/1.1\r\nHost: evil.example"),
        403,
        "a foreign Host"
    );
    assert_eq!(
        get(&format!(
            "GET /v1/notes HTTP/1.1\r\n{host}\r\nOrigin: http://evil.example"
        )),
        403,
        "a foreign Origin"
    );
    assert_eq!(get(&format!("GET /v2/nothing HTTP/1.1\r\n{host}")), 404);
    assert_eq!(get(&format!("DELETE /v1/find HTTP/1.1\r\n{host}")), 405);
    assert!(server.terminate().success());

    // On another address, the token.
    let token = env.ok(&["serve", "--token"]).trim().to_string();
    let open = Server::start(&env, &["--listen", "0.0.0.0:0"]);
    let get = |head: &str| open.status_of(head, "");
    assert_eq!(get("GET /health HTTP/1.1\r\nHost: keep.example"), 401);
    assert_eq!(
        get(&format!(
            "GET /health HTTP/1.1\r\nHost: keep.example\r\nAuthorization: Bearer {token}"
        )),
        200
    );
    assert!(open.terminate().success());
}

#[test]
fn serve_status_and_health_report_the_store_the_model_and_the_backlog() {
    let env = Env::with_model();
    env.ok(&["put", "Waiting for its vector.", "--id", "waiting"]);
    let none = env.run(&["serve", "--status"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&none.stdout).contains("1 waiting for embedding"),
        "{}",
        String::from_utf8_lossy(&none.stdout)
    );
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    env.ok(&["find", "vector"]);
    let health = env.json(&["serve", "--status"]);
    assert_eq!(health["status"], "ok", "{health}");
    assert_eq!(health["pid"], server.child.id(), "{health}");
    assert_eq!(health["store"]["reachable"], true, "{health}");
    let location = health["store"]["location"].as_str().unwrap();
    if env.on_postgres() {
        // The database, named without a password.
        assert!(location.starts_with("postgres://keep@/"), "{health}");
    } else {
        assert_eq!(location, env.store().display().to_string(), "{health}");
    }
    assert_eq!(
        health["model"]["loaded"], true,
        "the find loaded it: {health}"
    );
    assert!(health["backlog"].is_i64(), "{health}");
    assert!(health["uptime_seconds"].is_u64(), "{health}");
    assert!(
        health["model"]["name"]
            .as_str()
            .is_some_and(|n| !n.is_empty()),
        "the model in use is named: {health}"
    );
    let line = env.ok(&["serve", "--status"]);
    assert!(
        line.starts_with("ok · serving http://127.0.0.1:") && line.contains("reachable"),
        "{line}"
    );
    let name = health["model"]["name"].as_str().unwrap();
    assert!(
        line.contains(&format!("model {name} loaded (space ")),
        "--status names the model beside its space: {line}"
    );
    assert!(server.terminate().success());
}

#[test]
fn a_client_that_leaves_during_a_call_does_not_disturb_the_others() {
    let env = Env::with_model();
    env.put("The harbour lights were repaired on Tuesday", &[]);
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let post = |session: Option<&str>, body: &str| -> TcpStream {
        let mut stream = TcpStream::connect(&server.addr).unwrap();
        let session = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{session}Content-Length: {}\r\n\r\n{body}",
            server.addr,
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        stream
    };
    let mut first = post(
        None,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
    );
    first
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = first.read(&mut buf).unwrap();
        assert!(n > 0, "no answer to initialize");
        head.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&head).to_lowercase();
    let session = head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .expect("a session id")
        .trim()
        .to_string();
    drop(first);
    drop(post(
        Some(&session),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ));
    // A recall (the model loads for it), and the client goes away at once.
    drop(post(
        Some(&session),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"query":"lights by the sea"}}}"#,
    ));
    let report = run_clients(&env, &server.url, "-", 2, 2.0);
    assert_eq!(report["errors"], 0, "{report}");
    assert!(report["recalls"].as_u64().unwrap() > 0, "{report}");
}

/// One request on its own connection: (status, `Mcp-Session-Id`, body).
pub(crate) fn exchange(
    addr: &str,
    session: Option<&str>,
    body: &str,
) -> (u16, Option<String>, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let session_header = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n{session_header}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let session = text.lines().find_map(|l| {
        l.to_ascii_lowercase()
            .starts_with("mcp-session-id:")
            .then(|| l[15..].trim().to_string())
    });
    let body = text
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, session, body)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// A session ready for tool calls.
pub(crate) fn open_session(addr: &str) -> String {
    let (status, session, _) = exchange(addr, None, INITIALIZE);
    assert_eq!(status, 200);
    let session = session.expect("a session id");
    let (status, _, _) = exchange(
        addr,
        Some(&session),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(status, 202);
    session
}

fn resident_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

#[test]
fn under_attack_a_normal_client_keeps_working_and_the_server_stays_bounded() {
    let env = Env::with_model();
    env.ok(&["put", "The harbour light is lit at dusk.", "--id", "light"]);
    let server = Server::start(&env, &["--listen", "127.0.0.1:0", "--session-timeout", "4"]);
    let addr = server.addr.clone();
    let pid = server.child.id();
    let session = open_session(&addr);
    let recall = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"query":"when is the harbour light lit"}}}"#;
    let (status, _, body) = exchange(&addr, Some(&session), recall);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("light"), "{body}");
    let before = resident_mb(pid);

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut attackers = Vec::new();
    // A thousand connections that never send a byte.
    let idle = {
        let addr = addr.clone();
        std::thread::spawn(move || {
            (0..1000)
                .filter_map(|_| TcpStream::connect(&addr).ok())
                .collect::<Vec<_>>()
        })
    };
    // Five thousand sessions opened and abandoned: one caller holds at
    // most 64 open, so past them each is refused (429) until some close.
    let sessions_tried = {
        let addr = addr.clone();
        std::thread::spawn(move || {
            let (mut opened, mut limited) = (0, 0);
            for _ in 0..5000 {
                match exchange(&addr, None, INITIALIZE) {
                    (_, Some(_), _) => opened += 1,
                    (429, None, _) => limited += 1,
                    _ => {}
                }
            }
            (opened, limited)
        })
    };
    // Bodies too large, declared and not, malformed requests, wrong ids.
    attackers.push({
        let (addr, stop) = (addr.clone(), std::sync::Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut refused = 0;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let mut big = TcpStream::connect(&addr).unwrap();
                big.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
                let head = format!(
                    "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
                    100 * 1024 * 1024
                );
                big.write_all(head.as_bytes()).unwrap();
                let mut answer = [0u8; 64];
                let n = big.read(&mut answer).unwrap_or(0);
                if String::from_utf8_lossy(&answer[..n]).contains(" 413 ") {
                    refused += 1;
                }
                let mut chunked = TcpStream::connect(&addr).unwrap();
                chunked.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
                let head = format!(
                    "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                );
                let _ = chunked.write_all(head.as_bytes());
                let chunk = vec![b'['; 1024 * 1024];
                for _ in 0..40 {
                    if chunked
                        .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                        .and_then(|_| chunked.write_all(&chunk))
                        .and_then(|_| chunked.write_all(b"\r\n"))
                        .is_err()
                    {
                        break;
                    }
                }
                let mut garbage = TcpStream::connect(&addr).unwrap();
                let _ = garbage.write_all(b"\x16\x03\x01 GARBAGE / HTTP/9\r\n\r\n{{{{");
                let (status, _, _) = exchange(&addr, Some("no-such-session"), recall);
                assert!(status == 404 || status == 400, "unknown session: {status}");
            }
            refused
        })
    });

    let mut latencies = Vec::new();
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        let t = std::time::Instant::now();
        let (status, _, body) = exchange(&addr, Some(&session), recall);
        latencies.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(status, 200, "the normal client was refused: {body}");
        assert!(body.contains("light"), "{body}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let during = resident_mb(pid);
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let (opened, limited) = sessions_tried.join().unwrap();
    let refused = attackers.remove(0).join().unwrap();
    let idle = idle.join().unwrap();
    latencies.sort_by(f64::total_cmp);
    let p = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    println!(
        "{} recalls under attack: p50 {:.1} ms, p99 {:.1} ms; {} idle connections, {opened} sessions opened and left ({limited} refused past the bound), {refused} 100 MB bodies refused; resident {before:.0} MB before, {during:.0} MB during",
        latencies.len(),
        p(0.5),
        p(0.99),
        idle.len()
    );
    assert!(
        opened + limited >= 4900,
        "{opened} sessions, {limited} refused"
    );
    // The normal client holds one of the 64.
    assert!(
        opened >= 63 && limited > 0,
        "{opened} opened, {limited} refused"
    );
    assert!(refused > 0);
    assert!(idle.len() >= 900, "{} idle connections", idle.len());
    // Starvation, not speed (the figures above are for reading; the full
    // parallel suite on PostgreSQL moves p99 between 45 and 130 ms): no
    // recall may wait seconds behind the attackers.
    assert!(
        p(1.0) < 2000.0,
        "a recall waited {:.0} ms behind the attack (p99 {:.1} ms)",
        p(1.0),
        p(0.99)
    );
    assert!(during < 1024.0, "{during:.0} MB");
    drop(idle);

    // Sessions left without a request for --session-timeout expire (the
    // normal client's too, once it stops); a new one works.
    std::thread::sleep(Duration::from_secs(6));
    let (status, _, _) = exchange(&addr, Some(&session), recall);
    assert_eq!(
        status, 404,
        "an idle session expires after --session-timeout"
    );
    let fresh = open_session(&addr);
    let (status, _, body) = exchange(&addr, Some(&fresh), recall);
    assert_eq!(status, 200, "{body}");
    let after = resident_mb(pid);
    println!("resident {after:.0} MB after the sessions expired");
    assert!(server.terminate().success());
}

#[test]
fn a_server_on_postgresql_connects_again_after_the_database_drops_it() {
    let env = Env::with_model();
    if !env.on_postgres() {
        // The fault is the database server's.
        return;
    }
    env.ok(&["put", "The harbour light is lit at dusk.", "--id", "light"]);
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let session = open_session(&server.addr);
    let recall = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"query":"when is the harbour light lit"}}}"#;
    let remember = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"remember","arguments":{"text":"The ferry leaves at nine.","id":"ferry"}}}"#;
    let (status, _, body) = exchange(&server.addr, Some(&session), recall);
    assert_eq!(status, 200, "{body}");
    // Every connection of keep's to the database is ended, as a restart
    // of the server would.
    env.sql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE application_name = 'keep' AND datname = current_database()
         AND pid <> pg_backend_pid()",
    );
    std::thread::sleep(Duration::from_secs(3));
    let (status, _, body) = exchange(&server.addr, Some(&session), recall);
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("light") && !body.contains("isError\":true"),
        "recall after the drop: {body}"
    );
    let (status, _, body) = exchange(&server.addr, Some(&session), remember);
    assert_eq!(status, 200, "{body}");
    assert!(
        !body.contains("isError\":true"),
        "remember after the drop: {body}"
    );
    let listed = env.ok(&["list", "--ids"]);
    assert!(listed.lines().any(|l| l == "ferry"), "{listed}");
    let found = env.ok(&["find", "harbour light", "--ids"]);
    assert_eq!(
        found.lines().next(),
        Some("light"),
        "through the socket: {found}"
    );
    assert!(server.terminate().success());
}

#[test]
fn every_write_goes_through_a_running_server_with_the_same_output() {
    let alone = Env::with_model();
    let served = Env::with_model();
    let elsewhere = Env::new();
    elsewhere.put(
        "A note from another store, about the lighthouse keeper.",
        &["from=elsewhere"],
    );
    let exported = elsewhere.ok(&["export", "--no-vectors"]);
    for env in [&alone, &served] {
        std::fs::write(env.path("plan.md"), "# Plan\n\nRepaint the pier in May.").unwrap();
        std::fs::create_dir_all(env.path("logbook/2026")).unwrap();
        std::fs::write(
            env.path("logbook/march.md"),
            "# March\n\nThe nets were mended.",
        )
        .unwrap();
        std::fs::write(
            env.path("logbook/2026/april.txt"),
            "Gulls nested on the east mole.",
        )
        .unwrap();
        std::fs::write(env.path("logbook/broken.pdf"), "not a PDF at all").unwrap();
        std::fs::write(env.path("other.jsonl"), &exported).unwrap();
    }
    let server = Server::start(&served, &["--listen", "127.0.0.1:0"]);
    // (command, whether the server answers it)
    let commands: Vec<(Vec<&str>, bool)> = vec![
        (
            vec![
                "put",
                "The API gateway timeout is 30 seconds.",
                "-t",
                "topic=sea",
            ],
            true,
        ),
        (vec!["put", "The API gateway timeout is 30 seconds."], true),
        (
            vec![
                "put",
                "The API gateway timeout is 30 minutes.",
                "-t",
                "topic=sea",
            ],
            true,
        ),
        (
            vec![
                "--json",
                "put",
                "--text",
                "-a text that starts with a dash",
                "--id",
                "dash",
            ],
            true,
        ),
        (vec!["put", "plan.md"], true),
        (vec!["put", "./plan.md", "-t", "kind=plan"], true),
        (vec!["put", "logbook", "-r"], true),
        (vec!["--json", "put", "logbook"], true),
        (vec!["put", "missing.md"], true),
        (vec!["import", "other.jsonl"], true),
        (vec!["import", "other.jsonl", "-v"], true),
        (vec!["export", "--no-vectors", "exported.jsonl"], true),
        (
            vec!["put", "Ferry at nine", "--id", "ferry", "--expires", "P7D"],
            true,
        ),
        (
            vec!["tag", "ferry", "-t", "place=pier", "-t", "status=planned"],
            true,
        ),
        (vec!["tag", "no-such-note", "-t", "a=b"], true),
        (vec!["rate", "ferry", "useful"], true),
        (vec!["now", "Checking the lamps on the north wall"], true),
        (vec!["revert", "ferry"], true),
        (vec!["del", "dash"], true),
        (vec!["put", "-t", "bad tag", "text"], true),
        (vec!["list", "--ids"], true),
    ];
    let plain = |env: &Env, bytes: &[u8]| {
        String::from_utf8_lossy(bytes).replace(&env.path("").display().to_string(), "DIR/")
    };
    let same = |command: &[&str], a: &std::process::Output, b: &std::process::Output| {
        assert_eq!(
            plain(&served, &b.stdout),
            plain(&alone, &a.stdout),
            "{command:?}"
        );
        assert_eq!(
            plain(&served, &b.stderr),
            plain(&alone, &a.stderr),
            "{command:?}"
        );
        assert_eq!(b.status.code(), a.status.code(), "{command:?}");
    };
    for (command, _) in &commands {
        same(command, &alone.run(command), &served.run(command));
    }
    // Standard input travels to the server with the command.
    let with_input: Vec<(Vec<&str>, &str)> = vec![
        (vec!["put"], "Text piped in about the harbour master."),
        (
            vec!["put", "-", "-t", "via=pipe"],
            "More piped text about the tides.",
        ),
        (vec!["now", "-"], "Checking the buoys"),
        (vec!["import", "-"], exported.as_str()),
    ];
    for (command, input) in &with_input {
        same(
            command,
            &alone.run_with_stdin(command, input.as_bytes()),
            &served.run_with_stdin(command, input.as_bytes()),
        );
    }
    let mut invalid = b"bytes that are not UTF-8: ".to_vec();
    invalid.extend_from_slice(&[0xff, 0xfe]);
    same(
        &["put"],
        &alone.run_with_stdin(&["put"], &invalid),
        &served.run_with_stdin(&["put"], &invalid),
    );
    // A folder's files are written as they are read, in no set order: the
    // log is compared as a set.
    let log_as_set = |text: String| {
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_by_key(|l| l.starts_with(r#"{"operation""#).then_some(*l));
        lines.join("\n")
    };
    let exported_by = |env: &Env| {
        log_as_set(plain(
            env,
            &std::fs::read(env.path("exported.jsonl")).unwrap(),
        ))
    };
    assert_eq!(
        exported_by(&served),
        exported_by(&alone),
        "export to a file, in the client's folder"
    );
    let answered =
        commands.iter().filter(|(_, by_server)| *by_server).count() + with_input.len() + 1;
    let status = served.json(&["serve", "--status"]);
    assert_eq!(status["commands"], answered, "{status}");
    let export = |env: &Env| {
        // Vectors aside: the server embeds waiting notes in the background.
        log_as_set(
            env.ok(&["export", "--no-vectors"])
                .replace(&env.path("").display().to_string(), "DIR"),
        )
    };
    assert_eq!(export(&served), export(&alone), "the same notes");
    assert!(server.terminate().success());
}

#[test]
fn a_password_given_on_the_command_line_is_warned_about_and_never_shown() {
    let env = Env::new();
    if !env.on_postgres() {
        return;
    }
    let url = env.store_arg();
    let user = url
        .split('@')
        .next()
        .unwrap()
        .trim_start_matches("postgres://");
    let with_password = url.replacen(&format!("//{user}@"), &format!("//{user}:s3cret-horse@"), 1);
    let mut child = env
        .cmd(&[
            "--store",
            &with_password,
            "serve",
            "--listen",
            "127.0.0.1:0",
        ])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let second = lines.next().unwrap().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        first.contains("hidden from ps now, but every user of this machine could read it"),
        "{first}"
    );
    assert!(second.contains("http://127.0.0.1:"), "{second}");
    assert!(!first.contains("s3cret") && !second.contains("s3cret"));
}

/// One command run by a client thread, and when it ended.
pub(crate) struct Ran {
    pub(crate) at: std::time::Instant,
    pub(crate) ok: bool,
    pub(crate) stderr: String,
    pub(crate) id: Option<String>,
}

/// Runs `command(i)` for i = 0, 1, ... until `stop`, 50 ms apart.
pub(crate) fn keep_running(
    env: &std::sync::Arc<Env>,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    command: fn(usize) -> (Vec<String>, Option<String>),
) -> std::thread::JoinHandle<Vec<Ran>> {
    let (env, stop) = (std::sync::Arc::clone(env), std::sync::Arc::clone(stop));
    std::thread::spawn(move || {
        let mut ran = Vec::new();
        for i in 0.. {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            let (args, id) = command(i);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = env.run(&args);
            ran.push(Ran {
                at: std::time::Instant::now(),
                ok: out.status.success(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                id,
            });
            std::thread::sleep(Duration::from_millis(50));
        }
        ran
    })
}

#[test]
fn a_server_survives_a_restart_of_its_database_with_a_writer_and_a_reader_going() {
    if !crate::backend::postgres() {
        // The fault is the database server's.
        return;
    }
    let mut env = Env::on(false);
    env.install_model();
    let database = crate::backend::PrivateServer::start(&env.path("pg"));
    env.set("KEEP_STORE", &database.url);
    env.ok(&["put", "The harbour light is lit at dusk.", "--id", "light"]);
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let session = open_session(&server.addr);
    let env = std::sync::Arc::new(env);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = keep_running(&env, &stop, |i| {
        let id = format!("fact-{i}");
        (
            vec![
                "put".into(),
                format!("Fact number {i} of the restart."),
                "--id".into(),
                id.clone(),
            ],
            Some(id),
        )
    });
    let reader = keep_running(&env, &stop, |_| {
        (
            ["find", "harbour light", "--ids", "-n", "1"]
                .map(String::from)
                .to_vec(),
            None,
        )
    });
    std::thread::sleep(Duration::from_secs(2));
    database.stop();
    std::thread::sleep(Duration::from_secs(1));
    let during = env.run(&["--json", "serve", "--status"]);
    database.restart();
    let back = std::time::Instant::now();
    std::thread::sleep(Duration::from_secs(6));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (writes, reads) = (writer.join().unwrap(), reader.join().unwrap());

    let health: Value = serde_json::from_slice(&during.stdout).unwrap();
    assert_eq!(during.status.code(), Some(1), "{health}");
    assert_eq!(health["status"], "unavailable", "{health}");
    assert_eq!(health["store"]["reachable"], false, "{health}");
    let why = health["store"]["error"].as_str().unwrap();
    assert!(
        why.contains("database server") && why.contains(&database.dir().display().to_string()),
        "the error names the server: {why}"
    );
    for ran in writes.iter().chain(&reads).filter(|r| !r.ok) {
        assert!(
            ran.stderr.contains("database server"),
            "a failure says the database is the cause: {}",
            ran.stderr
        );
    }
    for (what, ran) in [("write", &writes), ("read", &reads)] {
        assert!(ran.iter().any(|r| !r.ok), "some {what} met the outage");
        let first_after = ran
            .iter()
            .find(|r| r.at > back && r.ok)
            .unwrap_or_else(|| panic!("no {what} succeeded after the restart"));
        assert!(
            first_after.at.duration_since(back) < Duration::from_secs(4),
            "the first {what} after the restart succeeded after {:?}",
            first_after.at.duration_since(back)
        );
        assert!(
            ran.iter().rev().take(5).all(|r| r.ok),
            "the last {what}s succeeded"
        );
    }
    let acknowledged: Vec<&str> = writes
        .iter()
        .filter(|r| r.ok)
        .filter_map(|r| r.id.as_deref())
        .collect();
    let stored = env.ok(&["list", "--ids", "-n", "100000"]);
    for id in &acknowledged {
        assert!(
            stored.lines().any(|l| l == *id),
            "{id} was acknowledged and lost"
        );
    }
    let exported = env.ok(&["export", "--no-vectors"]);
    let notes = exported.lines().skip(1);
    for line in notes.filter(|l| !l.starts_with(r#"{"operation""#)) {
        let note: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            note["versions"].as_array().map(Vec::len),
            Some(0),
            "applied once: {note}"
        );
    }
    let recall = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"query":"when is the harbour light lit"}}}"#;
    let (status, _, body) = exchange(&server.addr, Some(&session), recall);
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("light") && !body.contains("isError\":true"),
        "MCP after the restart: {body}"
    );
    if let Some(failed) = writes.iter().find(|r| !r.ok) {
        println!("a write during the outage: {}", failed.stderr.trim());
    }
    println!(
        "{} writes ({} acknowledged), {} reads ({} answered) across the restart",
        writes.len(),
        acknowledged.len(),
        reads.len(),
        reads.iter().filter(|r| r.ok).count()
    );
}

#[test]
fn database_passwords_come_from_the_environment_a_password_file_or_pgpass_and_never_show() {
    if !crate::backend::postgres() {
        return;
    }
    let mut env = Env::on(false);
    let database = crate::backend::PrivateServer::start(&env.path("pg"));
    database.sql("ALTER ROLE keep PASSWORD 'harbour-secret-42'");
    let hba = std::fs::read_to_string(database.hba()).unwrap();
    std::fs::write(database.hba(), hba.replace(" trust", " scram-sha-256")).unwrap();
    database.sql("SELECT pg_reload_conf()");
    std::thread::sleep(Duration::from_millis(500));
    let url = database.url.clone();
    env.set("KEEP_STORE", &url);

    let refused = env.run(&["list"]);
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("password"), "{said}");

    let mut with_variable = Env::on(false);
    with_variable.set("KEEP_STORE", &url);
    with_variable.set("PGPASSWORD", "harbour-secret-42");
    with_variable.ok(&["put", "Stored with PGPASSWORD.", "--id", "a"]);

    let file = env.path("password");
    std::fs::write(&file, "harbour-secret-42\n").unwrap();
    let mut with_file = Env::on(false);
    with_file.set("KEEP_STORE", &url);
    with_file.set("KEEP_PASSWORD_FILE", file.to_str().unwrap());
    assert_eq!(with_file.ok(&["list", "--ids"]).trim(), "a");

    let pgpass = env.path(".pgpass");
    std::fs::write(&pgpass, "*:*:keep:keep:harbour-secret-42\n").unwrap();
    let mode =
        |m| std::fs::set_permissions(&pgpass, std::os::unix::fs::PermissionsExt::from_mode(m));
    mode(0o600).unwrap();
    assert_eq!(env.ok(&["list", "--ids"]).trim(), "a", "~/.pgpass");
    mode(0o644).unwrap();
    env.fails(&["list"], 2);
    mode(0o600).unwrap();

    let wrong = url.replacen("keep@", "keep:wrong-pw-7@", 1);
    let out = env.run(&["--store", &wrong, "list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("wrong-pw-7"));

    let given = url.replacen("keep@", "keep:harbour-secret-42@", 1);
    let mut child = env
        .cmd(&["--store", &given, "serve", "--listen", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let warning = lines.next().unwrap().unwrap();
    let serving = lines.next().unwrap().unwrap();
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", child.id())).unwrap();
    let health = env.json(&["--store", &given, "serve", "--status"]);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(warning.contains("hidden from ps now"), "{warning}");
    assert!(serving.contains("http://127.0.0.1:"), "{serving}");
    let cmdline = String::from_utf8_lossy(&cmdline);
    assert!(
        !cmdline.contains("harbour-secret") && cmdline.contains("keep:*****************@"),
        "{cmdline}"
    );
    assert_eq!(health["status"], "ok", "{health}");
    assert!(!health.to_string().contains("harbour-secret"), "{health}");
}

/// `curl` fetching `url` with `args`: its exit code and what it printed.
pub(crate) fn curl(args: &[&str], url: &str) -> (i32, String) {
    let out = std::process::Command::new("curl")
        .args(["--silent", "--show-error", "--max-time", "20"])
        .args(args)
        .arg(url)
        .output()
        .expect("curl (./scripts/setup.sh installs it)");
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn https_serves_mcp_the_api_and_health_and_a_renewed_certificate_from_the_next_connection() {
    let mut env = Env::with_model();
    let certs = tempfile::tempdir().unwrap();
    crate::pg_tls::certificates(certs.path());
    let cert = |name: &str| certs.path().join(name).display().to_string();
    let live = tempfile::tempdir().unwrap();
    let (live_crt, live_key) = (live.path().join("keep.crt"), live.path().join("keep.key"));
    std::fs::copy(cert("server.crt"), &live_crt).unwrap();
    std::fs::copy(cert("server.key"), &live_key).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&live_key, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    env.put("The ferry leaves the harbour at nine.", &[]);
    let server = Server::start(
        &env,
        &[
            "--listen",
            "127.0.0.1:0",
            "--tls-cert",
            live_crt.to_str().unwrap(),
            "--tls-key",
            live_key.to_str().unwrap(),
        ],
    );
    assert!(
        server.url.starts_with("https://127.0.0.1:"),
        "{}",
        server.url
    );
    assert!(
        server.said()[0].contains("keep.key: other users of this machine may read it"),
        "{:?}",
        server.said()
    );
    let origin = server
        .url
        .replace("127.0.0.1", "localhost")
        .replace("/mcp", "");

    let (code, health) = curl(&["--cacert", &cert("ca.crt")], &format!("{origin}/health"));
    assert_eq!(code, 0, "{health}");
    let health: Value = serde_json::from_str(&health).unwrap();
    assert_eq!(health["url"], server.url.as_str(), "{health}");
    let (code, found) = curl(
        &["--cacert", &cert("ca.crt")],
        &format!("{origin}/v1/find?q=ferry"),
    );
    assert_eq!(code, 0, "{found}");
    assert!(
        found.contains("The ferry leaves the harbour at nine."),
        "{found}"
    );
    // Plain HTTP to it gets no answer; an unknown CA is refused.
    let (code, _) = curl(&[], &format!("{}/health", origin.replace("https", "http")));
    assert_ne!(code, 0);
    let (code, said) = curl(
        &["--cacert", &cert("other-ca.crt")],
        &format!("{origin}/health"),
    );
    assert_eq!(code, 60, "{said}");

    // The reference MCP client over HTTPS.
    env.set("KEEP_TEST_CA", &cert("ca.crt"));
    let report = run_clients(&env, &format!("{origin}/mcp"), "-", 2, 2.0);
    assert_eq!(report["errors"], 0, "{report}");
    assert!(report["recalls"].as_u64().unwrap() > 0, "{report}");

    // A renewed certificate (another CA here), key first: served from the
    // next connection on, without a restart.
    std::fs::copy(cert("renewed.key"), &live_key).unwrap();
    std::fs::copy(cert("renewed.crt"), &live_crt).unwrap();
    let (code, said) = curl(
        &["--cacert", &cert("other-ca.crt")],
        &format!("{origin}/health"),
    );
    assert_eq!(code, 0, "{said}");
    let (code, said) = curl(&["--cacert", &cert("ca.crt")], &format!("{origin}/health"));
    assert_eq!(code, 60, "{said}");
    let lines = server.said();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("serving the renewed certificate")),
        "{lines:?}"
    );
    assert!(server.terminate().success());
}

#[test]
fn plain_http_on_an_open_address_is_warned_of_and_a_wrong_key_is_refused() {
    let env = Env::new();
    let server = Server::start(&env, &["--listen", "0.0.0.0:0"]);
    let lines = server.said();
    assert!(
        lines[0].contains("is reachable from other machines and this server speaks plain HTTP"),
        "{lines:?}"
    );
    assert!(server.terminate().success());

    let certs = tempfile::tempdir().unwrap();
    crate::pg_tls::certificates(certs.path());
    let cert = |name: &str| certs.path().join(name).display().to_string();
    let said = env.fails(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--tls-cert",
            &cert("server.crt"),
            "--tls-key",
            &cert("client.key"),
        ],
        2,
    );
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.contains("client.key is not the key of --tls-cert"),
        "{said}"
    );
    let said = env.fails(&["serve", "--tls-cert", &cert("server.crt")], 2);
    assert!(said.contains("--tls-key"), "{said}");
}

#[test]
fn a_server_held_open_by_idle_and_slow_clients_still_answers() {
    let env = Env::new();
    env.ok(&["put", "The queue restarts at noon.", "--id", "queue"]);
    let server = Server::start_with(&env, &["--listen", "127.0.0.1:0"], Some(64));
    // 200 connections that never send a request, and 20 whose bodies
    // never finish: far more than 64 open files allow.
    let idle: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(&server.addr).unwrap())
        .collect();
    let slow: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut stream = TcpStream::connect(&server.addr).unwrap();
            let head = format!(
                "POST /v1/notes HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"te",
                server.addr
            );
            stream.write_all(head.as_bytes()).unwrap();
            stream
        })
        .collect();
    let url = format!("http://{}/v1/notes/queue", server.addr);
    for _ in 0..3 {
        let (code, out) = curl(&["-w", "\n%{http_code}"], &url);
        assert_eq!(code, 0, "{out}");
        assert!(out.trim_end().ends_with("200"), "{out}");
        assert!(out.contains("The queue restarts at noon."), "{out}");
    }
    drop(idle);
    drop(slow);
    let (code, out) = curl(&["-w", "\n%{http_code}"], &url);
    assert!(code == 0 && out.trim_end().ends_with("200"), "{out}");
    // Each request is named on stderr with its caller, status and id.
    let said = server.said();
    let line = said
        .iter()
        .find(|l| l.contains("GET /v1/notes/queue 200"))
        .unwrap_or_else(|| panic!("no access line in {said:?}"));
    assert!(line.contains(" owner "), "{line}");
    assert!(
        !said.iter().any(|l| l.contains("restarts at noon")),
        "{said:?}"
    );
    assert!(server.terminate().success());
}

/// `curl -w %{http_code}` run as `uid` (through `setpriv`): the status.
fn status_as(uid: u32, url: &str, headers: &[&str]) -> u16 {
    let id = uid.to_string();
    let mut command = std::process::Command::new("setpriv");
    command.args([
        &format!("--reuid={id}"),
        &format!("--regid={id}"),
        "--clear-groups",
        "curl",
        "--silent",
        "--output",
        "/dev/null",
        "--max-time",
        "20",
        "-w",
        "%{http_code}",
    ]);
    for header in headers {
        command.args(["-H", header]);
    }
    let out = command.arg(url).output().expect("setpriv");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(0)
}

#[test]
fn on_loopback_only_this_user_is_served_without_a_token() {
    // SAFETY: getuid takes nothing and cannot fail.
    let me = unsafe { libc::getuid() };
    if me != 0 {
        eprintln!(
            "skipped: another account's request needs root to run as uid 65534 (running as {me})"
        );
        return;
    }
    let env = Env::new();
    env.ok(&["put", "The vault combination is 31-07-19.", "--id", "vault"]);
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let note = format!("http://{}/v1/notes/vault", server.addr);
    assert_eq!(status_as(me, &note, &[]), 200, "the server's own user");
    assert_eq!(status_as(65534, &note, &[]), 401, "another account");
    assert_eq!(
        status_as(me, &note, &["X-Forwarded-For: 192.0.2.7"]),
        401,
        "a request through a proxy"
    );
    assert_eq!(
        status_as(65534, &format!("http://{}/mcp", server.addr), &[]),
        401,
        "MCP too"
    );
    let token = env.ok(&["serve", "--token"]).trim().to_string();
    let bearer = format!("Authorization: Bearer {token}");
    assert_eq!(status_as(65534, &note, &[&bearer]), 200, "with the token");
    assert!(server.terminate().success());
}
