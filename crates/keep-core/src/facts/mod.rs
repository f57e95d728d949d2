//! Whether new text states the same fact as a note, another value of the
//! same fact, or something else: the verdict `put` gives text against the
//! notes nearest in meaning. Pure functions over two texts and the cosine
//! of their embeddings; the thresholds live in `recall::weights`.
//!
//! Two texts state the same fact only when they state the same details
//! (numbers with their units, dates, days, times, versions, identifiers,
//! names), neither negates what the other says, and the new one says
//! nothing the old one does not. Embeddings barely see a changed digit, so
//! they only decide how alike the rest reads.

mod details;
pub(crate) mod words;

use std::collections::{BTreeMap, BTreeSet};

pub use details::{Detail, Key, details};

use crate::recall::weights::{
    RESTATEMENT_COVERAGE, RESTATEMENT_SIMILARITY, UPDATE_SIMILARITY, UPDATE_SUBJECT_SIMILARITY,
};

/// What new text is to an old note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It says what the note says, in other words.
    Same,
    /// It is about what the note is about, with another value (a detail
    /// changed, negated, or added): probably the note's successor.
    Update,
    /// Another fact.
    Different,
}

/// A verdict and what tells the two texts apart, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub verdict: Verdict,
    /// Each difference as one phrase: "30 seconds -> 30 minutes",
    /// "'not' added", "adds 'vault'".
    pub differences: Vec<String>,
}

/// The thresholds of a verdict; `Thresholds::default()` holds keep's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// Cosine from which agreeing words and details make a restatement.
    pub restatement: f64,
    /// Share of the old text's content words the new one must say.
    pub coverage: f64,
    /// Cosine from which a text with another detail is a probable update.
    pub update: f64,
    /// ...or from this cosine when the two share most of their words.
    pub update_subject: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            restatement: RESTATEMENT_SIMILARITY,
            coverage: RESTATEMENT_COVERAGE,
            update: UPDATE_SIMILARITY,
            update_subject: UPDATE_SUBJECT_SIMILARITY,
        }
    }
}

/// Judges `new` against `old`, whose embeddings have cosine `similarity`.
pub fn judge(old: &str, new: &str, similarity: f64) -> Judgement {
    judge_with(old, new, similarity, &Thresholds::default())
}

/// `judge` with other thresholds (for calibration).
pub fn judge_with(old: &str, new: &str, similarity: f64, t: &Thresholds) -> Judgement {
    let mut differences = detail_differences(old, new);
    differences.extend(polarity_differences(old, new));
    let contents = Contents::of(old, new);
    if !differences.is_empty() {
        let verdict = if about_the_same(similarity, &contents, t) {
            Verdict::Update
        } else {
            Verdict::Different
        };
        return Judgement {
            verdict,
            differences,
        };
    }
    if !contents.added.is_empty() {
        return Judgement {
            verdict: if about_the_same(similarity, &contents, t) {
                Verdict::Update
            } else {
                Verdict::Different
            },
            differences: vec![contents.difference()],
        };
    }
    let restates = similarity >= t.restatement && contents.coverage() >= t.coverage;
    Judgement {
        verdict: if restates {
            Verdict::Same
        } else {
            Verdict::Different
        },
        differences: Vec::new(),
    }
}

/// Whether two texts with different details are about one subject: they
/// read very alike, or alike enough and share most of their words.
fn about_the_same(similarity: f64, contents: &Contents, t: &Thresholds) -> bool {
    similarity >= t.update || (similarity >= t.update_subject && contents.share_subject())
}

/// The details one text states and the other does not, paired as
/// "old -> new" where both have some.
fn detail_differences(old: &str, new: &str) -> Vec<String> {
    let (old_details, new_details) = (details(old), details(new));
    let only_old = unmatched(&old_details, &new_details, new);
    let only_new = unmatched(&new_details, &old_details, old);
    match (only_old.is_empty(), only_new.is_empty()) {
        (true, true) => Vec::new(),
        (false, false) => vec![format!(
            "{} -> {}",
            only_old.join(", "),
            only_new.join(", ")
        )],
        (true, false) => vec![format!("adds {}", only_new.join(", "))],
        (false, true) => vec![format!("drops {}", only_old.join(", "))],
    }
}

/// Details of `these` that neither equal one of `those` nor, for names
/// and identifiers, appear among the words of `other` (lower-case, at a
/// sentence start, in another form, or abbreviated).
fn unmatched(these: &[Detail], those: &[Detail], other: &str) -> Vec<String> {
    let other_stems: BTreeSet<String> = words::tokens(other)
        .iter()
        .map(|t| words::stem(&t.text))
        .chain(words::all_stems(other))
        .collect();
    let mut out: Vec<String> = Vec::new();
    for d in these {
        if those.iter().any(|t| t.key == d.key) {
            continue;
        }
        if d.key.is_word_like() && word_appears(d, &other_stems, other) {
            continue;
        }
        if !out.contains(&d.text) {
            out.push(d.text.clone());
        }
    }
    out
}

fn word_appears(detail: &Detail, other_stems: &BTreeSet<String>, other: &str) -> bool {
    let word = match &detail.key {
        Key::Identifier(w) | Key::Name(w) => w.as_str(),
        _ => return false,
    };
    let stem = words::stem(word);
    if other_stems.contains(&stem) || other_stems.iter().any(|s| words::synonyms(s, &stem)) {
        return true;
    }
    let parts: Vec<&str> = word.split('-').collect();
    let hyphenated_words = parts.len() > 1
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(char::is_alphabetic));
    if hyphenated_words && parts.iter().all(|p| other_stems.contains(&words::stem(p))) {
        return true;
    }
    words::abbreviates(word, other) || same_path_in(word, other) || path_named_in(word, other)
}

