//! Puts one server entry into a client's configuration text, keeping
//! everything else as it was: other servers and settings, and in JSON with
//! comments or TOML, the comments, order and layout. The result is parsed
//! again and must equal the old document with only the entry added or
//! replaced; a text that cannot be merged that way is refused, untouched.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::{Map, Value};

use super::{Syntax, Target};

/// What merging did to the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Added,
    Updated,
    Unchanged,
    Removed,
}

/// The merged text and what it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub text: String,
    pub outcome: Outcome,
}

/// Why a text was left as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Puts `entry` under `name` in the servers table of `target` in
/// `existing` (None or blank: a new file).
pub fn merge(
    existing: Option<&str>,
    target: &Target,
    name: &str,
    entry: &Value,
) -> Result<Merged, Refused> {
    let existing = existing.filter(|t| !t.trim().is_empty());
    let before = match existing {
        Some(text) => parse(text, target.syntax)?,
        None => Value::Object(Map::new()),
    };
    let expected = with_entry(&before, target.servers, name, entry)?;
    if expected == before {
        return Ok(Merged {
            text: existing.unwrap_or_default().to_string(),
            outcome: Outcome::Unchanged,
        });
    }
    let had_entry = servers_of(&before, target.servers).is_some_and(|s| s.contains_key(name));
    let text = match (existing, target.syntax) {
        (None, Syntax::Json) => new_json(&expected),
        (None, Syntax::Toml) => new_toml(target.servers, name, entry),
        (Some(text), Syntax::Json) => edit_json(text, target.servers, name, entry)?,
        (Some(text), Syntax::Toml) => edit_toml(text, target.servers, name, entry)?,
    };
    if parse(&text, target.syntax).ok().as_ref() != Some(&expected) {
        return Err(Refused(
            "merging would change more than keep's entry; left as it was".into(),
        ));
    }
    Ok(Merged {
        text,
        outcome: if had_entry {
            Outcome::Updated
        } else {
            Outcome::Added
        },
    })
}

/// `existing` without the entry `name` in the servers table of `target`.
pub fn remove(existing: Option<&str>, target: &Target, name: &str) -> Result<Merged, Refused> {
    let unchanged = |text: &str| Merged {
        text: text.to_string(),
        outcome: Outcome::Unchanged,
    };
    let Some(text) = existing.filter(|t| !t.trim().is_empty()) else {
        return Ok(unchanged(existing.unwrap_or_default()));
    };
    let before = parse(text, target.syntax)?;
    if !servers_of(&before, target.servers).is_some_and(|s| s.contains_key(name)) {
        return Ok(unchanged(text));
    }
    let mut expected = before;
    let table = target
        .servers
        .iter()
        .try_fold(&mut expected, |v, key| v.get_mut(*key))
        .and_then(Value::as_object_mut)
        .expect("the servers table was found above");
    table.remove(name);
    let edited = match target.syntax {
        Syntax::Json => remove_json(text, target.servers, name)?,
        Syntax::Toml => remove_toml(text, target.servers, name)?,
    };
    if parse(&edited, target.syntax).ok().as_ref() != Some(&expected) {
        return Err(Refused(
            "removing the entry would change more than keep's entry; left as it was".into(),
        ));
    }
    Ok(Merged {
        text: edited,
        outcome: Outcome::Removed,
    })
}

fn remove_json(text: &str, path: &[&str], name: &str) -> Result<String, Refused> {
    let root =
        CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| Refused(e.to_string()))?;
    let mut table: CstObject = root
        .object_value()
        .ok_or_else(|| Refused("the file does not hold an object at its top".into()))?;
    for key in path {
        table = table.object_value(key).ok_or_else(|| not_a_table(path))?;
    }
    if let Some(prop) = table.get(name) {
        prop.remove();
    }
    Ok(root.to_string())
}

