//! PostScript (`%!PS`, as groff, dvips and pdftops write it): the text of
//! the strings each page shows, in order, with a space where the pen moves
//! right past a gap and a new line where it moves to another line. Fonts,
//! prologs and embedded resources are left out; pages are cleaned like a
//! PDF's (running headers and footers, wrapped lines). Title from the
//! `%%Title` comment unless it is a file name, else the first page's
//! opening heading line, as for a PDF.

use super::ocr::Ocr;
use crate::document::{Document, Extractor};
use crate::error::Result;
use crate::error::bad;

pub struct PostScript;

/// Most pages read.
const MAX_PAGES: usize = 5000;
/// A move right of more than this (points) between two strings is a space.
const WORD_GAP: f64 = 1.0;
/// The same in the units of a dvips file (dots at its resolution).
const DVIPS_WORD_GAP: f64 = 10.0;

impl Extractor for PostScript {
    fn extract(&self, bytes: &[u8], _: Option<&Ocr>) -> Result<Document> {
        let source = String::from_utf8_lossy(bytes);
        let mut doc = Document::default();
        if let Some(title) = dsc_comment(&source, "%%Title:").filter(|t| is_title(t)) {
            doc.tags.insert("title", title);
        }
        let pages: Vec<String> = page_sources(&source)
            .map(page_text)
            .take(MAX_PAGES)
            .collect();
        super::pdf::paged(&mut doc, &pages);
        if doc.text.chars().filter(|c| c.is_alphabetic()).count() < 8 {
            return Err(bad(
                "is PostScript whose text could not be read (its fonts encode it)",
            ));
        }
        Ok(doc)
    }
}

/// The value of a document-structuring comment (`%%Title: x`).
fn dsc_comment(source: &str, key: &str) -> Option<String> {
    let line = source.lines().take(200).find(|l| l.starts_with(key))?;
    let value = line[key.len()..]
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    (!value.is_empty()).then(|| value.to_string())
}

/// A title worth keeping: words, not a file name.
fn is_title(title: &str) -> bool {
    title.chars().filter(|c| c.is_alphabetic()).count() >= 3
        && !title.contains(['/', '\\'])
        && !super::pdf_title::is_meaningless(title)
        && !title.ends_with(".ps")
}

/// The source of each page: from one `%%Page:` comment to the next, with
/// embedded resources, fonts and documents cut out. A file without page
/// comments is one page.
fn page_sources(source: &str) -> impl Iterator<Item = String> + '_ {
    let body = match source.find("\n%%Page:") {
        Some(i) => &source[i + 1..],
        None => source,
    };
    body.split("\n%%Page:").map(without_resources)
}

