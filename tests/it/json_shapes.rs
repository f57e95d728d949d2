//! The `--json` shape of every command, as snapshots: a change of a field,
//! a type or a nesting is a visible diff in `tests/it/snapshots/`. The
//! store is deterministic (fixed clock, content-hash ids) and needs no
//! model (keyword recall).

use crate::common::Env;

/// A named snapshot of a JSON document, pretty-printed.
macro_rules! snapshot {
    ($name:expr, $value:expr $(,)?) => {
        insta::assert_snapshot!($name, serde_json::to_string_pretty(&$value).unwrap())
    };
}

/// A store with a note that has history, tags, an edge and parts.
fn store() -> Env {
    let env = Env::new();
    env.ok(&[
        "put",
        "Harbour cranes lift containers at dawn",
        "--id",
        "cranes",
        "-t",
        "topic=port",
    ]);
    env.ok(&["tag", "cranes", "-t", "author=ana"]);
    let long = format!(
        "{}\n\nThe lighthouse keeper polished the brass lantern.",
        "Tide tables list the heights of the sea along the coast. ".repeat(40)
    );
    env.ok(&["put", &long, "--id", "tides"]);
    env
}

#[test]
fn put_and_tag() {
    let env = Env::new();
    let put = env.json(&["put", "a first note", "-t", "k=v"]);
    snapshot!("put", put);
    let id = put["id"].as_str().unwrap();
    snapshot!(
        "tag",
        env.json(&["tag", id, "-t", "k=w", "--remove-value", "k=v"])
    );
}

#[test]
fn get_history_parts() {
    let env = store();
    snapshot!("get", env.json(&["get", "cranes"]));
    snapshot!("get_version", env.json(&["get", "cranes@V{1}"]));
    snapshot!("get_part", env.json(&["get", "tides@P{1}"]));
    snapshot!("get_history", env.json(&["get", "cranes", "--history"]));
    snapshot!("get_parts", env.json(&["get", "tides", "--parts"]));
}

#[test]
fn list_and_find() {
    let env = store();
    snapshot!("list", env.json(&["list"]));
    snapshot!(
        "find",
        env.json(&["find", "lighthouse", "--mode", "keyword"])
    );
    snapshot!(
        "find_deep",
        env.json(&["find", "harbour", "--mode", "keyword", "--deep"])
    );
}

#[test]
fn now_move_del_revert_import() {
    let env = store();
    snapshot!("now_unset", env.json(&["now"]));
    snapshot!("now", env.json(&["now", "Working on the port survey"]));
    env.ok(&["now", "Reviewing the survey"]);
    snapshot!("move", env.json(&["move", "survey"]));
    snapshot!("revert", env.json(&["revert", "cranes"]));
    snapshot!("del_version", env.json(&["del", "survey@V{1}"]));
    snapshot!("del", env.json(&["del", "survey", "--reason", "done"]));
    snapshot!("restore", env.json(&["restore", "survey"]));
    snapshot!("del_purge", env.json(&["del", "--purge", "survey"]));
    let export = env.export();
    let other = Env::new();
    snapshot!("import", other.json_stdin(&["import", "-"], &export));
}

#[test]
fn watch_list() {
    let env = Env::new();
    let dir = env.path("watched");
    std::fs::create_dir_all(&dir).unwrap();
    env.ok(&["put", dir.to_str().unwrap(), "--watch", "-r"]);
    let mut shape = env.json(&["watch", "--list"]);
    shape["folders"][0]["dir"] = "<dir>".into();
    snapshot!("watch_list", shape);
}
