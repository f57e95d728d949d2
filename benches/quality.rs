//! Benchmark: recall quality on real text nobody here wrote. The labelled
//! set (testdata/real/quality/set.tsv.gz, made by scripts/quality-set.py
//! from Debian's package descriptions, man pages and AppStream metadata)
//! pairs each query with the one document it should find. Three regimes:
//! twenty small stores of 30 documents, a store of 1,000 and one of
//! 10,000; two query forms: as written, and as a person asks a memory.
//! Prints R@1, R@5 and MRR for keyword only, vectors only, plain 1:1
//! reciprocal-rank fusion, and keep's ranking.
//!
//!     cargo bench --bench quality
//!     KEEP_QUALITY_REGIMES=30,1000 cargo bench --bench quality
//!
//! With `KEEP_BENCH_STORES=DIR` each store is kept in `DIR/quality-*` and
//! reused by later runs. With `KEEP_QUALITY_DUMP=FILE` each query's two
//! candidate lists (ids with BM25 and cosine) are written to FILE as JSON
//! lines, to try other ways of ranking without rebuilding the stores.
//! With `KEEP_QUALITY_POSTGRES=URL` (a PostgreSQL server, as
//! `./scripts/pg.sh start DIR` prints) each store is copied, vectors
//! included, into a database of that server and asked there.
//! With `KEEP_QUALITY_IMPORTANCE=1` every fifth document of each store is
//! put with importance 5 and the one after it with importance 1, whatever
//! the queries (stores named `quality-*-importance`); every run prints
//! keep's R@5 for the queries of those two groups and of the rest, so two
//! runs, with and without, show what importance moves.
//! A store with `vector_index_from` vectors or more (the config file;
//! 50,000 unless set) is searched through its vector index, built before
//! the queries: run once with `vector_index_from = 1000` to compare the
//! index with exact search on the same stores.
//! Needs the model (`keep models install`).

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

mod support;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use keep::config::{Config, Environment};
use keep_core::embed::{LoadFor, ModelPaths, OnnxEmbedder};
use keep_core::keeper::PutOptions;
use keep_core::recall::{FindQuery, RecallMode};
use keep_core::{Keeper, Settings};
use support::plain_fusion;

/// Stores of the small regime, and documents in each.
const SMALL_STORES: usize = 20;
const SMALL_SIZE: usize = 30;
/// Queries asked of each large store (the first rows of the set).
const LARGE_QUERIES: usize = 500;
/// Ranks beyond this count as not found.
const DEPTH: usize = 50;
/// With `KEEP_QUALITY_IMPORTANCE`, one document in this many is raised
/// (importance 5) and the next lowered (importance 1).
const IMPORTANCE_EVERY: usize = 5;

/// Whether the stores are put with importance.
fn with_importance() -> bool {
    std::env::var_os("KEEP_QUALITY_IMPORTANCE").is_some_and(|v| v == "1")
}

/// The importance group of the `i`-th document of a store: 0 raised, 1
/// lowered, 2 neither.
fn importance_group(i: usize) -> usize {
    (i % IMPORTANCE_EVERY).min(2)
}

/// The importance the `i`-th document of a store is put with.
fn importance_of(i: usize) -> Option<u8> {
    if !with_importance() {
        return None;
    }
    match importance_group(i) {
        0 => Some(5),
        1 => Some(1),
        _ => None,
    }
}

const GROUPS: [&str; 3] = ["raised (5)", "lowered (1)", "neither"];

/// keep's score for the queries of each importance group, per query form.
static BY_GROUP: std::sync::Mutex<[[Score; 3]; 2]> = std::sync::Mutex::new(
    [[Score {
        queries: 0,
        at1: 0,
        at5: 0,
        rr: 0.0,
    }; 3]; 2],
);

/// One labelled pair: a query and the document it should find.
struct Row {
    id: String,
    query: String,
    document: String,
}

fn set_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/real/quality/set.tsv.gz")
}

