//! Real documents from Debian documentation packages (testdata/real, see
//! its SOURCES.md): each page's note is its own title and opening prose,
//! never its site's chrome; PDF summaries are prose, never dumps or number
//! tables; odd pages and PDFs still give one note each.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{Env, repo_root};

/// A real HTML page: its file, the title it should get, the words its own
/// prose opens with, and strings of its site's chrome that are in the file
/// but must not be in the note.
struct Page {
    file: &'static str,
    title: &'static str,
    opening: &'static str,
    chrome: &'static [&'static str],
}

const PAGES: &[Page] = &[
    Page {
        file: "asciidoc-git-init.html",
        title: "git-init(1)",
        opening: "This command creates an empty Git repository",
        chrome: &["Last updated", "2024-05-31 00:35:55"],
    },
    Page {
        file: "docbook-postgresql-tutorial-join.html",
        title: "2.6. Joins Between Tables",
        opening: "Thus far, our queries have only accessed one table at a time.",
        chrome: &["Querying a Table", "Aggregate Functions", "Prev"],
    },
    Page {
        file: "latex2html-gnuplot-grid.html",
        title: "Grid",
        opening: "The set grid command allows grid lines to be drawn on the plot.",
        chrome: &["Hidden3d", "Set-show", "Previous:"],
    },
    Page {
        file: "mdbook-edition-guide-2021.html",
        title: "Rust 2021",
        opening: "The Rust 2021 Edition contains several changes",
        chrome: &["Transitioning an existing project", "Coal", "Navy", "Ayu"],
    },
    Page {
        file: "mdbook-rust-book-strings.html",
        title: "Storing UTF-8 Encoded Text with Strings",
        opening: "We talked about strings in Chapter 4",
        chrome: &[
            "Programming a Guessing Game",
            "Common Programming Concepts",
            "Coal",
            "Navy",
            "Ayu",
        ],
    },
    Page {
        file: "nodejs-api-punycode.html",
        title: "Punycode",
        opening: "The version of the punycode module bundled in Node.js is being deprecated.",
        chrome: &[
            "View on single page",
            "View as JSON",
            "Edit on GitHub",
            "Table of contents",
            "Assertion testing",
            "Asynchronous context tracking",
        ],
    },
    Page {
        file: "sphinx-python-c-api-abstract.html",
        title: "Abstract Objects Layer",
        opening: "The functions in this chapter interact with Python objects regardless of their type",
        chrome: &[
            "Previous topic",
            "Codec registry and support functions",
            "Report a Bug",
            "Show Source",
            "Please donate",
            "Last updated on",
        ],
    },
    Page {
        file: "sphinx-python-tutorial-appetite.html",
        title: "1. Whetting Your Appetite",
        opening: "If you do much work on computers, eventually you find that",
        chrome: &[
            "Previous topic",
            "Using the Python Interpreter",
            "Report a Bug",
            "Show Source",
            "Please donate",
        ],
    },
    Page {
        file: "sphinx-sphinx-math.html",
        title: "Math support for HTML outputs in Sphinx",
        opening: "Since mathematical notation isn’t natively supported by HTML in any way",
        chrome: &[
            "Quick search",
            "Site navigation",
            "Build your first project",
            "the Sphinx developers",
        ],
    },
    Page {
        file: "sphinx-qemu-nbd.html",
        title: "QEMU Disk Network Block Device Server",
        opening: "Export a QEMU disk image using the NBD protocol.",
        // The permalink glyph of the theme's icon font, after every heading.
        chrome: &["\u{f0c1}"],
    },
    Page {
        file: "sqlite-about.html",
        title: "About SQLite",
        opening: "SQLite is an in-process library that implements a self-contained",
        chrome: &[
            "Small. Fast. Reliable.",
            "Choose any three.",
            "Search Documentation",
        ],
    },
    Page {
        file: "texi2html-zsh-conditional-expressions.html",
        title: "12 Conditional Expressions (zsh)",
        opening: "A conditional expression is used with the [[ compound command",
        chrome: &[
            "This document was generated on",
            "texi2any",
            "Zsh version 5.9, released on",
        ],
    },
];

