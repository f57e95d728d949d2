//! Benchmark: builds stores of generated notes and measures put throughput
//! (against the raw embedding throughput of the same model), find latency
//! in-process and as a whole process, get/list process latency, database
//! size and peak memory.
//!
//!     cargo bench --bench recall                 # 1,000 and 10,000 notes
//!     KEEP_BENCH_SIZES=1000,10000,100000 cargo bench --bench recall
//!
//! With `KEEP_BENCH_STORES=DIR` the store of each size is kept in
//! `DIR/<size>` and reused by later runs (bulk put is then not measured).
//!
//! Needs the model (`keep models install`).

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use keep::config::{Config, Environment};
use keep_core::embed::{Embedder, LoadFor, ModelPaths, OnnxEmbedder};
use keep_core::keeper::PutOptions;
use keep_core::{Keeper, Settings};
use keep_store::{Embedded, SqliteStore as Store, VecKind};
use support::{Rng, high_water_mb, ms, percentile};

const WORDS: &[&str] = &[
    "storage", "engine", "writes", "readers", "budget", "meeting", "design", "review", "garden",
    "tomatoes", "flight", "delayed", "invoice", "payment", "gateway", "latency", "memory",
    "service", "crash", "deploy", "rollback", "kernel", "schedule", "holiday", "coffee", "piano",
    "scales", "river", "mountain", "weather", "forecast", "library", "release", "customer",
    "support", "ticket", "printer", "network", "cache", "index", "query", "vector", "search",
    "summary", "version", "history", "project", "deadline", "team",
];

/// Short, frequent words that glue sentences together.
const FUNCTION_WORDS: &[&str] = &[
    "the", "of", "and", "to", "a", "in", "is", "it", "that", "for", "on", "with", "as", "was",
    "at", "by", "this", "we", "from", "but", "not", "or", "have", "after", "before", "our",
];

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ren", "tor", "vel", "an", "ist", "or", "ba", "du", "fen", "gal", "hu",
    "jor", "kel", "mar", "nor", "pel", "qui", "ros", "sal", "tin", "ur", "vos", "wen", "yl", "zer",
];

/// Text with the shape of real notes: a Zipf-distributed vocabulary of
/// about 3,000 content words (the topical words most frequent), glued by
/// function words.
struct Corpus {
    vocabulary: Vec<String>,
    /// Cumulative Zipf weights over `vocabulary`.
    cumulative: Vec<f64>,
}

impl Corpus {
    fn new() -> Self {
        let mut vocabulary: Vec<String> = WORDS.iter().map(|w| (*w).to_string()).collect();
        let mut rng = Rng(99);
        while vocabulary.len() < 3000 {
            let n = 2 + (rng.next() % 2) as usize;
            let word: String = (0..n)
                .map(|_| SYLLABLES[(rng.next() % SYLLABLES.len() as u64) as usize])
                .collect();
            if !vocabulary.contains(&word) {
                vocabulary.push(word);
            }
        }
        let mut total = 0.0;
        let cumulative = (1..=vocabulary.len())
            .map(|rank| {
                total += 1.0 / rank as f64;
                total
            })
            .collect();
        Corpus {
            vocabulary,
            cumulative,
        }
    }

    fn content_word(&self, rng: &mut Rng) -> &str {
        let target = rng.unit() * self.cumulative.last().copied().unwrap_or(1.0);
        let i = self.cumulative.partition_point(|&c| c < target);
        &self.vocabulary[i.min(self.vocabulary.len() - 1)]
    }

