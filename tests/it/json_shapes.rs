//! The `--json` shape of every command, as snapshots: a change of a field,
//! a type or a nesting is a visible diff in `tests/it/snapshots/`. Each
//! snapshot names the command that printed it, and docs/scripting.md shows
//! these shapes (docs.rs keeps it so). The stores are deterministic (fixed
//! clock, content-hash ids); the first tests need no model (keyword
//! recall), the last one uses the real model for what only it finds.

use serde_json::Value;

use crate::common::Env;

/// A named snapshot of a JSON document, pretty-printed, described by the
/// command that printed it.
macro_rules! snapshot {
    ($name:expr, $command:expr, $value:expr $(,)?) => {
        insta::with_settings!({description => $command, omit_expression => true}, {
            insta::assert_snapshot!($name, serde_json::to_string_pretty(&$value).unwrap())
        })
    };
}

/// `keep --json ARGS` as it would be typed (arguments with spaces quoted;
/// ids made by the store shown as `ID`).
fn command(args: &[&str], ids: &[&str]) -> String {
    let shown: Vec<String> = args
        .iter()
        .map(|a| {
            if ids.contains(a) {
                "ID".to_string()
            } else if a.contains(' ') {
                format!("'{a}'")
            } else {
                a.to_string()
            }
        })
        .collect();
    format!("keep --json {}", shown.join(" "))
}

/// Runs `keep --json ARGS` (whatever its exit status) and snapshots what
/// it printed, with the keys `redacted` set to placeholders (values that
/// vary from run to run); `ids` are shown as `ID` in the description.
fn shot(env: &Env, name: &str, args: &[&str], ids: &[&str], redacted: &[&str]) -> Value {
    let value = redact(json_of(env, args), redacted);
    snapshot!(name, command(args, ids), value);
    value
}

/// The JSON a command prints, whatever its exit status.
fn json_of(env: &Env, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "keep {all:?}: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `value` with every number and string under `keys` (at any depth) set
/// to a placeholder.
fn redact(mut value: Value, keys: &[&str]) -> Value {
    fn walk(v: &mut Value, keys: &[&str]) {
        match v {
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    if keys.contains(&k.as_str()) {
                        match v {
                            Value::Number(_) => *v = 0.into(),
                            Value::String(_) => *v = "<varies>".into(),
                            _ => {}
                        }
                    } else {
                        walk(v, keys);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| walk(i, keys)),
            _ => {}
        }
    }
    walk(&mut value, keys);
    value
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
    let put = shot(&env, "put", &["put", "a first note", "-t", "k=v"], &[], &[]);
    let id = put["id"].as_str().unwrap();
    shot(
        &env,
        "tag",
        &["tag", id, "-t", "k=w", "--remove-value", "k=v"],
        &[id],
        &[],
    );
}

#[test]
fn get_history_parts() {
    let env = store();
    shot(&env, "get", &["get", "cranes"], &[], &[]);
    shot(&env, "get_version", &["get", "cranes@V{1}"], &[], &[]);
    shot(&env, "get_part", &["get", "tides@P{1}"], &[], &[]);
    shot(
        &env,
        "get_history",
        &["get", "cranes", "--history"],
        &[],
        &[],
    );
    shot(&env, "get_parts", &["get", "tides", "--parts"], &[], &[]);
}

#[test]
fn list_and_find() {
    let env = store();
    shot(&env, "list", &["list"], &[], &[]);
    shot(
        &env,
        "find",
        &["find", "lighthouse", "--mode", "keyword"],
        &[],
        &[],
    );
    shot(
        &env,
        "find_deep",
        &["find", "harbour", "--mode", "keyword", "--deep"],
        &[],
        &[],
    );
}

#[test]
fn now_move_del_revert_import() {
    let env = store();
    shot(&env, "now_unset", &["now"], &[], &[]);
    shot(
        &env,
        "now",
        &["now", "Working on the port survey"],
        &[],
        &[],
    );
    env.ok(&["now", "Reviewing the survey"]);
    shot(&env, "move", &["move", "survey"], &[], &[]);
    shot(&env, "revert", &["revert", "cranes"], &[], &[]);
    shot(&env, "del_version", &["del", "survey@V{1}"], &[], &[]);
    shot(
        &env,
        "del",
        &["del", "survey", "--reason", "done"],
        &[],
        &[],
    );
    shot(&env, "restore", &["restore", "survey"], &[], &[]);
    shot(&env, "del_purge", &["del", "--purge", "survey"], &[], &[]);
    let export = env.export();
    let other = Env::new();
    snapshot!(
        "import",
        "keep --json import - < export.jsonl".to_string(),
        other.json_stdin(&["import", "-"], &export)
    );
}

#[test]
fn watch_list() {
    let env = Env::new();
    let dir = env.path("watched");
    std::fs::create_dir_all(&dir).unwrap();
    env.ok(&["put", dir.to_str().unwrap(), "--watch", "-r"]);
    let mut shape = env.json(&["watch", "--list"]);
    shape["folders"][0]["dir"] = "<dir>".into();
    snapshot!("watch_list", "keep --json watch --list".to_string(), shape);
}

/// On SQLite whichever store the suite runs on: `reindex` reports the
/// vector index of a SQLite store, which PostgreSQL keeps itself.
#[test]
fn facts_ratings_conflicts_log_and_stats() {
    let mut env = Env::on(false);
    env.install_model();
    env.ok(&[
        "put",
        "The office guest Wi-Fi password is BlueOtter-7731.",
        "--id",
        "wifi",
    ]);
    shot(
        &env,
        "put_duplicate",
        &["put", "The office guest Wi-Fi password is BlueOtter-7731."],
        &[],
        &["similarity"],
    );
    shot(&env, "reindex", &["reindex"], &[], &[]);
    let update = shot(
        &env,
        "put_possible_update",
        &["put", "The office guest Wi-Fi password is GreenHeron-2288."],
        &[],
        &["similarity"],
    );
    let newer = update["id"].as_str().unwrap();
    shot(&env, "conflicts", &["conflicts"], &[], &["similarity"]);
    shot(
        &env,
        "get_similar",
        &["get", newer, "--similar"],
        &[newer],
        &["score", "relevance", "passage"],
    );
    shot(&env, "rate", &["rate", newer, "useful"], &[newer], &[]);
    shot(
        &env,
        "supersede",
        &["supersede", newer, "wifi"],
        &[newer],
        &[],
    );
    shot(&env, "get_rated_successor", &["get", newer], &[newer], &[]);
    shot(&env, "get_superseded", &["get", "wifi"], &[], &[]);
    shot(&env, "log", &["log", "-n", "3"], &[], &[]);
    shot(
        &env,
        "stats",
        &["stats"],
        &[],
        &["bytes", "database_bytes", "size"],
    );
}
