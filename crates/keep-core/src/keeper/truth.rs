//! Memories that stay true: near-duplicates found when text is put,
//! notes superseded by their successors, expiry, and feedback.

use super::Keeper;
use super::write::Content;
use crate::error::{Error, Result};
use crate::model::{NoteFilter, Rating, TagFilter, Tags, keys, time::Timestamp};
use crate::recall::weights::{DUPLICATE_CANDIDATES, DUPLICATE_SIMILARITY};
use crate::store::{NoteRid, VecRow};

/// What `put` does with text whose meaning is nearly that of a note
/// already stored in the same scope.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OnDuplicate {
    /// Store it as a note of its own (and do not look).
    #[default]
    Store,
    /// Store nothing and name the existing note.
    Report,
    /// Store it as the next version of the existing note.
    Update,
}

impl OnDuplicate {
    /// What a person or agent asked for: `update` the existing note,
    /// `allow` a second one, or (neither) be told and store nothing.
    pub fn asked(update: bool, allow: bool) -> Self {
        match (update, allow) {
            (true, _) => OnDuplicate::Update,
            (false, true) => OnDuplicate::Store,
            (false, false) => OnDuplicate::Report,
        }
    }
}

/// A note whose meaning is nearly that of new text.
#[derive(Debug, Clone, PartialEq)]
pub struct Duplicate {
    pub id: String,
    /// Cosine similarity of the two summaries.
    pub similarity: f64,
}

