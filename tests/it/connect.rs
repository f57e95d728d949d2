//! `keep connect` against each client's real file layout in a home folder
//! of the test's own: the entry merged into files that already hold other
//! servers, settings and comments; a second run changing nothing; files
//! that cannot be merged left byte for byte; and the entry written really
//! starting a keep that answers MCP.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::Env;

/// A client, the file of it in the test's home, a file as a user has it
/// (other servers, settings, comments where the format has them), and
/// lines of that file that must survive the merge unchanged.
struct Layout {
    client: &'static str,
    file: &'static str,
    before: &'static str,
    kept: &'static [&'static str],
}

const LAYOUTS: &[Layout] = &[
    Layout {
        client: "claude-code",
        file: ".claude.json",
        before: "{\n  \"numStartups\": 12,\n  \"projects\": {\"/src/app\": {\"allowedTools\": []}},\n  \"mcpServers\": {\n    \"github\": {\"type\": \"stdio\", \"command\": \"gh-mcp\", \"args\": []}\n  }\n}\n",
        kept: &[
            "\"numStartups\": 12,",
            "\"github\": {\"type\": \"stdio\", \"command\": \"gh-mcp\", \"args\": []}",
        ],
    },
    Layout {
        client: "claude-desktop",
        file: ".config/Claude/claude_desktop_config.json",
        before: "{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"fs-mcp\"]}}, \"globalShortcut\": \"Ctrl+Space\"}\n",
        kept: &[
            "\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"fs-mcp\"]}",
            "\"globalShortcut\": \"Ctrl+Space\"",
        ],
    },
    Layout {
        client: "cursor",
        file: ".cursor/mcp.json",
        before: "{\n  \"mcpServers\": {\n    \"docs\": {\"url\": \"http://docs.internal/mcp\"}\n  }\n}\n",
        kept: &["\"docs\": {\"url\": \"http://docs.internal/mcp\"}"],
    },
    Layout {
        client: "vscode",
        file: ".config/Code/User/mcp.json",
        before: "// My servers\n{\n  \"inputs\": [],\n  \"servers\": {\n    // the one at work\n    \"work\": {\"type\": \"http\", \"url\": \"https://work.example/mcp\"},\n  },\n}\n",
        kept: &[
            "// My servers",
            "    // the one at work",
            "\"work\": {\"type\": \"http\", \"url\": \"https://work.example/mcp\"},",
        ],
    },
    Layout {
        client: "windsurf",
        file: ".codeium/windsurf/mcp_config.json",
        before: "{\"mcpServers\": {}}\n",
        kept: &[],
    },
    Layout {
        client: "zed",
        file: ".config/zed/settings.json",
        before: "// Zed settings\n//\n// For information on how to configure Zed, see the Zed documentation.\n{\n  \"ui_font_size\": 16, // bigger\n  \"theme\": {\"mode\": \"system\", \"light\": \"One Light\", \"dark\": \"One Dark\"},\n  \"context_servers\": {\n    \"sqlite\": {\"command\": \"uvx\", \"args\": [\"mcp-server-sqlite\"], \"env\": {}}\n  }\n}\n",
        kept: &[
            "// For information on how to configure Zed, see the Zed documentation.",
            "\"ui_font_size\": 16, // bigger",
            "\"sqlite\": {\"command\": \"uvx\", \"args\": [\"mcp-server-sqlite\"], \"env\": {}}",
        ],
    },
    Layout {
        client: "codex",
        file: ".codex/config.toml",
        before: "# Codex\nmodel = \"gpt-5-codex\" # the default\napproval_policy = \"on-request\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--stdio\"]\n\n[profiles.fast]\nmodel = \"gpt-5-mini\"\n",
        kept: &[
            "# Codex",
            "model = \"gpt-5-codex\" # the default",
            "[mcp_servers.docs]",
            "args = [\"--stdio\"]",
            "[profiles.fast]",
        ],
    },
];

/// The parsed document of a client's file (JSON with comments, or TOML).
fn parse(client: &str, text: &str) -> Value {
    if client == "codex" {
        toml::from_str(text).expect("TOML")
    } else {
        jsonc_parser::parse_to_serde_value(text, &Default::default())
            .unwrap_or_else(|e| panic!("{e}: {text}"))
    }
}

