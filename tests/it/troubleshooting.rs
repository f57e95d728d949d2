//! docs/troubleshooting.md quotes each message as keep prints it: every
//! quote is either made here by running the binary (and must then match
//! a line of what it printed, with the exit status the document gives),
//! or named below with the reason it cannot be made in a test.

use std::process::Output;

use crate::common::{Env, repo_root};

/// A way to make one message: the start of its quote, and the run.
struct Case {
    quote: &'static str,
    run: fn() -> Run,
}

/// What a run printed on stderr, and the folders to write as the document
/// does (the test's home as `~`, its data folder as `~/.local/share`).
struct Run {
    output: Output,
    home: String,
}

impl Run {
    fn of(env: &Env, output: Output) -> Run {
        Run {
            output,
            home: env
                .path("")
                .display()
                .to_string()
                .trim_end_matches('/')
                .to_string(),
        }
    }

    /// Each line of stderr, spaces collapsed, the test's folders as the
    /// document writes them.
    fn lines(&self) -> Vec<String> {
        let home = &self.home;
        String::from_utf8_lossy(&self.output.stderr)
            .lines()
            .map(|line| {
                let line = line
                    .replace(&format!("{home}/data"), "~/.local/share")
                    .replace(home.as_str(), "~");
                line.split_whitespace().collect::<Vec<_>>().join(" ")
            })
            .collect()
    }
}

const NOT_MADE_HERE: &[(&str, &str)] = &[
    ("install: missing:", "printed by scripts/install.sh"),
    (
        "keep: keep serve (pid N) runs keep X",
        "needs two builds of keep",
    ),
    (
        "keep: the store DIR is read-only here",
        "the suite runs as root, which may write anywhere",
    ),
    (
        "keep: the disk is full",
        "made with a full file system in tests/it/faults.rs",
    ),
    (
        "keep: cannot connect to the database server ...:",
        "needs a PostgreSQL server set up so (tests/it/pg_tls.rs)",
    ),
    ("...:", "a PostgreSQL link's refusal (tests/it/pg_tls.rs)"),
    (
        "keep: the link to postgres://",
        "needs a PostgreSQL server without TLS (tests/it/pg_tls.rs)",
    ),
    (
        "keep: the store postgres://reader@",
        "needs a PostgreSQL role that may not write (tests/it/replicas.rs)",
    ),
    (
        "keep: lost the connection to the database server",
        "needs a PostgreSQL server stopped mid-write (tests/it/faults.rs)",
    ),
    ("setup:", "printed by scripts/setup.sh"),
    (
        "the model servers are not installed",
        "printed by the provider tests",
    ),
    ("could not start PostgreSQL", "printed by the test suite"),
    ("keep doctor", "a check's line, not a message"),
    ("keep check", "a command's name, not a message"),
];

