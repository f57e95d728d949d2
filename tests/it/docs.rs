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

/// The anchor a heading gets (lower case, spaces to hyphens, punctuation
/// other than hyphens and underscores dropped).
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown document's headings.
fn anchors(text: &str) -> Vec<String> {
    let mut in_code = false;
    text.lines()
        .filter(|l| {
            if l.starts_with("```") {
                in_code = !in_code;
            }
            !in_code && l.starts_with('#')
        })
        .map(|l| anchor_of(l.trim_start_matches('#')))
        .collect()
}

#[test]
fn links_between_the_documents_lead_somewhere() {
    let root = crate::common::repo_root();
    let mut documents = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            documents.push(path);
        }
    }
    assert!(documents.len() > 5, "docs/ holds the documents");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.lines().count() <= 300,
        "README stays short: {} lines",
        readme.lines().count()
    );
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in &documents {
        let text = std::fs::read_to_string(doc).unwrap();
        for link in text.split("](").skip(1) {
            let Some(target) = link.split(')').next() else {
                continue;
            };
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap().join(file)
            };
            checked += 1;
            let Ok(linked) = std::fs::read_to_string(&path) else {
                if !path.exists() {
                    broken.push(format!("{}: {target}", doc.display()));
                }
                continue;
            };
            if !anchor.is_empty() && !anchors(&linked).iter().any(|a| a == anchor) {
                broken.push(format!("{}: {target} (no such heading)", doc.display()));
            }
        }
    }
    assert!(checked > 20, "{checked} links checked");
    assert!(broken.is_empty(), "broken links: {broken:#?}");
}
