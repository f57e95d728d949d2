//! The checked-in completions, man pages and the sections of the
//! documents made from the code match it; the JSON shapes the documents
//! show are those of the real output (the snapshots of json_shapes.rs);
//! links between the documents lead somewhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

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

#[test]
fn sections_made_from_the_code_and_the_real_output_are_fresh() {
    let root = crate::common::repo_root();
    let update = std::env::var_os("KEEP_UPDATE_DOCS").is_some();
    let mut by_file: BTreeMap<&str, Vec<(&str, String)>> = BTreeMap::new();
    for (file, name, contents) in keep::cli::docs::generated_sections() {
        by_file.entry(file).or_default().push((name, contents));
    }
    by_file
        .entry("docs/scripting.md")
        .or_default()
        .push(("json-shapes", json_shapes_table(&root)));
    let mut stale = Vec::new();
    for (file, sections) in by_file {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut fresh = text.clone();
        for (name, contents) in sections {
            fresh = keep::cli::docs::fill(&fresh, name, &contents)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
        }
        if update {
            std::fs::write(&path, &fresh).unwrap();
        } else if fresh != text {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "stale sections (run KEEP_UPDATE_DOCS=1 cargo test --test it docs): {stale:?}"
    );
}

/// Each `--json` snapshot of json_shapes.rs: the command it ran (its
/// description) and the document it printed.
fn json_snapshots(root: &Path) -> Vec<(String, Value)> {
    let dir = root.join("tests/it/snapshots");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("it__json_shapes__") && n.ends_with(".snap"))
        .collect();
    names.sort();
    names
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            let mut pieces = text.splitn(3, "---\n");
            let (header, body) = (pieces.nth(1).unwrap(), pieces.next().unwrap());
            let command = header
                .lines()
                .find_map(|l| l.strip_prefix("description: "))
                .unwrap_or_else(|| panic!("{name} names no command"))
                .trim_matches('"')
                .replace("\\\"", "\"");
            (command, serde_json::from_str(body).expect(name))
        })
        .collect()
}

/// The keys of a JSON document, nested ones after a colon (tags, a
/// note's own data, are not a shape).
fn shape(value: &Value, depth: usize) -> String {
    let nested = |v: &Value| match v {
        Value::Object(m) if !m.is_empty() && depth < 2 => Some(shape(v, depth + 1)),
        Value::Array(items) if items.first().is_some_and(Value::is_object) && depth < 2 => {
            Some(shape(v, depth + 1))
        }
        _ => None,
    };
    match value {
        Value::Object(map) => {
            let keys: Vec<String> = map
                .iter()
                .map(
                    |(k, v)| match nested(v).filter(|_| k != "tags" && !k.starts_with("tags_")) {
                        Some(inner) => format!("\"{k}\": {inner}"),
                        None => format!("\"{k}\""),
                    },
                )
                .collect();
            format!("{{{}}}", keys.join(", "))
        }
        Value::Array(items) => match items.first() {
            Some(first) => format!("[{}]", shape(first, depth)),
            None => "[]".into(),
        },
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

fn json_shapes_table(root: &Path) -> String {
    let mut out = String::from("| command | prints |\n|---|---|\n");
    for (command, value) in json_snapshots(root) {
        out.push_str(&format!("| `{command}` | `{}` |\n", shape(&value, 0)));
    }
    out
}

fn keys_of(value: &Value, keys: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                keys.insert(k.clone());
                if k != "tags" {
                    keys_of(v, keys);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| keys_of(i, keys)),
        _ => {}
    }
}

#[test]
fn json_fields_the_documents_name_are_fields_keep_prints() {
    let root = crate::common::repo_root();
    let mut keys = BTreeSet::new();
    for (_, value) in json_snapshots(&root) {
        keys_of(&value, &mut keys);
    }
    let text = std::fs::read_to_string(root.join("docs/scripting.md")).unwrap();
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("JSON output"))
        .expect("docs/scripting.md has a 'JSON output' section");
    let mut unknown = Vec::new();
    for quoted in section.split('"').skip(1).step_by(2) {
        let is_field =
            !quoted.is_empty() && quoted.chars().all(|c| c.is_ascii_lowercase() || c == '_');
        if is_field && !keys.contains(quoted) {
            unknown.push(quoted.to_string());
        }
    }
    assert!(
        unknown.is_empty(),
        "docs/scripting.md names JSON fields no command prints: {unknown:?}"
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
    let mut documents = vec![root.join("README.md"), root.join("CHANGELOG.md")];
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

/// The browser's screen in the README is the one its tests render (the
/// snapshot `keep ui` is held to, 80 by 24, high contrast).
#[test]
fn the_readme_shows_the_screen_the_browser_renders() {
    let root = crate::common::repo_root();
    let snapshot = std::fs::read_to_string(root.join(
        "crates/keep/src/tui/snapshots/keep__tui__tests__screen_browse_narrow_high_contrast.snap",
    ))
    .unwrap();
    let body = snapshot.splitn(3, "---\n").nth(2).expect("a snapshot body");
    let screen = body.split("\n\n").next().unwrap().trim_end_matches('\n');
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("```text\n{screen}\n```")),
        "README.md does not show the browser's screen as it renders"
    );
}
