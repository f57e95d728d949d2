//! Non-LLM summaries. Short text is its own summary. Longer text gets an
//! extractive summary: the title line, then the sentences that best cover
//! the document's frequent content words (each sentence scored by the
//! document frequency of its distinct content words over the square root of
//! their count, with a bonus for the opening sentence), in document order,
//! within a length budget. The full text stays findable through the
//! full-text index.

use std::collections::{HashMap, HashSet};

mod part;
mod prose;

pub use part::part_line;
pub(crate) use prose::unwrapped;

pub use keep_model::is_stopword;

/// Text up to this many characters is stored whole as its own summary.
pub const PASSTHROUGH_CHARS: usize = 2000;
/// Target length of a summary of longer text.
pub const SUMMARY_CHARS: usize = 600;
/// Only this much of a huge text (bytes, cut at a character) is read to
/// summarise it, so the cost stays bounded.
const SUMMARY_INPUT_BYTES: usize = 1 << 20;

/// The summary of `text` (already trimmed).
pub fn summarize(text: &str) -> String {
    crate::spent::timed(crate::spent::Stage::Summarising, || summarize_text(text))
}

fn summarize_text(text: &str) -> String {
    if text.chars().count() <= PASSTHROUGH_CHARS {
        return text.to_string();
    }
    let text = unwrap_paragraphs(prefix(text, SUMMARY_INPUT_BYTES));
    let text = unwrap_hard_wraps(&text);
    extractive(&text, SUMMARY_CHARS).unwrap_or_else(|| lead(&text, SUMMARY_CHARS))
}

/// Each paragraph (between blank lines) wrapped by hand as one line.
fn unwrap_paragraphs(text: &str) -> String {
    text.split("\n\n")
        .map(prose::unwrapped)
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Shortest and longest line of a paragraph wrapped at a fixed width.
const WRAPPED_LINE: std::ops::RangeInclusive<usize> = 40..=100;

/// Plain text wrapped by hand at a fixed width (README, INTRO, changelogs)
/// with the lines of each paragraph joined, so a sentence is not cut at
/// every line end. Only runs of three or more such lines are joined; lists,
/// indented blocks, headings and short lines stay as they are.
fn unwrap_hard_wraps(text: &str) -> std::borrow::Cow<'_, str> {
    let lines: Vec<&str> = text.lines().collect();
    let wrapped = |l: &str| {
        let t = l.trim_end();
        WRAPPED_LINE.contains(&t.chars().count())
            && !t.starts_with([' ', '\t', '-', '*', '#', '>', '|', '•'])
            && !t.chars().next().is_some_and(|c| c.is_ascii_digit())
    };
    let mut run_of = vec![0usize; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        let start = i;
        while i < lines.len() && wrapped(lines[i]) {
            i += 1;
        }
        // The last line of a paragraph is short: it belongs to the run.
        let end = if i > start
            && i < lines.len()
            && !lines[i].trim().is_empty()
            && !lines[i].starts_with([' ', '\t'])
        {
            i + 1
        } else {
            i
        };
        for r in run_of.iter_mut().take(end).skip(start) {
            *r = end - start;
        }
        i = end.max(start + 1);
    }
    if !run_of.iter().any(|&n| n >= 3) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (k, line) in lines.iter().enumerate() {
        out.push_str(line.trim_end());
        let joins = run_of[k] >= 3
            && run_of.get(k + 1).is_some_and(|&n| n == run_of[k])
            && k + 1 < lines.len()
            && !lines[k + 1].trim().is_empty();
        out.push(if joins { ' ' } else { '\n' });
    }
    std::borrow::Cow::Owned(out)
}

