//! PowerPoint (PPTX): slides in the presentation's order (its slide list,
//! resolved through its relationships), each slide's title placeholder as
//! its heading and the text of its other shapes and tables below; `title`
//! and `author` from the core properties. Speaker notes are not read.

use std::collections::HashMap;

use super::archive::{Archive, Step, attribute, walk, xml_element};
use super::ocr::Ocr;
use crate::document::{Document, Extractor};
use crate::error::Result;
use crate::error::bad;

pub struct Pptx;

/// Most slides read.
const MAX_SLIDES: usize = 5000;

impl Extractor for Pptx {
    fn extract(&self, bytes: &[u8], _: Option<&Ocr>) -> Result<Document> {
        let mut archive = Archive::open(bytes, "PPTX")?;
        let mut doc = Document::default();
        if let Some(core) = archive.xml("docProps/core.xml")? {
            for (element, tag) in [("dc:title", "title"), ("dc:creator", "author")] {
                if let Some(value) = xml_element(&core, element) {
                    doc.tags.insert(tag, value);
                }
            }
        }
        let mut slides = Vec::new();
        for entry in slide_entries(&mut archive)? {
            if let Some(xml) = archive.xml(&entry)? {
                let mut slide = Slide::default();
                walk(&xml, "PPTX", |step| slide.step(&step))?;
                slides.push((slide.title, slide.body));
            }
        }
        if !doc.tags.contains_key("title")
            && let Some(title) = super::slides::title_of(&slides)
        {
            doc.tags.insert("title", title);
        }
        doc.slides = super::slides::headed(slides);
        doc.text = doc.slides.join("\n\n");
        Ok(doc)
    }
}

/// The archive entries of the slides, in the order the presentation shows
/// them.
fn slide_entries(archive: &mut Archive<'_>) -> Result<Vec<String>> {
    let presentation = archive
        .xml("ppt/presentation.xml")?
        .ok_or_else(|| bad("is a PPTX archive without ppt/presentation.xml"))?;
    let mut order = Vec::new();
    walk(&presentation, "PPTX", |step| {
        if let Step::Start(name, attrs) = step
            && name == b"sldId"
            && let Some(id) = attribute(&attrs, "r:id")
        {
            order.push(id.to_string());
        }
    })?;
    let mut targets = HashMap::new();
    if let Some(rels) = archive.xml("ppt/_rels/presentation.xml.rels")? {
        walk(&rels, "PPTX", |step| {
            if let Step::Start(name, attrs) = step
                && name == b"Relationship"
                && let (Some(id), Some(target)) =
                    (attribute(&attrs, "Id"), attribute(&attrs, "Target"))
            {
                targets.insert(id.to_string(), target.to_string());
            }
        })?;
    }
    Ok(order
        .iter()
        .filter_map(|id| targets.get(id))
        .map(|target| match target.strip_prefix('/') {
            Some(absolute) => absolute.to_string(),
            None => format!("ppt/{target}"),
        })
        .take(MAX_SLIDES)
        .collect())
}

/// One slide's title and the rest of its text, as Markdown.
#[derive(Default)]
struct Slide {
    title: Option<String>,
    body: String,
    /// The shape being read: whether it is the title, and its text.
    shape: Option<(bool, String)>,
    cells: usize,
}

impl Slide {
    fn step(&mut self, step: &Step<'_>) {
        match step {
            Step::Start(name, attrs) => match name.as_slice() {
                b"sp" => self.shape = Some((false, String::new())),
                b"ph" => {
                    if let Some((is_title, _)) = &mut self.shape {
                        *is_title = matches!(attribute(attrs, "type"), Some("title" | "ctrTitle"));
                    }
                }
                b"p" if self.cells > 0 => self.push(" "),
                b"p" => self.push("\n"),
                b"br" => self.push("\n"),
                b"tr" => {
                    self.push("\n");
                    self.cells = 0;
                }
                b"tc" => {
                    if self.cells > 0 {
                        self.push(" | ");
                    }
                    self.cells += 1;
                }
                _ => {}
            },
            Step::End(name) => match name.as_slice() {
                b"sp" => self.end_shape(),
                b"tbl" => {
                    self.cells = 0;
                    self.push("\n\n");
                }
                _ => {}
            },
            Step::Text(t) => self.push(t),
        }
    }

    fn push(&mut self, text: &str) {
        match &mut self.shape {
            Some((_, shape)) => shape.push_str(text),
            None => self.body.push_str(text),
        }
    }

    fn end_shape(&mut self) {
        let Some((is_title, text)) = self.shape.take() else {
            return;
        };
        let text = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        if text.is_empty() {
            return;
        }
        if is_title && self.title.is_none() {
            self.title = Some(text);
        } else {
            if !self.body.trim().is_empty() {
                self.body.push_str("\n\n");
            }
            self.body.push_str(&text);
        }
    }
}
