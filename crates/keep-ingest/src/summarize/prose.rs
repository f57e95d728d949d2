//! Telling prose from what is not: code, hex dumps, tables of numbers,
//! page furniture. A summary is made of prose only.

/// Whether `sentence` reads as prose: at least four words, mostly letters,
/// few of the characters code is made of, not mostly numbers or hex, and
/// with some lowercase words.
pub fn is_prose(sentence: &str) -> bool {
    let sentence = &inline_code_as_words(sentence);
    let words: Vec<&str> = sentence.split_whitespace().collect();
    if words.len() < 4 {
        return false;
    }
    let chars = sentence
        .chars()
        .filter(|c| !c.is_whitespace())
        .count()
        .max(1);
    let letters = sentence.chars().filter(|c| c.is_alphabetic()).count();
    let digits = sentence.chars().filter(|c| c.is_ascii_digit()).count();
    let code = sentence
        .chars()
        .filter(|c| {
            matches!(
                c,
                '{' | '}' | ';' | '=' | '<' | '>' | '(' | ')' | '[' | ']' | '\\' | '|' | '$'
            )
        })
        .count();
    let hexish = words
        .iter()
        .filter(|w| {
            w.len() >= 2
                && w.chars().all(|c| c.is_ascii_hexdigit())
                && w.chars().any(|c| c.is_ascii_digit())
        })
        .count();
    let plain_words = words
        .iter()
        .filter(|w| {
            let core = w.trim_matches(|c: char| !c.is_alphanumeric());
            core.len() >= 2
                && core.chars().all(|c| c.is_alphabetic())
                && core.chars().skip(1).all(char::is_lowercase)
        })
        .count();
    letters * 10 >= chars * 7
        && code * 100 <= chars * 6
        && digits * 4 <= chars
        && hexish * 4 < words.len()
        && plain_words * 2 >= words.len()
}

/// Whether `sentence` is a documentation generator's annotation rather
/// than the text's own words: version notes, stability banners, captions
/// of listings, figures and tables.
pub fn is_annotation(sentence: &str) -> bool {
    const OPENINGS: [&str; 6] = [
        "new in version ",
        "changed in version ",
        "deprecated since version ",
        "added in version ",
        "version added:",
        "stability:",
    ];
    let lower = sentence.trim_start().trim_start_matches('*').to_lowercase();
    if OPENINGS.iter().any(|o| lower.starts_with(o)) || is_field(sentence) {
        return true;
    }
    let mut words = lower.split_whitespace();
    let caption = matches!(
        words.next(),
        Some("listing" | "figure" | "fig." | "table" | "example")
    );
    caption
        && words.next().is_some_and(|n| {
            let n = n.trim_end_matches([':', '.']);
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_digit() || c == '-' || c == '.')
        })
}

/// Each inline code span (`...`) stands for one word: a sentence that
/// names `format_args!(..)` is still prose.
fn inline_code_as_words(sentence: &str) -> std::borrow::Cow<'_, str> {
    let ticks = sentence.matches('`').count();
    if ticks < 2 {
        return sentence.into();
    }
    let mut out = String::with_capacity(sentence.len());
    for (i, piece) in sentence.split('`').enumerate() {
        let unmatched = ticks % 2 == 1 && i == ticks;
        if i % 2 == 1 && !unmatched {
            out.push_str("code");
        } else {
            out.push_str(piece);
        }
    }
    out.into()
}

/// A field of a document's front matter on one line: a label of one or
/// two words and a short value ("Source code: Lib/asyncio/futures.py",
/// "Availability: Linux.", "Author: A. Person").
fn is_field(sentence: &str) -> bool {
    let Some((label, value)) = sentence.split_once(':') else {
        return false;
    };
    let label = label.trim().trim_matches('*').trim();
    let label_words = label.split_whitespace().count();
    (1..=2).contains(&label_words)
        && label.chars().next().is_some_and(char::is_uppercase)
        && label.chars().all(|c| c.is_alphabetic() || c == ' ')
        && label_words + value.split_whitespace().count() < 10
}

