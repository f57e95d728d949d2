//! Manual pages (groff with the man macros) read as text: the `.TH` line
//! names the page, `.SH`/`.SS` become headings (so parts follow the
//! sections), font macros keep their words, other requests go, and the
//! common escapes become the characters they stand for.

use crate::document::{Document, Extractor};
use crate::error::Result;
use crate::error::bad;
use crate::ocr::Ocr;

pub struct Man;

impl Extractor for Man {
    fn extract(&self, bytes: &[u8], _: Option<&Ocr>) -> Result<Document> {
        let source = std::str::from_utf8(bytes).map_err(|_| bad("is not UTF-8 text"))?;
        let Rendered { text, title, lead } = render(source);
        if text.trim().is_empty() {
            return Err(bad("is a manual page with no text"));
        }
        let mut doc = Document {
            text,
            lead,
            ..Document::default()
        };
        if let Some(title) = title {
            doc.tags.insert("title", title);
        }
        Ok(doc)
    }
}

/// Whether `source` is groff with the man macros.
pub fn looks_like_man(source: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&source[..source.len().min(8192)]);
    // A file that begins with a request (comments and macro definitions
    // may come before the title), has a title request (`.TH`, or mdoc's
    // `.Dd`) and a section heading.
    let titled = head
        .lines()
        .any(|l| l.starts_with(".TH ") || l.starts_with(".Dd"));
    titled && head.starts_with(['.', '\'']) && (head.contains("\n.SH") || head.contains("\n.Sh"))
}

/// A page read as text.
struct Rendered {
    /// Markdown-like text: headings for the sections.
    text: String,
    /// `NAME(SECTION)`, with the NAME section's one-line description when
    /// there is one.
    title: Option<String>,
    /// The opening of the DESCRIPTION section, up to its first option or
    /// subsection: what the page says the program does.
    lead: Option<String>,
}

fn render(source: &str) -> Rendered {
    let mut out = String::new();
    // Where the description's opening starts and ends in `out`.
    let mut lead: (Option<usize>, Option<usize>) = (None, None);
    let mut name_title: Option<String> = None;
    let mut in_name = false;
    let mut description = String::new();
    // Filled text runs on as one paragraph; `.nf` (examples) keeps lines.
    let mut fill = true;
    let end = |fill: bool| if fill { ' ' } else { '\n' };
    let mut defining = false;
    for line in source.lines() {
        let line = line.trim_end();
        if defining {
            defining = line != "..";
            continue;
        }
        if line.starts_with(".de ") || line.starts_with(".am ") {
            defining = true;
            continue;
        }
        if line.starts_with(".\\\"")
            || line.starts_with("'\\\"")
            || line == "."
            || line.starts_with(".\t")
        {
            continue;
        }
        let Some(request) = line.strip_prefix('.').or_else(|| line.strip_prefix('\'')) else {
            let text = inline(line);
            if in_name && description.len() < 300 {
                description.push_str(&text);
                description.push(' ');
            }
            out.push_str(&text);
            out.push(end(fill));
            continue;
        };
        let (name, rest) = request
            .split_once(char::is_whitespace)
            .unwrap_or((request, ""));
        let args = arguments(rest);
        match name {
            "TH" | "Dt" => {
                if let Some(page) = args.first() {
                    let section = args.get(1).map_or(String::new(), |s| format!("({s})"));
                    let page = format!("{}{section}", page.to_lowercase());
                    out.push_str(&format!("# {page}\n\n"));
                    name_title = Some(page);
                }
            }
            "SH" | "Sh" => {
                let heading = inline(&args.join(" "));
                in_name = heading.eq_ignore_ascii_case("name");
                end_lead(&mut lead, out.len());
                out.push_str(&format!("\n## {}\n\n", sentence_case(&heading)));
                if heading.eq_ignore_ascii_case("description") && lead.0.is_none() {
                    lead.0 = Some(out.len());
                }
            }
            "SS" | "Ss" => {
                in_name = false;
                end_lead(&mut lead, out.len());
                out.push_str(&format!("\n### {}\n\n", inline(&args.join(" "))));
            }
            "B" | "I" | "SM" | "SB" | "Nm" | "Nd" | "Ar" | "Fl" | "Cm" => {
                let text = inline(&args.join(" "));
                if in_name {
                    description.push_str(&text);
                    description.push(' ');
                }
                out.push_str(&text);
                out.push(end(fill));
            }
            "BR" | "RB" | "BI" | "IB" | "IR" | "RI" => {
                out.push_str(&inline(&args.concat()));
                out.push(end(fill));
            }
            "IP" | "TP" | "HP" | "It" => {
                end_lead(&mut lead, out.len());
                out.push_str("\n\n");
                if let Some(tag) = args.first().filter(|t| !t.is_empty()) {
                    out.push_str(&format!("{} ", inline(tag)));
                }
            }
            "PP" | "LP" | "P" | "sp" | "Pp" => out.push_str("\n\n"),
            "br" => out.push('\n'),
            "nf" | "EX" => {
                fill = false;
                out.push('\n');
            }
            "fi" | "EE" => {
                fill = true;
                out.push('\n');
            }
            _ => {}
        }
    }
    let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let title = match (name_title, description.split_once(" - ")) {
        (Some(page), Some((_, what))) if !what.is_empty() => Some(format!("{page}: {what}")),
        (page, _) => page,
    };
    let lead = match lead {
        (Some(from), to) => {
            let opening = &out[from..to.unwrap_or(out.len())];
            Some(opening.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|l| !l.is_empty())
        }
        (None, _) => None,
    };
    Rendered {
        text: out,
        title,
        lead,
    }
}

