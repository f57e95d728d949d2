//! Faults of the machine: a full disk under every write path and a
//! read-only file system. The store's folder is a small tmpfs (or a
//! read-only bind mount) in a private mount namespace that `unshare` makes
//! without privileges; each command enters it with `nsenter`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::common::Env;
use crate::reliability::Mcp;

/// A private mount namespace with the store's folder mounted by `setup`
/// (a shell snippet run inside it), held open by a sleeping process.
struct Mounted {
    holder: Child,
    pid: String,
    at: PathBuf,
    user_namespace: bool,
}

impl Mounted {
    fn new(at: &Path, setup: &str) -> Mounted {
        std::fs::create_dir_all(at).unwrap();
        // Without privileges a user namespace is needed; as root (where
        // user namespaces may be turned off) a mount namespace is enough.
        let ways: &[&[&str]] = &[
            &[
                "--user",
                "--map-root-user",
                "--mount",
                "--propagation",
                "private",
            ],
            &["--mount", "--propagation", "private"],
        ];
        let mut why = Vec::new();
        for way in ways {
            match Mounted::try_new(at, setup, way) {
                Ok(mounted) => return mounted,
                Err(e) => why.push(e),
            }
        }
        panic!("this machine allows no private mount namespace (unshare): {why:?}");
    }

