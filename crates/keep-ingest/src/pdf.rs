//! PDF: text per page (pdf-extract), `title` and `author` from the
//! document information dictionary (lopdf) or, when it has none worth
//! keeping, from the first page's largest type, and OCR of the largest image
//! of each page that has no extractable text (a scanned page).

use pdf_extract::{Document as PdfDoc, Object, ObjectId};

use super::ocr::Ocr;
use super::pages::clean_pages;
use super::pdf_title;
use crate::document::{Document, Extractor};
use crate::error::Result;
use crate::error::bad;

pub struct Pdf;

/// Pages with fewer letters than this count as scanned.
const MIN_PAGE_LETTERS: usize = 8;
/// Largest page count read.
const MAX_PAGES: usize = 5000;

impl Extractor for Pdf {
    fn extract(&self, bytes: &[u8], ocr: Option<&Ocr>) -> Result<Document> {
        let mut pdf =
            PdfDoc::load_mem(bytes).map_err(|e| bad(format!("is not a readable PDF ({e})")))?;
        if pdf.is_encrypted() && pdf.decrypt("").is_err() {
            return Err(bad("is an encrypted PDF (a password is needed to read it)"));
        }
        let page_ids: Vec<ObjectId> = pdf.get_pages().into_values().collect();
        if page_ids.len() > MAX_PAGES {
            return Err(bad(format!(
                "has {} pages; PDFs over {MAX_PAGES} pages are refused",
                page_ids.len()
            )));
        }
        let mut doc = Document::default();
        if let Some(author) = info_string(&pdf, b"Author") {
            doc.tags.insert("author", author);
        }
        let title = info_string(&pdf, b"Title")
            .filter(|t| !pdf_title::is_meaningless(t))
            .or_else(|| pdf_title::largest_text(&pdf));
        if let Some(title) = title {
            doc.tags.insert("title", title);
        }
        let mut pages = page_texts(bytes, &pdf, page_ids.len())?;
        pages.resize(page_ids.len().max(pages.len()), String::new());
        for (page, id) in pages.iter_mut().zip(&page_ids) {
            let letters = page.chars().filter(|c| c.is_alphanumeric()).count();
            if letters >= MIN_PAGE_LETTERS && !is_garbage(page) {
                continue;
            }
            let Some(image) = largest_image(&pdf, *id) else {
                continue;
            };
            match ocr {
                Some(ocr) => *page = ocr.recognize(&image)?,
                None => doc.ocr_pending = true,
            }
        }
        paged(&mut doc, &pages);
        Ok(doc)
    }
}

/// Fills `doc` from the raw texts of its pages: cleaned (see `pages`), the
/// text of all of them, and a title from the first page when it has none.
pub(super) fn paged(doc: &mut Document, raw: &[String]) {
    let pages: Vec<String> = clean_pages(raw)
        .iter()
        .map(|p| crate::document::tidy(p))
        .collect();
    if !doc.tags.contains_key("title")
        && let Some(title) = first_page_title(&pages)
    {
        doc.tags.insert("title", title);
    }
    doc.text = pages
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join("\n\n");
    doc.pages = pages;
}

/// The text of each page: pdf-extract's layout first; when it gives up on
/// the file (it panics on some valid PDFs), lopdf's plainer reading.
fn page_texts(bytes: &[u8], pdf: &PdfDoc, count: usize) -> Result<Vec<String>> {
    let extracted = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem_by_pages(bytes));
    match extracted {
        Ok(Ok(pages)) => Ok(pages),
        Ok(Err(_)) | Err(_) => {
            let pages: Vec<String> = (1..=count as u32)
                .map(|n| pdf.extract_text(&[n]).unwrap_or_default())
                .collect();
            if pages.iter().all(|p| p.trim().is_empty()) && count > 0 {
                return Err(bad("text could not be extracted from any page"));
            }
            Ok(pages)
        }
    }
}

/// Whether a page's text layer is garbage rather than text: two thirds
/// symbols or more, or full of characters no text contains (private-use glyph
/// codes, replacement marks, control characters). Such a page is read by
/// OCR when it has an image, like a scanned page.
fn is_garbage(page: &str) -> bool {
    let visible: Vec<char> = page.chars().filter(|c| !c.is_whitespace()).collect();
    if visible.len() < MIN_PAGE_LETTERS {
        return false;
    }
    let alphanumeric = visible.iter().filter(|c| c.is_alphanumeric()).count();
    let broken = visible
        .iter()
        .filter(|&&c| c == '\u{FFFD}' || c.is_control() || ('\u{E000}'..='\u{F8FF}').contains(&c))
        .count();
    alphanumeric * 3 < visible.len() || broken * 10 >= visible.len()
}

