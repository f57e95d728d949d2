//! Pages of a paged document (PDF) made into readable text: lines repeated
//! at the top or bottom of many pages (running headers and footers) and
//! page numbers are removed, lines wrapped inside a paragraph are joined
//! (hyphenated words mended), and typographic ligatures are undone.

use std::collections::HashMap;

/// Lines at each end of a page that may be a running header or footer.
const EDGE_LINES: usize = 3;
/// A line seen at a page's edge on this share of pages (or more) is a
/// running header or footer.
const REPEATED_SHARE: f64 = 0.4;

/// The pages, cleaned; empty pages stay empty.
pub fn clean_pages(pages: &[String]) -> Vec<String> {
    let repeated = repeated_edges(pages);
    pages
        .iter()
        .map(|page| {
            let lines: Vec<&str> = page.lines().map(str::trim_end).collect();
            let count = lines.len();
            let edge = edge_width(count);
            let kept: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|(i, line)| {
                    let at_edge = *i < edge || *i + edge >= count;
                    !(at_edge && (is_page_number(line) || repeated.contains(&edge_key(line))))
                        && !is_contents_entry(line)
                })
                .map(|(_, l)| *l)
                .collect();
            unwrap_paragraphs(&undo_ligatures(&kept.join("\n")))
        })
        .collect()
}

/// How many lines at each end of a page of `count` lines are its edge: a
/// short page has a narrow edge, so its body is never taken for furniture.
fn edge_width(count: usize) -> usize {
    (count / 4).clamp(1, EDGE_LINES)
}

/// The keys of lines repeated at the edges of many pages.
fn repeated_edges(pages: &[String]) -> Vec<String> {
    if pages.len() < 3 {
        return Vec::new();
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for page in pages {
        let lines: Vec<&str> = page.lines().filter(|l| !l.trim().is_empty()).collect();
        let edge = edge_width(lines.len());
        let mut keys: Vec<String> = lines
            .iter()
            .take(edge)
            .chain(lines.iter().rev().take(edge))
            .map(|l| edge_key(l))
            .filter(|k| !k.is_empty())
            .collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            *seen.entry(key).or_default() += 1;
        }
    }
    let needed = (pages.len() as f64 * REPEATED_SHARE).ceil() as usize;
    seen.into_iter()
        .filter(|(_, n)| *n >= needed.max(2))
        .map(|(k, _)| k)
        .collect()
}

/// A line as compared across pages: digits are page numbers or dates that
/// change, so they are all one digit; case and spacing do not count.
fn edge_key(line: &str) -> String {
    let mut key = String::new();
    for c in line.trim().chars() {
        if c.is_ascii_digit() {
            if !key.ends_with('#') {
                key.push('#');
            }
        } else if c.is_whitespace() {
            if !key.ends_with(' ') {
                key.push(' ');
            }
        } else {
            key.extend(c.to_lowercase());
        }
    }
    key.trim().to_string()
}

/// `12`, `- 12 -`, `Page 3`, `3 of 40`, `xiv`: a page number alone.
fn is_page_number(line: &str) -> bool {
    let t = line
        .trim()
        .trim_matches(['-', '–', '—', ' ', '[', ']'])
        .to_lowercase();
    if t.is_empty() {
        return false;
    }
    let t = t.strip_prefix("page").map_or(t.as_str(), str::trim);
    let words: Vec<&str> = t.split_whitespace().collect();
    let number = |w: &str| {
        w.chars().all(|c| c.is_ascii_digit())
            || (w.len() <= 6 && w.chars().all(|c| "ivxlc".contains(c)))
    };
    match words.as_slice() {
        [n] => number(n),
        [n, "of", m] | [n, "/", m] => number(n) && number(m),
        _ => false,
    }
}

/// A line of a table of contents: a title, dot leaders, a page number
/// (`2.1 Getting started . . . . 26`).
fn is_contents_entry(line: &str) -> bool {
    let t = line.trim_end();
    let Some(body) = t.strip_suffix(|c: char| c.is_ascii_digit()) else {
        return false;
    };
    let body = body
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .trim_end();
    let leader: String = body
        .chars()
        .rev()
        .take_while(|c| *c == '.' || *c == ' ')
        .collect();
    leader.matches('.').count() >= 3
}

/// Typographic ligatures as their letters.
fn undo_ligatures(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            'ﬀ' => out.push_str("ff"),
            'ﬁ' => out.push_str("fi"),
            'ﬂ' => out.push_str("fl"),
            'ﬃ' => out.push_str("ffi"),
            'ﬄ' => out.push_str("ffl"),
            'ﬅ' | 'ﬆ' => out.push_str("st"),
            _ => out.push(c),
        }
    }
    out
}

/// Lines wrapped inside a paragraph joined into one line: a line joins the
/// one before when that one does not end a sentence and this one starts
/// in lowercase, or when that one ends in a hyphenated word.
fn unwrap_paragraphs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous = "";
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            if !out.ends_with("\n\n") && !out.is_empty() {
                out.push_str("\n\n");
            }
            previous = "";
            continue;
        }
        let hyphenated = previous.ends_with('-')
            && previous[..previous.len() - 1].ends_with(char::is_alphabetic)
            && line.starts_with(char::is_lowercase);
        let continues = !previous.is_empty()
            && !previous.ends_with(['.', '!', '?', ':', ';'])
            && line.starts_with(|c: char| c.is_lowercase() || c == '(' || c == ',');
        if hyphenated {
            out.pop();
            out.push_str(line);
        } else if continues {
            out.push(' ');
            out.push_str(line);
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(line);
        }
        previous = line;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_headers_footers_and_page_numbers_go() {
        let topics = ["tides", "ropes", "sails", "knots", "charts"];
        let pages: Vec<String> = (1..=5)
            .map(|n| {
                let topic = topics[n - 1];
                format!(
                    "BASH(1) General Commands Manual BASH(1)\nBody text about {topic} starts here and goes\non over a wrapped line on {topic}.\n{}GNU Bash 5.2 2022 September 19 {n}\n{n}",
                    format!("More about {topic}, a line of its own.\n").repeat(8)
                )
            })
            .collect();
        let clean = clean_pages(&pages);
        for (i, page) in clean.iter().enumerate() {
            assert!(!page.contains("General Commands"), "{page}");
            assert!(!page.contains("GNU Bash"), "{page}");
            let topic = topics[i];
            assert!(
                page.starts_with(&format!(
                    "Body text about {topic} starts here and goes on over a wrapped line on {topic}.\nMore"
                )),
                "{page}"
            );
            assert!(page.ends_with("a line of its own."), "{page}");
        }
    }

    #[test]
    fn hyphens_and_ligatures_are_mended() {
        assert_eq!(
            unwrap_paragraphs("an exam-\nple of text"),
            "an example of text"
        );
        assert_eq!(undo_ligatures("ﬁle ﬂow"), "file flow");
        assert!(
            is_page_number("- 12 -") && is_page_number("Page 3 of 40") && is_page_number("xiv")
        );
        assert!(!is_page_number("12 angry men"));
        assert!(is_contents_entry("2.1 Getting started . . . . . . . 26"));
        assert!(is_contents_entry("Scope of This Document.........3"));
        assert!(!is_contents_entry("It was released in 2022"));
    }
}