/// The embedding of text about to be stored, and the note it duplicates.
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
    /// Embeds the summary `content` would get and looks for a live note
    /// written as text (not a file or page) that means nearly the same and
    /// whose tags do not contradict `tags`. None when no model can be used:
    /// the text is then stored as it would be without the check.
    pub(super) fn probe_duplicate(
        &mut self,
        summary: &str,
        tags: &Tags,
        within: &[TagFilter],
    ) -> Result<Option<Probe>> {
        match self.ensure_vector_space() {
            Ok(_) => {}
            Err(
                Error::ModelUnavailable(_) | Error::ModelMismatch(_) | Error::ReadOnlyStore { .. },
            ) => {
                return Ok(None);
            }
            Err(e) => return Err(e),
        }
        let Some(vector) = self.embedder()?.embed(&[summary])?.pop() else {
            return Ok(None);
        };
        let duplicate =
            self.nearest_duplicate(summary, &vector, tags, within, DUPLICATE_SIMILARITY)?;
        Ok(Some(Probe {
            summary: summary.to_string(),
            vector,
            duplicate,
        }))
    }

    /// The note written as text nearest in meaning to `text`, live and with
    /// tags that agree with `tags`, however far: what the duplicate check
    /// compares with its threshold (for calibrating it).
    pub fn closest_restatement(&mut self, text: &str, tags: &Tags) -> Result<Option<Duplicate>> {
        let summary = crate::summarize::summarize(text);
        let Some(vector) = self.embedder()?.embed(&[summary.as_str()])?.pop() else {
            return Ok(None);
        };
        self.nearest_duplicate(&summary, &vector, tags, &[], f64::NEG_INFINITY)
    }

    fn nearest_duplicate(
        &self,
        summary: &str,
        vector: &[f32],
        tags: &Tags,
        within: &[TagFilter],
        min_similarity: f64,
    ) -> Result<Option<Duplicate>> {
        let db = self.store.db();
        let near = db.nearest_notes(vector, DUPLICATE_CANDIDATES)?;
        let rids: Vec<NoteRid> = near.iter().map(|(rid, _)| *rid).collect();
        let filter = NoteFilter {
            hide_superseded: true,
            tags: within.to_vec(),
            ..self.as_of_now(&NoteFilter::default())
        };
        let live = db.notes_passing(&rids, &filter)?;
        Ok(near.into_iter().find_map(|(rid, distance)| {
            let note = live.get(&rid)?;
            let similarity = 1.0 - distance;
            (similarity >= min_similarity
                && written_as_text(&note.tags)
                && !tags_contradict(tags, &note.tags)
                && same_stated_facts(summary, &note.summary))
            .then(|| Duplicate {
                id: note.id.clone(),
                similarity,
            })
        }))
    }

    /// Gives the note just written from a probed text the vector the probe
    /// made, so it does not wait in the backlog.
    pub(super) fn keep_probe_vector(&mut self, id: &str, probe: &Probe) -> Result<()> {
        let bytes = crate::store::vector_bytes(&probe.vector);
        let hash = crate::model::content_hash(probe.summary.as_bytes());
        self.store.write(|db| {
            if let Some(rid) = db.note_rid(id)? {
                db.set_vector(VecRow::Note(rid), &probe.summary, &hash, &bytes)?;
            }
            Ok(())
        })
    }

    /// Records one rating of note `id` and returns its totals; recall
    /// gives rated notes a bounded boost or penalty.
    pub fn rate(&mut self, id: &str, feedback: Feedback) -> Result<Rating> {
        let now = self.now();
        self.store.write(|db| {
            let rid = db.note_rid(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
            db.rate(rid, feedback == Feedback::Useful, now)
        })
    }

    /// How note `id` was rated; zero counts when never.
    pub fn rating(&self, id: &str) -> Result<Rating> {
        let db = self.store.db();
        let rid = db.note_rid(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
        Ok(db.rating(rid)?.unwrap_or_default())
    }
}

/// Tags that `put` adds for `--expires` and `--supersedes`, after checking
/// that each superseded note exists and is not the note itself.
pub(super) fn truth_tags(
    db: &crate::store::Db<'_>,
    content: &Content,
    expires: Option<Timestamp>,
    supersedes: &[String],
) -> Result<Tags> {
    let mut tags = Tags::new();
    if let Some(at) = expires {
        tags.insert(keys::EXPIRES, at.to_string());
    }
    for target in supersedes {
        if *target == content.id {
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

/// Whether two texts that read alike state the same facts: the same
/// numbers, the same named days, and both or neither negated. "Rotates
/// every Monday" and "every Tuesday", "is enabled" and "is not enabled"
/// read almost the same to an embedding and say different things.
fn same_stated_facts(a: &str, b: &str) -> bool {
    numbers(a) == numbers(b) && named_days(a) == named_days(b) && negated(a) == negated(b)
}

const WEEKDAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "today",
    "tomorrow",
    "yesterday",
    "tonight",
];
/// Month names count when capitalised ("May" and "march" are also words).
const MONTHS: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const NEGATIONS: &[&str] = &["not", "no", "never", "cannot", "without", "nor", "none"];

fn text_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
}

/// The days and months a text names, each once, in sorted order.
fn named_days(text: &str) -> Vec<String> {
    let mut days: Vec<String> = text_words(text)
        .filter_map(|w| {
            let lower = w.to_lowercase();
            (WEEKDAYS.contains(&lower.as_str()) || MONTHS.contains(&w)).then_some(lower)
        })
        .collect();
    days.sort();
    days.dedup();
    days
}

/// Whether a text says "not" (or "never", "isn't", ...).
fn negated(text: &str) -> bool {
    text_words(text).any(|w| {
        let lower = w.to_lowercase();
        NEGATIONS.contains(&lower.as_str()) || lower.ends_with("n't")
    })
}

/// The numbers a text states, in order: texts that differ in one (a date,
/// a version, an amount) state different facts however alike they read,
/// and embeddings barely see the difference.
fn numbers(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .collect()
}

fn written_as_text(tags: &Tags) -> bool {
    !tags.contains(keys::SOURCE, "file") && !tags.contains(keys::SOURCE, "url")
}

/// True when a user key of `new` is on `old` with none of the same values:
/// `project=a` and `project=b` are different memories however alike.
fn tags_contradict(new: &Tags, old: &Tags) -> bool {
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
    fn texts_that_differ_in_a_number_state_different_facts() {
        assert_eq!(
            numbers("Deploy v2.3 on 2026-11-30"),
            ["2", "3", "2026", "11", "30"]
        );
        assert_ne!(numbers("Standup at 9:30"), numbers("Standup at 10:30"));
        assert_eq!(numbers("no digits"), Vec::<&str>::new());
    }

    #[test]
    fn texts_that_differ_in_a_day_or_a_negation_state_different_facts() {
        let monday = "The staging password rotates every Monday at 9am.";
        assert!(same_stated_facts(
            monday,
            "Every monday at 9am the staging DB password is rotated."
        ));
        assert!(!same_stated_facts(
            monday,
            "The staging password rotates every Tuesday at 9am."
        ));
        assert!(!same_stated_facts(
            "Release freeze starts in March",
            "Release freeze starts in April"
        ));
        assert!(same_stated_facts(
            "You may march on",
            "You may march on, please"
        ));
        assert!(!same_stated_facts(
            "The cache is enabled in staging",
            "The cache isn't enabled in staging"
        ));
        assert!(!same_stated_facts(
            "The cache is enabled in staging",
            "The cache is never enabled in staging"
        ));
    }

    #[test]
    fn files_and_pages_are_not_duplicates_of_remembered_text() {
        assert!(written_as_text(&tags(&[("_source", "inline")])));
        assert!(!written_as_text(&tags(&[("_source", "file")])));
        assert!(!written_as_text(&tags(&[("_source", "url")])));
    }
}
