//! Which format a file is: magic bytes first, the extension second (only
//! to tell text formats apart, and to catch files that lie about their
//! type).

use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Markdown,
    Html,
    /// A manual page: groff with the man macros.
    Man,
    Pdf,
    PostScript,
    Docx,
    Pptx,
    /// OpenDocument text.
    Odt,
    /// OpenDocument presentation.
    Odp,
    Audio(&'static str),
    Image(&'static str),
    /// Bytes that are none of the above and not text.
    Binary,
}

impl Format {
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Text => "text/plain",
            Format::Markdown => "text/markdown",
            Format::Html => "text/html",
            Format::Man => "text/troff",
            Format::Pdf => "application/pdf",
            Format::PostScript => "application/postscript",
            Format::Docx => {
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
            }
            Format::Pptx => {
                "application/vnd.openxmlformats-officedocument.presentationml.presentation"
            }
            Format::Odt => "application/vnd.oasis.opendocument.text",
            Format::Odp => "application/vnd.oasis.opendocument.presentation",
            Format::Audio(t) | Format::Image(t) => t,
            Format::Binary => "application/octet-stream",
        }
    }
}

/// The format of `bytes`, named `path` (for the extension).
pub fn sniff(bytes: &[u8], path: Option<&Path>) -> Format {
    if let Some(format) = by_magic(bytes) {
        // A ZIP too damaged to show its contents is read as the office
        // format its name says, so the message names what is wrong.
        if format == Format::Binary
            && let Some(office) = office_by_extension(path)
        {
            return office;
        }
        return format;
    }
    if !looks_textual(bytes) {
        return Format::Binary;
    }
    let ext = extension(path);
    if matches!(ext.as_deref(), Some("html" | "htm" | "xhtml")) || looks_like_html(bytes) {
        return Format::Html;
    }
    if super::man::looks_like_man(bytes) {
        return Format::Man;
    }
    match ext.as_deref() {
        Some("md" | "markdown" | "mdown" | "mkd") => Format::Markdown,
        _ => Format::Text,
    }
}

fn office_by_extension(path: Option<&Path>) -> Option<Format> {
    Some(match extension(path)?.as_str() {
        "docx" => Format::Docx,
        "pptx" => Format::Pptx,
        "odt" => Format::Odt,
        "odp" => Format::Odp,
        _ => return None,
    })
}

/// Why a file keep has no reader for is refused, naming what it is when
/// that is known.
pub fn unread_kind(b: &[u8]) -> &'static str {
    let at = |offset: usize, m: &[u8]| b.get(offset..offset + m.len()) == Some(m);
    if at(257, b"ustar") {
        "is a tar archive: keep reads the files in it once they are unpacked"
    } else if at(0, b"\xF7\x02") {
        "is a TeX DVI file, which keep does not read: its PDF (dvipdf) or PostScript (dvips) can be put"
    } else if at(0, b"PK\x03\x04") {
        "is a ZIP archive of a kind keep does not read"
    } else {
        "is a binary file of a type keep does not read"
    }
}

/// What the extension claims, for "lies about its type" messages.
pub fn claimed(path: Option<&Path>) -> Option<&'static str> {
    Some(match extension(path)?.as_str() {
        "pdf" => "PDF",
        "ps" | "eps" => "PostScript",
        "docx" => "DOCX",
        "pptx" => "PPTX",
        "odt" => "ODT",
        "odp" => "ODP",
        "jpg" | "jpeg" => "JPEG",
        "png" => "PNG",
        "gif" => "GIF",
        "mp3" => "MP3",
        "flac" => "FLAC",
        "wav" => "WAV",
        "ogg" => "Ogg",
        _ => return None,
    })
}

