//! Memories that stay true, through the binary: near-duplicates merged on
//! put (with the real model), notes superseded by their successors,
//! expiry, and feedback.

use crate::common::Env;

const FACT: &str = "The staging database password rotates every Monday at 9am";
const RESTATED: &str = "Every Monday at 9am the staging DB password is rotated";

fn stderr_of(env: &Env, args: &[&str]) -> (String, String) {
    let out = env.run(args);
    assert!(out.status.success(), "{args:?}: {:?}", out.status);
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn a_restated_fact_is_reported_not_stored_twice() {
    let env = Env::with_model();
    let first = env.put(FACT, &["project=ops"]);
    let (out, err) = stderr_of(&env, &["put", RESTATED, "-t", "project=ops"]);
    assert_eq!(out.trim(), first);
    assert!(err.contains("not stored") && err.contains(&first), "{err}");
    assert_eq!(env.all_ids(), std::slice::from_ref(&first));

    let report = env.json(&["put", RESTATED, "-t", "project=ops"]);
    assert_eq!(report["status"], "duplicate");
    assert_eq!(report["duplicate_of"], first.as_str());
    assert!(report["similarity"].as_f64().unwrap() > 0.9, "{report}");
    assert_eq!(env.all_ids(), std::slice::from_ref(&first));
}

#[test]
fn update_makes_a_restatement_the_next_version() {
    let env = Env::with_model();
    let first = env.put(FACT, &[]);
    let outcome = env.json(&["put", RESTATED, "--update"]);
    assert_eq!(outcome["status"], "updated");
    assert_eq!(outcome["id"], first.as_str());
    assert_eq!(outcome["duplicate_of"], first.as_str());
    let view = &env.json(&["get", &first])[0];
    assert_eq!(view["summary"], RESTATED);
    assert_eq!(view["versions"].as_array().map(Vec::len), Some(1), "{view}");
    assert_eq!(env.all_ids(), [first]);
}

#[test]
fn other_scopes_numbers_and_asking_keep_notes_apart() {
    let env = Env::with_model();
    env.put(FACT, &["project=ops"]);
    // Another project, another number, or asked for: separate notes.
    env.put(RESTATED, &["project=web"]);
    env.put(
        "The staging database password rotates every Monday at 10am",
        &["project=ops"],
    );
    let again = "Staging database passwords rotate each Monday at 9am";
    env.ok(&["put", again, "-t", "project=ops", "--allow-duplicate"]);
    assert_eq!(env.all_ids().len(), 4);
    // Unrelated text is never a duplicate.
    env.put("Buy oat milk on the way home", &["project=ops"]);
    assert_eq!(env.all_ids().len(), 5);
    // Another day, or the same words negated, is another fact.
    env.put(
        "The staging database password rotates every Tuesday at 9am",
        &["project=ops"],
    );
    env.put(
        "The staging database password never rotates on Monday at 9am",
        &["project=ops"],
    );
    assert_eq!(env.all_ids().len(), 7);
}

#[test]
fn without_a_model_text_is_stored_as_before() {
    let env = Env::new();
    env.put(FACT, &[]);
    env.put(RESTATED, &[]);
    assert_eq!(env.all_ids().len(), 2);
}

#[test]
fn a_superseded_note_leaves_recall_but_not_the_store() {
    let env = Env::with_model();
    env.ok(&[
        "put",
        "We deploy with Ansible from the ops repo",
        "--id",
        "deploy-v1",
    ]);
    env.ok(&[
        "put",
        "We deploy with Nix from the infra repo; Ansible is retired",
        "--id",
        "deploy-v2",
        "--supersedes",
        "deploy-v1",
    ]);
    let found = env.ok(&["find", "--ids", "how do we deploy with ansible"]);
    assert_eq!(found.lines().collect::<Vec<_>>(), ["deploy-v2"]);
    let all = env.ok(&[
        "find",
        "--ids",
        "--all-versions",
        "how do we deploy with ansible",
    ]);
    assert_eq!(all.lines().collect::<Vec<_>>(), ["deploy-v2", "deploy-v1"]);
    let keyword = env.ok(&["find", "--ids", "--mode", "keyword", "ansible"]);
    assert_eq!(keyword.trim(), "deploy-v2");

    let old = &env.json(&["get", "deploy-v1"])[0];
    assert_eq!(old["replaced_by"], serde_json::json!(["deploy-v2"]));
    assert!(
        env.ok(&["get", "deploy-v1"])
            .contains("replaced-by: deploy-v2 (current)")
    );
    let new = &env.json(&["get", "deploy-v2"])[0];
    assert_eq!(new["replaces"], serde_json::json!(["deploy-v1"]));
    assert!(env.ok(&["list", "--ids"]).contains("deploy-v1"));
}

#[test]
fn a_chain_of_successors_is_followed() {
    let env = Env::new();
    env.ok(&["put", "Meet in room A", "--id", "room-1"]);
    env.ok(&[
        "put",
        "Meet in room B",
        "--id",
        "room-2",
        "--supersedes",
        "room-1",
    ]);
    env.ok(&[
        "put",
        "Meet in room C",
        "--id",
        "room-3",
        "--supersedes",
        "room-2",
    ]);
    let first = &env.json(&["get", "room-1"])[0];
    assert_eq!(
        first["replaced_by"],
        serde_json::json!(["room-2", "room-3"])
    );
    let last = &env.json(&["get", "room-3"])[0];
    assert_eq!(last["replaces"], serde_json::json!(["room-2", "room-1"]));
    let found = env.ok(&["find", "--ids", "--mode", "keyword", "meet room"]);
    assert_eq!(found.trim(), "room-3");
}

#[test]
fn superseding_a_missing_or_own_note_stores_nothing() {
    let env = Env::new();
    let err = env.fails(&["put", "new fact", "--supersedes", "nosuch"], 1);
    assert_eq!(err.trim(), "keep: no note 'nosuch'");
    let err = env.fails(&["put", "x", "--id", "me", "--supersedes", "me"], 2);
    assert!(err.contains("cannot supersede itself"), "{err}");
    assert!(env.all_ids().is_empty());
}

#[test]
fn an_expired_note_leaves_listings_and_recall_but_stays_readable() {
    let mut env = Env::new();
    let wifi = env.ok(&[
        "put",
        "The guest wifi password is hunter2",
        "--expires",
        "P1D",
    ]);
    let wifi = wifi.trim();
    let keeps = env.put("The guest wifi network is called harbour", &[]);
    assert_eq!(env.ok(&["list", "--ids"]).lines().count(), 2);
    env.at("2026-11-24T10:00:00Z");
    assert_eq!(env.ok(&["list", "--ids"]).trim(), keeps);
    assert_eq!(env.ok(&["list", "--ids", "--expired"]).trim(), wifi);
    assert_eq!(env.ok(&["list", "--ids", "-a"]).lines().count(), 2);
    let found = env.ok(&["find", "--ids", "--mode", "keyword", "wifi password"]);
    assert_eq!(found.trim(), keeps);
    let view = &env.json(&["get", wifi])[0];
    assert_eq!(view["tags"]["_expires"][0], "2026-11-23T10:00:00.000Z");
    assert!(env.export().contains(wifi));
}

#[test]
fn an_expiry_in_the_past_or_garbled_is_refused() {
    let env = Env::new();
    let err = env.fails(&["put", "old", "--expires", "2026-01-01"], 2);
    assert!(err.contains("has already passed"), "{err}");
    let err = env.fails(&["put", "old", "--expires", "soonish"], 2);
    assert!(err.contains("soonish"), "{err}");
    assert!(env.all_ids().is_empty());
}

#[test]
fn ratings_are_counted_and_lift_a_note_within_bounds() {
    let env = Env::new();
    env.ok(&["put", "Harbour report alpha", "--id", "a"]);
    env.ok(&["put", "Harbour report beta", "--id", "b"]);
    let before = env.ok(&["find", "--ids", "--mode", "keyword", "harbour report"]);
    let last = before.lines().last().unwrap().to_string();
    let rated = env.json(&["rate", &last, "useful"]);
    assert_eq!(
        rated,
        serde_json::json!({"id": last, "useful": 1, "wrong": 0})
    );
    let after = env.ok(&["find", "--ids", "--mode", "keyword", "harbour report"]);
    assert_eq!(after.lines().next(), Some(last.as_str()));
    assert!(env.ok(&["get", &last]).contains("rated: 1 useful, 0 wrong"));
    env.ok(&["rate", &last, "wrong"]);
    env.ok(&["rate", &last, "wrong"]);
    assert_eq!(env.json(&["get", &last])[0]["rating"]["wrong"], 2);
    let err = env.fails(&["rate", "nosuch", "useful"], 1);
    assert_eq!(err.trim(), "keep: no note 'nosuch'");
    env.fails(&["rate", "a", "meh"], 2);
}