fn remove_toml(text: &str, path: &[&str], name: &str) -> Result<String, Refused> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| Refused(one_line(&e.to_string())))?;
    let mut item = doc.as_item_mut();
    for key in path {
        item = item.get_mut(key).ok_or_else(|| not_a_table(path))?;
    }
    match item {
        toml_edit::Item::Table(table) => {
            table.remove(name);
        }
        toml_edit::Item::Value(toml_edit::Value::InlineTable(inline)) => {
            inline.remove(name);
        }
        _ => return Err(not_a_table(path)),
    }
    Ok(doc.to_string())
}

/// A JSON (with comments) document as data; an object at its top.
pub(super) fn parse_json(text: &str) -> Result<Value, Refused> {
    parse(text, Syntax::Json)
}

/// The document as data, for comparing before and after.
fn parse(text: &str, syntax: Syntax) -> Result<Value, Refused> {
    let value: Value = match syntax {
        Syntax::Json => jsonc_parser::parse_to_serde_value(text, &ParseOptions::default())
            .map_err(|e| Refused(e.to_string()))?,
        Syntax::Toml => toml::from_str(text).map_err(|e| Refused(one_line(&e.to_string())))?,
    };
    match value {
        Value::Object(_) => Ok(value),
        _ => Err(Refused(
            "the file does not hold an object at its top".into(),
        )),
    }
}

/// TOML's messages run over several lines with a picture of the place.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('|') && !l.chars().all(|c| c == '^'))
        .collect::<Vec<_>>()
        .join(": ")
}

/// The servers table of `doc`, when there is one.
fn servers_of<'a>(doc: &'a Value, path: &[&str]) -> Option<&'a Map<String, Value>> {
    path.iter()
        .try_fold(doc, |v, key| v.get(key))
        .and_then(Value::as_object)
}

/// `doc` with `entry` under `name` in its servers table.
fn with_entry(doc: &Value, path: &[&str], name: &str, entry: &Value) -> Result<Value, Refused> {
    let mut doc = doc.clone();
    let mut table = &mut doc;
    let mut walked = Vec::new();
    for key in path {
        walked.push(*key);
        let object = table
            .as_object_mut()
            .ok_or_else(|| not_a_table(&walked[..walked.len() - 1]))?;
        table = object
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    table
        .as_object_mut()
        .ok_or_else(|| not_a_table(&walked))?
        .insert(name.to_string(), entry.clone());
    Ok(doc)
}

fn not_a_table(path: &[&str]) -> Refused {
    Refused(format!("'{}' is not a table of servers", path.join(".")))
}

fn new_json(doc: &Value) -> String {
    let mut text = serde_json::to_string_pretty(doc).expect("a JSON value always serialises");
    text.push('\n');
    text
}

fn edit_json(text: &str, path: &[&str], name: &str, entry: &Value) -> Result<String, Refused> {
    let root =
        CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| Refused(e.to_string()))?;
    let mut table: CstObject = root
        .object_value()
        .ok_or_else(|| Refused("the file does not hold an object at its top".into()))?;
    let mut walked = Vec::new();
    for key in path {
        walked.push(*key);
        table = table
            .object_value_or_create(key)
            .ok_or_else(|| not_a_table(&walked))?;
    }
    match table.get(name) {
        Some(prop) => prop.set_value(cst_value(entry)),
        None => {
            table.append(name, cst_value(entry));
        }
    }
    Ok(root.to_string())
}

pub(super) fn cst_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), cst_value(v))).collect())
        }
    }
}

fn new_toml(path: &[&str], name: &str, entry: &Value) -> String {
    let mut doc = toml_edit::DocumentMut::new();
    let table = toml_table_at(doc.as_table_mut(), path).expect("a new document has no other keys");
    table.insert(name, toml_edit::Item::Table(toml_entry(entry)));
    doc.to_string()
}

