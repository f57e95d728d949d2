//! Parts of long text: chunks of about `TARGET_CHARS` made of whole
//! paragraphs, a new chunk starting at a heading when one is near (so
//! parts follow the document's sections), each with the path of headings
//! it sits under (`Install > On Debian`), and the
//! last paragraph of a chunk (when short) repeated at the start of the next
//! so that a passage cut in two is still found whole in one of them.
//! Paragraphs longer than a chunk are split at sentence ends. Linear in the
//! length of the text, and at most `MAX_PARTS` parts: past them, the rest
//! of a huge text is still found by keyword (the full-text index), but not
//! embedded part by part.

use std::borrow::Cow;

/// Text at most this long gets no parts.
pub const MIN_CHARS_FOR_PARTS: usize = crate::summarize::PASSTHROUGH_CHARS;
const TARGET_CHARS: usize = 1500;
const MAX_CHARS: usize = 2400;
const OVERLAP_MAX_CHARS: usize = 400;
/// Parts of one note at most (about 1.5 MB of text).
pub const MAX_PARTS: usize = 1000;

/// How much of `text` its `parts` leave out, in bytes, when they stop at
/// `MAX_PARTS` before its end (the rest is found by keyword only).
pub fn left_out(text: &str, parts: &[Chunk]) -> Option<usize> {
    if parts.len() < MAX_PARTS {
        return None;
    }
    let last = parts.last()?.text.trim_end();
    let tail: String = last
        .chars()
        .rev()
        .take(200)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let end = text.rfind(tail.as_str()).map_or(0, |at| at + tail.len());
    let rest = text[end..].trim_end().len();
    (rest > 0).then_some(rest)
}

/// A part of a text: its text and the headings it sits under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub text: String,
    /// Headings from the outermost in, joined by ` > `; None before the
    /// first heading.
    pub section: Option<String>,
}

/// The parts of `text` with their sections, or none when it is short.
pub fn sectioned(text: &str) -> Vec<Chunk> {
    let parts = chunks(text);
    let mut path: Vec<(usize, String)> = Vec::new();
    let mut sections = Vec::with_capacity(parts.len());
    // Where each part starts in the text (parts come in order).
    let mut starts: Vec<usize> = Vec::new();
    let mut offset = 0usize;
    for part in &parts {
        // A paragraph wrapped by hand was joined: its opening still
        // stands in the text as it was.
        let first = part.split("\n\n").next().unwrap_or("");
        let opening = first
            .char_indices()
            .nth(30)
            .map_or(first, |(i, _)| &first[..i]);
        let at = text[offset..]
            .find(first)
            .or_else(|| text[offset..].find(opening))
            .map_or(offset, |i| offset + i);
        starts.push(at);
        offset = at;
    }
    let mut cursor = 0usize;
    let mut in_code = false;
    for start in starts {
        for line in text[cursor..start].lines() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            } else if !in_code {
                note_heading(&mut path, line);
            }
        }
        let mut here = path.clone();
        if !in_code && let Some(first_line) = short_line_at(text, start) {
            note_heading(&mut here, first_line);
        }
        sections.push((!here.is_empty()).then(|| {
            here.iter()
                .map(|(_, h)| h.as_str())
                .collect::<Vec<_>>()
                .join(" > ")
        }));
        cursor = start;
    }
    parts
        .into_iter()
        .zip(sections)
        .map(|(text, section)| Chunk { text, section })
        .collect()
}

/// The text that `parts` were cut from, whitespace aside: each part after
/// the first starts with the last paragraph of the one before (the
/// overlap `chunks` gives), which is left out once.
pub fn rejoin<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    let mut last_paragraph: Option<&str> = None;
    for part in parts {
        let part = part.trim();
        let fresh = last_paragraph
            .and_then(|last| part.strip_prefix(last))
            .map_or(part, str::trim_start);
        if !fresh.is_empty() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(fresh);
        }
        last_paragraph = part
            .rsplit("\n\n")
            .next()
            .map(str::trim)
            .filter(|p| !p.is_empty());
    }
    out
}

