//! Session hooks in Claude Code's settings (`settings.json`): at the start
//! of a session, at its end and before a compaction, Claude Code runs
//! `keep hook claude-code`. Merged as servers are: other hooks and
//! settings stay, and so do comments; keep's group of an event is found by
//! its command (`… hook claude-code`) and replaced, so running it again
//! changes nothing; a text that cannot be merged is refused, untouched.
//! `remove` takes keep's groups out again.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::CstRootNode;
use serde_json::{Map, Value, json};

use super::merge::{Merged, Outcome, Refused, cst_value, parse_json};

/// The events keep's hook runs at, with the seconds Claude Code gives it.
pub const EVENTS: [(&str, u64); 3] = [("SessionStart", 30), ("SessionEnd", 30), ("PreCompact", 30)];

/// What ends the command of keep's hook, by which its group is known.
const MARK: &str = " hook claude-code";

/// The group of hooks Claude Code runs at an event: one command.
pub fn group(command: &str, timeout: u64) -> Value {
    json!({"hooks": [{"type": "command", "command": command, "timeout": timeout}]})
}

/// Whether `group` is keep's: one of its hooks runs `keep hook claude-code`.
fn is_keeps(group: &Value) -> bool {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .is_some_and(|hooks| {
            hooks.iter().any(|h| {
                h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|c| c.trim_end().ends_with(MARK))
            })
        })
}

/// `existing` with keep's group at each event (`command` run by each).
pub fn merge(existing: Option<&str>, command: &str) -> Result<Merged, Refused> {
    edit(existing, |events| {
        let mut outcome = Outcome::Unchanged;
        for (event, timeout) in EVENTS {
            let wanted = group(command, timeout);
            let list = events
                .entry(event.to_string())
                .or_insert_with(|| Value::Array(Vec::new()));
            let Value::Array(groups) = list else {
                return Err(Refused(format!("'hooks.{event}' is not a list")));
            };
            match groups.iter().position(is_keeps) {
                Some(at) if groups[at] == wanted => {}
                Some(at) => {
                    groups[at] = wanted;
                    if outcome == Outcome::Unchanged {
                        outcome = Outcome::Updated;
                    }
                }
                None => {
                    groups.push(wanted);
                    outcome = Outcome::Added;
                }
            }
        }
        Ok(outcome)
    })
}

/// `existing` without keep's groups.
pub fn remove(existing: Option<&str>) -> Result<Merged, Refused> {
    edit(existing, |events| {
        let mut outcome = Outcome::Unchanged;
        for (event, _) in EVENTS {
            if let Some(Value::Array(groups)) = events.get_mut(event) {
                let before = groups.len();
                groups.retain(|g| !is_keeps(g));
                if groups.len() != before {
                    outcome = Outcome::Removed;
                }
            }
        }
        Ok(outcome)
    })
}

/// Applies `change` to the `hooks` table of `existing`, then makes the
/// same change in the text (comments and layout kept) and checks that the
/// text now says exactly what was wanted.
fn edit(
    existing: Option<&str>,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<Outcome, Refused>,
) -> Result<Merged, Refused> {
    let existing = existing.filter(|t| !t.trim().is_empty());
    let before = match existing {
        Some(text) => parse_json(text)?,
        None => Value::Object(Map::new()),
    };
    let mut wanted = before.clone();
    let root = wanted.as_object_mut().expect("parse_json gives an object");
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(events) = hooks else {
        return Err(Refused("'hooks' is not a table of events".into()));
    };
    let outcome = change(events)?;
    if events.is_empty() && before.get("hooks").is_none() {
        root.remove("hooks");
    }
    if outcome == Outcome::Unchanged {
        return Ok(Merged {
            text: existing.unwrap_or_default().to_string(),
            outcome,
        });
    }
    let text = match existing {
        None => {
            let mut text = serde_json::to_string_pretty(&wanted).expect("JSON serialises");
            text.push('\n');
            text
        }
        Some(text) => rewrite(text, wanted.get("hooks").unwrap_or(&Value::Null))?,
    };
    if parse_json(&text).ok().as_ref() != Some(&wanted) {
        return Err(Refused(
            "changing the hooks would change more than keep's; left as it was".into(),
        ));
    }
    Ok(Merged { text, outcome })
}

