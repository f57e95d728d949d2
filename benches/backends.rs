//! Benchmark: the same store on SQLite and on PostgreSQL, side by side.
//!
//!     KEEP_BENCH_SOURCE=DIR cargo bench --bench backends
//!
//! DIR is an SQLite store with vectors (for example `DIR/100000` that
//! `KEEP_BENCH_STORES=DIR KEEP_BENCH_SIZES=100000 cargo bench --bench
//! recall` keeps). The bench starts a private PostgreSQL
//! (`./scripts/pg.sh`, from `./scripts/setup.sh`) in a temporary
//! folder, exports the source once, imports it into a new SQLite store and
//! a new PostgreSQL database (the bulk import rate), measures in-process
//! find on both (hybrid less the query embedding, keyword, meaning), then
//! runs `KEEP_BENCH_WRITERS` (default 8) writer processes for
//! `KEEP_BENCH_SECONDS` (default 60) against each and checks every
//! acknowledged note is there. Needs the release binary and the model.

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use keep::config::{Config, Environment};
use keep_core::Keeper;
use keep_core::embed::{LoadFor, ModelPaths, OnnxEmbedder};
use keep_core::recall::{FindQuery, RecallMode};
use support::{PgServer, Target};

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let source = support::folder_from(
        "KEEP_BENCH_SOURCE",
        "an SQLite store with vectors",
        "backends",
    );
    let bin = support::release_binary();
    let writers: usize = std::env::var("KEEP_BENCH_WRITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8);
    let seconds: u64 = std::env::var("KEEP_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let work = tempfile::tempdir().expect("temp dir");
    let server = PgServer::start(work.path().join("pg"));

    let export = work.path().join("source.jsonl");
    let start = Instant::now();
    let out = Command::new(&bin)
        .args(["export", export.to_str().unwrap()])
        .env("KEEP_STORE", &source)
        .output()
        .expect("keep export");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // After the header, one line per note, then the operations log.
    let notes = std::fs::read_to_string(&export)
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with("{\"operation\""))
        .count();
    println!(
        "source: {notes} notes exported in {:.1} s ({:.0} MB)",
        start.elapsed().as_secs_f64(),
        std::fs::metadata(&export).unwrap().len() as f64 / 1e6
    );

    let targets = [
        Target {
            name: "SQLite",
            store: work.path().join("sqlite").display().to_string(),
            dir: work.path().join("sqlite"),
        },
        Target {
            name: "PostgreSQL",
            store: server.database("bench"),
            dir: work.path().join("pg-local"),
        },
    ];
    let config = Config::resolve(None, &Environment::capture()).expect("settings");
    let paths = ModelPaths::from_settings(&config.model).expect("model paths");
    let mut embedder = OnnxEmbedder::load(&paths, LoadFor::ManyQueries).expect("load model");
    let mut rankings = Vec::new();
    for target in &targets {
        println!("\n== {}", target.name);
        import(&bin, target, &export, notes);
        find_in_process(target, &config, &paths, &mut embedder);
        rankings.push(top_tens(target, &config, &paths));
        concurrent_writers(&bin, target, writers, seconds);
    }
    println!();
    compare_rankings(&rankings[0], &rankings[1]);
}

/// Queries of the parity check: the topics of Debian's documentation and
/// package descriptions the bench stores hold, and words nobody wrote.
const PARITY_QUERIES: [&str; 30] = [
    "how do I report a bug in a package",
    "upload a new version to the archive",
    "maintainer scripts run on installation",
    "network interface configuration",
    "mount a file system at boot",
    "compress files into an archive",
    "edit text in the terminal",
    "send mail from the command line",
    "schedule a job to run every night",
    "change a user's password",
    "firewall rules for incoming connections",
    "encrypt a disk partition",
    "print a document",
    "play audio files",
    "resize images from the shell",
    "library for parsing XML",
    "python bindings for a C library",
    "compile a kernel module",
    "debugging a crashing program",
    "font for programming",
    "backup to a remote server",
    "time zone and clock synchronisation",
    "translate the interface into another language",
    "web server configuration",
    "database server for many clients",
    "copyright and license of the package",
    "security updates for stable",
    "build dependencies of a source package",
    "quantum flux capacitor",
    "zebra",
];

/// The top ten of each parity query, in each recall mode: ids and scores.
type Rankings = Vec<(String, RecallMode, Vec<(String, f64)>)>;

fn top_tens(target: &Target, config: &Config, paths: &ModelPaths) -> Rankings {
    let mut keeper = Keeper::open(target.settings(config))
        .expect("open")
        .with_embedder(Box::new(
            OnnxEmbedder::load(paths, LoadFor::ManyQueries).expect("load model"),
        ));
    let mut out = Vec::new();
    for q in PARITY_QUERIES {
        for mode in [
            RecallMode::Hybrid,
            RecallMode::Keyword,
            RecallMode::Semantic,
        ] {
            let query = FindQuery {
                mode,
                ..FindQuery::text(q, 10)
            };
            let hits = keeper.find(&query).expect("find").hits;
            let top = hits.iter().map(|h| (h.note.id.clone(), h.score)).collect();
            out.push((q.to_string(), mode, top));
        }
    }
    out
}

