//! A document cut into parts by a language model. The model sees the
//! document as numbered blocks and answers, through a JSON schema, with
//! parts that name the blocks they cover, a title, a summary and tags.
//! Every part's text is the document's own blocks, so nothing is invented;
//! the answer is mended to cover the whole document in order, and a title,
//! summary or tag that shares no word with its blocks is replaced or
//! dropped.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::json;

use super::client::{self, Chat};
use super::summary::cut;
use crate::error::Result;
use keep_ingest::summarize::content_words;
use keep_model::settings::Provider;

/// Most blocks shown to the model; a longer document's blocks are joined
/// in runs first.
const MAX_BLOCKS: usize = 40;
/// Each block is shown by its opening (characters).
const BLOCK_PREVIEW: usize = 140;
/// Most parts asked for.
const MAX_PARTS: usize = 8;
const MAX_TOKENS: u32 = 2000;

/// One part of an analysed document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalyzedPart {
    pub title: String,
    pub summary: String,
    /// Topic words the model gave that the part's text holds.
    pub tags: Vec<String>,
    /// The document's text of the blocks the part covers.
    pub text: String,
}

#[derive(Deserialize)]
struct Answer {
    parts: Vec<Proposed>,
}

#[derive(Deserialize)]
struct Proposed {
    title: String,
    first: usize,
    last: usize,
    summary: String,
    #[serde(default)]
    tags: Vec<String>,
}

/// The blocks of `text`: its paragraphs, joined in runs when there are
/// more than `MAX_BLOCKS`.
pub fn blocks(text: &str) -> Vec<String> {
    let paragraphs: Vec<&str> = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let run = paragraphs.len().div_ceil(MAX_BLOCKS).max(1);
    paragraphs.chunks(run).map(|c| c.join("\n\n")).collect()
}

/// Asks `provider` for the parts of `text`.
pub fn analyze(provider: &Provider, text: &str) -> Result<Vec<AnalyzedPart>> {
    let blocks = blocks(text);
    if blocks.is_empty() {
        return Err(client::failed(provider, "the document has no text".into()));
    }
    let answer = client::chat(
        provider,
        &Chat {
            system: SYSTEM,
            user: &numbered(&blocks),
            max_tokens: MAX_TOKENS,
            schema: Some(schema(blocks.len())),
        },
    )?;
    let parsed: Answer = serde_json::from_str(&answer.text).map_err(|e| {
        client::failed(
            provider,
            format!("the model's parts are not the JSON asked for ({e})"),
        )
    })?;
    Ok(mend(parsed.parts, &blocks))
}

const SYSTEM: &str = "You divide a document into its meaningful parts for a personal memory. \
The document is given as numbered blocks. Answer with JSON: a list of parts in document order, \
each covering a run of consecutive blocks (first and last block numbers), with a short title, \
a one-sentence summary of what the part says, and up to four single-word topic tags. \
Use only what the blocks say.";

fn numbered(blocks: &[String]) -> String {
    blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let line = b.split_whitespace().collect::<Vec<_>>().join(" ");
            format!("[{}] {}", i + 1, cut(&line, BLOCK_PREVIEW))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn schema(blocks: usize) -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "parts": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_PARTS.min(blocks),
                "items": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string", "maxLength": 80},
                        "first": {"type": "integer", "minimum": 1, "maximum": blocks},
                        "last": {"type": "integer", "minimum": 1, "maximum": blocks},
                        "summary": {"type": "string", "maxLength": 300},
                        "tags": {"type": "array", "items": {"type": "string", "maxLength": 30}, "maxItems": 4}
                    },
                    "required": ["title", "first", "last", "summary", "tags"]
                }
            }
        },
        "required": ["parts"]
    })
}

/// The model's parts made whole: in order, without overlaps or gaps,
/// covering every block, each one's words checked against its text.
fn mend(mut proposed: Vec<Proposed>, blocks: &[String]) -> Vec<AnalyzedPart> {
    let n = blocks.len();
    proposed.retain(|p| p.first >= 1 && p.first <= n);
    proposed.sort_by_key(|p| p.first);
    let mut spans: Vec<(usize, usize, Proposed)> = Vec::new();
    let mut next = 1;
    for p in proposed {
        let first = p.first.max(next);
        let last = p.last.min(n).max(first);
        if first > n {
            break;
        }
        spans.push((first, last, p));
        next = last + 1;
    }
    if spans.is_empty() {
        spans.push((
            1,
            n,
            Proposed {
                title: String::new(),
                first: 1,
                last: n,
                summary: String::new(),
                tags: Vec::new(),
            },
        ));
    }
    // A gap before a part joins it; blocks after the last join the last.
    spans[0].0 = 1;
    for i in 1..spans.len() {
        spans[i].0 = spans[i - 1].1 + 1;
    }
    if let Some(last) = spans.last_mut() {
        last.1 = n;
    }
    spans
        .into_iter()
        .map(|(first, last, p)| grounded(p, &blocks[first - 1..last].join("\n\n")))
        .collect()
}

