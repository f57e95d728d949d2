//! What several benchmarks share: percentiles, a measured child process
//! (wall time and peak memory), a private PostgreSQL server, a store under
//! test on either database, and in-process find latency.
#![allow(dead_code, reason = "each benchmark uses part of it")]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use keep::config::Config;
use keep_core::embed::{Embedder, LoadFor, ModelPaths, OnnxEmbedder};
use keep_core::recall::{FindQuery, RecallMode};
use keep_core::{Keeper, Settings};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folder an environment variable names; without it, says what to
/// set (see the top of `bench`) and exits.
pub fn folder_from(variable: &str, what: &str, bench: &str) -> PathBuf {
    match std::env::var_os(variable) {
        Some(folder) => PathBuf::from(folder),
        None => {
            eprintln!("set {variable} to {what} (see the top of benches/{bench}.rs)");
            std::process::exit(2);
        }
    }
}

/// The release binary, which the benchmarks run as users do.
pub fn release_binary() -> PathBuf {
    let bin = repo().join("target/release/keep");
    assert!(
        bin.is_file(),
        "build the release binary first: cargo build --release"
    );
    bin
}

pub fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// How a finished process went: wall time, peak resident memory in MB,
/// its output.
pub struct Run {
    pub wall: Duration,
    pub peak_mb: f64,
    pub stdout: String,
}

/// The peak resident memory of process `pid` so far, in MB (0 once it is
/// gone). Read from the process itself: the rusage of a child also counts
/// the memory of this process, which its address space started as.
pub fn high_water_mb(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Runs `cmd` to the end, reading its peak memory every millisecond;
/// panics with its error output when it fails.
pub fn measured(mut cmd: Command) -> Run {
    let start = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the command");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).unwrap();
        out
    });
    let errors = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut out).unwrap();
        out
    });
    let mut peak_mb = 0f64;
    let status = loop {
        peak_mb = peak_mb.max(high_water_mb(child.id()));
        if let Some(status) = child.try_wait().expect("wait for the command") {
            break status;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let wall = start.elapsed();
    let (stdout, stderr) = (reader.join().unwrap(), errors.join().unwrap());
    assert!(status.success(), "{cmd:?} failed: {stderr}");
    Run {
        wall,
        peak_mb,
        stdout,
    }
}

/// `runs` runs of a command: p50, p95 and the largest peak memory.
pub fn repeated(
    runs: usize,
    mut command: impl FnMut(usize) -> Command,
) -> (Duration, Duration, f64) {
    let (mut samples, mut peak) = (Vec::with_capacity(runs), 0f64);
    for i in 0..runs {
        let run = measured(command(i));
        samples.push(run.wall);
        peak = peak.max(run.peak_mb);
    }
    (
        percentile(&mut samples, 0.5),
        percentile(&mut samples, 0.95),
        peak,
    )
}

/// A private PostgreSQL server (`scripts/pg.sh`), stopped when dropped; its
/// data stays in its folder.
pub struct PgServer {
    dir: PathBuf,
    pub url: String,
}

impl PgServer {
    pub fn start(dir: PathBuf) -> Self {
        let out = Command::new(repo().join("scripts/pg.sh"))
            .arg("start")
            .arg(&dir)
            .output()
            .expect("run scripts/pg.sh");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        PgServer {
            dir,
            url: String::from_utf8(out.stdout).unwrap().trim().to_string(),
        }
    }

    fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).expect("connect to PostgreSQL")
    }

    /// The URL of database `name` on this server.
    pub fn url_of(&self, name: &str) -> String {
        let (base, query) = self.url.split_once('?').unwrap();
        let (prefix, _) = base.rsplit_once('/').unwrap();
        format!("{prefix}/{name}?{query}")
    }

    /// A new empty database's URL.
    pub fn database(&self, name: &str) -> String {
        self.client()
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        self.url_of(name)
    }

    pub fn drop_database(&self, name: &str) {
        self.client()
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
            .unwrap();
    }

    /// The bytes database `name` takes on disk.
    pub fn size_of(&self, name: &str) -> u64 {
        let size: i64 = self
            .client()
            .query_one("SELECT pg_database_size($1::text)", &[&name])
            .unwrap()
            .get(0);
        size as u64
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = Command::new(repo().join("scripts/pg.sh"))
            .arg("stop")
            .arg(&self.dir)
            .output();
    }
}

/// A store under test: what `KEEP_STORE` names, and its local folder.
pub struct Target {
    pub name: &'static str,
    pub store: String,
    pub dir: PathBuf,
}

