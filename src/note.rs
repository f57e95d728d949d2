//! The note model: ids, tags, and the `@V{N}` / `@P{N}` selectors that
//! address a version or a part of a note, with their parsing and validation.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::time::Timestamp;

/// Longest id accepted, in bytes.
/// System tag on notes whose watched file was deleted; the value is when.
pub const DELETED_KEY: &str = "_deleted";
pub const MAX_ID_BYTES: usize = 1024;
/// Longest tag key accepted, in bytes.
pub const MAX_TAG_KEY_BYTES: usize = 128;
/// Longest tag value accepted, in bytes.
pub const MAX_TAG_VALUE_BYTES: usize = 1024;

/// The id of the working-intentions note.
pub const NOW_ID: &str = "now";

/// Hex digest of the sha256 of `bytes`.
pub fn content_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The id of inline text: `%` and the first 12 hex digits of its sha256.
pub fn inline_id(text: &str) -> String {
    format!("%{}", &content_hash(text.as_bytes())[..12])
}

/// Ids starting with `.` are system notes, hidden unless asked for.
pub fn is_system_id(id: &str) -> bool {
    id.starts_with('.')
}

/// Checks that `id` can name a note.
pub fn validate_id(id: &str) -> Result<()> {
    if id.is_empty() {
        return Err(Error::invalid("an id cannot be empty"));
    }
    if id.len() > MAX_ID_BYTES {
        return Err(Error::invalid(format!(
            "id is {} bytes long; the limit is {MAX_ID_BYTES}",
            id.len()
        )));
    }
    if id.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "id {} contains a control character",
            escape(id)
        )));
    }
    if id.trim() != id {
        return Err(Error::invalid(format!(
            "id {} starts or ends with whitespace",
            escape(id)
        )));
    }
    if split_selector(id).is_some() {
        return Err(Error::invalid(format!(
            "id '{id}' ends with a version or part selector; choose another id"
        )));
    }
    Ok(())
}

/// Quotes a string for a message; control characters are shown escaped.
fn escape(s: &str) -> String {
    if s.chars().any(char::is_control) {
        format!("{s:?}")
    } else {
        format!("'{s}'")
    }
}

/// Which state of a note an argument addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selector {
    /// `@V{N}`: 0 current, 1 previous, negative counts from the oldest.
    Version(i64),
    /// `@P{N}`: the N-th part, from 1.
    Part(u32),
}

/// An id as typed by the user, possibly with a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteRef {
    pub id: String,
    pub selector: Option<Selector>,
}

impl NoteRef {
    pub fn plain(id: impl Into<String>) -> Self {
        NoteRef {
            id: id.into(),
            selector: None,
        }
    }

    /// Parses `ID`, `ID@V{N}` or `ID@P{N}`. The literal string is not looked
    /// up here; callers that can see the store try it first.
    pub fn parse(text: &str) -> Result<Self> {
        match split_selector(text) {
            None => Ok(NoteRef::plain(text)),
            Some((id, kind, inner)) => {
                let selector = parse_selector(kind, inner).ok_or_else(|| {
                    Error::invalid(format!(
                        "malformed selector in '{text}': expected {}",
                        if kind == 'V' {
                            "@V{N} with an integer N (0 current, 1 previous, -1 oldest)"
                        } else {
                            "@P{N} with N from 1"
                        }
                    ))
                })?;
                Ok(NoteRef {
                    id: id.to_string(),
                    selector: Some(selector),
                })
            }
        }
    }
}

impl std::fmt::Display for NoteRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.selector {
            None => write!(f, "{}", self.id),
            Some(Selector::Version(n)) => write!(f, "{}@V{{{n}}}", self.id),
            Some(Selector::Part(n)) => write!(f, "{}@P{{{n}}}", self.id),
        }
    }
}

/// Splits `ID@V{...}` / `ID@P{...}` into (id, 'V' or 'P', inner text).
fn split_selector(text: &str) -> Option<(&str, char, &str)> {
    let body = text.strip_suffix('}')?;
    let open = body.rfind('{')?;
    let head = &body[..open];
    let inner = &body[open + 1..];
    let (id, kind) = if let Some(id) = head.strip_suffix("@V") {
        (id, 'V')
    } else if let Some(id) = head.strip_suffix("@P") {
        (id, 'P')
    } else {
        return None;
    };
    if id.is_empty() {
        return None;
    }
    Some((id, kind, inner))
}

fn parse_selector(kind: char, inner: &str) -> Option<Selector> {
    match kind {
        'V' => inner.parse::<i64>().ok().map(Selector::Version),
        _ => inner
            .parse::<u32>()
            .ok()
            .filter(|n| *n >= 1)
            .map(Selector::Part),
    }
}

