//! Choosing and running the extractor of a file by what its bytes are
//! (not what its name says), and telling which files must be read in a
//! child process (formats whose parsers are not trusted with any input)
//! or may need OCR.

use std::path::Path;

use crate::document::{Document, Extractor, tidy, without_private_use};
use crate::error::format_error;
use crate::error::{Error, Result};
use crate::sniff::Format;
use crate::{audio, decode, docx, html, image, man, ocr, odf, pdf, postscript, pptx, sniff, text};

/// Largest file read for extraction.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

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
        .map(|(k, v)| (k.to_string(), tag_value(v)))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    Ok(doc)
}

/// A document's tag value (title, author, ...) is at most this many
/// characters: a file that puts its whole text in a heading or a title
/// gives a value that every part's section would carry.
const MAX_TAG_CHARS: usize = 300;

/// A tag value read from a document: trimmed, without private-use
/// characters, cut at `MAX_TAG_CHARS` with a closing `…`.
fn tag_value(value: &str) -> String {
    let value = without_private_use(value);
    let value = value.trim();
    match value.char_indices().nth(MAX_TAG_CHARS - 1) {
        Some((cut, _)) => format!("{}…", value[..cut].trim_end()),
        None => value.to_string(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_that_runs_on_is_cut() {
        let doc = extract(
            "# ".repeat(200_000).as_bytes(),
            "x.md",
            Some(Path::new("x.md")),
            None,
        )
        .unwrap();
        let title = doc.tags.first("title").unwrap();
        assert_eq!(title.chars().count(), MAX_TAG_CHARS);
        assert!(title.ends_with('…'), "{title}");
        assert_eq!(tag_value("  A Title "), "A Title");
    }

    #[test]
    fn files_lying_about_their_type_are_refused() {
        let err = extract(b"just text", "x.pdf", Some(Path::new("x.pdf")), None).unwrap_err();
        assert!(err.to_string().contains("named as PDF"), "{err}");
        let err = extract(b"\x00\x01\x02", "x.bin", Some(Path::new("x.bin")), None).unwrap_err();
        assert!(err.to_string().contains("binary"), "{err}");
    }
}
