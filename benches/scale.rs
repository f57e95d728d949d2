//! Benchmark: keep at ten thousand, a hundred thousand and a million notes,
//! on SQLite and on PostgreSQL, from one command:
//!
//!     KEEP_BENCH_STORES=DIR cargo bench --bench scale
//!     KEEP_BENCH_STORES=DIR KEEP_BENCH_SIZES=10000,100000,1000000 cargo bench --bench scale
//!
//! The default sizes are 10,000 and 100,000; `KEEP_BENCH_BACKENDS=sqlite`
//! (or `postgres`) measures one database only; `KEEP_BENCH_EXPORT=0`
//! leaves out `keep export` (minutes at a million notes); `KEEP_BENCH_REBUILD=1`
//! makes each SQLite store's vector index whole again. Needs the release binary,
//! the model and the corpus (`./scripts/setup.sh`).
//!
//! The notes are derived from real text, so that a million of them take
//! minutes to make rather than hours of embedding: 4,000 sentences of the
//! Debian documentation in `target/corpus` are embedded with the real
//! model once; each note joins 2 to 4 of them, and its vector is the
//! normalised sum of theirs. Dates spread over three years, one of 50
//! topics as a tag. What is built is kept in DIR and reused by later
//! runs: each size's export (`scale-N.jsonl`), its SQLite store
//! (`sqlite-N`) and its PostgreSQL database (`scale_N` on a server whose
//! data lives in `DIR/pg`).
//!
//! For each database and size: the import rate and peak memory (when the
//! store is built in this run), on SQLite the vector index's build time
//! and its recall of the true ten nearest, the database's size per note, find
//! in-process (hybrid, hybrid less the query embedding, keyword, meaning),
//! a `keep find` process, `keep find` through `keep serve` (and the
//! server's memory), `keep get`, `keep list -n 20`, `keep put` and `keep
//! export`, with the peak memory of each command; and, when tmux is
//! installed, the browser in a 120×40 window (its first frame and first
//! page of notes, each key's frame, the results while a search is typed).
//! Each `keep put` adds a note, so a reused store holds a few more than
//! its size.

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

mod support;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use base64::Engine as _;
use keep::config::{Config, Environment};
use keep_core::embed::{Embedder, LoadFor, ModelPaths, OnnxEmbedder};
use support::{PgServer, Rng, Target, find_in_process, measured, ms, repeated};

/// Real sentences embedded once; notes are made of them.
const POOL: usize = 4_000;

/// Queries asked of every store: topics of the corpus.
const QUERIES: [&str; 5] = [
    "network interface configuration",
    "report a bug in a package",
    "compress files into an archive",
    "time zone and clock",
    "edit text in the terminal",
];