fn extension(path: Option<&Path>) -> Option<String> {
    path?
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

pub(super) fn by_magic(b: &[u8]) -> Option<Format> {
    let starts = |m: &[u8]| b.starts_with(m);
    let at =
        |offset: usize, m: &[u8]| b.len() >= offset + m.len() && &b[offset..offset + m.len()] == m;
    Some(if starts(b"%PDF-") {
        Format::Pdf
    } else if starts(b"%!PS") {
        Format::PostScript
    } else if starts(b"PK\x03\x04") {
        office_format(b)
    } else if starts(b"\xFF\xD8\xFF") {
        Format::Image("image/jpeg")
    } else if starts(b"\x89PNG\r\n\x1a\n") {
        Format::Image("image/png")
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        Format::Image("image/gif")
    } else if starts(b"II*\0") || starts(b"MM\0*") {
        Format::Image("image/tiff")
    } else if starts(b"RIFF") && at(8, b"WEBP") {
        Format::Image("image/webp")
    } else if starts(b"RIFF") && at(8, b"WAVE") {
        Format::Audio("audio/wav")
    } else if starts(b"ID3")
        || (b.len() > 1 && b[0] == 0xFF && b[1] & 0xE0 == 0xE0 && b[1] & 0x06 != 0)
    {
        Format::Audio("audio/mpeg")
    } else if starts(b"fLaC") {
        Format::Audio("audio/flac")
    } else if starts(b"OggS") {
        Format::Audio("audio/ogg")
    } else if at(4, b"ftypM4A") || at(4, b"ftypM4B") {
        Format::Audio("audio/mp4")
    } else if starts(b"FORM") && (at(8, b"AIFF") || at(8, b"AIFC")) {
        Format::Audio("audio/aiff")
    } else {
        return None;
    })
}

/// Which office format a ZIP archive is: OpenDocument by the `mimetype`
/// entry it must store first, Office Open XML by its main part's name.
fn office_format(b: &[u8]) -> Format {
    const ODF_TEXT: &[u8] = b"mimetypeapplication/vnd.oasis.opendocument.text";
    const ODF_PRESENTATION: &[u8] = b"mimetypeapplication/vnd.oasis.opendocument.presentation";
    let head = &b[..b.len().min(200)];
    let holds = |name: &[u8]| b.windows(name.len()).any(|w| w == name);
    if head.windows(ODF_TEXT.len()).any(|w| w == ODF_TEXT) {
        Format::Odt
    } else if head
        .windows(ODF_PRESENTATION.len())
        .any(|w| w == ODF_PRESENTATION)
    {
        Format::Odp
    } else if holds(b"word/document.xml") {
        Format::Docx
    } else if holds(b"ppt/presentation.xml") {
        Format::Pptx
    } else {
        Format::Binary
    }
}

/// UTF-8 (or nearly: a cut multi-byte character at the end is fine) and no
/// NUL bytes in the first 64 KiB.
fn looks_textual(b: &[u8]) -> bool {
    let head = &b[..b.len().min(64 * 1024)];
    if head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && head.len() == 64 * 1024,
    }
}

/// Text in UTF-16 with a byte-order mark, as UTF-8; None when `b` does not
/// start with a UTF-16 mark or is not valid UTF-16 after it. (A UTF-16
/// mark would otherwise pass for the frame sync of an MP3.)
pub fn utf16_text(b: &[u8]) -> Option<String> {
    let little = match b {
        [0xFF, 0xFE, ..] => true,
        [0xFE, 0xFF, ..] => false,
        _ => return None,
    };
    let body = &b[2..];
    if !body.len().is_multiple_of(2) {
        return None;
    }
    let units = body.chunks_exact(2).map(|c| {
        if little {
            u16::from_le_bytes([c[0], c[1]])
        } else {
            u16::from_be_bytes([c[0], c[1]])
        }
    });
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .ok()
}

fn looks_like_html(b: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&b[..b.len().min(1024)]).to_ascii_lowercase();
    let head = head.trim_start_matches('\u{feff}').trim_start();
    head.starts_with("<!doctype html") || head.starts_with("<html")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_wins_over_the_extension() {
        let p = Path::new("notes.txt");
        assert_eq!(sniff(b"%PDF-1.7\n...", Some(p)), Format::Pdf);
        assert_eq!(
            sniff(b"\x89PNG\r\n\x1a\n....", Some(p)),
            Format::Image("image/png")
        );
        assert_eq!(sniff(b"<!DOCTYPE html><p>x", Some(p)), Format::Html);
        assert_eq!(
            sniff(b"# Title\n", Some(Path::new("a.md"))),
            Format::Markdown
        );
        assert_eq!(sniff(b"plain", Some(Path::new("a.pdf"))), Format::Text);
        assert_eq!(sniff(b"\x00\x01\x02garbage", None), Format::Binary);
        assert_eq!(sniff(b"\xC3\x28 invalid", None), Format::Binary);
    }

    #[test]
    fn utf16_with_a_mark_is_text_in_either_byte_order() {
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("héllo".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain("héllo".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(utf16_text(&le).as_deref(), Some("héllo"));
        assert_eq!(utf16_text(&be).as_deref(), Some("héllo"));
        assert_eq!(
            utf16_text(b"\xFF\xFB\x90\x00"),
            None,
            "an MP3 frame is not UTF-16"
        );
        assert_eq!(utf16_text(b"plain"), None);
    }
}