/// The parts of a presentation: one a slide, each in the section of its
/// title; none when the whole deck is short.
pub fn slides(slides: &[String]) -> Vec<Chunk> {
    let total: usize = slides.iter().map(|s| s.chars().count()).sum();
    if total <= MIN_CHARS_FOR_PARTS {
        return Vec::new();
    }
    slides
        .iter()
        .take(MAX_PARTS)
        .map(|slide| Chunk {
            text: slide.clone(),
            section: slide
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("## "))
                .map(str::to_string),
        })
        .collect()
}

/// Updates the path of headings with `line` if it is a Markdown heading.
fn note_heading(path: &mut Vec<(usize, String)>, line: &str) {
    if line.len() > MAX_HEADING_BYTES {
        return;
    }
    let trimmed = line.trim_start();
    let level = trimmed.chars().take_while(|c| *c == '#').count();
    if level == 0 || level > 6 || !trimmed[level..].starts_with(' ') {
        return;
    }
    let title = trimmed[level..].trim().to_string();
    if title.is_empty() {
        return;
    }
    path.retain(|(l, _)| *l < level);
    path.push((level, title));
}

/// A heading is one line of at most this many bytes: a longer line that
/// opens with `#` is text (a file with no line breaks is one line).
const MAX_HEADING_BYTES: usize = 300;

/// The line that starts at byte `at` of `text`, when it is no longer
/// than a heading may be; found without reading further than that.
fn short_line_at(text: &str, at: usize) -> Option<&str> {
    let rest = &text[at..];
    let mut window = rest.len().min(MAX_HEADING_BYTES + 1);
    while !rest.is_char_boundary(window) {
        window -= 1;
    }
    match rest[..window].find('\n') {
        Some(end) => Some(&rest[..end]),
        None if window == rest.len() => Some(rest),
        None => None,
    }
}

/// The chunks of `text`, or none when it is short.
pub fn chunks(text: &str) -> Vec<String> {
    if text.chars().count() <= MIN_CHARS_FOR_PARTS {
        return Vec::new();
    }
    let paragraphs = paragraphs(text);
    let mut out: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut len = 0;
    for para in &paragraphs {
        let para: &str = para;
        if out.len() >= MAX_PARTS {
            return out;
        }
        let n = para.chars().count();
        let heading = para.starts_with('#');
        let full =
            len + n > MAX_CHARS || (len >= TARGET_CHARS) || (heading && len >= TARGET_CHARS / 2);
        if full && !current.is_empty() {
            out.push(current.join("\n\n"));
            let last = *current.last().expect("not empty");
            current.clear();
            len = 0;
            if !heading && last.chars().count() <= OVERLAP_MAX_CHARS && !last.starts_with('#') {
                current.push(last);
                len = last.chars().count();
            }
        }
        current.push(para);
        len += n + 2;
    }
    if !current.is_empty() {
        let tail = current.join("\n\n");
        if out.last().is_none_or(|l| !l.ends_with(&tail)) {
            out.push(tail);
        }
    }
    out
}

/// Paragraphs, with those longer than `MAX_CHARS` split: prose at sentence
/// ends, code blocks at line ends (each piece fenced again).
fn paragraphs(text: &str) -> Vec<Cow<'_, str>> {
    let mut out: Vec<Cow<'_, str>> = Vec::new();
    for para in blocks(text) {
        if out.len() > MAX_PARTS * 2 {
            break;
        }
        if para.starts_with("```") && longer_than(para, MAX_CHARS) {
            split_code(para, &mut out);
            continue;
        }
        match crate::summarize::unwrapped(para) {
            Cow::Borrowed(para) => split_prose(para, &mut out, Cow::Borrowed),
            Cow::Owned(joined) => split_prose(&joined, &mut out, |s| Cow::Owned(s.to_string())),
        }
    }
    out
}

