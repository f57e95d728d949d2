//! The line a part of a document is listed by, read from the part's text:
//! what it is about, never a bare code fence, a rule or markup.

use super::prose;

/// How a part is listed: its heading (or a short label line) and its
/// first prose sentence; a part that opens with code as `code (LANG): `
/// and the code's first meaningful line; a part of small print only by
/// its first line of small print. Not shortened.
pub fn part_line(text: &str) -> String {
    let mut label: Option<String> = None;
    let mut code: Option<String> = None;
    let mut small_print: Option<String> = None;
    let mut first_text: Option<String> = None;
    let mut fence: Option<String> = None;
    for line in logical_lines(text).iter().map(|l| l.trim()) {
        if let Some(rest) = line.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(rest.trim().to_string()),
            };
            continue;
        }
        if let Some(lang) = &fence {
            if code.is_none() && first_text.is_none() && is_meaningful_code(line) {
                code = Some(code_line(lang, line));
            }
            continue;
        }
        if line.is_empty() || is_rule(line) {
            continue;
        }
        let heading = line.starts_with('#');
        let plain = prose::plain_inline(prose::without_line_marks(line, &['#', '*', '>']));
        if plain.is_empty() {
            continue;
        }
        if code.is_some() && label.is_none() {
            return code.unwrap_or_default();
        }
        if prose::is_boilerplate(&plain) {
            small_print.get_or_insert(plain);
            continue;
        }
        if !heading && prose::is_prose(&plain) && prose::has_sentence_end(&plain) {
            return joined(label, &plain);
        }
        if label.is_none() && (heading || is_label(&plain)) {
            label = Some(plain);
            continue;
        }
        if !is_label(&plain) {
            first_text.get_or_insert(plain);
        }
    }
    if let Some(code) = code {
        return joined(label, &code);
    }
    match (first_text, small_print, label) {
        (Some(text), _, label) => joined(label, &text),
        (None, Some(small), _) => small,
        (None, None, label) => label.unwrap_or_default(),
    }
}

/// The lines of `text`, with each paragraph wrapped by hand (outside code)
/// joined into one.
fn logical_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let flush = |paragraph: &mut Vec<&str>, out: &mut Vec<String>| {
        if !paragraph.is_empty() {
            let joined = paragraph.join("\n");
            out.extend(prose::unwrapped(&joined).lines().map(str::to_string));
            paragraph.clear();
        }
    };
    let mut in_code = false;
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        if in_code || fence || line.trim().is_empty() || line.trim_start().starts_with('#') {
            flush(&mut paragraph, &mut out);
            out.push(line.to_string());
            in_code ^= fence;
        } else {
            paragraph.push(line);
        }
    }
    flush(&mut paragraph, &mut out);
    out
}

fn joined(label: Option<String>, text: &str) -> String {
    match label {
        Some(label) => format!("{label} — {text}"),
        None => text.to_string(),
    }
}

fn code_line(lang: &str, line: &str) -> String {
    let lang = lang
        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .next()
        .unwrap_or("");
    if lang.is_empty() {
        format!("code: {line}")
    } else {
        format!("code ({lang}): {line}")
    }
}

/// A line of code worth naming the block by: some words, not a lone brace.
fn is_meaningful_code(line: &str) -> bool {
    line.chars().filter(|c| c.is_alphanumeric()).count() >= 3
}

/// A short line without a sentence in it: a term, a name, a label.
fn is_label(line: &str) -> bool {
    line.chars().count() <= 60 && !prose::has_sentence_end(line)
}

fn is_rule(line: &str) -> bool {
    line.len() >= 3
        && line
            .chars()
            .all(|c| matches!(c, '-' | '*' | '_' | '=' | ' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_listed_by_its_heading_and_first_sentence() {
        assert_eq!(
            part_line(
                "## Chapter 1. Introduction\n\nThe Debian base-passwd package contains the master files. More."
            ),
            "Chapter 1. Introduction — The Debian base-passwd package contains the master files. More."
        );
        assert_eq!(
            part_line(
                "Bash is the shell, or command language interpreter, that will appear\n\
                       in the GNU operating system.  Bash is an sh-compatible shell that\n\
                       incorporates useful features."
            ),
            "Bash is the shell, or command language interpreter, that will appear in the GNU \
             operating system.  Bash is an sh-compatible shell that incorporates useful features."
        );
        assert_eq!(
            part_line("sys\n\nHistorically, the sys user and group owned the kernel sources."),
            "sys — Historically, the sys user and group owned the kernel sources."
        );
    }

    #[test]
    fn a_code_part_is_listed_by_its_language_and_first_meaningful_line() {
        assert_eq!(
            part_line(
                "```c\n{\n/* zpipe.c: example of proper use of zlib */\n}\n```\n\nWe now include the headers."
            ),
            "code (c): /* zpipe.c: example of proper use of zlib */"
        );
        assert_eq!(part_line("```\n\n    int ret;\n```"), "code: int ret;");
        assert_eq!(
            part_line("## Usage\n\n```sh\nkeep put notes.md\n```"),
            "Usage — code (sh): keep put notes.md"
        );
    }

    #[test]
    fn small_print_and_rules_are_not_what_a_part_is_about() {
        assert_eq!(
            part_line(
                "---\n\nJoey Hess\n\nCopyright © 2001, 2002 Joey Hess\n\nThis document is free; you can redistribute it and/or modify it."
            ),
            "Copyright © 2001, 2002 Joey Hess"
        );
        assert_eq!(
            part_line("## Colin Watson\n\nDavid Mandelberg"),
            "Colin Watson"
        );
        assert_eq!(
            part_line(
                "---\n\n*Copyright (c) 2004, 2005 by Mark Adler\nLast modified 11 December 2005*"
            ),
            "Copyright (c) 2004, 2005 by Mark Adler"
        );
        assert_eq!(part_line("```\n```"), "");
    }
}
