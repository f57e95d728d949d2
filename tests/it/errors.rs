//! Bad input: one-line errors, the right exit codes, nothing changed.

use crate::common::Env;

#[test]
fn unknown_ids_exit_1() {
    let env = Env::new();
    assert_eq!(env.fails(&["get", "X"], 1), "keep: no note 'X'\n");
    env.fails(&["del", "X"], 1);
    env.fails(&["revert", "X"], 1);
    env.fails(&["tag", "X", "-t", "a=b"], 1);
}

#[test]
fn malformed_and_out_of_range_selectors_exit_2() {
    let env = Env::new();
    env.ok(&["put", "one", "--id", "doc"]);
    let before = env.export();
    assert_eq!(
        env.fails(&["get", "doc@V{x}"], 2),
        "keep: malformed selector in 'doc@V{x}': expected @V{N} with an integer N (0 current, 1 previous, -1 oldest)\n"
    );
    assert_eq!(
        env.fails(&["get", "doc@V{1}"], 2),
        "keep: 'doc@V{1}' is out of range: the note has 0 archived version(s)\n"
    );
    env.fails(&["get", "doc@P{0}"], 2);
    env.fails(&["del", "doc@V{1}"], 2);
    env.fails(&["get", "doc", "-V", "3"], 2);
    assert_eq!(env.export(), before);
}

#[test]
fn bad_tags_exit_2_and_change_nothing() {
    let env = Env::new();
    env.ok(&["put", "one", "--id", "doc"]);
    let before = env.export();
    for bad in ["novalue", "=v", "k=", "_created=x", "a b=c"] {
        let err = env.fails(&["put", "two", "--id", "doc", "-t", bad], 2);
        assert!(err.starts_with(&format!("keep: bad tag '{bad}'")), "{err}");
    }
    assert_eq!(env.export(), before);
}

#[test]
fn bad_ids_are_refused() {
    let env = Env::new();
    let err = env.fails(&["put", "x", "--id", "a\u{1}b"], 2);
    assert_eq!(err, "keep: id \"a\\u{1}b\" contains a control character\n");
    let long = "x".repeat(1025);
    let err = env.fails(&["put", "x", "--id", &long], 2);
    assert_eq!(err, "keep: id is 1025 bytes long; the limit is 1024\n");
    env.ok(&["put", "x", "--id", &"y".repeat(1024)]);
    env.fails(&["put", "x", "--id", "a@V{2}"], 2);
    env.fails(&["put", "x", "--id", ""], 2);
}

#[test]
fn invalid_utf8_on_stdin_is_an_error() {
    let env = Env::new();
    let out = env.run_with_stdin(&["put", "-"], b"ok \xff\xfe bad");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "keep: standard input is not valid UTF-8 (byte 3)\n"
    );
    assert!(env.all_ids().is_empty());
}

#[test]
fn empty_input_and_binary_files_are_refused() {
    let env = Env::new();
    let out = env.run_with_stdin(&["put", "-"], b"  \n");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "keep: nothing to put: the text is empty\n"
    );
    std::fs::write(env.path("blob.bin"), [0u8, 159, 146, 150, 0, 1]).unwrap();
    let err = env.fails(&["put", "blob.bin"], 1);
    assert_eq!(
        err,
        format!(
            "keep: {}: is a binary file of a type keep does not read\n",
            env.path("blob.bin").display()
        )
    );
    std::fs::create_dir(env.path("folder")).unwrap();
    assert_eq!(env.ok(&["put", "folder"]), "");
    assert!(env.all_ids().is_empty());
}

#[test]
fn a_store_from_a_newer_keep_is_refused() {
    let env = Env::new();
    env.ok(&["list"]);
    let db = env.store().join("keep.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let err = env.fails(&["list"], 2);
    assert!(
        err.contains("was written by a newer keep (schema 999"),
        "{err}"
    );
}

#[test]
fn usage_errors_from_the_parser_exit_2() {
    let env = Env::new();
    env.fails(&["frobnicate"], 2);
    env.fails(&["list", "--sort", "size"], 2);
    env.fails(&["list", "--json", "--ids"], 2);
}
