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
    env.sql(if env.on_postgres() {
        "INSERT INTO keep_schema (version) VALUES (999)"
    } else {
        "PRAGMA user_version = 999"
    });
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

#[test]
fn selectors_at_the_limits_of_a_64_bit_integer_are_errors_not_panics() {
    let env = Env::new();
    env.ok(&["put", "one", "--id", "doc"]);
    for arg in ["doc@V{-9223372036854775808}", "doc@V{9223372036854775807}"] {
        let err = env.fails(&["get", arg], 2);
        assert!(err.contains("is out of range"), "{err}");
        let err = env.fails(&["del", arg], 2);
        assert!(err.contains("is out of range"), "{err}");
    }
    let err = env.fails(&["get", "doc", "-V", "-9223372036854775808"], 2);
    assert!(err.contains("is out of range"), "{err}");
}

#[test]
fn paths_that_lead_nowhere_are_reported_as_paths_not_stored_as_text() {
    use std::os::unix::ffi::OsStrExt;
    let env = Env::new();
    let dangling = env.path("dangling.txt");
    std::os::unix::fs::symlink("nowhere", &dangling).unwrap();
    let (a, b) = (env.path("loop-a"), env.path("loop-b"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    let newline = env.path("new\nline.txt");
    std::fs::write(&newline, "a file with a newline in its name").unwrap();
    let odd = env.path("bad-utf8-");
    let odd = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(
        &[odd.as_os_str().as_bytes(), b"\xff\xfe.txt"].concat(),
    ));
    std::fs::write(&odd, "an odd name").unwrap();
    let err = env.fails(&["put", dangling.to_str().unwrap()], 1);
    assert!(
        err.ends_with("dangling.txt: is a dangling link (it points to nothing)\n"),
        "{err}"
    );
    let err = env.fails(&["put", a.to_str().unwrap()], 1);
    assert!(err.contains("is a symbolic link loop"), "{err}");
    let out = env.ok(&["put", newline.to_str().unwrap()]);
    assert!(out.trim().ends_with("/new%0Aline.txt"), "{out}");
    let out = env.cmd(&["put"]).arg(&odd).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .ends_with("bad-utf8-%FF%FE.txt")
    );
    for id in env.all_ids() {
        assert!(id.starts_with("file://"), "stored as text: {id}");
    }
}

#[test]
fn a_store_path_that_is_a_file_is_said_so() {
    let env = Env::new();
    let file = env.path("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let err = env.fails(&["--store", file.to_str().unwrap(), "list"], 2);
    assert_eq!(
        err,
        format!(
            "keep: the store {} is a file, not a folder; give --store (or KEEP_STORE) the folder that holds keep.db\n",
            file.display()
        )
    );
}

#[test]
fn a_read_only_store_can_be_read_but_not_written() {
    let env = Env::new();
    if env.on_postgres() {
        // Read-only here means a file this user may not write; on a server
        // that is a matter of the database role's grants.
        return;
    }
    env.ok(&["put", "hello there", "--id", "greeting"]);
    // As root, run keep as another user; otherwise take the write bits away.
    let as_root = unsafe { libc::geteuid() } == 0;
    let store = env.store();
    let run = |args: &[&str]| {
        let mut cmd = if as_root {
            let mut c = env.program(
                std::path::Path::new("setpriv"),
                &[
                    "--reuid=65534",
                    "--regid=65534",
                    "--clear-groups",
                    Env::bin(),
                ],
            );
            c.args(args);
            c
        } else {
            env.cmd(args)
        };
        cmd.output().unwrap()
    };
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path, m| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
    };
    mode(env.path("").as_path(), 0o755);
    mode(&store, 0o555);
    mode(&store.join("keep.db"), 0o444);
    let list = run(&["list", "--ids"]);
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&list.stdout), "greeting\n");
    let get = run(&["get", "greeting"]);
    assert!(
        get.status.success(),
        "{}",
        String::from_utf8_lossy(&get.stderr)
    );
    let find = run(&["find", "--mode", "keyword", "hello"]);
    assert_eq!(String::from_utf8_lossy(&find.stdout).lines().count(), 1);
    let put = run(&["put", "more"]);
    assert_eq!(put.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&put.stderr).contains("is read-only here"));
    mode(&store, 0o755);
    mode(&store.join("keep.db"), 0o644);
}

