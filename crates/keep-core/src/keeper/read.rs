//! Reading notes: resolving arguments, one note with its history, parts
//! and edges (`get` records the access, `view` does not), listings,
//! counts and the tag catalogue, and filters parsed from what people type.

use super::Keeper;
use crate::error::{Error, Result, Transactions};
use keep_model::time::Timestamp;
use keep_model::{
    Edge, Expired, ListOrder, Note, NoteFilter, NoteRef, PageFrom, Part, Rating, Selector,
    TagFilter, Version, dates, keys, time,
};
use keep_store::Db;
use keep_store::NoteReads;
use keep_store::prelude::*;

/// What `get` shows: one state of a note and its surroundings.
#[derive(Debug, Clone)]
pub struct NoteView {
    /// The state shown: the current one, or an archived version.
    pub note: Note,
    /// 0 for the current state, N for `@V{N}`.
    pub version: i64,
    /// Set when a part was addressed with `@P{N}`.
    pub part: Option<Part>,
    /// Archived versions, newest first, with their offsets (1 = previous).
    pub history: Vec<(i64, Version)>,
    pub parts: Vec<Part>,
    /// Links made by this state's edge tags.
    pub edges: Vec<Edge>,
    /// Links from other notes to this one.
    pub inverse_edges: Vec<Edge>,
    /// The notes this one replaced, newest first, following `supersedes`
    /// back (the first of several at each step).
    pub replaces: Vec<String>,
    /// The notes that replaced this one, in order, the last one current.
    pub replaced_by: Vec<String>,
    /// How the note was rated.
    pub rating: Rating,
    /// When the state shown stopped holding: the next state's time, the
    /// time of the note that superseded it, or its expiry, the earliest.
    pub until: Option<Timestamp>,
}

/// Reads not yet recorded on the primary.
#[derive(Default)]
pub(super) struct Accesses {
    held: Vec<(String, Timestamp)>,
    since: Option<std::time::Instant>,
}

/// Reads recorded together at most.
const ACCESSES_BATCHED: usize = 64;
/// How long a read waits, at most, to be recorded with others.
const ACCESSES_HELD: std::time::Duration = std::time::Duration::from_secs(1);

impl Accesses {
    /// Whether the reads held should be recorded now.
    fn due(&mut self) -> bool {
        let since = *self.since.get_or_insert_with(std::time::Instant::now);
        self.held.len() >= ACCESSES_BATCHED || since.elapsed() >= ACCESSES_HELD
    }
}

impl Keeper {
    /// Reads a note argument: the literal id if such a note exists, else the
    /// id with its `@V{N}` / `@P{N}` selector.
    pub fn resolve(&self, arg: &str) -> Result<NoteRef> {
        if self.store.reads().note_rid(arg)?.is_some() {
            return Ok(NoteRef::plain(arg));
        }
        Ok(NoteRef::parse(arg)?)
    }

    /// The current state of a note, without touching its access time.
    /// A note outside the caller's scope is none.
    pub fn peek(&self, id: &str) -> Result<Option<Note>> {
        Ok(self
            .store
            .db()
            .note(id)?
            .map(|(_, n)| n)
            .filter(|n| self.caller.covers(&n.tags)))
    }

    /// Shows a note (or a version or part of it) and records the access,
    /// unless another writer holds the store right then (a long import):
    /// a read never waits for that, nor fails because the store cannot
    /// take the record (a full disk).
    pub fn get(&mut self, target: &NoteRef) -> Result<NoteView> {
        let view = self.view(target)?;
        self.record_access(&target.id)?;
        Ok(view)
    }

    /// Like `get`, for the state of note `id` that held at `at`.
    pub fn get_as_of(&mut self, id: &str, at: Timestamp) -> Result<NoteView> {
        let view = self.view_as_of(id, at)?;
        self.record_access(id)?;
        Ok(view)
    }

    /// Records that note `id` was read, unless the store is busy or
    /// cannot take the write. Where reads go to replicas, reads are
    /// recorded on the primary in batches (`record_accesses`), so a read
    /// does not wait for a write.
    fn record_access(&mut self, id: &str) -> Result<()> {
        if self.store.is_read_only() || self.caller.read_only {
            return Ok(());
        }
        self.accesses.held.push((id.to_string(), self.now()));
        if !self.store.has_replicas() {
            return self.record_accesses();
        }
        if self.accesses.due() {
            // A batch that cannot be written now is not the read's fault.
            let _ = self.record_accesses();
        }
        Ok(())
    }