/// The keys leading to the servers in a client's file.
fn servers<'a>(client: &str, doc: &'a Value) -> &'a Value {
    match client {
        "vscode" => &doc["servers"],
        "zed" => &doc["context_servers"],
        "codex" => &doc["mcp_servers"],
        _ => &doc["mcpServers"],
    }
}

fn keep_binary() -> String {
    std::fs::canonicalize(Env::bin())
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn every_client_gets_the_entry_merged_into_its_own_file_and_a_second_run_changes_nothing() {
    let env = Env::new();
    for layout in LAYOUTS {
        let file = env.path(layout.file);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, layout.before).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();

        let out = env.ok(&["connect", layout.client, "--write"]);
        assert!(
            out.starts_with("added keep in ") && out.contains(layout.file),
            "{}: {out}",
            layout.client
        );
        let after = std::fs::read_to_string(&file).unwrap();
        for line in layout.kept {
            assert!(
                after.contains(line),
                "{}: lost {line:?}:\n{after}",
                layout.client
            );
        }
        let doc = parse(layout.client, &after);
        let before = parse(layout.client, layout.before);
        let entry = &servers(layout.client, &doc)["keep"];
        assert_eq!(entry["command"], keep_binary(), "{}", layout.client);
        assert_eq!(entry["args"], json!(["mcp"]), "{}", layout.client);
        assert_eq!(
            entry["env"]["KEEP_STORE"],
            env.store_arg(),
            "{}",
            layout.client
        );
        // Everything else is as it was.
        let mut without = doc.clone();
        let table = match layout.client {
            "vscode" => "servers",
            "zed" => "context_servers",
            "codex" => "mcp_servers",
            _ => "mcpServers",
        };
        without[table].as_object_mut().unwrap().remove("keep");
        assert_eq!(without, before, "{}", layout.client);
        let backup = PathBuf::from(format!("{}.keep.bak", file.display()));
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), layout.before);
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode, 0o600,
            "{}: the file's permissions stay",
            layout.client
        );

        let again = env.ok(&["connect", layout.client, "--write"]);
        assert!(
            again.contains("nothing changed"),
            "{}: {again}",
            layout.client
        );
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            after,
            "{}",
            layout.client
        );
    }
    let listing = env.json(&["connect"]);
    let rows = listing.as_array().unwrap();
    assert_eq!(rows.len(), LAYOUTS.len());
    assert!(rows.iter().all(|r| r["has_keep"] == true), "{listing}");
}

#[test]
fn files_that_do_not_exist_yet_are_made_with_only_the_entry() {
    let env = Env::new();
    for layout in LAYOUTS {
        let out = env.ok(&["connect", layout.client, "--write"]);
        assert!(out.starts_with("added keep in "), "{out}");
        let text = std::fs::read_to_string(env.path(layout.file)).unwrap();
        let doc = parse(layout.client, &text);
        let servers = servers(layout.client, &doc).as_object().unwrap();
        assert_eq!(
            servers.keys().collect::<Vec<_>>(),
            ["keep"],
            "{}",
            layout.client
        );
        assert!(
            !Path::new(&format!("{}.keep.bak", env.path(layout.file).display())).exists(),
            "no backup of a file that was not there"
        );
    }
}