fn edit_toml(text: &str, path: &[&str], name: &str, entry: &Value) -> Result<String, Refused> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| Refused(one_line(&e.to_string())))?;
    match toml_table_at(doc.as_table_mut(), path) {
        Some(table) => {
            table.insert(name, toml_edit::Item::Table(toml_entry(entry)));
        }
        None => {
            let Some(inline) = inline_table_at(doc.as_table_mut(), path) else {
                return Err(not_a_table(path));
            };
            inline.insert(
                name,
                toml_edit::Value::InlineTable(toml_entry(entry).into_inline_table()),
            );
        }
    }
    Ok(doc.to_string())
}

/// The table at `path`, made (as a header-less parent) where missing;
/// None when something else is there.
fn toml_table_at<'a>(
    mut table: &'a mut toml_edit::Table,
    path: &[&str],
) -> Option<&'a mut toml_edit::Table> {
    for key in path {
        let item = table.entry(key).or_insert_with(|| {
            let mut parent = toml_edit::Table::new();
            parent.set_implicit(true);
            toml_edit::Item::Table(parent)
        });
        table = item.as_table_mut()?;
    }
    Some(table)
}

/// The inline table at `path` (`mcp_servers = { ... }`), if that is what
/// is there.
fn inline_table_at<'a>(
    table: &'a mut toml_edit::Table,
    path: &[&str],
) -> Option<&'a mut toml_edit::InlineTable> {
    let (first, rest) = path.split_first()?;
    let mut inline = table.get_mut(first)?.as_inline_table_mut()?;
    for key in rest {
        inline = inline.get_mut(key)?.as_inline_table_mut()?;
    }
    Some(inline)
}

/// An entry as a TOML table: strings and string lists as keys, objects
/// (`env`, `http_headers`) as inline tables.
fn toml_entry(entry: &Value) -> toml_edit::Table {
    let mut table = toml_edit::Table::new();
    if let Value::Object(map) = entry {
        for (key, value) in map {
            table.insert(key, toml_edit::Item::Value(toml_value(value)));
        }
    }
    table
}