/// Whether two top tens differ only where scores tie: position by
/// position the same id, or ids whose scores are within `TIE` of each
/// other on both stores. SQLite ranks meaning by int8 codes, whose
/// similarities are exact to about 2e-3, so closer scores are ties.
fn same_but_ties(a: &[(String, f64)], b: &[(String, f64)]) -> bool {
    const TIE: f64 = 5e-3;
    a.len() == b.len()
        && a.iter().zip(b).all(|((ia, sa), (ib, sb))| {
            ia == ib
                || ((sa - sb).abs() < TIE
                    && a.iter().any(|(i, s)| i == ib && (s - sa).abs() < TIE)
                    && b.iter().any(|(i, s)| i == ia && (s - sb).abs() < TIE))
        })
}

/// The parity check: how many top tens are the same on both stores, by
/// mode, and each that is not.
fn compare_rankings(sqlite: &Rankings, postgres: &Rankings) {
    for mode in [
        RecallMode::Hybrid,
        RecallMode::Keyword,
        RecallMode::Semantic,
    ] {
        let (mut same, mut total, mut top1) = (0, 0, 0);
        for ((q, m, a), (_, _, b)) in sqlite.iter().zip(postgres) {
            if *m != mode {
                continue;
            }
            total += 1;
            top1 += usize::from(a.first().map(|h| &h.0) == b.first().map(|h| &h.0));
            if same_but_ties(a, b) {
                same += 1;
            } else {
                let shared = a.iter().filter(|h| b.iter().any(|o| o.0 == h.0)).count();
                let first = a.iter().zip(b).position(|(x, y)| x.0 != y.0);
                println!(
                    "parity {mode:?} '{q}': {shared} of {} ids on both, first difference at {}",
                    a.len().max(b.len()),
                    first.map_or("the end".to_string(), |p| format!("rank {}", p + 1))
                );
            }
        }
        println!(
            "parity {mode:?}: same top ten (but ties) for {same} of {total} queries, same first hit for {top1}"
        );
    }
}

fn import(bin: &Path, target: &Target, export: &Path, notes: usize) {
    let start = Instant::now();
    let out = target
        .keep(bin)
        .args(["import", export.to_str().unwrap()])
        .output()
        .expect("keep import");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!(
        "bulk import with vectors: {notes} notes in {:.1} s = {:.0} notes/s",
        took.as_secs_f64(),
        notes as f64 / took.as_secs_f64()
    );
}

/// In-process find latency on `target`.
fn find_in_process(
    target: &Target,
    config: &Config,
    paths: &ModelPaths,
    embedder: &mut OnnxEmbedder,
) {
    let queries = [
        "storage engine writes",
        "payment gateway latency",
        "holiday schedule coffee",
        "vector search index",
        "team deadline project",
    ];
    let found = support::find_in_process(target, config, paths, embedder, &queries);
    println!("{}", found.line());
}

/// `writers` processes, each putting notes one `keep put` at a time for
/// `seconds`; then every acknowledged id must be in the store.
fn concurrent_writers(bin: &Path, target: &Target, writers: usize, seconds: u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..writers)
        .map(|w| {
            let stop = Arc::clone(&stop);
            let (bin, store, dir) = (bin.to_path_buf(), target.store.clone(), target.dir.clone());
            std::thread::spawn(move || {
                let (mut acknowledged, mut errors) = (Vec::new(), Vec::new());
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let out = Command::new(&bin)
                        .args([
                            "put",
                            &format!("Writer {w} wrote note {i} about the harbour tides."),
                        ])
                        .env("KEEP_STORE", &store)
                        .env("XDG_DATA_HOME", dir.join("xdg"))
                        .env("KEEP_MODEL_DIR", "/nonexistent")
                        .stderr(Stdio::piped())
                        .output()
                        .expect("keep put");
                    if out.status.success() {
                        acknowledged
                            .push(String::from_utf8(out.stdout).unwrap().trim().to_string());
                    } else {
                        errors.push(String::from_utf8_lossy(&out.stderr).into_owned());
                    }
                    i += 1;
                }
                (acknowledged, errors)
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    let (mut acknowledged, mut errors) = (Vec::new(), Vec::new());
    for t in threads {
        let (a, e) = t.join().unwrap();
        acknowledged.extend(a);
        errors.extend(e);
    }
    let listed = target
        .keep(bin)
        .args(["list", "--ids", "-n", "100000000", "--sort", "id"])
        .output()
        .expect("keep list");
    let listed: std::collections::HashSet<String> = String::from_utf8(listed.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let lost = acknowledged
        .iter()
        .filter(|id| !listed.contains(*id))
        .count();
    println!(
        "{writers} writer processes for {seconds} s: {} notes acknowledged ({:.0} puts/s), {} errors, {lost} lost",
        acknowledged.len(),
        acknowledged.len() as f64 / seconds as f64,
        errors.len()
    );
    if let Some(first) = errors.first() {
        println!("first error: {}", first.trim());
    }
}