    /// Records the reads held back, unless another writer holds the store
    /// right then or it cannot take the write (they are then dropped:
    /// access times are a hint for ranking, not a record). Those writes
    /// are not the client's: its reads need not wait for replicas to
    /// replay them.
    pub fn record_accesses(&mut self) -> Result<()> {
        let held = std::mem::take(&mut self.accesses.held);
        self.accesses.since = None;
        if held.is_empty() {
            return Ok(());
        }
        let mark = self.store.write_mark();
        let recorded = self.store.transact_if_free(|db| {
            for (id, at) in &held {
                if let Some(rid) = db.note_rid(id)? {
                    db.touch_accessed(rid, *at)?;
                }
            }
            Ok(())
        });
        self.store.restore_write_mark(mark);
        match recorded {
            Err(e) if !e.is_store_fault() => Err(e),
            _ => Ok(()),
        }
    }

    /// Like `get`, without recording the access.
    pub fn view(&self, target: &NoteRef) -> Result<NoteView> {
        self.may_read(&target.id)?;
        let db = self.store.reads();
        let (rid, current) = db
            .note(&target.id)?
            .ok_or_else(|| Error::NotFound(target.id.clone()))?;
        let versions = db.versions(rid)?;
        let (note, version) = match target.selector {
            Some(Selector::Version(n)) => {
                let index = version_index(target, versions.len(), n)?;
                match index {
                    None => (current, 0),
                    Some(i) => (
                        archived_state(&current, &versions[i]),
                        versions.len() as i64 - i as i64,
                    ),
                }
            }
            _ => (current, 0),
        };
        let part = match target.selector {
            Some(Selector::Part(n)) => Some(db.part(rid, n)?.ok_or_else(|| {
                Error::invalid(format!(
                    "'{target}': the note has {} part(s)",
                    db.part_count(rid).unwrap_or(0)
                ))
            })?),
            _ => None,
        };
        let edge_keys = crate::edges::EdgeKeys::load(&db)?;
        let count = versions.len() as i64;
        let history: Vec<(i64, Version)> = versions
            .into_iter()
            .enumerate()
            .map(|(i, v)| (count - i as i64, v))
            .rev()
            .collect();
        let (replaces, replaced_by) = supersession_chain(&db, &note.id)?;
        let until = held_until(&db, &note, &history, replaced_by.first())?;
        let mut inverse_edges = edge_keys.edges_into(&db, &note.id)?;
        drop(db);
        let (replaces, replaced_by) = (self.seen_ids(replaces)?, self.seen_ids(replaced_by)?);
        if !self.caller.sees_everything() {
            let mut seen = Vec::with_capacity(inverse_edges.len());
            for edge in inverse_edges {
                if self.sees(&edge.source)? {
                    seen.push(edge);
                }
            }
            inverse_edges = seen;
        }
        let db = self.store.reads();
        Ok(NoteView {
            until,
            replaces,
            replaced_by,
            rating: db.rating(rid)?.unwrap_or_default(),
            edges: edge_keys.edges_of(&note),
            inverse_edges,
            parts: db.parts(rid)?,
            note,
            version,
            part,
            history,
        })
    }

    /// The state of a note that held at `at` (see `state_held_at`), with
    /// its surroundings; an error when the note had not begun by then.
    pub fn view_as_of(&self, id: &str, at: Timestamp) -> Result<NoteView> {
        let current = self.view(&NoteRef::plain(id))?;
        let states = current
            .history
            .iter()
            .map(|(offset, v)| (*offset, v.at))
            .chain([(0, current.note.at)]);
        match state_held_at(states, at) {
            Some(0) => Ok(current),
            Some(offset) => self.view(&NoteRef {
                id: id.to_string(),
                selector: Some(Selector::Version(offset)),
            }),
            None => Err(Error::invalid(format!(
                "'{id}' had not begun on {at}: its first state holds from {}",
                current
                    .history
                    .last()
                    .map_or(current.note.at, |(_, v)| v.at)
            ))),
        }
    }

