//! Conflicts: two live notes that look like two values for one subject
//! (two Wi-Fi passwords, two launch dates). Pairs `put` linked with
//! `may-supersede`, then pairs found among the newest notes by their
//! vectors and the same verdict `put` gives. Notes still waiting for their
//! vector get one here, as `put`'s check gives them, when the model is
//! installed (it is loaded only then). Resolving one is a `supersede` of
//! the older by the newer.

use keep_store::prelude::*;
use std::collections::{HashMap, HashSet};

use super::Keeper;
use super::truth::{cosine, tags_contradict, written_as_text};
use crate::error::Result;
use crate::facts::{self, Verdict};
use crate::recall::candidates;
use crate::recall::fusion::roll_up;
use keep_model::{ListOrder, Note, NoteFilter, PageFrom, keys};
use keep_store::Embedded;
use keep_store::NoteReads;
use keep_store::{Db, NoteRid, VecRow};

/// Newest notes whose neighbours are compared.
const SCANNED: usize = 2_000;
/// Neighbours by meaning compared with each.
const NEIGHBOURS: usize = 5;
/// Notes waiting for their vector that get one to be compared; more wait
/// for the background embedder.
const WAITING_EMBEDDED: usize = 256;

/// Vectors made here for notes still waiting for theirs.
type Made = HashMap<NoteRid, Vec<f32>>;

/// Two live notes that say different things of one subject.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Conflict {
    /// The note written last.
    pub newer: String,
    pub older: String,
    /// What tells them apart ("30 seconds -> 30 minutes").
    pub differences: Vec<String>,
    /// Cosine similarity of their vectors, when both have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// True when `put` linked them (`may-supersede`) as it stored the newer.
    pub linked: bool,
}

/// How far conflicts are looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Pairs `put` linked (`may-supersede`) only: a read of tags.
    Linked,
    /// Those, then each note's nearest by meaning (a search each).
    Nearest,
}

impl Keeper {
    /// The conflicts among live notes passing `filter`, newest first.
    pub fn conflicts(&mut self, filter: &NoteFilter, limit: usize) -> Result<Vec<Conflict>> {
        self.conflicts_reaching(filter, limit, Reach::Nearest)
    }

    /// The conflicts `put` linked as it stored the newer note, among live
    /// notes passing `filter`, newest first: what `conflicts` finds first,
    /// without a search for each note.
    pub fn linked_conflicts(&mut self, filter: &NoteFilter, limit: usize) -> Result<Vec<Conflict>> {
        self.conflicts_reaching(filter, limit, Reach::Linked)
    }

    fn conflicts_reaching(
        &mut self,
        filter: &NoteFilter,
        limit: usize,
        reach: Reach,
    ) -> Result<Vec<Conflict>> {
        let filter = NoteFilter {
            hide_superseded: true,
            ..self.scoped_now(filter)
        };
        let newest = self.store.reads().list_notes_from(
            &filter,
            ListOrder::Updated,
            &PageFrom::First,
            Some(SCANNED),
        )?;
        let newest: Vec<Note> = newest
            .into_iter()
            .filter(|n| written_as_text(&n.tags))
            .collect();
        let made = match reach {
            Reach::Nearest => self.vectors_of_waiting(&newest)?,
            Reach::Linked => Made::new(),
        };
        let db = self.store.reads();
        let mut seen: HashSet<(String, String)> = HashSet::new();
        let mut out = Vec::new();
        for note in &newest {
            for (older, linked) in candidates(&db, note, &filter, &made, reach)? {
                if out.len() >= limit {
                    return Ok(out);
                }
                let (newer, older) = ordered(&db, note, &older)?;
                if !seen.insert((newer.id.clone(), older.id.clone())) {
                    continue;
                }
                if let Some(conflict) = judged(&db, newer, older, linked, &made)? {
                    out.push(conflict);
                }
            }
        }
        Ok(out)
    }

    /// Vectors made now for the notes among `notes` still waiting for
    /// theirs (the first `WAITING_EMBEDDED`); none when nothing waits or
    /// no model is installed.
    fn vectors_of_waiting(&mut self, notes: &[Note]) -> Result<Made> {
        if self.model_id().is_err() {
            return Ok(Made::new());
        }
        let waiting: Vec<(NoteRid, &str)> = {
            let db = self.store.reads();
            let mut waiting = Vec::new();
            for note in notes {
                if waiting.len() == WAITING_EMBEDDED {
                    break;
                }
                if let Some(rid) = db.note_rid(&note.id)?
                    && db.vector(VecRow::Note(rid))?.is_none()
                {
                    waiting.push((rid, note.summary.as_str()));
                }
            }
            waiting
        };
        if waiting.is_empty() {
            return Ok(Made::new());
        }
        let texts: Vec<&str> = waiting.iter().map(|(_, text)| *text).collect();
        let Ok(embedder) = self.embedder() else {
            return Ok(Made::new());
        };
        let vectors = embedder.embed(&texts)?;
        Ok(waiting
            .into_iter()
            .map(|(rid, _)| rid)
            .zip(vectors)
            .collect())
    }
}

