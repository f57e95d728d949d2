//! tag, del and revert semantics.

use crate::common::Env;

#[test]
fn tag_adds_and_removes_values_and_versions_each_change() {
    let mut env = Env::new();
    let id = env.put("hello world", &["topic=a", "topic=b", "status=draft"]);
    env.at("2026-11-22T11:00:00Z");
    assert_eq!(
        env.ok(&["tag", &id, "-t", "topic=c"]),
        format!("{id}  updated\n")
    );
    assert_eq!(
        env.ok(&["tag", &id, "-t", "topic=c"]),
        format!("{id}  unchanged\n")
    );
    env.ok(&[
        "tag",
        &id,
        "--remove-value",
        "topic=a",
        "--remove",
        "status",
    ]);
    let note = &env.json(&["get", &id])[0];
    assert_eq!(note["tags"]["topic"], serde_json::json!(["b", "c"]));
    assert!(note["tags"].get("status").is_none());
    assert_eq!(note["versions"].as_array().unwrap().len(), 2);
    assert_eq!(
        note["versions"][0]["tags"]["topic"],
        serde_json::json!(["a", "b", "c"])
    );
}

#[test]
fn tag_refuses_system_keys_and_reports_unknown_ids() {
    let env = Env::new();
    let id = env.put("hello world", &[]);
    let before = env.export();
    assert_eq!(
        env.fails(&["tag", &id, "-t", "_source=me"], 2),
        "keep: bad tag '_source=me': keys starting with '_' are set by keep, not by users\n"
    );
    assert_eq!(
        env.fails(&["tag", &id, "--remove", "_source"], 2),
        "keep: cannot remove '_source': keys starting with '_' are managed by keep\n"
    );
    env.fails(&["tag", &id, "-t", "novalue"], 2);
    env.fails(&["tag", &id], 2);
    assert_eq!(env.export(), before);
    let out = env.run(&["tag", "missing", &id, "-t", "k=v"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "keep: no note 'missing'\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{id}  updated\n")
    );
    env.fails(&["tag", &format!("{id}@V{{1}}"), "-t", "k=v"], 2);
}

#[test]
fn del_puts_a_note_in_the_trash_and_restore_brings_it_back_as_it_was() {
    let mut env = Env::new();
    let id = env.put("hello world", &["author=alice"]);
    env.put("hello world", &["topic=x"]);
    let other = env.put("another note", &[]);
    let before = env.json(&["get", &id])[0].clone();
    env.at("2026-11-22T11:00:00Z");
    assert_eq!(
        env.ok(&["del", &id, "--reason", "said twice"]),
        format!("moved {id} to the trash (keep restore {id} brings it back)\n")
    );
    // Out of listings, recall and the author's edges...
    assert_eq!(env.ok(&["list", "--ids"]), format!("{other}\n"));
    assert!(env.ok(&["find", "hello"]).is_empty());
    env.fails(&["get", "alice"], 1);
    // ...but kept, with when and why, and said to be in the trash.
    assert_eq!(env.ok(&["list", "--deleted", "--ids"]), format!("{id}\n"));
    let out = env.run(&["get", &id]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "keep: '{id}' is in the trash since 2026-11-22T11:00:00.000Z (said twice); keep restore {id} brings it back\n"
        )
    );
    let trashed = env.json(&["get", &id])[0].clone();
    assert_eq!(trashed["tags"]["_deleted_reason"][0], "said twice");
    let err = env.fails(&["del", &id], 2);
    assert!(err.contains("already in the trash"), "{err}");

    env.at("2026-11-22T12:00:00Z");
    assert_eq!(env.ok(&["restore", &id]), format!("restored {id}\n"));
    let back = env.json(&["get", &id])[0].clone();
    assert_eq!(back["summary"], before["summary"]);
    assert_eq!(back["tags"], before["tags"], "as it was");
    assert_eq!(
        env.json(&["get", "alice"])[0]["inverse_edges"][0]["source"],
        id.as_str(),
        "its edges are back"
    );
    assert_eq!(env.json(&["find", "hello"])[0]["id"], id.as_str());
    let history = env.ok(&["get", &id, "--history"]);
    assert_eq!(
        history.lines().count(),
        4,
        "deleted and restored, in its history: {history}"
    );
    let err = env.fails(&["restore", &id], 2);
    assert!(err.contains("is not in the trash"), "{err}");
    env.fails(&["restore", "nope"], 1);

    // An odd id is quoted for the shell; a reason of several lines is kept
    // as one, as listings and the log show it.
    env.ok(&["put", "spare key", "--id", "it's odd"]);
    assert_eq!(
        env.ok(&["del", "it's odd", "--reason", "found\n  the   other"]),
        "moved it's odd to the trash (keep restore 'it'\\''s odd' brings it back)\n"
    );
    assert_eq!(
        env.json(&["get", "it's odd"])[0]["tags"]["_deleted_reason"][0],
        "found the other"
    );
}

