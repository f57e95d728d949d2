//! Edges: edge tags link notes, create stubs and show inverse links.

use crate::common::Env;

#[test]
fn edge_tags_create_stubs_and_inverse_links() {
    let env = Env::new();
    let note = env.put(
        "Notes from the design review",
        &["author=alice", "references=spec"],
    );
    let alice = env.ok(&["get", "alice"]);
    assert_eq!(
        alice,
        format!(
            "---\nid: alice\ntags:\n  _stub: \"true\"\nedges:\n  authored: \"{note}\"\n\
             created: 2026-11-22T10:00:00.000Z\nupdated: 2026-11-22T10:00:00.000Z\n---\n"
        )
    );
    let view = &env.json(&["get", &note])[0];
    assert_eq!(view["edges"][0]["key"], "author");
    assert_eq!(view["edges"][0]["target"], "alice");
    assert_eq!(view["edges"][1]["key"], "references");
    assert!(
        env.ok(&["get", &note])
            .contains("edges:\n  author: alice\n  references: spec\n")
    );
    // Writing the stub fills it in without archiving the stub.
    env.ok(&["put", "Alice, staff engineer", "--id", "alice"]);
    let alice = &env.json(&["get", "alice"])[0];
    assert_eq!(alice["versions"].as_array().unwrap().len(), 0);
    assert!(alice["tags"].get("_stub").is_none());
    assert_eq!(alice["inverse_edges"][0]["source"], note.as_str());
    // Removing the tag removes the edge.
    env.ok(&["tag", &note, "--remove", "author"]);
    assert_eq!(
        env.json(&["get", "alice"])[0]["inverse_edges"],
        serde_json::json!([])
    );
}

#[test]
fn tag_notes_declare_new_edge_keys() {
    let env = Env::new();
    let note = env.put("Meeting about the roadmap", &["attendee=bob"]);
    env.fails(&["get", "bob"], 1);
    env.ok(&[
        "put",
        "People at a meeting",
        "--id",
        ".tag/attendee",
        "-t",
        "_inverse=attended",
    ]);
    let bob = env.ok(&["get", "bob"]);
    assert!(
        bob.contains(&format!("edges:\n  attended: \"{note}\"\n")),
        "{bob}"
    );
    // _inverse is only allowed on .tag/ notes.
    env.fails(&["put", "x", "-t", "_inverse=y"], 2);
    // Deleting the declaration removes those edges.
    env.ok(&["del", ".tag/attendee"]);
    assert!(!env.ok(&["get", "bob"]).contains("attended"));
}

#[test]
fn an_edge_value_that_cannot_be_an_id_is_refused() {
    let env = Env::new();
    let before = env.export();
    let err = env.fails(&["put", "text", "-t", "author=x@V{1}"], 2);
    assert!(
        err.starts_with("keep: tag 'author=x@V{1}' is an edge"),
        "{err}"
    );
    assert_eq!(env.export(), before);
}
