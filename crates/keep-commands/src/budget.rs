//! Answers sized for a context window (`max_tokens`): whole results, in
//! order, until the next would pass the budget, each counted on the JSON
//! form it is returned in with the embedding model's tokenizer; then a
//! word on how many were left out.

use serde::Serialize;

use keep_core::embed::TokenCounter;

/// What fitted: the results kept, the tokens they take, how many did not.
pub struct Fitted<T> {
    pub kept: Vec<T>,
    pub tokens: usize,
    pub left_out: usize,
}

/// The first of `items` that fit in `max_tokens` together.
pub fn fit<T: Serialize>(
    items: Vec<T>,
    max_tokens: usize,
    counter: &TokenCounter,
) -> keep_core::Result<Fitted<T>> {
    let total = items.len();
    let mut kept = Vec::with_capacity(total);
    let mut tokens = 0;
    for item in items {
        let text = serde_json::to_string(&item).expect("results serialise");
        let cost = counter.count(&text)?;
        if tokens + cost > max_tokens {
            break;
        }
        tokens += cost;
        kept.push(item);
    }
    Ok(Fitted {
        left_out: total - kept.len(),
        kept,
        tokens,
    })
}

/// "3 more results left out to stay within 500 tokens".
pub fn left_out_notice(left_out: usize, max_tokens: usize) -> String {
    let results = if left_out == 1 { "result" } else { "results" };
    format!("{left_out} more {results} left out to stay within {max_tokens} tokens")
}
