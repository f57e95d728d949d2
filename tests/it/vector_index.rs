//! The vector index of a large SQLite store, with the real model
//! on real text: the 2,970 Debian package summaries of
//! `testdata/real/duplicates`, searched with the descriptions of their
//! manual pages.

use std::time::{Duration, Instant};

use crate::common::{Env, repo_root};

fn data(name: &str) -> String {
    std::fs::read_to_string(repo_root().join("testdata/real/duplicates").join(name)).unwrap()
}

/// The package summaries as an export (notes named after their package,
/// no vectors yet).
fn package_export() -> String {
    let at = "2026-01-01T00:00:00.000Z";
    let mut out = String::from("{\"format\":\"keep-export\",\"version\":3}\n");
    for line in data("store.tsv").lines().skip(1) {
        let (package, summary) = line.split_once('\t').unwrap();
        let note = serde_json::json!({
            "id": package, "summary": summary, "tags": {},
            "created": at, "updated": at, "accessed": at, "versions": [], "parts": [],
        });
        out.push_str(&format!("{note}\n"));
    }
    out
}

/// Every fourteenth description of a manual page: sixty queries.
fn queries() -> Vec<String> {
    data("queries.tsv")
        .lines()
        .skip(1)
        .step_by(14)
        .map(|l| l.rsplit('\t').next().unwrap().to_string())
        .take(60)
        .collect()
}

fn nearest_ten(env: &Env, query: &str) -> Vec<String> {
    let out = env.ok(&[
        "find",
        "--ids",
        "--mode",
        "semantic",
        "-n",
        "10",
        "--half-life",
        "0",
        query,
    ]);
    out.lines().map(String::from).collect()
}

/// The index files beside the store: the signs of the notes' codes.
fn index_files(env: &Env) -> Vec<String> {
    std::fs::read_dir(env.store())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("graph-") && n.ends_with(".signs"))
        .collect()
}

/// What `keep doctor` says (it fails here on the model runtime, which the
/// tests give keep another way).
fn doctor(env: &Env) -> String {
    String::from_utf8(env.run(&["doctor"]).stdout).unwrap()
}

/// A SQLite store with the real model, whichever backend the suite runs
/// on: a store on PostgreSQL has the server's HNSW indexes instead.
fn sqlite_with_model() -> Env {
    let mut env = Env::on(false);
    env.install_model();
    env
}

fn configure(env: &Env, from: usize) {
    std::fs::write(
        env.path("config.toml"),
        format!("vector_index_from = {from}\n"),
    )
    .unwrap();
}

#[test]
fn the_vector_index_finds_what_an_exact_search_finds() {
    let env = sqlite_with_model();
    configure(&env, 1000);
    env.ok_stdin(&["import", "-"], &package_export());
    // An import writes its word index in many pieces.
    let said = doctor(&env);
    assert!(said.contains(DUE_A_MERGE), "{said}");
    let out = env.ok(&["reindex"]);
    assert!(
        out.contains("vector index of notes built over 2970 vectors"),
        "{out}"
    );
    assert!(
        out.contains("word index of summaries and tags merged from"),
        "{out}"
    );
    assert_eq!(index_files(&env).len(), 1);
    let said = doctor(&env);
    assert!(
        said.contains("notes: signs of 2970 vector(s), 0 changed since"),
        "{said}"
    );
    let queries = queries();
    let by_index: Vec<Vec<String>> = queries.iter().map(|q| nearest_ten(&env, q)).collect();
    // An index file damaged on disk: searches scan every vector instead.
    let file = env.store().join(&index_files(&env)[0]);
    let kept = std::fs::read(&file).unwrap();
    std::fs::write(&file, b"damaged").unwrap();
    assert_eq!(nearest_ten(&env, &queries[0]).len(), 10);
    std::fs::write(&file, kept).unwrap();
    // Below the size an index starts at, the index goes and searches
    // are exact: the true ten nearest.
    configure(&env, 100_000);
    env.ok(&["reindex"]);
    assert!(index_files(&env).is_empty());
    let exact: Vec<Vec<String>> = queries.iter().map(|q| nearest_ten(&env, q)).collect();
    let wanted: usize = exact.iter().map(Vec::len).sum();
    let found: usize = exact
        .iter()
        .zip(&by_index)
        .map(|(exact, index)| exact.iter().filter(|id| index.contains(id)).count())
        .sum();
    assert!(wanted > 500, "{wanted}");
    let recall = found as f64 / wanted as f64;
    eprintln!("recall of the true ten nearest through the index: {recall:.4}");
    assert!(recall >= 0.98, "recall {recall:.4}");
}

