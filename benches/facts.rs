//! Benchmark: the restatement verdict on labelled pairs of real text
//! (testdata/real/facts/pairs.tsv, made by scripts/fact-pairs.py from
//! Debian changelogs and package descriptions, and restatements.tsv, made
//! by scripts/restatement-pairs.py: one change in other words alone, and
//! near misses beside them). Each set is reported apart. Each pair is judged both
//! ways (either text stored, the other put), with the real model's cosine.
//! Prints, per kind of pair and overall, how often the verdict is "same"
//! (recall for restatements, a false merge for near misses) and how often
//! a near miss is taken as a probable update; then the same figures for
//! other restatement floors, and the near misses merged at keep's.
//!
//!     ./scripts/setup.sh && cargo bench --bench facts

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use keep::config::{Config, Environment};
use keep_core::facts::{self, Thresholds, Verdict};
use keep_core::{Keeper, Settings};

struct Pair {
    same: bool,
    kind: String,
    a: String,
    b: String,
}

/// The labelled sets: pairs.tsv (restatements and near misses of every
/// kind, scripts/fact-pairs.py) and restatements.tsv (restatements in
/// other words alone and their near misses, scripts/restatement-pairs.py).
const SETS: &[&str] = &["pairs.tsv", "restatements.tsv"];

fn pairs(name: &str) -> Vec<Pair> {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/real/facts"
    ))
    .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Pair {
                same: f[0] == "same",
                kind: f[1].to_string(),
                a: f[3].to_string(),
                b: f[4].to_string(),
            }
        })
        .collect()
}

/// The verdict keep gave before: a cosine of 0.90 or more, and the same
/// runs of digits, named days and negation.
fn before_same(a: &str, b: &str, similarity: f64) -> bool {
    let digits = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_ascii_digit())
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect()
    };
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    const DAYS: &[&str] = &[
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ];
    let days = |t: &str| -> Vec<String> {
        let mut d: Vec<String> = words(t)
            .into_iter()
            .filter(|w| DAYS.contains(&w.as_str()))
            .collect();
        d.sort();
        d.dedup();
        d
    };
    let negated = |t: &str| {
        words(t).iter().any(|w| {
            ["not", "no", "never", "cannot", "without", "nor", "none"].contains(&w.as_str())
                || w.ends_with("n't")
        })
    };
    similarity >= 0.90 && digits(a) == digits(b) && days(a) == days(b) && negated(a) == negated(b)
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum()
}

#[derive(Default)]
struct Tally {
    judged: usize,
    same: usize,
    update: usize,
}

fn tally(pairs: &[Pair], sims: &[f64], t: &Thresholds) -> BTreeMap<(bool, String), Tally> {
    let mut by: BTreeMap<(bool, String), Tally> = BTreeMap::new();
    for (p, sim) in pairs.iter().zip(sims) {
        for (old, new) in [(&p.a, &p.b), (&p.b, &p.a)] {
            let entry = by.entry((p.same, p.kind.clone())).or_default();
            entry.judged += 1;
            match facts::judge_with(old, new, *sim, t).verdict {
                Verdict::Same => entry.same += 1,
                Verdict::Update => entry.update += 1,
                Verdict::Different => {}
            }
        }
    }
    by
}

fn totals(by: &BTreeMap<(bool, String), Tally>, same: bool) -> Tally {
    let mut t = Tally::default();
    for ((s, _), v) in by {
        if *s == same {
            t.judged += v.judged;
            t.same += v.same;
            t.update += v.update;
        }
    }
    t
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
    let mut keeper = Keeper::open(settings).expect("open");
    for (i, set) in SETS.iter().enumerate() {
        if i > 0 {
            println!("\n");
        }
        println!("== {set}\n");
        report(&pairs(set), &mut keeper);
    }
}

fn report(pairs: &[Pair], keeper: &mut Keeper) {
    let texts: Vec<&str> = pairs
        .iter()
        .flat_map(|p| [p.a.as_str(), p.b.as_str()])
        .collect();
    let vectors = keeper
        .embedder()
        .expect("the embedding model (run ./scripts/setup.sh)")
        .embed(&texts)
        .expect("embed");
    let sims: Vec<f64> = vectors.chunks(2).map(|v| cosine(&v[0], &v[1])).collect();
    let keep = Thresholds::default();
    let by = tally(pairs, &sims, &keep);
    println!(
        "{} pairs ({} restatements, {} near misses), each judged both ways\n",
        pairs.len(),
        pairs.iter().filter(|p| p.same).count(),
        pairs.iter().filter(|p| !p.same).count()
    );
    println!("label      kind                  judged  same   update");
    for ((same, kind), t) in &by {
        println!(
            "{:9}  {:20}  {:6}  {:.3}  {:.3}",
            if *same { "same" } else { "different" },
            kind,
            t.judged,
            t.same as f64 / t.judged as f64,
            t.update as f64 / t.judged as f64
        );
    }
    let restated = totals(&by, true);
    let missed = totals(&by, false);
    println!(
        "\nrestatement recall {:.3} ({} of {}); near misses kept apart {:.3} ({} merged of {}), taken as probable updates {:.3}",
        restated.same as f64 / restated.judged as f64,
        restated.same,
        restated.judged,
        1.0 - missed.same as f64 / missed.judged as f64,
        missed.same,
        missed.judged,
        missed.update as f64 / missed.judged as f64
    );
    let (mut before_recall, mut before_merged) = (0, 0);
    for (p, sim) in pairs.iter().zip(&sims) {
        if before_same(&p.a, &p.b, *sim) {
            if p.same {
                before_recall += 2;
            } else {
                before_merged += 2;
            }
        }
    }
    println!(
        "keep before this verdict (cosine >= 0.90, same digits, days and negation): recall {:.3}, near misses merged {} of {}",
        before_recall as f64 / restated.judged as f64,
        before_merged,
        missed.judged
    );
    println!("\nrestatement floor  recall  near misses merged");
    for floor in [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] {
        let t = Thresholds {
            restatement: floor,
            ..keep
        };
        let by = tally(pairs, &sims, &t);
        let (r, m) = (totals(&by, true), totals(&by, false));
        let mark = if (floor - keep.restatement).abs() < 1e-9 {
            "  <- keep"
        } else {
            ""
        };
        println!(
            "{floor:17.2}  {:.3}  {:4}{mark}",
            r.same as f64 / r.judged as f64,
            m.same
        );
    }
    if std::env::var_os("KEEP_BENCH_MISSED").is_some() {
        println!("\nrestatements not taken as such:");
        for (p, sim) in pairs.iter().zip(&sims).filter(|(p, _)| p.same) {
            for (old, new) in [(&p.a, &p.b), (&p.b, &p.a)] {
                let j = facts::judge(old, new, *sim);
                if j.verdict != Verdict::Same {
                    println!(
                        "  {sim:.2}  {:?}  {old:?} / {new:?}  {:?}",
                        j.verdict, j.differences
                    );
                }
            }
        }
    }
    println!("\nnear misses merged at keep's thresholds:");
    for (p, sim) in pairs.iter().zip(&sims).filter(|(p, _)| !p.same) {
        for (old, new) in [(&p.a, &p.b), (&p.b, &p.a)] {
            if facts::judge(old, new, *sim).verdict == Verdict::Same {
                println!("  {sim:.2}  {old:?} / {new:?}");
            }
        }
    }
}