const CASES: &[Case] = &[
    Case {
        quote: "keep: semantic recall is off (embedding model not found",
        run: || {
            let env = Env::new();
            env.put("hello world", &[]);
            Run::of(&env, env.run(&["find", "hello"]))
        },
    },
    Case {
        quote: "keep: semantic recall is off (ONNX Runtime not found",
        run: || {
            let mut env = Env::with_model();
            env.put("hello world", &[]);
            let lib = env.path("elsewhere/libonnxruntime.so");
            env.set("KEEP_ORT_LIB", &lib.display().to_string());
            Run::of(&env, env.run(&["find", "hello"]))
        },
    },
    Case {
        quote: "keep: downloading onnxruntime==1.31.1 needs pip",
        run: || {
            let mut env = Env::new();
            let python = env.path("python3");
            std::fs::write(
                &python,
                "#!/bin/sh\necho \"python3: No module named pip\" >&2\nexit 1\n",
            )
            .unwrap();
            make_executable(&python);
            env.set("KEEP_PYTHON", &python.display().to_string());
            Run::of(&env, env.run(&["models", "install", "runtime"]))
        },
    },
    Case {
        quote: "keep: N note(s) are stored without the text in their images",
        run: || {
            let env = Env::new();
            let scan = repo_root().join("testdata/ingest/scan.png");
            Run::of(&env, env.run(&["put", &scan.display().to_string()]))
        },
    },
    Case {
        quote: "keep: nothing is installed in",
        run: || {
            let env = Env::new();
            Run::of(&env, env.run(&["models", "verify"]))
        },
    },
    Case {
        quote: "keep: FILE: cannot be merged",
        run: || {
            let env = Env::new();
            std::fs::create_dir_all(env.path(".cursor")).unwrap();
            std::fs::write(env.path(".cursor/mcp.json"), "{ \"mcpServers\": [ oops").unwrap();
            Run::of(&env, env.run(&["connect", "cursor", "--write"]))
        },
    },
    Case {
        quote: "keep: --http URL: a server off this machine needs its token",
        run: || {
            let env = Env::new();
            let args = [
                "connect",
                "claude-code",
                "--http",
                "https://keep.example.org:7377/mcp",
            ];
            Run::of(&env, env.run(&args))
        },
    },
    Case {
        quote: "keep: a server already serves DIR",
        run: || {
            let env = Env::new();
            let mut first = env
                .cmd(&["serve", "--listen", "127.0.0.1:0"])
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while !env.run(&["serve", "--status"]).status.success() {
                assert!(
                    std::time::Instant::now() < deadline,
                    "keep serve did not start"
                );
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            let second = env.run(&["serve", "--listen", "127.0.0.1:0"]);
            first.kill().unwrap();
            first.wait().unwrap();
            Run::of(&env, second)
        },
    },
    Case {
        quote: "keep: ~/.config/keep/config.toml: line 1, colour",
        run: || list_with_config("colour = \"blue\"\n"),
    },
    Case {
        quote: "keep: ~/.config/keep/config.toml: [providers.summarize]",
        run: || {
            list_with_config(
                "[providers.summarize]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\napi_key_env = \"OPENAI_API_KEY\"\n",
            )
        },
    },
    Case {
        quote: "keep: KEEP_CLOCK:",
        run: || list_with("KEEP_CLOCK", "yesterday"),
    },
    Case {
        quote: "keep: KEEP_BACKGROUND_EMBED:",
        run: || list_with("KEEP_BACKGROUND_EMBED", "x"),
    },
    Case {
        quote: "keep: no such file or folder",
        run: || {
            let env = Env::new();
            Run::of(&env, env.run(&["put", "./missing.md"]))
        },
    },
    Case {
        quote: "keep: no note 'ID'",
        run: || {
            let env = Env::new();
            Run::of(&env, env.run(&["get", "wifi"]))
        },
    },
    Case {
        quote: "keep: the store /etc/passwd is a file",
        run: || list_with("KEEP_STORE", "/etc/passwd"),
    },
    Case {
        quote: "keep: the store at DIR was written by a newer keep",
        run: || {
            let env = Env::on(false);
            env.put("hello world", &[]);
            env.sql("PRAGMA user_version = 999");
            Run::of(&env, env.run(&["list"]))
        },
    },
    Case {
        quote: "keep: cannot connect to the database server postgres://USER@HOST:PORT/DB",
        run: || list_with("KEEP_STORE", "postgres://ana@127.0.0.1:1/keep"),
    },
    Case {
        quote: "keep: nothing relevant:",
        run: || {
            let env = Env::with_model();
            for text in [
                "The piano concert was held at the city zoo.",
                "Horses and antelopes graze on the savanna.",
                "The chess championship final is on Sunday.",
                "Our orchestra needs a new cellist for the spring season.",
            ] {
                env.put(text, &[]);
            }
            Run::of(&env, env.run(&["find", "zebra harpsichord tournament"]))
        },
    },
    Case {
        quote: "keep: nothing found",
        run: || {
            let env = Env::new();
            env.put("hello world", &[]);
            Run::of(&env, env.run(&["find", "hello", "-t", "project=none"]))
        },
    },
];

/// `keep list` with the variable `key` set to `value`.
fn list_with(key: &str, value: &str) -> Run {
    let mut env = Env::new();
    env.set(key, value);
    Run::of(&env, env.run(&["list"]))
}

/// `keep list` with `contents` as `~/.config/keep/config.toml`.
fn list_with_config(contents: &str) -> Run {
    let mut env = Env::new();
    let config = env.path(".config/keep/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, contents).unwrap();
    env.set("KEEP_CONFIG", &config.display().to_string());
    Run::of(&env, env.run(&["list"]))
}

fn make_executable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A quote of the document and the exit status it gives, when it gives one.
struct Quote {
    text: String,
    exit: Option<i32>,
}

/// Each bold code span of the document (`` **`...`** `` or
/// ``` **``...``** ```), spaces collapsed, with the first `exit N` of
/// the text that follows it up to the next quote or blank line.
fn quotes(document: &str) -> Vec<Quote> {
    let span = regex::Regex::new(r"(?s)\*\*``(.+?)``\*\*|\*\*`([^`]+)`\*\*").unwrap();
    let exit = regex::Regex::new(r"\bexit (\d)\b").unwrap();
    let found: Vec<_> = span.captures_iter(document).collect();
    found
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let whole = c.get(0).unwrap();
            let inner = c.get(1).or_else(|| c.get(2)).unwrap().as_str();
            let next = found
                .get(i + 1)
                .map_or(document.len(), |n| n.get(0).unwrap().start());
            let after = &document[whole.end()..next];
            let after = after.split("\n\n").next().unwrap_or("");
            Quote {
                text: inner.split_whitespace().collect::<Vec<_>>().join(" "),
                exit: exit.captures(after).map(|e| e[1].parse().unwrap()),
            }
        })
        .collect()
}

