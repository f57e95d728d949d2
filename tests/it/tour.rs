//! The README's quick tour is what keep prints: each `$` line of its block
//! runs, in order, in a fresh store with the real model and a fixed clock,
//! over the files below, and what it prints must be the lines under it
//! (the test's home written as /home/me). `KEEP_UPDATE_DOCS=1` writes the
//! outputs in.

use crate::common::{Env, repo_root};

/// The files the tour names, as a reader's would be.
const FILES: &[(&str, &str)] = &[
    (
        "notes/design.md",
        "# Store layer design\n\nThe store keeps one SQLite database in WAL mode. Readers never wait for the writer; one writer at a time holds the lock, and every write is one transaction.\n",
    ),
    (
        "papers/checkpoints.md",
        "# Checkpoints\n\nA checkpoint moves the pages of the write-ahead log back into the database file, so the log does not grow without end.\n",
    ),
    (
        "papers/ranking.txt",
        "Full-text search ranks its matches with BM25: rare words count for more than common ones, and long documents are not favoured.\n",
    ),
    ("papers/scratch.tmp", "half a thought\n"),
];

/// Where the tour's block lies in the README: its first line and the
/// line of its closing fence.
fn tour_block(readme: &str) -> (usize, usize) {
    let lines: Vec<&str> = readme.lines().collect();
    let heading = lines
        .iter()
        .position(|l| *l == "## A quick tour")
        .expect("README.md has a quick tour");
    let open = heading
        + lines[heading..]
            .iter()
            .position(|l| *l == "```sh")
            .expect("the tour has a sh block");
    let close = open
        + 1
        + lines[open + 1..]
            .iter()
            .position(|l| *l == "```")
            .expect("the tour's block is closed");
    (open + 1, close)
}

/// The block as the binary makes it: each `$` line, then what it printed.
fn run_tour(commands: &[&str]) -> String {
    let mut env = Env::on(false);
    env.install_model();
    for (path, text) in FILES {
        let file = env.path(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let home = env.path("").display().to_string();
    let home = home.trim_end_matches('/');
    let mut block = String::new();
    for line in commands {
        block.push_str(line);
        block.push('\n');
        let command = line.strip_prefix("$ ").expect("a $ line");
        let out = env.sh(command);
        assert!(
            out.status.success(),
            "the tour's `{command}` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        block.push_str(&String::from_utf8_lossy(&out.stdout).replace(home, "/home/me"));
    }
    block
}

#[test]
fn the_readme_tour_shows_what_keep_prints() {
    let path = repo_root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (first, close) = tour_block(&readme);
    let lines: Vec<&str> = readme.lines().collect();
    let shown = lines[first..close].join("\n") + "\n";
    let commands: Vec<&str> = lines[first..close]
        .iter()
        .copied()
        .filter(|l| l.starts_with("$ "))
        .collect();
    assert!(commands.len() >= 5, "the tour runs at least five commands");
    let printed = run_tour(&commands);
    if std::env::var_os("KEEP_UPDATE_DOCS").is_some() {
        let mut fresh: Vec<String> = lines[..first].iter().map(|l| l.to_string()).collect();
        fresh.extend(printed.lines().map(str::to_string));
        fresh.extend(lines[close..].iter().map(|l| l.to_string()));
        std::fs::write(&path, fresh.join("\n") + "\n").unwrap();
    } else {
        assert_eq!(
            shown, printed,
            "README.md's tour is not what keep prints (KEEP_UPDATE_DOCS=1 cargo test --test it tour writes it)"
        );
    }
}
