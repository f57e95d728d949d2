//! What reading a file gives: a `Document` (text, pages, slides, tags
//! from the file's own metadata, links), the `Extractor` each format
//! implements, and the cleaning every extractor applies to its text.

use keep_model::Tags;

use crate::error::Result;
use crate::ocr;

/// What an extractor found in a file.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Document {
    /// The readable text, possibly empty (a photo without words).
    pub text: String,
    /// A summary the format provides (audio, images), used when the text
    /// is empty or short.
    pub description: Option<String>,
    /// The opening a format marks as what the document is about (a manual
    /// page's DESCRIPTION before its options): the summary is made from it.
    #[serde(default)]
    pub lead: Option<String>,
    /// Tags from the file's own metadata (title, author, artist, ...).
    pub tags: Tags,
    pub media_type: String,
    /// Page texts for paged formats, for parts that follow pages.
    pub pages: Vec<String>,
    /// A presentation's slides as Markdown, each one part.
    #[serde(default)]
    pub slides: Vec<String>,
    /// Time spent reading its images by OCR.
    #[serde(default)]
    pub ocr_time: std::time::Duration,
    /// Link targets as the document writes them (Markdown and HTML), to
    /// be resolved against where it came from (`links::resolve`).
    #[serde(default)]
    pub links: Vec<String>,
    /// True when the file holds text only OCR can read and the OCR models
    /// are not installed.
    pub ocr_pending: bool,
}

/// Turns the bytes of one format into a document.
pub trait Extractor {
    fn extract(&self, bytes: &[u8], ocr: Option<&ocr::Ocr>) -> Result<Document>;
}

/// `text` without characters of the private-use areas: glyphs of icon
/// fonts (a Sphinx permalink, U+F0C1) that no reader sees as text.
pub fn without_private_use(text: &str) -> std::borrow::Cow<'_, str> {
    let private = |c: char| matches!(c, '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{FFFFD}' | '\u{100000}'..='\u{10FFFD}');
    if text.contains(private) {
        text.replace(private, "").into()
    } else {
        text.into()
    }
}

/// Trims lines, drops runs of blank lines, trailing spaces and
/// private-use glyphs; a fenced code block stands as a paragraph of its
/// own (a blank line before and after it, none just inside its fences), so
/// the prose after a block is never read as part of it.
pub fn tidy(text: &str) -> String {
    let text = without_private_use(text);
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    let mut in_code = false;
    let mut just_opened = false;
    let mut just_closed = false;
    for line in text.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank += 1;
            continue;
        }
        let fence = line.trim_start().starts_with("```");
        let paragraph_break = if fence && !in_code || just_closed {
            true
        } else if just_opened || fence {
            false
        } else {
            blank > 0
        };
        if !out.is_empty() {
            out.push_str(if paragraph_break { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
        if fence {
            in_code = !in_code;
        }
        just_opened = fence && in_code;
        just_closed = fence && !in_code;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_keeps_paragraphs_and_drops_noise() {
        assert_eq!(tidy("  \n a  \n\n\n\n b\nc \n\n"), " a\n\n b\nc");
        assert_eq!(
            tidy("## Synopsis\u{f0c1}\nqemu-nbd \u{f0000}x"),
            "## Synopsis\nqemu-nbd x"
        );
        assert_eq!(
            tidy("Here is the program:\n```\n\n  int x;\n\n  x = 1;\n```\nWe now include it.\n"),
            "Here is the program:\n\n```\n  int x;\n\n  x = 1;\n```\n\nWe now include it."
        );
    }
}