/// Ends the description's opening at `at`, if it has begun and not ended.
fn end_lead(lead: &mut (Option<usize>, Option<usize>), at: usize) {
    if lead.0.is_some() && lead.1.is_none() {
        lead.1 = Some(at);
    }
}

/// A request's arguments: words, or "quoted words" as one.
fn arguments(rest: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut chars = rest.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut arg = String::new();
        if c == '"' {
            chars.next();
            for c in chars.by_ref() {
                if c == '"' {
                    break;
                }
                arg.push(c);
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                arg.push(c);
                chars.next();
            }
        }
        args.push(arg);
    }
    args
}

/// "SEE ALSO" -> "See also".
fn sentence_case(heading: &str) -> String {
    if heading.chars().any(|c| c.is_lowercase()) {
        return heading.to_string();
    }
    let lower = heading.to_lowercase();
    let mut chars = lower.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Escapes as characters; font changes, size changes and spacing marks
/// dropped.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        if matches!(chars.peek(), Some('(' | '[')) {
            out.push_str(glyph(&escape_name(&mut chars)));
            continue;
        }
        match chars.next() {
            Some('f') => {
                escape_name(&mut chars);
            }
            Some('*') => out.push_str(match escape_name(&mut chars).as_str() {
                "lq" => "“",
                "rq" => "”",
                "Tm" => "™",
                "R" => "®",
                _ => "",
            }),
            Some('s') => {
                // A size change: `\s0`, `\s-1`, `\s+2`, `\s(12`, `\s[12]`.
                chars.next_if(|c| matches!(c, '+' | '-'));
                escape_name(&mut chars);
            }
            Some('-') => out.push('-'),
            Some('e' | '\\') => out.push('\\'),
            Some(' ' | '~') => out.push(' '),
            Some('.') => out.push('.'),
            Some('\'') => out.push('\''),
            Some('`') => out.push('`'),
            Some('&' | '|' | '^' | 'c' | ')' | '/' | ',' | ':') | None => {}
            Some(other) => out.push(other),
        }
    }
    out
}

/// The name an escape takes: `(xx` two characters, `[name]` up to the
/// bracket, else one character.
fn escape_name(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> String {
    match chars.next() {
        Some('(') => chars.by_ref().take(2).collect(),
        Some('[') => chars.by_ref().take_while(|c| *c != ']').collect(),
        Some(c) => c.to_string(),
        None => String::new(),
    }
}

/// A named glyph (`\(em`, `\[aq]`) as its character; unknown ones go.
fn glyph(name: &str) -> &'static str {
    match name {
        "em" => "—",
        "en" => "–",
        "hy" | "mi" => "-",
        "aq" => "'",
        "dq" => "\"",
        "lq" => "“",
        "rq" => "”",
        "oq" => "‘",
        "cq" => "’",
        "bu" => "•",
        "co" => "©",
        "rg" => "®",
        "tm" => "™",
        "de" => "°",
        "mu" => "×",
        "<=" => "≤",
        ">=" => "≥",
        "->" => "→",
        "<-" => "←",
        "ti" | "ap" => "~",
        "ha" | "a^" => "^",
        "rs" => "\\",
        "ga" => "`",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const APROPOS: &str = r#".\" Man page for apropos
.TH APROPOS 1 "2024-04-05" "2.12.1" "Manual pager utils"
.SH NAME
apropos \- search the manual page names and descriptions
.SH SYNOPSIS
.B apropos
[\|\fB\-d\fR\|]
.RI [ keyword ]
.SH DESCRIPTION
Each manual page has a short description available within it.
.B apropos
searches the descriptions for instances of
.IR keyword .
.SS Options
.TP
.BR \-d ", " \-\-debug
Print debugging information \(em to standard error.
.SH "SEE ALSO"
.BR man (1)
"#;

    #[test]
    fn a_man_page_reads_as_sections_with_its_words() {
        assert!(looks_like_man(APROPOS.as_bytes()));
        assert!(!looks_like_man(b"Just text.\n.SH not at the start\n"));
        let defined = "'\\\" t\n.de dT\n.ds Dt \\\\$2\n..\n.dT Time-stamp\n.TH GREP 1 \\*(Dt\n.SH NAME\ngrep \\- print lines that match patterns\n";
        assert!(looks_like_man(defined.as_bytes()));
        let Rendered { text, title, .. } = render(defined);
        assert_eq!(
            title.as_deref(),
            Some("grep(1): print lines that match patterns"),
            "{text}"
        );
        assert!(!text.contains("Dt"), "{text}");
        let Rendered { text, title, lead } = render(APROPOS);
        assert_eq!(
            lead.as_deref(),
            Some(
                "Each manual page has a short description available within it. apropos searches the descriptions for instances of keyword."
            )
        );
        assert_eq!(
            title.as_deref(),
            Some("apropos(1): search the manual page names and descriptions")
        );
        assert!(text.starts_with("# apropos(1)\n"), "{text}");
        for expected in [
            "## Name",
            "apropos - search the manual page names and descriptions",
            "## Description",
            "Each manual page has a short description available within it.",
            "available within it. apropos searches the descriptions for instances of keyword.",
            "### Options",
            "-d, --debug Print debugging information — to standard error.",
            "## See also",
            "man(1)",
        ] {
            assert!(text.contains(expected), "{expected:?} in\n{text}");
        }
        assert!(!text.contains("\\f") && !text.contains(".TH") && !text.contains("\\("));
        assert_eq!(
            inline("The \\s-1CA\\s0.pl script, \\s+2big\\s0 and \\s(12ten\\s0"),
            "The CA.pl script, big and ten"
        );
    }
}
