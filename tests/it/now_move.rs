//! now and move.

use crate::common::Env;

#[test]
fn now_shows_and_replaces_the_working_note() {
    let mut env = Env::new();
    assert_eq!(env.ok(&["now"]), "");
    assert_eq!(env.json(&["now"]), serde_json::Value::Null);
    env.ok(&["now", "Write the store"]);
    env.at("2026-11-22T11:00:00Z");
    let out = env.ok(&["now", "Review the store", "-t", "project=keep"]);
    assert_eq!(
        out,
        "---\nid: now\ntags:\n  _agent: cli\n  _content_type: text/plain\n  _origin: typed\n  _source: inline\n  project: keep\n\
         versions:\n  1: 2026-11-22 10:00  Write the store\n\
         created: 2026-11-22T10:00:00.000Z\nupdated: 2026-11-22T11:00:00.000Z\n---\nReview the store\n"
    );
    assert_eq!(env.ok(&["now"]), out);
    // With no command, keep prints now as well.
    assert_eq!(env.ok(&[]), out);
    env.ok_stdin(&["now", "-"], "from stdin\n");
    assert_eq!(env.json(&["now"])["summary"], "from stdin");
}

#[test]
fn a_named_now_is_its_own_note() {
    let env = Env::new();
    env.ok(&["now", "agent work", "--name", "agent1"]);
    assert_eq!(env.json(&["get", "now:agent1"])[0]["summary"], "agent work");
    assert_eq!(env.ok(&["now"]), "");
    assert_eq!(env.json(&["now", "--name", "agent1"])["id"], "now:agent1");
    env.ok(&["now", "agent2 work", "--name", "agent2"]);
    let moved = env.json(&["move", "done/agent2", "--now-name", "agent2"]);
    assert_eq!(moved["source"], "now:agent2");
}

#[test]
fn the_old_scope_spellings_still_work_and_say_their_new_names() {
    let env = Env::new();
    let out = env.run(&["now", "agent work", "--scope", "agent1"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "keep: now --scope is now --name; the old name goes in keep 0.2.0\n"
    );
    assert_eq!(env.json(&["get", "now:agent1"])[0]["summary"], "agent work");
    let out = env.run(&[
        "find", "agent", "--scope", "now:*", "--mode", "keyword", "--ids",
    ]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "now:agent1\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("find --scope is now --id-pattern"));
    let out = env.run(&["move", "done/agent1", "--scope", "agent1"]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("move --scope is now --now-name"));
    env.fails(&["now", "x", "--scope", "a", "--name", "b"], 2);
}

#[test]
fn move_appends_the_history_of_now_to_a_named_note() {
    let mut env = Env::new();
    env.ok(&["now", "step one"]);
    env.at("2026-11-22T11:00:00Z");
    env.ok(&["now", "step two"]);
    env.at("2026-11-22T12:00:00Z");
    assert_eq!(
        env.ok(&["move", "project-log"]),
        "moved 2 version(s) of now into project-log; nothing was left of now, so it was removed\n"
    );
    assert_eq!(
        env.ok(&["get", "project-log", "--history"]),
        "project-log@V{0}  2026-11-22 11:00  step two  [content; summary]\n\
         project-log@V{1}  2026-11-22 10:00  step one  [created]\n"
    );
    assert_eq!(env.ok(&["now"]), "");
    // Moving more into an existing note archives its current text first.
    env.ok(&["now", "step three"]);
    env.ok(&["move", "project-log"]);
    assert_eq!(
        env.ok(&["get", "project-log", "--history"]),
        "project-log@V{0}  2026-11-22 12:00  step three  [content; summary]\n\
         project-log@V{1}  2026-11-22 11:00  step two  [content; summary]\n\
         project-log@V{2}  2026-11-22 10:00  step one  [created]\n"
    );
}

#[test]
fn move_with_tags_or_only_moves_part_of_the_history() {
    let mut env = Env::new();
    env.ok(&["put", "a1", "--id", "src", "-t", "p=a"]);
    env.at("2026-11-22T11:00:00Z");
    env.ok(&["put", "b1", "--id", "src", "-t", "p=b"]);
    env.at("2026-11-22T12:00:00Z");
    env.ok(&["tag", "src", "--remove", "p", "-t", "p=a"]);
    // States, oldest first: a1 [p=a], b1 [p=a,b], current b1 [p=a].
    let out = env.json(&["move", "dest", "--source", "src", "-t", "p=b"]);
    assert_eq!(out["moved"], 1);
    assert_eq!(out["source_deleted"], false);
    assert_eq!(
        env.json(&["get", "dest"])[0]["tags"]["p"],
        serde_json::json!(["a", "b"])
    );
    assert_eq!(
        env.json(&["get", "src", "--history"])[0]["versions"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let out = env.json(&["move", "dest2", "--source", "src", "--only"]);
    assert_eq!(out["moved"], 1);
    assert_eq!(env.json(&["get", "src"])[0]["summary"], "a1");
    let err = env.fails(&["move", "dest3", "--source", "src", "-t", "p=zzz"], 2);
    assert_eq!(err, "keep: no version of 'src' matches the given tags\n");
    env.fails(&["move", "x", "--source", "missing"], 1);
    env.fails(&["move", "src", "--source", "src"], 2);
}
