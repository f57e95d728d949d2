//! Everyday commands do what was meant, or say why not: mistyped paths,
//! text that starts with '-', revert of a first version, history that
//! shows tag changes, quiet re-imports, an unset `now`, stubs and deleted
//! files in listings, and help that reads right.

use crate::common::Env;

#[test]
fn a_path_that_names_nothing_is_an_error_not_a_note() {
    let env = Env::new();
    for arg in ["/nonexistent/file.txt", "notes.md", "./draft", "~/papers"] {
        let err = env.fails(&["put", arg], 2);
        assert!(
            err.starts_with(&format!("keep: no such file or folder: {arg}\nhint: ")),
            "{err}"
        );
        assert!(err.contains("keep put --text"), "{err}");
    }
    let err = env.fails(&["put", "~/papers", "-r"], 2);
    assert!(err.contains("no such file or folder: ~/papers"), "{err}");
    assert!(env.all_ids().is_empty(), "nothing was stored");
    let id = env.ok(&["put", "--text", "notes.md"]);
    assert_eq!(env.json(&["get", id.trim()])[0]["summary"], "notes.md");
    // Words that merely contain a slash or a dot stay text.
    env.ok(&["put", "read/write locks are slow; see sqlite.org"]);
}

#[test]
fn text_that_starts_with_a_dash_keeps_its_options() {
    let env = Env::new();
    env.ok(&["put", "--", "-text", "--id", "X", "-t", "k=v"]);
    let note = &env.json(&["get", "X"])[0];
    assert_eq!(note["summary"], "-text");
    assert_eq!(note["tags"]["k"][0], "v");
    env.ok(&["put", "--text", "-also text", "--id", "Y"]);
    assert_eq!(env.json(&["get", "Y"])[0]["summary"], "-also text");
}

#[test]
fn history_shows_what_each_version_changed() {
    let env = Env::new();
    env.ok(&["put", "same words", "--id", "doc", "-t", "stage=1"]);
    env.ok(&["tag", "doc", "-t", "stage=2", "--remove-value", "stage=1"]);
    assert_eq!(
        env.ok(&["get", "doc", "--history"]),
        "doc@V{0}  2026-11-22 10:00  same words  [tags +stage=2 -stage=1]\n\
         doc@V{1}  2026-11-22 10:00  same words  [created]\n"
    );
    let history = env.json(&["get", "doc", "--history"]);
    let changed = &history[0]["versions"][0]["changed"];
    assert_eq!(changed["summary"], false);
    assert_eq!(changed["tags_added"]["stage"][0], "2");
    assert_eq!(changed["tags_removed"]["stage"][0], "1");
    assert_eq!(history[0]["versions"][1]["changed"]["created"], true);
}

#[test]
fn a_second_import_says_one_line_and_lists_ids_only_when_asked() {
    let env = Env::new();
    for i in 0..30 {
        env.put(&format!("note number {i}"), &[]);
    }
    let export = env.export();
    let out = env.run_with_stdin(&["import", "-"], export.as_bytes());
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "imported 0 note(s); 30 already present and skipped; 0 vector(s) loaded, 0 waiting for embedding\n"
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "no line per note");
    let out = env.run_with_stdin(&["import", "-v", "-"], export.as_bytes());
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 30);
}

#[test]
fn an_unset_now_says_so() {
    let env = Env::new();
    let out = env.run(&["now"]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "keep: 'now' is not set yet; set it with: keep now TEXT\n"
    );
}

