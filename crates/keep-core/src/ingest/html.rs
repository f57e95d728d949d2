//! HTML: the title and the visible text, without scripts, styles and
//! other invisible elements; block elements become line breaks.

use scraper::{ElementRef, Html as Page, Node, Selector};

use super::{Document, Extractor, bad, ocr::Ocr};
use crate::error::Result;

pub struct Html;

const HIDDEN: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "iframe", "object", "canvas",
];
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "table",
    "section",
    "article",
    "header",
    "footer",
    "nav",
    "aside",
    "main",
    "blockquote",
    "pre",
    "hr",
    "dt",
    "dd",
    "figcaption",
    "form",
    "address",
];

impl Extractor for Html {
    fn extract(&self, bytes: &[u8], _: Option<&Ocr>) -> Result<Document> {
        let source = String::from_utf8_lossy(bytes);
        let page = Page::parse_document(&source);
        let mut doc = Document::default();
        let title_selector = Selector::parse("title").expect("valid selector");
        if let Some(title) = page.select(&title_selector).next() {
            let title = title.text().collect::<String>();
            let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
            if !title.is_empty() {
                doc.tags.insert("title", title);
            }
        }
        let mut text = String::new();
        visible_text(page.root_element(), &mut text);
        if text.trim().is_empty() && doc.tags.is_empty() {
            return Err(bad("has no visible text"));
        }
        doc.text = text;
        Ok(doc)
    }
}

/// Elements nested deeper than this are left out (a page built to
/// exhaust a parser's stack is not a document).
const MAX_DEPTH: usize = 512;

/// The visible text under `root`, walked with an explicit stack (never
/// recursion), so nesting cannot exhaust the thread's stack.
fn visible_text(root: ElementRef<'_>, out: &mut String) {
    enum Step<'a> {
        Enter(ego_tree::NodeRef<'a, Node>, usize),
        Leave,
    }
    let mut stack: Vec<Step<'_>> = root.children().rev().map(|c| Step::Enter(c, 1)).collect();
    while let Some(step) = stack.pop() {
        let (node, depth) = match step {
            Step::Leave => {
                out.push('\n');
                continue;
            }
            Step::Enter(node, depth) => (node, depth),
        };
        match node.value() {
            Node::Text(t) => {
                let words = t.split_whitespace().collect::<Vec<_>>().join(" ");
                if !words.is_empty() {
                    if !out.is_empty() && !out.ends_with(['\n', ' ']) {
                        out.push(' ');
                    }
                    out.push_str(&words);
                }
            }
            Node::Element(e) => {
                let name = e.name();
                if HIDDEN.contains(&name) || e.attr("hidden").is_some() || depth > MAX_DEPTH {
                    continue;
                }
                let block = BLOCKS.contains(&name);
                if block {
                    out.push('\n');
                    stack.push(Step::Leave);
                }
                stack.extend(node.children().rev().map(|c| Step::Enter(c, depth + 1)));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_and_styles_are_left_out() {
        let html = b"<html><head><title> The  Page </title><style>p{}</style></head>\
            <body><script>var x = 1;</script><h1>Heading</h1><p>First <b>bold</b> words.</p>\
            <p hidden>secret</p><noscript>enable js</noscript></body></html>";
        let doc = Html.extract(html, None).unwrap();
        assert_eq!(doc.tags.first("title"), Some("The Page"));
        let text = super::super::tidy(&doc.text);
        assert_eq!(text, "Heading\n\nFirst bold words.");
    }

    #[test]
    fn deep_nesting_does_not_exhaust_the_stack() {
        let html = format!(
            "<p>top</p>{}deep{}",
            "<div>".repeat(20_000),
            "</div>".repeat(20_000)
        );
        let doc = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || Html.extract(html.as_bytes(), None))
            .unwrap()
            .join()
            .expect("no stack overflow")
            .unwrap();
        assert!(doc.text.contains("top"));
    }
}