/// A paragraph of prose, cut at sentence ends into pieces of at most
/// `MAX_CHARS`.
fn split_prose<'a, 'p>(
    para: &'p str,
    out: &mut Vec<Cow<'a, str>>,
    keep: impl Fn(&'p str) -> Cow<'a, str>,
) {
    let mut rest = para;
    while longer_than(rest, MAX_CHARS) && out.len() <= MAX_PARTS * 2 {
        let cut = split_point(rest, TARGET_CHARS);
        out.push(keep(rest[..cut].trim()));
        rest = rest[cut..].trim_start();
    }
    if !rest.is_empty() {
        out.push(keep(rest));
    }
}

/// The text's blocks: runs of lines between blank lines, a fenced code
/// block (blank lines and all) being one block.
fn blocks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut in_code = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let here = offset;
        offset += line.len();
        let fence = line.trim_start().starts_with("```");
        if line.trim().is_empty() && !in_code {
            if let Some(s) = start.take() {
                out.push(text[s..here].trim());
            }
            continue;
        }
        if fence {
            in_code = !in_code;
        }
        start.get_or_insert(here);
    }
    if let Some(s) = start {
        out.push(text[s..].trim());
    }
    out.retain(|b| !b.is_empty());
    out
}

/// A long fenced code block cut at line ends into pieces of about
/// `TARGET_CHARS`, each fenced (with the block's language) on its own.
fn split_code<'a>(block: &'a str, out: &mut Vec<Cow<'a, str>>) {
    let mut lines = block.lines();
    let fence = lines.next().unwrap_or("```").trim();
    let body: Vec<&str> = lines
        .filter(|l| !l.trim_start().starts_with("```"))
        .collect();
    let mut piece = String::new();
    for line in body {
        if !piece.is_empty() && piece.chars().count() + line.chars().count() > TARGET_CHARS {
            out.push(Cow::Owned(format!("{fence}\n{piece}```")));
            piece.clear();
        }
        let line: String = line.chars().take(MAX_CHARS).collect();
        piece.push_str(&line);
        piece.push('\n');
    }
    if !piece.is_empty() {
        out.push(Cow::Owned(format!("{fence}\n{piece}```")));
    }
}

/// Whether `text` has more than `chars` characters, looking at no more than
/// `chars + 1` of them.
fn longer_than(text: &str, chars: usize) -> bool {
    text.len() > chars && text.char_indices().nth(chars).is_some()
}