/// The vector of a note: stored, or made here while it waits.
fn vector_of(db: &Db<'_>, rid: NoteRid, made: &Made) -> Result<Option<Vec<f32>>> {
    Ok(match db.vector(VecRow::Note(rid))? {
        Some(v) => Some(v),
        None => made.get(&rid).cloned(),
    })
}

/// Notes that may conflict with `note`: those it is linked to by
/// `may-supersede`, then (reaching `Nearest`) its nearest by meaning
/// (and, for a note waiting for its vector, the waiting notes its words
/// lead to, which no nearest search sees), all passing `filter`.
fn candidates(
    db: &Db<'_>,
    note: &Note,
    filter: &NoteFilter,
    made: &Made,
    reach: Reach,
) -> Result<Vec<(Note, bool)>> {
    let mut rids: Vec<(NoteRid, bool)> = Vec::new();
    for id in note.tags.values(keys::MAY_SUPERSEDE) {
        if let Some(rid) = db.note_rid(id)? {
            rids.push((rid, true));
        }
    }
    let Some(own) = db.note_rid(&note.id)? else {
        return Ok(Vec::new());
    };
    if reach == Reach::Nearest {
        let add = |rid: NoteRid, rids: &mut Vec<(NoteRid, bool)>| {
            if rid != own && !rids.iter().any(|(r, _)| *r == rid) {
                rids.push((rid, false));
            }
        };
        if let Some(vector) = vector_of(db, own, made)? {
            for (rid, _) in db.nearest_notes(&vector, NEIGHBOURS + 1)? {
                add(rid, &mut rids);
            }
        }
        if made.contains_key(&own) {
            let worded = roll_up(&candidates::keyword(db, &note.summary, filter)?);
            for ranked in worded.iter().filter(|r| made.contains_key(&r.rid)) {
                add(ranked.rid, &mut rids);
            }
        }
    }
    let ids: Vec<NoteRid> = rids.iter().map(|(r, _)| *r).collect();
    let mut passing = db.notes_passing(&ids, filter)?;
    Ok(rids
        .into_iter()
        .filter_map(|(rid, linked)| passing.remove(&rid).map(|n| (n, linked)))
        .filter(|(n, _)| written_as_text(&n.tags) && !tags_contradict(&note.tags, &n.tags))
        .collect())
}

/// The pair newer first: the one `put` linked to the other, else the one
/// updated last (stored last, at the same time).
fn ordered<'a>(db: &Db<'_>, a: &'a Note, b: &'a Note) -> Result<(&'a Note, &'a Note)> {
    if a.tags.contains(keys::MAY_SUPERSEDE, &b.id) {
        return Ok((a, b));
    }
    if b.tags.contains(keys::MAY_SUPERSEDE, &a.id) {
        return Ok((b, a));
    }
    let stored = |n: &Note| -> Result<(keep_model::time::Timestamp, Option<NoteRid>)> {
        Ok((n.updated, db.note_rid(&n.id)?))
    };
    Ok(if stored(a)? >= stored(b)? {
        (a, b)
    } else {
        (b, a)
    })
}

/// The conflict of `newer` with `older`, when `put`'s verdict on them is
/// a probable update (always, for a pair `put` linked, unless the texts
/// no longer differ).
fn judged(
    db: &Db<'_>,
    newer: &Note,
    older: &Note,
    linked: bool,
    made: &Made,
) -> Result<Option<Conflict>> {
    let vector = |id: &str| -> Result<Option<Vec<f32>>> {
        match db.note_rid(id)? {
            Some(rid) => vector_of(db, rid, made),
            None => Ok(None),
        }
    };
    let similarity = match (vector(&newer.id)?, vector(&older.id)?) {
        (Some(a), Some(b)) => Some(cosine(&a, &b)),
        _ => None,
    };
    let judgement = facts::judge(&older.summary, &newer.summary, similarity.unwrap_or(1.0));
    let conflicts = match judgement.verdict {
        Verdict::Update => true,
        Verdict::Different | Verdict::Same => linked && !judgement.differences.is_empty(),
    };
    Ok(conflicts.then(|| Conflict {
        newer: newer.id.clone(),
        older: older.id.clone(),
        differences: judgement.differences,
        similarity: similarity.map(|s| (s * 1000.0).round() / 1000.0),
        linked,
    }))
}