/// The quote as a pattern for one whole line: `...` and the names the
/// document puts for a value (DIR, FILE, N, ...) stand for any text.
fn pattern_of(quote: &str) -> regex::Regex {
    const NAMES: [&str; 13] = [
        "DIR", "FILE", "PATH", "URL", "ID", "N", "M", "X", "Y", "HOST", "PORT", "DB", "USER",
    ];
    let mut pattern = String::from("^");
    for (i, word) in quote.split("...").enumerate() {
        if i > 0 {
            pattern.push_str(".+?");
        }
        let escaped = regex::escape(word);
        let named = regex::Regex::new(&format!(r"\b(?:{})\b", NAMES.join("|"))).unwrap();
        pattern.push_str(&named.replace_all(&escaped, ".+?"));
    }
    pattern.push('$');
    regex::Regex::new(&pattern).unwrap()
}

fn troubleshooting() -> Vec<Quote> {
    let path = repo_root().join("docs/troubleshooting.md");
    quotes(&std::fs::read_to_string(path).unwrap())
}

#[test]
fn every_quoted_message_is_made_here_or_says_why_not() {
    let unplaced: Vec<String> = troubleshooting()
        .into_iter()
        .map(|q| q.text)
        .filter(|text| {
            !CASES.iter().any(|c| text.starts_with(c.quote))
                && !NOT_MADE_HERE
                    .iter()
                    .any(|(start, _)| text.starts_with(start))
        })
        .collect();
    assert!(
        unplaced.is_empty(),
        "docs/troubleshooting.md quotes messages this test neither makes nor names: {unplaced:#?}"
    );
}

#[test]
fn the_quoted_messages_are_what_keep_prints() {
    let quotes = troubleshooting();
    let mut wrong = Vec::new();
    for case in CASES {
        let quote = quotes
            .iter()
            .find(|q| q.text.starts_with(case.quote))
            .unwrap_or_else(|| panic!("docs/troubleshooting.md no longer quotes '{}'", case.quote));
        let run = (case.run)();
        let lines = run.lines();
        let pattern = pattern_of(&quote.text);
        if !lines.iter().any(|line| pattern.is_match(line)) {
            wrong.push(format!("quoted: {}\nprinted: {lines:#?}", quote.text));
        }
        if let Some(code) = quote.exit
            && run.output.status.code() != Some(code)
        {
            wrong.push(format!(
                "quoted: {} (exit {code})\nexited: {:?}",
                quote.text,
                run.output.status.code()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