const PDFS: &[&str] = &[
    "asymptote-reference-card.pdf",
    "sqlite-copyright-release.pdf",
    "freedesktop-shared-mime-info-spec.pdf",
];

/// The real documents put into a fresh store with the real model; their
/// notes (from `keep export`, parts included) by file name.
fn put_real_documents(env: &Env) -> HashMap<String, Value> {
    let dir = env.path("real");
    std::fs::create_dir_all(&dir).unwrap();
    let files = PAGES.iter().map(|p| p.file).chain(PDFS.iter().copied());
    for file in files {
        let from = repo_root().join("testdata/real").join(file);
        std::fs::copy(&from, dir.join(file)).unwrap();
    }
    let report = env.json(&["put", dir.to_str().unwrap()]);
    assert_eq!(report["failed"], serde_json::json!([]), "{report}");
    env.export()
        .lines()
        .skip(1)
        .filter(|line| !line.starts_with(r#"{"operation""#))
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .map(|note| (file_name(&note), note))
        .collect()
}

fn file_name(note: &Value) -> String {
    let id = note["id"].as_str().unwrap();
    Path::new(id)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn summary(note: &Value) -> &str {
    note["summary"].as_str().unwrap()
}

/// The summary and every part's text.
fn texts(note: &Value) -> Vec<&str> {
    let parts = note["parts"].as_array().unwrap();
    std::iter::once(summary(note))
        .chain(parts.iter().map(|p| p["summary"].as_str().unwrap()))
        .collect()
}

/// Markdown marks a reader does not see (`code`, *emphasis*).
fn plain(text: &str) -> String {
    text.replace(['`', '*'], "")
}

#[test]
fn real_pages_are_their_own_title_and_prose_without_chrome() {
    let env = Env::with_model();
    let notes = put_real_documents(&env);
    for page in PAGES {
        let source =
            std::fs::read_to_string(repo_root().join("testdata/real").join(page.file)).unwrap();
        let note = &notes[page.file];
        assert_eq!(note["tags"]["title"][0], page.title, "{}", page.file);
        assert!(
            summary(note).starts_with(page.opening),
            "{}: the summary does not open with the page's prose {:?}:\n{}",
            page.file,
            page.opening,
            summary(note)
        );
        let first_part = note["parts"][0]["summary"]
            .as_str()
            .unwrap_or(summary(note));
        assert!(
            plain(first_part).contains(page.opening),
            "{}: the first part lacks the page's opening prose:\n{first_part}",
            page.file
        );
        let private = |c: char| ('\u{E000}'..='\u{F8FF}').contains(&c);
        assert!(
            !note.to_string().contains(private),
            "{}: a private-use glyph is in the note: {note}",
            page.file
        );
        for chrome in page.chrome {
            assert!(
                source.contains(chrome),
                "{}: {chrome:?} is not in the page",
                page.file
            );
            for text in texts(note) {
                assert!(
                    !text.contains(chrome),
                    "{}: chrome {chrome:?} is in the note:\n{text}",
                    page.file
                );
            }
        }
    }
}

/// A line of a summary that is a hex dump or a table of numbers: most of
/// its words are hex bytes or numbers.
fn is_dump_or_numbers(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let numeric = words
        .iter()
        .filter(|w| {
            let w = w.trim_matches(|c: char| ",.;:()%".contains(c));
            !w.is_empty()
                && (w
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
                    || (w.len() <= 4
                        && w.chars().all(|c| c.is_ascii_hexdigit())
                        && w.chars().any(|c| c.is_ascii_digit())))
        })
        .count();
    words.len() >= 3 && numeric * 2 >= words.len()
}

#[test]
fn real_pdf_summaries_have_no_dumps_or_number_tables() {
    assert!(is_dump_or_numbers("0000 4f 2a 9c 11 00 7e"));
    assert!(is_dump_or_numbers("1998 2001 2004 12.5 13.7"));
    assert!(!is_dump_or_numbers(
        "SQLite is software that implements a database."
    ));
    let env = Env::with_model();
    let notes = put_real_documents(&env);
    let card = &notes["asymptote-reference-card.pdf"];
    assert_eq!(card["tags"]["title"][0], "Asymptote Reference Card");
    let release = &notes["sqlite-copyright-release.pdf"];
    assert_eq!(
        release["tags"]["title"][0],
        "Copyright Release for Contributions To SQLite"
    );
    assert!(
        summary(release)
            .starts_with("SQLite is software that implements an embeddable SQL database engine."),
        "{}",
        summary(release)
    );
    // An empty title field: the cover's largest type, not its first line
    // ("X Desktop Group (http://www.freedesktop.org)").
    let spec = &notes["freedesktop-shared-mime-info-spec.pdf"];
    assert_eq!(spec["tags"]["title"][0], "Shared MIME-info Database");
    for file in PDFS {
        let note = &notes[*file];
        for line in summary(note).lines() {
            assert!(
                !is_dump_or_numbers(line),
                "{file}: a summary line is a dump or numbers: {line}"
            );
        }
        assert!(
            !summary(note).contains("Page 1") && !summary(note).contains("\u{FFFD}"),
            "{file}: {}",
            summary(note)
        );
    }
}

#[test]
fn a_hit_in_a_real_page_names_its_section() {
    let env = Env::with_model();
    let notes = put_real_documents(&env);
    let strings = &notes["mdbook-rust-book-strings.html"];
    let id = strings["id"].as_str().unwrap();
    let found = env.ok(&[
        "find",
        "iterating over the characters of a string",
        "-n",
        "3",
    ]);
    let first = found.lines().next().unwrap_or_default();
    assert!(
        first.contains(id)
            && first.contains("[in @P{")
            && first.contains("Storing UTF-8 Encoded Text with Strings > "),
        "{found}"
    );
}

#[test]
fn odd_pages_and_pdfs_still_give_one_note_each() {
    let mut env = Env::new();
    env.install_ocr();
    let dir = env.path("odd");
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(repo_root().join("testdata/odd")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    let report = env.json(&["put", dir.to_str().unwrap()]);
    assert_eq!(report["failed"], serde_json::json!([]), "{report}");
    assert_eq!(report["added"].as_array().unwrap().len(), 4, "{report}");
    let get =
        |file: &str| env.json(&["get", &format!("file://{}", dir.join(file).display())])[0].clone();

    // Only navigation: the menu is the best text the page has.
    let nav = get("navigation-only.html");
    assert_eq!(nav["tags"]["title"][0], "Site map");
    assert!(
        summary(&nav).starts_with("Home\nAbout\nBlog\nContact"),
        "{nav}"
    );

    // Nothing but a script: the title stands for the page.
    let script = get("script-only.html");
    assert_eq!(summary(&script), "Loading…");

    // No article for Readability: the visible text, table included.
    let table = get("no-article.html");
    assert!(summary(&table).contains("Mon 06:12 12:30"), "{table}");

    // A text layer of symbols over a scanned page: the scan is read.
    let garbage = get("garbage-text-layer.pdf");
    assert!(
        summary(&garbage).contains("The pier closes at nine tonight."),
        "{garbage}"
    );
    assert!(!summary(&garbage).contains('€'), "{garbage}");
}

/// Share of the hand-labelled corpus pages (testdata/real/labels.tsv) whose
/// summary must open with the page's own opening words.
const LABELLED_SHARE: f64 = 0.95;

#[test]
fn labelled_corpus_pages_open_with_their_own_words() {
    let corpus = repo_root().join("target/corpus");
    assert!(
        corpus.join(".complete").exists(),
        "the corpus of real documents is missing: run ./scripts/setup.sh"
    );
    let labels = std::fs::read_to_string(repo_root().join("testdata/real/labels.tsv")).unwrap();
    let labels: Vec<(&str, &str)> = labels
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_once('\t').expect("path<TAB>opening words"))
        .collect();
    assert!(labels.len() >= 40, "{} labels", labels.len());
    let env = Env::new();
    let paths: Vec<String> = labels
        .iter()
        .map(|(path, _)| corpus.join(path).to_string_lossy().into_owned())
        .collect();
    let mut args = vec!["put"];
    args.extend(paths.iter().map(String::as_str));
    let report = env.json(&args);
    assert_eq!(report["failed"], serde_json::json!([]), "{report}");
    let notes: HashMap<String, Value> = env
        .export()
        .lines()
        .skip(1)
        .filter(|line| !line.starts_with(r#"{"operation""#))
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .map(|note| (note["id"].as_str().unwrap().to_string(), note))
        .collect();
    let words = |text: &str| plain(text).split_whitespace().collect::<Vec<_>>().join(" ");
    let mut misses = Vec::new();
    for ((_, opening), path) in labels.iter().zip(&paths) {
        let note = &notes[&format!("file://{path}")];
        let got = words(summary(note));
        if !got.starts_with(&words(opening)) {
            misses.push(format!("{path}\n  want: {opening}\n  got:  {got:.160}"));
        }
    }
    let share = 1.0 - misses.len() as f64 / labels.len() as f64;
    assert!(
        share >= LABELLED_SHARE,
        "{:.0}% of labelled pages open right, below {:.0}%:\n{}",
        share * 100.0,
        LABELLED_SHARE * 100.0,
        misses.join("\n")
    );
}

#[test]
fn gzip_man_pages_and_latin_1_text_are_read_as_text() {
    let env = Env::new();
    let dir = crate::common::repo_root().join("testdata/real/encodings");
    let file = |name: &str| dir.join(name).display().to_string();
    env.ok(&[
        "put",
        &file("ls.1.gz"),
        &file("grep.1.gz"),
        &file("bash-INTRO.gz"),
        &file("adduser-copyright-latin1.txt"),
    ]);
    let note = |name: &str| env.json(&["get", &format!("file://{}", file(name))])[0].clone();
    let ls = note("ls.1.gz");
    assert_eq!(
        ls["tags"]["title"][0], "ls(1): list directory contents",
        "{ls}"
    );
    assert_eq!(ls["tags"]["_content_type"][0], "text/troff");
    let summary = ls["summary"].as_str().unwrap();
    assert!(
        summary.contains("List information about the FILEs"),
        "{summary}"
    );
    assert!(
        !summary.contains(".TH") && !summary.contains("\\f"),
        "{summary}"
    );
    let grep = note("grep.1.gz");
    assert_eq!(
        grep["tags"]["title"][0], "grep(1): print lines that match patterns",
        "{grep}"
    );
    let intro = note("bash-INTRO.gz");
    assert!(
        intro["summary"]
            .as_str()
            .unwrap()
            .starts_with("BASH - The Bourne-Again Shell"),
        "{intro}"
    );
    let found = env.ok(&["find", "--mode", "keyword", "Jörg", "--ids"]);
    assert!(found.contains("adduser-copyright-latin1.txt"), "{found}");
    let parts = env.ok(&["get", &format!("file://{}", file("grep.1.gz")), "--parts"]);
    assert!(parts.contains("--only-matching"), "{parts}");
}

#[test]
fn a_man_page_opens_with_its_description_and_options_keep_their_dashes() {
    let env = Env::new();
    let ls = crate::common::repo_root().join("testdata/real/encodings/ls.1.gz");
    let id = format!("file://{}", ls.display());
    env.ok(&["put", ls.to_str().unwrap()]);
    let note = env.json(&["get", &id])[0].clone();
    let summary = note["summary"].as_str().unwrap();
    assert!(
        summary.starts_with(
            "List information about the FILEs (the current directory by default). \
             Sort entries alphabetically if none of -cftuvSUX nor --sort is specified."
        ),
        "{summary}"
    );
    let lines: Vec<String> = part_lines(&env, &id).iter().map(|l| unquoted(l)).collect();
    assert!(!lines.is_empty());
    let view = env.json(&["get", &id])[0].clone();
    let texts: Vec<&str> = view["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    // Each line that opens with an option in the page opens with it in
    // its part line too, dash and all.
    for (line, text) in lines.iter().zip(&texts) {
        let first = text
            .lines()
            .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .unwrap_or("");
        if first.starts_with('-') {
            assert!(
                line.starts_with('-'),
                "{line:?} for a part opening {first:?}"
            );
        }
    }
    assert!(
        lines.iter().any(|l| l.starts_with("-G, --no-group")),
        "{lines:?}"
    );
}

#[test]
fn a_code_part_is_a_line_in_json_with_its_text_beside_it() {
    let env = Env::new();
    let page = crate::common::repo_root().join("testdata/real/small-print/zlib-how.html");
    let id = format!("file://{}", page.display());
    env.ok(&["put", page.to_str().unwrap()]);
    let lines: Vec<String> = part_lines(&env, &id).iter().map(|l| unquoted(l)).collect();
    let view = env.json(&["get", &id])[0].clone();
    let parts = view["parts"].as_array().unwrap();
    assert_eq!(parts.len(), lines.len());
    let mut code = 0;
    for (part, line) in parts.iter().zip(&lines) {
        let summary = part["summary"].as_str().unwrap();
        let text = part["text"].as_str().unwrap();
        assert!(!summary.contains('\n'), "one line: {summary:?}");
        assert!(!summary.starts_with("```"), "{summary:?}");
        assert_eq!(summary.trim_end_matches('…'), line.trim_end_matches('…'));
        if text.trim_start().starts_with("```") {
            code += 1;
            assert!(summary.starts_with("code: "), "{summary:?}");
        }
        let addressed = env.json(&["get", &format!("{id}@P{{{}}}", part["part"])])[0].clone();
        assert_eq!(addressed["part"]["text"], part["text"]);
    }
    assert!(
        code >= 3,
        "the page's code blocks are parts of their own: {code}"
    );
}

/// A value of `keep get`'s text output as written, without the quotes
/// YAML needs for some.
fn unquoted(value: &str) -> String {
    match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) => inner.replace("\\\"", "\"").replace("\\\\", "\\"),
        None => value.to_string(),
    }
}

/// The `parts:` lines of `keep get`'s text output.
fn part_lines(env: &Env, id: &str) -> Vec<String> {
    env.ok(&["get", id])
        .lines()
        .skip_while(|l| *l != "parts:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split_once(": ").map_or("", |(_, t)| t).to_string())
        .collect()
}

#[test]
fn small_print_and_code_are_never_what_a_document_or_its_parts_are_listed_by() {
    let env = Env::new();
    let dir = repo_root().join("testdata/real");
    let file = |name: &str| dir.join(name).display().to_string();
    let passwd = file("small-print/docbook-base-passwd-users-and-groups.html");
    let zlib = file("small-print/zlib-how.html");
    let intro = file("encodings/bash-INTRO.gz");
    env.ok(&["put", &passwd, &zlib, &intro]);
    let id = |f: &str| format!("file://{f}");

    let note = env.json(&["get", &id(&passwd)])[0].clone();
    let summary = note["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("The Debian base-passwd package contains the master versions"),
        "{summary}"
    );
    assert!(!summary.contains("Copyright"), "{summary}");
    let lines = part_lines(&env, &id(&passwd));
    assert!(
        lines.iter().all(|l| !l.starts_with('#')),
        "an author's name is a heading: {lines:?}"
    );
    assert!(
        lines[1].starts_with("Chapter 1. Introduction — The Debian base-passwd package"),
        "{lines:?}"
    );

    let lines = part_lines(&env, &id(&zlib));
    for line in &lines {
        assert!(
            !line.trim_matches('"').starts_with("```") && line != "\"---\"",
            "a part is listed by markup: {lines:?}"
        );
    }
    assert!(
        lines.iter().filter(|l| l.contains("code: ")).count() >= 3,
        "code parts are not named as code: {lines:?}"
    );
    let note = env.json(&["get", &id(&zlib)])[0].clone();
    for part in note_parts(&env, &id(&zlib)) {
        let fences = part.lines().filter(|l| l.starts_with("```")).count();
        assert!(fences % 2 == 0, "a part cuts a code block:\n{part}");
    }
    assert!(!note["summary"].as_str().unwrap().contains("Copyright"));

    let lines = part_lines(&env, &id(&intro));
    assert!(lines.len() >= 3, "{lines:?}");
    for line in &lines {
        let first = line.trim_start_matches('"').chars().next().unwrap();
        assert!(
            first.is_uppercase(),
            "a part of hand-wrapped text is listed from the middle of a sentence: {lines:?}"
        );
    }
}

/// The text of every part of a note.
fn note_parts(env: &Env, id: &str) -> Vec<String> {
    let n = env.json(&["get", id])[0]["parts"]
        .as_array()
        .map_or(0, Vec::len);
    let count = env.ok(&["get", id, "--parts", "--ids"]).lines().count();
    (1..=n.max(count))
        .map(|p| {
            env.json(&["get", &format!("{id}@P{{{p}}}")])[0]["part"]["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn a_real_screenshot_is_summarised_by_the_words_in_it() {
    let mut env = Env::new();
    env.install_ocr();
    let file = repo_root().join("testdata/real/valgrind-kcachegrind-xtree.png");
    env.ok(&["put", file.to_str().unwrap()]);
    let note = env.json(&["get", &format!("file://{}", file.display())])[0].clone();
    let summary = note["summary"].as_str().unwrap();
    assert!(!summary.starts_with("Image,"), "{summary}");
    for word in ["Callers", "Source"] {
        assert!(summary.contains(word), "OCR lacks {word:?}: {summary}");
    }
    assert!(note["tags"]["dimensions"][0].as_str().is_some(), "{note}");

    let gif = repo_root().join("testdata/real/libxslt-processing.gif");
    env.ok(&["put", gif.to_str().unwrap()]);
    let note = env.json(&["get", &format!("file://{}", gif.display())])[0].clone();
    assert_eq!(note["tags"]["_content_type"][0], "image/gif");
    let summary = note["summary"].as_str().unwrap();
    assert!(summary.contains("Source Document"), "{summary}");
}

#[test]
fn presentations_and_opendocument_text_are_read_with_titles_and_parts() {
    let env = Env::new();
    let dir = repo_root().join("testdata/real/office");
    let file = |name: &str| dir.join(name).display().to_string();
    let (odt, pptx, odp) = (
        file("base-passwd-users-and-groups.odt"),
        file("glib-readme.pptx"),
        file("glib-readme.odp"),
    );
    env.ok(&["put", &odt, &pptx, &odp]);
    let note = |f: &str| env.json(&["get", &format!("file://{f}")])[0].clone();

    let text = note(&odt);
    assert_eq!(
        text["tags"]["_content_type"][0],
        "application/vnd.oasis.opendocument.text"
    );
    assert_eq!(
        text["tags"]["title"][0],
        "Users and Groups in the Debian System"
    );
    let summary = text["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("The Debian base-passwd package contains the master versions"),
        "{summary}"
    );
    let lines = part_lines(&env, &format!("file://{odt}"));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Chapter 1. Introduction — The Debian base-passwd")),
        "{lines:?}"
    );

    for (deck, media) in [
        (
            &pptx,
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ),
        (&odp, "application/vnd.oasis.opendocument.presentation"),
    ] {
        let id = format!("file://{deck}");
        let n = note(deck);
        assert_eq!(n["tags"]["_content_type"][0], media);
        assert_eq!(n["tags"]["title"][0], "GLib", "{deck}");
        let lines = part_lines(&env, &id);
        assert_eq!(lines.len(), 9, "one part a slide: {lines:?}");
        assert_eq!(lines[2], "Installation", "{deck}: {lines:?}");
        assert!(
            lines[3].starts_with("Supported versions — Only the most recent unstable"),
            "{deck}: {lines:?}"
        );
        let part = env.json(&["get", &format!("{id}@P{{4}}")])[0].clone();
        let section = part["part"]["tags"]["_section"][0].as_str().unwrap();
        assert!(section.ends_with("Supported versions"), "{part}");
    }
    let found = env.ok(&[
        "find",
        "--mode",
        "keyword",
        "exploitable vulnerabilities",
        "--ids",
    ]);
    assert!(
        found.contains("glib-readme.pptx") && found.contains("glib-readme.odp"),
        "{found}"
    );
}

#[test]
fn links_between_real_documents_become_edges_both_ways_without_stubs() {
    let env = Env::new();
    let dir = env.path("linked");
    copy_tree(&repo_root().join("testdata/real/linked"), &dir);
    // sqlite's about.html is vendored once, as the page test's.
    std::fs::copy(
        repo_root().join("testdata/real/sqlite-about.html"),
        dir.join("sqlite/about.html"),
    )
    .unwrap();
    let id = |rel: &str| format!("file://{}", dir.join(rel).display());
    let edges = |rel: &str| -> Vec<(String, String)> {
        let note = &env.json(&["get", &id(rel)])[0];
        let pairs = |key: &str, field: &str, other: &str| -> Vec<(String, String)> {
            note[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    (
                        e[field].as_str().unwrap().to_string(),
                        e[other].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        };
        let mut all = pairs("edges", "key", "target");
        all.extend(pairs("inverse_edges", "inverse", "source"));
        all
    };
    // Put one document before the one it links to: the link waits.
    env.ok(&[
        "put",
        dir.join("nodejs/security-release-process.md")
            .to_str()
            .unwrap(),
    ]);
    env.ok(&["put", dir.to_str().unwrap(), "-r"]);
    assert_eq!(
        env.all_ids().len(),
        7,
        "a link made a stub note: {:?}",
        env.all_ids()
    );

    let steward = "nodejs/security-steward-on-off-boarding.md";
    assert!(
        edges("nodejs/security-release-process.md").contains(&("links-to".into(), id(steward))),
        "{:?}",
        edges("nodejs/security-release-process.md")
    );
    assert_eq!(
        edges(steward),
        [(
            "linked-from".to_string(),
            id("nodejs/security-release-process.md")
        )]
    );
    // A link to a file that is not there (cpp-style-guide.md) is no edge.
    let pull = edges("nodejs/pull-requests.md");
    assert!(
        pull.contains(&("links-to".into(), id("nodejs/building-node-with-ninja.md"))),
        "{pull:?}"
    );
    assert!(
        pull.iter().all(|(_, t)| !t.contains("cpp-style-guide")),
        "{pull:?}"
    );

    let about = edges("sqlite/about.html");
    let links: Vec<&str> = about
        .iter()
        .filter(|(k, _)| k == "links-to")
        .map(|(_, t)| t.as_str())
        .collect();
    assert_eq!(
        links,
        [id("sqlite/appfileformat.html"), id("sqlite/copyright.html")],
        "{about:?}"
    );
    assert!(
        edges("sqlite/copyright.html").contains(&("linked-from".into(), id("sqlite/about.html")))
    );
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn real_postscript_from_groff_and_dvips_reads_as_words() {
    let env = Env::new();
    let dir = repo_root().join("testdata/real/postscript");
    let groff = dir.join("groff-man-db-manual.ps.gz").display().to_string();
    let dvips = dir.join("dvips-gdb-refcard.ps.gz").display().to_string();
    env.ok(&["put", &groff, &dvips]);
    let all_text = |f: &str| {
        let id = format!("file://{f}");
        let note = env.json(&["get", &id])[0].clone();
        let mut text = note["summary"].as_str().unwrap().to_string();
        for part in note_parts(&env, &id) {
            text.push('\n');
            text.push_str(&part);
        }
        (note, text)
    };
    let (note, text) = all_text(&groff);
    assert_eq!(note["tags"]["_content_type"][0], "application/postscript");
    assert_eq!(
        note["tags"]["title"][0],
        "man-db - the database cached manual pager suite"
    );
    assert!(
        note["summary"].as_str().unwrap().starts_with(
            "This document describes the setup, maintenance and use of a generic manual page system"
        ),
        "{note}"
    );
    for words in [
        "mandb. In some configurations",
        "filesystem changes each time it is invoked",
    ] {
        assert!(text.contains(words), "{words:?} not in:\n{text}");
    }
    let (_, text) = all_text(&dvips);
    for words in [
        "GDB QUICK REFERENCE",
        "Essential Commands",
        "set breakpoint at function [in file]",
    ] {
        assert!(text.contains(words), "{words:?} not in:\n{text}");
    }
}