#[test]
fn stubs_stay_out_of_list_unless_asked_and_deleted_files_are_marked() {
    let env = Env::new();
    env.ok(&["put", "A paper", "--id", "paper", "-t", "author=ana"]);
    assert_eq!(env.ok(&["list", "--ids"]), "paper\n");
    assert_eq!(env.ok(&["list", "--ids", "-a"]), "ana\npaper\n");
    let all = env.ok(&["list", "-a", "--sort", "id"]);
    assert!(all.lines().next().unwrap().ends_with("(stub)"), "{all}");

    let dir = env.path("watched");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("gone.txt"), "a file that will go").unwrap();
    env.ok(&["put", dir.to_str().unwrap(), "--watch"]);
    std::fs::remove_file(dir.join("gone.txt")).unwrap();
    // A catch-up pass marks the note of the deleted file.
    let mut watcher = env
        .cmd(&["watch"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let listing = loop {
        let listing = env.ok(&["list", "-a"]);
        if listing.contains("(in the trash: its file was deleted)")
            || std::time::Instant::now() > deadline
        {
            break listing;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    watcher.kill().unwrap();
    let _ = watcher.wait();
    assert!(listing.contains("gone.txt"), "{listing}");
    assert!(
        listing.contains("(in the trash: its file was deleted)"),
        "{listing}"
    );
    assert!(!env.ok(&["list"]).contains("gone.txt"));
}

#[test]
fn help_and_usage_read_right() {
    let env = Env::new();
    let err = env.fails(&["find"], 2);
    assert!(err.contains("Usage: keep find"), "{err}");
    assert!(!err.contains("--store"), "{err}");
    let help = env.ok(&["get", "--help"]);
    let (own, global) = help.split_once("Global options:").expect("a heading");
    for flag in ["--store", "--json", "--ids"] {
        assert!(
            global.contains(flag) && !own.contains(flag),
            "{flag}:\n{help}"
        );
    }
    assert!(own.contains("-V, --at-version <N>"), "{help}");
    env.put("first", &["k=v"]);
    for command in [&["export"][..], &["mcp"], &["ui"]] {
        let mut args = vec!["--json"];
        args.extend_from_slice(command);
        let err = env.fails(&args, 2);
        assert!(err.contains("--json and --ids do not apply"), "{err}");
    }
}

#[test]
fn note_text_cannot_drive_the_terminal() {
    let env = Env::new();
    let hostile = "Release notes\x1b]52;c;cm0gLXJmIH4=\x07 are\x1b[2J\x1b[H in \x1b]8;;http://evil.example\x07the wiki\x1b]8;;\x07\r\nfor \u{9b}8mall\x08 teams.";
    env.ok(&["put", "--text", hostile, "--id", "notes/release"]);
    let harmless = |out: &[u8]| {
        !out.iter().any(|b| matches!(b, 0x1b | 0x07 | 0x08 | b'\r'))
            && !String::from_utf8_lossy(out).contains('\u{9b}')
    };
    for args in [
        &["get", "notes/release"][..],
        &["find", "release notes", "--mode", "keyword"],
        &["list"],
        &["get", "notes/release", "--history"],
        &["log"],
        &["get", "notes/release", "--parts"],
    ] {
        let out = env.run(args);
        assert!(out.status.success(), "{args:?}");
        assert!(
            harmless(&out.stdout),
            "{args:?}: {:?}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let shown = env.ok(&["get", "notes/release"]);
    assert!(
        shown.contains(r"\x1b]52;c;cm0gLXJmIH4=\x07")
            && shown.contains(r"\x1b]8;;http://evil.example\x07the wiki")
            && shown.contains(r"for \x9b8mall\x08 teams."),
        "{shown}"
    );
    // The JSON gives the text as it was stored, escaped as JSON escapes it.
    let stored = env.json(&["get", "notes/release"]);
    assert_eq!(
        stored[0]["summary"].as_str().unwrap().replace("\r\n", "\n"),
        hostile.replace("\r\n", "\n")
    );
}

#[test]
fn a_new_store_is_its_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.ok(&["put", "The door code is 4711.", "--id", "door"]);
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let store = env.store();
    assert_eq!(mode(&store), 0o700, "{}", store.display());
    if !env.on_postgres() {
        for file in ["keep.db", "keep.db-wal", "keep.db-shm"] {
            let path = store.join(file);
            if path.exists() {
                assert_eq!(mode(&path), 0o600, "{file}");
            }
        }
        assert!(store.join("keep.db").exists());
    }
    env.ok(&["serve", "--token"]);
    let mut made = Vec::new();
    if !env.on_postgres() {
        // A store on PostgreSQL is backed up with the server's tools.
        env.ok(&["backup", env.path("copy.db").to_str().unwrap()]);
        made.push(env.path("copy.db"));
    }
    let said = String::from_utf8(env.run(&["doctor"]).stdout).unwrap();
    assert!(!said.contains("other users may read"), "{said}");
    // Every file keep made in the store, and its backup, is the user's alone.
    for entry in walk(&store) {
        made.push(entry);
    }
    for path in made {
        let mode = mode(&path);
        if path.is_dir() {
            assert_eq!(mode, 0o700, "{}", path.display());
        } else {
            assert_eq!(mode & 0o077, 0, "{}: {mode:o}", path.display());
        }
    }
}

/// Every file and folder under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            all.extend(walk(&path));
        }
        all.push(path);
    }
    all
}