/// At most `bytes` of `text`, cut at a character boundary.
fn prefix(text: &str, bytes: usize) -> &str {
    if text.len() <= bytes {
        return text;
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The summary of a published document (a web page, a PDF, a DOCX):
/// prose only, the opening prose sentence first, then the sentences that
/// best cover the document; without the title when the document has one
/// in its tags (the title is shown beside the summary). Text that is all
/// prose and short is kept whole. (Text and Markdown people wrote
/// themselves are summarised by `summarize`.)
pub fn summarize_document(text: &str, has_title: bool) -> String {
    crate::spent::timed(crate::spent::Stage::Summarising, || {
        summarize_published(text, has_title)
    })
}

fn summarize_published(text: &str, has_title: bool) -> String {
    let all_prose = text
        .lines()
        .all(|l| l.trim().is_empty() || (prose::is_text_line(l) && prose::is_prose(l)));
    if all_prose && text.chars().count() <= PASSTHROUGH_CHARS {
        return prose::plain_inline(text);
    }
    let text = prefix(text, SUMMARY_INPUT_BYTES);
    let options = Options {
        prose_only: true,
        lead_first: true,
        title: !has_title,
    };
    let summary = extractive_with(text, SUMMARY_CHARS, options)
        .or_else(|| prose_lead(text, SUMMARY_CHARS))
        .or_else(|| headings_lead(text, SUMMARY_CHARS))
        .unwrap_or_else(|| lead(text, SUMMARY_CHARS));
    prose::plain_inline(&summary)
}

/// The summary of a document from the opening its format marks as what
/// it is about: its sentences while they fit.
pub fn summarize_lead(lead: &str) -> String {
    let summary = if lead.chars().count() <= SUMMARY_CHARS {
        lead.to_string()
    } else {
        cut_at_sentence(lead, SUMMARY_CHARS)
    };
    prose::plain_inline(&summary)
}

/// For a document without prose (source code, an index): its headings and
/// other lines outside code, while they fit.
fn headings_lead(text: &str, budget: usize) -> Option<String> {
    let mut out = String::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let line = prose::without_line_marks(line, &['#', '*', '>', '|']);
        if in_code || line.is_empty() {
            continue;
        }
        if out.chars().count() + line.chars().count() + 1 > budget {
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    (!out.is_empty()).then_some(out)
}

/// How an extractive summary is made.
#[derive(Debug, Clone, Copy)]
struct Options {
    /// Only sentences that read as prose, from lines that are text.
    prose_only: bool,
    /// The first (prose) sentence always comes first.
    lead_first: bool,
    /// A title line starts the summary.
    title: bool,
}

/// The opening prose lines (lines with a sentence in them, not labels or
/// table headers), while they fit; None when there is no prose.
fn prose_lead(text: &str, budget: usize) -> Option<String> {
    let mut out = String::new();
    for line in text_lines(text) {
        let line = prose::without_line_marks(line, &['*', '>']);
        if !prose::is_prose(line) || !prose::has_sentence_end(line) || prose::is_boilerplate(line) {
            continue;
        }
        if out.chars().count() + line.chars().count() + 1 > budget {
            if out.is_empty() {
                out = cut_at_sentence(line, budget);
            }
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(line);
    }
    (!out.is_empty()).then_some(out)
}

/// The lines of a document that hold its own text: outside code blocks,
/// not headings, table rows or rules, not a generator's annotations, and
/// not an aside (the paragraph after a "Note" or "Author:" label).
fn text_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut in_code = false;
    let mut in_aside = false;
    let mut aside_started = false;
    text.lines().filter(move |line| {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            return false;
        }
        if in_code {
            return false;
        }
        if in_aside {
            if line.trim().is_empty() {
                in_aside = !aside_started;
            } else {
                aside_started = true;
                return false;
            }
        }
        if prose::is_aside_label(line) {
            in_aside = true;
            aside_started = false;
            return false;
        }
        prose::is_text_line(line) && !prose::is_annotation(line.trim())
    })
}

/// A sentence scoring under this fraction of the best is not chosen.
const MIN_RELATIVE_SCORE: f64 = 0.25;

/// A sentence of the document and where it stands.
struct Sentence<'a> {
    text: &'a str,
    position: usize,
}

/// The title line, then the best-scoring sentences in document order;
/// None when the text has too few sentences to choose from.
fn extractive(text: &str, budget: usize) -> Option<String> {
    let options = Options {
        prose_only: false,
        lead_first: false,
        title: true,
    };
    extractive_with(text, budget, options)
}

fn extractive_with(text: &str, budget: usize, options: Options) -> Option<String> {
    let (title, body) = split_title(text);
    let title = title.filter(|_| options.title);
    let mut sentences = sentences(body, options.prose_only);
    if options.prose_only {
        sentences.retain(|s| {
            prose::is_prose(s.text) && !prose::is_annotation(s.text) && !prose::is_fragment(s.text)
        });
        for (i, s) in sentences.iter_mut().enumerate() {
            s.position = i;
        }
    }
    if sentences.len() < 3 {
        return None;
    }
    let mut freq = word_frequencies(&sentences);
    for w in title.into_iter().flat_map(content_words) {
        *freq.entry(w).or_default() *= 2.0;
    }
    let mut ranked: Vec<(f64, &Sentence)> = sentences
        .iter()
        .filter(|s| (20..=400).contains(&s.text.chars().count()))
        .map(|s| (score(s, &freq), s))
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut used = title.map_or(0, |t| t.chars().count() + 2);
    let mut chosen: Vec<&Sentence> = Vec::new();
    let mut chosen_words: Vec<HashSet<String>> = Vec::new();
    let best = ranked.first().map_or(0.0, |r| r.0);
    if options.lead_first
        && let Some(opening) = sentences.first()
    {
        let len = opening.text.chars().count() + 1;
        if used + len <= budget {
            used += len;
            chosen.push(opening);
            chosen_words.push(content_words(opening.text).collect());
        }
    }
    for (score, s) in ranked {
        if chosen.iter().any(|c| c.position == s.position) {
            continue;
        }
        // Filler of little weight is left out even when there is room.
        if score < best * MIN_RELATIVE_SCORE && s.position != 0 {
            continue;
        }
        let len = s.text.chars().count() + 1;
        if used + len > budget {
            continue;
        }
        let words: HashSet<String> = content_words(s.text).collect();
        if chosen_words.iter().any(|w| overlap(w, &words) > 0.6) {
            continue;
        }
        used += len;
        chosen.push(s);
        chosen_words.push(words);
    }
    if chosen.is_empty() {
        return None;
    }
    chosen.sort_by_key(|s| s.position);
    let body: Vec<&str> = chosen.iter().map(|s| s.text).collect();
    let mut out = String::new();
    if let Some(title) = title {
        out.push_str(title);
        out.push_str("\n\n");
    }
    out.push_str(&body.join(" "));
    out.push_str(" …");
    Some(out)
}

/// A short first line without closing punctuation is a title.
fn split_title(text: &str) -> (Option<&str>, &str) {
    let text = text.trim_start();
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let line = first.trim().trim_start_matches('#').trim();
    let is_title = !line.is_empty()
        && line.chars().count() <= 100
        && !line.ends_with(['.', '!', '?', ':', ',', ';']);
    if is_title {
        (Some(line), rest)
    } else {
        (None, text)
    }
}

/// Sentences: split at sentence ends and at line breaks; headings and list
/// markers are dropped. With `text_only`, code blocks, headings and table
/// rows are left out.
fn sentences(text: &str, text_only: bool) -> Vec<Sentence<'_>> {
    let mut out = Vec::new();
    let lines: Box<dyn Iterator<Item = &str>> = if text_only {
        Box::new(text_lines(text))
    } else {
        Box::new(text.lines())
    };
    for line in lines {
        let line = prose::without_line_marks(line, &['#', '*', '>']);
        let mut start = 0;
        let bytes: Vec<(usize, char)> = line.char_indices().collect();
        for (k, &(i, c)) in bytes.iter().enumerate() {
            let at_end = k + 1 == bytes.len();
            let boundary =
                matches!(c, '.' | '!' | '?') && (at_end || bytes[k + 1].1.is_whitespace());
            if boundary || at_end {
                let piece = line[start..i + c.len_utf8()].trim();
                let words = piece.split_whitespace().count();
                // A short line without an end is a heading or a label; a
                // sentence ending in a colon introduces what is not shown.
                let label = start == 0 && at_end && words <= 6 && !prose::has_sentence_end(piece);
                if words >= 3 && !label && !piece.ends_with(':') && !prose::is_boilerplate(piece) {
                    out.push(Sentence {
                        text: piece,
                        position: out.len(),
                    });
                }
                start = i + c.len_utf8();
            }
        }
    }
    out
}

