//! Memories that stay true, through the binary: near-duplicates merged on
//! put (with the real model), notes superseded by their successors,
//! expiry, and feedback.

use crate::common::Env;

const FACT: &str = "The staging database password rotates every Monday at 9am";
const RESTATED: &str = "Every Monday at 9am the staging DB password is rotated";

/// Runs a put; returns its exit code, stdout and stderr.
fn put_outcome(env: &Env, args: &[&str]) -> (i32, String, String) {
    let out = env.run(args);
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `keep --json put ...`: its exit code and report.
fn put_json(env: &Env, args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["--json", "put"];
    all.extend_from_slice(args);
    let (code, out, err) = put_outcome(env, &all);
    let report = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    (code, report)
}

#[test]
fn a_restated_fact_is_reported_not_stored_twice() {
    let env = Env::with_model();
    let first = env.put(FACT, &["project=ops"]);
    let (code, out, err) = put_outcome(&env, &["put", RESTATED, "-t", "project=ops"]);
    assert_eq!(code, 3, "a put that stores nothing exits 3: {err}");
    assert_eq!(out.trim(), first);
    assert!(err.contains("not stored") && err.contains(&first), "{err}");
    assert_eq!(env.all_ids(), std::slice::from_ref(&first));

    let (code, report) = put_json(&env, &[RESTATED, "-t", "project=ops"]);
    assert_eq!(code, 3);
    assert_eq!(report["status"], "duplicate");
    assert_eq!(report["duplicate_of"], first.as_str());
    assert!(report["similarity"].as_f64().unwrap() > 0.8, "{report}");
    assert_eq!(env.all_ids(), std::slice::from_ref(&first));
}

#[test]
fn facts_that_differ_in_one_detail_are_all_stored() {
    let env = Env::with_model();
    for (old, new) in [
        (
            "The API gateway timeout is 30 seconds.",
            "The API gateway timeout is 30 minutes.",
        ),
        (
            "The design review is in Room 4B.",
            "The design review is in Room 4C.",
        ),
        (
            "The build server's address is 10.0.4.17.",
            "The build server's address is 10.0.4.71.",
        ),
        ("The launch is on 3 October.", "The launch is on 5 October."),
        (
            "Production runs PostgreSQL 15.4.",
            "Production runs PostgreSQL 16.2.",
        ),
        (
            "Ana owns the billing service.",
            "Anna owns the billing service.",
        ),
        (
            "The release branch is frozen.",
            "The release branch is not frozen.",
        ),
    ] {
        let (code, first) = put_json(&env, &[old]);
        assert_eq!(
            (code, first["status"].as_str()),
            (0, Some("created")),
            "{old}: {first}"
        );
        let (code, second) = put_json(&env, &[new]);
        assert_eq!(code, 0, "{new}: {second}");
        assert_eq!(second["status"], "possible_update", "{new}: {second}");
        assert_eq!(second["possible_update_of"], first["id"], "{new}");
        assert_ne!(second["id"], first["id"], "{new}");
        assert!(
            !second["differences"].as_array().unwrap().is_empty(),
            "{second}"
        );
    }
    assert_eq!(env.all_ids().len(), 14);
}

#[test]
fn restatements_in_other_words_and_forms_are_duplicates() {
    let env = Env::with_model();
    for (fact, restated) in [
        (
            "The API gateway timeout is 30 seconds.",
            "API gateway timeout: 30 s",
        ),
        (
            "The launch is on 5 October 2026.",
            "Launch date: 2026-10-05.",
        ),
        (
            "Standup is at 9:30am every weekday.",
            "Every weekday, standup at 09:30.",
        ),
        (FACT, RESTATED),
    ] {
        let first = env.put(fact, &[]);
        let (code, report) = put_json(&env, &[restated]);
        assert_eq!(
            (code, report["status"].as_str()),
            (3, Some("duplicate")),
            "{restated}: {report}"
        );
        assert_eq!(report["duplicate_of"], first.as_str());
    }
    assert_eq!(env.all_ids().len(), 4);
}

#[test]
fn a_probable_update_is_linked_and_accepted_with_one_word() {
    let env = Env::with_model();
    let old = env.put(
        "The guest Wi-Fi password is BlueFalcon-1234.",
        &["place=office"],
    );
    let (code, out, err) = put_outcome(
        &env,
        &[
            "put",
            "The guest Wi-Fi password is now GreenHeron-2288.",
            "-t",
            "place=office",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let new = out.trim().to_string();
    assert!(
        err.contains(&format!("it may update '{old}'"))
            && err.contains(&format!("keep supersede {new}")),
        "{err}"
    );
    assert!(err.contains("BlueFalcon-1234 -> GreenHeron-2288"), "{err}");
    let view = &env.json(&["get", &new])[0];
    assert_eq!(view["tags"]["may-supersede"], serde_json::json!([old]));
    assert!(env.ok(&["get", &old]).contains("may-be-superseded-by"));
    // Both are found until the update is accepted.
    let found = env.ok(&["find", "--ids", "guest wifi password"]);
    assert!(found.contains(&old) && found.contains(&new), "{found}");

    assert_eq!(env.ok(&["supersede", &new]).trim(), new);
    let view = &env.json(&["get", &new])[0];
    assert_eq!(view["tags"]["supersedes"], serde_json::json!([old]));
    assert!(view["tags"].get("may-supersede").is_none(), "{view}");
    let found = env.ok(&["find", "--ids", "guest wifi password"]);
    assert_eq!(found.lines().collect::<Vec<_>>(), [new.as_str()]);
    // Nothing left to accept; a named note can still be superseded.
    let err = env.fails(&["supersede", &new], 2);
    assert!(err.contains("not linked"), "{err}");
    env.fails(&["supersede", &new, "no/such/note"], 1);
}

#[test]
fn update_makes_a_probable_update_the_next_version() {
    let env = Env::with_model();
    let old = env.put("The API gateway timeout is 30 seconds.", &[]);
    let report = env.json(&["put", "The API gateway timeout is 30 minutes.", "--update"]);
    assert_eq!(report["status"], "updated");
    assert_eq!(report["id"], old.as_str());
    assert_eq!(report["possible_update_of"], old.as_str());
    assert_eq!(env.all_ids(), std::slice::from_ref(&old));
    let view = &env.json(&["get", &old])[0];
    assert_eq!(view["summary"], "The API gateway timeout is 30 minutes.");
}

#[test]
fn notes_still_waiting_for_their_vector_are_compared_too() {
    let env = Env::with_model();
    // Stored under a name, so no duplicate check ran and no vector was made.
    env.ok(&["put", FACT, "--id", "ops/rotation"]);
    let (code, report) = put_json(&env, &[RESTATED]);
    assert_eq!(code, 3, "{report}");
    assert_eq!(report["duplicate_of"], "ops/rotation");
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

#[test]
fn conflicts_lists_two_values_for_one_subject_and_supersede_resolves_one() {
    let env = Env::with_model();
    env.ok(&[
        "put",
        "The office wifi password is tern-42",
        "-t",
        "place=office",
    ]);
    let newer = env.put("The office wifi password is puffin-7", &["place=office"]);
    let newer = newer.as_str();
    // Stored with ids (no verdict at put), then embedded: found by the scan.
    env.ok(&[
        "put",
        "The product launch is on March 3",
        "--id",
        "launch-a",
    ]);
    env.ok(&[
        "put",
        "The product launch is on March 10",
        "--id",
        "launch-b",
    ]);
    env.ok(&[
        "put",
        "Lunch is served at noon in the canteen",
        "--id",
        "lunch",
    ]);
    env.ok(&["reindex"]);

    let found = env.json(&["conflicts"]);
    let pairs: Vec<(String, String, bool)> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["newer"].as_str().unwrap().to_string(),
                c["older"].as_str().unwrap().to_string(),
                c["linked"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(pairs.len(), 2, "{found}");
    assert!(
        pairs
            .iter()
            .any(|(n, o, linked)| n == "launch-b" && o == "launch-a" && !linked),
        "{found}"
    );
    let wifi = found
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["newer"] == newer)
        .unwrap_or_else(|| panic!("the two passwords: {found}"));
    assert_eq!(wifi["linked"], true);
    assert_eq!(wifi["differences"][0], "tern-42 -> puffin-7");
    assert!(!found.to_string().contains("lunch"));
    let text = env.ok(&["conflicts", "-t", "place=office"]);
    assert!(
        text.contains(&format!("\n  keep supersede {newer} ")),
        "one command resolves it: {text}"
    );
    env.ok(&["supersede", newer]);
    env.ok(&["supersede", "launch-b", "launch-a"]);
    assert_eq!(env.json(&["conflicts"]), serde_json::json!([]), "resolved");
}

#[test]
fn importance_lifts_a_note_within_bounds_and_notes_rated_wrong_leave_recall() {
    let env = Env::with_model();
    env.ok(&[
        "put",
        "The nightly backup of the mail server runs at two",
        "--id",
        "mail",
    ]);
    env.ok(&[
        "put",
        "The nightly backup of the file server runs at two",
        "--id",
        "files",
    ]);
    let order = |env: &Env| -> Vec<String> {
        env.json(&["find", "nightly backup runs at two", "--half-life", "0"])
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_string())
            .collect()
    };
    let plain = order(&env);
    let (first, second) = (plain[0].clone(), plain[1].clone());
    let text = |id: &str| {
        format!(
            "The nightly backup of the {} server runs at two",
            if id == "mail" { "mail" } else { "file" }
        )
    };
    env.ok(&["put", "--importance", "5", "--id", &second, &text(&second)]);
    assert_eq!(order(&env)[0], second, "importance 5 lifts a near tie");
    env.ok(&["put", "--importance", "1", "--id", &second, &text(&second)]);
    assert_eq!(order(&env), [first.clone(), second.clone()]);
    assert_eq!(
        env.json(&["get", &second])[0]["tags"]["_importance"][0],
        "1"
    );
    env.fails(&["put", "x", "--importance", "6"], 2);

    for _ in 0..3 {
        env.ok(&["rate", &first, "wrong"]);
    }
    assert_eq!(
        order(&env),
        std::slice::from_ref(&second),
        "rated wrong three times: out of recall"
    );
    let all = env.json(&["find", "nightly backup runs at two", "--all-versions"]);
    assert!(
        all.to_string().contains(&format!("\"{first}\"")),
        "asked for, it is back: {all}"
    );
    env.ok(&["rate", &first, "useful"]);
    assert_eq!(
        order(&env).len(),
        2,
        "net wrong below three: back in recall"
    );
}

#[test]
fn conflicts_lists_notes_still_waiting_for_their_vector() {
    let wifi_a = "The office guest Wi-Fi password is BlueOtter-7731.";
    let wifi_b = "The office guest Wi-Fi password is GreenHeron-2288.";
    // Put under names with nothing embedding in the background: both wait
    // for their vector.
    let mut env = Env::with_model();
    env.set("KEEP_BACKGROUND_EMBED", "0");
    env.ok(&["put", wifi_a, "--id", "wifi-a"]);
    env.ok(&["put", wifi_b, "--id", "wifi-b", "--allow-duplicate"]);
    let stats = env.json(&["stats"]);
    assert_eq!(stats["waiting_for_vectors"], 2, "{stats}");
    let out = env.ok(&["conflicts"]);
    assert!(out.contains("wifi-b ≠ wifi-a"), "{out}");
    assert!(out.contains("keep supersede wifi-b wifi-a"), "{out}");
    // One with its vector, one still waiting.
    env.ok(&["reindex"]);
    env.ok(&[
        "put",
        "The office guest Wi-Fi password is RedFalcon-4410.",
        "--id",
        "wifi-c",
        "--allow-duplicate",
    ]);
    let pairs = env.ok(&["--ids", "conflicts"]);
    assert!(pairs.contains("wifi-c\twifi-b"), "{pairs}");
    assert!(pairs.contains("wifi-c\twifi-a"), "{pairs}");

    // With no model installed nothing is made up: they are compared once
    // they have vectors.
    let bare = Env::new();
    bare.ok(&["put", wifi_a, "--id", "wifi-a"]);
    bare.ok(&["put", wifi_b, "--id", "wifi-b", "--allow-duplicate"]);
    assert_eq!(bare.ok(&["conflicts"]), "");
}

/// One labelled restatement of each family in
/// testdata/real/facts/restatements.tsv: real changelog entries that say
/// one change in other words.
fn one_restatement_per_family() -> Vec<(String, String)> {
    let path = crate::common::repo_root().join("testdata/real/facts/restatements.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[0] == "same" && seen.insert(f[1].to_string()))
        .map(|f| (f[3].to_string(), f[4].to_string()))
        .collect()
}

#[test]
fn a_fact_in_other_words_is_a_duplicate_not_an_update_or_a_conflict() {
    let env = Env::with_model();
    let mut pairs: Vec<(String, String)> = [
        (
            "We deploy to production every Tuesday.",
            "Production deploys happen every Tuesday.",
        ),
        (
            "The quarterly planning meeting is in Room 4B.",
            "Quarterly planning takes place in room 4B.",
        ),
        (
            "The build uses Node 20 LTS.",
            "Node 20 LTS is used for the build.",
        ),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let families = one_restatement_per_family();
    assert!(families.len() >= 10, "{families:?}");
    pairs.extend(families);
    for (fact, restated) in &pairs {
        let first = env.put(fact, &[]);
        let (code, report) = put_json(&env, &[restated]);
        assert_eq!(
            (code, report["status"].as_str()),
            (3, Some("duplicate")),
            "{fact} / {restated}: {report}"
        );
        assert_eq!(report["duplicate_of"], first.as_str());
    }
    assert_eq!(env.all_ids().len(), pairs.len(), "each fact stored once");
    assert_eq!(env.ok(&["conflicts"]), "", "no conflicts among them");
}
