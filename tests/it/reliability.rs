//! The reliability suite: hostile files, kill -9 in the middle of work,
//! writers racing through the CLI, MCP and the watcher, and a JSON-RPC
//! fuzz of `keep mcp`. Each part is bounded in time, prints its figures,
//! and fails on any loss, crash, hang, escape or unbounded memory.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::Env;

/// A small random number generator, seeded from the clock (the seed is
/// printed, so a failing run can be repeated).
struct Rng(u64);

impl Rng {
    fn new(name: &str) -> Rng {
        let seed = std::env::var("KEEP_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        println!("{name}: seed {seed}");
        Rng(seed | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// Runs `cmd` to its end within `limit`; kills it and fails otherwise.
/// Returns its output and the peak memory of it and its children (MB),
/// from `wait4`.
// The child is reaped by wait4 below, which also gives its memory.
#[allow(clippy::zombie_processes)]
fn run_bounded(mut cmd: Command, limit: Duration) -> (std::process::Output, f64) {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn keep");
    let pid = child.id();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let done = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&done);
    let watchdog = std::thread::spawn(move || {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if flag.load(Ordering::SeqCst) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
        true
    });
    let mut status = 0;
    // SAFETY: wait4 fills the status and the struct it is given, for our child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid as libc::pid_t, "wait4 failed");
    done.store(true, Ordering::SeqCst);
    assert!(
        !watchdog.join().unwrap(),
        "hung: still running after {limit:?}"
    );
    let out = std::process::Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    (out, usage.ru_maxrss as f64 / 1024.0)
}

/// The tables whose rows belong to a note, with the column naming it.
const OWNED_ROWS: [(&str, &str); 4] = [
    ("tags", "note"),
    ("versions", "note"),
    ("parts", "note"),
    ("edges", "source"),
];

/// Checks the store: on SQLite its and FTS5's integrity and no int8 code
/// without its note; on either, no row of tags, versions, parts or edges
/// without its note.
fn assert_consistent(env: &Env) {
    if env.on_postgres() {
        // A keep killed while creating the store leaves no tables at all.
        if env.sql_count("SELECT count(*) FROM pg_tables WHERE tablename = 'notes'") == 0 {
            return;
        }
        for (table, column) in OWNED_ROWS {
            let dangling = env.sql_count(&format!(
                "SELECT count(*) FROM {table} WHERE {column} NOT IN (SELECT rid FROM notes)"
            ));
            assert_eq!(dangling, 0, "dangling {table}");
        }
        return;
    }
    let conn = rusqlite::Connection::open(env.store().join("keep.db")).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    for fts in ["notes_fts", "body_fts", "parts_fts", "versions_fts"] {
        conn.execute(
            &format!("INSERT INTO {fts}({fts}) VALUES('integrity-check')"),
            [],
        )
        .unwrap_or_else(|e| panic!("{fts}: {e}"));
    }
    let dangling = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap_or(0) };
    for (table, column) in OWNED_ROWS {
        let sql =
            format!("SELECT count(*) FROM {table} WHERE {column} NOT IN (SELECT rid FROM notes)");
        assert_eq!(dangling(&sql), 0, "dangling {table}");
    }
    assert_eq!(
        dangling("SELECT count(*) FROM codes_notes WHERE key NOT IN (SELECT rid FROM notes)"),
        0,
        "dangling codes"
    );
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A PNG of `side`×`side` grey pixels that compresses to almost nothing
/// (written by python3, to keep the test free of an image encoder).
fn png_bomb(side: u32) -> Vec<u8> {
    let script = format!(
        "import sys,zlib,struct\n\
         w=h={side}\n\
         def chunk(t,d): return struct.pack('>I',len(d))+t+d+struct.pack('>I',zlib.crc32(t+d)&0xffffffff)\n\
         raw=(b'\\x00'+b'\\xff'*w)*h\n\
         sys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n'+chunk(b'IHDR',struct.pack('>IIBBBBB',w,h,8,0,0,0,0))+chunk(b'IDAT',zlib.compress(raw,9))+chunk(b'IEND',b''))"
    );
    let out = Command::new("python3")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The hostile folder: every way a file can try to hurt, beside good ones.
fn hostile_folder(dir: &Path) -> (Vec<PathBuf>, Vec<(String, &'static str)>) {
    std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
    let mut good = Vec::new();
    for (name, text) in [
        ("good.txt", "A good plain note about tides."),
        ("sub/fine.md", "# Fine\n\nA good Markdown note."),
        ("sub/deeper/ok.txt", "Deep but fine."),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
        good.push(dir.join(name));
    }
    let odd_a = PathBuf::from(std::ffi::OsStr::from_bytes(b"bad-utf8-\xff\xfe.txt"));
    let odd_b = PathBuf::from(std::ffi::OsStr::from_bytes(b"bad-utf8-\xfe\xff.txt"));
    std::fs::write(dir.join(&odd_a), "first odd name").unwrap();
    std::fs::write(dir.join(&odd_b), "second odd name").unwrap();
    good.push(dir.join(odd_a));
    good.push(dir.join(odd_b));
    std::fs::write(dir.join("new\nline.txt"), "a name with a newline").unwrap();
    good.push(dir.join("new\nline.txt"));
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            "UTF-16 text with a mark"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    std::fs::write(dir.join("utf16.txt"), utf16).unwrap();
    good.push(dir.join("utf16.txt"));
    let huge_line = "word ".repeat(12_000_000);
    std::fs::write(dir.join("huge-line.txt"), huge_line).unwrap();
    good.push(dir.join("huge-line.txt"));
    std::fs::write(dir.join("big.png"), png_bomb(19_000)).unwrap();
    good.push(dir.join("big.png"));

    // Nested 20,000 and 200,000 deep (2.2 MB), words at every level and
    // a last one at the bottom: stored with their words, in seconds.
    for (name, levels) in [("deep.html", 20_000), ("deeper.html", 200_000)] {
        let mut html = String::from("<html><body><p>Abyssal pages</p>");
        for i in 0..levels {
            html.push_str(&format!("<div>w{i} "));
        }
        html.push_str("trench");
        std::fs::write(dir.join(name), html).unwrap();
        good.push(dir.join(name));
    }
    mkfifo(&dir.join("pipe.txt"));
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.txt")).unwrap();
    std::os::unix::fs::symlink("/dev/urandom", dir.join("sub/random.txt")).unwrap();
    std::os::unix::fs::symlink("nowhere", dir.join("dangling.txt")).unwrap();
    std::os::unix::fs::symlink("loop-b", dir.join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", dir.join("loop-b")).unwrap();
    let broken = crate::common::repo_root().join("testdata/broken");
    for name in [
        "bomb.docx",
        "encrypted.pdf",
        "fake.jpg",
        "truncated.docx",
        "truncated.pdf",
        "noise.bin",
    ] {
        std::fs::copy(broken.join(name), dir.join(name)).unwrap();
    }
    let bad = vec![
        ("pipe.txt".to_string(), "named pipe"),
        ("zero.txt".to_string(), "character device"),
        ("sub/random.txt".to_string(), "character device"),
        ("dangling.txt".to_string(), "dangling link"),
        ("loop-a".to_string(), "link loop"),
        ("loop-b".to_string(), "link loop"),
        ("bomb.docx".to_string(), "zip bomb"),
        ("encrypted.pdf".to_string(), "encrypted"),
        ("fake.jpg".to_string(), "named as JPEG"),
        ("truncated.docx".to_string(), "DOCX"),
        ("truncated.pdf".to_string(), "PDF"),
        ("noise.bin".to_string(), "binary"),
    ];
    (good, bad)
}

#[test]
fn hostile_files_fail_alone_within_bounds() {
    let env = Env::new();
    let dir = env.path("hostile");
    let (good, bad) = hostile_folder(&dir);
    let started = Instant::now();
    let (out, peak) = run_bounded(
        env.cmd(&["put", dir.to_str().unwrap(), "-r"]),
        Duration::from_secs(240),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!(
        "hostile folder: {} good and {} bad files in {:.1} s, exit {:?}, peak memory {peak:.0} MB",
        good.len(),
        bad.len(),
        started.elapsed().as_secs_f64(),
        out.status.code()
    );
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for (name, reason) in &bad {
        let path = dir.join(name).display().to_string();
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with(&format!("keep: {path}: ")))
            .collect();
        assert_eq!(lines.len(), 1, "{name}: {lines:?}\n{stderr}");
        assert!(lines[0].contains(reason), "{name}: {}", lines[0]);
    }
    let ids: BTreeSet<String> = env.all_ids().into_iter().collect();
    for path in &good {
        let id = keep_file_id(path);
        assert!(ids.contains(&id), "{id} missing; stderr:\n{stderr}");
    }
    assert!(peak < 1500.0, "peak memory {peak:.0} MB");
    let bottom = env.ok(&["find", "--mode", "keyword", "trench", "--ids"]);
    for name in ["deep.html", "deeper.html"] {
        let id = keep_file_id(&dir.join(name));
        assert!(bottom.lines().any(|l| l == id), "{name}: {bottom}");
    }
    assert_consistent(&env);
    // Nothing leaves a process behind.
    let again = env.run(&["list", "--ids"]);
    assert!(again.status.success());
}

/// The id keep gives a file: its path with unsafe bytes percent-encoded.
fn keep_file_id(path: &Path) -> String {
    let mut out = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[test]
fn kill_9_during_an_ingest_or_a_backlog_fill_loses_nothing() {
    let mut rng = Rng::new("kill -9");
    let env = Env::with_model();
    let dir = env.path("many");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..400 {
        let body = format!(
            "# Note {i}\n\nThis is note number {i}, about harbour {} and the tide {}.\n",
            i % 17,
            i % 5
        );
        std::fs::write(dir.join(format!("n{i:03}.md")), body).unwrap();
    }
    let mut kills = 0;
    for run in 0..6 {
        let mut child = env
            .cmd(&["put", dir.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(20 + rng.below(700)));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        let _ = child.wait();
        assert_consistent(&env);
        println!("ingest run {run}: {} notes stored", env.all_ids().len());
    }
    let (out, _) = run_bounded(
        env.cmd(&["put", dir.to_str().unwrap()]),
        Duration::from_secs(300),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(env.all_ids().len(), 400, "lost or duplicated notes");
    assert_consistent(&env);

    // Now the backlog: `reindex --all` drops every vector and embeds
    // everything again; kill it part way, three times.
    for _ in 0..3 {
        let mut child = env
            .cmd(&["reindex", "--all"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(300 + rng.below(2500)));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        let _ = child.wait();
        assert_consistent(&env);
    }
    let (out, _) = run_bounded(env.cmd(&["reindex"]), Duration::from_secs(300));
    assert!(out.status.success());
    let report: Value = env.json(&["reindex"]);
    assert_eq!(report["remaining"], 0, "{report}");
    assert_consistent(&env);
    println!("kill -9: {kills} kills, 400 notes, 0 lost, store consistent");
}

/// A `keep mcp` process driven line by line.
pub(crate) struct Mcp {
    child: Child,
    out: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Mcp {
    fn start(env: &Env, args: &[&str]) -> Mcp {
        let mut all = vec!["mcp"];
        all.extend_from_slice(args);
        Mcp::spawn(env.cmd(&all))
    }

    /// Starts `command` (a `keep mcp`) and initializes the session.
    pub(crate) fn spawn(mut command: Command) -> Mcp {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        // A server that stops answering fails the test instead of hanging it.
        let pid = child.id().to_string();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(180));
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
        });
        let mut mcp = Mcp {
            child,
            out,
            next: 1,
        };
        mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        mcp.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        mcp
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        assert!(
            self.out.read_line(&mut line).unwrap() > 0,
            "the server closed"
        );
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&line.to_string());
        loop {
            let reply = self.read();
            if reply["id"] == json!(id) {
                return reply;
            }
        }
    }

    pub(crate) fn call(&mut self, tool: &str, args: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn concurrent_writers_through_cli_mcp_and_the_watcher_lose_nothing() {
    let env = Env::new();
    let watched = env.path("watched");
    std::fs::create_dir_all(&watched).unwrap();
    env.ok(&["put", watched.to_str().unwrap(), "--watch"]);
    let mut watcher = env
        .cmd(&["watch"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let errors = Arc::new(AtomicUsize::new(0));
    let env = Arc::new(env);
    let mut workers = Vec::new();
    for w in 0..3 {
        let (env, stop, acked, errors) = (
            Arc::clone(&env),
            Arc::clone(&stop),
            Arc::clone(&acknowledged),
            Arc::clone(&errors),
        );
        workers.push(std::thread::spawn(move || {
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) {
                let text = format!("cli writer {w} note {i}");
                let out = env.run(&["put", &text, "-t", &format!("writer=cli{w}")]);
                if out.status.success() {
                    acked
                        .lock()
                        .unwrap()
                        .push(String::from_utf8_lossy(&out.stdout).trim().to_string());
                } else {
                    errors.fetch_add(1, Ordering::SeqCst);
                    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
                }
                i += 1;
            }
        }));
    }
    for m in 0..2 {
        let (env, stop, acked, errors) = (
            Arc::clone(&env),
            Arc::clone(&stop),
            Arc::clone(&acknowledged),
            Arc::clone(&errors),
        );
        workers.push(std::thread::spawn(move || {
            let mut mcp = Mcp::start(&env, &[]);
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) {
                let reply = mcp.call(
                    "remember",
                    json!({"text": format!("mcp writer {m} memory {i}"), "tags": [format!("writer=mcp{m}")]}),
                );
                match reply["result"]["structuredContent"]["id"].as_str() {
                    Some(id) if reply["result"]["isError"] != json!(true) => {
                        acked.lock().unwrap().push(id.to_string())
                    }
                    _ => {
                        errors.fetch_add(1, Ordering::SeqCst);
                        eprintln!("{reply}");
                    }
                }
                i += 1;
            }
        }));
    }
    let files = Arc::new(Mutex::new(Vec::new()));
    {
        let (stop, files, watched) = (Arc::clone(&stop), Arc::clone(&files), watched.clone());
        workers.push(std::thread::spawn(move || {
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) {
                let path = watched.join(format!("w{i:04}.txt"));
                std::fs::write(&path, format!("watched file {i}")).unwrap();
                files.lock().unwrap().push(path);
                i += 1;
                std::thread::sleep(Duration::from_millis(40));
            }
        }));
    }
    std::thread::sleep(Duration::from_secs(20));
    stop.store(true, Ordering::SeqCst);
    for w in workers {
        w.join().unwrap();
    }
    let files = files.lock().unwrap().clone();
    let deadline = Instant::now() + Duration::from_secs(60);
    let ids = loop {
        let ids: BTreeSet<String> = env.all_ids().into_iter().collect();
        let all_files = files.iter().all(|p| ids.contains(&keep_file_id(p)));
        if all_files || Instant::now() > deadline {
            break ids;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let _ = watcher.kill();
    let _ = watcher.wait();
    let acked = acknowledged.lock().unwrap().clone();
    let lost: Vec<&String> = acked.iter().filter(|id| !ids.contains(*id)).collect();
    let unwatched: Vec<&PathBuf> = files
        .iter()
        .filter(|p| !ids.contains(&keep_file_id(p)))
        .collect();
    println!(
        "concurrent writers (3 CLI, 2 MCP, 1 watched folder) for 20 s: {} writes acknowledged, {} files written, {} errors, {} lost, {} files not stored",
        acked.len(),
        files.len(),
        errors.load(Ordering::SeqCst),
        lost.len(),
        unwatched.len()
    );
    assert_eq!(errors.load(Ordering::SeqCst), 0);
    assert!(lost.is_empty(), "lost: {lost:?}");
    assert!(unwatched.is_empty(), "not stored: {unwatched:?}");
    assert_consistent(&env);
}

#[test]
fn a_json_rpc_fuzz_never_takes_the_server_down_or_out_of_its_folder() {
    let mut rng = Rng::new("fuzz");
    let env = Env::new();
    let allowed = env.path("allowed");
    std::fs::create_dir_all(&allowed).unwrap();
    std::fs::write(allowed.join("ok.txt"), "allowed text").unwrap();
    let outside = env.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret text").unwrap();
    std::os::unix::fs::symlink(&outside, allowed.join("escape")).unwrap();
    mkfifo(&allowed.join("pipe.txt"));
    let mut mcp = Mcp::start(&env, &["--allow", allowed.to_str().unwrap()]);
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(9 << 20)
    );
    let fixed: Vec<String> = vec![
        "{".into(),
        "null".into(),
        "[]".into(),
        "\"just a string\"".into(),
        r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#.into(),
        r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#.into(),
        r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list"}"#.into(),
        r#"{"jsonrpc":"2.0","id":{},"method":"tools/list"}"#.into(),
        r#"{"jsonrpc":"1.0","id":2,"method":"tools/list"}"#.into(),
        r#"{"jsonrpc":"2.0","id":3,"method":42}"#.into(),
        r#"{"jsonrpc":"2.0","id":4,"method":"nonsense"}"#.into(),
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get","arguments":[1]}}"#.into(),
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":42}}"#.into(),
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"recall","arguments":{"limit":"ten"}}}"#.into(),
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get","arguments":{"id":"x@V{-9223372036854775808}"}}}"#.into(),
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"forget","arguments":{"id":"x@V{9223372036854775807}"}}}"#.into(),
        format!(r#"{{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{{"name":"put_file","arguments":{{"path":"{}/../outside/secret.txt"}}}}}}"#, allowed.display()),
        format!(r#"{{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{{"name":"put_file","arguments":{{"path":"{}/escape/secret.txt"}}}}}}"#, allowed.display()),
        format!(r#"{{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{{"name":"put_file","arguments":{{"path":"{}","recursive":true}}}}}}"#, allowed.display()),
        format!(r#"{{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{{"name":"put_file","arguments":{{"path":"{}/pipe.txt"}}}}}}"#, allowed.display()),
        r#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"put_file","arguments":{"path":"/etc/passwd"}}}"#.into(),
        deep,
        big,
    ];
    let mut lines = fixed.clone();
    let pieces = [
        "{",
        "}",
        "[",
        "]",
        "\"jsonrpc\"",
        ":",
        "\"2.0\"",
        ",",
        "\"id\"",
        "1",
        "null",
        "\"method\"",
        "\"tools/call\"",
        "\"params\"",
        "\"name\"",
        "\"get\"",
        "\"arguments\"",
        "\"x\\u0000\"",
        "-1e999",
    ];
    for _ in 0..300 {
        let n = 1 + rng.below(20);
        lines.push(
            (0..n)
                .map(|_| pieces[rng.below(pieces.len() as u64) as usize])
                .collect(),
        );
    }
    let started = Instant::now();
    let mut answers = 0;
    let mut outside_named = Vec::new();
    for line in &lines {
        mcp.send_line(line);
        // Every line gets at most one answer; a ping after it proves the
        // server is alive and the answers are in order.
        let ping = mcp.request("ping", json!({}));
        assert!(ping.get("result").is_some(), "after {:.80}: {ping}", line);
        answers += 1;
        let _ = ping;
    }
    // Read back everything put_file answered: nothing outside may be named.
    let folder = mcp.call("put_file", json!({"path": allowed, "recursive": true}));
    let text = folder.to_string();
    for needle in ["secret", outside.to_str().unwrap(), "/etc/"] {
        if text.contains(needle) {
            outside_named.push(needle.to_string());
        }
    }
    let ids: Vec<String> = env.all_ids();
    assert!(
        !ids.iter()
            .any(|id| id.contains("secret") || id.contains("passwd")),
        "{ids:?}"
    );
    println!(
        "fuzz: {} lines ({} fixed, {} random) in {:.1} s, server alive after each, {} escapes",
        lines.len(),
        fixed.len(),
        lines.len() - fixed.len(),
        started.elapsed().as_secs_f64(),
        outside_named.len()
    );
    assert!(
        outside_named.is_empty(),
        "named outside the folder: {outside_named:?}\n{text}"
    );
    assert!(answers == lines.len());
}
