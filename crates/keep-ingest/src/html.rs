//! HTML: the main content, not the site's chrome. Readability (the
//! `dom_smoothie` port of Mozilla's) finds the article and renders it as
//! Markdown, so headings, lists, tables and code blocks stay readable; the
//! rendering is then cleaned of links' targets, images, permalink marks
//! and navigation lines. When Readability finds nothing (or the page nests
//! too deeply for it), the visible text is walked instead, leaving out
//! navigation, headers, footers, sidebars, menus, dialogs and banners. The
//! page's `title`, `author`, `published` and `lang` become tags.

use std::borrow::Cow;

use dom_smoothie::{CandidateSelectMode, Config, Readability, TextMode};
use scraper::{ElementRef, Html as Page, Node, Selector};

use crate::document::{Document, Extractor};
use crate::error::Result;
use crate::error::bad;
use crate::ocr::Ocr;

pub struct Html;

/// Main content shorter than this (letters) is not trusted: the visible
/// text is used instead.
const MIN_MAIN_LETTERS: usize = 80;
/// Pages nested deeper than this skip Readability (it recurses).
const MAX_READABILITY_DEPTH: usize = 256;
/// Elements nested deeper than this are left out of the walk.
const MAX_DEPTH: usize = 512;
/// Tags nested deeper than this are taken out before parsing (their text
/// stays, one level up), well inside `MAX_DEPTH`.
const MAX_PARSED_DEPTH: usize = 384;

const HIDDEN: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "iframe", "object", "canvas",
    "button", "select", "input", "textarea", "dialog",
];
/// Elements that are chrome, not content, in the fallback walk.
const CHROME: &[&str] = &["nav", "header", "footer", "aside", "form", "menu"];
/// Roles that are chrome.
const CHROME_ROLES: &[&str] = &[
    "navigation",
    "banner",
    "contentinfo",
    "search",
    "menu",
    "menubar",
    "dialog",
    "complementary",
    "toolbar",
];
/// Words in a class or id that mark chrome.
const CHROME_WORDS: &[&str] = &[
    "nav",
    "navbar",
    "navigation",
    "menu",
    "sidebar",
    "footer",
    "header",
    "breadcrumb",
    "breadcrumbs",
    "toc",
    "popup",
    "modal",
    "cookie",
    "cookies",
    "banner",
    "share",
    "search",
    "skip",
    "related",
    "theme",
    "themes",
    "help",
    "shortcuts",
    "toolbar",
    "edit",
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
    "main",
    "blockquote",
    "pre",
    "hr",
    "dt",
    "dd",
    "figcaption",
    "address",
];

impl Extractor for Html {
    fn extract(&self, bytes: &[u8], _: Option<&Ocr>) -> Result<Document> {
        let source = String::from_utf8_lossy(bytes);
        let source = flatten_deep(&source, MAX_PARSED_DEPTH);
        let mut page = Page::parse_document(&source);
        let mut doc = Document::default();
        let marked = marked_main(&page);
        let meta = page_metadata(&page, marked);
        let marked = marked.map(|m| m.id());
        strip_chrome(&mut page, marked);
        doc.links = page_links(&page, marked);
        let marked = marked
            .and_then(|id| page.tree.get(id))
            .and_then(ElementRef::wrap);
        let main = (tag_depth(&source) <= MAX_READABILITY_DEPTH)
            .then(|| main_content(marked, &page))
            .flatten();
        let title = meta.title.clone();
        let text = match main {
            Some(main) if letters(&main.text) >= MIN_MAIN_LETTERS => {
                if let Some(author) = main.byline.or(meta.author) {
                    doc.tags.insert("author", author);
                }
                if let Some(published) = main.published.or(meta.published) {
                    doc.tags.insert("published", published);
                }
                if let Some(lang) = main.lang.or(meta.lang) {
                    doc.tags.insert("lang", lang);
                }
                main.text
            }
            _ => {
                for (key, value) in [
                    ("author", meta.author),
                    ("published", meta.published),
                    ("lang", meta.lang),
                ] {
                    if let Some(value) = value {
                        doc.tags.insert(key, value);
                    }
                }
                let text = visible_markdown(page.root_element());
                if letters(&text) > 0 {
                    text
                } else {
                    everything_visible(&source)
                }
            }
        };
        if let Some(title) = title.map(|t| one_line(&t)).filter(|t| !t.is_empty()) {
            doc.tags.insert("title", title);
        }
        doc.text = match doc.tags.first("title") {
            Some(title) if text.trim().is_empty() => title.to_string(),
            _ if text.trim().is_empty() => return Err(bad("has no visible text")),
            _ => text,
        };
        Ok(doc)
    }
}