    /// `notes` as they stood at `at`: each replaced by its state that
    /// held then (those that had not begun are left out).
    pub(super) fn as_held_at(&self, notes: Vec<Note>, at: Timestamp) -> Result<Vec<Note>> {
        let db = self.store.reads();
        let mut held = Vec::with_capacity(notes.len());
        for note in notes {
            held.extend(held_state(&db, note, at)?);
        }
        Ok(held)
    }

    /// Archived versions of a note, newest first, with their offsets.
    pub fn history(&self, id: &str) -> Result<Vec<(i64, Version)>> {
        self.may_read(id)?;
        let db = self.store.reads();
        let rid = db.note_rid(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
        let versions = db.versions(rid)?;
        let count = versions.len() as i64;
        Ok(versions
            .into_iter()
            .enumerate()
            .map(|(i, v)| (count - i as i64, v))
            .rev()
            .collect())
    }

    pub fn list(
        &self,
        filter: &NoteFilter,
        order: ListOrder,
        limit: Option<usize>,
    ) -> Result<Vec<Note>> {
        let notes = self.store.reads().list_notes_from(
            &self.scoped_now(filter),
            order,
            &PageFrom::First,
            limit,
        )?;
        self.held_if_asked(filter, notes)
    }

    /// `notes` as they stood at the filter's `--as-of` instant, if any.
    pub(super) fn held_if_asked(&self, filter: &NoteFilter, notes: Vec<Note>) -> Result<Vec<Note>> {
        match filter.held_at {
            Some(at) => self.as_held_at(notes, at),
            None => Ok(notes),
        }
    }

    /// One page of `list`: at most `limit` notes from `from`, in order.
    pub fn list_page(
        &self,
        filter: &NoteFilter,
        order: ListOrder,
        from: &PageFrom,
        limit: usize,
    ) -> Result<Vec<Note>> {
        let notes = self.store.reads().list_notes_from(
            &self.scoped_now(filter),
            order,
            from,
            Some(limit),
        )?;
        self.held_if_asked(filter, notes)
    }

    pub fn count(&self, filter: &NoteFilter) -> Result<usize> {
        Ok(self.store.reads().count_notes(&self.scoped_now(filter))?)
    }

    /// `filter` narrowed to the caller's scope, with expiry judged now
    /// unless it names its own instant.
    pub(super) fn scoped_now(&self, filter: &NoteFilter) -> NoteFilter {
        let mut filter = filter.clone();
        filter.as_of.get_or_insert_with(|| self.now());
        self.within_scope(&mut filter);
        filter
    }

    /// Ids starting with `prefix`, in order, at most `limit` (for completion).
    pub fn ids_starting_with(&self, prefix: &str, limit: usize) -> Result<Vec<String>> {
        let ids = self.store.reads().ids_starting_with(prefix, Some(limit))?;
        self.seen_ids(ids)
    }

    /// User tag keys and their most used values (up to `values_per_key`).
    /// A scoped caller's catalogue is made from the notes it may see.
    pub fn tag_catalog(&self, values_per_key: usize) -> Result<Vec<(String, Vec<String>)>> {
        if self.caller.sees_everything() {
            return Ok(self.store.reads().tag_catalog(values_per_key)?);
        }
        let notes = self.list(
            &NoteFilter::default(),
            ListOrder::default(),
            Some(SCOPED_CATALOG_NOTES),
        )?;
        Ok(catalog_of(&notes, values_per_key))
    }

    /// A number that changes when another process writes to the store.
    pub fn data_version(&self) -> Result<i64> {
        Ok(self.store.db().data_version()?)
    }
}

/// Notes a scoped caller's tag catalogue is read from, at most.
const SCOPED_CATALOG_NOTES: usize = 10_000;

/// User tag keys of `notes` with their most used values, most used first.
fn catalog_of(notes: &[Note], values_per_key: usize) -> Vec<(String, Vec<String>)> {
    let mut counts: std::collections::BTreeMap<String, std::collections::HashMap<String, usize>> =
        Default::default();
    for note in notes {
        for (key, value) in note.tags.user_tags().pairs() {
            *counts
                .entry(key.to_string())
                .or_default()
                .entry(value.to_string())
                .or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|(key, values)| {
            let mut values: Vec<(String, usize)> = values.into_iter().collect();
            values.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let values = values
                .into_iter()
                .take(values_per_key)
                .map(|(v, _)| v)
                .collect();
            (key, values)
        })
        .collect()
}

/// A tag filter list from `-t` arguments.
pub fn parse_filters<S: AsRef<str>>(args: &[S]) -> Result<Vec<TagFilter>> {
    Ok(args
        .iter()
        .map(|a| TagFilter::parse(a.as_ref()))
        .collect::<std::result::Result<_, _>>()?)
}

/// The words people type to narrow a listing or a recall.
#[derive(Debug, Clone, Default)]
pub struct FilterSpec<'a> {
    /// `KEY` or `KEY=VALUE`; all must match.
    pub tags: &'a [String],
    /// An ISO 8601 duration back from now (`P7D`), a date or a timestamp.
    pub since: Option<&'a str>,
    pub until: Option<&'a str>,
    /// An id prefix or glob.
    pub scope: Option<&'a str>,
    /// Only what held at this instant (`--as-of`): a date, a timestamp, a
    /// duration back from now or a spoken day.
    pub as_of: Option<&'a str>,
    /// A period of event time (`--when`, `dates::parse_period`).
    pub when: Option<&'a str>,
    /// Origins (`_origin`), each name or comma-separated names; any of
    /// them passes.
    pub from: &'a [String],
    /// Include system notes (ids starting with `.`), and expired ones.
    pub include_system: bool,
    /// Which expired notes to return.
    pub expired: Expired,
}

impl Keeper {
    /// Parses a `FilterSpec` against this keeper's clock.
    pub fn filter(&self, spec: &FilterSpec<'_>) -> Result<NoteFilter> {
        let now = self.now();
        let bound = |text: Option<&str>| text.map(|t| time::parse_bound(t, now)).transpose();
        let held_at = spec
            .as_of
            .map(|t| dates::parse_instant(t, now))
            .transpose()?;
        let happened = spec.when.map(|t| dates::parse_period(t, now)).transpose()?;
        Ok(NoteFilter {
            pattern: spec.scope.map(str::to_string),
            include_system: spec.include_system,
            tags: parse_filters(spec.tags)?,
            since: bound(spec.since)?,
            until: bound(spec.until)?,
            expired: spec.expired,
            as_of: Some(held_at.unwrap_or(now)),
            // What another note had replaced by then no longer held.
            hide_superseded: held_at.is_some(),
            held_at,
            happened,
            origins: parse_origins(spec.from)?,
        })
    }
}

/// The origins asked for (`typed,document`), each one keep records.
pub fn parse_origins(asked: &[String]) -> Result<Vec<String>> {
    let mut origins: Vec<String> = Vec::new();
    for name in asked.iter().flat_map(|a| a.split(',')).map(str::trim) {
        if name.is_empty() {
            continue;
        }
        if !keys::ORIGINS.contains(&name) {
            return Err(Error::invalid(format!(
                "'{name}' is not an origin: give typed, agent, document, web or imported"
            )));
        }
        if !origins.iter().any(|o| o == name) {
            origins.push(name.to_string());
        }
    }
    Ok(origins)
}

/// `note` as it stood at `at`: its state that held then, or `None` when
/// it had not begun.
pub(super) fn held_state(db: &Db<'_>, note: Note, at: Timestamp) -> Result<Option<Note>> {
    let Some(rid) = db.note_rid(&note.id)? else {
        return Ok(None);
    };
    let versions = db.versions(rid)?;
    let count = versions.len();
    let states = versions
        .iter()
        .enumerate()
        .map(|(i, v)| ((count - i) as i64, v.at))
        .chain([(0, note.at)]);
    Ok(match state_held_at(states, at) {
        Some(0) => Some(note),
        Some(offset) => Some(archived_state(&note, &versions[count - offset as usize])),
        None => None,
    })
}

/// Of a note's states (offset, when each began; 0 is the current one),
/// the one that held at `at`: the latest begun by then, the newer state
/// on a tie. `None` when none had begun.
fn state_held_at(states: impl Iterator<Item = (i64, Timestamp)>, at: Timestamp) -> Option<i64> {
    states
        .filter(|(_, began)| *began <= at)
        .max_by_key(|(offset, began)| (*began, std::cmp::Reverse(*offset)))
        .map(|(offset, _)| offset)
}

/// When `note` (the state shown) stopped holding: the earliest of the
/// next state's beginning among `history`, its successor's beginning and
/// its expiry.
fn held_until(
    db: &Db<'_>,
    note: &Note,
    history: &[(i64, Version)],
    successor: Option<&String>,
) -> Result<Option<Timestamp>> {
    let mut ends: Vec<Timestamp> = history.iter().map(|(_, v)| v.at).collect();
    if let Some((_, current)) = db.note(&note.id)? {
        ends.push(current.at);
    }
    let mut until = ends.into_iter().filter(|t| *t > note.at).min();
    if let Some(successor) = successor
        && let Some((_, next)) = db.note(successor)?
    {
        until = Some(until.map_or(next.at, |u| u.min(next.at)));
    }
    if let Some(expiry) = note.tags.first(keys::EXPIRES).and_then(time::parse_loose) {
        until = Some(until.map_or(expiry, |u| u.min(expiry)));
    }
    Ok(until)
}

/// Longest chain followed either way, so a cycle made by hand ends.
const MAX_CHAIN: usize = 64;

/// The notes `id` replaced (following `supersedes` tags back) and the
/// notes that replaced it (following them forward), nearest first.
fn supersession_chain(db: &Db<'_>, id: &str) -> Result<(Vec<String>, Vec<String>)> {
    let step_back = |id: &str| -> Result<Option<String>> {
        Ok(db
            .note(id)?
            .and_then(|(_, n)| n.tags.first(keys::SUPERSEDES).map(str::to_string)))
    };
    let step_forward = |id: &str| -> Result<Option<String>> {
        Ok(db
            .edges_to(id)?
            .into_iter()
            .find(|(key, _)| key == keys::SUPERSEDES)
            .map(|(_, source)| source))
    };
    Ok((follow(id, step_back)?, follow(id, step_forward)?))
}

fn follow(start: &str, step: impl Fn(&str) -> Result<Option<String>>) -> Result<Vec<String>> {
    let mut chain: Vec<String> = Vec::new();
    let mut at = start.to_string();
    while chain.len() < MAX_CHAIN {
        match step(&at)? {
            Some(next) if next != start && !chain.contains(&next) => {
                chain.push(next.clone());
                at = next;
            }
            _ => break,
        }
    }
    Ok(chain)
}

/// A note as it was at an archived version.
fn archived_state(current: &Note, version: &Version) -> Note {
    Note {
        id: current.id.clone(),
        summary: version.summary.clone(),
        tags: version.tags.clone(),
        content_hash: version.content_hash.clone(),
        created: current.created,
        updated: version.updated,
        accessed: current.accessed,
        at: version.at,
    }
}

/// Maps `@V{n}` onto an index into versions stored oldest first; `None`
/// means the current state.
pub(super) fn version_index(target: &NoteRef, archived: usize, n: i64) -> Result<Option<usize>> {
    if n == 0 {
        return Ok(None);
    }
    let back = usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX);
    match (n > 0, back <= archived) {
        (true, true) => Ok(Some(archived - back)),
        (false, true) => Ok(Some(back - 1)),
        (_, false) => Err(Error::invalid(format!(
            "'{target}' is out of range: the note has {archived} archived version(s)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_offsets_map_to_indexes() {
        let r = NoteRef::plain("x");
        assert_eq!(version_index(&r, 3, 0).unwrap(), None);
        assert_eq!(version_index(&r, 3, 1).unwrap(), Some(2));
        assert_eq!(version_index(&r, 3, 3).unwrap(), Some(0));
        assert_eq!(version_index(&r, 3, -1).unwrap(), Some(0));
        assert_eq!(version_index(&r, 3, -3).unwrap(), Some(2));
        assert!(version_index(&r, 3, 4).is_err());
        assert!(version_index(&r, 3, -4).is_err());
        assert!(version_index(&r, 3, i64::MIN).is_err());
        assert!(version_index(&r, 3, i64::MAX).is_err());
        assert!(version_index(&r, 0, i64::MIN).is_err());
    }
}