/// Whether the file a path (a/b/c) names is said in words by the other
/// text: every segment after its first folder ("debian/watch" and "the
/// watch file", "d/upstream/metadata" and "upstream metadata").
fn path_named_in(path: &str, other: &str) -> bool {
    if !words::is_path(path) {
        return false;
    }
    let said: BTreeSet<String> = other
        .split_whitespace()
        .filter(|t| !t.contains('/'))
        .flat_map(words::plain_words)
        .map(|w| words::stem(&w))
        .collect();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segments[1..].iter().all(|segment| {
        words::plain_words(segment)
            .iter()
            .all(|w| said.contains(&words::stem(w)))
    })
}

/// Whether `path` (a/b/c) is written in `other` with its folders
/// shortened or spelled out: `d/control` and `debian/control`.
fn same_path_in(path: &str, other: &str) -> bool {
    let segments: Vec<&str> = path.split('/').collect();
    if segments.len() < 2 {
        return false;
    }
    words::tokens(other).iter().any(|t| {
        let theirs: Vec<String> = t
            .text
            .to_lowercase()
            .split('/')
            .map(str::to_string)
            .collect();
        theirs.len() == segments.len()
            && theirs.iter().zip(&segments).all(|(a, b)| {
                a == b
                    || (a.len() == 1 && b.starts_with(a.as_str()))
                    || (b.len() == 1 && a.starts_with(b))
            })
    })
}

/// A negation or an opposite that one text says of what the other says.
fn polarity_differences(old: &str, new: &str) -> Vec<String> {
    if let Some((was, is)) = words::opposite_words(old, new) {
        return vec![format!("'{was}' -> '{is}'")];
    }
    if let Some(negation) = words::negates(new, old) {
        return vec![format!("'{negation}' added")];
    }
    if let Some(negation) = words::negates(old, new) {
        return vec![format!("'{negation}' dropped")];
    }
    Vec::new()
}

/// The content words of two texts: what the new one adds (not said by
/// the old, nor a word of the same meaning, nor vague), and what both say.
struct Contents {
    old: BTreeSet<String>,
    new: BTreeSet<String>,
    /// Words of the new text the old does not say, as written.
    added: Vec<String>,
    /// Words of the old text the new one does not say, as written.
    dropped: Vec<String>,
}

impl Contents {
    fn of(old: &str, new: &str) -> Self {
        let old_stems = content_stems(old);
        let new_stems = content_stems(new);
        let only_old: Vec<&String> = old_stems.difference(&new_stems).collect();
        let only_new: Vec<&String> = new_stems.difference(&old_stems).collect();
        let unmatched = |these: &[&String], own: &str, other: &str| -> Vec<String> {
            let written = written_forms(own);
            these
                .iter()
                .filter(|s| !words::is_vague(s))
                .filter(|s| !words::said_in(s, own, other))
                .map(|s| written.get(*s).cloned().unwrap_or_else(|| (*s).clone()))
                .collect()
        };
        let mut added = unmatched(&only_new, new, old);
        let dropped = unmatched(&only_old, old, new);
        if dropped.is_empty() && names_the_occurrence(old, new, &added) {
            added.clear();
        }
        let keep = |set: BTreeSet<String>| {
            set.into_iter()
                .filter(|s| !words::is_vague(s))
                .collect::<BTreeSet<_>>()
        };
        Contents {
            old: keep(old_stems),
            new: keep(new_stems),
            added,
            dropped,
        }
    }

    /// What the new text says that the old does not: "adds 'vault'", or
    /// "'ana' -> 'anna'" when it says it instead of something.
    fn difference(&self) -> String {
        let quoted = |words: &[String]| {
            words
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if self.dropped.is_empty() {
            format!("adds {}", quoted(&self.added))
        } else {
            format!("{} -> {}", quoted(&self.dropped), quoted(&self.added))
        }
    }

    /// How much of what the old text says the new one says too: a short
    /// text is not a restatement of a long one that says much more.
    fn coverage(&self) -> f64 {
        if self.old.is_empty() {
            return 1.0;
        }
        self.new.len() as f64 / self.old.len() as f64
    }

    /// Whether the two share at least half the words of the shorter.
    fn share_subject(&self) -> bool {
        let shared = self.old.intersection(&self.new).count();
        shared > 0 && shared * 2 >= self.old.len().min(self.new.len())
    }
}

/// Whether the one word `new` adds (saying nothing less) names what `old`
/// only says happens:
/// "planning takes place in room 4B" / "the planning meeting is in room
/// 4B", "deploys happen every Tuesday" / "we deploy every Tuesday".
fn names_the_occurrence(old: &str, new: &str, added: &[String]) -> bool {
    added.len() == 1 && words::says_occurrence(old) && !words::says_occurrence(new)
}

/// Each content stem of `text` with the word it came from.
fn written_forms(text: &str) -> BTreeMap<String, String> {
    let mut forms = BTreeMap::new();
    for w in words::plain_words(text) {
        forms.entry(words::stem(&w)).or_insert(w);
    }
    forms
}

/// Stems of the words that carry content: not function words, light
/// verbs, negations, numbers or the words of a detail (units, months,
/// days).
fn content_stems(text: &str) -> BTreeSet<String> {
    words::plain_words(&words::without_path_roots(text))
        .iter()
        .filter(|w| {
            !keep_ingest::summarize::is_stopword(w)
                && !words::is_light_verb(w)
                && !words::is_negation(w)
                && !details::is_detail_word(w)
                && !w.chars().any(|c| c.is_ascii_digit())
        })
        .map(|w| words::stem(w))
        .collect()
}

#[cfg(test)]
mod tests;
