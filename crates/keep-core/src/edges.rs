//! Edges: tags whose key is an edge key link a note to the note named by
//! the value. Built-in keys plus keys declared by `.tag/KEY` notes carrying
//! `_inverse=NAME`. Read by recall (to walk links) and by the keeper (to
//! keep them in step with tags).

use keep_store::prelude::*;
use std::collections::HashMap;

use keep_model::{Edge, Note, keys};
use keep_store::{Db, NoteReads};

use crate::error::Result;

/// Built-in edge keys and the names of their inverses.
pub const BUILTIN_EDGES: &[(&str, &str)] = &[
    ("references", "referenced-by"),
    ("author", "authored"),
    ("speaker", "spoke"),
    ("from", "sent"),
    ("to", "received"),
    (keys::IN_REPLY_TO, "replies"),
    (keys::LINKS_TO, "linked-from"),
    (keys::SUPERSEDES, "superseded-by"),
    (keys::MAY_SUPERSEDE, "may-be-superseded-by"),
];

pub(crate) const TAG_NOTE_PREFIX: &str = ".tag/";

pub(crate) struct EdgeKeys(HashMap<String, String>);

impl EdgeKeys {
    pub(crate) fn load(db: &Db<'_>) -> Result<Self> {
        let mut map: HashMap<String, String> = BUILTIN_EDGES
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        for (key, inverse) in db.declared_edge_keys()? {
            if !in_trash(db, &format!("{TAG_NOTE_PREFIX}{key}"))? {
                map.insert(key, inverse);
            }
        }
        Ok(EdgeKeys(map))
    }

    pub(crate) fn is_edge(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    pub(crate) fn inverse(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// Links made by the edge tags of `note`: none while it is in the
    /// trash.
    pub(crate) fn edges_of(&self, note: &Note) -> Vec<Edge> {
        if note.tags.contains_key(keys::DELETED) {
            return Vec::new();
        }
        note.tags
            .pairs()
            .filter_map(|(k, v)| {
                self.inverse(k).map(|inverse| Edge {
                    key: k.to_string(),
                    inverse: inverse.to_string(),
                    source: note.id.clone(),
                    target: v.to_string(),
                })
            })
            .collect()
    }

    /// Links from other notes into `id`.
    pub(crate) fn edges_into(&self, db: &Db<'_>, id: &str) -> Result<Vec<Edge>> {
        Ok(db
            .edges_to(id)?
            .into_iter()
            .map(|(key, source)| Edge {
                inverse: self.inverse(&key).unwrap_or(&key).to_string(),
                key,
                source,
                target: id.to_string(),
            })
            .collect())
    }
}

/// Whether note `id` is in the trash.
pub(crate) fn in_trash(db: &Db<'_>, id: &str) -> Result<bool> {
    Ok(db
        .note(id)?
        .is_some_and(|(_, n)| n.tags.contains_key(keys::DELETED)))
}