/// A title from the opening of the first page with text: its first line,
/// when it is short and does not end a sentence, joined with the next line
/// when it stops on a word that cannot end a title ("Release for").
fn first_page_title(pages: &[String]) -> Option<String> {
    let page = pages.iter().find(|p| !p.trim().is_empty())?;
    let mut lines = page.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut title = lines.next().filter(|l| is_title_line(l))?.to_string();
    while ends_mid_phrase(&title)
        && let Some(next) = lines.next().filter(|l| is_title_line(l))
        && title.chars().count() + next.chars().count() < 120
    {
        title.push(' ');
        title.push_str(next);
    }
    Some(title.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// A line that can be (part of) a title: a few words, mostly letters, not
/// ending a sentence or a clause.
fn is_title_line(line: &str) -> bool {
    let words = line.split_whitespace().count();
    (1..=14).contains(&words)
        && line.chars().count() <= 100
        && !line.ends_with(['.', ',', ';', ':'])
        && line.chars().filter(|c| c.is_alphabetic()).count() * 2 >= line.chars().count()
}

/// Whether a line stops on a word a title never ends with.
fn ends_mid_phrase(line: &str) -> bool {
    const CONNECTIVES: [&str; 16] = [
        "a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the",
        "to", "with",
    ];
    line.split_whitespace()
        .last()
        .is_some_and(|w| CONNECTIVES.contains(&w.to_lowercase().as_str()))
}

/// A string from the document information dictionary.
fn info_string(pdf: &PdfDoc, key: &[u8]) -> Option<String> {
    let info = match pdf.trailer.get(b"Info").ok()? {
        Object::Reference(id) => pdf.get_dictionary(*id).ok()?,
        Object::Dictionary(d) => d,
        _ => return None,
    };
    let value = info.get(key).ok()?;
    let text = pdf_extract::decode_text_string(value).ok()?;
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The biggest image on a page, decoded: JPEG streams directly, others
/// from their raw 8-bit gray or RGB samples.
fn largest_image(pdf: &PdfDoc, page: ObjectId) -> Option<image::DynamicImage> {
    let images = pdf.get_page_images(page).ok()?;
    let img = images.into_iter().max_by_key(|i| i.width * i.height)?;
    let filters = img.filters.clone().unwrap_or_default();
    if filters.iter().any(|f| f == "DCTDecode") {
        return image::load_from_memory(img.content).ok();
    }
    let stream = pdf.get_object(img.id).ok()?.as_stream().ok()?;
    let samples = stream.decompressed_content().ok()?;
    let (w, h) = (
        u32::try_from(img.width).ok()?,
        u32::try_from(img.height).ok()?,
    );
    if img.bits_per_component != Some(8) {
        return None;
    }
    match img.color_space.as_deref() {
        Some("DeviceGray") => image::GrayImage::from_raw(w, h, samples).map(Into::into),
        Some("DeviceRGB") => image::RgbImage::from_raw(w, h, samples).map(Into::into),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn title_of(page: &str) -> Option<String> {
        first_page_title(&["".to_string(), page.to_string()])
    }

    #[test]
    fn a_text_layer_of_symbols_or_glyph_codes_is_garbage() {
        assert!(is_garbage("€‚ƒ„…†‡ˆ‰ ‹ŒŽ‘’“”•–—˜™ ›œžŸ ¡¢£¤¥¦§¨©"));
        assert!(is_garbage(
            "\u{E001}\u{E002}\u{E003}ab \u{E004}\u{E005}cd \u{E006}\u{E007}\u{E008}"
        ));
        assert!(!is_garbage(
            "Queries can access multiple tables at once (see 2.6)."
        ));
        assert!(!is_garbage("x = (a + b) * 2; y = x / 3;"));
    }

    #[test]
    fn a_title_broken_after_a_connective_is_joined() {
        assert_eq!(
            title_of("Copyright Release for\nContributions To SQLite\n\nSQLite is software.")
                .as_deref(),
            Some("Copyright Release for Contributions To SQLite")
        );
        assert_eq!(
            title_of("Asymptote Reference Card\nProgram structure").as_deref(),
            Some("Asymptote Reference Card")
        );
        assert_eq!(title_of("This page opens with a sentence."), None);
    }
}