/// A line that only labels what follows: an admonition's title ("Note",
/// "Warning", "See also") or a field's name on a line of its own
/// ("Author:"). The paragraph after it is an aside or a field value.
pub fn is_aside_label(line: &str) -> bool {
    const ADMONITIONS: [&str; 11] = [
        "note",
        "warning",
        "tip",
        "hint",
        "important",
        "caution",
        "attention",
        "danger",
        "error",
        "see also",
        "seealso",
    ];
    let line = line.trim().trim_matches('*').trim();
    let bare = line.trim_end_matches(':').trim_end();
    if ADMONITIONS.contains(&bare.to_lowercase().as_str()) {
        return true;
    }
    line.ends_with(':')
        && (1..=2).contains(&bare.split_whitespace().count())
        && bare.chars().next().is_some_and(char::is_uppercase)
}

/// Whether `sentence` is a document's small print rather than its
/// subject: a copyright line, a licence notice, an author or maintainer
/// line, a "last modified" stamp. Such lines are never a summary.
pub fn is_boilerplate(sentence: &str) -> bool {
    const OPENINGS: [&str; 16] = [
        "copyright ©",
        "copyright (c)",
        "©",
        "(c) ",
        "all rights reserved",
        "written by ",
        "author:",
        "authors:",
        "maintainer:",
        "maintained by ",
        "licensed under ",
        "license:",
        "licence:",
        "spdx-license-identifier",
        "last modified",
        "last updated",
    ];
    const NOTICES: [&str; 8] = [
        "all rights reserved",
        "without any warranty",
        "redistribute it and/or modify",
        "you should have received a copy",
        "permission is hereby granted",
        "permission is granted to copy",
        "merchantability or fitness",
        "provided \"as is\"",
    ];
    let line = without_line_marks(sentence, &['#', '*', '_', '>']).to_lowercase();
    let dated_copyright = line.strip_prefix("copyright ").is_some_and(|rest| {
        rest.split(|c: char| !c.is_ascii_digit())
            .next()
            .is_some_and(|year| year.len() == 4)
    });
    let licence_pointer = (line.contains("license") || line.contains("licence"))
        && [
            "see the ",
            "for more details",
            "any later version",
            "either version",
        ]
        .iter()
        .any(|p| line.contains(p));
    dated_copyright
        || licence_pointer
        || OPENINGS.iter().any(|o| line.starts_with(o))
        || NOTICES.iter().any(|n| line.contains(n))
}

/// A paragraph of prose wrapped by hand at a fixed width, as one line;
/// anything else (a list, a table, code, verse, a short label and its
/// text) as it is.
pub fn unwrapped(paragraph: &str) -> std::borrow::Cow<'_, str> {
    let lines: Vec<&str> = paragraph.lines().map(str::trim).collect();
    let Some((_, body)) = lines.split_last() else {
        return paragraph.into();
    };
    let wrapped = !body.is_empty()
        && body.iter().all(|l| (45..=120).contains(&l.chars().count()))
        && lines.iter().all(|l| {
            !l.is_empty()
                && !l.starts_with(['-', '*', '#', '|', '>', '+', '•'])
                && !l.starts_with("```")
                && !l.ends_with([';', '{', '}'])
        });
    let joined = lines.join(" ");
    if !wrapped || !is_prose(&joined) || !has_sentence_end(&joined) {
        return paragraph.into();
    }
    joined.into()
}

/// Whether `line` ends a sentence somewhere: a full stop, question or
/// exclamation mark at its end or before a space, or a colon at its end
/// (a sentence that introduces an example).
pub fn has_sentence_end(line: &str) -> bool {
    let line = line.trim_end();
    line.ends_with(['.', '!', '?', ':']) || [". ", "! ", "? "].iter().any(|end| line.contains(end))
}

