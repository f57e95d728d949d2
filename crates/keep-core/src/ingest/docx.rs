//! DOCX: paragraphs and tables in document order (docx-rs), `title` and
//! `author` from the core properties. The archive is checked first: a
//! DOCX that would inflate past a fixed size, or by an absurd ratio, is
//! refused as a zip bomb before anything is decompressed.

use std::io::{Cursor, Read};

use docx_rs::{
    DocumentChild, Paragraph, ParagraphChild, RunChild, Table, TableCellContent, TableChild,
    TableRowChild,
};

use super::ocr::Ocr;
use super::{Document, Extractor, bad};
use crate::error::Result;

pub struct Docx;

/// Most bytes the archive may inflate to.
const MAX_INFLATED: u64 = 512 * 1024 * 1024;
/// Most an entry may inflate relative to its compressed size.
const MAX_RATIO: u64 = 200;
const MAX_ENTRIES: usize = 10_000;
/// Deepest element nesting of the document's XML read; deeper is refused
/// before the XML parser sees it.
const MAX_DEPTH: usize = 256;

impl Extractor for Docx {
    fn extract(&self, bytes: &[u8], _: Option<&Ocr>) -> Result<Document> {
        let core = check_archive(bytes)?;
        let docx =
            docx_rs::read_docx(bytes).map_err(|e| bad(format!("is not a readable DOCX ({e})")))?;
        let mut doc = Document::default();
        for (element, tag) in [("dc:title", "title"), ("dc:creator", "author")] {
            if let Some(value) = core.as_deref().and_then(|xml| xml_element(xml, element)) {
                doc.tags.insert(tag, value);
            }
        }
        let mut text = String::new();
        for child in &docx.document.children {
            match child {
                DocumentChild::Paragraph(p) => push_block(&mut text, &paragraph_text(p)),
                DocumentChild::Table(t) => push_block(&mut text, &table_text(t)),
                _ => {}
            }
        }
        doc.text = text;
        Ok(doc)
    }
}

/// Refuses zip bombs; returns `docProps/core.xml` when present.
fn check_archive(bytes: &[u8]) -> Result<Option<String>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| bad(format!("is not a readable DOCX archive ({e})")))?;
    if archive.len() > MAX_ENTRIES {
        return Err(bad(format!(
            "has {} archive entries; refused",
            archive.len()
        )));
    }
    let mut total = 0u64;
    for i in 0..archive.len() {
        let entry = archive
            .by_index_raw(i)
            .map_err(|e| bad(format!("is not a readable DOCX archive ({e})")))?;
        total = total.saturating_add(entry.size());
        if entry.size() > 1024 * 1024 && entry.size() / entry.compressed_size().max(1) > MAX_RATIO {
            return Err(bad(format!(
                "looks like a zip bomb ({} inflates {}-fold); refused",
                entry.name(),
                entry.size() / entry.compressed_size().max(1)
            )));
        }
    }
    if total > MAX_INFLATED {
        return Err(bad(format!(
            "would inflate to {total} bytes (a zip bomb?); DOCX files over {MAX_INFLATED} bytes unpacked are refused"
        )));
    }
    if let Ok(entry) = archive.by_name("word/document.xml") {
        let depth = xml_depth(entry.take(MAX_INFLATED))
            .map_err(|e| bad(format!("is not a readable DOCX archive ({e})")))?;
        if depth > MAX_DEPTH {
            return Err(bad(format!(
                "nests its XML over {MAX_DEPTH} elements deep; refused"
            )));
        }
    }
    let core = match archive.by_name("docProps/core.xml") {
        Ok(mut entry) => {
            let mut xml = String::new();
            entry
                .by_ref()
                .take(1024 * 1024)
                .read_to_string(&mut xml)
                .ok()
                .map(|_| xml)
        }
        Err(_) => None,
    };
    Ok(core)
}