fn load_set() -> Vec<Row> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(set_path()).expect("labelled set"))
        .read_to_string(&mut text)
        .expect("read labelled set");
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let mut f = line.split('\t');
            let (id, _kind, query, document) = (f.next()?, f.next()?, f.next()?, f.next()?);
            Some(Row {
                id: id.replacen(':', "/", 1),
                query: query.to_string(),
                document: document.replace("\\n", "\n"),
            })
        })
        .collect()
}

/// What a row is about, roughly: its kind for man pages and applications,
/// else the first word of the Debian package name (python3, golang, r,
/// fonts, ...).
fn family(id: &str) -> &str {
    match id.split_once('/') {
        Some(("deb", name)) => name.split('-').next().unwrap_or(name),
        Some((kind, _)) => kind,
        None => id,
    }
}

/// The small stores: the first `SMALL_SIZE` rows of each of the
/// `SMALL_STORES` largest families, like a person's notes on one subject,
/// where documents resemble each other.
fn families(rows: &[Row]) -> Vec<Vec<&Row>> {
    let mut by_family: HashMap<&str, Vec<&Row>> = HashMap::new();
    for row in rows {
        by_family.entry(family(&row.id)).or_default().push(row);
    }
    let mut groups: Vec<(&str, Vec<&Row>)> = by_family.into_iter().collect();
    groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    groups
        .into_iter()
        .take(SMALL_STORES)
        .map(|(_, mut g)| {
            g.truncate(SMALL_SIZE);
            g
        })
        .collect()
}

/// The query as a person asks a memory for it.
fn as_asked(query: &str, i: usize) -> String {
    let mut chars = query.chars();
    let first = chars.next().map(|c| c.to_lowercase().to_string());
    let query = first.unwrap_or_default() + chars.as_str();
    match i % 4 {
        0 => format!("what do I have about {query}"),
        1 => format!("do I have anything on {query}?"),
        2 => format!("find my notes about {query}"),
        _ => format!("what did I save about {query}"),
    }
}

/// R@1, R@5 and MRR, accumulated.
#[derive(Default, Clone, Copy)]
struct Score {
    queries: usize,
    at1: usize,
    at5: usize,
    rr: f64,
}

impl Score {
    fn add(&mut self, rank: Option<usize>) {
        self.queries += 1;
        if let Some(r) = rank.filter(|&r| r <= DEPTH) {
            self.at1 += usize::from(r == 1);
            self.at5 += usize::from(r <= 5);
            self.rr += 1.0 / r as f64;
        }
    }

    fn r5(&self) -> f64 {
        self.at5 as f64 / self.queries.max(1) as f64
    }

    fn cells(&self) -> String {
        let n = self.queries.max(1) as f64;
        format!(
            "{:.3}  {:.3}  {:.3}",
            self.at1 as f64 / n,
            self.r5(),
            self.rr / n
        )
    }
}

fn rank_of(ids: impl IntoIterator<Item = impl AsRef<str>>, wanted: &str) -> Option<usize> {
    ids.into_iter()
        .position(|id| id.as_ref() == wanted)
        .map(|i| i + 1)
}

const METHODS: [&str; 4] = ["keyword only", "vectors only", "plain fusion 1:1", "keep"];

/// Scores of each method, for one query form.
type Table = [Score; METHODS.len()];

/// Where candidate lists are written, when asked.
type Dump = Option<std::io::BufWriter<std::fs::File>>;