/// The text of an HTML page: no tags, scripts or styles, common entities
/// read, spaces collapsed.
fn page_text(html: &str) -> String {
    let mut text = String::with_capacity(html.len() / 2);
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        text.push(' ');
        rest = &rest[open..];
        let lower = rest.get(..7).unwrap_or("").to_ascii_lowercase();
        let end_tag = if lower.starts_with("<script") {
            "</script>"
        } else if lower.starts_with("<style") {
            "</style>"
        } else {
            ">"
        };
        rest = match rest.find(end_tag) {
            Some(at) => &rest[at + end_tag.len()..],
            None => "",
        };
    }
    text.push_str(rest);
    let text = text
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Sentences of 40 to 300 bytes from the corpus's HTML pages, each once.
fn corpus_sentences(corpus: &Path) -> Vec<String> {
    let mut pages = Vec::new();
    let mut stack = vec![corpus.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read the corpus").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    let mut seen = std::collections::HashSet::new();
    let mut sentences = Vec::new();
    for page in pages {
        let Ok(html) = std::fs::read_to_string(&page) else {
            continue;
        };
        let text = page_text(&html);
        for sentence in text.split_inclusive(['.', '?', '!']) {
            let sentence = sentence.trim();
            if (40..=300).contains(&sentence.len()) && seen.insert(sentence.to_string()) {
                sentences.push(sentence.to_string());
            }
        }
    }
    sentences
}

/// `POOL` sentences of the corpus with their vectors from the real model.
fn embedded_pool(embedder: &mut OnnxEmbedder) -> Vec<(String, Vec<f32>)> {
    let all = corpus_sentences(&support::repo().join("target/corpus"));
    assert!(
        all.len() >= POOL,
        "{} sentences in target/corpus: run ./scripts/setup.sh",
        all.len()
    );
    let mut rng = Rng(0x05ee_d0f5_ca1e);
    let mut chosen: Vec<String> = Vec::with_capacity(POOL);
    let mut taken = std::collections::HashSet::new();
    while chosen.len() < POOL {
        let i = rng.below(all.len());
        if taken.insert(i) {
            chosen.push(all[i].clone());
        }
    }
    let start = Instant::now();
    let mut pool = Vec::with_capacity(POOL);
    for batch in chosen.chunks(32) {
        let texts: Vec<&str> = batch.iter().map(String::as_str).collect();
        let vectors = embedder.embed(&texts).expect("embed");
        pool.extend(batch.iter().cloned().zip(vectors));
        if pool.len() % 1_000 < 32 {
            eprint!("\rembedding the sentence pool: {}/{POOL}", pool.len());
        }
    }
    eprintln!(
        "\rembedded {POOL} sentences of the corpus in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    pool
}

/// Fifty sentences of the corpus other than the pool's, embedded: the
/// queries of the recall measurement.
fn recall_queries_of(embedder: &mut OnnxEmbedder) -> Vec<Vec<f32>> {
    let all = corpus_sentences(&support::repo().join("target/corpus"));
    let texts: Vec<&str> = all
        .iter()
        .rev()
        .step_by(97)
        .take(50)
        .map(String::as_str)
        .collect();
    embedder.embed(&texts).expect("embed")
}

/// Writes an export of `n` notes made from the pool.
fn write_export(path: &Path, n: usize, pool: &[(String, Vec<f32>)], model: (&str, usize)) {
    let part = path.with_extension("part");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&part).expect("create export"));
    let header = serde_json::json!({
        "format": "keep-export",
        "version": 3,
        "vectors": {"model": model.0, "dimensions": model.1},
    });
    writeln!(out, "{header}").unwrap();
    let mut rng = Rng(0x00dd_ba11 ^ n as u64);
    let start_ms: i64 = 1_704_067_200_000; // 2024-01-01
    let span_ms: i64 = 3 * 365 * 24 * 3_600_000;
    let started = Instant::now();
    let mut ids = std::collections::HashSet::with_capacity(n);
    for i in 0..n {
        // Sentences joined again: drawn again until the text is new.
        let (picks, text) = loop {
            let count = 2 + rng.below(3);
            let picks: Vec<usize> = (0..count).map(|_| rng.below(pool.len())).collect();
            let text = picks
                .iter()
                .map(|&p| pool[p].0.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            if ids.insert(keep_core::model::inline_id(&text)) {
                break (picks, text);
            }
        };
        let mut vector = vec![0f32; model.1];
        for &p in &picks {
            for (v, x) in vector.iter_mut().zip(&pool[p].1) {
                *v += x;
            }
        }
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        let bytes: Vec<u8> = vector
            .iter()
            .flat_map(|x| (x / norm).to_le_bytes())
            .collect();
        let at = start_ms + (span_ms as f64 * i as f64 / n as f64) as i64;
        let stamp = keep_core::model::Timestamp::from_millis(at).to_string();
        let note = serde_json::json!({
            "id": keep_core::model::inline_id(&text),
            "summary": text,
            "tags": {"_source": ["inline"], "topic": [format!("t{}", picks[0] % 50)]},
            "created": stamp, "updated": stamp, "accessed": stamp,
            "versions": [], "parts": [],
            "vector": base64::engine::general_purpose::STANDARD.encode(bytes),
        });
        writeln!(out, "{note}").unwrap();
        if i % 50_000 == 0 {
            eprint!("\rwriting {}: {i}/{n}", path.display());
        }
    }
    out.flush().unwrap();
    drop(out);
    std::fs::rename(&part, path).unwrap();
    eprintln!(
        "\rwrote {} ({n} notes) in {:.1} s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
}

fn sqlite_size(dir: &Path) -> u64 {
    ["keep.db", "keep.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(dir.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

/// The bytes of a SQLite store's pages that hold vectors: sqlite-vec's
/// tables of floats and the int8 codes.
fn sqlite_vector_bytes(dir: &Path) -> u64 {
    let conn = rusqlite::Connection::open_with_flags(
        dir.join("keep.db"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("open the store");
    let bytes: i64 = conn
        .query_row(
            "SELECT coalesce(sum(pgsize), 0) FROM dbstat
             WHERE name LIKE 'vec\\_%' ESCAPE '\\' OR name LIKE 'codes\\_%' ESCAPE '\\'",
            [],
            |r| r.get(0),
        )
        .expect("dbstat");
    bytes.max(0) as u64
}

/// `keep ARGS` on `target`, as a user runs it (the model where keep
/// looks for it).
fn keep(bin: &Path, target: &Target, args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(bin);
    // Nothing left in the background while commands are timed: the vector
    // index is built by `keep reindex`, timed on its own.
    cmd.args(args)
        .env("KEEP_STORE", &target.store)
        .env("KEEP_BACKGROUND_EMBED", "0");
    cmd
}

/// Whether the store named `store` was imported whole by an earlier run.
fn imported(kept: &Path, store: &str) -> bool {
    kept.join(format!("{store}.imported")).exists()
}

/// Imports `export` into `target` when it is new.
fn import(bin: &Path, target: &Target, export: &Path, n: usize) {
    let cmd = keep(bin, target, &["import", export.to_str().unwrap()]);
    let run = measured(cmd);
    println!(
        "import: {n} notes in {:.1} s = {:.0} notes/s, peak {:.0} MB",
        run.wall.as_secs_f64(),
        n as f64 / run.wall.as_secs_f64(),
        run.peak_mb
    );
}

/// Brings the vector index up to date (`keep reindex`), timed when it has
/// work to do. `KEEP_BENCH_REBUILD=1` removes the index files first, so
/// the index is made whole.
fn index_vectors(bin: &Path, target: &Target) {
    if std::env::var("KEEP_BENCH_REBUILD").as_deref() == Ok("1") {
        for entry in std::fs::read_dir(&target.dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".usearch") || name.ends_with(".signs") {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
    }
    let run = measured(keep(bin, target, &["reindex", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("reindex --json");
    for graph in report["vector_index"].as_array().into_iter().flatten() {
        if matches!(
            graph["status"].as_str(),
            Some("built" | "updated" | "recent")
        ) {
            println!(
                "vector index of {}: {} over {} vectors ({} changed) in {:.1} s, peak {:.0} MB",
                graph["kind"].as_str().unwrap_or("?"),
                graph["status"].as_str().unwrap_or("?"),
                graph["vectors"],
                graph["changed"],
                run.wall.as_secs_f64(),
                run.peak_mb
            );
        }
    }
}

/// Recall of the true ten nearest notes through the store's vector index
/// (the exact float search of sqlite-vec decides), over real sentences of
/// the corpus as queries; and the graph file's size.
fn graph_recall(target: &Target, queries: &[Vec<f32>]) {
    use keep_store::{SqliteStore, VecKind, Vectors};
    let store = SqliteStore::open(&target.dir).expect("open the store");
    let db = store.db();
    let dims = queries[0].len();
    let (mut wanted, mut found) = (0, 0);
    for q in queries {
        let exact = db
            .nearest_exact(VecKind::Note, q, 10)
            .expect("exact search");
        let by_index = db.nearest(VecKind::Note, dims, q, 10).expect("search");
        wanted += exact.len();
        found += exact
            .iter()
            .filter(|e| by_index.iter().any(|f| f.0 == e.0))
            .count();
    }
    let file_mb = |ending: &str| -> f64 {
        std::fs::read_dir(&target.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with("graph-codes_notes") && name.ends_with(ending)
            })
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len() as f64 / 1e6)
            .sum()
    };
    let (graph_mb, signs_mb) = (file_mb(".usearch"), file_mb(".signs"));
    let graph = if graph_mb > 0.0 {
        format!("through the graph index ({graph_mb:.0} MB file)")
    } else if signs_mb > 0.0 {
        format!("through the signs ({signs_mb:.0} MB file)")
    } else {
        "scanning every code (no index at this size)".to_string()
    };
    println!(
        "recall of the true 10 nearest {graph}: {:.4} over {} queries",
        found as f64 / wanted.max(1) as f64,
        queries.len()
    );
}

/// The folder of a running `keep serve`'s socket under `dir`, once it is up.
fn wait_for_socket(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.file_name().is_some_and(|n| n == "serve.sock") {
                    return;
                }
                if path.is_dir() {
                    stack.push(path);
                }
            }
        }
        assert!(Instant::now() < deadline, "keep serve never came up");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The commands of a user, each timed as a whole process.
/// Keys sent to the browser: down three notes, two pages, the last note
/// and the first, then a search typed a letter at a time.
const BROWSER_KEYS: [&str; 7] = ["j", "j", "j", "PageDown", "PageDown", "G", "g"];
const BROWSER_SEARCH: &str = "network config";

/// `keep ui` in a tmux window of 120×40, its timings written by
/// `KEEP_UI_TRACE`: the first frame and the first page of notes after it
/// starts, each key's frame, and the results of each key of the search.
/// Skipped when tmux is not installed.
fn browser(bin: &Path, target: &Target) {
    let tmux = |args: &[&str]| {
        std::process::Command::new("tmux")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let session = format!("keep-scale-{}", std::process::id());
    let trace = std::env::temp_dir().join(format!("{session}.trace"));
    let _ = std::fs::remove_file(&trace);
    let command = format!(
        "env KEEP_STORE='{}' KEEP_BACKGROUND_EMBED=0 KEEP_UI_TRACE='{}' '{}' ui",
        target.store,
        trace.display(),
        bin.display()
    );
    if !tmux(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "120",
        "-y",
        "40",
        &command,
    ]) {
        println!("browser: not measured (no tmux)");
        return;
    }
    let pause = |ms| std::thread::sleep(Duration::from_millis(ms));
    pause(3_000);
    for key in BROWSER_KEYS {
        tmux(&["send-keys", "-t", &session, key]);
        pause(400);
    }
    tmux(&["send-keys", "-t", &session, "/"]);
    for c in BROWSER_SEARCH.chars() {
        pause(300);
        tmux(&["send-keys", "-t", &session, "-l", &c.to_string()]);
    }
    pause(3_000);
    tmux(&["kill-session", "-t", &session]);
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let _ = std::fs::remove_file(&trace);
    let values = |name: &str| -> Vec<f64> {
        text.lines()
            .filter_map(|l| l.strip_prefix(name))
            .filter_map(|rest| rest.split_whitespace().next()?.parse().ok())
            .collect()
    };
    let first = |name: &str| values(name).first().copied().unwrap_or(f64::NAN);
    let spread = |mut v: Vec<f64>, scale: f64| {
        v.sort_by(f64::total_cmp);
        let at = |p: f64| v.get(((v.len().max(1) - 1) as f64 * p).round() as usize);
        match (at(0.5), at(0.95), v.last()) {
            (Some(p50), Some(p95), Some(max)) => format!(
                "p50 {:.2} ms p95 {:.2} ms max {:.2} ms over {}",
                p50 * scale,
                p95 * scale,
                max * scale,
                v.len()
            ),
            _ => "none".into(),
        }
    };
    println!(
        "browser: first frame {:.2} ms, first page {:.2} ms; key to frame {} keys; \
         results after a key of the search {}",
        first("first-frame-ms "),
        first("first-page-ms "),
        spread(values("key-to-frame-us "), 1e-3),
        spread(values("key-to-results-ms "), 1.0),
    );
}

/// `keep context` for the `i`th query as the project, with what changed
/// in the last 30 days.
fn context_args(i: usize) -> [&'static str; 5] {
    [
        "context",
        "--project",
        QUERIES[i % QUERIES.len()],
        "--since",
        "P30D",
    ]
}

/// The size of the block `keep context` gives a session: its tokens
/// (of the 1,500 it may take) and lines, for the first query.
fn context_block(keep: &dyn Fn(&[&str]) -> std::process::Command) {
    let mut args = context_args(0).to_vec();
    args.push("--json");
    let run = measured(keep(&args));
    let block: serde_json::Value = serde_json::from_str(&run.stdout).expect("context JSON");
    let lines = |key: &str| block[key].as_array().map_or(0, Vec::len);
    println!(
        "keep context block: {} tokens of {}, {} changed and {} relevant line(s), {} left out, {} bytes",
        block["tokens"],
        block["max_tokens"],
        lines("changed"),
        lines("relevant"),
        block["left_out"],
        block["text"].as_str().map_or(0, str::len)
    );
}

fn commands(bin: &Path, target: &Target, n: usize) {
    let keep = |args: &[&str]| keep(bin, target, args);
    let id = measured(keep(&["list", "-n", "1", "--ids"]))
        .stdout
        .trim()
        .to_string();
    let line = |what: &str, (p50, p95, peak): (Duration, Duration, f64)| {
        println!("{what}: p50 {} p95 {}, peak {peak:.0} MB", ms(p50), ms(p95));
    };
    line(
        "keep find process",
        repeated(10, |i| keep(&["find", QUERIES[i % QUERIES.len()]])),
    );
    line(
        "keep context process",
        repeated(10, |i| keep(&context_args(i))),
    );
    context_block(&keep);
    line("keep get process", repeated(10, |_| keep(&["get", &id])));
    line(
        "keep list -n 20 process",
        repeated(10, |_| keep(&["list", "-n", "20"])),
    );
    let run_id = std::process::id();
    line(
        "keep put process",
        repeated(10, |i| {
            keep(&[
                "put",
                &format!("Scale bench note {i} of run {run_id}: the lamp was lit at dusk."),
            ])
        }),
    );
    if std::env::var("KEEP_BENCH_EXPORT").as_deref() != Ok("0") {
        let file = std::env::temp_dir().join(format!("keep-scale-{}.jsonl", std::process::id()));
        let export = measured(keep(&["export", file.to_str().unwrap()]));
        std::fs::remove_file(&file).unwrap();
        println!(
            "keep export: {:.1} s ({:.0} notes/s), peak {:.0} MB",
            export.wall.as_secs_f64(),
            n as f64 / export.wall.as_secs_f64(),
            export.peak_mb
        );
    }

    let mut server = keep(&["serve", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start keep serve");
    wait_for_socket(&target.dir);
    // The first search through the server loads the model and the codes.
    measured(keep(&["find", "warm up"]));
    line(
        "keep find process through keep serve",
        repeated(20, |i| keep(&["find", QUERIES[i % QUERIES.len()]])),
    );
    line(
        "keep context process through keep serve",
        repeated(10, |i| keep(&context_args(i))),
    );
    line(
        "keep list -n 20 through keep serve",
        repeated(10, |_| keep(&["list", "-n", "20"])),
    );
    line(
        "keep put process through keep serve",
        repeated(10, |i| {
            keep(&[
                "put",
                &format!(
                    "Scale bench note {i} of run {run_id} through the server: the door was shut at noon."
                ),
            ])
        }),
    );
    println!(
        "keep serve peak memory: {:.0} MB",
        support::high_water_mb(server.id())
    );
    // SAFETY: a signal to a child this benchmark started.
    unsafe { libc::kill(server.id() as i32, libc::SIGTERM) };
    let _ = server.wait();
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let kept = support::folder_from("KEEP_BENCH_STORES", "a folder for the stores", "scale");
    std::fs::create_dir_all(&kept).unwrap();
    let sizes: Vec<usize> = std::env::var("KEEP_BENCH_SIZES")
        .unwrap_or_else(|_| "10000,100000".into())
        .split(',')
        .map(|s| s.trim().parse().expect("sizes are numbers"))
        .collect();
    let backends =
        std::env::var("KEEP_BENCH_BACKENDS").unwrap_or_else(|_| "sqlite,postgres".into());
    let bin = support::release_binary();
    let config = Config::resolve(None, &Environment::capture()).expect("settings");
    let paths = ModelPaths::from_settings(&config.model).expect("model paths");
    let mut embedder = OnnxEmbedder::load(&paths, LoadFor::ManyQueries).expect("load model");
    let model = embedder.model();
    let model = (model.0.to_string(), model.1);

    let mut pool = None;
    let mut recall_queries = None;
    let server = backends
        .contains("postgres")
        .then(|| PgServer::start(kept.join("pg")));
    println!(
        "{} cores, {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        env!("CARGO_PKG_VERSION")
    );
    for &n in &sizes {
        let export = kept.join(format!("scale-{n}.jsonl"));
        if !export.exists() {
            let pool = pool.get_or_insert_with(|| embedded_pool(&mut embedder));
            write_export(&export, n, pool, (&model.0, model.1));
        }
        // Each store: whether this run builds it, and its database's name
        // on the server (None for SQLite).
        let mut stores: Vec<(bool, Target, Option<String>)> = Vec::new();
        if backends.contains("sqlite") {
            let dir = kept.join(format!("sqlite-{n}"));
            let fresh = !imported(&kept, &format!("sqlite-{n}"));
            if fresh && dir.exists() {
                std::fs::remove_dir_all(&dir).unwrap();
            }
            let target = Target {
                name: "SQLite",
                store: dir.display().to_string(),
                dir,
            };
            stores.push((fresh, target, None));
        }
        if let Some(server) = &server {
            let name = format!("scale_{n}");
            let fresh = !imported(&kept, &name);
            let store = if fresh {
                server.drop_database(&name);
                server.database(&name)
            } else {
                server.url_of(&name)
            };
            let data = dirs::data_dir().expect("a data directory");
            let target = Target {
                name: "PostgreSQL",
                dir: keep::config::server_store_dir(&data, &store),
                store,
            };
            stores.push((fresh, target, Some(name)));
        }
        for (fresh, target, database) in &stores {
            println!("\n== {} at {n} notes", target.name);
            if *fresh {
                import(&bin, target, &export, n);
                let store = database.clone().unwrap_or(format!("sqlite-{n}"));
                std::fs::write(kept.join(format!("{store}.imported")), "").unwrap();
            } else {
                println!("import: store reused");
            }
            let bytes = match (database, &server) {
                (Some(name), Some(server)) => server.size_of(name),
                _ => sqlite_size(&target.dir),
            };
            println!(
                "database: {:.0} MB, {:.2} KB a note (vectors included)",
                bytes as f64 / 1e6,
                bytes as f64 / n as f64 / 1e3
            );
            if database.is_none() {
                let vectors = sqlite_vector_bytes(&target.dir);
                println!(
                    "of which vectors (floats and int8 codes): {:.2} KB a note; the rest {:.2} KB a note",
                    vectors as f64 / n as f64 / 1e3,
                    bytes.saturating_sub(vectors) as f64 / n as f64 / 1e3
                );
            }
            if database.is_none() {
                index_vectors(&bin, target);
                let queries =
                    recall_queries.get_or_insert_with(|| recall_queries_of(&mut embedder));
                graph_recall(target, queries);
            }
            let found = find_in_process(target, &config, &paths, &mut embedder, &QUERIES);
            println!("{}", found.line());
            commands(&bin, target, n);
            browser(&bin, target);
        }
    }
}
