//! Answers sized for a context window: `max_tokens` on MCP `recall` and
//! `find`, counted with the embedding model's own tokenizer, holds to the
//! token and says how many results were left out.

use serde_json::{Value, json};

use crate::common::{Env, repo_root};
use crate::mcp::{call, exchange, handshake};

/// Every session of the LongMemEval sample as JSON Lines of turns.
pub(crate) fn conversations() -> String {
    let path = repo_root().join("testdata/real/longmemeval/longmemeval_oracle_sample_seed_42.json");
    let data: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = String::new();
    for q in data.iter().take(12) {
        for (id, session) in q["haystack_session_ids"]
            .as_array()
            .unwrap()
            .iter()
            .zip(q["haystack_sessions"].as_array().unwrap())
        {
            for turn in session.as_array().unwrap() {
                out.push_str(
                    &json!({"session": id, "speaker": turn["role"], "text": turn["content"]})
                        .to_string(),
                );
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn a_token_budget_holds_to_the_token_and_says_what_was_left_out() {
    let env = Env::with_model();
    env.ok_stdin(&["import", "--format", "chat", "-"], &conversations());
    env.ok(&["reindex"]);
    let query = "how much did I earn at the farmers market";
    let recall = |max_tokens: Option<usize>, format: &str| {
        let mut args = json!({"query": query, "limit": 10, "format": format});
        if let Some(max) = max_tokens {
            args["max_tokens"] = json!(max);
        }
        let mut lines = handshake();
        lines.push(call(2, "recall", args));
        let responses = exchange(&env, &lines);
        responses["2"][0]["result"]["structuredContent"].clone()
    };
    let count = |listing: &Value| listing["notes"].as_array().map_or(0, Vec::len);

    let all = recall(None, "brief");
    let total = count(&all);
    assert!(total >= 4, "{all}");
    assert!(all.get("tokens").is_none());

    let budgeted = recall(Some(1200), "brief");
    let (kept, used) = (
        count(&budgeted),
        budgeted["tokens"].as_u64().unwrap() as usize,
    );
    assert!(kept >= 2 && kept < total, "{budgeted}");
    assert!(used <= 1200, "{budgeted}");
    assert_eq!(budgeted["left_out"], total - kept);
    let notice = format!(
        "{} more results left out to stay within 1200 tokens",
        total - kept
    );
    assert!(
        budgeted["notices"].to_string().contains(&notice),
        "{budgeted}"
    );
    // The same results, best first.
    assert_eq!(
        budgeted["notes"].as_array().unwrap()[..],
        all["notes"].as_array().unwrap()[..kept]
    );

    // Exactly the tokens they take: the same results; one token less: one fewer.
    let exact = recall(Some(used), "brief");
    assert_eq!(
        (count(&exact), exact["tokens"].as_u64().unwrap() as usize),
        (kept, used)
    );
    let short = recall(Some(used - 1), "brief");
    assert_eq!(count(&short), kept - 1, "{short}");
    assert!((short["tokens"].as_u64().unwrap() as usize) < used);
    // A budget smaller than the best result: nothing, and it says so.
    let none = recall(Some(5), "brief");
    assert_eq!(
        (count(&none), none["left_out"].as_u64()),
        (0, Some(total as u64))
    );

    // find --json counts each hit's JSON form as MCP's full format does.
    let full = recall(Some(1500), "full");
    assert!(full["left_out"].as_u64().unwrap() > 0, "{full}");
    let full_tokens = full["tokens"].as_u64().unwrap().to_string();
    let out = env.run(&[
        "find",
        query,
        "-n",
        "10",
        "--json",
        "--max-tokens",
        &full_tokens,
    ]);
    assert!(out.status.success());
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits.as_array().unwrap().len(), count(&full));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("left out to stay within {full_tokens} tokens")),
        "{stderr}"
    );
}
