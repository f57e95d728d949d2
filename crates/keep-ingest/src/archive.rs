//! Office documents are ZIP archives of XML (DOCX, PPTX, ODT, ODP): the
//! archive is checked before anything is inflated (a file that would
//! inflate past a fixed size, or by an absurd ratio, is refused as a zip
//! bomb), its XML entries are read with their nesting bounded, and their
//! text is walked as events (quick-xml, already in the build through
//! docx-rs; no tree is built, so a large deck costs one pass).

use std::borrow::Cow;
use std::io::{Cursor, Read};

use quick_xml::events::Event;

use crate::error::Result;
use crate::error::bad;

/// Most bytes an archive may inflate to.
const MAX_INFLATED: u64 = 512 * 1024 * 1024;
/// Most an entry may inflate relative to its compressed size.
const MAX_RATIO: u64 = 200;
const MAX_ENTRIES: usize = 10_000;
/// Deepest element nesting of an XML entry read; deeper is refused before
/// any parser sees it.
pub const MAX_DEPTH: usize = 256;

/// A checked archive of one office format.
pub struct Archive<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    what: &'static str,
}

impl<'a> Archive<'a> {
    /// Opens `bytes` as an archive of the format `what` ("DOCX"), refusing
    /// zip bombs.
    pub fn open(bytes: &'a [u8], what: &'static str) -> Result<Self> {
        let unreadable =
            |e: zip::result::ZipError| bad(format!("is not a readable {what} archive ({e})"));
        let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(unreadable)?;
        if zip.len() > MAX_ENTRIES {
            return Err(bad(format!("has {} archive entries; refused", zip.len())));
        }
        let mut total = 0u64;
        for i in 0..zip.len() {
            let entry = zip.by_index_raw(i).map_err(unreadable)?;
            total = total.saturating_add(entry.size());
            let ratio = entry.size() / entry.compressed_size().max(1);
            if entry.size() > 1024 * 1024 && ratio > MAX_RATIO {
                return Err(bad(format!(
                    "looks like a zip bomb ({} inflates {ratio}-fold); refused",
                    entry.name()
                )));
            }
        }
        if total > MAX_INFLATED {
            return Err(bad(format!(
                "would inflate to {total} bytes (a zip bomb?); {what} files over {MAX_INFLATED} bytes unpacked are refused"
            )));
        }
        Ok(Archive { zip, what })
    }

    /// The XML entry `name` as text; None when the archive has no such
    /// entry. Refused when it nests deeper than `MAX_DEPTH`.
    pub fn xml(&mut self, name: &str) -> Result<Option<String>> {
        let what = self.what;
        let mut entry = match self.zip.by_name(name) {
            Ok(entry) => entry,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(bad(format!("is not a readable {what} archive ({e})"))),
        };
        let mut xml = String::new();
        entry
            .by_ref()
            .take(MAX_INFLATED)
            .read_to_string(&mut xml)
            .map_err(|e| bad(format!("is not a readable {what} archive ({name}: {e})")))?;
        if xml_depth(xml.as_bytes()).map_err(|e| bad(e.to_string()))? > MAX_DEPTH {
            return Err(bad(format!(
                "nests its XML over {MAX_DEPTH} elements deep; refused"
            )));
        }
        Ok(Some(xml))
    }
}

/// One step through an XML document's content.
pub enum Step<'x> {
    /// An element opens (or is empty, followed by its `End`); its local
    /// name and its attributes by qualified name.
    Start(Vec<u8>, Vec<(Vec<u8>, String)>),
    End(Vec<u8>),
    Text(Cow<'x, str>),
}

/// Walks `xml`, calling `f` for each element, its end and each piece of
/// text (entities resolved); `what` names the format in errors.
pub fn walk(xml: &str, what: &str, mut f: impl FnMut(Step<'_>)) -> Result<()> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let broken = |e: &dyn std::fmt::Display| bad(format!("is not a readable {what} ({e})"));
    loop {
        match reader.read_event().map_err(|e| broken(&e))? {
            Event::Start(e) => f(Step::Start(
                e.local_name().as_ref().to_vec(),
                attributes(&e, reader.decoder()),
            )),
            Event::Empty(e) => {
                let name = e.local_name().as_ref().to_vec();
                f(Step::Start(name.clone(), attributes(&e, reader.decoder())));
                f(Step::End(name));
            }
            Event::End(e) => f(Step::End(e.local_name().as_ref().to_vec())),
            Event::Text(t) => f(Step::Text(t.decode().map_err(|e| broken(&e))?)),
            Event::CData(t) => f(Step::Text(t.decode().map_err(|e| broken(&e))?)),
            Event::GeneralRef(r) => {
                let text = match r.resolve_char_ref().map_err(|e| broken(&e))? {
                    Some(c) => c.to_string(),
                    None => match r.decode().map_err(|e| broken(&e))?.as_ref() {
                        "amp" => "&".into(),
                        "lt" => "<".into(),
                        "gt" => ">".into(),
                        "quot" => "\"".into(),
                        "apos" => "'".into(),
                        _ => String::new(),
                    },
                };
                f(Step::Text(text.into()));
            }
            Event::Eof => return Ok(()),
            _ => {}
        }
    }
}

fn attributes(
    e: &quick_xml::events::BytesStart<'_>,
    decoder: quick_xml::encoding::Decoder,
) -> Vec<(Vec<u8>, String)> {
    e.attributes()
        .flatten()
        .map(|a| {
            let value = a
                .decoded_and_normalized_value(quick_xml::XmlVersion::Implicit1_0, decoder)
                .map(Cow::into_owned)
                .unwrap_or_default();
            (a.key.as_ref().to_vec(), value)
        })
        .collect()
}

/// The value of the attribute named `name`: a qualified name (`r:id`)
/// matches exactly, a local name (`outline-level`) whatever its prefix.
pub fn attribute<'v>(attrs: &'v [(Vec<u8>, String)], name: &str) -> Option<&'v str> {
    let local = |k: &[u8]| k.rsplit(|&b| b == b':').next().unwrap_or(k) == name.as_bytes();
    attrs
        .iter()
        .find(|(k, _)| k == name.as_bytes() || (!name.contains(':') && local(k)))
        .map(|(_, v)| v.as_str())
}

/// The text of the first `<name ...>text</name>` in `xml`, unescaped.
pub fn xml_element(xml: &str, name: &str) -> Option<String> {
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

/// The deepest element nesting of an XML stream, read in one pass without
/// parsing (tags opened, closed and self-closed; comments, declarations and
/// processing instructions ignored). Stops counting past `MAX_DEPTH + 1`.
pub fn xml_depth(mut xml: impl Read) -> std::io::Result<usize> {
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