/// A short sentence that starts in lowercase: a definition's body ("true
/// if file exists.") or a caption, not a sentence of its own.
pub fn is_fragment(sentence: &str) -> bool {
    sentence.chars().next().is_some_and(char::is_lowercase)
        && sentence.split_whitespace().count() < 8
}

/// `line` without what opens a Markdown line: heading marks, quote marks,
/// list bullets and any of `marks`, with the spaces between them. A dash
/// is a bullet only before a space: `-c` and `--sort` are options and keep
/// their dashes.
pub fn without_line_marks<'a>(line: &'a str, marks: &[char]) -> &'a str {
    let mut rest = line.trim();
    loop {
        let next = rest.trim_start_matches(|c: char| c == ' ' || marks.contains(&c));
        let next = match next.strip_prefix('-') {
            Some(after) if after.is_empty() || after.starts_with(char::is_whitespace) => after,
            _ => next,
        };
        if next.len() == rest.len() {
            return next.trim_start();
        }
        rest = next;
    }
}

/// The sentence without inline markup: code ticks and emphasis marks.
pub fn plain_inline(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        let mark = match c {
            '`' => true,
            '*' => {
                let opens = before.is_none_or(|b| b.is_whitespace() || b == '*' || b == '(')
                    && after.is_some_and(|a| a.is_alphanumeric() || a == '*' || a == '`');
                let closes = before
                    .is_some_and(|b| b.is_alphanumeric() || b == '*' || b == '`' || b == '.')
                    && after.is_none_or(|a| !a.is_alphanumeric());
                opens || closes
            }
            _ => false,
        };
        if !mark {
            out.push(c);
        }
    }
    out
}