/// The targets of the links in the page's content (its marked main
/// content when it has one), outside hidden elements and chrome.
fn page_links(page: &Page, marked: Option<ego_tree::NodeId>) -> Vec<String> {
    let root = marked
        .and_then(|id| page.tree.get(id))
        .and_then(ElementRef::wrap)
        .unwrap_or_else(|| page.root_element());
    let Ok(anchors) = Selector::parse("a[href]") else {
        return Vec::new();
    };
    root.select(&anchors)
        .filter(|a| {
            !a.ancestors()
                .filter_map(|n| n.value().as_element())
                .any(is_hidden_or_chrome)
                && !is_permalink(**a)
        })
        .filter_map(|a| a.value().attr("href"))
        .take(super::links::MAX_LINKS * 4)
        .map(str::to_string)
        .collect()
}

/// What Readability found.
struct Main {
    byline: Option<String>,
    published: Option<String>,
    lang: Option<String>,
    text: String,
}

/// Containers that sites mark as their main content, most specific first.
const MAIN_CONTAINERS: &[&str] = &[
    "[role='main']",
    "main",
    "article",
    "#main-content",
    "#content",
    "div.body",
    "div.document",
    "#contents",
];

/// Class and id words of page furniture that Readability would keep: it
/// is removed before Readability reads the page.
const FURNITURE_WORDS: &[&str] = &[
    "nav",
    "navbar",
    "navigation",
    "menu",
    "mainmenu",
    "submenu",
    "sidebar",
    "rightsidebar",
    "breadcrumb",
    "breadcrumbs",
    "cookie",
    "banner",
    "tagline",
    "skip",
    "toc",
];

/// Page furniture removed from the tree before Readability reads it:
/// `nav`, `footer`, `aside`, `form` and `menu` elements, chrome roles, and
/// elements whose class or id names them furniture (a site's tagline or
/// menu bar). Nothing that holds the marked main content is removed.
fn strip_chrome(page: &mut Page, keep: Option<ego_tree::NodeId>) {
    let main_and_above: std::collections::HashSet<ego_tree::NodeId> = keep
        .and_then(|id| page.tree.get(id))
        .map(|n| {
            std::iter::once(n)
                .chain(n.ancestors())
                .map(|a| a.id())
                .collect()
        })
        .unwrap_or_default();
    let holds_main = |node: ego_tree::NodeRef<'_, Node>| main_and_above.contains(&node.id());
    let furniture: Vec<ego_tree::NodeId> = page
        .tree
        .root()
        .descendants()
        .filter(|n| n.value().as_element().is_some_and(is_furniture))
        .filter(|n| !holds_main(*n))
        .map(|n| n.id())
        .collect();
    for id in furniture {
        if let Some(mut node) = page.tree.get_mut(id) {
            node.detach();
        }
    }
}

fn is_furniture(e: &scraper::node::Element) -> bool {
    ["nav", "footer", "aside", "form", "menu"].contains(&e.name())
        || has_chrome_role(e)
        || is_named(e, FURNITURE_WORDS)
}

fn has_chrome_role(e: &scraper::node::Element) -> bool {
    e.attr("role").is_some_and(|r| CHROME_ROLES.contains(&r))
}

/// Whether a word of the element's class or id (split at spaces, `-` and
/// `_`) is one of `words`.
fn is_named(e: &scraper::node::Element, words: &[&str]) -> bool {
    let named = |value: &str| {
        value
            .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
            .any(|w| words.contains(&w.to_ascii_lowercase().as_str()))
    };
    e.attr("class").is_some_and(named) || e.attr("id").is_some_and(named)
}

/// The one element the page marks as its main content, if any.
fn marked_main(page: &Page) -> Option<ElementRef<'_>> {
    MAIN_CONTAINERS.iter().find_map(|s| {
        let selector = Selector::parse(s).ok()?;
        let mut found = page.select(&selector);
        let first = found.next()?;
        found.next().is_none().then_some(first)
    })
}