/// The messages a store on a database server gives when the server is not
/// there, refuses, or goes away mid-command: one line each, exit 2, no
/// password, and the notes written before a lost connection are whole.
#[test]
fn a_database_server_that_is_down_refuses_or_goes_away_says_so_in_one_line() {
    let env = Env::new();
    let gone = env.path("no-server");
    std::fs::create_dir(&gone).unwrap();
    for (store, expected) in [
        (
            format!("postgres://keep@/keep?host={}", gone.display()),
            "cannot connect to the database server postgres://keep@",
        ),
        (
            "postgres://ana:s3cret-horse@127.0.0.1:1/keep".to_string(),
            "cannot connect to the database server postgres://ana@127.0.0.1:1/keep",
        ),
        (
            "postgres://ana:s3cret-horse@[::1]:1/keep".to_string(),
            "cannot connect to the database server postgres://ana@[::1]:1/keep",
        ),
    ] {
        let err = env.fails(&["--store", &store, "list"], 2);
        assert!(err.starts_with(&format!("keep: {expected}")), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("s3cret"), "{err}");
    }

    let env = Env::on(true);
    env.ok(&["list"]);
    let folder = env.path("many");
    std::fs::create_dir(&folder).unwrap();
    for i in 0..3000 {
        std::fs::write(
            folder.join(format!("note-{i:04}.txt")),
            format!("Field note {i}: the tide rose {i} centimetres past the mark."),
        )
        .unwrap();
    }
    let mut put = env.cmd(&["put", folder.to_str().unwrap()]);
    let put = put
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let child = put.spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while env.sql_count("SELECT count(*) FROM notes") < 10 {
        assert!(std::time::Instant::now() < deadline, "nothing was written");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    env.sql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE application_name = 'keep' AND datname = current_database()
         AND pid <> pg_backend_pid()",
    );
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let last = err.lines().last().unwrap_or_default().to_string();
    let stored = env.sql_count("SELECT count(*) FROM notes");
    if out.status.code() == Some(0) {
        // The connection ended between two of the put's transactions: the
        // next one connected again and the put went on to the end.
        assert_eq!(stored, 3000, "{err}");
    } else {
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            last.starts_with("keep: lost the connection to the database server")
                && last.contains("the write in progress was rolled back"),
            "{err}"
        );
        assert!((10..3000).contains(&stored), "{stored}");
    }
    let whole = env.sql_count(
        "SELECT count(*) FROM notes n WHERE n.words IS NOT NULL
         AND EXISTS (SELECT 1 FROM tags t WHERE t.note = n.rid AND t.key = '_source')",
    );
    assert_eq!(
        whole, stored,
        "every stored note has its index entry and tags"
    );
}

/// A PostgreSQL role that may only read: every read works (a `get` does not
/// need to record itself), every write says the store is read-only here.
#[test]
fn a_database_role_that_may_only_read_reads_and_is_told_it_may_not_write() {
    let mut env = Env::new();
    if !env.on_postgres() {
        // Read-only on SQLite is the file's mode: see the test above.
        return;
    }
    env.ok(&["put", "The harbour light is lit at dusk.", "--id", "light"]);
    let url = env.store_arg();
    let database = url
        .split('/')
        .nth(3)
        .and_then(|rest| rest.split('?').next())
        .unwrap()
        .to_string();
    let role = format!("reader_{database}");
    env.sql(&format!(
        "CREATE ROLE {role} LOGIN;
         GRANT CONNECT ON DATABASE {database} TO {role};
         GRANT USAGE ON SCHEMA public TO {role};
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role};
         GRANT SELECT ON ALL SEQUENCES IN SCHEMA public TO {role};"
    ));
    let user = url
        .split('@')
        .next()
        .unwrap()
        .trim_start_matches("postgres://");
    let reader_url = url.replacen(&format!("//{user}@"), &format!("//{role}@"), 1);
    env.set("KEEP_STORE", &reader_url);
    let shown = env.ok(&["get", "light"]);
    assert!(shown.contains("lit at dusk"), "{shown}");
    assert_eq!(env.ok(&["list", "--ids"]).trim(), "light");
    let found = env.ok(&["find", "--mode", "keyword", "harbour", "--ids"]);
    assert_eq!(found.trim(), "light");
    let stderr = env.fails(&["put", "The ferry leaves at nine.", "--id", "ferry"], 2);
    assert!(
        stderr.contains("is read-only here: reading works, writing does not")
            && stderr.contains("this role may not write"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!stderr.contains("password"), "{stderr}");
    env.sql(&format!("DROP OWNED BY {role}; DROP ROLE {role};"));
}
