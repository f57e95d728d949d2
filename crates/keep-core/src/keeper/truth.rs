//! Memories that stay true: near-duplicates found when text is put,
//! notes superseded by their successors, expiry, and feedback.

use keep_store::prelude::*;
use std::collections::HashMap;

use super::Keeper;
use crate::error::{Error, Result, Transactions};
use crate::facts::{self, Verdict};
use crate::recall::candidates;
use crate::recall::fusion::roll_up;
use crate::recall::weights::DUPLICATE_CANDIDATES;
use keep_model::{NoteFilter, Rating, TagFilter, Tags, keys, time::Timestamp};
use keep_store::Embedded;
use keep_store::NoteReads;
use keep_store::{NoteRid, VecRow};

/// What `put` does with text that restates a note, or probably updates
/// one, already stored in the same scope.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OnDuplicate {
    /// Store it as a note of its own (and do not look).
    #[default]
    Store,
    /// Store nothing for a restatement and name the note it restates;
    /// store a probable update as a new note linked to the one it updates.
    Report,
    /// Store it as the next version of the note it restates or updates.
    Update,
}

impl OnDuplicate {
    /// What a person or agent asked for: `update` the existing note,
    /// `allow` a second one, or (neither) be told.
    pub fn asked(update: bool, allow: bool) -> Self {
        match (update, allow) {
            (true, _) => OnDuplicate::Update,
            (false, true) => OnDuplicate::Store,
            (false, false) => OnDuplicate::Report,
        }
    }
}

/// A note that new text restates (`verdict` Same) or probably updates
/// (`verdict` Update).
#[derive(Debug, Clone, PartialEq)]
pub struct Duplicate {
    pub id: String,
    /// Cosine similarity of the two summaries.
    pub similarity: f64,
    pub verdict: Verdict,
    /// What tells the new text from the note ("30 seconds -> 30 minutes").
    pub differences: Vec<String>,
}

/// The embedding of text about to be stored, and the note it restates or
/// updates.
pub(super) struct Probe {
    pub(super) summary: String,
    pub(super) vector: Vec<f32>,
    pub(super) duplicate: Option<Duplicate>,
}

/// A rating given with `rate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feedback {
    Useful,
    Wrong,
}

impl Keeper {
    /// Embeds the summary `content` would get and judges it against the
    /// live notes written as text (not files or pages) nearest in meaning
    /// or sharing its words, whose tags do not contradict `tags`. None when
    /// no model can be used: the text is then stored as it would be
    /// without the check.
    pub(super) fn probe_duplicate(
        &mut self,
        summary: &str,
        tags: &Tags,
        within: &[TagFilter],
    ) -> Result<Option<Probe>> {
        match self.ensure_vector_space() {
            Ok(_) => {}
            Err(e) if e.is_model_off() || e.is_read_only() => {
                return Ok(None);
            }
            Err(e) => return Err(e),
        }
        let Some(vector) = self.embedder()?.embed(&[summary])?.pop() else {
            return Ok(None);
        };
        let duplicate = self.closest_fact(summary, &vector, tags, within)?;
        Ok(Some(Probe {
            summary: summary.to_string(),
            vector,
            duplicate,
        }))
    }

    /// The verdict `put` would give `text` (with `tags`) against the notes
    /// stored: the note it restates or updates, if any.
    pub fn closest_restatement(&mut self, text: &str, tags: &Tags) -> Result<Option<Duplicate>> {
        let summary = keep_ingest::summarize::summarize(text);
        let Some(vector) = self.embedder()?.embed(&[summary.as_str()])?.pop() else {
            return Ok(None);
        };
        self.closest_fact(&summary, &vector, tags, &[])
    }