/// The article of the page, as cleaned Markdown; None when there is none.
/// When the page marks its main content, Readability reads only that (a
/// documentation page whose body is mostly a table of contents would
/// otherwise lose to its footer); each candidate selection is tried and
/// the one that keeps more prose wins. When Readability keeps less than a
/// third of the prose left after the furniture is gone (it chose one
/// section of a long chapter), the container, or the whole page, is taken.
fn main_content(marked: Option<ElementRef<'_>>, page: &Page) -> Option<Main> {
    let html = match marked {
        Some(main) => format!("<html><body>{}</body></html>", main.html()),
        None => page.html(),
    };
    let best = [
        CandidateSelectMode::Readability,
        CandidateSelectMode::DomSmoothie,
    ]
    .into_iter()
    .filter_map(|mode| readability(&html, mode))
    .max_by_key(|m| prose_letters(&m.text))?;
    let (whole, share) = match marked {
        Some(main) => (visible_markdown(main), 2),
        None => (visible_markdown(page.root_element()), 3),
    };
    // Menus left in are short lines and do not count as prose.
    let dropped_most = prose_letters(&best.text) * share < prose_letters(&whole);
    let started_late =
        marked.is_some() && prose_letters_before(&whole, &best.text) >= STARTED_LATE_LETTERS;
    if dropped_most || started_late {
        Some(Main {
            text: whole,
            ..best
        })
    } else {
        Some(best)
    }
}

fn readability(html: &str, mode: CandidateSelectMode) -> Option<Main> {
    let config = Config {
        text_mode: TextMode::Markdown,
        candidate_select_mode: mode,
        max_elements_to_parse: 200_000,
        ..Config::default()
    };
    let mut readability = Readability::new(html, None, Some(config)).ok()?;
    let article = readability.parse().ok()?;
    let clean = |s: Option<String>| s.map(|s| one_line(&s)).filter(|s| !s.is_empty());
    Some(Main {
        byline: clean(article.byline),
        published: clean(article.published_time),
        lang: clean(article.lang),
        text: clean_markdown(&article.text_content),
    })
}

/// Prose of a marked container ahead of where Readability's article
/// starts that is worth more than a paragraph: Readability chose a later
/// section and the container is taken whole.
const STARTED_LATE_LETTERS: usize = 200;

/// Letters of prose lines in `whole` before the line where `article`'s
/// first prose line is found (0 when it is not found).
fn prose_letters_before(whole: &str, article: &str) -> usize {
    let key = |line: &str| -> String {
        line.chars()
            .filter(|c| c.is_alphanumeric())
            .take(40)
            .collect()
    };
    let Some(first) = prose_lines(article).next().map(key) else {
        return 0;
    };
    let mut before = 0;
    for line in prose_lines(whole) {
        let flat: String = line.chars().filter(|c| c.is_alphanumeric()).collect();
        if flat.contains(&first) {
            return before;
        }
        before += letters(line);
    }
    0
}

/// Letters in prose lines: a measure of prose that a list of links or a
/// footer scores low on.
fn prose_letters(text: &str) -> usize {
    prose_lines(text).map(letters).sum()
}

/// Lines of at least eight words outside code blocks.
fn prose_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut in_code = false;
    text.lines().filter(move |l| {
        if l.trim_start().starts_with("```") {
            in_code = !in_code;
            return false;
        }
        !in_code && l.split_whitespace().count() >= 8
    })
}

/// Metadata from the page's head.
#[derive(Default)]
struct Meta {
    title: Option<String>,
    author: Option<String>,
    published: Option<String>,
    lang: Option<String>,
}

fn page_metadata(page: &Page, main: Option<ElementRef<'_>>) -> Meta {
    let first = |selector: &str, attr: Option<&str>| -> Option<String> {
        let selector = Selector::parse(selector).ok()?;
        let element = page.select(&selector).next()?;
        let value = match attr {
            Some(a) => element.value().attr(a)?.to_string(),
            None => element.text().collect(),
        };
        Some(one_line(&value)).filter(|v| !v.is_empty())
    };
    let title =
        first("title", None).or_else(|| first("meta[property='og:title']", Some("content")));
    let heading_in_main = main.and_then(|m| {
        let selector = Selector::parse("h1").ok()?;
        let h1 = m.select(&selector).next()?;
        Some(one_line(&h1.text().collect::<String>()))
    });
    let heading = heading_in_main
        .or_else(|| first("h1", None))
        .map(|h| h.trim_end_matches(['¶', '#', '§', ' ']).trim().to_string());
    let title = match (title, heading) {
        (Some(t), Some(h)) => Some(own_title(&t, &h)),
        (t, h) => t.or(h).filter(|t| !t.is_empty()),
    };
    Meta {
        title,
        author: first("meta[name='author']", Some("content"))
            .or_else(|| first("meta[name='dc.creator']", Some("content"))),
        published: first("meta[property='article:published_time']", Some("content"))
            .or_else(|| first("meta[name='date']", Some("content")))
            .or_else(|| first("meta[name='dc.date']", Some("content")))
            .or_else(|| first("time[datetime]", Some("datetime"))),
        lang: first("html[lang]", Some("lang")),
    }
}

