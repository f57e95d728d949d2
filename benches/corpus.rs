//! Benchmark: ingestion of the real-document corpus (scripts/corpus.sh:
//! HTML pages of a dozen site generators and PDFs from Debian
//! documentation packages) by the release binary, as one process: files/s,
//! MB/s and peak memory, with and without embedding; how many of the
//! hand-labelled pages (testdata/real/labels.tsv) get a summary that opens
//! with their own words; then `keep find` processes on that store.
//!
//!     ./scripts/setup.sh && cargo build --release && cargo bench --bench corpus

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// How a finished process went: wall seconds, CPU seconds, peak RSS in MB.
struct Run {
    wall: f64,
    cpu: f64,
    peak_mb: f64,
    stdout: String,
    /// The `timings:` line of a `put --timings`, if any.
    timings: Option<String>,
}

/// Runs `cmd` to the end and measures that one child (wait4), not every
/// child so far.
#[expect(clippy::zombie_processes, reason = "wait4 reaps the child")]
fn measured(mut cmd: Command) -> Run {
    let start = Instant::now();
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).unwrap();
        out
    });
    let stderr = child.stderr.unwrap();
    let errors = std::thread::spawn(move || {
        let mut timings = None;
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)).map_while(Result::ok) {
            match line.strip_prefix("keep: timings: ") {
                Some(t) => timings = Some(t.to_string()),
                None => eprintln!("{line}"),
            }
        }
        timings
    });
    let mut status = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: wait4 fills the status and the rusage it is given, for a
    // child of this process that nothing else waits for.
    let usage = unsafe {
        assert_eq!(libc::wait4(pid, &mut status, 0, usage.as_mut_ptr()), pid);
        usage.assume_init()
    };
    let wall = start.elapsed().as_secs_f64();
    // Exit 1 is a put that stored everything but a few files it names.
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) <= 1,
        "{cmd:?} failed"
    );
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Run {
        wall,
        cpu: secs(usage.ru_utime) + secs(usage.ru_stime),
        peak_mb: usage.ru_maxrss as f64 / 1024.0,
        stdout: reader.join().unwrap(),
        timings: errors.join().unwrap(),
    }
}

fn keep(bin: &Path, store: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args(args).env("KEEP_STORE", store);
    cmd
}

/// Files and bytes under `dir`.
fn size_of(dir: &Path) -> (usize, u64) {
    let mut files = 0;
    let mut bytes = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let meta = entry.metadata().unwrap();
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') || name == "VERSIONS" {
                continue;
            }
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                files += 1;
                bytes += meta.len();
            }
        }
    }
    (files, bytes)
}

/// Labelled pages whose summary opens with the labelled words.
fn labelled_share(export: &str, corpus: &Path) -> (usize, usize) {
    let summaries: std::collections::HashMap<String, String> = export
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|n| n.get("operation").is_none())
        .map(|n| {
            (
                n["id"].as_str().unwrap().to_string(),
                n["summary"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let words = |t: &str| {
        t.replace(['`', '*'], "")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let labels = std::fs::read_to_string(root().join("testdata/real/labels.tsv")).unwrap();
    let (mut hits, mut total) = (0, 0);
    for (path, opening) in labels
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
    {
        total += 1;
        let id = format!("file://{}", corpus.join(path).display());
        let summary = summaries.get(&id).map(String::as_str).unwrap_or("");
        if words(summary).starts_with(&words(opening)) {
            hits += 1;
        }
    }
    (hits, total)
}

fn main() {
    let bin = root().join("target/release/keep");
    assert!(
        bin.is_file(),
        "build the release binary first: cargo build --release"
    );
    let corpus = root().join("target/corpus").canonicalize().unwrap();
    assert!(
        corpus.join(".complete").exists(),
        "install the corpus first: ./scripts/setup.sh"
    );
    let (files, bytes) = size_of(&corpus);
    let mb = bytes as f64 / 1e6;
    let work = tempfile::tempdir().unwrap();
    let corpus_arg = corpus.to_str().unwrap();

    let bare = work.path().join("bare");
    let mut cmd = keep(
        &bin,
        &bare,
        &["put", "-r", corpus_arg, "--ids", "--timings"],
    );
    cmd.env("KEEP_MODEL_DIR", work.path().join("no-model"));
    let run = measured(cmd);
    println!("corpus: {files} files, {mb:.1} MB");
    println!(
        "  without embedding (extract, summarise, chunk, store): {:.1} s = {:.0} files/s, {:.2} MB/s, CPU {:.2} cores, peak {:.0} MB",
        run.wall,
        files as f64 / run.wall,
        mb / run.wall,
        run.cpu / run.wall,
        run.peak_mb
    );
    println!("    {}", run.timings.as_deref().unwrap_or("no timings"));

    let store = work.path().join("store");
    let run = measured(keep(
        &bin,
        &store,
        &["put", "-r", corpus_arg, "--ids", "--timings"],
    ));
    println!(
        "  whole run (extract, summarise, chunk, store, embed): {:.1} s = {:.1} files/s, {:.2} MB/s, CPU {:.2} cores, peak {:.0} MB",
        run.wall,
        files as f64 / run.wall,
        mb / run.wall,
        run.cpu / run.wall,
        run.peak_mb
    );
    println!("    {}", run.timings.as_deref().unwrap_or("no timings"));
    let export = measured(keep(&bin, &store, &["export"])).stdout;
    // After the header, one line per note, then the operations log.
    let notes: Vec<serde_json::Value> = export
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|n| n.get("operation").is_none())
        .collect();
    let parts: usize = notes
        .iter()
        .map(|n| n["parts"].as_array().map_or(0, Vec::len))
        .sum();
    println!("  {} notes, {parts} parts", notes.len());
    let (hits, total) = labelled_share(&export, &corpus);
    println!(
        "  labelled pages whose summary opens with their own words: {hits}/{total} = {:.0}%",
        hits as f64 * 100.0 / total as f64
    );

    let rerun = measured(keep(&bin, &store, &["put", "-r", corpus_arg, "--ids"]));
    println!("  re-run, all unchanged: {:.2} s", rerun.wall);

    let queries = [
        "how do I undo a commit",
        "full text search index",
        "ownership and borrowing rules",
        "plot with error bars",
        "arithmetic in the shell",
    ];
    for (mode, label) in [("hybrid", "hybrid"), ("keyword", "keyword")] {
        let mut times: Vec<f64> = Vec::new();
        let mut peak: f64 = 0.0;
        for q in queries.iter().cycle().take(10) {
            let run = measured(keep(&bin, &store, &["find", q, "--mode", mode, "-n", "10"]));
            times.push(run.wall * 1000.0);
            peak = peak.max(run.peak_mb);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "  keep find process, {label}: p50 {:.0} ms, max {:.0} ms, peak {peak:.0} MB",
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
    let db = std::fs::metadata(store.join("keep.db")).map_or(0, |m| m.len());
    println!("  database size {:.1} MB", db as f64 / 1e6);
}
