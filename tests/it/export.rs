//! export and import: lossless round trip, validation, atomicity.

use crate::common::Env;

/// An export's header and note lines, without its log.
fn notes_of(export: &str) -> String {
    export
        .lines()
        .filter(|l| !l.starts_with(r#"{"operation""#))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// An export's log entries, oldest first.
fn log_of(export: &str) -> Vec<serde_json::Value> {
    export
        .lines()
        .filter(|l| l.starts_with(r#"{"operation""#))
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["operation"].clone())
        .collect()
}

/// `after` has `before`'s notes, and its log is `before`'s followed by one
/// `import` entry for each of them.
fn same_notes_and_log_plus_import(before: &str, after: &str) {
    assert_eq!(notes_of(after), notes_of(before));
    let (old, new) = (log_of(before), log_of(after));
    assert!(!old.is_empty(), "the export carries the log");
    assert_eq!(new[..old.len()], old[..], "the log travels unchanged");
    let added = &new[old.len()..];
    assert_eq!(added.len(), notes_of(before).lines().count() - 1);
    assert!(added.iter().all(|e| e["op"] == "import"), "{added:?}");
}

fn populated() -> Env {
    let mut env = Env::new();
    env.ok(&["put", "one", "--id", "doc", "-t", "stage=1"]);
    env.at("2026-11-22T11:00:00Z");
    env.ok(&["put", "two", "--id", "doc", "-t", "stage=2"]);
    env.put("a note by alice", &["author=alice", "topic=a", "topic=b"]);
    env.ok(&[
        "put",
        "declares",
        "--id",
        ".tag/mentions",
        "-t",
        "_inverse=mentioned-in",
    ]);
    env.put("mentions bob", &["mentions=bob"]);
    env.ok(&["now", "working"]);
    env.ok(&["get", "doc"]);
    env.ok(&["rate", "doc", "useful"]);
    env.ok(&["rate", "doc", "useful"]);
    env.ok(&["rate", "doc", "wrong"]);
    env
}

#[test]
fn export_import_export_is_identical() {
    let env = populated();
    let first = env.export();
    assert!(first.starts_with("{\"format\":\"keep-export\",\"version\":4}\n"));
    assert_eq!(notes_of(&first).lines().count(), 1 + 7);
    let target = Env::new();
    std::fs::write(target.path("dump.jsonl"), &first).unwrap();
    assert_eq!(
        target.ok(&["import", "dump.jsonl"]),
        "imported 7 note(s) with 6 log entries; 0 already present and skipped; 0 vector(s) loaded, 6 waiting for embedding\n"
    );
    same_notes_and_log_plus_import(&first, &target.export());
    // The imported notes are searchable and keep their edges and history.
    // The note by alice, and alice's own (the stub her edge made), found
    // by its name.
    let found = target.ok(&["find", "alice", "--ids"]);
    assert_eq!(found.lines().count(), 2, "{found}");
    assert!(found.lines().any(|id| id == "alice"), "{found}");
    assert!(target.ok(&["get", "bob"]).contains("mentioned-in"));
    assert_eq!(target.json(&["get", "doc@V{1}"])[0]["summary"], "one");
}

#[test]
fn every_field_of_every_note_survives_a_round_trip() {
    let env = populated();
    let dump = env.export();
    assert!(dump.contains(r#""rating":{"useful":2,"wrong":1"#), "{dump}");
    let target = Env::new();
    target.ok_stdin(&["import", "-"], &dump);
    let ids = env.all_ids();
    assert_eq!(target.all_ids(), ids);
    for id in &ids {
        let history = ["get", "--history", id.as_str()];
        assert_eq!(env.json(&history), target.json(&history), "{id}");
    }
    let mut args = vec!["get"];
    args.extend(ids.iter().map(String::as_str));
    let (mut before, mut after) = (env.json(&args), target.json(&args));
    // Reading records an access; both reads happen at the same clock.
    assert_eq!(before, after);
    let rated = before
        .as_array_mut()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "doc")
        .cloned()
        .unwrap();
    assert_eq!(
        rated["rating"],
        serde_json::json!({"useful": 2, "wrong": 1})
    );
    after = target.json(&["get", "doc"]);
    assert_eq!(after[0]["rating"]["useful"], 2);
    // A file of the first export format (no event times) still imports.
    let old = without_event_times(&dump)
        .replacen(r#""version":4"#, r#""version":1"#, 1)
        .lines()
        .filter(|l| !l.starts_with(r#"{"operation""#))
        .map(|l| match l.find(r#","rating":"#) {
            Some(i) => format!("{}}}", &l[..i]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let older = Env::new();
    older.ok_stdin(&["import", "-"], &old);
    assert_eq!(older.all_ids(), ids);
    let doc = &older.json(&["get", "doc"])[0];
    // Without event times, each state began when it was written, the
    // first when the note was created.
    assert_eq!(doc["at"], doc["updated"]);
    let oldest = doc["versions"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(oldest["at"], doc["created"]);
}

#[test]
fn export_to_a_file_and_import_from_stdin() {
    let env = populated();
    let out = env.run(&["export", "dump.jsonl"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "exported 7 note(s) to dump.jsonl\n"
    );
    let text = std::fs::read_to_string(env.path("dump.jsonl")).unwrap();
    assert_eq!(text, env.export());
    let target = Env::new();
    let report = target.json_stdin(&["import", "-"], &text);
    assert_eq!(report["imported"], 7);
    same_notes_and_log_plus_import(&text, &target.export());
}

#[test]
fn an_export_read_from_a_pipe_named_as_the_file_imports() {
    let env = populated();
    let text = env.export();
    let target = Env::new();
    let fifo = target.path("export.pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let writer = {
        let fifo = fifo.clone();
        let text = text.clone();
        std::thread::spawn(move || std::fs::write(fifo, text).unwrap())
    };
    let report = target.json(&["import", fifo.to_str().unwrap()]);
    writer.join().unwrap();
    assert_eq!(report["imported"], 7);
    same_notes_and_log_plus_import(&text, &target.export());
}

#[test]
fn importing_again_skips_existing_notes() {
    let env = populated();
    let dump = env.export();
    std::fs::write(env.path("dump.jsonl"), &dump).unwrap();
    let out = env.run(&["import", "dump.jsonl"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "imported 0 note(s); 7 already present and skipped; 0 vector(s) loaded, 0 waiting for embedding\n"
    );
    assert_eq!(env.export(), dump);
}

#[test]
fn the_log_travels_with_its_agents_and_a_purged_notes_entries() {
    let env = populated();
    env.ok(&["put", "short-lived", "--id", "gone"]);
    env.ok(&["del", "gone", "--purge"]);
    let dump = env.export();
    let log = log_of(&dump);
    assert!(
        log.iter()
            .any(|e| e["note"] == "gone" && e["op"] == "purge"),
        "{log:?}"
    );
    assert!(log.iter().all(|e| e["agent"] == "cli"), "{log:?}");
    let target = Env::new();
    target.ok(&["put", "already here", "--id", "doc"]);
    let out = target.ok_stdin(&["import", "-"], &dump);
    assert!(out.contains("; 1 already present"), "{out}");
    let entries = target.json(&["log", "-n", "100"]);
    let of = |note: &str| {
        entries
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["note"] == note)
            .map(|e| e["op"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        of("gone"),
        ["purge", "create"],
        "a purged note's history comes along"
    );
    assert_eq!(
        of("doc"),
        ["create"],
        "a note the store has keeps its own history"
    );
    assert_eq!(
        log_of(&target.export()).len(),
        log.iter().filter(|e| e["note"] != "doc").count() + 1 + 6,
        "the file's entries (not doc's), doc's own, one import per note imported"
    );

    let bad = dump.replacen(r#""op":"create""#, r#""op":"explode""#, 1);
    let line = bad.lines().position(|l| l.contains("explode")).unwrap() + 1;
    let fresh = Env::new();
    std::fs::write(fresh.path("bad.jsonl"), &bad).unwrap();
    assert_eq!(
        fresh.fails(&["import", "bad.jsonl"], 2),
        format!("keep: bad.jsonl:{line}: 'explode' is not an operation keep logs\n")
    );
    assert!(fresh.all_ids().is_empty());
}

#[test]
fn a_bad_line_stops_the_import_before_anything_is_written() {
    let env = populated();
    let mut lines: Vec<String> = env.export().lines().map(String::from).collect();
    lines[3] = "{\"id\": 5}".into();
    let target = Env::new();
    std::fs::write(target.path("bad.jsonl"), lines.join("\n")).unwrap();
    let err = target.fails(&["import", "bad.jsonl"], 2);
    assert!(err.starts_with("keep: bad.jsonl:4: "), "{err}");
    assert!(target.all_ids().is_empty());
    std::fs::write(target.path("notexport.jsonl"), "{\"hello\":1}\n").unwrap();
    assert_eq!(
        target.fails(&["import", "notexport.jsonl"], 2),
        "keep: notexport.jsonl:1: not a keep export header\n"
    );
    target.fails(&["import", "missing.jsonl"], 2);
}

/// A store with vectors from the real model: short notes, a note with an
/// archived version, and a long document with parts.
fn embedded() -> Env {
    let env = Env::with_model();
    env.put(
        "The lighthouse keeper logs the tides every morning.",
        &["topic=sea"],
    );
    env.ok(&["put", "Draft of the harbour plan.", "--id", "plan"]);
    env.ok(&[
        "put",
        "Final harbour plan with the new pier.",
        "--id",
        "plan",
    ]);
    let long: String = (0..60)
        .map(|i| format!("Paragraph {i} tells how ships are loaded and unloaded at the quay.\n\n"))
        .collect();
    let file = env.path("long.md");
    std::fs::write(&file, format!("# Quay work\n\n{long}")).unwrap();
    env.ok(&["put", file.to_str().unwrap()]);
    env.ok(&["reindex"]);
    env
}

/// The number in "... N waiting for embedding".
fn waiting_after_import(out: &str) -> usize {
    out.strip_suffix(" waiting for embedding\n")
        .and_then(|rest| rest.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no waiting count in {out:?}"))
}

#[test]
fn a_store_moves_between_sqlite_and_postgres_and_back_byte_identically() {
    let source = embedded();
    let first = source.export();
    let mut other = Env::on(!source.on_postgres());
    let out = other.ok_stdin(&["import", "-"], &first);
    assert_eq!(waiting_after_import(&out), 0, "{out}");
    let moved = other.export();
    same_notes_and_log_plus_import(&first, &moved);
    let back = Env::on(source.on_postgres());
    back.ok_stdin(&["import", "-"], &moved);
    same_notes_and_log_plus_import(&moved, &back.export());
    other.install_model();
    let hits = other.json(&["find", "when does the keeper record the tide"]);
    assert_eq!(hits[0]["vector_rank"], 1, "{hits}");
}

#[test]
fn vectors_travel_with_an_export_and_need_no_embedding_after_import() {
    let source = embedded();
    let first = source.export();
    let header = first.lines().next().unwrap();
    assert!(
        header.starts_with(
            r#"{"format":"keep-export","version":4,"vectors":{"model":"all-MiniLM-L6-v2"#
        ),
        "{header}"
    );
    assert!(
        notes_of(&first)
            .lines()
            .skip(1)
            .all(|l| l.contains(r#""vector":""#))
    );
    assert!(
        first.contains(r#""parts":[{"number":1"#),
        "a long note with parts"
    );

    // Imported without any model: the vectors are there, nothing waits.
    let mut copy = Env::new();
    let out = copy.ok_stdin(&["import", "-"], &first);
    assert_eq!(waiting_after_import(&out), 0, "{out}");
    if copy.on_postgres() {
        assert_eq!(
            copy.sql_count("SELECT count(*) FROM pg_indexes WHERE indexname LIKE '%hnsw'"),
            3,
            "the nearest-neighbour indexes are built once the vectors are in"
        );
    }
    same_notes_and_log_plus_import(&first, &copy.export());
    copy.install_model();
    let found = copy.run(&["find", "when does the keeper record the tide", "--json"]);
    let stderr = String::from_utf8_lossy(&found.stderr);
    assert!(!stderr.contains("wait for embeddings"), "{stderr}");
    let hits: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(hits[0]["vector_rank"], 1, "{hits}");

    let bare = source.ok(&["export", "--no-vectors"]);
    assert_eq!(
        bare.lines().next().unwrap(),
        r#"{"format":"keep-export","version":4}"#
    );
    assert!(!bare.contains(r#""vector":"#));
}

#[test]
fn a_bad_vector_is_refused_and_its_note_still_imported_and_queued() {
    let source = embedded();
    let export = source.export();
    let plan = export
        .lines()
        .find(|l| l.contains(r#""id":"plan""#))
        .unwrap();
    let value: serde_json::Value = serde_json::from_str(plan).unwrap();
    let vector = value["vector"].as_str().unwrap();
    let truncated = export.replacen(vector, &vector[..vector.len() / 2], 1);

    let target = Env::with_model();
    let out = target.run_with_stdin(&["import", "-"], truncated.as_bytes());
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("vector of 'plan' refused") && stderr.contains("waits for embedding"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(
        waiting_after_import(&String::from_utf8_lossy(&out.stdout)),
        1
    );
    assert!(target.ok(&["get", "plan"]).contains("Final harbour plan"));
    let reindex = target.ok(&["reindex"]);
    assert!(reindex.starts_with("1 embedded"), "{reindex}");
}

#[test]
fn vectors_of_another_model_are_refused_and_every_note_queued() {
    let source = embedded();
    let export = source.export();
    let other = export.replacen(
        r#""vectors":{"model":"all-MiniLM-L6-v2"#,
        r#""vectors":{"model":"another-model"#,
        1,
    );
    let target = Env::with_model();
    target.put("A note that gives this store its own vectors.", &[]);
    target.ok(&["reindex"]);
    let out = target.run_with_stdin(&["import", "-"], other.as_bytes());
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("vectors not loaded: they were made by another-model"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(" 0 vector(s) loaded"), "{stdout}");
    assert!(waiting_after_import(&stdout) > 3, "{stdout}");
}

/// An export of `n` notes named `note-I`, each with a word of its own.
fn export_of(n: usize) -> String {
    let mut out = String::from("{\"format\":\"keep-export\",\"version\":4}\n");
    for i in 0..n {
        out.push_str(&format!(
            "{{\"id\":\"note-{i}\",\"summary\":\"word{i} in a note of many\",\"tags\":{{}},\
             \"created\":\"2026-01-01T00:00:00.000Z\",\"updated\":\"2026-01-01T00:00:00.000Z\",\
             \"accessed\":\"2026-01-01T00:00:00.000Z\",\"versions\":[],\"parts\":[]}}\n"
        ));
    }
    out
}

/// An export of `n` notes named `deep-I`, each with two archived
/// versions, two parts and a log line of its own.
fn export_with_history(n: usize) -> String {
    let at = "2026-01-01T00:00:00.000Z";
    let mut out = String::from("{\"format\":\"keep-export\",\"version\":4}\n");
    for i in 0..n {
        let note = serde_json::json!({
            "id": format!("deep-{i}"), "summary": format!("now of deep {i}"),
            "tags": {"n": [i.to_string()]}, "created": at, "updated": at, "accessed": at,
            "versions": [
                {"summary": format!("first of deep {i}"), "tags": {}, "created": at, "updated": at},
                {"summary": format!("second of deep {i}"), "tags": {}, "created": at, "updated": at},
            ],
            "parts": [
                {"number": 1, "summary": format!("part one of deep {i}")},
                {"number": 2, "summary": format!("part two of deep {i}")},
            ],
        });
        let log = serde_json::json!({"operation": {
            "at": at, "agent": "elsewhere", "op": "create", "note": format!("deep-{i}"), "version": 1,
        }});
        out.push_str(&format!("{log}\n{note}\n"));
    }
    out
}

#[test]
fn many_notes_import_with_their_versions_parts_and_log_in_place() {
    let env = Env::new();
    std::fs::write(env.path("deep.jsonl"), export_with_history(1_300)).unwrap();
    let out = env.ok(&["import", "deep.jsonl"]);
    assert!(
        out.starts_with("imported 1300 note(s) with 1300 log entries;"),
        "{out}"
    );
    // Past every chunk of rows a statement takes: each row under its own note.
    for i in [0, 499, 500, 999, 1_000, 1_299] {
        let text = |selector: &str| env.ok(&["get", &format!("deep-{i}{selector}")]);
        assert!(text("").contains(&format!("now of deep {i}")));
        assert!(text("@V{1}").contains(&format!("second of deep {i}")));
        assert!(text("@V{2}").contains(&format!("first of deep {i}")));
        assert!(text("@P{1}").contains(&format!("part one of deep {i}")));
        assert!(text("@P{2}").contains(&format!("part two of deep {i}")));
        assert_eq!(
            env.ok(&["list", "-t", &format!("n={i}"), "--ids"]).trim(),
            format!("deep-{i}")
        );
        let log = env.json(&["log", &format!("deep-{i}")]);
        let ops: Vec<(&str, &str)> = log
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["agent"].as_str().unwrap(), e["op"].as_str().unwrap()))
            .collect();
        assert_eq!(
            ops,
            [("cli", "import"), ("elsewhere", "create")],
            "deep-{i}"
        );
    }
    let again = env.ok(&["import", "deep.jsonl"]);
    assert!(again.contains("1300 already present"), "{again}");
    assert_eq!(env.json(&["log", "deep-7"]).as_array().unwrap().len(), 2);
}

#[test]
fn an_import_leaves_its_word_totals_compact() {
    let env = Env::new();
    std::fs::write(env.path("many.jsonl"), export_of(3_000)).unwrap();
    assert!(
        env.ok(&["import", "many.jsonl"])
            .starts_with("imported 3000 note(s);")
    );
    if env.on_postgres() {
        // Each imported text added a row of changes that its commit
        // folded away; left dead, every later write read them.
        let bytes = env.sql_count("SELECT pg_relation_size('text_totals')");
        assert!(bytes <= 16_384, "word totals of {bytes} bytes");
    }
    let found = env.ok(&["find", "--mode", "keyword", "word2999", "--ids"]);
    assert_eq!(found.trim(), "note-2999");
}

/// An export without its event times (`"at":"..."`), as formats before
/// version 4 wrote it.
fn without_event_times(dump: &str) -> String {
    let mut out = String::with_capacity(dump.len());
    let mut rest = dump;
    while let Some(i) = rest.find(r#","at":""#) {
        out.push_str(&rest[..i]);
        let after = &rest[i + 7..];
        let end = after.find('"').expect("a closing quote");
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// An export of `n` notes whose every hundredth links to a note that
/// comes later in the file (a stub until the import reaches it), with a
/// log entry for each note.
fn linked_export_of(n: usize) -> String {
    let mut out = String::from("{\"format\":\"keep-export\",\"version\":4}\n");
    for i in 0..n {
        let tags = if i % 100 == 0 && i + 1_500 < n {
            format!("{{\"references\":[\"note-{:05}\"]}}", i + 1_500)
        } else {
            "{}".to_string()
        };
        out.push_str(&format!(
            "{{\"id\":\"note-{i:05}\",\"summary\":\"word{i} in a note of many\",\"tags\":{tags},\
             \"created\":\"2026-01-01T00:00:00.000Z\",\"updated\":\"2026-01-01T00:00:00.000Z\",\
             \"accessed\":\"2026-01-01T00:00:00.000Z\",\"versions\":[],\"parts\":[]}}\n"
        ));
    }
    for i in 0..n {
        out.push_str(&format!(
            "{{\"operation\":{{\"at\":\"2026-01-01T00:00:00.000Z\",\"agent\":\"alice\",\
             \"op\":\"create\",\"note\":\"note-{i:05}\",\"version\":1}}}}\n"
        ));
    }
    out
}

#[test]
fn an_import_killed_part_way_is_completed_by_running_it_again() {
    const NOTES: usize = 15_000;
    let whole = Env::new();
    std::fs::write(whole.path("many.jsonl"), linked_export_of(NOTES)).unwrap();
    whole.ok(&["import", "many.jsonl"]);
    let expected = whole.export();

    let env = Env::new();
    std::fs::write(env.path("many.jsonl"), linked_export_of(NOTES)).unwrap();
    env.ok(&["list"]);
    let notes = || env.sql_count("SELECT count(*) FROM notes");
    let mut child = env
        .cmd(&["import", "many.jsonl"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while notes() == 0 && started.elapsed() < std::time::Duration::from_secs(120) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let left = notes();
    assert!(
        left > 0 && left < NOTES as i64,
        "the import was stopped with {left} of {NOTES} notes in"
    );
    env.ok(&["check"]);

    let out = env.run(&["import", "many.jsonl"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("an earlier import of this file stopped part way"),
        "{stderr}"
    );
    // The same notes, links and log as one uninterrupted import: the
    // file's log once, then one import entry per note.
    let done = env.export();
    assert_eq!(notes_of(&done), notes_of(&expected));
    assert_eq!(log_of(&done).len(), log_of(&expected).len());
    let (got, want) = (log_of(&done), log_of(&expected));
    let without_time = |entries: &[serde_json::Value]| -> Vec<(String, String, String)> {
        entries
            .iter()
            .map(|e| {
                (
                    e["op"].to_string(),
                    e["note"].to_string(),
                    e["agent"].to_string(),
                )
            })
            .collect()
    };
    assert_eq!(without_time(&got), without_time(&want));
    assert!(
        env.ok(&["import", "many.jsonl"])
            .starts_with(&format!("imported 0 note(s); {NOTES} already present")),
        "a third import finds everything in"
    );
    assert_eq!(log_of(&env.export()).len(), log_of(&expected).len());
}