/// The page's own title from its `<title>` and its first heading: the
/// heading when the title is it plus the site's name ("Classes — Python
/// documentation" and "Classes"), the title's first part when the heading
/// is the site's name ("Assert | Node.js docs" and "Node.js docs"), else
/// the whole title.
fn own_title(title: &str, heading: &str) -> String {
    let lower = |s: &str| s.to_lowercase();
    let mut parts: Vec<&str> = vec![title];
    for separator in [" | ", " — ", " – ", " - ", " :: ", " · "] {
        parts = parts.iter().flat_map(|p| p.split(separator)).collect();
    }
    let parts: Vec<&str> = parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let parts: Vec<&str> = if parts.is_empty() { vec![title] } else { parts };
    let heading_l = lower(heading);
    if heading.is_empty() || parts.len() < 2 {
        return title.to_string();
    }
    if lower(parts[0]).contains(&heading_l) || heading_l.contains(&lower(parts[0])) {
        return heading.to_string();
    }
    if parts[1..].iter().any(|p| lower(p) == heading_l) {
        return parts[0].to_string();
    }
    title.to_string()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn letters(text: &str) -> usize {
    text.chars().filter(|c| c.is_alphabetic()).count()
}

/// A tag found by scanning the source without parsing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagKind {
    /// An opening tag of an element that can hold others.
    Open,
    Close,
    /// Void and self-closed tags, comments, doctypes, a stray `<`.
    Other,
}

/// The tags of `source` as (byte range, kind), found by a rough scan (a
/// `<` up to the next `>`): enough to measure and cap nesting before the
/// parser sees the page.
fn scan_tags(source: &str) -> impl Iterator<Item = (std::ops::Range<usize>, TagKind)> + '_ {
    const VOID: &[&str] = &[
        "br", "img", "hr", "meta", "link", "input", "area", "base", "col", "embed", "source",
        "track", "wbr", "param",
    ];
    let mut at = 0;
    std::iter::from_fn(move || {
        let start = at + source[at..].find('<')?;
        let inner = start + 1;
        let end = source[inner..]
            .find('>')
            .map_or(source.len(), |i| inner + i + 1);
        at = end;
        let tag = source[inner..end].trim_end_matches('>');
        let kind = if let Some(closing) = tag.strip_prefix('/') {
            if closing.is_empty() {
                TagKind::Other
            } else {
                TagKind::Close
            }
        } else if tag.starts_with(['!', '?']) || tag.ends_with('/') {
            TagKind::Other
        } else {
            let name: String = tag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect::<String>()
                .to_ascii_lowercase();
            if name.is_empty() || VOID.contains(&name.as_str()) {
                TagKind::Other
            } else {
                TagKind::Open
            }
        };
        Some((start..end, kind))
    })
}

/// How deeply tags nest, roughly (void and self-closed tags do not count).
fn tag_depth(source: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for (_, kind) in scan_tags(source) {
        match kind {
            TagKind::Open => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            TagKind::Close => depth = depth.saturating_sub(1),
            TagKind::Other => {}
        }
    }
    deepest
}

/// The page with every tag nested deeper than `limit` taken out (a space
/// in its place), its text kept. An HTML parser checks the stack of open
/// elements for each tag, so a page nested 200,000 deep costs it quadratic
/// time; flattened, any page parses in time that grows with its size.
fn flatten_deep(source: &str, limit: usize) -> Cow<'_, str> {
    if tag_depth(source) <= limit {
        return Cow::Borrowed(source);
    }
    let mut out = String::with_capacity(source.len());
    let (mut depth, mut copied) = (0usize, 0usize);
    for (range, kind) in scan_tags(source) {
        let drop = match kind {
            TagKind::Open => {
                depth += 1;
                depth > limit
            }
            TagKind::Close => {
                depth = depth.saturating_sub(1);
                depth >= limit
            }
            TagKind::Other => false,
        };
        if drop {
            out.push_str(&source[copied..range.start]);
            out.push(' ');
            copied = range.end;
        }
    }
    out.push_str(&source[copied..]);
    Cow::Owned(out)
}

