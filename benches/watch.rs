//! Benchmark: a running `keep watch` (release binary) on a temporary
//! folder: the time from writing a file to finding it with `keep find`
//! (p50 of 20), and the throughput of a burst of 1,000 new files.
//!
//!     cargo build --release && cargo bench --bench watch
//!
//! Needs the models (`keep models install`: notes are embedded as they land).

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn keep(bin: &Path, store: &Path, args: &[&str]) -> String {
    let out = Command::new(bin)
        .args(args)
        .env("KEEP_STORE", store)
        .stderr(Stdio::null())
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn main() {
    let bin =
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("target/release/keep");
    assert!(
        bin.is_file(),
        "build the release binary first: cargo build --release"
    );
    let work = tempfile::tempdir().unwrap();
    let store = work.path().join("store");
    let dir = work.path().join("watched");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("start.md"), "Watching starts here.").unwrap();
    keep(
        &bin,
        &store,
        &["put", dir.to_str().unwrap(), "--watch", "-r"],
    );
    let mut watcher = Command::new(&bin)
        .arg("watch")
        .env("KEEP_STORE", &store)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = watcher.id().to_string();
    while !keep(&bin, &store, &["watch", "--list"]).contains(&pid) {
        std::thread::sleep(Duration::from_millis(50));
    }

    let mut samples = Vec::new();
    for i in 0..20 {
        let word = format!("zqx{i}marker");
        let start = Instant::now();
        std::fs::write(
            dir.join(format!("latency-{i}.md")),
            format!("A note with the word {word}."),
        )
        .unwrap();
        while keep(&bin, &store, &["find", &word, "--mode", "keyword", "--ids"])
            .trim()
            .is_empty()
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        samples.push(start.elapsed());
        std::thread::sleep(Duration::from_millis(200));
    }
    samples.sort();
    println!(
        "file write to found by find: p50 {:.0} ms, max {:.0} ms (20 files, one at a time)",
        samples[10].as_secs_f64() * 1000.0,
        samples[19].as_secs_f64() * 1000.0
    );

    let burst = dir.join("burst");
    std::fs::create_dir(&burst).unwrap();
    let start = Instant::now();
    for i in 0..1000 {
        std::fs::write(
            burst.join(format!("b{i:04}.txt")),
            format!("Burst note {i} about harbour work."),
        )
        .unwrap();
    }
    let written = start.elapsed();
    loop {
        let listed = keep(
            &bin,
            &store,
            &["list", "--ids", "-n", "100000", "file://*/burst/*"],
        );
        if listed.lines().count() == 1000 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let all = start.elapsed();
    println!(
        "burst of 1,000 files: written in {:.2} s, all listed after {:.2} s = {:.0} files/s",
        written.as_secs_f64(),
        all.as_secs_f64(),
        1000.0 / all.as_secs_f64()
    );
    let _ = watcher.kill();
    let _ = watcher.wait();
}