fn toml_value(value: &Value) -> toml_edit::Value {
    match value {
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => n
            .as_i64()
            .map(toml_edit::Value::from)
            .unwrap_or_else(|| n.as_f64().unwrap_or_default().into()),
        Value::String(s) => s.as_str().into(),
        Value::Array(items) => {
            toml_edit::Value::Array(items.iter().map(toml_value).collect::<toml_edit::Array>())
        }
        Value::Object(map) => {
            let mut inline = toml_edit::InlineTable::new();
            for (k, v) in map {
                inline.insert(k, toml_value(v));
            }
            toml_edit::Value::InlineTable(inline)
        }
        Value::Null => "".into(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn target(syntax: Syntax, servers: &'static [&'static str]) -> Target {
        Target {
            file: "x".into(),
            syntax,
            servers,
        }
    }

    fn entry() -> Value {
        json!({"command": "/opt/keep/bin/keep", "args": ["mcp"]})
    }

    #[test]
    fn a_new_json_file_holds_the_servers_table_and_the_entry() {
        let t = target(Syntax::Json, &["mcpServers"]);
        let merged = merge(None, &t, "keep", &entry()).unwrap();
        assert_eq!(merged.outcome, Outcome::Added);
        let doc: Value = serde_json::from_str(&merged.text).unwrap();
        assert_eq!(doc, json!({"mcpServers": {"keep": entry()}}));
    }

    #[test]
    fn jsonc_comments_and_other_servers_stay_and_a_second_merge_changes_nothing() {
        let t = target(Syntax::Json, &["context_servers"]);
        let text = "// Zed settings\n{\n  \"theme\": \"One Dark\", // mine\n  \"context_servers\": {\n    \"other\": {\"command\": \"x\", \"args\": []},\n  },\n}\n";
        let first = merge(Some(text), &t, "keep", &entry()).unwrap();
        assert_eq!(first.outcome, Outcome::Added);
        assert!(
            first.text.starts_with("// Zed settings\n"),
            "{}",
            first.text
        );
        assert!(
            first.text.contains("\"One Dark\", // mine"),
            "{}",
            first.text
        );
        assert!(first.text.contains("\"other\""), "{}", first.text);
        let second = merge(Some(&first.text), &t, "keep", &entry()).unwrap();
        assert_eq!(second.outcome, Outcome::Unchanged);
        assert_eq!(second.text, first.text);
        let changed = json!({"command": "/new/keep", "args": ["mcp"]});
        let third = merge(Some(&first.text), &t, "keep", &changed).unwrap();
        assert_eq!(third.outcome, Outcome::Updated);
        assert!(third.text.contains("/new/keep") && !third.text.contains("/opt/keep"));
    }

    #[test]
    fn a_nested_servers_table_is_made_where_missing() {
        let t = target(Syntax::Json, &["mcpServers"]);
        let merged = merge(Some("{\"numStartups\": 3}"), &t, "keep", &entry()).unwrap();
        let doc: Value = serde_json::from_str(&merged.text).unwrap();
        assert_eq!(doc["numStartups"], 3);
        assert_eq!(doc["mcpServers"]["keep"], entry());
    }

    #[test]
    fn files_that_cannot_be_merged_whole_are_refused() {
        let t = target(Syntax::Json, &["mcpServers"]);
        for text in [
            "{\"mcpServers\": ",
            "[1, 2]",
            "{\"mcpServers\": [\"keep\"]}",
            "{\"a\": 1} {",
        ] {
            assert!(merge(Some(text), &t, "keep", &entry()).is_err(), "{text}");
        }
        let err = merge(Some("{\"mcpServers\": {"), &t, "keep", &entry()).unwrap_err();
        assert!(err.0.contains("line 1"), "{err}");
        let toml = target(Syntax::Toml, &["mcp_servers"]);
        for text in ["model = ", "mcp_servers = 3", "mcp_servers = [1]"] {
            assert!(
                merge(Some(text), &toml, "keep", &entry()).is_err(),
                "{text}"
            );
        }
    }

    #[test]
    fn toml_keeps_comments_and_tables_and_takes_the_entry_as_a_table() {
        let t = target(Syntax::Toml, &["mcp_servers"]);
        let text =
            "# my codex\nmodel = \"o3\" # fast\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
        let with_env =
            json!({"command": "/opt/keep", "args": ["mcp"], "env": {"KEEP_STORE": "/s"}});
        let merged = merge(Some(text), &t, "keep", &with_env).unwrap();
        assert_eq!(merged.outcome, Outcome::Added);
        assert!(
            merged
                .text
                .starts_with("# my codex\nmodel = \"o3\" # fast\n"),
            "{}",
            merged.text
        );
        assert!(
            merged.text.contains("[mcp_servers.keep]"),
            "{}",
            merged.text
        );
        assert!(
            merged.text.contains("env = { KEEP_STORE = \"/s\" }"),
            "{}",
            merged.text
        );
        assert_eq!(
            merge(Some(&merged.text), &t, "keep", &with_env)
                .unwrap()
                .outcome,
            Outcome::Unchanged
        );
        let fresh = merge(None, &t, "keep", &entry()).unwrap();
        assert_eq!(
            fresh.text,
            "[mcp_servers.keep]\ncommand = \"/opt/keep/bin/keep\"\nargs = [\"mcp\"]\n"
        );
        let inline = merge(
            Some("mcp_servers = { docs = { command = \"d\" } }\n"),
            &t,
            "keep",
            &entry(),
        )
        .unwrap();
        let doc: Value = toml::from_str(&inline.text).unwrap();
        assert_eq!(doc["mcp_servers"]["keep"], entry());
        assert_eq!(doc["mcp_servers"]["docs"]["command"], "d");
    }
}