/// Readability's Markdown made plain: link targets, images, permalink marks
/// and Markdown escapes removed, navigation lines dropped, code blocks kept
/// as they are.
pub(crate) fn clean_markdown(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut in_code = false;
    let mut menu: Vec<String> = Vec::new();
    for line in markdown.lines() {
        let item = !in_code && is_menu_item(line);
        if !item && !menu.is_empty() {
            flush_menu(&mut out, &mut menu);
        }
        if item {
            menu.push(strip_links(line).0.trim_end().to_string());
            continue;
        }
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            out.push_str(line.trim_end());
            out.push('\n');
            continue;
        }
        if in_code {
            out.push_str(line.trim_end());
            out.push('\n');
            continue;
        }
        let (plain, linked) = strip_links(line);
        if is_navigation(line, &plain, linked) || is_empty_item(&plain) {
            continue;
        }
        out.push_str(plain.trim_end());
        out.push('\n');
    }
    flush_menu(&mut out, &mut menu);
    out
}

/// A list marker with nothing after it (its links were dropped).
fn is_empty_item(plain: &str) -> bool {
    matches!(plain.trim(), "-" | "*" | "+")
}

/// A list item that is only a short link: `- [Home](index.html)`.
fn is_menu_item(line: &str) -> bool {
    let trimmed = line.trim_start();
    let Some(body) = trimmed
        .strip_prefix("- ")
        .or_else(|| trimmed.strip_prefix("* "))
    else {
        return false;
    };
    let (plain, linked) = strip_links(body);
    let words = plain.split_whitespace().count();
    linked > 0 && linked + 1 >= plain.trim().chars().count() && words <= 4
}

/// Three or more menu items in a row are a menu: dropped. Fewer stay.
fn flush_menu(out: &mut String, menu: &mut Vec<String>) {
    if menu.len() < 3 {
        for item in menu.iter() {
            out.push_str(item);
            out.push('\n');
        }
    }
    menu.clear();
}

/// The line with `![alt](src)` removed and `[text](target)` replaced by its
/// text (permalink marks dropped); also how many characters of text were
/// inside links.
fn strip_links(line: &str) -> (String, usize) {
    let mut out = String::with_capacity(line.len());
    let mut linked = 0;
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let image = open > 0 && rest[..open].ends_with('!');
        out.push_str(&rest[..if image { open - 1 } else { open }]);
        let after = &rest[open + 1..];
        match link_parts(after) {
            Some((text, consumed)) => {
                let text = text.trim();
                if !image && !matches!(text, "¶" | "#" | "§" | "") {
                    let (inner, _) = strip_links(text);
                    linked += inner.chars().count();
                    out.push_str(&inner);
                }
                rest = &after[consumed..];
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    (unescape(&out), linked)
}

/// `text](target)` at the start of `s`: the text and the bytes used.
fn link_parts(s: &str) -> Option<(&str, usize)> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            ']' => {
                let tail = &s[i + 1..];
                let target = tail.strip_prefix('(')?;
                let close = target.find(')')?;
                return Some((&s[..i], i + 2 + close + 1));
            }
            _ => {}
        }
    }
    None
}

/// Markdown escapes (`X11\_fonts`) undone.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|n| n.is_ascii_punctuation()) {
            continue;
        }
        out.push(c);
    }
    out
}

/// A line that only moves around the site: mostly link text and not a
/// list item, or a "Next / Previous / Up" bar.
fn is_navigation(raw: &str, plain: &str, linked: usize) -> bool {
    let words: String = plain.chars().filter(|c| c.is_alphanumeric()).collect();
    if words.is_empty() {
        return !raw.trim().is_empty() && !raw.trim_start().starts_with(['|', '-', '>', '#']);
    }
    let stripped = plain
        .trim()
        .trim_start_matches(['*', '_'])
        .to_ascii_lowercase();
    if [
        "next:",
        "previous:",
        "prev:",
        "up:",
        "next ",
        "previous ",
        "« ",
        "‹ ",
    ]
    .iter()
    .any(|p| stripped.starts_with(p))
        && linked > 0
    {
        return true;
    }
    let heading = raw.trim_start().starts_with('#');
    let list_item = raw.trim_start().starts_with(['-', '*', '+'])
        || raw
            .trim_start()
            .split_once(". ")
            .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty());
    let text_chars = plain.trim().chars().count().max(1);
    !heading
        && !list_item
        && linked * 10 >= text_chars * 6
        && plain.split_whitespace().count() <= 20
}

