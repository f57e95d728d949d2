//! The `@V{N}` / `@P{N}` selectors that address a version or a part of a
//! note, and `NoteRef`, an id as typed with its selector.

use crate::error::{Invalid, Result};

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
                    Invalid::new(format!(
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
pub(crate) fn split_selector(text: &str) -> Option<(&str, char, &str)> {
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

#[cfg(test)]
mod tests {
    use super::*;
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
}