fn without_resources(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    let mut depth = 0usize;
    let mut in_eexec = false;
    for line in page.lines() {
        if in_eexec {
            in_eexec = !line.contains("cleartomark");
            continue;
        }
        if line.starts_with("%%Begin") && !line.starts_with("%%BeginPageSetup") {
            depth += 1;
        } else if line.starts_with("%%End") && depth > 0 && !line.starts_with("%%EndPageSetup") {
            depth -= 1;
        } else if depth == 0 {
            if line.contains("eexec") {
                in_eexec = true;
                continue;
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A lexical token of PostScript that matters for its text.
#[derive(Debug, PartialEq)]
enum Token {
    Str(String),
    Num(f64),
    Op(String),
    Open,
    Close,
}

/// The text a page shows.
fn page_text(page: String) -> String {
    let mut text = Text::default();
    for token in tokens(&page) {
        text.take(token);
    }
    text.out
}

/// Reads the page's tokens in order and lays out its strings.
#[derive(Default)]
struct Text {
    out: String,
    numbers: Vec<f64>,
    /// Where the last string shown starts in `out`, while the numbers and
    /// operator after it (groff's `(str) dx E`, `(str) x y Q`) are read.
    after_string: Option<usize>,
    /// A break decided before the next string (PDF-like `Td`, `Tm`).
    pending: Option<&'static str>,
    last_y: Option<f64>,
    in_array: bool,
    /// Whether the array being read holds strings (a `TJ` array).
    shown_in_array: bool,
    /// The numbers before the last string shown (groff's letter spacing).
    before: Vec<f64>,
}

impl Text {
    fn take(&mut self, token: Token) {
        match token {
            Token::Str(s) => {
                self.after_string = None;
                if self.in_array {
                    if !self.shown_in_array
                        && let Some(gap) = self.pending.take()
                    {
                        self.gap(self.out.len(), gap);
                    }
                    self.shown_in_array = true;
                    self.out.push_str(&s);
                    return;
                }
                if let Some(gap) = self.pending.take() {
                    self.gap(self.out.len(), gap);
                }
                self.after_string = Some(self.out.len());
                self.out.push_str(&s);
                self.before = std::mem::take(&mut self.numbers);
            }
            Token::Num(n) if self.in_array => {
                // Kerning in thousandths of the font size: a large one is
                // a word space. (An array of numbers only is an operand,
                // such as the matrix of `Tm`.)
                if n < -250.0 && self.shown_in_array && !self.out.ends_with(char::is_whitespace) {
                    self.out.push(' ');
                }
                self.numbers.push(n);
            }
            Token::Num(n) => self.numbers.push(n),
            Token::Open => {
                self.in_array = true;
                self.shown_in_array = false;
            }
            Token::Close => self.in_array = false,
            Token::Op(op) => {
                match self.after_string.take() {
                    Some(at) => self.after_show(at, &op),
                    None => self.before_show(&op),
                }
                self.numbers.clear();
            }
        }
    }

    /// groff's show operators, whose moves come after the string.
    fn after_show(&mut self, at: usize, op: &str) {
        // ashow with a word's width between letters: groff setting two
        // words of one letter each ("a s" of "a single").
        if matches!(op, "C" | "G" | "K" | "O" | "S")
            && self.before.last().is_some_and(|ax| *ax > WORD_GAP)
        {
            let spaced: Vec<String> = self.out[at..].chars().map(String::from).collect();
            self.out.truncate(at);
            self.out.push_str(&spaced.join(" "));
        }
        let n = &self.numbers;
        match op {
            "Q" | "R" | "S" | "T" if n.len() >= 2 => {
                let y = n[n.len() - 1];
                let gap = if self.last_y.is_some_and(|last| (last - y).abs() > 0.5) {
                    "\n"
                } else {
                    " "
                };
                self.last_y = Some(y);
                self.gap(at, gap);
            }
            "E" | "F" | "G" | "H" if n.last().is_some_and(|dx| *dx > WORD_GAP) => self.gap(at, " "),
            "M" | "N" | "O" | "P" if n.len() >= 2 => {
                let (dx, dy) = (n[n.len() - 2], n[n.len() - 1]);
                if dy.abs() > 0.5 {
                    self.gap(at, "\n");
                } else if dx > WORD_GAP {
                    self.gap(at, " ");
                }
            }
            // dvips: show, then move right by a word space (b with its
            // amount, c to k by the last one), a kern (l to t), or to the
            // next line (y).
            "b" if n.last().is_some_and(|dx| *dx > DVIPS_WORD_GAP) => self.pending = Some(" "),
            "c" | "d" | "e" | "f" | "g" | "h" | "i" | "j" | "k" => self.pending = Some(" "),
            "y" => self.pending = Some("\n"),
            _ => self.before_show(op),
        }
    }

    /// Text-positioning operators that come before the string they place.
    fn before_show(&mut self, op: &str) {
        let n = &self.numbers;
        let line = |me: &mut Self, y: f64| {
            let moved = me.last_y.is_none_or(|last| (last - y).abs() > 0.5);
            me.last_y = Some(y);
            me.pending = Some(if moved { "\n" } else { " " });
        };
        match op {
            "Tm" if n.len() >= 6 => line(self, n[5]),
            "moveto" if n.len() >= 2 => line(self, n[1]),
            "Td" | "TD" if n.len() >= 2 => {
                self.pending = Some(if n[1].abs() > 0.001 { "\n" } else { " " });
            }
            "T*" => self.pending = Some("\n"),
            // pdftops: a kern after a string, in thousandths of the font
            // size; a large negative one is a word space.
            "TJm" if n.first().is_some_and(|k| *k < -200.0) => self.pending = Some(" "),
            "a" if n.len() >= 2 => line(self, n[1]),
            "showpage" => self.pending = Some("\n"),
            _ => {}
        }
    }

    /// Puts a space or a line break at `at`, unless whitespace is there.
    fn gap(&mut self, at: usize, gap: &str) {
        let before = self.out[..at].chars().next_back();
        let after = self.out[at..].chars().next();
        if at == 0 || before.is_some_and(char::is_whitespace) {
            return;
        }
        if gap == " " && after.is_some_and(char::is_whitespace) {
            return;
        }
        self.out.insert_str(at, gap);
    }
}

/// The tokens of PostScript source: strings (escapes decoded, groff's
/// ligature codes spelled out), numbers, operator names, array brackets;
/// comments, names (`/F0`), procedures' braces and hex strings skipped.
fn tokens(source: &str) -> impl Iterator<Item = Token> + '_ {
    let bytes = source.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let c = bytes[i];
            match c {
                b'%' => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                }
                b'(' => {
                    let (s, next) = string_at(bytes, i + 1);
                    i = next;
                    return Some(Token::Str(s));
                }
                b'[' => {
                    i += 1;
                    return Some(Token::Open);
                }
                b']' => {
                    i += 1;
                    return Some(Token::Close);
                }
                b'<' => {
                    while i < bytes.len() && bytes[i] != b'>' {
                        i += 1;
                    }
                    i += 1;
                }
                b'{' | b'}' | b'>' | b')' => i += 1,
                _ if c.is_ascii_whitespace() => i += 1,
                _ => {
                    let start = i;
                    while i < bytes.len() && !b" \t\r\n()[]{}<>/%".contains(&bytes[i]) {
                        i += 1;
                    }
                    if i == start {
                        // A name: skip the slash and the word.
                        i += 1;
                        while i < bytes.len() && !b" \t\r\n()[]{}<>/%".contains(&bytes[i]) {
                            i += 1;
                        }
                        continue;
                    }
                    let word = &source[start..i];
                    return Some(match word.parse::<f64>() {
                        Ok(n) => Token::Num(n),
                        Err(_) => Token::Op(word.to_string()),
                    });
                }
            }
        }
        None
    })
}