pub fn content_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !is_stopword(w) && !w.chars().all(|c| c.is_ascii_digit()))
}

/// Jaccard similarity of two word sets.
fn overlap(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

fn word_frequencies(sentences: &[Sentence<'_>]) -> HashMap<String, f64> {
    let mut freq: HashMap<String, f64> = HashMap::new();
    for s in sentences {
        for w in content_words(s.text) {
            *freq.entry(w).or_default() += 1.0;
        }
    }
    freq
}

fn score(s: &Sentence<'_>, freq: &HashMap<String, f64>) -> f64 {
    let words: HashSet<String> = content_words(s.text).collect();
    if words.is_empty() {
        return 0.0;
    }
    let total: f64 = words
        .iter()
        .map(|w| freq.get(w).copied().unwrap_or(0.0))
        .sum();
    let lead_bonus = if s.position == 0 { 1.5 } else { 1.0 };
    lead_bonus * total / (words.len() as f64).sqrt()
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
    fn text_wrapped_by_hand_is_summarised_in_whole_sentences() {
        let intro = "\t\t       BASH - The Bourne-Again Shell\n\n\
Bash is the shell, or command language interpreter, that will appear\n\
in the GNU operating system.  Bash is an sh-compatible shell that\n\
incorporates useful features from the Korn shell (ksh) and C shell\n\
(csh).  It is intended to conform to the IEEE POSIX P1003.2/ISO 9945.2\n\
Shell and Tools standard.\n\n\
Bash includes the following features:\n\n\
- one item\n\
- another item\n";
        let unwrapped = unwrap_hard_wraps(intro);
        assert!(unwrapped.contains(
            "Bash is the shell, or command language interpreter, that will appear in the GNU operating system."
        ), "{unwrapped}");
        assert!(
            unwrapped.contains("Shell and Tools standard.\n\nBash includes"),
            "{unwrapped}"
        );
        assert!(
            unwrapped.contains("- one item\n- another item"),
            "{unwrapped}"
        );
        let long = intro.repeat(12);
        let summary = summarize(&long);
        assert!(!summary.contains("that will appear Bash"), "{summary}");
        assert!(
            summary.contains("that will appear in the GNU operating system"),
            "{summary}"
        );
        let short_lines = "a list\nof short\nlines here\nstays";
        assert_eq!(unwrap_hard_wraps(short_lines), short_lines);
    }

    #[test]
    fn short_text_is_its_own_summary() {
        assert_eq!(summarize("hello world"), "hello world");
    }

    #[test]
    fn text_without_sentences_keeps_its_opening() {
        let para = "storage engines compared".repeat(3);
        let text = format!("{para}\n\n{para}\n\n{}", "filler ".repeat(500));
        let summary = summarize(&text);
        assert!(summary.chars().count() <= SUMMARY_CHARS + 2);
        assert!(summary.ends_with(" …"));
    }

    #[test]
    fn the_summary_picks_the_sentences_about_the_main_subject() {
        let mut text = String::from("Write-ahead logging in SQLite\n\n");
        for line in [
            "Please accept our cookies to continue reading this page.",
            "Sign in to save articles and follow your favourite authors.",
            "Share this story with friends on your favourite social network.",
            "Our weekly newsletter brings fresh stories every Monday morning.",
        ] {
            text.push_str(line);
            text.push(' ');
        }
        text.push_str("\n\n");
        for (i, topic) in [
            "readers never block the writer",
            "the writer appends pages to the log",
            "a checkpoint copies log pages back into the database",
            "readers see a consistent snapshot of the database",
            "the log file grows until a checkpoint runs",
            "only one writer may append to the log at a time",
        ]
        .iter()
        .enumerate()
        {
            text.push_str(&format!(
                "In WAL mode of SQLite, {topic}, as note {i} on the write-ahead log explains. "
            ));
        }
        text.push_str("\n\nFooter: contact us, careers, press, legal notices and the sitemap.");
        let summary = extractive(&text, 300).expect("enough sentences");
        assert!(
            summary.starts_with("Write-ahead logging in SQLite\n\n"),
            "{summary}"
        );
        assert!(summary.contains("WAL mode"), "{summary}");
        for noise in ["cookies", "Sign in", "newsletter", "Footer"] {
            assert!(!summary.contains(noise), "{noise} in {summary}");
        }
        assert!(summary.chars().count() <= 302);
    }

    #[test]
    fn near_duplicate_sentences_are_chosen_once() {
        let mut text = String::new();
        for _ in 0..5 {
            text.push_str("The storage engine keeps pages in a write-ahead log. ");
        }
        text.push_str("Vacuum rebuilds the database file to reclaim free pages. ");
        text.push_str("Indexes speed up lookups of pages by key in the engine. ");
        let summary = extractive(&text, 600).unwrap();
        assert_eq!(summary.matches("write-ahead log").count(), 1, "{summary}");
    }
}