/// Multi-valued tags: each key holds a sorted set of values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Tags(BTreeMap<String, BTreeSet<String>>);

impl Tags {
    pub fn new() -> Self {
        Tags::default()
    }

    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.0.entry(key.into()).or_default().insert(value.into());
    }

    /// Removes every value of `key`; true if it had any.
    pub fn remove_key(&mut self, key: &str) -> bool {
        self.0.remove(key).is_some()
    }

    /// Removes one value; true if it was there.
    pub fn remove_value(&mut self, key: &str, value: &str) -> bool {
        let Some(values) = self.0.get_mut(key) else {
            return false;
        };
        let removed = values.remove(value);
        if values.is_empty() {
            self.0.remove(key);
        }
        removed
    }

    pub fn values(&self, key: &str) -> impl Iterator<Item = &str> {
        self.0.get(key).into_iter().flatten().map(String::as_str)
    }

    pub fn first(&self, key: &str) -> Option<&str> {
        self.values(key).next()
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    pub fn contains(&self, key: &str, value: &str) -> bool {
        self.0.get(key).is_some_and(|v| v.contains(value))
    }

    /// Every (key, value) pair, keys and values in sorted order.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0
            .iter()
            .flat_map(|(k, vs)| vs.iter().map(move |v| (k.as_str(), v.as_str())))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.values().map(BTreeSet::len).sum()
    }

    /// Adds every pair of `other`.
    pub fn merge(&mut self, other: &Tags) {
        for (k, v) in other.pairs() {
            self.insert(k, v);
        }
    }

    /// The user's tags: every key not starting with `_`.
    pub fn user_tags(&self) -> Tags {
        Tags(
            self.0
                .iter()
                .filter(|(k, _)| !is_system_key(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }
}

impl FromIterator<(String, String)> for Tags {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        let mut tags = Tags::new();
        for (k, v) in iter {
            tags.insert(k, v);
        }
        tags
    }
}

/// Keys starting with `_` belong to keep.
pub fn is_system_key(key: &str) -> bool {
    key.starts_with('_')
}

/// The one system tag a user may write: `_inverse` on a `.tag/KEY` note,
/// which declares KEY an edge and names its inverse.
pub const INVERSE_KEY: &str = "_inverse";

/// Checks a tag key's syntax (not whether the user may write it).
pub fn validate_tag_key(key: &str, arg: &str) -> Result<()> {
    if key.is_empty() {
        return Err(Error::invalid(format!("bad tag '{arg}': the key is empty")));
    }
    if key.len() > MAX_TAG_KEY_BYTES {
        return Err(Error::invalid(format!(
            "bad tag '{arg}': the key is over {MAX_TAG_KEY_BYTES} bytes"
        )));
    }
    if key
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '=')
    {
        return Err(Error::invalid(format!(
            "bad tag {}: a key cannot contain whitespace, '=' or control characters",
            escape(arg)
        )));
    }
    Ok(())
}

fn validate_tag_value(value: &str, arg: &str) -> Result<()> {
    if value.is_empty() {
        return Err(Error::invalid(format!(
            "bad tag '{arg}': the value is empty (use key=value)"
        )));
    }
    if value.len() > MAX_TAG_VALUE_BYTES {
        return Err(Error::invalid(format!(
            "bad tag '{arg}': the value is over {MAX_TAG_VALUE_BYTES} bytes"
        )));
    }
    if value.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "bad tag {}: the value contains a control character",
            escape(arg)
        )));
    }
    Ok(())
}

/// Parses `key=value` as written by a user: system keys are refused.
pub fn parse_user_tag(arg: &str) -> Result<(String, String)> {
    let (key, value) = arg
        .split_once('=')
        .ok_or_else(|| Error::invalid(format!("bad tag '{arg}': expected key=value")))?;
    validate_tag_key(key, arg)?;
    validate_tag_value(value, arg)?;
    if is_system_key(key) && key != INVERSE_KEY {
        return Err(Error::invalid(format!(
            "bad tag '{arg}': keys starting with '_' are set by keep, not by users"
        )));
    }
    Ok((key.to_string(), value.to_string()))
}

/// Decodes `%XX` escapes (as in URIs); None when the result is not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 3 <= bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// Parses a list of user tags (`key=value` each).
pub fn parse_user_tags<S: AsRef<str>>(args: &[S]) -> Result<Tags> {
    let mut tags = Tags::new();
    for arg in args {
        let (k, v) = parse_user_tag(arg.as_ref())?;
        tags.insert(k, v);
    }
    Ok(tags)
}

/// A tag filter: `key` (has the key) or `key=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagFilter {
    pub key: String,
    pub value: Option<String>,
}