/// A part whose title, summary and tags say only what `text` holds: at
/// least half of a title's or summary's content words stand in it (else
/// its opening line and first sentence stand in for them), and a tag is
/// kept only when it is made of the part's own words.
fn grounded(p: Proposed, text: &str) -> AnalyzedPart {
    let known: HashSet<String> = content_words(text).collect();
    let held = |s: &str| {
        let words: Vec<String> = content_words(s).collect();
        !words.is_empty() && words.iter().filter(|w| known.contains(*w)).count() * 2 >= words.len()
    };
    let title = clean(&p.title);
    let title = if held(&title) {
        title
    } else {
        opening_line(text)
    };
    let summary = clean(&p.summary);
    let summary = if held(&summary) && content_words(&summary).count() >= 2 {
        summary
    } else {
        keep_ingest::summarize::part_line(text)
    };
    let mut tags: Vec<String> = p
        .tags
        .iter()
        .map(|t| t.trim().to_lowercase())
        .filter(|t| is_grounded_tag(t, &known))
        .collect();
    tags.sort();
    tags.dedup();
    AnalyzedPart {
        title,
        summary,
        tags,
        text: text.to_string(),
    }
}

/// A tag of one to three distinct words, each a content word of the
/// part's text: "ferry" or "winter timetable", never "the-policy-policy"
/// or "policy-1.1.1-1.1.1".
fn is_grounded_tag(tag: &str, known: &HashSet<String>) -> bool {
    let tokens: Vec<&str> = tag
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let words: Vec<String> = content_words(tag).collect();
    let distinct: HashSet<&String> = words.iter().collect();
    (1..=3).contains(&tokens.len())
        && words.len() == tokens.len()
        && distinct.len() == words.len()
        && words.iter().all(|w| known.contains(w))
}

fn clean(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first line of `text` without Markdown heading marks, cut short.
fn opening_line(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    cut(line.trim_start_matches('#').trim(), 80)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> String {
        [
            "# Ferries",
            "The ferry to Craignure leaves Oban at 07:45.",
            "In winter the timetable changes and fewer boats sail.",
            "# Buses",
            "Buses meet the ferry at Craignure pier.",
        ]
        .join("\n\n")
    }

    fn proposed(first: usize, last: usize, title: &str) -> Proposed {
        Proposed {
            title: title.into(),
            first,
            last,
            summary: "The ferry timetable from Oban to Craignure in winter.".into(),
            tags: vec!["ferry".into(), "dragons".into()],
        }
    }

    #[test]
    fn parts_cover_every_block_in_order_whatever_the_model_said() {
        let blocks = blocks(&doc());
        let parts = mend(
            vec![
                proposed(4, 9, "Buses"),
                proposed(2, 2, "Ferries"),
                proposed(2, 3, "Again"),
            ],
            &blocks,
        );
        let joined: Vec<&str> = parts.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(joined.join("\n\n"), doc(), "every block once, in order");
        assert!(parts.iter().all(|p| !p.text.is_empty()));
    }

    #[test]
    fn words_the_text_does_not_hold_are_replaced_or_dropped() {
        let blocks = blocks(&doc());
        let parts = mend(vec![proposed(1, 5, "Unicorn pastures")], &blocks);
        assert_eq!(parts.len(), 1);
        assert_eq!(
            parts[0].title, "Ferries",
            "an invented title gives way to the text's"
        );
        assert_eq!(parts[0].tags, vec!["ferry".to_string()]);
    }

    #[test]
    fn tags_of_repeated_numbered_or_too_many_words_are_dropped() {
        let known: HashSet<String> = content_words(&doc()).collect();
        for kept in ["ferry", "winter timetable", "Ferry-Pier"] {
            assert!(is_grounded_tag(kept, &known), "{kept}");
        }
        for dropped in [
            "ferry-1.1.1-1.1.1",
            "the-ferry-pier-ferry",
            "ferry ferry",
            "ferry timetable winter boats",
            "the",
            "",
            "dragons",
        ] {
            assert!(!is_grounded_tag(dropped, &known), "{dropped}");
        }
    }

    #[test]
    fn a_long_document_is_shown_in_at_most_forty_blocks() {
        let text = (0..100)
            .map(|i| format!("Paragraph {i}."))
            .collect::<Vec<_>>()
            .join("\n\n");
        let b = blocks(&text);
        assert!(b.len() <= MAX_BLOCKS);
        assert_eq!(b.join("\n\n"), text);
    }
}
