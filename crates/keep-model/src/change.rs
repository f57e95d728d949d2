//! What a version changed compared with the state before it: the summary,
//! the content, tags added and removed; or that it created the note.

use serde::Serialize;

use super::tags::Tags;

/// One state of a note, as far as a change is concerned.
#[derive(Debug, Clone, Copy)]
pub struct StateRef<'a> {
    pub summary: &'a str,
    pub tags: &'a Tags,
    pub content_hash: Option<&'a str>,
}

/// The difference between a state and the one before it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Change {
    /// The first state of the note: nothing came before it.
    pub created: bool,
    /// The summary differs from the one before.
    pub summary: bool,
    /// The content (its hash) differs: a file or text was stored again.
    pub content: bool,
    /// Tags this state has that the one before did not.
    pub tags_added: Tags,
    /// Tags the state before had that this one does not.
    pub tags_removed: Tags,
}

impl Change {
    /// What `after` changed compared with `before` (None: it created the note).
    pub fn between(before: Option<StateRef<'_>>, after: StateRef<'_>) -> Change {
        let Some(before) = before else {
            return Change {
                created: true,
                ..Change::default()
            };
        };
        let only_in = |a: &Tags, b: &Tags| -> Tags {
            a.pairs()
                .filter(|(k, v)| !b.contains(k, v))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        Change {
            created: false,
            summary: before.summary != after.summary,
            content: before.content_hash != after.content_hash,
            tags_added: only_in(after.tags, before.tags),
            tags_removed: only_in(before.tags, after.tags),
        }
    }

    /// True when nothing differs (and it is not the first state).
    pub fn is_empty(&self) -> bool {
        !self.created
            && !self.summary
            && !self.content
            && self.tags_added.is_empty()
            && self.tags_removed.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> Tags {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_tag_only_change_names_the_tags_and_nothing_else() {
        let (a, b) = (
            tags(&[("stage", "1"), ("k", "v")]),
            tags(&[("stage", "2"), ("k", "v")]),
        );
        let state = |t| StateRef {
            summary: "same",
            tags: t,
            content_hash: Some("h"),
        };
        let change = Change::between(Some(state(&a)), state(&b));
        assert!(!change.summary && !change.content && !change.created);
        assert_eq!(change.tags_added, tags(&[("stage", "2")]));
        assert_eq!(change.tags_removed, tags(&[("stage", "1")]));
        assert!(Change::between(None, state(&a)).created);
        assert!(Change::between(Some(state(&a)), state(&a)).is_empty());
    }
}