#[test]
fn the_trash_empties_itself_after_trash_days() {
    let mut env = Env::new();
    let old = env.put("an old draft", &[]);
    let recent = env.put("a recent draft", &[]);
    env.at("2026-11-01T10:00:00Z");
    env.ok(&["del", &old]);
    env.at("2026-11-25T10:00:00Z");
    env.ok(&["del", &recent]);
    std::fs::write(env.path("config.toml"), "trash_days = 7\n").unwrap();
    let third = env.put("a third draft", &[]);
    env.ok(&["del", &third]);
    assert_eq!(
        env.ok(&["list", "--deleted", "--ids", "--sort", "id"])
            .lines()
            .count(),
        2,
        "the one deleted 24 days before went for good"
    );
    env.fails(&["get", &old], 1);
    std::fs::write(env.path("config.toml"), "trash_days = 0\n").unwrap();
    let fourth = env.put("a fourth draft", &[]);
    let out = env.ok(&["del", &fourth]);
    assert!(out.starts_with(&format!("deleted {fourth}")), "{out}");
    env.fails(&["get", &fourth], 1);
    std::fs::write(env.path("config.toml"), "trash_days = -1\n").unwrap();
    let err = env.fails(&["list"], 2);
    assert!(err.contains("trash_days = -1"), "{err}");
    // A value of the wrong type names the file, its line, the key and the
    // type it should be.
    std::fs::write(
        env.path("config.toml"),
        "trash_days = 7\nhalf_life_days = \"ten\"\n",
    )
    .unwrap();
    let err = env.fails(&["list"], 2);
    assert_eq!(
        err,
        format!(
            "keep: {}: line 2, half_life_days: invalid type: string \"ten\", expected a number\n",
            env.path("config.toml").display()
        )
    );
}

#[test]
fn del_purge_removes_the_note_with_history_and_edges() {
    let env = Env::new();
    let id = env.put("hello world", &["author=alice"]);
    env.put("hello world", &["topic=x"]);
    let keep = env.put("another note", &[]);
    assert_eq!(
        env.ok(&["del", "--purge", &id]),
        format!("deleted {id} (with 1 archived version(s))\n")
    );
    env.fails(&["get", &id], 1);
    assert!(env.ok(&["find", "hello"]).is_empty());
    // The stub made for the edge went with the last note pointing to it.
    env.fails(&["get", "alice"], 1);
    assert_eq!(env.all_ids(), [keep]);
}

#[test]
fn del_of_a_version_keeps_the_rest() {
    let mut env = Env::new();
    env.ok(&["put", "one", "--id", "doc"]);
    env.at("2026-11-22T11:00:00Z");
    env.ok(&["put", "two", "--id", "doc"]);
    env.at("2026-11-22T12:00:00Z");
    env.ok(&["put", "three", "--id", "doc"]);
    assert_eq!(env.ok(&["del", "doc@V{-1}"]), "deleted doc@V{2}\n");
    assert_eq!(
        env.ok(&["get", "doc", "--history"]),
        "doc@V{0}  2026-11-22 12:00  three  [content; summary]\n\
         doc@V{1}  2026-11-22 11:00  two  [created]\n"
    );
    let err = env.fails(&["del", "doc@V{0}"], 2);
    assert!(err.contains("is the current version"), "{err}");
    env.fails(&["del", "doc@V{5}"], 2);
    assert_eq!(env.json(&["get", "doc"])[0]["summary"], "three");
}

#[test]
fn del_reports_unknown_ids_and_deletes_the_rest() {
    let env = Env::new();
    let a = env.put("alpha", &[]);
    let out = env.run(&["del", "nope", &a]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "keep: no note 'nope'\n"
    );
    assert!(env.ok(&["list", "--ids"]).is_empty());
    assert_eq!(env.ok(&["list", "--deleted", "--ids"]), format!("{a}\n"));
}

#[test]
fn revert_restores_the_previous_version_then_refuses_unless_asked_to_delete() {
    let mut env = Env::new();
    env.ok(&["put", "one", "--id", "doc", "-t", "stage=1"]);
    env.at("2026-11-22T11:00:00Z");
    env.ok(&["put", "two", "--id", "doc", "-t", "stage=2"]);
    assert_eq!(
        env.ok(&["revert", "doc"]),
        "reverted doc to its previous version (0 archived version(s) left)\n"
    );
    let note = &env.json(&["get", "doc"])[0];
    assert_eq!(note["summary"], "one");
    assert_eq!(note["tags"]["stage"], serde_json::json!(["1"]));
    assert_eq!(note["updated"], "2026-11-22T10:00:00.000Z");
    assert!(env.ok(&["find", "two"]).is_empty());
    assert_eq!(env.ok(&["find", "one", "--ids"]), "doc\n");
    let err = env.fails(&["revert", "doc"], 2);
    assert_eq!(
        err,
        "keep: 'doc' has no earlier version to revert to\n\
         hint: 'keep revert --delete doc' deletes it for good; 'keep del' puts it in the trash\n"
    );
    assert_eq!(
        env.json(&["get", "doc"])[0]["summary"],
        "one",
        "nothing changed"
    );
    assert_eq!(
        env.ok(&["revert", "doc", "--delete"]),
        "deleted doc (it had no previous version)\n"
    );
    env.fails(&["get", "doc"], 1);
    env.fails(&["revert", "doc"], 1);
}

#[test]
fn a_stub_goes_when_the_last_edge_to_it_goes() {
    let env = Env::new();
    let a = env.put("first note by carol", &["author=carol"]);
    let b = env.put("second note by carol", &["author=carol"]);
    env.ok(&["del", "--purge", &a]);
    assert!(
        env.all_ids().contains(&"carol".to_string()),
        "b still points to it"
    );
    env.ok(&["tag", &b, "--remove", "author"]);
    assert_eq!(env.all_ids(), std::slice::from_ref(&b));
    // A note that was written is never a stub, and stays.
    env.put("third note by dan", &["author=dan"]);
    env.ok(&["put", "Dan runs the ops team", "--id", "dan"]);
    let third = env.ok(&["find", "--ids", "--mode", "keyword", "third"]);
    env.ok(&["del", third.trim()]);
    assert!(env.all_ids().contains(&"dan".to_string()));
}