    fn try_new(at: &Path, setup: &str, way: &[&str]) -> Result<Mounted, String> {
        let script = format!("{setup} && echo ready && exec sleep 900");
        let mut holder = Command::new("unshare")
            .args(way)
            .args(["bash", "-c", &script])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("unshare: {e}"))?;
        let mut line = String::new();
        BufReader::new(holder.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        if line.trim() != "ready" {
            let _ = holder.kill();
            let out = holder.wait_with_output().unwrap();
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        Ok(Mounted {
            pid: holder.id().to_string(),
            holder,
            at: at.to_path_buf(),
            user_namespace: way.contains(&"--user"),
        })
    }

    /// A tmpfs of `size` (as mount takes it: `24m`) over the store.
    fn small_disk(env: &Env, size: &str) -> Mounted {
        let at = env.store();
        Mounted::new(
            &at,
            &format!("mount -t tmpfs -o size={size} tmpfs '{}'", at.display()),
        )
    }

    /// `program args` inside the namespace, in `env`'s environment.
    fn program(&self, env: &Env, program: &str, args: &[&str]) -> Command {
        let mut all = vec!["-t", self.pid.as_str(), "--mount"];
        if self.user_namespace {
            all.extend(["--user", "--preserve-credentials"]);
        }
        all.push(program);
        all.extend_from_slice(args);
        env.program(Path::new("nsenter"), &all)
    }

    fn keep(&self, env: &Env, args: &[&str]) -> Output {
        self.program(env, Env::bin(), args).output().unwrap()
    }

    /// A command that must succeed; its stdout.
    fn ok(&self, env: &Env, args: &[&str]) -> String {
        let out = self.keep(env, args);
        assert!(
            out.status.success(),
            "keep {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn shell(&self, env: &Env, script: &str) -> Output {
        self.program(env, "bash", &["-c", script]).output().unwrap()
    }

    /// Fills what is left of the disk with a file of zeros.
    fn fill(&self, env: &Env) {
        let ballast = self.at.join("ballast");
        self.shell(
            env,
            &format!(
                "dd if=/dev/zero of='{}' bs=4k 2>/dev/null; true",
                ballast.display()
            ),
        );
        let df = self.shell(
            env,
            &format!("df --output=avail -k '{}'", self.at.display()),
        );
        let avail = String::from_utf8_lossy(&df.stdout);
        assert!(
            avail.lines().last().unwrap().trim() == "0",
            "the disk is full: {avail}"
        );
    }

    fn free(&self, env: &Env) {
        let out = self.shell(env, &format!("rm '{}'", self.at.join("ballast").display()));
        assert!(out.status.success());
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

/// A running `keep watch` and the lines it printed on stderr.
struct Watcher {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Watcher {
    fn start(mut command: Command) -> Watcher {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (err, sink) = (child.stderr.take().unwrap(), Arc::clone(&lines));
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Watcher { child, lines }
    }

    fn lines_with(&self, text: &str) -> usize {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains(text))
            .count()
    }

    fn wait_for(&self, text: &str) {
        let started = std::time::Instant::now();
        while self.lines_with(text) == 0 {
            assert!(
                started.elapsed().as_secs() < 20,
                "the watcher did not say {text:?}: {:?}",
                self.lines.lock().unwrap()
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A folder of `n` Markdown files of a few hundred words each.
fn folder(env: &Env, name: &str, n: usize) -> PathBuf {
    let dir = env.path(name);
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..n {
        let body: String = (0..60)
            .map(|j| format!("{name} entry {i} line {j} about tides, lamps and harbour walls. "))
            .collect();
        std::fs::write(
            dir.join(format!("{name}-{i:04}.md")),
            format!("# {name} {i}\n\n{body}"),
        )
        .unwrap();
    }
    dir
}

/// The one stderr line of a write refused for a full disk.
fn refused_for_full_disk(what: &str, out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: one line, not {lines:?}");
    assert!(
        lines[0].starts_with("keep: the disk is full where the store is written (")
            && lines[0].contains("free some space"),
        "{what}: {}",
        lines[0]
    );
}

#[test]
fn a_full_disk_refuses_every_write_in_one_line_reads_go_on_and_a_rerun_completes() {
    let env = Env::with_model();
    if env.on_postgres() {
        // The disk that fills is the database server's; keep maps its
        // disk_full state to the same message, but the test cannot fill it.
        return;
    }
    let disk = Mounted::small_disk(&env, "16m");
    disk.ok(
        &env,
        &["put", "The harbour light is lit at dusk.", "--id", "light"],
    );
    let small = folder(&env, "small", 10);
    disk.ok(&env, &["put", small.to_str().unwrap()]);
    let big = folder(&env, "big", 60);
    // An export to import: another store's notes, with their vectors.
    let other = Env::with_model();
    other.ok(&["put", folder(&other, "other", 60).to_str().unwrap()]);
    let export = env.path("other.jsonl");
    std::fs::write(&export, other.export()).unwrap();
    let watched = folder(&env, "watched", 2);
    disk.ok(&env, &["put", watched.to_str().unwrap(), "--watch"]);
    let watcher = Watcher::start(disk.program(&env, Env::bin(), &["watch"]));
    let before = disk.ok(&env, &["export"]);

    disk.fill(&env);
    let arrival = watched.join("arrived-while-full.md");
    std::fs::write(
        &arrival,
        "# Arrival\n\nA file written while the disk was full.",
    )
    .unwrap();
    watcher.wait_for("the disk is full where the store is written");
    let tries: Vec<(&str, Vec<&str>)> = vec![
        (
            "put of text",
            vec!["put", "The tide turns at four in the afternoon."],
        ),
        (
            "put of text with --id",
            vec!["put", "The pier is closed.", "--id", "pier"],
        ),
        ("put of a folder", vec!["put", big.to_str().unwrap()]),
        ("import", vec!["import", export.to_str().unwrap()]),
        ("reindex", vec!["reindex", "--all"]),
        ("tag", vec!["tag", "light", "-t", "topic=harbour"]),
        ("now", vec!["now", "Checking the lamps on the north wall."]),
        ("del", vec!["del", "light"]),
    ];
    for (what, args) in &tries {
        refused_for_full_disk(what, &disk.keep(&env, args));
    }
    let mut mcp = Mcp::spawn(disk.program(&env, Env::bin(), &["mcp"]));
    let reply = mcp.call("remember", json!({"text": "The ferry leaves at nine."}));
    assert_eq!(reply["result"]["isError"], json!(true), "{reply}");
    let said = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        said.starts_with("the disk is full where the store is written ("),
        "{said}"
    );
    let recalled = mcp.call("recall", json!({"query": "harbour light"}));
    assert_ne!(recalled["result"]["isError"], json!(true), "{recalled}");
    drop(mcp);

    assert_eq!(disk.ok(&env, &["export"]), before, "nothing changed");
    assert_eq!(
        watcher.lines_with("the disk is full"),
        1,
        "the watcher tells the fault once"
    );
    assert_eq!(
        disk.ok(&env, &["list", "--ids", "-n", "100"])
            .lines()
            .count(),
        13
    );
    assert!(disk.ok(&env, &["get", "light"]).contains("harbour light"));
    let found = disk.ok(
        &env,
        &["find", "--mode", "keyword", "harbour light", "--ids"],
    );
    assert_eq!(found.lines().next(), Some("light"));

    disk.free(&env);
    for (what, args) in &tries {
        let out = disk.keep(&env, args);
        assert!(
            out.status.success(),
            "{what} after space was freed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let arrived = format!("file://{}", arrival.display());
    let started = std::time::Instant::now();
    while !disk
        .ok(&env, &["list", "--ids", "-n", "2000"])
        .lines()
        .any(|l| l == arrived)
    {
        assert!(
            started.elapsed().as_secs() < 30,
            "the watcher stores what arrived once space is freed"
        );
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    drop(watcher);
    let ids = disk.ok(&env, &["list", "--ids", "-a", "-n", "2000"]);
    assert_eq!(
        disk.ok(&env, &["list", "--deleted", "--ids"]),
        "light\n",
        "deleted, to the trash"
    );
    assert!(ids.lines().any(|l| l == "pier"));
    let stored = ids.lines().count();
    assert!(
        stored >= 10 + 2 + 1 + 60 + 60 + 2,
        "every note of the rerun is there: {stored}"
    );
}

#[test]
fn a_read_only_file_system_serves_every_read_and_refuses_writes() {
    let env = Env::with_model();
    if env.on_postgres() {
        // On a server, read-only is the role's grants (see the serve tests).
        return;
    }
    env.ok(&["put", "The harbour light is lit at dusk.", "--id", "light"]);
    env.ok(&["put", folder(&env, "notes", 5).to_str().unwrap()]);
    let at = env.store();
    let ro = Mounted::new(
        &at,
        &format!(
            "mount --bind '{0}' '{0}' && mount -o remount,bind,ro '{0}'",
            at.display()
        ),
    );
    assert_eq!(ro.ok(&env, &["list", "--ids"]).lines().count(), 6);
    assert!(ro.ok(&env, &["get", "light"]).contains("harbour light"));
    let found = ro.ok(&env, &["find", "lamps on the harbour walls", "--ids"]);
    assert!(found.lines().count() >= 5, "{found}");
    let out = ro.keep(&env, &["put", "A new fact.", "--id", "new"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is read-only here"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    let mut mcp = Mcp::spawn(ro.program(&env, Env::bin(), &["mcp"]));
    let recalled = mcp.call("recall", json!({"query": "harbour light"}));
    assert_ne!(recalled["result"]["isError"], json!(true), "{recalled}");
    let reply = mcp.call("remember", json!({"text": "The ferry leaves at nine."}));
    assert_eq!(reply["result"]["isError"], json!(true), "{reply}");
    assert!(
        reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("is read-only here"),
        "{reply}"
    );
}

#[test]
fn a_full_disk_that_is_also_read_only_is_said_to_be_read_only() {
    let env = Env::new();
    if env.on_postgres() {
        return;
    }
    let disk = Mounted::small_disk(&env, "24m");
    disk.ok(
        &env,
        &["put", "The harbour light is lit at dusk.", "--id", "light"],
    );
    disk.fill(&env);
    let remount = disk.shell(
        &env,
        &format!("mount -o remount,ro '{}'", env.store().display()),
    );
    assert!(
        remount.status.success(),
        "{}",
        String::from_utf8_lossy(&remount.stderr)
    );
    assert!(disk.ok(&env, &["get", "light"]).contains("harbour light"));
    for args in [
        &["put", "A new fact.", "--id", "new"][..],
        &["tag", "light", "-t", "topic=sea"],
    ] {
        let out = disk.keep(&env, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("is read-only here"), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("full"),
            "freeing space would not help: {stderr}"
        );
    }
}

/// A note with versions and parts, and twenty more: what a check walks.
fn varied_store(env: &Env) {
    env.ok(&["put", "The harbour light is lit at dusk.", "--id", "light"]);
    env.ok(&["put", "The harbour light is lit at six.", "--id", "light"]);
    let guide = env.path("guide.md");
    let sections: String = (1..=6)
        .map(|i| {
            format!(
                "## Section {i}\n\n{}\n\n",
                format!("Paragraph {i} on the keeping of lamps, wicks and oil in a lighthouse. ")
                    .repeat(30)
            )
        })
        .collect();
    std::fs::write(&guide, format!("# Lighthouse guide\n\n{sections}")).unwrap();
    env.ok(&["put", guide.to_str().unwrap()]);
    env.ok(&["put", folder(env, "notes", 20).to_str().unwrap()]);
    env.ok(&["rate", "light", "useful"]);
    env.ok(&["reindex"]);
}

#[test]
fn check_finds_damage_and_repair_mends_it_without_changing_a_note() {
    let env = Env::with_model();
    varied_store(&env);
    assert!(env.ok(&["check"]).starts_with("ok: "));
    let before = env.export();
    let light = "(SELECT rid FROM notes WHERE id = 'light')";

    if env.on_postgres() {
        env.sql(
            "DELETE FROM vec_notes WHERE key = (SELECT rid FROM notes WHERE id LIKE '%guide.md')",
        );
        env.sql("UPDATE text_totals SET words = words + 5 WHERE name = 'parts.length'");
        let out = env.run(&["check"]);
        assert_eq!(out.status.code(), Some(1));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("1 row(s) of notes marked embedded without a vector"),
            "{stdout}"
        );
        assert!(
            stdout.contains("word totals of parts.length say"),
            "{stdout}"
        );
        env.ok(&["repair"]);
        assert!(env.ok(&["check"]).starts_with("ok: "));
        env.ok(&["reindex"]);
        assert_eq!(
            env.export(),
            before,
            "the notes and, once embedded, their vectors"
        );
        return;
    }

    // Index rows removed: a keyword entry, an int8 code, a version's
    // number moved out of line.
    env.sql(&format!("DELETE FROM notes_fts WHERE rowid = {light}"));
    env.sql(
        "DELETE FROM codes_notes WHERE key = (SELECT rid FROM notes WHERE id LIKE '%guide.md')",
    );
    env.sql("UPDATE counts SET n = n + 3 WHERE name = 'notes'");
    let out = env.run(&["check"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "1 row(s) of notes missing from the keyword index notes_fts",
        "1 vector(s) in vec_notes without their int8 code",
        "3 note(s) miscounted by the store's count of notes",
    ] {
        assert!(stdout.contains(expected), "{expected}: {stdout}");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("3 problem(s)") && stderr.contains("keep repair"),
        "{stderr}"
    );
    let repaired = env.ok(&["repair"]);
    assert!(repaired.contains("the old file is kept as "), "{repaired}");
    assert!(env.ok(&["check"]).starts_with("ok: "));
    assert_eq!(env.export(), before, "not a note changed");

    // A page of an index overwritten with garbage.
    env.sql("PRAGMA wal_checkpoint(TRUNCATE)");
    let db = env.store().join("keep.db");
    let (root, page): (i64, i64) = {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let root = conn
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = 'notes_updated_order'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let page = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap();
        (root, page)
    };
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
        file.seek(SeekFrom::Start(((root - 1) * page) as u64))
            .unwrap();
        file.write_all(&vec![0xAB; page as usize]).unwrap();
    }
    let out = env.run(&["check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("database file: "),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    env.ok(&["repair"]);
    assert!(env.ok(&["check"]).starts_with("ok: "));
    assert_eq!(env.export(), before, "not a note changed");
    assert_eq!(env.ok(&["list", "-n", "5", "--ids"]).lines().count(), 5);
    let kept: Vec<_> = std::fs::read_dir(env.store())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("keep.db.before-repair-")
        })
        .collect();
    assert!(kept.len() >= 2, "each old file is kept");
}

#[test]
fn a_backup_taken_while_others_write_is_a_sound_store() {
    let env = Env::with_model();
    if env.on_postgres() {
        let out = env.run(&["backup", env.path("copy.db").to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("pg_dump"));
        return;
    }
    varied_store(&env);
    let stop = env.path("stop-writing");
    let script = format!(
        "i=0; while [ ! -e '{stop}' ]; do '{keep}' put \"Written during the backup, number $i.\" --id during-$i >/dev/null || exit 1; i=$((i+1)); done; echo $i",
        stop = stop.display(),
        keep = Env::bin()
    );
    let writer = env
        .program(Path::new("bash"), &["-c", &script])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let copy = env.path("copy/keep.db");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    let said = env.ok(&["backup", copy.to_str().unwrap()]);
    std::fs::write(&stop, "").unwrap();
    let out = writer.wait_with_output().unwrap();
    assert!(out.status.success(), "the writer went on");
    let written = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(said.contains("checked: ok"), "{said}");
    let out = env.run(&["backup", copy.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an existing file is not overwritten"
    );
    let listed = env
        .cmd(&[
            "--store",
            copy.parent().unwrap().to_str().unwrap(),
            "list",
            "--ids",
            "-a",
            "-n",
            "1000",
        ])
        .output()
        .unwrap();
    assert!(listed.status.success());
    let ids = String::from_utf8_lossy(&listed.stdout);
    assert!(ids.lines().any(|l| l == "light"));
    assert!(ids.lines().count() >= 22, "{ids}");
    println!("backup taken while {written} notes were written");
}