impl Target {
    pub fn settings(&self, config: &Config) -> Settings {
        let database = self
            .store
            .starts_with("postgres://")
            .then(|| self.store.clone());
        Settings {
            store: self.dir.clone(),
            database,
            ..config.settings().expect("settings")
        }
    }

    pub fn keep(&self, bin: &Path) -> Command {
        let mut cmd = Command::new(bin);
        cmd.env("KEEP_STORE", &self.store)
            .env("XDG_DATA_HOME", self.dir.join("xdg"));
        cmd
    }
}

/// A small deterministic generator (xorshift).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// In-process find latency over `queries` (each asked in 10 rounds): p50
/// and p95 of hybrid, of the query embedding alone, hybrid's p50 less the
/// embedding, and p50 and p95 of keyword and of meaning search.
pub struct FindLatency {
    pub hybrid: (Duration, Duration),
    pub embedding: Duration,
    pub hybrid_less_embedding: Duration,
    pub keyword: (Duration, Duration),
    pub meaning: (Duration, Duration),
}

impl FindLatency {
    /// The line a benchmark prints.
    pub fn line(&self) -> String {
        format!(
            "find in-process: hybrid p50 {} p95 {} (less the query embedding: p50 {}); keyword p50 {} p95 {}; meaning p50 {} p95 {}",
            ms(self.hybrid.0),
            ms(self.hybrid.1),
            ms(self.hybrid_less_embedding),
            ms(self.keyword.0),
            ms(self.keyword.1),
            ms(self.meaning.0),
            ms(self.meaning.1),
        )
    }
}

/// In-process find latency on the store of `target`.
pub fn find_in_process(
    target: &Target,
    config: &Config,
    paths: &ModelPaths,
    embedder: &mut OnnxEmbedder,
    queries: &[&str],
) -> FindLatency {
    let mut keeper = Keeper::open(target.settings(config))
        .expect("open")
        .with_embedder(Box::new(
            OnnxEmbedder::load(paths, LoadFor::ManyQueries).expect("load model"),
        ));
    latency_of(&mut keeper, embedder, queries)
}

/// In-process find latency of `keeper`; `embedder` times the query
/// embedding alone.
pub fn latency_of(
    keeper: &mut Keeper,
    embedder: &mut OnnxEmbedder,
    queries: &[&str],
) -> FindLatency {
    let (mut hybrid, mut keyword, mut meaning, mut embed_only) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..10 {
        for q in queries {
            let q = format!("{q} {round}");
            let t = Instant::now();
            embedder.embed(&[q.as_str()]).unwrap();
            embed_only.push(t.elapsed());
            for (mode, samples) in [
                (RecallMode::Hybrid, &mut hybrid),
                (RecallMode::Keyword, &mut keyword),
                (RecallMode::Semantic, &mut meaning),
            ] {
                let query = FindQuery {
                    mode,
                    ..FindQuery::text(q.clone(), 10)
                };
                let t = Instant::now();
                keeper.find(&query).expect("find");
                samples.push(t.elapsed());
            }
        }
    }
    let both = |s: &mut Vec<Duration>| (percentile(s, 0.5), percentile(s, 0.95));
    let hybrid = both(&mut hybrid);
    let embedding = percentile(&mut embed_only, 0.5);
    FindLatency {
        hybrid,
        embedding,
        hybrid_less_embedding: hybrid.0.saturating_sub(embedding),
        keyword: both(&mut keyword),
        meaning: both(&mut meaning),
    }
}

/// Plain reciprocal-rank fusion, both lists weighted 1, K = 60.
pub fn plain_fusion(keyword: &[(String, f64)], vector: &[(String, f64)]) -> Vec<String> {
    let mut score: HashMap<&str, f64> = HashMap::new();
    for list in [keyword, vector] {
        for (i, (id, _)) in list.iter().enumerate() {
            *score.entry(id).or_default() += 1.0 / (60.0 + (i + 1) as f64);
        }
    }
    let mut ids: Vec<(&str, f64)> = score.into_iter().collect();
    ids.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    ids.into_iter().map(|(id, _)| id.to_string()).collect()
}

/// A keeper over the store in `dir` (made if missing) with the model,
/// loaded for many queries.
pub fn keeper_at(config: &Config, paths: &ModelPaths, dir: PathBuf) -> Keeper {
    let settings = Settings {
        store: dir,
        ..config.settings().expect("settings")
    };
    Keeper::open(settings)
        .expect("open")
        .with_embedder(Box::new(
            OnnxEmbedder::load(paths, LoadFor::ManyQueries).expect("load model"),
        ))
}
