//! export and import: lossless round trip, validation, atomicity.

use crate::common::Env;

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
    env
}

#[test]
fn export_import_export_is_identical() {
    let env = populated();
    let first = env.export();
    assert!(first.starts_with("{\"format\":\"keep-export\",\"version\":1}\n"));
    assert_eq!(first.lines().count(), 1 + 7);
    let target = Env::new();
    std::fs::write(target.path("dump.jsonl"), &first).unwrap();
    assert_eq!(
        target.ok(&["import", "dump.jsonl"]),
        "imported 7 note(s); 0 already present and skipped\n"
    );
    assert_eq!(target.export(), first);
    // The imported notes are searchable and keep their edges and history.
    assert_eq!(target.ok(&["find", "alice", "--ids"]).lines().count(), 1);
    assert!(target.ok(&["get", "bob"]).contains("mentioned-in"));
    assert_eq!(target.json(&["get", "doc@V{1}"])[0]["summary"], "one");
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
    assert_eq!(target.export(), text);
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
        "imported 0 note(s); 7 already present and skipped\n"
    );
    assert_eq!(env.export(), dump);
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
