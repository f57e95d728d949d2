//! Stores written at each earlier schema version open, migrate and pass
//! `keep check` with their notes, versions, parts and ratings intact; a
//! store written by a newer keep is refused, naming both versions, and is
//! left byte for byte as it was.
//!
//! The stores are committed in `testdata/stores/` (`schema-N.db`): each is
//! the migrations up to N applied to an empty file, then the rows keep
//! wrote at that version. `KEEP_UPDATE_DOCS=1` writes them again.

use std::path::{Path, PathBuf};

use crate::common::{Env, repo_root};

/// The schema versions before this build's.
const EARLIER: std::ops::RangeInclusive<i64> = 1..=4;

fn fixture(version: i64) -> PathBuf {
    repo_root().join(format!("testdata/stores/schema-{version}.db"))
}

/// The migrations' SQL, in order.
fn migrations() -> Vec<String> {
    let dir = repo_root().join("crates/keep-store/src/sqlite/migrations");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect()
}

/// How many migrations the PostgreSQL store has.
fn postgres_migrations() -> usize {
    std::fs::read_dir(repo_root().join("crates/keep-store/src/postgres/migrations"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "sql"))
        })
        .count()
}

/// Writes the store of schema `version` at `path`.
fn write_fixture(version: i64, path: &Path) {
    let _ = std::fs::remove_file(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let conn = rusqlite::Connection::open(path).unwrap();
    for sql in migrations().iter().take(version as usize) {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", version).unwrap();
    let t0: i64 = 1_790_000_000_000;
    conn.execute_batch(&format!(
        "INSERT INTO notes (rid, id, summary, content_hash, created, updated, accessed) VALUES
           (1, 'harbour', 'The harbour lighthouse is lit at six.', 'h2', {t0}, {t1}, {t1}),
           (2, 'file:///srv/docs/keeping.md', 'Keeping the lamps', 'h3', {t0}, {t0}, {t0});
         INSERT INTO tags (note, key, value) VALUES
           (1, 'topic', 'harbour'), (1, '_source', 'inline'),
           (2, '_source', 'file'), (2, 'title', 'Keeping the lamps');
         INSERT INTO versions (vid, note, seq, summary, tags, content_hash, created, updated) VALUES
           (1, 1, 1, 'The harbour lighthouse is lit at dusk.', '{{\"topic\":[\"harbour\"]}}', 'h1', {t0}, {t0});
         INSERT INTO parts (pid, note, number, summary, tags) VALUES
           (1, 2, 1, 'Wicks are trimmed every morning before the lamp is cleaned.', '{{}}'),
           (2, 2, 2, 'Oil is carried up the tower in the afternoon.', '{{}}');
         INSERT INTO notes_fts (rowid, summary, tags) VALUES
           (1, 'The harbour lighthouse is lit at six.', 'topic harbour'),
           (2, 'Keeping the lamps', 'title Keeping the lamps');
         INSERT INTO body_fts (rowid, body) VALUES
           (1, 'The harbour lighthouse is lit at six.'),
           (2, 'Keeping the lamps. Wicks are trimmed every morning. Oil is carried up the tower.');",
        t1 = t0 + 86_400_000,
    ))
    .unwrap();
    if version >= 4 {
        conn.execute_batch(&format!(
            "INSERT INTO feedback (note, useful, wrong, updated) VALUES (1, 2, 0, {t0})"
        ))
        .unwrap();
    }
    conn.execute_batch("PRAGMA journal_mode = DELETE; VACUUM")
        .unwrap();
}

fn store_from(env: &Env, version: i64) {
    let path = fixture(version);
    if std::env::var_os("KEEP_UPDATE_DOCS").is_some() {
        write_fixture(version, &path);
    }
    assert!(
        path.exists(),
        "{} (KEEP_UPDATE_DOCS=1 writes it)",
        path.display()
    );
    std::fs::create_dir_all(env.store()).unwrap();
    std::fs::copy(&path, env.store().join("keep.db")).unwrap();
}

#[test]
fn a_store_of_each_earlier_schema_opens_migrates_and_passes_check() {
    for version in EARLIER {
        let env = Env::new();
        if env.on_postgres() {
            // The committed stores are SQLite files; PostgreSQL migrations
            // are run by every test of the suite on a fresh database.
            return;
        }
        store_from(&env, version);
        let checked = env.run(&["check"]);
        assert!(
            checked.status.success(),
            "schema {version}: {}{}",
            String::from_utf8_lossy(&checked.stdout),
            String::from_utf8_lossy(&checked.stderr)
        );
        let shown = env.ok(&["get", "harbour"]);
        assert!(shown.contains("lit at six"), "schema {version}: {shown}");
        let old = env.ok(&["get", "harbour@V{1}"]);
        assert!(old.contains("lit at dusk"), "schema {version}: {old}");
        let found = env.ok(&["find", "--mode", "keyword", "lighthouse", "--ids"]);
        assert_eq!(found.lines().next(), Some("harbour"), "schema {version}");
        let by_name = env.ok(&["find", "--mode", "keyword", "keeping", "--ids"]);
        assert!(
            by_name.contains("keeping.md"),
            "schema {version}: {by_name}"
        );
        let parts = env.ok(&["get", "file:///srv/docs/keeping.md", "--parts"]);
        assert!(
            parts.contains("Wicks are trimmed"),
            "schema {version}: {parts}"
        );
        if version >= 4 {
            assert!(
                env.export().contains("\"rating\":{\"useful\":2"),
                "schema {version}"
            );
        }
        env.ok(&["put", "A note written after the upgrade.", "--id", "after"]);
        assert_eq!(env.all_ids().len(), 3, "schema {version}");
        assert!(env.ok(&["check"]).starts_with("ok: "), "schema {version}");
    }
}

#[test]
fn a_store_of_a_newer_keep_is_refused_and_left_as_it_was() {
    let env = Env::new();
    if env.on_postgres() {
        env.ok(&["put", "A note.", "--id", "n"]);
        env.sql("INSERT INTO keep_schema (version) VALUES (99)");
        let stderr = env.fails(&["list"], 2);
        assert!(
            stderr.contains("written by a newer keep (schema 99, this build knows "),
            "{stderr}"
        );
        return;
    }
    store_from(&env, 4);
    let db = env.store().join("keep.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    for args in [
        &["list"][..],
        &["put", "x", "--id", "x"],
        &["check"],
        &["repair"],
    ] {
        let stderr = env.fails(args, 2);
        assert!(
            stderr.contains(&format!(
                "was written by a newer keep (schema 99, this build knows {})",
                migrations().len()
            )),
            "{args:?}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    assert!(std::fs::read(&db).unwrap() == before, "not a byte changed");
}

#[test]
fn a_postgresql_store_of_schema_1_migrates_and_passes_check() {
    let env = Env::new();
    if !env.on_postgres() {
        return;
    }
    let first = std::fs::read_to_string(
        repo_root().join("crates/keep-store/src/postgres/migrations/0001_init.sql"),
    )
    .unwrap();
    env.sql(&format!(
        "CREATE EXTENSION IF NOT EXISTS vector;
         {first}
         CREATE TABLE keep_schema
             (version bigint PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now());
         INSERT INTO keep_schema (version) VALUES (1);
         INSERT INTO notes (id, summary, created, updated, accessed, words) VALUES
           ('harbour', 'The harbour lighthouse is lit at six.', 1790000000000, 1790000000000,
            1790000000000, to_tsvector('english', keep_words('The harbour lighthouse is lit at six.')));"
    ));
    assert!(env.ok(&["check"]).starts_with("ok: "));
    assert_eq!(
        env.sql_count("SELECT max(version) FROM keep_schema"),
        postgres_migrations() as i64,
        "migrated"
    );
    assert_eq!(
        env.sql_count("SELECT words_length::bigint FROM notes WHERE id = 'harbour'"),
        7,
        "a note's length in words, for BM25"
    );
    let found = env.ok(&["find", "--mode", "keyword", "lighthouse", "--ids"]);
    assert_eq!(found.trim(), "harbour");
    env.ok(&["put", "Jörg keeps the lamp.", "--id", "keeper"]);
    let found = env.ok(&["find", "--mode", "keyword", "Jörg", "--ids"]);
    assert_eq!(
        found.trim(),
        "keeper",
        "words beyond ASCII after the migration"
    );
}

#[test]
fn a_postgresql_vector_index_of_full_precision_is_made_again_over_half_precision_copies() {
    let env = Env::with_model();
    if !env.on_postgres() {
        return;
    }
    let lighthouse = env.put("The harbour lighthouse is lit at six.", &[]);
    env.put("Bread rises overnight in a cool kitchen.", &[]);
    let half = "SELECT count(*) FROM pg_indexes
                WHERE indexname = 'vec_notes_hnsw' AND indexdef LIKE '%halfvec(384)%'";
    assert_eq!(env.sql_count(half), 1, "a new store's index");
    env.sql(
        "DROP INDEX vec_notes_hnsw;
         CREATE INDEX vec_notes_hnsw ON vec_notes
             USING hnsw ((embedding::vector(384)) vector_cosine_ops);
         DELETE FROM keep_schema WHERE version >= 10;",
    );
    assert_eq!(env.sql_count(half), 0);
    let found = env.ok(&[
        "find",
        "--mode",
        "semantic",
        "lamp by the sea",
        "--ids",
        "-n",
        "1",
    ]);
    assert_eq!(found.trim(), lighthouse);
    assert_eq!(env.sql_count(half), 1, "made again by the migration");
    assert!(env.ok(&["check"]).starts_with("ok: "));
}