#[test]
fn the_index_is_built_in_the_background_and_new_notes_are_found_at_once() {
    let mut env = sqlite_with_model();
    configure(&env, 1000);
    env.set("KEEP_BACKGROUND_EMBED", "1");
    // The import leaves every note waiting for a vector: a detached
    // process embeds them, then writes the index.
    env.ok_stdin(&["import", "-"], &package_export());
    let deadline = Instant::now() + Duration::from_secs(300);
    while index_files(&env).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_eq!(index_files(&env).len(), 1, "no index after five minutes");
    wait_for_merge(&env);
    env.set("KEEP_BACKGROUND_EMBED", "0");
    let said = doctor(&env);
    assert!(
        said.contains("notes: signs of 2970 vector(s), 0 changed since"),
        "{said}"
    );
    // Written after the index: found (or not) at once.
    let id = env.put(
        "A tool that turns recipes for sourdough bread into shopping lists",
        &[],
    );
    assert_eq!(
        nearest_ten(&env, "make a grocery list from a baking recipe")[0],
        id
    );
    // A deleted note goes to the trash with its vector: not found, and
    // not a change of the index.
    env.ok(&["del", "7kaa"]);
    let query = "Seven Kingdoms Ancient Adversaries: real-time strategy game";
    let found = nearest_ten(&env, query);
    assert!(found.contains(&"7kaa-data".to_string()), "{found:?}");
    assert!(!found.contains(&"7kaa".to_string()), "{found:?}");
    let said = doctor(&env);
    assert!(
        said.contains("notes: signs of 2970 vector(s), 1 changed since"),
        "{said}"
    );
    // One change is searched beside the index, not folded into it: that
    // would write the whole file again.
    let out = env.ok(&["reindex"]);
    assert!(
        out.contains("vector index of notes: 2971 vectors, 1 changed since and searched beside it until 2000 are folded in"),
        "{out}"
    );
    assert!(
        doctor(&env).contains("notes: signs of 2970 vector(s), 1 changed since"),
        "{}",
        doctor(&env)
    );
    assert_eq!(
        nearest_ten(&env, "make a grocery list from a baking recipe")[0],
        id
    );
    assert!(!nearest_ten(&env, query).contains(&"7kaa".to_string()));
}

/// What doctor says of a word index written in many pieces.
const DUE_A_MERGE: &str = "the word index of summaries and tags is due a merge";

/// Waits (a minute at most) until no word index is due a merge.
fn wait_for_merge(env: &Env) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while doctor(env).contains("due a merge") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(250));
    }
    let said = doctor(env);
    assert!(!said.contains("due a merge"), "{said}");
}

#[test]
fn word_indexes_are_merged_in_the_background_even_with_no_model() {
    let mut env = Env::on(false);
    env.ok_stdin(&["import", "-"], &package_export());
    let said = doctor(&env);
    assert!(said.contains(DUE_A_MERGE), "{said}");
    let query = [
        "find",
        "--mode",
        "keyword",
        "--ids",
        "-n",
        "20",
        "window manager",
    ];
    let before = env.ok(&query);
    assert_eq!(before.lines().count(), 20, "{before}");
    // A write starts the process that keeps the store; with no model it
    // embeds nothing, and still merges the indexes.
    env.set("KEEP_BACKGROUND_EMBED", "1");
    env.put("The lighthouse lamp is trimmed at dusk.", &[]);
    wait_for_merge(&env);
    env.set("KEEP_BACKGROUND_EMBED", "0");
    assert_eq!(env.ok(&query), before);
    assert!(env.ok(&["check"]).starts_with("ok: "));
}

#[test]
fn doctor_says_how_vectors_are_searched() {
    let env = Env::new();
    env.put("a note", &[]);
    let said = doctor(&env);
    let expected = if env.on_postgres() {
        "index      PostgreSQL keeps HNSW indexes of the vectors"
    } else {
        "index      exact search (an index starts at 50000 vectors of a kind)"
    };
    assert!(said.contains(expected), "{said}");
}
