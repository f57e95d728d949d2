//! What the store's writers did and what it holds: the operations log,
//! `stats` and the conflicts list, as the command line gives them. A
//! token confined to tags sees the log of its notes and their conflicts;
//! `stats` counts the whole store, so it is the unconfined callers'.

use std::collections::HashSet;

use serde_json::Value;

use super::{Query, Reply, Serving, run, scope_tags};
use keep_core::model::Tags;

/// The most log entries one request gives.
const MOST_ENTRIES: usize = 500;

pub fn log(warm: &Serving<'_>, scope: &Tags, query: &Query) -> Reply {
    let limit = match query.one("limit").map(str::parse::<usize>) {
        None => 50,
        Some(Ok(n)) if (1..=MOST_ENTRIES).contains(&n) => n,
        Some(_) => {
            return Reply::error(400, &format!("limit is a number from 1 to {MOST_ENTRIES}"));
        }
    };
    let mut args = vec!["log".to_string(), format!("--limit={limit}")];
    query.options(&[("agent", "agent"), ("since", "since")], &mut args);
    if let Some(id) = query.one("id") {
        args.extend(["--".into(), id.into()]);
    }
    let reply = run(warm, args).reply(200);
    if scope.is_empty() || reply.status != 200 {
        return reply;
    }
    let Ok(Value::Array(entries)) = serde_json::from_slice::<Value>(&reply.body) else {
        return reply;
    };
    let notes: Vec<String> = entries
        .iter()
        .filter_map(|e| e["note"].as_str().map(str::to_string))
        .collect();
    let seen = in_scope(warm, scope, notes);
    let kept: Vec<Value> = entries
        .into_iter()
        .filter(|e| e["note"].as_str().is_some_and(|n| seen.contains(n)))
        .collect();
    Reply::json(200, &Value::Array(kept))
}

/// Which of `ids` are notes the scope covers.
fn in_scope(warm: &Serving<'_>, scope: &Tags, ids: Vec<String>) -> HashSet<String> {
    let mut unique: Vec<String> = ids;
    unique.sort();
    unique.dedup();
    if unique.is_empty() {
        return HashSet::new();
    }
    let mut args = vec!["get".to_string()];
    scope_tags(scope, &mut args);
    args.push("--".into());
    args.extend(unique.iter().cloned());
    // Notes purged since answer nothing; the others are read as get reads.
    let ran = run(warm, args);
    let listed = serde_json::from_slice::<Value>(&ran.stdout).unwrap_or(Value::Null);
    let wanted: HashSet<String> = unique.into_iter().collect();
    listed
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n["id"].as_str())
        .filter(|id| wanted.contains(*id))
        .map(str::to_string)
        .collect()
}

pub fn stats(warm: &Serving<'_>, scope: &Tags, query: &Query) -> Reply {
    if !scope.is_empty() {
        return Reply::error(
            403,
            "stats counts the whole store, and this token or server is confined to tags",
        );
    }
    let mut args = vec!["stats".to_string()];
    query.options(&[("waiting", "waiting")], &mut args);
    run(warm, args).reply(200)
}

pub fn conflicts(warm: &Serving<'_>, scope: &Tags, query: &Query) -> Reply {
    let mut args = vec!["conflicts".to_string()];
    query.options(&[("tag", "tag"), ("limit", "limit")], &mut args);
    scope_tags(scope, &mut args);
    run(warm, args).reply(200)
}
