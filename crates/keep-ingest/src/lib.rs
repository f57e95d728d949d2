//! Ingestion: turning the bytes of a file or a web page into a document
//! (text, provider tags, media type), one `Extractor` per format chosen by
//! content sniffing; chunking long text into parts; walking folders;
//! fetching URLs; running extraction on a pool of worker threads with
//! panics isolated and time bounded; and the extractive summaries of
//! documents and parts. The only crate with the document formats' crates.

mod archive;
mod audio;
pub mod chunk;
mod decode;
mod docx;
pub mod error;
pub mod fetch;
mod html;
mod image;
pub mod isolate;
pub mod links;
mod man;
pub mod ocr;
mod odf;
mod pages;
mod pdf;
mod pdf_title;
pub mod pool;
mod postscript;
mod pptx;
pub mod read;
mod slides;
pub mod sniff;
pub mod spent;
pub mod summarize;
mod text;
mod threads;
pub mod walk;

use std::path::Path;

pub use error::{Error, Result};
use keep_model::Tags;
pub use sniff::Format;

/// The child side of isolated extraction: a binary runs this for its
/// hidden extraction command; returns the exit code.
pub fn serve_extraction_worker(memory_limit: Option<u64>) -> i32 {
    isolate::serve(memory_limit)
}

/// Largest file read for extraction.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// What an extractor found in a file.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Document {
    /// The readable text, possibly empty (a photo without words).
    pub text: String,
    /// A summary the format provides (audio, images), used when the text
    /// is empty or short.
    pub description: Option<String>,
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

/// The extractor for `format`.
fn extractor(format: Format) -> Option<&'static dyn Extractor> {
    Some(match format {
        Format::Text => &text::Plain,
        Format::Markdown => &text::Markdown,
        Format::Html => &html::Html,
        Format::Man => &man::Man,
        Format::Pdf => &pdf::Pdf,
        Format::PostScript => &postscript::PostScript,
        Format::Docx => &docx::Docx,
        Format::Pptx => &pptx::Pptx,
        Format::Odt => &odf::Odt,
        Format::Odp => &odf::Odp,
        Format::Audio(_) => &audio::Audio,
        Format::Image(_) => &image::Image,
        Format::Binary => return None,
    })
}

/// Extracts a document from `bytes`; `name` (a path or URL) is used for
/// the extension and in messages.
pub fn extract(
    bytes: &[u8],
    name: &str,
    path: Option<&Path>,
    ocr: Option<&ocr::Ocr>,
) -> Result<Document> {
    if decode::is_gzip(bytes) {
        let unpacked = decode::gunzip(bytes).map_err(|reason| format_error(name, reason))?;
        let inner = decode::unpacked_path(path);
        return extract(&unpacked, name, inner.as_deref(), ocr);
    }
    let utf8;
    // A format known by its magic bytes (PDF, images, ...) is never decoded
    // as text, however much it looks like some.
    let legacy = || {
        sniff::by_magic(bytes)
            .is_none()
            .then(|| decode::legacy_text(bytes))
            .flatten()
    };
    let bytes = match sniff::utf16_text(bytes).or_else(legacy) {
        Some(text) => {
            utf8 = text.into_bytes();
            &utf8[..]
        }
        None => bytes,
    };
    let format = sniff::sniff(bytes, path);
    if matches!(format, Format::Text | Format::Markdown | Format::Binary)
        && let Some(claimed) = sniff::claimed(path)
    {
        return Err(format_error(
            name,
            format!("is named as {claimed} but its content is not {claimed}"),
        ));
    }
    let Some(extractor) = extractor(format) else {
        return Err(format_error(name, sniff::unread_kind(bytes)));
    };
    let ocr_before = crate::spent::spent(crate::spent::Stage::Ocr);
    let mut doc = extractor.extract(bytes, ocr).map_err(|e| match e {
        Error::Unreadable { reason, .. } => format_error(name, reason),
        Error::NoText { .. } => Error::NoText {
            what: name.to_string(),
        },
        other => other,
    })?;
    doc.ocr_time = crate::spent::spent(crate::spent::Stage::Ocr).saturating_sub(ocr_before);
    doc.media_type = format.media_type().to_string();
    doc.text = tidy(&doc.text);
    doc.tags = doc
        .tags
        .pairs()
        .map(|(k, v)| (k.to_string(), without_private_use(v).trim().to_string()))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    Ok(doc)
}

/// Whether extracting `bytes` calls a parser that hostile input could
/// crash (everything but plain text and Markdown).
pub fn needs_isolation(bytes: &[u8], path: Option<&Path>) -> bool {
    if sniff::utf16_text(bytes).is_some() {
        return false;
    }
    !matches!(sniff::sniff(bytes, path), Format::Text | Format::Markdown)
}

/// Whether `bytes` are of a format whose text may need OCR.
pub fn may_need_ocr(bytes: &[u8]) -> bool {
    matches!(sniff::sniff(bytes, None), Format::Pdf | Format::Image(_))
}

/// An extraction failure for `what`.
pub fn format_error(what: &str, reason: impl Into<String>) -> Error {
    Error::Unreadable {
        what: what.to_string(),
        reason: reason.into(),
    }
}

/// A failure inside an extractor, before the file name is known.
fn bad(reason: impl Into<String>) -> Error {
    format_error("", reason)
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

    #[test]
    fn files_lying_about_their_type_are_refused() {
        let err = extract(b"just text", "x.pdf", Some(Path::new("x.pdf")), None).unwrap_err();
        assert!(err.to_string().contains("named as PDF"), "{err}");
        let err = extract(b"\x00\x01\x02", "x.bin", Some(Path::new("x.bin")), None).unwrap_err();
        assert!(err.to_string().contains("binary"), "{err}");
    }
}
