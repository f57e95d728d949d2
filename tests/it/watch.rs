//! `keep watch` as a real process on a temporary folder: creates, edits,
//! deletes, renames, an editor's atomic save, a burst, changes made while
//! stopped, and a SIGKILL in the middle of a burst.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::Env;

/// A running `keep watch`, killed when dropped.
struct Watcher {
    child: Child,
}

impl Watcher {
    fn start(env: &Env) -> Watcher {
        let child = env
            .cmd(&["watch"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start keep watch");
        let watcher = Watcher { child };
        let pid = watcher.child.id().to_string();
        wait_for("the watcher to take the lease", || {
            env.ok(&["watch", "--list"])
                .contains(&format!("watched by process {pid} "))
        });
        watcher
    }

    fn signal(&mut self, signal: &str) {
        let status = std::process::Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        self.child.wait().expect("reap the watcher");
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if done() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("timed out waiting for {what}");
}

fn id(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn visible(env: &Env) -> BTreeSet<String> {
    env.ok(&["list", "--ids", "-n", "100000"])
        .lines()
        .map(String::from)
        .collect()
}

fn summary(env: &Env, id: &str) -> String {
    env.json(&["get", id])[0]["summary"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn versions(env: &Env, id: &str) -> usize {
    env.ok(&["get", id, "--history", "--ids"]).lines().count()
}

fn watched_folder(env: &Env, files: &[(&str, &str)]) -> PathBuf {
    let dir = env.path("watched");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, body) in files {
        std::fs::write(dir.join(name), body).unwrap();
    }
    env.ok(&["put", dir.to_str().unwrap(), "--watch", "-r"]);
    dir
}

#[test]
fn live_changes_are_reflected_exactly_once() {
    let env = Env::new();
    let dir = watched_folder(&env, &[("a.md", "Anchor chain inspected.")]);
    let a = dir.join("a.md");
    let _watcher = Watcher::start(&env);

    std::fs::write(dir.join("b.md"), "Buoy light replaced.").unwrap();
    wait_for("a new file", || {
        visible(&env).contains(&id(&dir.join("b.md")))
    });

    std::fs::write(&a, "Anchor chain inspected and greased.").unwrap();
    wait_for("an edit", || summary(&env, &id(&a)).contains("greased"));
    assert_eq!(versions(&env, &id(&a)), 2);

    let tmp = dir.join("a.md.tmp");
    std::fs::write(&tmp, "Anchor chain replaced after the storm.").unwrap();
    std::fs::rename(&tmp, &a).unwrap();
    wait_for("an atomic save", || {
        summary(&env, &id(&a)).contains("storm")
    });
    assert_eq!(versions(&env, &id(&a)), 3, "one version per save");
    assert!(!env.all_ids().contains(&id(&tmp)));

    std::fs::create_dir(dir.join("sub")).unwrap();
    let moved = dir.join("sub/anchor.md");
    std::fs::rename(&a, &moved).unwrap();
    wait_for("a rename", || {
        let ids = env.all_ids();
        ids.contains(&id(&moved)) && !ids.contains(&id(&a))
    });
    assert_eq!(versions(&env, &id(&moved)), 3, "history follows the rename");

    std::fs::remove_file(dir.join("b.md")).unwrap();
    wait_for("a delete", || {
        !visible(&env).contains(&id(&dir.join("b.md")))
    });
    let b = &env.json(&["get", &id(&dir.join("b.md"))])[0];
    assert!(b["tags"]["_deleted"].is_array(), "{b}");
    assert!(
        env.ok(&["list", "-a", "--ids"])
            .contains(&id(&dir.join("b.md")))
    );

    let burst = dir.join("burst");
    std::fs::create_dir(&burst).unwrap();
    for i in 0..500 {
        std::fs::write(
            burst.join(format!("f{i:03}.txt")),
            format!("Burst note number {i}."),
        )
        .unwrap();
    }
    wait_for("a burst of 500 files", || {
        visible(&env)
            .iter()
            .filter(|i| i.contains("/burst/"))
            .count()
            == 500
    });
    assert_eq!(visible(&env).len(), 501);
    assert_eq!(
        summary(&env, &id(&burst.join("f123.txt"))),
        "Burst note number 123."
    );
    assert_eq!(versions(&env, &id(&burst.join("f007.txt"))), 1);
}

#[test]
fn changes_while_stopped_and_a_kill_mid_burst_lose_and_duplicate_nothing() {
    let env = Env::new();
    let dir = watched_folder(
        &env,
        &[
            ("keep.md", "Unchanged all along."),
            ("edit.md", "Before."),
            ("gone.md", "To be deleted."),
            ("old.md", "To be renamed."),
        ],
    );
    let mut watcher = Watcher::start(&env);
    let second = env
        .cmd(&["watch"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut second = Watcher { child: second };
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        env.ok(&["watch", "--list"])
            .contains(&format!("watched by process {} ", watcher.child.id())),
        "the first watcher keeps the lease"
    );
    second.signal("-TERM");

    let burst = dir.join("burst");
    std::fs::create_dir(&burst).unwrap();
    for i in 0..300 {
        std::fs::write(
            burst.join(format!("n{i:03}.txt")),
            format!("Killed burst note {i}."),
        )
        .unwrap();
        if i == 150 {
            watcher.signal("-KILL");
        }
    }
    std::fs::write(dir.join("edit.md"), "After, edited while stopped.").unwrap();
    std::fs::remove_file(dir.join("gone.md")).unwrap();
    std::fs::rename(dir.join("old.md"), dir.join("new.md")).unwrap();
    std::fs::write(dir.join("fresh.md"), "Created while stopped.").unwrap();

    let _restarted = Watcher::start(&env);
    wait_for("the catch-up scan", || {
        let ids = visible(&env);
        ids.iter().filter(|i| i.contains("/burst/")).count() == 300
            && ids.contains(&id(&dir.join("new.md")))
            && ids.contains(&id(&dir.join("fresh.md")))
            && !ids.contains(&id(&dir.join("gone.md")))
            && summary(&env, &id(&dir.join("edit.md"))).contains("After")
    });
    let ids = visible(&env);
    assert_eq!(ids.len(), 300 + 4, "{ids:?}");
    assert!(
        !env.all_ids().contains(&id(&dir.join("old.md"))),
        "renamed, not copied"
    );
    assert_eq!(versions(&env, &id(&dir.join("keep.md"))), 1);
    assert_eq!(versions(&env, &id(&dir.join("edit.md"))), 2);
    assert_eq!(versions(&env, &id(&dir.join("new.md"))), 1);
    for i in [0, 150, 299] {
        let note = id(&burst.join(format!("n{i:03}.txt")));
        assert_eq!(versions(&env, &note), 1, "{note}");
        assert_eq!(summary(&env, &note), format!("Killed burst note {i}."));
    }
}

#[test]
fn a_missing_folder_stays_registered_and_touches_nothing() {
    let env = Env::new();
    let dir = watched_folder(&env, &[("tide.md", "Tide at six.")]);
    let _watcher = Watcher::start(&env);
    let away = env.path("away");
    std::fs::rename(&dir, &away).unwrap();
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        visible(&env).contains(&id(&dir.join("tide.md"))),
        "not marked deleted"
    );
    assert!(env.ok(&["watch", "--list"]).contains(dir.to_str().unwrap()));
    std::fs::rename(&away, &dir).unwrap();
    std::fs::write(dir.join("moon.md"), "Moon rises late.").unwrap();
    wait_for("the folder to be watched again", || {
        visible(&env).contains(&id(&dir.join("moon.md")))
    });
    env.ok(&["watch", "--remove", dir.to_str().unwrap()]);
    assert!(!env.ok(&["watch", "--list"]).contains(dir.to_str().unwrap()));
}

#[test]
fn a_large_backlog_never_delays_new_files_or_a_stop() {
    // 2,000 notes wait for vectors (stored without a model), then the
    // watcher starts with the model: new files still land at once, and an
    // interrupt ends it at once.
    let mut env = Env::new();
    let dir = watched_folder(&env, &[("first.md", "The first file.")]);
    let input: String = (0..2000)
        .map(|i| format!("{{\"id\":\"n{i}\",\"summary\":\"backlog note {i} about ropes\",\"tags\":{{}},\"created\":\"2026-11-22T10:00:00.000Z\",\"updated\":\"2026-11-22T10:00:00.000Z\",\"accessed\":\"2026-11-22T10:00:00.000Z\"}}\n"))
        .collect();
    env.ok_stdin(
        &["import", "-"],
        &format!("{{\"format\":\"keep-export\",\"version\":1}}\n{input}"),
    );
    env.install_model();
    let mut watcher = Watcher::start(&env);
    std::thread::sleep(Duration::from_secs(1));
    let fresh = dir.join("fresh.md");
    std::fs::write(&fresh, "Written while the backlog is being embedded.").unwrap();
    let written = Instant::now();
    wait_for("the new file", || visible(&env).contains(&id(&fresh)));
    let took = written.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "the new file waited {took:?}"
    );
    let stop = Instant::now();
    watcher.signal("-INT");
    let stopped = stop.elapsed();
    println!(
        "backlog of 2,000: new file stored after {took:?}; SIGINT ended the watcher in {stopped:?}"
    );
    assert!(stopped < Duration::from_secs(3), "{stopped:?}");
}

#[test]
fn keep_mcp_ends_soon_after_its_input_closes_while_watching_a_backlog() {
    let mut env = Env::new();
    watched_folder(&env, &[("first.md", "The first file.")]);
    let input: String = (0..2000)
        .map(|i| format!("{{\"id\":\"n{i}\",\"summary\":\"backlog note {i}\",\"tags\":{{}},\"created\":\"2026-11-22T10:00:00.000Z\",\"updated\":\"2026-11-22T10:00:00.000Z\",\"accessed\":\"2026-11-22T10:00:00.000Z\"}}\n"))
        .collect();
    env.ok_stdin(
        &["import", "-"],
        &format!("{{\"format\":\"keep-export\",\"version\":1}}\n{input}"),
    );
    env.install_model();
    let mut server = env
        .cmd(&["mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    drop(server.stdin.take());
    let closed = Instant::now();
    let deadline = closed + Duration::from_secs(10);
    while server.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let took = closed.elapsed();
    let _ = server.kill();
    let _ = server.wait();
    println!("keep mcp ended {took:?} after its input closed");
    assert!(took < Duration::from_secs(2), "{took:?}");
}