/// A string literal starting after its `(`: the text and where it ends.
fn string_at(bytes: &[u8], mut i: usize) -> (String, usize) {
    let mut out = String::new();
    let mut depth = 0;
    while i < bytes.len() {
        let c = bytes[i];
        i += 1;
        match c {
            b'(' => {
                depth += 1;
                out.push('(');
            }
            b')' if depth == 0 => break,
            b')' => {
                depth -= 1;
                out.push(')');
            }
            b'\\' if i < bytes.len() => {
                let e = bytes[i];
                i += 1;
                match e {
                    b'n' | b'r' => out.push(' '),
                    b't' => out.push(' '),
                    b'b' | b'f' | b'\n' => {}
                    b'0'..=b'7' => {
                        let mut code = u32::from(e - b'0');
                        for _ in 0..2 {
                            if i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                                code = code * 8 + u32::from(bytes[i] - b'0');
                                i += 1;
                            }
                        }
                        out.push_str(&coded(code));
                    }
                    other => out.push(other as char),
                }
            }
            _ if c < 0x80 => out.push(c as char),
            _ => out.push_str(&coded(u32::from(c))),
        }
    }
    (out, i)
}

/// A character code as text: groff's ligatures and hyphen, else Latin-1.
fn coded(code: u32) -> String {
    match code {
        0o013 => "ff".into(),
        0o014 => "fi".into(),
        0o015 => "fl".into(),
        0o016 => "ffi".into(),
        0o017 => "ffl".into(),
        0o214 => "fi".into(),
        0o215 => "fl".into(),
        0o216 => "ff".into(),
        0o217 => "ffi".into(),
        0o220 => "ffl".into(),
        0o255 => "-".into(),
        0o222 | 0o047 => "'".into(),
        _ => char::from_u32(code)
            .filter(|c| !c.is_control())
            .map(String::from)
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groff_moves_become_spaces_and_lines() {
        let page = "/F0 10/Times-Bold@0 SF(1.2. The)72 132 R(manual page system)2.5 E F1\n\
                    (The simplest manual page system will ha)72 148.2 Q .3 -.15(ve a s)-.2 H\n\
                    (ingle con\\214guration.)-.15 E";
        assert_eq!(
            page_text(page.to_string()),
            "1.2. The manual page system\nThe simplest manual page system will have a single configuration."
        );
        let spaced = "(mandb)72 96 Q 5.209(.I)C 2.709(ns)-5.209 G .209(ome \\014les)-2.709 F";
        assert_eq!(page_text(spaced.to_string()), "mandb. In some files");
    }

    #[test]
    fn dvips_word_moves_and_line_moves_are_spaces_and_lines() {
        let page = "-450 -367 a Fi(GDB)27 b(QUICK)h(REFERENCE)43 b Fh(Essen)m(tial)f(Commands)-450 -182 y(run)";
        assert_eq!(
            page_text(page.to_string()),
            "GDB QUICK REFERENCE Essential Commands\nrun"
        );
    }

    #[test]
    fn pdf_like_text_operators_lay_out_lines() {
        let page = "[1 0 0 -1 72 100] Tm 0 0 Td /F1 10 Tf (The Valgrind Quick Start Guide)\n\
                    [6.11 0 5] Tj [1 0 0 -1 72 120] Tm (Introduction) Tj 10 0 Td (here)Tj";
        assert_eq!(
            page_text(page.to_string()),
            "The Valgrind Quick Start Guide\nIntroduction here"
        );
    }
}
