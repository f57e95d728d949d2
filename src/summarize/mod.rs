//! Non-LLM summaries. Short text is its own summary; longer text is cut to
//! its opening paragraphs at a sentence boundary, and its full text stays
//! findable through the full-text index.

/// Text up to this many characters is stored whole as its own summary.
pub const PASSTHROUGH_CHARS: usize = 2000;
/// Target length of a summary of longer text.
pub const SUMMARY_CHARS: usize = 600;

/// The summary of `text` (already trimmed).
pub fn summarize(text: &str) -> String {
    if text.chars().count() <= PASSTHROUGH_CHARS {
        return text.to_string();
    }
    lead(text, SUMMARY_CHARS)
}

/// True when `summarize` keeps the text whole.
pub fn is_passthrough(text: &str) -> bool {
    text.chars().count() <= PASSTHROUGH_CHARS
}

/// The opening of `text`, whole paragraphs while they fit in `budget`
/// characters, else the first paragraph cut at its last sentence end.
fn lead(text: &str, budget: usize) -> String {
    let mut out = String::new();
    for para in text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        let needed = para.chars().count() + if out.is_empty() { 0 } else { 2 };
        if out.chars().count() + needed > budget {
            if out.is_empty() {
                out = cut_at_sentence(para, budget);
            }
            break;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(para);
    }
    out.push_str(" …");
    out
}

fn cut_at_sentence(para: &str, budget: usize) -> String {
    let head: String = para.chars().take(budget).collect();
    let end = head
        .char_indices()
        .filter(|&(i, c)| {
            matches!(c, '.' | '!' | '?')
                && head[i + c.len_utf8()..].starts_with(char::is_whitespace)
        })
        .map(|(i, c)| i + c.len_utf8())
        .next_back();
    match end {
        Some(end) if end > budget / 3 => head[..end].to_string(),
        _ => match head.rfind(char::is_whitespace) {
            Some(space) if space > budget / 3 => head[..space].to_string(),
            _ => head,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_its_own_summary() {
        assert_eq!(summarize("hello world"), "hello world");
    }

    #[test]
    fn long_text_keeps_whole_opening_paragraphs() {
        let para = "This is a sentence about storage engines. ".repeat(5);
        let text = format!("{para}\n\n{para}\n\n{}", "filler ".repeat(500));
        let summary = summarize(&text);
        assert!(summary.starts_with(para.trim()));
        assert!(summary.chars().count() <= SUMMARY_CHARS + 2);
        assert!(summary.ends_with(" …"));
    }

    #[test]
    fn a_long_first_paragraph_is_cut_at_a_sentence_end() {
        let text = "One sentence here. ".repeat(300);
        let summary = summarize(&text);
        assert!(summary.ends_with("here. …"));
        assert!(summary.chars().count() <= SUMMARY_CHARS + 2);
    }
}
