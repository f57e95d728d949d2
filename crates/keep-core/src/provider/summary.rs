//! A summary written by a language model: the prompt (the document, the
//! user's tags and summaries of notes that share them, as the reader's
//! context) and the checks an answer must pass before it replaces the
//! extractive summary.

use std::collections::HashSet;

use super::client::{self, Chat};
use crate::error::Result;
use keep_ingest::summarize::content_words;
use keep_model::settings::Provider;

/// Most of a document sent to the model (characters): small local models
/// have a context of a few thousand tokens.
pub const DOCUMENT_CHARS: usize = 6000;
/// Tokens a summary may take.
const MAX_TOKENS: u32 = 200;
/// The longest summary kept (characters).
pub const MAX_SUMMARY_CHARS: usize = 1200;
/// Each related summary given as context is cut to this.
const RELATED_CHARS: usize = 300;

/// What the model is told about where the note sits.
pub struct Context<'a> {
    /// The note's own tags (`key=value`), not keep's.
    pub tags: Vec<String>,
    /// Summaries of notes that share those tags.
    pub related: Vec<&'a str>,
}

/// Asks `provider` for a summary of `text`; an answer that fails a check
/// is an error saying which.
pub fn summarize(provider: &Provider, text: &str, context: &Context<'_>) -> Result<String> {
    let system = system_prompt(context);
    let user = cut(text, DOCUMENT_CHARS);
    let answer = client::chat(
        provider,
        &Chat {
            system: &system,
            user: &user,
            max_tokens: MAX_TOKENS,
            schema: None,
        },
    )?;
    let mut summary = tidy(&answer.text);
    if answer.cut {
        summary = whole_sentences(&summary);
    }
    check(&summary, text).map_err(|reason| client::failed(provider, reason))?;
    Ok(summary)
}

fn system_prompt(context: &Context<'_>) -> String {
    let mut prompt = String::from(
        "You write the summary of a document for a personal memory. \
         In two to four plain sentences, say what the document is about and what a reader finds in it. \
         Use only what the document says. No preamble, no lists, no headings.",
    );
    if !context.tags.is_empty() {
        prompt.push_str(&format!(
            "\nThe reader files this document under {}: say what it offers for that.",
            context.tags.join(", ")
        ));
    }
    if !context.related.is_empty() {
        prompt.push_str("\nOther documents filed the same way:");
        for summary in &context.related {
            prompt.push_str(&format!("\n- {}", cut(summary, RELATED_CHARS)));
        }
    }
    prompt
}

/// The answer without the wrapping small models add: quotes, a "Summary:"
/// label, Markdown emphasis, line breaks.
fn tidy(answer: &str) -> String {
    let mut text = answer.trim();
    for label in [
        "Summary:",
        "summary:",
        "SUMMARY:",
        "**Summary:**",
        "**Summary**:",
    ] {
        if let Some(rest) = text.strip_prefix(label) {
            text = rest.trim();
        }
    }
    let text = text.trim_matches(|c| c == '"' || c == '\u{201c}' || c == '\u{201d}');
    text.replace("**", "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` up to its last full sentence (a model cut mid-sentence).
fn whole_sentences(text: &str) -> String {
    match text.rfind(['.', '!', '?']) {
        Some(end) => text[..=end].to_string(),
        None => String::new(),
    }
}

/// Why an answer cannot be a summary of `document`, if it cannot.
fn check(summary: &str, document: &str) -> std::result::Result<(), String> {
    if summary.is_empty() {
        return Err("the model's summary is empty".into());
    }
    let chars = summary.chars().count();
    if chars > MAX_SUMMARY_CHARS {
        return Err(format!(
            "the model's summary is {chars} characters, more than {MAX_SUMMARY_CHARS}"
        ));
    }
    let lower = summary.to_lowercase();
    if ["i'm sorry", "i am sorry", "as an ai", "i cannot", "i can't"]
        .iter()
        .any(|refusal| lower.starts_with(refusal))
    {
        return Err("the model declined to summarise".into());
    }
    let known: HashSet<String> = content_words(document).collect();
    let shared: HashSet<String> = content_words(summary)
        .filter(|w| known.contains(w))
        .collect();
    if shared.len() < 2 {
        return Err("the model's summary shares no words with the document".into());
    }
    Ok(())
}

/// At most `limit` characters of `text`, cut at a character.
pub(crate) fn cut(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((i, _)) => text[..i].to_string(),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "The ferry to Craignure leaves Oban at 07:45 every morning. In winter the timetable changes.";

    #[test]
    fn answers_are_checked_for_what_a_summary_must_be() {
        assert!(check("", DOC).is_err());
        assert!(check(&"ferry Craignure ".repeat(200), DOC).is_err());
        assert!(check("I'm sorry, I cannot summarise that ferry timetable.", DOC).is_err());
        assert!(check("A recipe for bread and cakes.", DOC).is_err());
        assert!(
            check(
                "When the ferry to Craignure leaves Oban, and how winter changes it.",
                DOC
            )
            .is_ok()
        );
    }

    #[test]
    fn wrapping_is_removed_and_a_cut_answer_keeps_whole_sentences() {
        assert_eq!(
            tidy("Summary: \"The **ferry** leaves.\""),
            "The ferry leaves."
        );
        assert_eq!(
            whole_sentences("It leaves at 7. In winter it"),
            "It leaves at 7."
        );
        assert_eq!(whole_sentences("no end at all"), "");
    }

    #[test]
    fn the_prompt_names_the_tags_and_related_summaries() {
        let prompt = system_prompt(&Context {
            tags: vec!["domain=practice".into()],
            related: vec!["A note on daily practice."],
        });
        assert!(prompt.contains("domain=practice"));
        assert!(prompt.contains("- A note on daily practice."));
        assert!(
            !system_prompt(&Context {
                tags: vec![],
                related: vec![]
            })
            .contains("files this")
        );
    }
}