/// The visible text under `root` as cleaned Markdown: what Readability's
/// Markdown would be, with menus and navigation lines dropped the same way.
fn visible_markdown(root: ElementRef<'_>) -> String {
    let mut text = String::new();
    visible_text(root, &mut text, Walk::Content);
    clean_markdown(&text)
}

/// For a page that is nothing but chrome (a site map, a menu): all its
/// visible text, menus included, as the best text it has.
fn everything_visible(source: &str) -> String {
    let page = Page::parse_document(source);
    let mut text = String::new();
    visible_text(page.root_element(), &mut text, Walk::Everything);
    let lines: Vec<String> = text
        .lines()
        .map(|l| strip_links(l).0.trim().to_string())
        .filter(|l| !matches!(l.as_str(), "" | "-"))
        .collect();
    lines.join("\n")
}

/// What a walk of the visible text leaves out.
#[derive(Clone, Copy, PartialEq)]
enum Walk {
    /// Hidden elements, chrome and permalink marks.
    Content,
    /// Hidden elements only.
    Everything,
}

/// The visible text under `root` as Markdown (headings, list items, links,
/// code blocks), walked with an explicit stack (never recursion), leaving
/// out hidden elements, chrome and permalink marks.
fn visible_text(root: ElementRef<'_>, out: &mut String, walk: Walk) {
    enum Step<'a> {
        Enter(ego_tree::NodeRef<'a, Node>, usize),
        Leave(&'static str),
    }
    let mut stack: Vec<Step<'_>> = root.children().rev().map(|c| Step::Enter(c, 1)).collect();
    while let Some(step) = stack.pop() {
        let (node, depth) = match step {
            Step::Leave(close) => {
                out.push_str(close);
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
                let left_out = match walk {
                    Walk::Content => is_hidden_or_chrome(e) || is_permalink(node),
                    Walk::Everything => is_hidden(e),
                };
                if depth > MAX_DEPTH || left_out {
                    continue;
                }
                let name = e.name();
                if name == "pre" {
                    let code: String = ElementRef::wrap(node)
                        .map(|el| el.text().collect())
                        .unwrap_or_default();
                    out.push_str("\n```\n");
                    out.push_str(code.trim_end());
                    out.push_str("\n```\n");
                    continue;
                }
                let (open, close) = match name {
                    _ if is_credit(e) => ("\n", "\n"),
                    "h1" => ("\n# ", "\n"),
                    "h2" => ("\n## ", "\n"),
                    "h3" => ("\n### ", "\n"),
                    "h4" | "h5" | "h6" => ("\n#### ", "\n"),
                    "li" => ("\n- ", "\n"),
                    "a" if e.attr("href").is_some() => ("[", "](#)"),
                    _ if BLOCKS.contains(&name) => ("\n", "\n"),
                    _ => ("", ""),
                };
                out.push_str(open);
                if !close.is_empty() {
                    stack.push(Step::Leave(close));
                }
                stack.extend(node.children().rev().map(|c| Step::Enter(c, depth + 1)));
            }
            _ => {}
        }
    }
}

/// A title page's credit set as a heading (DocBook's `<h3 class="author">`):
/// a name, not a section.
fn is_credit(e: &scraper::node::Element) -> bool {
    const CREDITS: [&str; 5] = ["author", "corpauthor", "editor", "othercredit", "copyright"];
    matches!(e.name(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
        && e.classes()
            .any(|c| CREDITS.iter().any(|k| c.eq_ignore_ascii_case(k)))
}

/// A link that only marks its heading: `¶`, `#`, `§`.
fn is_permalink(node: ego_tree::NodeRef<'_, Node>) -> bool {
    let Some(link) = ElementRef::wrap(node).filter(|e| e.value().name() == "a") else {
        return false;
    };
    let text: String = link.text().collect();
    matches!(text.trim(), "¶" | "#" | "§")
}

fn is_hidden(e: &scraper::node::Element) -> bool {
    HIDDEN.contains(&e.name())
        || e.attr("hidden").is_some()
        || e.attr("aria-hidden") == Some("true")
}

fn is_hidden_or_chrome(e: &scraper::node::Element) -> bool {
    is_hidden(e) || CHROME.contains(&e.name()) || has_chrome_role(e) || is_named(e, CHROME_WORDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_styles_and_chrome_are_left_out_of_the_fallback_walk() {
        let html = b"<html><head><title> The  Page </title><style>p{}</style></head>\
            <body><nav><a href='/'>Home</a> | <a href='/about'>About</a></nav>\
            <script>var x = 1;</script><h1>Heading</h1><p>First <b>bold</b> words.</p>\
            <p hidden>secret</p><noscript>enable js</noscript>\
            <div class='theme-popup'>Keyboard shortcuts</div><footer>Copyright</footer></body></html>";
        let doc = Html.extract(html, None).unwrap();
        assert_eq!(doc.tags.first("title"), Some("The Page"));
        let text = crate::document::tidy(&doc.text);
        assert_eq!(text, "# Heading\n\nFirst bold words.");
    }

    #[test]
    fn markdown_loses_targets_images_permalinks_and_navigation() {
        let md = "[![next](next.png)](n2.html) [![up](up.png)](n1.html)\n\
                  **Next:** [Steps](n3.html) **Up:** [Plots](n1.html)\n\
                  ## Synopsis[¶](#synopsis \"Permalink\")\n\
                  ### [Slicing Strings](#slicing-strings)\n\
                  See [the manual](m.html) for X11\\_fonts and more words here.\n\
                  - [Item one](a.html)\n\
                  ```\nlet x = [1](2);\n```\n";
        assert_eq!(
            clean_markdown(md),
            "## Synopsis\n### Slicing Strings\nSee the manual for X11_fonts and more words here.\n- Item one\n```\nlet x = [1](2);\n```\n"
        );
    }

    #[test]
    fn the_own_title_drops_the_site_name() {
        assert_eq!(
            own_title("9. Classes — Python 3.11.2 documentation", "9. Classes"),
            "9. Classes"
        );
        assert_eq!(
            own_title(
                "Assert | Node.js v18.20.4 Documentation",
                "Node.js v18.20.4 documentation"
            ),
            "Assert"
        );
        assert_eq!(
            own_title("Functions - The Rust Programming Language", "Functions"),
            "Functions"
        );
        assert_eq!(own_title("About SQLite", "Something else"), "About SQLite");
        assert_eq!(
            own_title("Tide Tables for Port Ellen", "Tide tables"),
            "Tide Tables for Port Ellen"
        );
    }

    /// A page nested `levels` deep with a numbered word at every level.
    fn nested(levels: usize) -> String {
        let mut html = String::from("<p>top</p>");
        for i in 0..levels {
            html.push_str(&format!("<div>w{i} "));
        }
        html.push_str("bottom");
        html.push_str(&"</div>".repeat(levels));
        html.push_str("<p>after</p>");
        html
    }

    #[test]
    fn deep_nesting_keeps_every_word_and_costs_time_that_grows_with_size() {
        for levels in [20_000, 200_000] {
            let html = nested(levels);
            assert!(tag_depth(&html) > MAX_READABILITY_DEPTH);
            let started = std::time::Instant::now();
            let doc = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || Html.extract(html.as_bytes(), None))
                .unwrap()
                .join()
                .expect("no stack overflow")
                .unwrap();
            let words: Vec<&str> = doc.text.split_whitespace().collect();
            for word in ["top", "w0", "w383", "w384", "bottom", "after"] {
                assert!(words.contains(&word), "{levels} levels: {word} is lost");
            }
            let last = format!("w{}", levels - 1);
            assert!(words.contains(&last.as_str()), "{levels}: {last}");
            println!("{levels} levels: {:?}", started.elapsed());
        }
    }

    #[test]
    fn flattening_takes_out_only_the_tags_below_the_limit() {
        let html = "<div><div><b>a</b><div>b<div>c</div>d</div></div>e</div><p>f</p>";
        assert_eq!(flatten_deep(html, 9), html);
        assert_eq!(
            flatten_deep(html, 2),
            "<div><div> a  b c d </div>e</div><p>f</p>"
        );
        assert_eq!(tag_depth(&flatten_deep(html, 2)), 2);
    }
}