/// Asks every query of `rows` of one store; adds to the tables of both forms.
fn ask(
    keeper: &mut Keeper,
    rows: &[&Row],
    forms: &mut [Table; 2],
    offset: usize,
    (dump, store): (&mut Dump, &str),
) {
    for (i, row) in rows.iter().enumerate() {
        for (form, table) in forms.iter_mut().enumerate() {
            let text = if form == 0 {
                row.query.clone()
            } else {
                as_asked(&row.query, offset + i)
            };
            let lists = keeper.candidate_lists(&text).expect("candidates");
            let keep = keeper
                .find(&FindQuery {
                    half_life_days: Some(0.0),
                    mode: RecallMode::Hybrid,
                    ..FindQuery::text(text.clone(), DEPTH)
                })
                .expect("find");
            if let Some(out) = dump {
                let all = keeper
                    .find(&FindQuery {
                        half_life_days: Some(0.0),
                        floor: Some(0.0),
                        ..FindQuery::text(text.clone(), DEPTH)
                    })
                    .expect("find");
                let best = all
                    .hits
                    .iter()
                    .filter_map(|h| h.relevance)
                    .fold(0.0, f64::max);
                let line = serde_json::json!({
                    "best_relevance": best, "unheard": all.unheard,
                    "store": store, "form": form, "query": text, "expected": row.id,
                    "keyword": lists.keyword, "vector": lists.vector, "completed": lists.completed,
                    "keep": keep.hits.iter().map(|h| &h.note.id).collect::<Vec<_>>(),
                });
                writeln!(out, "{line}").expect("dump");
            }
            let right = keep.hits.iter().take(5).find(|h| h.note.id == row.id);
            if let Some(h) = right {
                RIGHT_IN_FIVE.fetch_add(1, Ordering::Relaxed);
                if h.weak {
                    RIGHT_BUT_WEAK.fetch_add(1, Ordering::Relaxed);
                }
            }
            let ranks = [
                rank_of(lists.keyword.iter().map(|(id, _)| id), &row.id),
                rank_of(lists.vector.iter().map(|(id, _)| id), &row.id),
                rank_of(plain_fusion(&lists.keyword, &lists.vector), &row.id),
                rank_of(keep.hits.iter().map(|h| &h.note.id), &row.id),
            ];
            BY_GROUP.lock().unwrap()[form][importance_group(i)].add(ranks[3]);
            for (score, rank) in table.iter_mut().zip(ranks) {
                score.add(rank);
            }
        }
    }
}

/// Opens (or builds) the store of `rows` in `dir`.
fn open_store(config: &Config, paths: &ModelPaths, dir: &Path, rows: &[&Row]) -> Keeper {
    let reused = dir.join("keep.db").is_file();
    let mut keeper = support::keeper_at(config, paths, dir.to_path_buf());
    if !reused {
        for (i, row) in rows.iter().enumerate() {
            let opts = PutOptions {
                id: Some(row.id.clone()),
                importance: importance_of(i),
                ..PutOptions::default()
            };
            keeper.put_text(&row.document, "inline", opts).expect("put");
        }
        keeper.embed_pending(None).expect("embed");
    }
    // A graph index when the store has `vector_index_from` vectors (set it
    // in the config file to compare with exact search at these sizes).
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (kind, work) in keeper
        .refresh_vector_graphs(threads, &mut |_, _, _| true, &mut |_| true)
        .expect("vector index")
    {
        if !matches!(work, keep_core::GraphWork::Small { .. }) {
            println!("vector index of {}: {work:?}", kind.name());
        }
    }
    match std::env::var("KEEP_QUALITY_POSTGRES") {
        Ok(server) => on_postgres(config, paths, &mut keeper, &server, dir),
        Err(_) => keeper,
    }
}

/// A copy of the store (vectors included) in a new database of the
/// PostgreSQL server at URL `server`, named after the store's folder.
fn on_postgres(
    config: &Config,
    paths: &ModelPaths,
    source: &mut Keeper,
    server: &str,
    dir: &Path,
) -> Keeper {
    let name = dir
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    let mut admin = postgres::Client::connect(server, postgres::NoTls).expect("PostgreSQL");
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .expect("drop database");
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .expect("create database");
    let (base, query) = server.split_once('?').expect("a URL with ?host=");
    let (prefix, _) = base.rsplit_once('/').expect("a database in the URL");
    let settings = Settings {
        store: dir.join("postgres-local"),
        database: Some(format!("{prefix}/{name}?{query}")),
        ..config.settings().expect("settings")
    };
    let mut copy = Keeper::open(settings)
        .expect("open PostgreSQL")
        .with_embedder(Box::new(
            OnnxEmbedder::load(paths, LoadFor::ManyQueries).expect("load model"),
        ));
    let mut export = Vec::new();
    source
        .export(&mut export, true, &mut |_, _| {})
        .expect("export");
    copy.import(
        &mut std::io::Cursor::new(export),
        "store",
        &mut |_, _, _| {},
    )
    .expect("import");
    copy
}