    fn sentence(&self, rng: &mut Rng, i: usize) -> String {
        let n = 8 + (rng.next() % 12) as usize;
        let words: Vec<&str> = (0..n)
            .map(|_| {
                if rng.next().is_multiple_of(3) {
                    FUNCTION_WORDS[(rng.next() % FUNCTION_WORDS.len() as u64) as usize]
                } else {
                    self.content_word(rng)
                }
            })
            .collect();
        format!("Note {i}: {}.", words.join(" "))
    }
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn process_latency(bin: &Path, store: &Path, args: &[&str], runs: usize) -> (Duration, Duration) {
    let mut samples = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let out = Command::new(bin)
            .args(args)
            .env("KEEP_STORE", store)
            .output()
            .expect("run keep");
        samples.push(start.elapsed());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    (
        percentile(&mut samples, 0.5),
        percentile(&mut samples, 0.95),
    )
}

/// `keep find` processes, each right after a `keep put` of a new text:
/// the cost of a search after a write (the new note's vector, the codes
/// that changed).
fn find_after_put(bin: &Path, store: &Path, runs: usize) -> (Duration, Duration) {
    let mut samples = Vec::new();
    for i in 0..runs {
        let text = format!(
            "Bench write {i} at {:?}: the {} {}.",
            Instant::now(),
            WORDS[(i * 5 + 1) % WORDS.len()],
            WORDS[(i * 11 + 2) % WORDS.len()]
        );
        let put = Command::new(bin)
            .args(["put", &text])
            .env("KEEP_STORE", store)
            .output()
            .expect("run keep put");
        assert!(
            put.status.success(),
            "{}",
            String::from_utf8_lossy(&put.stderr)
        );
        let (took, _) = process_latency(bin, store, &["find", "storage engine writes"], 1);
        samples.push(took);
    }
    (
        percentile(&mut samples, 0.5),
        percentile(&mut samples, 0.95),
    )
}

/// `keep put TEXT` processes, each with a new text: p50, p95 and the
/// largest peak resident memory of one process (its `VmHWM`, read every
/// millisecond while it runs: the rusage of a child also counts this
/// process's memory, which its address space started as).
fn put_latency(bin: &Path, store: &Path, runs: usize) -> (Duration, Duration, f64) {
    let (mut samples, mut peak_mb) = (Vec::new(), 0f64);
    for i in 0..runs {
        let text = format!(
            "Bench put {i} at {:?}: the {} {} of the {} {}.",
            Instant::now(),
            WORDS[i % WORDS.len()],
            WORDS[(i * 7 + 3) % WORDS.len()],
            WORDS[(i * 13 + 5) % WORDS.len()],
            WORDS[(i * 17 + 11) % WORDS.len()]
        );
        let start = Instant::now();
        let mut child = Command::new(bin)
            .args(["put", &text])
            .env("KEEP_STORE", store)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("run keep put");
        let status = loop {
            peak_mb = peak_mb.max(high_water_mb(child.id()));
            if let Some(status) = child.try_wait().expect("wait for keep put") {
                break status;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        samples.push(start.elapsed());
        assert!(status.success(), "keep put failed");
    }
    (
        percentile(&mut samples, 0.5),
        percentile(&mut samples, 0.95),
        peak_mb,
    )
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let sizes: Vec<usize> = std::env::var("KEEP_BENCH_SIZES")
        .unwrap_or_else(|_| "1000,10000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let config = Config::resolve(None, &Environment::capture()).expect("settings");
    let paths = ModelPaths::from_settings(&config.model).expect("model paths");
    let bin = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("target/release/keep");
    println!("machine: {} cores, {}", num_cpus(), cpu_model());

    // The ceiling: the raw embedding throughput of the model in ONNX Runtime.
    let mut embedder = OnnxEmbedder::load(&paths, LoadFor::ManyQueries).expect("load model");
    let mut rng = Rng(7);
    let corpus = Corpus::new();
    let texts: Vec<String> = (0..2000).map(|i| corpus.sentence(&mut rng, i)).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let start = Instant::now();
    embedder.embed(&refs).expect("embed");
    let raw = texts.len() as f64 / start.elapsed().as_secs_f64();
    println!("raw embedding throughput: {raw:.0} texts/s (2,000 short texts, batches of 64)");

    let kept = std::env::var_os("KEEP_BENCH_STORES").map(std::path::PathBuf::from);
    for &n in &sizes {
        let dir = StoreDir::new(kept.as_deref(), n);
        let reused = dir.path().join("keep.db").is_file();
        let settings = Settings {
            store: dir.path().to_path_buf(),
            ..config.settings().expect("settings")
        };
        let mut keeper = Keeper::open(settings)
            .expect("open")
            .with_embedder(Box::new(
                OnnxEmbedder::load(&paths, LoadFor::ManyQueries).expect("load model"),
            ));
        let mut rng = Rng(42 + n as u64);
        if reused {
            println!(
                "\n== {n} notes (store reused from {})",
                dir.path().display()
            );
            for i in 0..n {
                corpus.sentence(&mut rng, i);
            }
        } else {
            build_store(&mut keeper, &corpus, &mut rng, n, raw);
        }
        let queries = [
            "storage engine writes",
            "payment gateway latency",
            "holiday schedule coffee",
            "vector search index",
            "team deadline project",
        ];
        let found = support::latency_of(&mut keeper, &mut embedder, &queries);
        println!(
            "find in-process, hybrid: p50 {} p95 {} (query embedding alone p50 {}; hybrid minus embedding p50 {})",
            ms(found.hybrid.0),
            ms(found.hybrid.1),
            ms(found.embedding),
            ms(found.hybrid_less_embedding)
        );
        println!(
            "find in-process, keyword: p50 {} p95 {}",
            ms(found.keyword.0),
            ms(found.keyword.1)
        );
        println!(
            "find in-process, semantic only: p50 {} p95 {} (of which the query embedding p50 {})",
            ms(found.meaning.0),
            ms(found.meaning.1),
            ms(found.embedding)
        );
        vector_recall(dir.path(), &mut embedder, &queries);
        drop(keeper);
        if bin.is_file() {
            let store = dir.path();
            let (f50, f95) = process_latency(&bin, store, &["find", "storage engine writes"], 20);
            println!("keep find process: p50 {} p95 {}", ms(f50), ms(f95));
            let (k50, _) = process_latency(
                &bin,
                store,
                &["find", "--mode", "keyword", "storage engine writes"],
                20,
            );
            println!("keep find --mode keyword process: p50 {}", ms(k50));
            let id = String::from_utf8(
                Command::new(&bin)
                    .args(["list", "-n", "1", "--ids"])
                    .env("KEEP_STORE", store)
                    .output()
                    .unwrap()
                    .stdout,
            )
            .unwrap();
            let (g50, g95) = process_latency(&bin, store, &["get", id.trim()], 20);
            println!("keep get process: p50 {} p95 {}", ms(g50), ms(g95));
            let (l50, l95) = process_latency(&bin, store, &["list", "-n", "20"], 20);
            println!("keep list -n 20 process: p50 {} p95 {}", ms(l50), ms(l95));
            with_server(&bin, store, &id);
            let mut samples = Vec::new();
            for i in 0..20 {
                let text = corpus.sentence(&mut rng, n + i);
                let start = Instant::now();
                let out = Command::new(&bin)
                    .args(["put", &text])
                    .env("KEEP_STORE", store)
                    .output()
                    .expect("run keep put");
                samples.push(start.elapsed());
                assert!(out.status.success());
            }
            let p50 = percentile(&mut samples, 0.5);
            println!(
                "keep put process (one note; its vector is made by the next find): p50 {} = {:.0} notes/s, one process each",
                ms(p50),
                1.0 / p50.as_secs_f64()
            );
        }
        let size = std::fs::metadata(dir.path().join("keep.db"))
            .map(|m| m.len())
            .unwrap_or(0)
            + std::fs::metadata(dir.path().join("keep.db-wal"))
                .map(|m| m.len())
                .unwrap_or(0);
        println!(
            "database size: {:.1} MB; peak memory of this process so far: {:.0} MB",
            size as f64 / 1e6,
            peak_rss_mb()
        );
    }
}

/// How the int8 code search compares with exact search over the float
/// vectors: overlap of the 10 and 100 nearest notes, and latency.
/// Resident memory of a process, in MB.
fn rss_mb(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// CPU time a process has used, in clock ticks (user + system).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_name = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

/// The same commands with `keep serve` up on the store: whole-process
/// latency, then the server's memory and CPU while idle.
fn with_server(bin: &Path, store: &Path, id: &str) {
    let (p50, p95, peak) = put_latency(bin, store, 20);
    println!(
        "keep put TEXT process alone: p50 {} p95 {}, peak {peak:.1} MB",
        ms(p50),
        ms(p95)
    );
    let mut server = Command::new(bin)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("KEEP_STORE", store)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start keep serve");
    let socket = store.join("serve.sock");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !socket.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let (f50, f95) = process_latency(bin, store, &["find", "storage engine writes"], 40);
    println!(
        "with keep serve up: keep find process: p50 {} p95 {}",
        ms(f50),
        ms(f95)
    );
    let (g50, _) = process_latency(bin, store, &["get", id.trim()], 20);
    let (l50, _) = process_latency(bin, store, &["list", "-n", "20"], 20);
    println!(
        "with keep serve up: keep get p50 {}, keep list -n 20 p50 {}",
        ms(g50),
        ms(l50)
    );
    let (p50, p95, peak) = put_latency(bin, store, 40);
    println!(
        "with keep serve up: keep put TEXT process: p50 {} p95 {}, peak {peak:.1} MB",
        ms(p50),
        ms(p95)
    );
    let (a50, a95) = find_after_put(bin, store, 20);
    println!(
        "with keep serve up: keep find process right after a keep put (it embeds the new note, then searches): p50 {} p95 {}",
        ms(a50),
        ms(a95)
    );
    std::thread::sleep(Duration::from_secs(1));
    let before = cpu_ticks(server.id());
    std::thread::sleep(Duration::from_secs(5));
    let idle = cpu_ticks(server.id()) - before;
    println!(
        "keep serve after those commands, idle: RSS {:.0} MB, CPU {idle} tick(s) in 5 s",
        rss_mb(server.id())
    );
    // SAFETY: a signal to a child this benchmark started.
    unsafe { libc::kill(server.id() as i32, libc::SIGTERM) };
    let _ = server.wait();
}

fn vector_recall(store: &Path, embedder: &mut OnnxEmbedder, queries: &[&str]) {
    let store = Store::open(store).expect("open store");
    let db = store.db();
    let (mut at10, mut at100, mut runs) = (0.0, 0.0, 0.0);
    let (mut fast, mut exact) = (Vec::new(), Vec::new());
    for round in 0..10 {
        for q in queries {
            let q = format!("{q} {round}");
            let v = embedder.embed(&[q.as_str()]).expect("embed").remove(0);
            let t = Instant::now();
            let truth = db.nearest_exact(VecKind::Note, &v, 100).expect("exact");
            exact.push(t.elapsed());
            let t = Instant::now();
            let found = db.nearest_rows(VecKind::Note, &v, 100).expect("codes");
            fast.push(t.elapsed());
            let shared = |n: usize| {
                let truth: Vec<i64> = truth.iter().take(n).map(|t| t.0).collect();
                found
                    .iter()
                    .take(n)
                    .filter(|f| truth.contains(&f.0))
                    .count() as f64
                    / n as f64
            };
            at10 += shared(10);
            at100 += shared(100);
            runs += 1.0;
        }
    }
    println!(
        "nearest 100 notes: int8 codes p50 {} (exact float search p50 {}); the codes find {:.1}% of the exact 10 nearest, {:.1}% of the exact 100",
        ms(percentile(&mut fast, 0.5)),
        ms(percentile(&mut exact, 0.5)),
        100.0 * at10 / runs,
        100.0 * at100 / runs
    );
}

/// Puts `n` generated notes with a project tag, then embeds them; prints
/// the throughput against the raw embedding ceiling.
fn build_store(keeper: &mut Keeper, corpus: &Corpus, rng: &mut Rng, n: usize, raw: f64) {
    let start = Instant::now();
    for i in 0..n {
        let text = corpus.sentence(rng, i);
        let mut opts = PutOptions::default();
        opts.tags.insert("project", format!("p{}", i % 50));
        keeper.put_text(&text, "inline", opts).expect("put");
    }
    let stored = start.elapsed();
    let report = keeper.embed_pending(None).expect("embed");
    let rate = n as f64 / start.elapsed().as_secs_f64();
    println!(
        "\n== {n} notes\nbulk put (store {:.0} notes/s, then embed {} texts): {rate:.0} notes/s overall = {:.0}% of raw embedding",
        n as f64 / stored.as_secs_f64(),
        report.embedded,
        100.0 * rate / raw
    );
}

/// Where a store of one size lives: a temporary directory, or a kept one.
enum StoreDir {
    Temp(tempfile::TempDir),
    Kept(std::path::PathBuf),
}

impl StoreDir {
    fn new(kept: Option<&Path>, n: usize) -> Self {
        match kept {
            Some(root) => {
                let dir = root.join(n.to_string());
                std::fs::create_dir_all(&dir).expect("store dir");
                StoreDir::Kept(dir)
            }
            None => StoreDir::Temp(tempfile::tempdir().expect("temp dir")),
        }
    }

    fn path(&self) -> &Path {
        match self {
            StoreDir::Temp(t) => t.path(),
            StoreDir::Kept(p) => p,
        }
    }
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or_else(|| "unknown CPU".into(), |s| s.trim().to_string())
}
