//! The passage of a hit: the sentences of the matched text (the note's
//! summary, or the part that matched) around the one sharing most words
//! with the query, bounded, so a reader sees why the note came back
//! without fetching it.

use keep_ingest::summarize::is_stopword;

/// Most characters in a passage.
pub const PASSAGE_CHARS: usize = 480;

/// The window of `text` around its sentence that best matches `query`
/// (the opening when there is no query or nothing matches), at most
/// `PASSAGE_CHARS` characters, marked with … where cut.
pub fn passage(text: &str, query: Option<&str>) -> String {
    let sentences = split_sentences(text);
    if sentences.is_empty() {
        return String::new();
    }
    let words = query.map(content_words).unwrap_or_default();
    let best = (0..sentences.len())
        .max_by_key(|&i| (overlap(sentences[i], &words), std::cmp::Reverse(i)))
        .unwrap_or(0);
    let (mut start, mut end) = (best, best + 1);
    let len = |s: usize, e: usize| sentences[s..e].iter().map(|x| x.len() + 1).sum::<usize>();
    loop {
        let grew_after = end < sentences.len() && len(start, end + 1) <= PASSAGE_CHARS;
        if grew_after {
            end += 1;
        }
        let grew_before = start > 0 && len(start - 1, end) <= PASSAGE_CHARS;
        if grew_before {
            start -= 1;
        }
        if !grew_after && !grew_before {
            break;
        }
    }
    let mut out = sentences[start..end].join(" ");
    if out.chars().count() > PASSAGE_CHARS {
        out = out.chars().take(PASSAGE_CHARS - 1).collect::<String>();
        out = format!("{}…", out.trim_end());
    } else if end < sentences.len() {
        out.push_str(" …");
    }
    if start > 0 {
        out = format!("… {out}");
    }
    out
}

/// Sentences of `text` with whitespace folded: ends at `.`, `!`, `?`
/// followed by a space, and at blank lines.
fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let block = block.trim();
        let mut from = 0;
        let bytes = block.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            let at_end = matches!(b, b'.' | b'!' | b'?')
                && bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace);
            if at_end {
                out.push(block[from..=i].trim());
                from = i + 1;
            }
        }
        if from < block.len() {
            out.push(block[from..].trim());
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn content_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !is_stopword(w))
        .collect()
}

/// How many of `words` the sentence holds (a word matches a sentence word
/// that starts with it or that it starts with, for simple inflections).
fn overlap(sentence: &str, words: &[String]) -> usize {
    let own = content_words(sentence);
    words
        .iter()
        .filter(|w| {
            own.iter()
                .any(|o| o.starts_with(w.as_str()) || (o.len() >= 4 && w.starts_with(o.as_str())))
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_comes_whole() {
        assert_eq!(passage("Use WAL mode.", Some("wal")), "Use WAL mode.");
    }

    #[test]
    fn the_window_centres_on_the_matching_sentence() {
        let filler = "This sentence is about nothing in particular and fills space. ".repeat(12);
        let text = format!("{filler}The harbour crane lifts containers at night. {filler}");
        let p = passage(&text, Some("which cranes lift containers"));
        assert!(
            p.contains("The harbour crane lifts containers at night."),
            "{p}"
        );
        assert!(p.starts_with("… ") && p.ends_with('…'), "{p}");
        assert!(p.chars().count() <= PASSAGE_CHARS + 4, "{}", p.len());
    }

    #[test]
    fn without_a_match_the_opening_is_shown() {
        let text = "First point. Second point. Third point.";
        assert_eq!(passage(text, Some("zebra")), text);
        assert_eq!(passage(text, None), text);
    }

    #[test]
    fn one_huge_sentence_is_cut() {
        let p = passage(&"word ".repeat(1000), Some("word"));
        assert_eq!(p.chars().count(), PASSAGE_CHARS);
        assert!(p.ends_with('…'));
    }
}
