//! Tags: multi-valued `key=value` pairs, their parsing and validation as
//! written by users, and tag filters.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::id::escape;
use super::keys::{self, is_system_key};
use crate::error::{Invalid, Result};

/// Longest tag key accepted, in bytes.
pub const MAX_TAG_KEY_BYTES: usize = 128;
/// Longest tag value accepted, in bytes.
pub const MAX_TAG_VALUE_BYTES: usize = 1024;

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

/// In JSON, an object from each key to the array of its values.
impl schemars::JsonSchema for Tags {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Tags".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "additionalProperties": { "type": "array", "items": { "type": "string" } }
        })
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

/// Checks a tag key's syntax (not whether the user may write it).
pub fn validate_tag_key(key: &str, arg: &str) -> Result<()> {
    if key.is_empty() {
        return Err(Invalid::new(format!("bad tag '{arg}': the key is empty")));
    }
    if key.len() > MAX_TAG_KEY_BYTES {
        return Err(Invalid::new(format!(
            "bad tag '{arg}': the key is over {MAX_TAG_KEY_BYTES} bytes"
        )));
    }
    if key
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '=')
    {
        return Err(Invalid::new(format!(
            "bad tag {}: a key cannot contain whitespace, '=' or control characters",
            escape(arg)
        )));
    }
    Ok(())
}

fn validate_tag_value(value: &str, arg: &str) -> Result<()> {
    if value.is_empty() {
        return Err(Invalid::new(format!(
            "bad tag '{arg}': the value is empty (use key=value)"
        )));
    }
    if value.len() > MAX_TAG_VALUE_BYTES {
        return Err(Invalid::new(format!(
            "bad tag '{arg}': the value is over {MAX_TAG_VALUE_BYTES} bytes"
        )));
    }
    if value.chars().any(char::is_control) {
        return Err(Invalid::new(format!(
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
        .ok_or_else(|| Invalid::new(format!("bad tag '{arg}': expected key=value")))?;
    validate_tag_key(key, arg)?;
    validate_tag_value(value, arg)?;
    if is_system_key(key) && key != keys::INVERSE {
        return Err(Invalid::new(format!(
            "bad tag '{arg}': keys starting with '_' are set by keep, not by users"
        )));
    }
    Ok((key.to_string(), value.to_string()))
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

impl std::fmt::Display for TagFilter {
    /// `KEY` or `KEY=VALUE`, as it is given.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.value {
            None => f.write_str(&self.key),
            Some(v) => write!(f, "{}={v}", self.key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
