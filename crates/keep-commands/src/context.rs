//! `context`: one block of text for the start of a session, within a
//! token budget: the `now` note, what changed since the caller's last
//! session (notes, what they supersede, conflicts), and the notes most
//! relevant to the project at hand. It is a pure function of the store
//! and its arguments: it records nothing (no access times), its ranking
//! has no wall-clock decay, and each section lists its lines by event
//! time, then address, so the same store gives the same bytes and a
//! changed note changes its own lines (and those the budget then drops or
//! admits).

use std::collections::HashSet;

use keep_core::embed::TokenCounter;
use keep_core::model::keys;
use keep_core::model::time::Timestamp;
use keep_core::model::{ListOrder, Note};
use keep_core::recall::{FindQuery, Hit, Query, RecallMode};
use keep_core::{Error, Keeper, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Command, Filters, wire};

/// The budget unless one is given, in tokens.
pub const DEFAULT_MAX_TOKENS: usize = 1_500;

/// The shares of the budget (after `now`) that changes and conflicts may
/// take before the project's notes have theirs; what these leave, the
/// others may take after.
const CHANGED_SHARE: f64 = 0.4;
const CONFLICTS_SHARE: f64 = 0.1;

/// Notes changed since the last session that are looked at, newest
/// first; conflicts likewise.
const CHANGED_SEEN: usize = 40;
const CONFLICTS_SEEN: usize = 10;
/// Relevant notes looked at, best first.
const RELEVANT_SEEN: usize = 20;
/// A line's text is cut after this many characters.
const LINE_CHARS: usize = 240;

/// What a session should start with: `now`, what changed since the last
/// session, and the notes relevant to the project, within a token budget.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct Context {
    /// The project the session works on; its notes are looked for by
    /// these words (a name, and words of the working folder's path).
    #[serde(default)]
    pub project: Option<String>,
    /// When the caller's last session was: a date, a timestamp or a
    /// duration back from now (P1D); what changed since is listed.
    #[serde(default)]
    pub since: Option<String>,
    /// The whole block stays within this many tokens (1,500 unless given).
    #[serde(default, deserialize_with = "wire::maybe_number")]
    #[schemars(range(min = 1))]
    pub max_tokens: Option<usize>,
    /// Use the note 'now:NAME' instead of 'now'.
    #[serde(default)]
    pub now_name: Option<String>,
}

/// One line of the context: a note (or a turn of one) and its text.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
pub struct ContextLine {
    /// The note's id, or `ID@P{N}` for one part of it.
    pub address: String,
    /// The note's event time (when what it says happened, else when it
    /// was written).
    pub at: Timestamp,
    pub text: String,
}

/// The context block and what it is made of.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SessionContext {
    /// The block as a session is given it.
    pub text: String,
    /// Tokens the block takes, and the budget.
    pub tokens: usize,
    pub max_tokens: usize,
    /// The `now` note, when it is set and fits.
    pub now: Option<ContextLine>,
    /// Since when changes are listed.
    pub since: Option<Timestamp>,
    /// Notes written or changed since then.
    pub changed: Vec<ContextLine>,
    /// Pairs of notes that disagree, one line each.
    pub conflicts: Vec<String>,
    /// What the relevant notes were looked for by.
    pub project: Option<String>,
    /// Notes most relevant to the project.
    pub relevant: Vec<ContextLine>,
    /// True when the project was looked for and nothing was relevant.
    pub nothing_relevant: bool,
    /// Lines that did not fit in the budget.
    pub left_out: usize,
    /// True when no model is installed and tokens were estimated (a token
    /// for every three bytes) rather than counted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl Command for Context {
    type Output = SessionContext;

    fn run(self, keeper: &mut Keeper) -> Result<SessionContext> {
        let max_tokens = self.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        if max_tokens == 0 {
            return Err(Error::Invalid(
                "the token budget is a number from 1 up".into(),
            ));
        }
        let now = now_line(keeper, self.now_name.as_deref())?;
        let since = match &self.since {
            Some(text) => {
                Filters {
                    since: Some(text.clone()),
                    ..Filters::default()
                }
                .to_filter(keeper, None)?
                .since
            }
            None => None,
        };
        let shown_now = now.as_ref().map(|l| l.address.clone());
        let changed = match since {
            Some(at) => changed_since(keeper, at, shown_now.as_deref())?,
            None => Vec::new(),
        };
        let conflicts = match since {
            Some(at) => conflicts_since(keeper, at)?,
            None => Vec::new(),
        };
        let project = self
            .project
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty());
        let mut taken: HashSet<String> = changed.iter().map(|l| l.address.clone()).collect();
        taken.extend(shown_now);
        let relevant = match project {
            Some(words) => Some(relevant_to(keeper, words, &taken)?),
            None => None,
        };
        let counter = match keeper.token_counter() {
            Ok(counter) => Counter::Model(counter),
            Err(e) if e.is_model_off() => Counter::Estimate,
            Err(e) => return Err(e),
        };
        let mut budget = Budget::new(max_tokens, &counter);
        let candidates = Candidates {
            now,
            since,
            changed,
            conflicts,
            project: project.map(str::to_string),
            relevant,
        };
        candidates.fit(&mut budget)
    }
}