/// Whether a line of a document is prose text, not structure: not a
/// heading, a table row, a rule or a bare list of words.
pub fn is_text_line(line: &str) -> bool {
    let line = line.trim();
    !(line.is_empty()
        || line.starts_with('#')
        || line.starts_with('|')
        || line.starts_with("---")
        || line.starts_with("```"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_wrapped_by_hand_become_one_line_and_lists_do_not() {
        let intro = "Bash is the shell, or command language interpreter, that will appear\n\
                     in the GNU operating system.  Bash is an sh-compatible shell that\n\
                     incorporates useful features.";
        assert_eq!(
            unwrapped(intro),
            "Bash is the shell, or command language interpreter, that will appear \
             in the GNU operating system.  Bash is an sh-compatible shell that \
             incorporates useful features."
        );
        let list = "- first item of a list of things that is long enough\n- second item";
        assert_eq!(unwrapped(list), list);
        let code = "static int deflate_stream(z_stream *strm, int level, int flush);\n\
                    static int inflate_stream(z_stream *strm, int flush);";
        assert_eq!(unwrapped(code), code);
        let verse = "Roses are red\nViolets are blue";
        assert_eq!(unwrapped(verse), verse);
    }

    #[test]
    fn small_print_is_told_from_prose_about_licences() {
        for line in [
            "Copyright © 2005 David Mandelberg",
            "*Copyright (c) 2004, 2005 by Mark Adler",
            "Copyright 1989, 1991 Free Software Foundation, Inc.",
            "This document is free; you can redistribute it and/or modify it under the terms of version 2 of the GNU General Public License.",
            "See the GNU General Public License for more details.",
            "Written by Brian Fox and Chet Ramey.",
            "Last modified 11 December 2005",
            "Permission is hereby granted, free of charge, to any person obtaining a copy",
        ] {
            assert!(is_boilerplate(line), "{line}");
        }
        for line in [
            "Copyright information for a package lives in debian/copyright.",
            "Packages under the GNU General Public License must refer to it in their copyright file.",
            "The author of a patch should send it upstream first.",
        ] {
            assert!(!is_boilerplate(line), "{line}");
        }
    }

    #[test]
    fn prose_passes_and_code_dumps_and_tables_do_not() {
        for prose in [
            "Queries can access multiple tables at once, or the same table twice.",
            "SQLite is an in-process library that implements a SQL database engine.",
            "The functions in this chapter interact with Python objects regardless of their type.",
        ] {
            assert!(is_prose(prose), "{prose}");
        }
        for not in [
            "0000 4f 2a 9c 11 00 7e 3b 55 a0 ff 12 34",
            "1998 2001 2004 2007 2010 12.5 13.7 14.2",
            "int PyMapping_Check(PyObject *o);",
            "for (i = 0; i < n; i++) { sum += a[i]; }",
            "Small. Fast. Reliable.",
            "Content-type: text/html; charset=UTF-8",
            "Home | About | Download | License",
            "SYNOPSIS",
        ] {
            assert!(!is_prose(not), "{not}");
        }
    }

    #[test]
    fn generator_annotations_are_told_apart() {
        for note in [
            "New in version 0.5.",
            "Changed in version 1.8: Math support is integrated.",
            "Stability: 0 - Deprecated",
            "Listing 8-11: Creating a new, empty String",
            "Figure 3.2. The layout of a page",
            "**Source code:** Lib/asyncio/futures.py, Lib/asyncio/base_futures.py",
            "Availability: not Emscripten, not WASI.",
        ] {
            assert!(is_annotation(note), "{note}");
        }
        for text in [
            "Listing the files of a folder is done with ls.",
            "Tables can be joined on any column.",
            "A new version of the file is made on every change.",
            "NOTE: WAL mode with PRAGMA synchronous set to NORMAL avoids calls to fsync() during transaction commit.",
            "Editorial Note: This document describes SQLite version 2, which was deprecated and replaced by SQLite3 in 2004.",
            "The `node:dns` module enables name resolution.",
        ] {
            assert!(!is_annotation(text), "{text}");
        }
    }

    #[test]
    fn inline_code_counts_as_a_word_of_prose() {
        assert!(is_prose(
            "`panic!(..)` now always uses `format_args!(..)`, just like `println!()`."
        ));
        assert!(!is_prose(
            "panic!(..) now uses format_args!(..) like println!()."
        ));
    }

    #[test]
    fn asides_are_labelled_by_a_line_of_their_own() {
        for label in ["Note", "**Warning**", "See also", "Author:", "Release:"] {
            assert!(is_aside_label(label), "{label}");
        }
        for line in [
            "For example, see below:",
            "Notes on the design",
            "This is prose.",
        ] {
            assert!(!is_aside_label(line), "{line}");
        }
    }

    #[test]
    fn inline_markup_is_dropped_and_arithmetic_kept() {
        assert_eq!(
            plain_inline("A *conditional expression* uses the `[[` command."),
            "A conditional expression uses the [[ command."
        );
        assert_eq!(
            plain_inline("The **set grid** command."),
            "The set grid command."
        );
        assert_eq!(
            plain_inline("It computes 2 * 3 quickly."),
            "It computes 2 * 3 quickly."
        );
    }

    #[test]
    fn bullets_go_and_options_keep_their_dashes() {
        let marks = ['#', '*', '>'];
        assert_eq!(without_line_marks("- a bullet", &marks), "a bullet");
        assert_eq!(without_line_marks("  ## Heading", &marks), "Heading");
        assert_eq!(
            without_line_marks("> - quoted bullet", &marks),
            "quoted bullet"
        );
        assert_eq!(
            without_line_marks("-c with -lt: sort by ctime", &marks),
            "-c with -lt: sort by ctime"
        );
        assert_eq!(
            without_line_marks("- -G, --no-group in a long listing", &marks),
            "-G, --no-group in a long listing"
        );
        assert_eq!(without_line_marks("--sort=WORD", &marks), "--sort=WORD");
        assert_eq!(without_line_marks("-", &marks), "");
    }
}
