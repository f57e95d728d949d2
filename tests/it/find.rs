//! find: keyword ranking with filters.

use crate::common::Env;

#[test]
fn ranks_notes_by_keywords() {
    let env = Env::new();
    let a = env.put(
        "SQLite stores every note; SQLite WAL mode lets readers run",
        &[],
    );
    let b = env.put("A note about gardening and tomatoes", &[]);
    let c = env.put("The database engine is SQLite", &["topic=db"]);
    let out = env.ok(&["find", "sqlite", "--ids"]);
    let found: Vec<&str> = out.lines().collect();
    assert_eq!(found.len(), 2);
    assert!(found.contains(&a.as_str()) && found.contains(&c.as_str()));
    assert!(!out.contains(&b));
    // Stemming: "stored" finds "stores".
    assert_eq!(env.ok(&["find", "stored", "--ids"]).trim(), a);
    // Tag values are searchable too.
    assert_eq!(env.ok(&["find", "db", "--ids"]).trim(), c);
    let json = env.json(&["find", "sqlite"]);
    assert!(json[0]["score"].as_f64().unwrap() > 0.0);
}

#[test]
fn filters_apply_before_ranking() {
    let mut env = Env::new();
    env.at("2026-11-01T00:00:00Z");
    let old = env.put("rust memory safety", &["lang=rust"]);
    env.at("2026-11-22T00:00:00Z");
    let new = env.put("rust ownership and borrowing", &["lang=rust"]);
    let other = env.put("rust on old iron bridges", &["topic=metal"]);
    assert_eq!(
        env.ok(&["find", "rust", "-t", "topic=metal", "--ids"])
            .trim(),
        other
    );
    let recent: Vec<String> = env
        .ok(&["find", "rust", "--since", "P7D", "--ids"])
        .lines()
        .map(String::from)
        .collect();
    assert!(recent.contains(&new) && !recent.contains(&old));
    assert_eq!(
        env.ok(&["find", "rust", "-n", "1", "--ids"])
            .lines()
            .count(),
        1
    );
    assert_eq!(
        env.ok(&["find", "rust", "-S", "%*", "--ids"])
            .lines()
            .count(),
        3
    );
    assert!(env.ok(&["find", "rust", "-S", "file://*"]).is_empty());
}

#[test]
fn query_syntax_is_not_interpreted() {
    let env = Env::new();
    let id = env.put("quotes \"and\" NEAR( stars*", &[]);
    assert_eq!(env.ok(&["find", "NEAR(", "\"and", "--ids"]).trim(), id);
    assert!(env.ok(&["find", "!!!"]).is_empty());
}

#[test]
fn empty_query_is_a_usage_error() {
    let env = Env::new();
    assert_eq!(env.fails(&["find", "   "], 2), "keep: the query is empty\n");
    env.fails(&["find"], 2);
}

/// The real documents of `testdata/real` (top level), put into `env`.
fn put_real_pages(env: &Env) {
    let dir = env.path("real");
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(crate::common::repo_root().join("testdata/real")).unwrap() {
        let from = entry.unwrap().path();
        if from.extension().is_some_and(|e| e == "html" || e == "pdf") {
            std::fs::copy(&from, dir.join(from.file_name().unwrap())).unwrap();
        }
    }
    let report = env.json(&["put", dir.to_str().unwrap()]);
    assert_eq!(report["failed"], serde_json::json!([]), "{report}");
}

/// A keyword search's hits: file name and score.
fn keyword_hits(env: &Env, query: &str) -> Vec<(String, f64)> {
    env.json(&["find", "--mode", "keyword", query, "-n", "10"])
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let id = h["id"].as_str().unwrap();
            let name = id.rsplit('/').next().unwrap().to_string();
            (name, h["score"].as_f64().unwrap())
        })
        .collect()
}