/// The `now` note as a line, when it is set.
fn now_line(keeper: &Keeper, name: Option<&str>) -> Result<Option<ContextLine>> {
    let id = Keeper::now_id(name)?;
    Ok(keeper.peek(&id)?.map(|note| ContextLine {
        address: id,
        at: note.at,
        text: whole(&note.summary),
    }))
}

/// Notes written or changed since `at`, newest first (the `now` note
/// aside), each with what it supersedes.
fn changed_since(keeper: &Keeper, at: Timestamp, now_id: Option<&str>) -> Result<Vec<ContextLine>> {
    let filter = keep_core::model::NoteFilter {
        since: Some(at),
        hide_superseded: true,
        ..Default::default()
    };
    let notes = keeper.list(&filter, ListOrder::Updated, Some(CHANGED_SEEN))?;
    Ok(notes
        .into_iter()
        .filter(|n| Some(n.id.as_str()) != now_id)
        .map(|n| note_line(&n))
        .collect())
}

fn note_line(note: &Note) -> ContextLine {
    let mut text = cut(&note.summary);
    let superseded: Vec<&str> = note.tags.values(keys::SUPERSEDES).collect();
    if !superseded.is_empty() {
        text.push_str(&format!(" (supersedes {})", superseded.join(", ")));
    }
    ContextLine {
        address: note.id.clone(),
        at: note.at,
        text,
    }
}

/// The conflicts `put` linked whose newer note was written since `at`,
/// one line each (the search of every note's neighbours is `keep
/// conflicts`' own: a session's start does not wait for it).
fn conflicts_since(keeper: &mut Keeper, at: Timestamp) -> Result<Vec<String>> {
    let filter = keep_core::model::NoteFilter {
        since: Some(at),
        ..Default::default()
    };
    Ok(keeper
        .linked_conflicts(&filter, CONFLICTS_SEEN)?
        .into_iter()
        .map(|c| {
            format!(
                "{} and {} disagree: {}",
                c.newer,
                c.older,
                c.differences.join("; ")
            )
        })
        .collect())
}

/// The notes (or turns) most relevant to `words`, best first, but for
/// those already `taken`; None when nothing is above the relevance floor.
fn relevant_to(
    keeper: &mut Keeper,
    words: &str,
    taken: &HashSet<String>,
) -> Result<Vec<ContextLine>> {
    let query = FindQuery {
        query: Query::Text(words.to_string()),
        filter: Filters::default().to_filter(keeper, None)?,
        limit: RELEVANT_SEEN,
        deep: false,
        hops: keep_core::recall::weights::DEEP_HOPS,
        half_life_days: Some(0.0),
        mode: RecallMode::Hybrid,
        include_superseded: false,
        parts: false,
        around: 0,
        explain: false,
        floor: None,
    };
    let found = keeper.find(&query)?;
    Ok(found
        .hits
        .iter()
        .filter(|h| !h.weak)
        .map(hit_line)
        .filter(|l| !taken.contains(&l.address))
        .collect())
}

fn hit_line(hit: &Hit) -> ContextLine {
    let text = if hit.part.is_some() && !hit.passage.is_empty() {
        &hit.passage
    } else {
        &hit.note.summary
    };
    ContextLine {
        address: hit.address(),
        at: hit.note.at,
        text: cut(text),
    }
}