    /// Judges `summary` against each candidate note: the nearest by
    /// vector and the best keyword matches (which may wait for their
    /// vector: theirs is made here). The restatement most alike wins,
    /// else the probable update most alike.
    fn closest_fact(
        &mut self,
        summary: &str,
        vector: &[f32],
        tags: &Tags,
        within: &[TagFilter],
    ) -> Result<Option<Duplicate>> {
        let filter = NoteFilter {
            hide_superseded: true,
            ..self.scoped_now(&NoteFilter {
                tags: within.to_vec(),
                ..NoteFilter::default()
            })
        };
        let (mut similarity, candidates) = {
            let db = self.store.db();
            let mut similarity: HashMap<NoteRid, f64> = db
                .nearest_notes(vector, DUPLICATE_CANDIDATES)?
                .into_iter()
                .map(|(rid, distance)| (rid, 1.0 - distance))
                .collect();
            let worded: Vec<NoteRid> = roll_up(&candidates::keyword(&db, summary, &filter)?)
                .into_iter()
                .map(|r| r.rid)
                .take(DUPLICATE_CANDIDATES)
                .collect();
            let unseen: Vec<NoteRid> = worded
                .iter()
                .copied()
                .filter(|rid| !similarity.contains_key(rid))
                .collect();
            for (rid, distance) in db.note_distances(vector, &unseen)? {
                similarity.insert(rid, 1.0 - distance);
            }
            let mut rids: Vec<NoteRid> = similarity.keys().copied().collect();
            rids.extend(worded.iter().filter(|r| !similarity.contains_key(r)));
            let live = db.notes_passing(&rids, &filter)?;
            let candidates: Vec<(NoteRid, keep_model::Note)> = live
                .into_iter()
                .filter(|(_, note)| {
                    written_as_text(&note.tags) && !tags_contradict(tags, &note.tags)
                })
                .collect();
            (similarity, candidates)
        };
        let waiting: Vec<&keep_model::Note> = candidates
            .iter()
            .filter(|(rid, _)| !similarity.contains_key(rid))
            .map(|(_, n)| n)
            .collect();
        if !waiting.is_empty() {
            let texts: Vec<&str> = waiting.iter().map(|n| n.summary.as_str()).collect();
            let vectors = self.embedder()?.embed(&texts)?;
            for ((rid, _), v) in candidates
                .iter()
                .filter(|(rid, _)| !similarity.contains_key(rid))
                .zip(vectors)
                .collect::<Vec<_>>()
            {
                similarity.insert(*rid, cosine(vector, &v));
            }
        }
        Ok(best_verdict(summary, &candidates, &similarity))
    }

    /// Gives the note just written from a probed text the vector the probe
    /// made, so it does not wait in the backlog.
    pub(super) fn keep_probe_vector(&mut self, id: &str, probe: &Probe) -> Result<()> {
        let bytes = keep_store::vector_bytes(&probe.vector);
        let hash = keep_model::content_hash(probe.summary.as_bytes());
        self.store.transact(|db| {
            if let Some(rid) = db.note_rid(id)? {
                db.set_vector(VecRow::Note(rid), &probe.summary, &hash, &bytes)?;
            }
            Ok(())
        })
    }

    /// Accepts note `id` as the successor of `olds` (by default, of the
    /// notes it may supersede, as `put` linked them): records
    /// `supersedes=OLD`, so recall hides the old notes, and drops the
    /// `may-supersede` links it answers.
    pub fn supersede(&mut self, id: &str, olds: &[String]) -> Result<super::WriteOutcome> {
        self.may_change(id, "supersede")?;
        let (_, note) = self
            .store
            .db()
            .note(id)?
            .ok_or_else(|| Error::NotFound(id.into()))?;
        let suggested: Vec<String> = note
            .tags
            .values(keys::MAY_SUPERSEDE)
            .map(str::to_string)
            .collect();
        let olds: Vec<String> = if olds.is_empty() {
            suggested.clone()
        } else {
            olds.to_vec()
        };
        if olds.is_empty() {
            return Err(Error::invalid(format!(
                "'{id}' is not linked to a note it may supersede; name the note it replaces"
            )));
        }
        for old in &olds {
            if old == id {
                return Err(Error::invalid(format!("'{id}' cannot supersede itself")));
            }
            if self.store.db().note_rid(old)?.is_none() {
                return Err(Error::NotFound(old.clone()));
            }
            self.may_change(old, "supersede")?;
        }
        let mut edit = super::TagEdit::default();
        for old in &olds {
            edit.add.insert(keys::SUPERSEDES, old.clone());
            if suggested.contains(old) {
                edit.remove_values
                    .push((keys::MAY_SUPERSEDE.to_string(), old.clone()));
            }
        }
        self.tag(id, &edit)
    }