#[test]
fn keyword_ranking_is_the_same_on_sqlite_and_postgresql() {
    let (sqlite, postgres) = (Env::on(false), Env::on(true));
    put_real_pages(&sqlite);
    put_real_pages(&postgres);
    for query in [
        "users and groups of the base system",
        "compress a stream with deflate",
        "unicode domain names encoded as ascii",
        "join two tables in a query",
        "conditional expressions testing files",
        "strings are utf-8 bytes",
        "shared mime info glob patterns",
        "network block device for virtual machines",
        "create an empty repository",
        "sqlite",
    ] {
        let (a, b) = (keyword_hits(&sqlite, query), keyword_hits(&postgres, query));
        assert!(!a.is_empty(), "{query}: nothing found");
        let names = |hits: &[(String, f64)]| hits.iter().map(|h| h.0.clone()).collect::<Vec<_>>();
        assert_eq!(names(&a), names(&b), "{query}: {a:?} against {b:?}");
        for ((name, x), (_, y)) in a.iter().zip(&b) {
            assert!(
                (x - y).abs() < 1e-6,
                "{query}: {name} scores {x} against {y}"
            );
        }
    }
}

#[test]
fn an_inline_note_is_never_found_by_pieces_of_its_id() {
    let env = Env::new();
    // Its id, %18596776e73c, reads to PostgreSQL's text-search parser as
    // the number 18596776e73 and the word "c".
    let id = env.put("The lighthouse keeper logs the tide, entry 211.", &[]);
    assert_eq!(id, "%18596776e73c");
    let library = env.put("A C library for parsing XML.", &[]);
    let found = env.ok(&["find", "--mode", "keyword", "c", "--ids"]);
    assert_eq!(found.trim(), library);
    let found = env.ok(&["find", "--mode", "keyword", "18596776e73c", "--ids"]);
    assert_eq!(found.trim(), "");
    // A named note is still found by its name.
    env.ok(&["put", "Herd counts.", "--id", "notes/caribou-migration"]);
    let found = env.ok(&["find", "--mode", "keyword", "caribou", "--ids"]);
    assert_eq!(found.trim(), "notes/caribou-migration");
}

/// Ten rare words, five to a note: each is in 650 of 1,500 notes, so
/// their counts sum to 6,500, past the latest matches a search ranks
/// (5,000). The notes that hold them are the oldest, and hold five at
/// once: there are 1,300, not 6,500, and the best, holding its five
/// twice, is the very first.
fn export_of_overcounted_words() -> String {
    const WORDS: [&str; 10] = [
        "amber", "basil", "cedar", "dahlia", "elder", "fennel", "ginger", "hazel", "iris",
        "juniper",
    ];
    let at = "2026-01-01T00:00:00.000Z";
    let mut out = String::from("{\"format\":\"keep-export\",\"version\":4}\n");
    for i in 0..1_500 {
        let summary = match i {
            0 => WORDS[..5]
                .iter()
                .map(|w| format!("{w} {w}"))
                .collect::<Vec<_>>()
                .join(" "),
            1..1_300 => format!("{} note {i}", WORDS[(i % 2) * 5..][..5].join(" ")),
            _ => format!("a later note {i} about nothing asked"),
        };
        let note = serde_json::json!({
            "id": format!("many-{i}"), "summary": summary, "tags": {},
            "created": at, "updated": at, "accessed": at, "versions": [], "parts": [],
        });
        out.push_str(&format!("{note}\n"));
    }
    out
}

#[test]
fn a_search_of_many_rare_words_ranks_the_oldest_match_when_their_counts_overstate_them() {
    let env = Env::new();
    env.ok_stdin(&["import", "-"], &export_of_overcounted_words());
    let query = "amber basil cedar dahlia elder fennel ginger hazel iris juniper";
    let out = env.ok(&["find", "--mode", "keyword", "--ids", "-n", "3", query]);
    assert_eq!(out.lines().next(), Some("many-0"), "{out}");
}