/// A store's folder: kept under `KEEP_BENCH_STORES`, else temporary.
fn store_dir(kept: Option<&Path>, name: &str, temp: &tempfile::TempDir) -> PathBuf {
    let suffix = if with_importance() { "-importance" } else { "" };
    let dir = kept
        .unwrap_or(temp.path())
        .join(format!("quality-{name}{suffix}"));
    std::fs::create_dir_all(&dir).expect("store dir");
    dir
}

/// Right answers among keep's first five, and how many of them were marked
/// weak (found by meaning only, and only weakly).
static RIGHT_IN_FIVE: AtomicUsize = AtomicUsize::new(0);
static RIGHT_BUT_WEAK: AtomicUsize = AtomicUsize::new(0);

fn print_table(regime: &str, forms: &[Table; 2]) {
    for (index, table) in forms.iter().enumerate() {
        let form = if index == 0 { "as written" } else { "as asked" };
        println!(
            "\n{regime}, queries {form} ({} queries)\n  method              R@1    R@5    MRR",
            table[0].queries
        );
        for (name, score) in METHODS.iter().zip(table) {
            println!("  {name:<18}  {}", score.cells());
        }
        let best_single = table[..3].iter().map(Score::r5).fold(0.0, f64::max);
        println!(
            "  keep R@5 - best other: {:+.3}",
            table[3].r5() - best_single
        );
        let groups = std::mem::take(&mut BY_GROUP.lock().unwrap()[index]);
        let cells: Vec<String> = GROUPS
            .iter()
            .zip(&groups)
            .map(|(name, s)| format!("{name} {:.3} ({})", s.r5(), s.queries))
            .collect();
        println!(
            "  keep R@5 by importance group{}: {}",
            if with_importance() { "" } else { " (none set)" },
            cells.join(", ")
        );
    }
    println!(
        "  right answers in keep's first five marked weak: {} of {}",
        RIGHT_BUT_WEAK.swap(0, Ordering::Relaxed),
        RIGHT_IN_FIVE.swap(0, Ordering::Relaxed)
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let regimes: Vec<usize> = std::env::var("KEEP_QUALITY_REGIMES")
        .unwrap_or_else(|_| "30,1000,10000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let config = Config::resolve(None, &Environment::capture()).expect("settings");
    let paths = ModelPaths::from_settings(&config.model).expect("model paths");
    let rows = load_set();
    println!("labelled set: {} pairs", rows.len());
    let kept = std::env::var_os("KEEP_BENCH_STORES").map(PathBuf::from);
    let temp = tempfile::tempdir().expect("temp dir");
    let mut dump: Dump = std::env::var_os("KEEP_QUALITY_DUMP")
        .map(|path| std::io::BufWriter::new(std::fs::File::create(path).expect("dump file")));
    for size in regimes {
        let start = Instant::now();
        let mut forms: [Table; 2] = Default::default();
        let label;
        if size <= SMALL_SIZE {
            label = format!("{SMALL_STORES} stores of {SMALL_SIZE} related documents");
            for (s, family) in families(&rows).into_iter().enumerate() {
                let dir = store_dir(kept.as_deref(), &format!("30-{s}"), &temp);
                let mut keeper = open_store(&config, &paths, &dir, &family);
                let name = format!("30-{s}");
                ask(
                    &mut keeper,
                    &family,
                    &mut forms,
                    s * SMALL_SIZE,
                    (&mut dump, &name),
                );
            }
        } else {
            let size = size.min(rows.len());
            label = format!("1 store of {size} documents");
            let all: Vec<&Row> = rows[..size].iter().collect();
            let dir = store_dir(kept.as_deref(), &size.to_string(), &temp);
            let mut keeper = open_store(&config, &paths, &dir, &all);
            println!(
                "\n({label} ready in {:.0} s)",
                start.elapsed().as_secs_f64()
            );
            let name = size.to_string();
            let queries = &all[..LARGE_QUERIES.min(size)];
            ask(&mut keeper, queries, &mut forms, 0, (&mut dump, &name));
        }
        print_table(&label, &forms);
        println!("  ({:.0} s)", start.elapsed().as_secs_f64());
    }
}