/// A byte offset near `chars` characters into `text`: after the last
/// sentence end before it, else at a space, else exactly there.
fn split_point(text: &str, chars: usize) -> usize {
    let limit = text
        .char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..limit];
    let sentence = head
        .char_indices()
        .filter(|&(i, c)| matches!(c, '.' | '!' | '?') && head[i + 1..].starts_with(' '))
        .map(|(i, _)| i + 1)
        .next_back();
    match sentence.or_else(|| head.rfind(' ')) {
        Some(i) if i > limit / 3 => i,
        _ => limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_with_no_line_breaks_has_no_headings() {
        // One line of text that has "# " in it: no part takes the rest of
        // the line for its section.
        let text =
            "Some prose about lamps. # Not a heading, only text that follows. ".repeat(2_000);
        let parts = sectioned(&text);
        assert!(parts.len() > 10, "{}", parts.len());
        assert!(parts.iter().all(|p| p.section.is_none()));
        assert_eq!(short_line_at("# Title\nbody", 0), Some("# Title"));
        assert_eq!(short_line_at(&"x".repeat(400), 0), None);
        assert_eq!(short_line_at("é# tail", 2), Some("# tail"));
    }

    #[test]
    fn parts_start_at_sections_and_know_their_headings() {
        let para = |topic: &str| {
            format!(
                "{} ",
                format!("A sentence about {topic} goes here.").repeat(30)
            )
        };
        let text = format!(
            "# Guide\n\n{}\n\n## Install\n\n{}\n\n### On Debian\n\n{}\n\n## Use\n\n{}",
            para("the guide"),
            para("installing"),
            para("apt"),
            para("using it")
        );
        let parts = sectioned(&text);
        assert!(parts.len() >= 3, "{parts:?}");
        let sections: Vec<Option<&str>> = parts.iter().map(|p| p.section.as_deref()).collect();
        assert_eq!(sections[0], Some("Guide"));
        assert!(
            sections.contains(&Some("Guide > Install > On Debian")),
            "{sections:?}"
        );
        assert!(sections.contains(&Some("Guide > Use")), "{sections:?}");
        for p in &parts {
            if p.text.starts_with("## Use") {
                assert_eq!(p.section.as_deref(), Some("Guide > Use"));
            }
        }
    }

    #[test]
    fn code_blocks_stay_whole_and_their_comments_are_not_headings() {
        let prose = "Some words about the program and what it does. ".repeat(20);
        let code = "```sh\n# install it\napt install keep\n\n# then run it\nkeep put notes/\n```";
        let text = format!("# Guide\n\n{prose}\n\n{code}\n\n## Use\n\n{prose}\n\n{prose}");
        let parts = sectioned(&text);
        let with_code: Vec<&Chunk> = parts
            .iter()
            .filter(|p| p.text.contains("apt install"))
            .collect();
        assert!(!with_code.is_empty());
        for part in with_code {
            assert!(part.text.contains(code), "{part:?}");
            assert_eq!(part.section.as_deref(), Some("Guide"), "{part:?}");
        }
        assert!(
            parts.iter().all(|p| p.text.matches("```").count() % 2 == 0),
            "{parts:?}"
        );
    }

    #[test]
    fn a_long_code_block_is_cut_at_lines_and_fenced_again() {
        let code: String = (0..400).map(|i| format!("let x{i} = {i};\n")).collect();
        let text = format!("Intro words here for the code.\n\n```rust\n{code}```\n");
        let parts = chunks(&text);
        assert!(parts.len() >= 3, "{}", parts.len());
        for part in &parts {
            assert_eq!(part.matches("```").count() % 2, 0, "{part}");
            assert!(
                part.chars().count() <= MAX_CHARS + OVERLAP_MAX_CHARS,
                "{}",
                part.len()
            );
        }
        assert!(
            parts.iter().skip(1).all(|p| p.contains("```rust\nlet x")),
            "{parts:?}"
        );
    }

    #[test]
    fn short_text_has_no_parts() {
        assert!(chunks("a short note").is_empty());
    }

    #[test]
    fn chunks_follow_paragraphs_and_overlap_by_one() {
        let paras: Vec<String> = (0..30)
            .map(|i| {
                format!(
                    "Paragraph {i} says something useful about the topic at hand. {}",
                    "More words here. ".repeat(5)
                )
            })
            .collect();
        let text = paras.join("\n\n");
        let parts = chunks(&text);
        assert!(parts.len() >= 3, "{}", parts.len());
        for p in &parts {
            assert!(
                p.chars().count() <= MAX_CHARS + OVERLAP_MAX_CHARS,
                "{}",
                p.len()
            );
        }
        for pair in parts.windows(2) {
            let last = pair[0].split("\n\n").last().unwrap();
            assert!(pair[1].starts_with(last), "no overlap");
        }
        for para in &paras {
            assert!(parts.iter().any(|p| p.contains(para.trim())), "lost {para}");
        }
        let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            words(&rejoin(parts.iter().map(String::as_str))),
            words(&text)
        );
    }

    #[test]
    fn a_huge_text_is_capped_at_the_part_limit() {
        let line = "word ".repeat(2_000_000);
        let parts = chunks(&line);
        assert_eq!(parts.len(), MAX_PARTS);
        assert!(parts.iter().all(|p| p.chars().count() <= MAX_CHARS));
    }

    #[test]
    fn a_huge_paragraph_is_cut_at_sentences() {
        let text = "This sentence is in one giant paragraph. ".repeat(200);
        let parts = chunks(&text);
        assert!(parts.len() > 2);
        assert!(parts.iter().all(|p| p.trim_end().ends_with('.')));
    }
}
