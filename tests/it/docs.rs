//! The checked-in completions and man pages match the command definitions.

#[test]
fn completions_and_man_pages_are_fresh() {
    let root = &crate::common::repo_root();
    let update = std::env::var_os("KEEP_UPDATE_DOCS").is_some();
    let mut stale = Vec::new();
    for (path, contents) in keep::cli::docs::generated_files() {
        let full = root.join(&path);
        if update {
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, &contents).unwrap();
        } else if std::fs::read(&full).ok().as_deref() != Some(contents.as_slice()) {
            stale.push(path);
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files (run KEEP_UPDATE_DOCS=1 cargo test --test it docs): {stale:?}"
    );
}

/// The shell lines of README's set-up block (comments dropped).
fn readme_setup_commands(readme: &str) -> Vec<String> {
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Set-up and tests"))
        .expect("README has a 'Set-up and tests' section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a sh block in the set-up section");
    block
        .lines()
        .map(|l| l.split(" #").next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn ci_runs_exactly_the_readme_set_up_commands() {
    let root = crate::common::repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let commands = readme_setup_commands(&readme);
    assert_eq!(
        commands,
        ["./scripts/setup.sh", "cargo test --locked"],
        "README's set-up is two commands"
    );
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    let lines: Vec<&str> = ci
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let at = |command: &str| {
        lines
            .iter()
            .position(|l| *l == command)
            .unwrap_or_else(|| panic!(".ci/run does not run '{command}' as a line of its own"))
    };
    let (setup, test) = (at(&commands[0]), at(&commands[1]));
    assert!(setup < test, "set-up runs before the tests");
    // Nothing installs anything before the set-up, and no other set-up
    // (such as a --dev variant) stands in for it.
    assert!(
        lines[..setup]
            .iter()
            .all(|l| l.starts_with("set ") || l.starts_with("cd ")),
        "{:?}",
        &lines[..setup]
    );
    assert_eq!(
        lines.iter().filter(|l| l.contains("setup.sh")).count(),
        1,
        "{lines:?}"
    );
}