impl TagFilter {
    /// Parses a filter; `_` keys are allowed because filters only read.
    pub fn parse(arg: &str) -> Result<Self> {
        match arg.split_once('=') {
            Some((key, value)) => {
                validate_tag_key(key, arg)?;
                validate_tag_value(value, arg)?;
                Ok(TagFilter {
                    key: key.to_string(),
                    value: Some(value.to_string()),
                })
            }
            None => {
                validate_tag_key(arg, arg)?;
                Ok(TagFilter {
                    key: arg.to_string(),
                    value: None,
                })
            }
        }
    }

    pub fn matches(&self, tags: &Tags) -> bool {
        match &self.value {
            None => tags.contains_key(&self.key),
            Some(v) => tags.contains(&self.key, v),
        }
    }
}

/// The current state of a note.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub id: String,
    pub summary: String,
    pub tags: Tags,
    pub content_hash: Option<String>,
    pub created: Timestamp,
    pub updated: Timestamp,
    pub accessed: Timestamp,
}

/// An archived state of a note. `seq` counts from 1 (the oldest).
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    pub seq: i64,
    pub summary: String,
    pub tags: Tags,
    pub content_hash: Option<String>,
    pub created: Timestamp,
    pub updated: Timestamp,
}

/// A part of a long note, numbered from 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub number: u32,
    pub summary: String,
    pub tags: Tags,
}

/// A link from one note to another, made by an edge tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The tag key, for example `author`.
    pub key: String,
    /// The name of the link seen from the target, for example `authored`.
    pub inverse: String,
    pub source: String,
    pub target: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding_keeps_stray_percents() {
        assert_eq!(percent_decode("a%2Fb%20c").as_deref(), Some("a/b c"));
        assert_eq!(percent_decode("%abc12").as_deref(), None);
        assert_eq!(percent_decode("100%").as_deref(), Some("100%"));
        assert_eq!(percent_decode("%zz%4").as_deref(), Some("%zz%4"));
        assert_eq!(percent_decode("%C3%BC").as_deref(), Some("ü"));
    }

    #[test]
    fn inline_ids_are_percent_and_twelve_hex_digits() {
        let id = inline_id("hello");
        assert_eq!(id, "%2cf24dba5fb0");
    }

    #[test]
    fn selectors_parse() {
        assert_eq!(
            NoteRef::parse("a@V{1}").unwrap().selector,
            Some(Selector::Version(1))
        );
        assert_eq!(
            NoteRef::parse("a@V{-2}").unwrap().selector,
            Some(Selector::Version(-2))
        );
        assert_eq!(
            NoteRef::parse("file:///x@P{3}").unwrap(),
            NoteRef {
                id: "file:///x".into(),
                selector: Some(Selector::Part(3))
            }
        );
        assert_eq!(NoteRef::parse("a@V1").unwrap(), NoteRef::plain("a@V1"));
        assert!(NoteRef::parse("a@V{x}").is_err());
        assert!(NoteRef::parse("a@P{0}").is_err());
        assert!(NoteRef::parse("a@P{-1}").is_err());
    }

    #[test]
    fn user_tags_refuse_system_keys_and_bad_syntax() {
        assert_eq!(
            parse_user_tag("topic=rust").unwrap(),
            ("topic".into(), "rust".into())
        );
        assert_eq!(parse_user_tag("a=b=c").unwrap(), ("a".into(), "b=c".into()));
        assert!(parse_user_tag("_source=x").is_err());
        assert!(parse_user_tag("novalue").is_err());
        assert!(parse_user_tag("=v").is_err());
        assert!(parse_user_tag("k=").is_err());
        assert!(parse_user_tag("a b=c").is_err());
        assert!(parse_user_tag("k=a\nb").is_err());
    }

    #[test]
    fn ids_are_validated() {
        assert!(validate_id("plain-name").is_ok());
        assert!(validate_id("").is_err());
        assert!(validate_id("a\u{7}b").is_err());
        assert!(validate_id(&"x".repeat(1025)).is_err());
        assert!(validate_id(&"x".repeat(1024)).is_ok());
        assert!(validate_id("a@V{1}").is_err());
    }

    #[test]
    fn tags_hold_several_values_per_key() {
        let mut t = Tags::new();
        t.insert("topic", "b");
        t.insert("topic", "a");
        t.insert("topic", "a");
        assert_eq!(t.values("topic").collect::<Vec<_>>(), ["a", "b"]);
        assert!(t.remove_value("topic", "a"));
        assert!(!t.remove_value("topic", "a"));
        assert!(t.remove_value("topic", "b"));
        assert!(t.is_empty());
    }
}