/// The deepest element nesting of an XML stream, read in one pass without
/// parsing (tags opened, closed and self-closed; comments, declarations and
/// processing instructions ignored). Stops counting past `MAX_DEPTH + 1`.
fn xml_depth(mut xml: impl Read) -> std::io::Result<usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Text,
        TagStart,
        Open,
        Close,
        Other,
    }
    let (mut depth, mut deepest, mut state, mut previous) = (0usize, 0usize, State::Text, 0u8);
    let mut buf = [0u8; 64 * 1024];
    loop {
        let n = xml.read(&mut buf)?;
        if n == 0 {
            return Ok(deepest);
        }
        for &b in &buf[..n] {
            state = match (state, b) {
                (State::Text, b'<') => State::TagStart,
                (State::Text, _) => State::Text,
                (State::TagStart, b'/') => State::Close,
                (State::TagStart, b'?' | b'!') => State::Other,
                (State::TagStart, _) => State::Open,
                (State::Open, b'>') => {
                    if previous != b'/' {
                        depth += 1;
                        deepest = deepest.max(depth);
                        if deepest > MAX_DEPTH {
                            return Ok(deepest);
                        }
                    }
                    State::Text
                }
                (State::Close, b'>') => {
                    depth = depth.saturating_sub(1);
                    State::Text
                }
                (State::Other, b'>') => State::Text,
                (s, _) => s,
            };
            previous = b;
        }
    }
}

fn push_block(out: &mut String, block: &str) {
    if block.trim().is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(block.trim_end());
}

fn paragraph_text(p: &Paragraph) -> String {
    let mut out = String::new();
    for child in &p.children {
        if let ParagraphChild::Run(run) = child {
            for rc in &run.children {
                match rc {
                    RunChild::Text(t) => out.push_str(&t.text),
                    RunChild::Tab(_) | RunChild::PTab(_) => out.push('\t'),
                    RunChild::Break(_) | RunChild::CarriageReturn(_) => out.push('\n'),
                    _ => {}
                }
            }
        }
    }
    out
}

/// One line per row, cells separated by " | ".
fn table_text(t: &Table) -> String {
    let mut rows = Vec::new();
    for TableChild::TableRow(row) in &t.rows {
        let mut cells = Vec::new();
        for TableRowChild::TableCell(cell) in &row.cells {
            let mut parts = Vec::new();
            for content in &cell.children {
                match content {
                    TableCellContent::Paragraph(p) => parts.push(paragraph_text(p)),
                    TableCellContent::Table(inner) => parts.push(table_text(inner)),
                    _ => {}
                }
            }
            cells.push(parts.join(" ").trim().to_string());
        }
        rows.push(cells.join(" | "));
    }
    rows.join("\n")
}

/// The text of the first `<name ...>text</name>` in `xml`, unescaped.
fn xml_element(xml: &str, name: &str) -> Option<String> {
    let open = xml.find(&format!("<{name}"))?;
    let start = open + xml[open..].find('>')? + 1;
    if xml[open..start].ends_with("/>") {
        return None;
    }
    let end = start + xml[start..].find(&format!("</{name}>"))?;
    let text = xml[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&");
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_depth_counts_elements_not_declarations_or_empty_ones() {
        let xml = b"<?xml version='1.0'?><!-- c --><a><b/><c x='1'><d></d></c></a>";
        assert_eq!(xml_depth(&xml[..]).unwrap(), 3);
        let deep = "<w:p>".repeat(10_000);
        assert_eq!(xml_depth(deep.as_bytes()).unwrap(), MAX_DEPTH + 1);
    }

    #[test]
    fn core_properties_are_read_from_xml() {
        let xml = r#"<cp:coreProperties><dc:title>Q3 &amp; Q4 plan</dc:title><dc:creator/></cp:coreProperties>"#;
        assert_eq!(
            xml_element(xml, "dc:title").as_deref(),
            Some("Q3 & Q4 plan")
        );
        assert_eq!(xml_element(xml, "dc:creator"), None);
    }
}