/// `text` on one line.
fn whole(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` on one line, cut after `LINE_CHARS` characters.
fn cut(text: &str) -> String {
    let line = whole(text);
    match line.char_indices().nth(LINE_CHARS) {
        Some((at, _)) => format!("{}…", line[..at].trim_end()),
        None => line,
    }
}

/// How the budget is counted: with the embedding model's tokenizer, as
/// `find --max-tokens` counts, or without a model installed by an
/// estimate that errs high (a token for every three bytes).
enum Counter {
    Model(std::sync::Arc<TokenCounter>),
    Estimate,
}

impl Counter {
    fn count(&self, text: &str) -> Result<usize> {
        match self {
            Counter::Model(counter) => counter.count(text),
            Counter::Estimate => Ok(text.len().div_ceil(3)),
        }
    }
}

/// The budget as lines are admitted.
struct Budget<'a> {
    max: usize,
    used: usize,
    left_out: usize,
    counter: &'a Counter,
}

impl<'a> Budget<'a> {
    fn new(max: usize, counter: &'a Counter) -> Self {
        Budget {
            max,
            used: 0,
            left_out: 0,
            counter,
        }
    }

    /// Whether `line` fits before the budget used reaches `cap` (and if
    /// so, takes its room); a line that does not is not counted left out
    /// (it may fit later).
    fn admit_within(&mut self, line: &str, cap: usize) -> Result<bool> {
        let cost = self.counter.count(line)? + 1;
        if self.used + cost > cap.min(self.max) {
            return Ok(false);
        }
        self.used += cost;
        Ok(true)
    }

    /// Whether `line` fits in what is left (and if so, takes its room).
    fn admit(&mut self, line: &str) -> Result<bool> {
        let cost = self.counter.count(line)? + 1;
        if self.used + cost > self.max {
            self.left_out += 1;
            return Ok(false);
        }
        self.used += cost;
        Ok(true)
    }
}

/// Every line that may go in, by section, in the order they are admitted
/// (the most wanted first).
struct Candidates {
    now: Option<ContextLine>,
    since: Option<Timestamp>,
    changed: Vec<ContextLine>,
    conflicts: Vec<String>,
    project: Option<String>,
    relevant: Option<Vec<ContextLine>>,
}

impl Candidates {
    /// The lines that fit, each section in event-time order, and the
    /// block they make. `now` goes in first; then changes and conflicts,
    /// each within its share, then the project's notes, then the changes
    /// and conflicts that waited, while they fit.
    fn fit(self, budget: &mut Budget<'_>) -> Result<SessionContext> {
        let mut block = Block::default();
        budget.used += budget.counter.count(TITLE)?;
        let now = match self.now {
            Some(line) if budget.admit(&block.heading_and(NOW_HEADING, &line))? => Some(line),
            Some(_) | None => None,
        };
        let (start, after_now) = (budget.used, budget.max.saturating_sub(budget.used));
        let share = |part: f64| start + (after_now as f64 * part) as usize;
        let changed_heading = self.since.map(changed_heading);
        let mut changed = Sections::default();
        if let Some(heading) = &changed_heading {
            let cap = share(CHANGED_SHARE);
            for line in self.changed {
                changed.offer(budget, &mut block, heading, line_text(&line), line, cap)?;
            }
        }
        let mut conflicts = Sections::default();
        let cap = share(CHANGED_SHARE + CONFLICTS_SHARE);
        for line in self.conflicts {
            conflicts.offer(
                budget,
                &mut block,
                CONFLICTS_HEADING,
                line.clone(),
                line,
                cap,
            )?;
        }
        let mut relevant = Vec::new();
        let mut nothing_relevant = false;
        if let (Some(project), Some(lines)) = (&self.project, self.relevant) {
            let heading = relevant_heading(project);
            nothing_relevant = lines.is_empty();
            if nothing_relevant {
                budget.admit(&nothing_relevant_line(project))?;
            }
            for line in lines {
                if budget.admit(&block.heading_and(&heading, &line))? {
                    relevant.push(line);
                }
            }
        }
        if let Some(heading) = &changed_heading {
            changed.take_waiting(budget, &mut block, heading, line_text)?;
        }
        conflicts.take_waiting(budget, &mut block, CONFLICTS_HEADING, String::clone)?;
        let mut changed = changed.kept;
        let conflicts = conflicts.kept;
        by_time(&mut changed);
        by_time(&mut relevant);
        let text = render(
            now.as_ref(),
            self.since,
            &changed,
            &conflicts,
            self.project.as_deref(),
            &relevant,
            nothing_relevant,
        );
        Ok(SessionContext {
            tokens: budget.counter.count(&text)?,
            text,
            max_tokens: budget.max,
            now,
            since: self.since,
            changed,
            conflicts,
            project: self.project,
            relevant,
            nothing_relevant,
            left_out: budget.left_out,
            estimated: matches!(budget.counter, Counter::Estimate),
        })
    }
}

/// The lines of a section with a share of the budget: those admitted,
/// and those that waited for what the later sections leave.
struct Sections<T> {
    kept: Vec<T>,
    waiting: Vec<T>,
}

impl<T> Default for Sections<T> {
    fn default() -> Self {
        Sections {
            kept: Vec::new(),
            waiting: Vec::new(),
        }
    }
}

impl<T> Sections<T> {
    /// Admits `line` (shown as `text`) while the budget used stays within
    /// `cap`; else it waits.
    fn offer(
        &mut self,
        budget: &mut Budget<'_>,
        block: &mut Block,
        heading: &str,
        text: String,
        line: T,
        cap: usize,
    ) -> Result<()> {
        let shown = block.peek(heading, &text);
        if budget.admit_within(&shown, cap)? {
            block.headed.insert(heading.to_string());
            self.kept.push(line);
        } else {
            self.waiting.push(line);
        }
        Ok(())
    }

    /// Admits the lines that waited, in order, while they fit.
    fn take_waiting(
        &mut self,
        budget: &mut Budget<'_>,
        block: &mut Block,
        heading: &str,
        text: impl Fn(&T) -> String,
    ) -> Result<()> {
        for line in std::mem::take(&mut self.waiting) {
            if budget.admit(&block.heading_and_text(heading, &text(&line)))? {
                self.kept.push(line);
            }
        }
        Ok(())
    }
}

/// The headings already counted against the budget.
#[derive(Default)]
struct Block {
    headed: HashSet<String>,
}

impl Block {
    /// A line with its section's heading when it is the section's first.
    fn heading_and(&mut self, heading: &str, line: &ContextLine) -> String {
        self.heading_and_text(heading, &line_text(line))
    }

    /// What `heading_and_text` would give, without counting the heading.
    fn peek(&self, heading: &str, line: &str) -> String {
        if self.headed.contains(heading) {
            line.to_string()
        } else {
            format!("{heading}\n{line}")
        }
    }

    fn heading_and_text(&mut self, heading: &str, line: &str) -> String {
        if self.headed.insert(heading.to_string()) {
            format!("{heading}\n{line}")
        } else {
            line.to_string()
        }
    }
}

const TITLE: &str = "# keep context";
const NOW_HEADING: &str = "## now";
const CONFLICTS_HEADING: &str = "## conflicts";

fn changed_heading(at: Timestamp) -> String {
    format!("## changed since {at}")
}

fn relevant_heading(project: &str) -> String {
    format!("## relevant to {project}")
}

fn nothing_relevant_line(project: &str) -> String {
    format!("nothing stored is relevant to {project}")
}

fn by_time(lines: &mut [ContextLine]) {
    lines.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.address.cmp(&b.address)));
}

fn line_text(line: &ContextLine) -> String {
    format!("- {} {}: {}", line.at.day(), line.address, line.text)
}

/// The block: a heading per section that has lines, then its lines.
fn render(
    now: Option<&ContextLine>,
    since: Option<Timestamp>,
    changed: &[ContextLine],
    conflicts: &[String],
    project: Option<&str>,
    relevant: &[ContextLine],
    nothing_relevant: bool,
) -> String {
    let mut out = format!("{TITLE}\n");
    let mut section = |heading: &str, lines: Vec<String>| {
        if !lines.is_empty() {
            out.push_str(&format!("\n{heading}\n"));
            for line in lines {
                out.push_str(&line);
                out.push('\n');
            }
        }
    };
    section(NOW_HEADING, now.iter().map(|l| line_text(l)).collect());
    if let Some(at) = since {
        section(
            &changed_heading(at),
            changed.iter().map(line_text).collect(),
        );
    }
    section(CONFLICTS_HEADING, conflicts.to_vec());
    if let Some(project) = project {
        let lines = if nothing_relevant {
            vec![nothing_relevant_line(project)]
        } else {
            relevant.iter().map(line_text).collect()
        };
        section(&relevant_heading(project), lines);
    }
    out
}
