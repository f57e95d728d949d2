//! OpenDocument text (ODT) and presentations (ODP): the text of
//! `content.xml` as Markdown (headings from `text:h` and the Title style,
//! list items, table rows with ` | ` between cells; tracked deletions,
//! footnote bodies and generated indexes left out), `title` and `author`
//! from `meta.xml`. A presentation's slides are headed by their title
//! frames (or "Slide N") and each becomes a part.

use super::archive::{Archive, Step, attribute, walk, xml_element};
use super::ocr::Ocr;
use crate::document::{Document, Extractor};
use crate::error::Result;
use crate::error::bad;

pub struct Odt;
pub struct Odp;

impl Extractor for Odt {
    fn extract(&self, bytes: &[u8], _: Option<&Ocr>) -> Result<Document> {
        let (content, mut doc) = open(bytes, "ODT")?;
        let mut text = Text::default();
        walk(&content, "ODT", |step| text.step(&step))?;
        doc.text = text.out;
        Ok(doc)
    }
}

impl Extractor for Odp {
    fn extract(&self, bytes: &[u8], _: Option<&Ocr>) -> Result<Document> {
        let (content, mut doc) = open(bytes, "ODP")?;
        let mut deck = Deck::default();
        walk(&content, "ODP", |step| deck.step(&step))?;
        if !doc.tags.contains_key("title")
            && let Some(title) = super::slides::title_of(&deck.slides)
        {
            doc.tags.insert("title", title);
        }
        doc.slides = super::slides::headed(deck.slides);
        doc.text = doc.slides.join("\n\n");
        Ok(doc)
    }
}

/// The archive's `content.xml`, and a document with the tags of its
/// `meta.xml`.
fn open(bytes: &[u8], what: &'static str) -> Result<(String, Document)> {
    let mut archive = Archive::open(bytes, what)?;
    let content = archive
        .xml("content.xml")?
        .ok_or_else(|| bad(format!("is a {what} archive without content.xml")))?;
    let mut doc = Document::default();
    if let Some(meta) = archive.xml("meta.xml")? {
        for (element, tag) in [
            ("dc:title", "title"),
            ("meta:initial-creator", "author"),
            ("dc:creator", "author"),
        ] {
            if !doc.tags.contains_key(tag)
                && let Some(value) = xml_element(&meta, element)
            {
                doc.tags.insert(tag, value);
            }
        }
    }
    Ok((content, doc))
}

/// Elements whose text is not the document's running text.
const LEFT_OUT: [&[u8]; 7] = [
    b"tracked-changes",
    b"note",
    b"annotation",
    b"table-of-content",
    b"alphabetical-index",
    b"illustration-index",
    b"sequence-decls",
];

/// Running text of ODF `text:` elements as Markdown.
#[derive(Default)]
pub(super) struct Text {
    pub out: String,
    skipping: usize,
    bullet: bool,
    cells: usize,
}

impl Text {
    pub fn step(&mut self, step: &Step<'_>) {
        match step {
            Step::Start(name, _) if self.skipping > 0 || LEFT_OUT.contains(&name.as_slice()) => {
                self.skipping += 1;
            }
            Step::End(_) if self.skipping > 0 => self.skipping -= 1,
            _ if self.skipping > 0 => {}
            Step::Start(name, attrs) => match name.as_slice() {
                b"h" => {
                    let level = attribute(attrs, "outline-level")
                        .and_then(|l| l.parse::<usize>().ok())
                        .unwrap_or(1)
                        .clamp(1, 6);
                    self.block();
                    self.out.push_str(&"#".repeat(level));
                    self.out.push(' ');
                }
                b"p" if self.cells > 0 => self.space(),
                b"p" if self.bullet => {
                    self.bullet = false;
                    self.line();
                    self.out.push_str("- ");
                }
                b"p" => {
                    self.block();
                    match attribute(attrs, "style-name") {
                        Some("Title") => self.out.push_str("# "),
                        Some("Subtitle") => self.out.push_str("## "),
                        _ => {}
                    }
                }
                b"list-item" => self.bullet = true,
                b"table-row" => {
                    self.line();
                    self.cells = 0;
                }
                b"table-cell" | b"covered-table-cell" => {
                    if self.cells > 0 {
                        self.out.push_str(" | ");
                    }
                    self.cells += 1;
                }
                b"s" => {
                    let n = attribute(attrs, "c")
                        .and_then(|c| c.parse().ok())
                        .unwrap_or(1usize);
                    self.out.push_str(&" ".repeat(n.min(64)));
                }
                b"tab" => self.out.push(' '),
                b"line-break" => self.out.push('\n'),
                _ => {}
            },
            Step::End(name) => match name.as_slice() {
                b"table-row" => self.cells = 0,
                b"table" => self.block(),
                _ => {}
            },
            Step::Text(t) => self.out.push_str(&t.replace(['\n', '\r'], " ")),
        }
    }

    /// A new paragraph.
    fn block(&mut self) {
        self.trim_end();
        if !self.out.is_empty() {
            self.out.push_str("\n\n");
        }
    }

    /// A new line.
    fn line(&mut self) {
        self.trim_end();
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
    }

    fn space(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with([' ', '\n', '|']) {
            self.out.push(' ');
        }
    }

    fn trim_end(&mut self) {
        let kept = self.out.trim_end_matches([' ', '\t']).len();
        self.out.truncate(kept);
    }
}

/// Slides of a presentation: each page's title frame and the rest.
#[derive(Default)]
struct Deck {
    slides: Vec<(Option<String>, String)>,
    title: Option<Text>,
    body: Text,
    /// Depth inside the page's title frame, when in it.
    in_title: usize,
}

impl Deck {
    fn step(&mut self, step: &Step<'_>) {
        match step {
            Step::Start(name, _) if name == b"page" => {
                self.body = Text::default();
                self.title = None;
            }
            Step::End(name) if name == b"page" => {
                let title = self.title.take().map(|t| t.out.trim().to_string());
                let body = std::mem::take(&mut self.body).out;
                self.slides.push((title.filter(|t| !t.is_empty()), body));
            }
            Step::Start(name, attrs)
                if name == b"frame" && attribute(attrs, "presentation:class") == Some("title") =>
            {
                self.in_title = 1;
                self.title.get_or_insert_with(Text::default);
            }
            _ if self.in_title > 0 => {
                match step {
                    Step::Start(..) => self.in_title += 1,
                    Step::End(_) => self.in_title -= 1,
                    Step::Text(_) => {}
                }
                if self.in_title > 0
                    && let Some(title) = &mut self.title
                {
                    title.step(step);
                }
            }
            _ => self.body.step(step),
        }
    }
}
