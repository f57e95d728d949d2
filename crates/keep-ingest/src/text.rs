//! Plain text, source code and Markdown, as UTF-8 (UTF-16 with a byte-order
//! mark and legacy single-byte encodings are converted before this point,
//! see `decode`). A Markdown file's first `# ` heading becomes its `title`
//! tag.

use crate::document::{Document, Extractor};
use crate::error::Result;
use crate::error::bad;
use crate::ocr::Ocr;

pub struct Plain;
pub struct Markdown;

fn decode(bytes: &[u8]) -> Result<String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "is not UTF-8 text (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(bad("is empty"));
    }
    Ok(text.to_string())
}

impl Extractor for Plain {
    fn extract(&self, bytes: &[u8], _: Option<&Ocr>) -> Result<Document> {
        Ok(Document {
            text: decode(bytes)?,
            ..Document::default()
        })
    }
}

impl Extractor for Markdown {
    fn extract(&self, bytes: &[u8], _: Option<&Ocr>) -> Result<Document> {
        let text = decode(bytes)?;
        let mut doc = Document::default();
        if let Some(title) = text
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            doc.tags.insert("title", title);
        }
        doc.links = super::links::markdown_links(&text);
        doc.text = text;
        Ok(doc)
    }
}
