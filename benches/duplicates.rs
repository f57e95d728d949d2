//! Benchmark: calibration of the near-duplicate check on real text
//! (testdata/real/duplicates, made by scripts/duplicate-pairs.py from
//! Debian's package index, AppStream metadata and man pages). A store holds
//! ~3,000 Debian package summaries; each query is another author's wording
//! of one of them (a man page NAME line, an upstream AppStream summary) or
//! of a package left out of the store (no duplicate exists). Prints, for
//! keep's verdict (`facts::judge`): precision (merges that hit the right
//! note), recall (pairs merged), overall and per kind, the merges of texts
//! that have no duplicate, and each wrong merge. A merge is a "same"
//! verdict; a probable update stores the text, so it is not one.
//!
//!     keep models install && cargo bench --bench duplicates

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use keep::config::{Config, Environment};
use keep_core::facts::Verdict;
use keep_core::keeper::PutOptions;
use keep_core::model::Tags;
use keep_core::{Keeper, Settings};

fn data(name: &str) -> Vec<Vec<String>> {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/real/duplicates"
    ))
    .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

struct Outcome {
    kind: String,
    query: String,
    expected: String,
    found: String,
    right: bool,
    similarity: f64,
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let config = Config::resolve(None, &Environment::capture()).expect("settings");
    let dir = tempfile::tempdir().expect("temp dir");
    let settings = Settings {
        store: dir.path().to_path_buf(),
        ..config.settings().expect("settings")
    };
    let mut keeper = Keeper::open(settings).expect("open").for_many_queries();
    let store = data("store.tsv");
    for row in &store {
        let opts = PutOptions {
            id: Some(row[0].clone()),
            ..PutOptions::default()
        };
        keeper.put_text(&row[1], "inline", opts).expect("put");
    }
    keeper.embed_pending(None).expect("embed");
    let queries = data("queries.tsv");
    let outcomes: Vec<Outcome> = queries
        .iter()
        .map(|q| {
            // None: no note is restated (a probable update is stored).
            let (found, similarity) = keeper
                .closest_restatement(&q[2], &Tags::new())
                .expect("probe")
                .filter(|d| d.verdict == Verdict::Same)
                .map_or((String::new(), f64::NEG_INFINITY), |d| (d.id, d.similarity));
            Outcome {
                kind: q[0].clone(),
                query: q[2].clone(),
                expected: q[1].clone(),
                right: found == q[1],
                found,
                similarity,
            }
        })
        .collect();
    println!(
        "{} summaries in the store; queries: {} man, {} appstream, {} absent",
        store.len(),
        count(&outcomes, "man"),
        count(&outcomes, "appstream"),
        count(&outcomes, "absent")
    );
    let (p, r) = precision_recall(&outcomes, f64::NEG_INFINITY, None);
    let (_, rm) = precision_recall(&outcomes, f64::NEG_INFINITY, Some("man"));
    let (_, ra) = precision_recall(&outcomes, f64::NEG_INFINITY, Some("appstream"));
    let absent_merged = outcomes
        .iter()
        .filter(|o| o.kind == "absent" && !o.found.is_empty())
        .count();
    println!("\nprecision  recall  recall(man)  recall(appstream)  false merges(absent)");
    println!(
        "{p:9.3}  {r:6.3}  {rm:11.3}  {ra:17.3}  {absent_merged:4} of {}",
        count(&outcomes, "absent")
    );
    let summary_of = |id: &str| {
        store
            .iter()
            .find(|r| r[0] == id)
            .map_or(String::new(), |r| r[1].clone())
    };
    println!("\nwrong merges:");
    for o in outcomes.iter().filter(|o| !o.right && !o.found.is_empty()) {
        println!(
            "  {:.3}  {:?} ({}) -> {} {:?}",
            o.similarity,
            o.query,
            o.expected,
            o.found,
            summary_of(&o.found)
        );
    }
}

fn count(outcomes: &[Outcome], kind: &str) -> usize {
    outcomes.iter().filter(|o| o.kind == kind).count()
}

/// Precision over every merge at `threshold`; recall over the paired
/// queries (of `kind`, when given).
fn precision_recall(outcomes: &[Outcome], threshold: f64, kind: Option<&str>) -> (f64, f64) {
    let merged: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| !o.found.is_empty() && o.similarity >= threshold)
        .collect();
    let right = merged
        .iter()
        .filter(|o| o.right && o.kind != "absent")
        .count();
    let precision = if merged.is_empty() {
        1.0
    } else {
        right as f64 / merged.len() as f64
    };
    let paired: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| o.kind != "absent" && kind.is_none_or(|k| o.kind == k))
        .collect();
    let found = paired
        .iter()
        .filter(|o| o.right && !o.found.is_empty() && o.similarity >= threshold)
        .count();
    (precision, found as f64 / paired.len().max(1) as f64)
}
