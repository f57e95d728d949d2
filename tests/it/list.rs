//! list: order, patterns, tags, time windows, limits, system notes.

use crate::common::Env;

fn ids(out: &str) -> Vec<&str> {
    out.lines().collect()
}

fn seeded() -> Env {
    let mut env = Env::new();
    env.at("2026-11-01T09:00:00Z");
    env.ok(&["put", "oldest note", "--id", "proj/a", "-t", "project=x"]);
    env.at("2026-11-15T09:00:00Z");
    env.ok(&["put", "middle note", "--id", "proj/b", "-t", "project=y"]);
    env.at("2026-11-22T09:00:00Z");
    env.ok(&[
        "put",
        "newest note",
        "--id",
        "misc/c",
        "-t",
        "project=x",
        "-t",
        "topic=z",
    ]);
    env.ok(&["put", "a system note", "--id", ".hidden"]);
    env.at("2026-11-22T10:00:00Z");
    env
}

#[test]
fn lists_by_update_newest_first() {
    let env = seeded();
    assert_eq!(
        env.ok(&["list"]),
        "misc/c  2026-11-22 09:00  newest note\n\
         proj/b  2026-11-15 09:00  middle note\n\
         proj/a  2026-11-01 09:00  oldest note\n"
    );
}

#[test]
fn sorts_by_id_created_and_accessed() {
    let mut env = seeded();
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "--sort", "id"])),
        ["misc/c", "proj/a", "proj/b"]
    );
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "--sort", "created"])),
        ["misc/c", "proj/b", "proj/a"]
    );
    env.at("2026-11-23T00:00:00Z");
    env.ok(&["get", "proj/a"]);
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "--sort", "accessed"]))[0],
        "proj/a"
    );
}

#[test]
fn filters_by_prefix_glob_and_tags() {
    let env = seeded();
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "proj/"])),
        ["proj/b", "proj/a"]
    );
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "*/[ab]"])),
        ["proj/b", "proj/a"]
    );
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "-t", "project=x"])),
        ["misc/c", "proj/a"]
    );
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "-t", "project=x", "-t", "topic"])),
        ["misc/c"]
    );
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "-t", "_source=inline", "proj/"])),
        ["proj/b", "proj/a"]
    );
    assert!(env.ok(&["list", "-t", "nosuch"]).is_empty());
}

#[test]
fn filters_by_time_window() {
    let env = seeded();
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "--since", "P7D"])),
        ["misc/c"]
    );
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "--since", "PT2H"])),
        ["misc/c"]
    );
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "--since", "P10D", "--until", "P1D"])),
        ["proj/b"]
    );
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "--until", "2026-11-10"])),
        ["proj/a"]
    );
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "--since", "2026-11-15T09:00:00Z"])),
        ["misc/c", "proj/b"]
    );
    let err = env.fails(&["list", "--since", "lastweek"], 2);
    assert!(err.starts_with("keep: bad time 'lastweek'"), "{err}");
}

#[test]
fn limits_and_system_notes() {
    let env = seeded();
    assert_eq!(ids(&env.ok(&["list", "--ids", "-n", "1"])), ["misc/c"]);
    assert_eq!(
        ids(&env.ok(&["list", "--ids", "-a", "-n", "1"])),
        [".hidden"]
    );
    assert_eq!(ids(&env.ok(&["list", "--ids", "."])), [".hidden"]);
    let json = env.json(&["list", "-a"]);
    assert_eq!(json.as_array().unwrap().len(), 4);
    let first = &json[0];
    let keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "summary",
            "tags",
            "content_hash",
            "created",
            "updated",
            "accessed",
            "at"
        ]
    );
}