#[test]
fn a_file_that_cannot_be_merged_is_left_byte_for_byte_and_the_entry_printed() {
    let env = Env::new();
    let cases = [
        (
            "cursor",
            ".cursor/mcp.json",
            "{\"mcpServers\": {\"docs\": {\"url\": \"x\"}\n",
        ),
        (
            "vscode",
            ".config/Code/User/mcp.json",
            "{\"servers\": [\"not\", \"a\", \"table\"]}\n",
        ),
        (
            "codex",
            ".codex/config.toml",
            "model = \"o3\"\nmcp_servers = \"none\"\n",
        ),
        ("claude-code", ".claude.json", "[1, 2, 3]\n"),
    ];
    for (client, name, text) in cases {
        let file = env.path(name);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        let out = env.run(&["connect", client, "--write"]);
        assert_eq!(out.status.code(), Some(1), "{client}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("cannot be merged") && stderr.contains("left untouched"),
            "{client}: {stderr}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "{client}");
        assert!(!Path::new(&format!("{}.keep.bak", file.display())).exists());
        let snippet = String::from_utf8_lossy(&out.stdout);
        assert!(snippet.contains(&keep_binary()), "{client}: {snippet}");
    }
}

#[test]
fn printing_names_the_file_and_changes_nothing() {
    let env = Env::new();
    let out = env.run(&["connect", "vscode"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(".config/Code/User/mcp.json"), "{stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["servers"]["keep"]["type"], "stdio");
    assert!(
        !env.path(".config/Code").exists(),
        "printing writes nothing"
    );
    let codex = env.ok(&["connect", "codex"]);
    assert!(codex.starts_with("[mcp_servers.keep]\n"), "{codex}");
}

#[test]
fn project_files_sit_in_the_project_and_clients_without_one_say_which_have() {
    let env = Env::new();
    let project = env.path("app");
    std::fs::create_dir_all(&project).unwrap();
    let dir = project.to_str().unwrap();
    for (client, name) in [
        ("claude-code", ".mcp.json"),
        ("cursor", ".cursor/mcp.json"),
        ("vscode", ".vscode/mcp.json"),
        ("zed", ".zed/settings.json"),
        ("codex", ".codex/config.toml"),
    ] {
        env.ok(&["connect", client, "--project", dir, "--write"]);
        assert!(project.join(name).is_file(), "{client}");
    }
    let err = env.fails(&["connect", "windsurf", "--project", dir], 2);
    assert!(
        err.contains("Windsurf has no project file") && err.contains("cursor"),
        "{err}"
    );
}

#[test]
fn a_server_over_http_takes_a_token_only_off_this_machine() {
    let mut env = Env::new();
    let local = env.json(&["connect", "cursor", "--http", "http://127.0.0.1:7377/mcp"]);
    assert_eq!(local["entry"], json!({"url": "http://127.0.0.1:7377/mcp"}));
    let err = env.fails(
        &["connect", "cursor", "--http", "http://10.1.2.3:7377/mcp"],
        2,
    );
    assert!(
        err.contains("needs its token") && err.contains("KEEP_SERVE_TOKEN"),
        "{err}"
    );
    env.set("KEEP_SERVE_TOKEN", "0123abcd");
    let remote = env.json(&["connect", "windsurf", "--http", "http://10.1.2.3:7377/mcp"]);
    assert_eq!(
        remote["entry"],
        json!({"serverUrl": "http://10.1.2.3:7377/mcp", "headers": {"Authorization": "Bearer 0123abcd"}})
    );
    env.ok(&[
        "connect",
        "codex",
        "--http",
        "http://10.1.2.3:7377/mcp",
        "--write",
    ]);
    let codex = env.path(".codex/config.toml");
    let mode = std::fs::metadata(&codex).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode, 0o600,
        "a new file holding a token is its owner's only"
    );
    let err = env.fails(
        &[
            "connect",
            "claude-desktop",
            "--http",
            "http://127.0.0.1:7377/mcp",
        ],
        2,
    );
    assert!(err.contains("Claude Desktop"), "{err}");
}

#[test]
fn a_linked_file_is_written_through_its_link() {
    let env = Env::new();
    let real = env.path("dotfiles/cursor-mcp.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, "{\"mcpServers\": {}}\n").unwrap();
    std::fs::create_dir_all(env.path(".cursor")).unwrap();
    std::os::unix::fs::symlink(&real, env.path(".cursor/mcp.json")).unwrap();
    env.ok(&["connect", "cursor", "--write"]);
    assert!(
        std::fs::symlink_metadata(env.path(".cursor/mcp.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    assert_eq!(doc["mcpServers"]["keep"]["args"], json!(["mcp"]));
}

#[test]
fn the_entry_written_starts_a_keep_that_answers_mcp() {
    let env = Env::new();
    env.put("The ferry leaves the harbour at seven.", &[]);
    let notes = env.path("notes");
    std::fs::create_dir_all(&notes).unwrap();
    env.ok(&[
        "connect",
        "claude-desktop",
        "--write",
        "--allow",
        notes.to_str().unwrap(),
    ]);
    let text =
        std::fs::read_to_string(env.path(".config/Claude/claude_desktop_config.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let entry = &doc["mcpServers"]["keep"];
    // Started as the client starts it: the command, its arguments and its
    // env, from another folder, with nothing else of the test's.
    let mut cmd = Command::new(entry["command"].as_str().unwrap());
    for arg in entry["args"].as_array().unwrap() {
        cmd.arg(arg.as_str().unwrap());
    }
    cmd.env_clear().env("HOME", env.path("")).current_dir("/");
    for (key, value) in entry["env"].as_object().unwrap() {
        cmd.env(key, value.as_str().unwrap());
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |message: Value, answered: bool| -> Value {
        writeln!(stdin, "{message}").unwrap();
        if !answered {
            return Value::Null;
        }
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let init = ask(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "connect-test", "version": "1"}}}),
        true,
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "keep", "{init}");
    ask(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        false,
    );
    let listed = ask(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "list", "arguments": {"format": "ids"}}}),
        true,
    );
    let text = listed["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains('%'),
        "the client's keep sees the test's store: {listed}"
    );
    drop(stdin);
    child.wait().unwrap();
}

#[test]
fn a_link_planted_where_the_backup_goes_is_replaced_not_followed() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let project = env.path("cloned");
    std::fs::create_dir_all(&project).unwrap();
    // What a hostile repository ships: a project file, and its backup's
    // name as a link to a file of the user's.
    let victim = env.path("bashrc");
    std::fs::write(&victim, "alias ll='ls -l'\n").unwrap();
    let file = project.join(".mcp.json");
    std::fs::write(&file, "{\"mcpServers\": {}}\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let backup = project.join(".mcp.json.keep.bak");
    std::os::unix::fs::symlink(&victim, &backup).unwrap();
    env.ok(&[
        "connect",
        "claude-code",
        "--project",
        project.to_str().unwrap(),
        "--write",
    ]);
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "alias ll='ls -l'\n"
    );
    let meta = std::fs::symlink_metadata(&backup).unwrap();
    assert!(
        meta.file_type().is_file(),
        "the link is replaced by the backup"
    );
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o600,
        "the old file's mode"
    );
    assert_eq!(
        std::fs::read_to_string(&backup).unwrap(),
        "{\"mcpServers\": {}}\n"
    );
}

#[test]
fn a_project_file_never_gets_the_owners_token() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let owner = env.ok(&["serve", "--token"]).trim().to_string();
    let project = env.path("app");
    std::fs::create_dir_all(&project).unwrap();
    // A project file committed world-readable before.
    let file = project.join(".mcp.json");
    std::fs::write(&file, "{\"mcpServers\": {}}\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let dir = project.to_str().unwrap();
    let url = "https://keep.example.org/mcp";
    let args = [
        "connect",
        "claude-code",
        "--project",
        dir,
        "--http",
        url,
        "--scope",
        "project=app",
    ];
    // No server of this store here: no token a server could know.
    let mut write = args.to_vec();
    write.push("--write");
    if !env.on_postgres() {
        let out = env.run(&write);
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("wrote no token"), "{said}");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("Bearer") && !text.contains(&owner), "{text}");
    }
    // With one (or a database the servers share): a token of the
    // project's own, with its scope, in a 0600 file.
    let server = crate::serve::Server::start(&env, &["--listen", "127.0.0.1:0"]);
    // Printing makes nothing and shows no secret.
    let out = env.run(&args);
    assert!(out.status.success());
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains("Bearer TOKEN") && !printed.contains(&owner),
        "{printed}"
    );
    assert!(
        !env.ok(&["token", "list"])
            .contains("connect-claude-code-app")
    );
    let out = env.run(&write);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("made the token 'connect-claude-code-app'")
            && said.contains("keep token revoke connect-claude-code-app"),
        "{said}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains(&owner), "{text}");
    let secret = text
        .split("Bearer ")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(secret.starts_with("keep_") || secret.len() > 20, "{text}");
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let tokens = env.ok(&["token", "list"]);
    assert!(
        tokens
            .lines()
            .any(|l| l.contains("connect-claude-code-app") && l.contains("project=app")),
        "{tokens}"
    );
    // A project file that is a link is refused, not written through.
    let elsewhere = env.path("elsewhere.json");
    std::fs::write(&elsewhere, "{}\n").unwrap();
    let linked = env.path("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(&elsewhere, linked.join(".mcp.json")).unwrap();
    let err = env.fails(
        &[
            "connect",
            "claude-code",
            "--project",
            linked.to_str().unwrap(),
            "--write",
        ],
        2,
    );
    assert!(err.contains("a link in the project"), "{err}");
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "{}\n");
    // --scope with --http changes nothing but a project's token: said so.
    let err = env.fails(
        &[
            "connect",
            "cursor",
            "--http",
            "http://127.0.0.1:7377/mcp",
            "--scope",
            "a=b",
        ],
        2,
    );
    assert!(err.contains("--scope with --http"), "{err}");
    assert!(server.terminate().success());
}
