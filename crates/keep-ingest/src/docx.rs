//! DOCX: paragraphs and tables in document order (docx-rs), `title` and
//! `author` from the core properties. The archive is checked first (see
//! `archive`).

use docx_rs::{
    DocumentChild, Paragraph, ParagraphChild, RunChild, Table, TableCellContent, TableChild,
    TableRowChild,
};

use super::archive::{Archive, xml_element};
use super::ocr::Ocr;
use crate::document::{Document, Extractor};
use crate::error::Result;
use crate::error::bad;

pub struct Docx;

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

/// Refuses zip bombs and over-deep XML; returns `docProps/core.xml` when
/// present.
fn check_archive(bytes: &[u8]) -> Result<Option<String>> {
    let mut archive = Archive::open(bytes, "DOCX")?;
    archive.xml("word/document.xml")?;
    archive.xml("docProps/core.xml")
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