    /// Records one rating of note `id` and returns its totals; recall
    /// gives rated notes a bounded boost or penalty.
    pub fn rate(&mut self, id: &str, feedback: Feedback) -> Result<Rating> {
        self.may_change(id, "rate")?;
        let now = self.now();
        self.store.transact(|db| {
            let rid = db.note_rid(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
            Ok(db.rate(rid, feedback == Feedback::Useful, now)?)
        })
    }

    /// How note `id` was rated; zero counts when never.
    pub fn rating(&self, id: &str) -> Result<Rating> {
        self.may_read(id)?;
        let db = self.store.db();
        let rid = db.note_rid(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
        Ok(db.rating(rid)?.unwrap_or_default())
    }
}

/// Tags that `put` adds for `--expires` and `--supersedes`, after checking
/// that each superseded note exists and is not the note itself.
pub(super) fn truth_tags(
    db: &keep_store::Db<'_>,
    id: &str,
    expires: Option<Timestamp>,
    supersedes: &[String],
) -> Result<Tags> {
    let mut tags = Tags::new();
    if let Some(at) = expires {
        tags.insert(keys::EXPIRES, at.to_string());
    }
    for target in supersedes {
        if *target == id {
            return Err(Error::invalid(format!(
                "'{target}' cannot supersede itself"
            )));
        }
        if db.note_rid(target)?.is_none() {
            return Err(Error::NotFound(target.clone()));
        }
        tags.insert(keys::SUPERSEDES, target.clone());
    }
    Ok(tags)
}

/// The best verdict among `candidates`: the restatement most alike,
/// else the probable update most alike.
fn best_verdict(
    summary: &str,
    candidates: &[(NoteRid, keep_model::Note)],
    similarity: &HashMap<NoteRid, f64>,
) -> Option<Duplicate> {
    let mut judged: Vec<Duplicate> = candidates
        .iter()
        .filter_map(|(rid, note)| {
            let sim = *similarity.get(rid)?;
            let judgement = facts::judge(&note.summary, summary, sim);
            (judgement.verdict != Verdict::Different).then(|| Duplicate {
                id: note.id.clone(),
                similarity: sim,
                verdict: judgement.verdict,
                differences: judgement.differences,
            })
        })
        .collect();
    judged.sort_by(|a, b| {
        (a.verdict != Verdict::Same)
            .cmp(&(b.verdict != Verdict::Same))
            .then(b.similarity.total_cmp(&a.similarity))
            .then(a.id.cmp(&b.id))
    });
    judged.into_iter().next()
}

pub(super) fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let n = norm(a) * norm(b);
    if n > 0.0 { dot / n } else { 0.0 }
}

pub(super) fn written_as_text(tags: &Tags) -> bool {
    !tags.contains(keys::SOURCE, "file") && !tags.contains(keys::SOURCE, "url")
}

/// True when a user key of `new` is on `old` with none of the same values:
/// `project=a` and `project=b` are different memories however alike.
pub(super) fn tags_contradict(new: &Tags, old: &Tags) -> bool {
    new.user_tags()
        .keys()
        .any(|key| old.contains_key(key) && !new.values(key).any(|value| old.contains(key, value)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> Tags {
        let mut t = Tags::new();
        for (k, v) in pairs {
            t.insert(*k, *v);
        }
        t
    }

    #[test]
    fn a_shared_key_with_other_values_contradicts() {
        let old = tags(&[("project", "a"), ("topic", "db")]);
        assert!(tags_contradict(&tags(&[("project", "b")]), &old));
        assert!(!tags_contradict(&tags(&[("project", "a")]), &old));
        assert!(!tags_contradict(&tags(&[("person", "ann")]), &old));
        assert!(!tags_contradict(&Tags::new(), &old));
        assert!(!tags_contradict(&tags(&[("_source", "inline")]), &old));
    }

    #[test]
    fn files_and_pages_are_not_duplicates_of_remembered_text() {
        assert!(written_as_text(&tags(&[("_source", "inline")])));
        assert!(!written_as_text(&tags(&[("_source", "file")])));
        assert!(!written_as_text(&tags(&[("_source", "url")])));
    }
}
