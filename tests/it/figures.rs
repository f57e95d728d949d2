//! Figures the documents give that the binary decides: each is read from
//! the sentence that states it and compared with what keep prints or the
//! constant it runs on, so a change to one without the other fails here.

use serde_json::{Value, json};

use crate::common::{Env, repo_root};
use crate::mcp::{exchange_with, handshake, request};

fn document(name: &str) -> String {
    std::fs::read_to_string(repo_root().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The number written just after `before` in `name` (digits with `,` or
/// `.`), as the document writes it.
fn figure_after(name: &str, before: &str) -> String {
    let text = document(name)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let at = text
        .find(before)
        .unwrap_or_else(|| panic!("{name} no longer says '{before}'"));
    text[at + before.len()..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.')
        .collect::<String>()
        .trim_end_matches(['.', ','])
        .to_string()
}

/// `1234567` as the documents write it: `1,234,567`.
fn with_commas(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The bytes of the JSON of the `tools/list` result, as a client gets it.
fn tools_list_bytes(args: &[&str]) -> usize {
    let env = Env::new();
    let mut lines = handshake();
    lines.push(request(2, "tools/list", json!({})));
    let answers = exchange_with(&env, args, &lines);
    let result: &Value = &answers["2"][0]["result"];
    serde_json::to_string(result).unwrap().len()
}

#[test]
fn the_tool_lists_size_is_what_the_documents_say() {
    let core = tools_list_bytes(&["mcp"]);
    let all = tools_list_bytes(&["mcp", "--tools", "all"]);
    assert_eq!(
        figure_after("docs/benchmarks.md", "before;"),
        with_commas(core),
        "docs/benchmarks.md: the core tool list"
    );
    assert_eq!(
        figure_after(
            "docs/benchmarks.md",
            "bytes for the 10 of `--tools core` (the default, compact: no output schemas or icons) and"
        ),
        with_commas(all),
        "docs/benchmarks.md: the tool list with --tools all"
    );
    assert_eq!(
        figure_after("docs/agents.md", "without output schemas or icons:"),
        format!("{:.1}", core as f64 / 1000.0),
        "docs/agents.md: the core tool list in KB"
    );
    assert_eq!(
        figure_after(
            "docs/agents.md",
            "where every tool with its output schema is"
        ),
        format!("{}", (all as f64 / 1000.0).round()),
        "docs/agents.md: the whole tool list in KB"
    );
}

#[test]
fn the_defaults_the_documents_give_are_keeps() {
    let floor = format!("{}", keep_core::recall::weights::RELEVANCE_FLOOR);
    assert_eq!(figure_after("docs/recall.md", "Below the floor,"), floor);
    assert_eq!(
        figure_after("docs/commands.md", "the relevance floor ("),
        floor
    );

    let trash = format!("{}", keep_core::settings::DEFAULT_TRASH_DAYS);
    assert_eq!(
        figure_after("docs/configuration.md", "| `trash_days` | number |"),
        trash
    );
    assert_eq!(figure_after("docs/commands.md", "`trash_days`,"), trash);

    let budget = with_commas(keep_commands::context::DEFAULT_MAX_TOKENS);
    assert_eq!(
        figure_after(
            "docs/commands.md",
            "the block a session starts with, within"
        ),
        budget
    );

    // The size an index starts at, as keep doctor says it.
    let env = Env::on(false);
    env.put("one note", &[]);
    // (It exits 1 here: the test's home has no runtime.)
    let doctor = String::from_utf8(env.run(&["doctor"]).stdout).unwrap();
    let from = doctor
        .lines()
        .find(|l| l.contains("an index starts at"))
        .and_then(|l| l.split("an index starts at ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("keep doctor names where an index starts")
        .to_string();
    assert_eq!(
        figure_after("docs/configuration.md", "| `vector_index_from` | integer |"),
        from
    );
}