/// `text` with each event's list of groups set to what `hooks` holds,
/// group by group: a group that stays is not touched, so its comments
/// stay.
fn rewrite(text: &str, hooks: &Value) -> Result<String, Refused> {
    let root =
        CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| Refused(e.to_string()))?;
    let top = root
        .object_value()
        .ok_or_else(|| Refused("the file does not hold an object at its top".into()))?;
    let table = top
        .object_value_or_create("hooks")
        .ok_or_else(|| Refused("'hooks' is not a table of events".into()))?;
    for (event, _) in EVENTS {
        let wanted: &[Value] = hooks
            .get(event)
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let Some(list) = table.array_value_or_create(event) else {
            return Err(Refused(format!("'hooks.{event}' is not a list")));
        };
        let elements = list.elements();
        let have: Vec<Option<Value>> = elements
            .iter()
            .map(|e| {
                jsonc_parser::parse_to_serde_value(&e.to_string(), &ParseOptions::default())
                    .ok()
                    .flatten()
            })
            .collect();
        // Keep's group is the one that differs: drop it, then add it back
        // where it was (or last) as it is wanted.
        let keeps_at = have.iter().position(|g| g.as_ref().is_some_and(is_keeps));
        let wanted_keeps = wanted.iter().position(is_keeps);
        if let Some(at) = keeps_at {
            elements[at].clone().remove();
        }
        if let Some(w) = wanted_keeps {
            let at = keeps_at
                .unwrap_or(list.elements().len())
                .min(list.elements().len());
            list.insert(at, cst_value(&wanted[w]));
        }
    }
    Ok(root.to_string())
}

/// What to tell a client without session hooks, for its instructions
/// (rules, AGENTS.md, custom instructions).
pub fn instructions(title: &str) -> String {
    format!(
        "{title} has no session hooks keep can install. Add this to its instructions:\n\n\
         At the start of each session, read the MCP prompt keep-context (or the resource\n\
         keep://context/PROJECT, PROJECT the repository's name) before anything else:\n\
         it holds 'now', what changed since the last session and this project's notes.\n\
         Before the session ends, call remember for each decision, fact or preference\n\
         worth keeping, and update 'now' with the now tool.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMAND: &str = "/usr/bin/keep hook claude-code";

    #[test]
    fn keeps_hooks_merge_beside_others_and_again_change_nothing() {
        let text = "{\n  // my settings\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"SessionStart\": [\n      // mine\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}\n    ]\n  }\n}\n";
        let merged = merge(Some(text), COMMAND).expect("merges");
        assert_eq!(merged.outcome, Outcome::Added);
        assert!(merged.text.contains("// my settings") && merged.text.contains("// mine"));
        let value = parse_json(&merged.text).expect("JSON");
        assert_eq!(
            value["hooks"]["SessionStart"].as_array().map(Vec::len),
            Some(2)
        );
        assert_eq!(value["hooks"]["SessionEnd"][0], group(COMMAND, 30));
        assert_eq!(value["model"], "opus");
        let again = merge(Some(&merged.text), COMMAND).expect("merges");
        assert_eq!(again.outcome, Outcome::Unchanged);
        assert_eq!(again.text, merged.text);
        let moved = merge(Some(&merged.text), "/opt/keep hook claude-code").expect("merges");
        assert_eq!(moved.outcome, Outcome::Updated);
        let removed = remove(Some(&moved.text)).expect("removes");
        assert_eq!(removed.outcome, Outcome::Removed);
        let value = parse_json(&removed.text).expect("JSON");
        assert_eq!(
            value["hooks"]["SessionStart"].as_array().map(Vec::len),
            Some(1)
        );
        assert!(removed.text.contains("// mine"));
        assert_eq!(
            remove(Some(&removed.text)).expect("removes").outcome,
            Outcome::Unchanged
        );
    }

    #[test]
    fn a_file_that_cannot_be_merged_is_refused() {
        assert!(merge(Some("{\"hooks\": []}"), COMMAND).is_err());
        assert!(merge(Some("{\"hooks\": {\"SessionEnd\": {}}}"), COMMAND).is_err());
        assert!(merge(Some("{ not json"), COMMAND).is_err());
        let fresh = merge(None, COMMAND).expect("a new file");
        assert_eq!(fresh.outcome, Outcome::Added);
    }
}
