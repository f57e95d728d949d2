//! `Keeper`: the core API that the CLI, the TUI and the MCP server call.
//! It owns the rules (ids, versions, tags, edges, stubs); the store owns SQL.

mod edges;
mod history;
mod ingest;
mod recall;
mod transfer;
mod watch;

use std::path::{Path, PathBuf};

use crate::embed::{Config, Embedder, LoadFor};
use crate::error::{Error, Result};
use crate::note::{
    self, Edge, INVERSE_KEY, Note, NoteRef, Part, Selector, TagFilter, Tags, Version,
};
use crate::store::{Db, ListOrder, NoteFilter, Store, VecKind};
use crate::summarize;
use crate::time::{self, Clock, Timestamp};

pub use history::{MoveOutcome, RevertOutcome};
pub use ingest::{Failure, IngestOptions, IngestReport, OCR_KEY, Progress, Target};
pub use recall::{EmbedReport, FindResult, Hit, ReindexReport};
pub use transfer::ImportOutcome;
pub use watch::{DELETED_KEY, SyncReport, WATCH_LEASE};

/// System tag naming where a note came from (`inline`, `file`, ...).
pub const SOURCE_KEY: &str = "_source";
/// System tag naming the media type of the note's content.
pub const CONTENT_TYPE_KEY: &str = "_content_type";
/// System tag marking a note created only as the target of an edge.
pub const STUB_KEY: &str = "_stub";

/// What the caller asks of a `put`, beyond the content.
#[derive(Debug, Clone, Default)]
pub struct PutOptions {
    /// Use this id instead of the one derived from the content.
    pub id: Option<String>,
    /// User tags to add (already parsed with `note::parse_user_tag`).
    pub tags: Tags,
    /// Use this summary instead of one made from the content.
    pub summary: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteStatus {
    /// A new note was stored.
    Created,
    /// The note changed; its previous state was archived as a version.
    Updated,
    /// Nothing changed.
    Unchanged,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct WriteOutcome {
    pub id: String,
    pub status: WriteStatus,
}

/// Tag changes for `tag`.
#[derive(Debug, Clone, Default)]
pub struct TagEdit {
    pub add: Tags,
    pub remove_keys: Vec<String>,
    pub remove_values: Vec<(String, String)>,
}

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
}

/// A recall query: text, or the id of a note to find neighbours of.
#[derive(Debug, Clone, Default)]
pub struct FindQuery {
    pub text: Option<String>,
    /// Find notes similar to this note.
    pub like: Option<String>,
    pub filter: NoteFilter,
    pub limit: usize,
    /// Also follow edges and shared tags from the top hits.
    pub deep: bool,
    /// Recency half-life in days (0 = no decay); None uses the config.
    pub half_life_days: Option<f64>,
    /// Which candidate lists to use.
    pub mode: RecallMode,
}

/// Which candidates `find` ranks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RecallMode {
    /// Keyword and vector candidates fused by rank.
    #[default]
    Hybrid,
    /// BM25 only; no model is loaded.
    Keyword,
    /// Nearest embeddings only.
    Semantic,
}

/// What was removed by `delete`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "deleted")]
pub enum Deleted {
    /// The whole note with its history.
    Note { id: String, versions: i64 },
    /// One archived version.
    Version { id: String, version: i64 },
}

/// Text ready to store: its id, content, tags and parts.
struct Content {
    id: String,
    text: String,
    hash: String,
    system_tags: Tags,
    /// Tags from the file's metadata; user tags win over them.
    provider_tags: Tags,
    /// A line the format provides (audio, images), put before the text.
    description: Option<String>,
    /// Chunks of long text, stored as parts.
    parts: Vec<String>,
}

/// Writes `content` as the next state of its note, inside a transaction.
fn write_content(
    db: &Db<'_>,
    content: &Content,
    opts: &PutOptions,
    now: Timestamp,
) -> Result<WriteStatus> {
    note::validate_id(&content.id)?;
    check_inverse_tag(&content.id, &opts.tags)?;
    let own_summary = opts.summary.is_some();
    let summary = match &opts.summary {
        Some(s) if s.trim().is_empty() => return Err(Error::invalid("the summary is empty")),
        Some(s) => s.trim().to_string(),
        None => summary_of(content),
    };
    if summary.is_empty() {
        return Err(Error::Format {
            what: content.id.clone(),
            reason: "has no text".into(),
        });
    }
    let body = if summarize::is_passthrough(&content.text)
        && !own_summary
        && content.description.is_none()
    {
        String::new()
    } else {
        content.text.clone()
    };
    let existing = db.note(&content.id)?;
    let mut tags = match &existing {
        Some((_, n)) => n.tags.clone(),
        None => Tags::new(),
    };
    tags.remove_key(STUB_KEY);
    tags.remove_key(ingest::OCR_KEY);
    tags.remove_key(watch::DELETED_KEY);
    for key in content
        .provider_tags
        .keys()
        .filter(|k| !opts.tags.contains_key(k))
    {
        tags.remove_key(key);
        for value in content.provider_tags.values(key) {
            tags.insert(key, value);
        }
    }
    tags.merge(&opts.tags);
    for key in content.system_tags.keys() {
        tags.remove_key(key);
    }
    tags.merge(&content.system_tags);
    let next = Note {
        id: content.id.clone(),
        summary,
        tags,
        content_hash: Some(content.hash.clone()),
        created: existing.as_ref().map_or(now, |(_, n)| n.created),
        updated: now,
        accessed: now,
    };
    // The text changed, or it was read again now that OCR is installed.
    let new_text = existing.as_ref().is_none_or(|(_, n)| {
        n.content_hash != next.content_hash || n.tags.contains_key(ingest::OCR_KEY)
    });
    let status = write_state(db, existing.as_ref(), &next, now)?;
    if status != WriteStatus::Unchanged && new_text {
        let rid = db.note_rid(&next.id)?.expect("just written");
        db.index_note_body(rid, &body)?;
        let parts: Vec<Part> = content
            .parts
            .iter()
            .enumerate()
            .map(|(i, text)| Part {
                number: i as u32 + 1,
                summary: text.clone(),
                tags: Tags::new(),
            })
            .collect();
        db.replace_parts(rid, &parts)?;
    }
    Ok(status)
}

/// The description (if any), then the summary of the text.
fn summary_of(content: &Content) -> String {
    let text = summarize::summarize(&content.text);
    match &content.description {
        Some(d) if text.is_empty() => d.clone(),
        Some(d) => format!("{d}\n\n{text}"),
        None => text,
    }
}

pub struct Keeper {
    store: Store,
    clock: Clock,
    config: Config,
    embedder: recall::EmbedderSlot,
    load_for: LoadFor,
}

impl Keeper {
    /// Opens the store in `dir`, with the clock from the environment.
    pub fn open(dir: &Path) -> Result<Self> {
        Ok(Keeper {
            store: Store::open(dir)?,
            clock: Clock::from_env()?,
            config: Config::load()?,
            embedder: recall::EmbedderSlot::default(),
            load_for: LoadFor::default(),
        })
    }

    /// Uses `embedder` instead of loading the configured model.
    pub fn with_embedder(mut self, embedder: Box<dyn Embedder>) -> Self {
        self.embedder = recall::EmbedderSlot::Ready(embedder);
        self
    }

    /// Prepares the model, when it loads, for many queries over a long
    /// life (servers, the browser) rather than a quick start.
    pub fn for_many_queries(mut self) -> Self {
        self.load_for = LoadFor::ManyQueries;
        self
    }

    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    pub fn store_path(&self) -> &Path {
        self.store.path()
    }

    /// The folder holding the database, as given to `open`.
    pub fn store_dir(&self) -> &Path {
        self.store.path().parent().unwrap_or(Path::new("."))
    }

    /// Stores inline text (`source` is recorded in `_source`).
    pub fn put_text(&mut self, text: &str, source: &str, opts: PutOptions) -> Result<WriteOutcome> {
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::invalid("nothing to put: the text is empty"));
        }
        let id = match &opts.id {
            Some(id) => id.clone(),
            None => note::inline_id(text),
        };
        let mut system_tags = Tags::new();
        system_tags.insert(SOURCE_KEY, source);
        system_tags.insert(CONTENT_TYPE_KEY, "text/plain");
        let content = Content {
            id,
            hash: note::content_hash(text.as_bytes()),
            text: text.to_string(),
            system_tags,
            provider_tags: Tags::new(),
            description: None,
            parts: crate::ingest::chunk::chunks(text),
        };
        self.put_content(content, opts)
    }

    fn put_content(&mut self, content: Content, opts: PutOptions) -> Result<WriteOutcome> {
        let now = self.now();
        let status = self
            .store
            .write(|db| write_content(db, &content, &opts, now))?;
        Ok(WriteOutcome {
            id: content.id,
            status,
        })
    }

    /// Reads a note argument: the literal id if such a note exists, else the
    /// id with its `@V{N}` / `@P{N}` selector.
    pub fn resolve(&self, arg: &str) -> Result<NoteRef> {
        if self.store.db().note_rid(arg)?.is_some() {
            return Ok(NoteRef::plain(arg));
        }
        NoteRef::parse(arg)
    }

    /// The current state of a note, without touching its access time.
    pub fn peek(&self, id: &str) -> Result<Option<Note>> {
        Ok(self.store.db().note(id)?.map(|(_, n)| n))
    }

    /// Shows a note (or a version or part of it) and records the access.
    pub fn get(&mut self, target: &NoteRef) -> Result<NoteView> {
        let now = self.now();
        let view = self.view(target)?;
        self.store.write(|db| {
            if let Some(rid) = db.note_rid(&target.id)? {
                db.touch_accessed(rid, now)?;
            }
            Ok(())
        })?;
        Ok(view)
    }

    /// Like `get`, without recording the access.
    pub fn view(&self, target: &NoteRef) -> Result<NoteView> {
        let db = self.store.db();
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
        let edge_keys = edges::EdgeKeys::load(&db)?;
        let count = versions.len() as i64;
        let history = versions
            .into_iter()
            .enumerate()
            .map(|(i, v)| (count - i as i64, v))
            .rev()
            .collect();
        Ok(NoteView {
            edges: edge_keys.edges_of(&note),
            inverse_edges: edge_keys.edges_into(&db, &note.id)?,
            parts: db.parts(rid)?,
            note,
            version,
            part,
            history,
        })
    }

    /// Archived versions of a note, newest first, with their offsets.
    pub fn history(&self, id: &str) -> Result<Vec<(i64, Version)>> {
        let db = self.store.db();
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
        self.store.db().list_notes(filter, order, limit)
    }

    /// One page of `list`: `limit` notes after the first `offset`.
    pub fn list_page(
        &self,
        filter: &NoteFilter,
        order: ListOrder,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<Note>> {
        self.store
            .db()
            .list_notes_from(filter, order, offset, Some(limit))
    }

    pub fn count(&self, filter: &NoteFilter) -> Result<usize> {
        self.store.db().count_notes(filter)
    }

    /// User tag keys and their most used values (up to `values_per_key`).
    pub fn tag_catalog(&self, values_per_key: usize) -> Result<Vec<(String, Vec<String>)>> {
        self.store.db().tag_catalog(values_per_key)
    }

    /// A number that changes when another process writes to the store.
    pub fn data_version(&self) -> Result<i64> {
        self.store.db().data_version()
    }

    /// Adds and removes tags; a change archives the previous state.
    pub fn tag(&mut self, id: &str, edit: &TagEdit) -> Result<WriteOutcome> {
        check_inverse_tag(id, &edit.add)?;
        for key in edit
            .remove_keys
            .iter()
            .chain(edit.remove_values.iter().map(|(k, _)| k))
        {
            if note::is_system_key(key) && key != INVERSE_KEY {
                return Err(Error::invalid(format!(
                    "cannot remove '{key}': keys starting with '_' are managed by keep"
                )));
            }
        }
        let now = self.now();
        self.store.write(|db| {
            let (rid, current) = db.note(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
            let mut next = current.clone();
            for key in &edit.remove_keys {
                next.tags.remove_key(key);
            }
            for (k, v) in &edit.remove_values {
                next.tags.remove_value(k, v);
            }
            next.tags.merge(&edit.add);
            next.updated = now;
            next.accessed = now;
            let status = write_state(db, Some(&(rid, current)), &next, now)?;
            Ok(WriteOutcome {
                id: id.to_string(),
                status,
            })
        })
    }

    /// Replaces a note's summary, keeping its tags and content; a change
    /// archives the previous state and the note is embedded again.
    pub fn set_summary(&mut self, id: &str, summary: &str) -> Result<WriteOutcome> {
        let summary = summary.trim();
        if summary.is_empty() {
            return Err(Error::invalid("the summary is empty"));
        }
        let now = self.now();
        self.store.write(|db| {
            let (rid, current) = db.note(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
            let mut next = current.clone();
            next.summary = summary.to_string();
            next.updated = now;
            next.accessed = now;
            let status = write_state(db, Some(&(rid, current)), &next, now)?;
            Ok(WriteOutcome {
                id: id.to_string(),
                status,
            })
        })
    }

    /// Deletes a whole note (with versions, parts, edges and index entries)
    /// or, for `ID@V{N}` with N != 0, one archived version.
    pub fn delete(&mut self, target: &NoteRef) -> Result<Deleted> {
        match target.selector {
            Some(Selector::Part(_)) => Err(Error::invalid(format!(
                "'{target}': parts cannot be deleted one by one; delete the note"
            ))),
            Some(Selector::Version(0)) => Err(Error::invalid(format!(
                "'{target}' is the current version: use 'keep revert {}' to drop it or 'keep del {}' to delete the note",
                target.id, target.id
            ))),
            Some(Selector::Version(n)) => self.store.write(|db| {
                let rid = db
                    .note_rid(&target.id)?
                    .ok_or_else(|| Error::NotFound(target.id.clone()))?;
                let versions = db.versions(rid)?;
                let index = version_index(target, versions.len(), n)?.expect("n != 0");
                db.delete_version(rid, versions[index].seq)?;
                Ok(Deleted::Version {
                    id: target.id.clone(),
                    version: versions.len() as i64 - index as i64,
                })
            }),
            None => self.store.write(|db| {
                let now = self.clock.now();
                let rid = db
                    .note_rid(&target.id)?
                    .ok_or_else(|| Error::NotFound(target.id.clone()))?;
                let versions = db.version_count(rid)?;
                db.delete_note(rid)?;
                edges::after_note_removed(db, &target.id, now)?;
                Ok(Deleted::Note {
                    id: target.id.clone(),
                    versions,
                })
            }),
        }
    }

    /// The id of the working-intentions note for a scope.
    pub fn now_id(scope: Option<&str>) -> Result<String> {
        match scope {
            None => Ok(note::NOW_ID.to_string()),
            Some(scope) => {
                let id = format!("{}:{scope}", note::NOW_ID);
                if scope.trim().is_empty() {
                    return Err(Error::invalid("the scope is empty"));
                }
                note::validate_id(&id)?;
                Ok(id)
            }
        }
    }
}

/// Writes `next` over `existing` (or as a new note), archiving the existing
/// state when it changes. Keeps edges and the keyword index in step.
fn write_state(
    db: &Db<'_>,
    existing: Option<&(i64, Note)>,
    next: &Note,
    now: Timestamp,
) -> Result<WriteStatus> {
    let (rid, status) = match existing {
        None => (db.insert_note(next)?, WriteStatus::Created),
        Some((rid, old)) => {
            if same_state(old, next) {
                return Ok(WriteStatus::Unchanged);
            }
            if !old.tags.contains_key(STUB_KEY) {
                let vid = db.append_version(*rid, &archived_version(old))?;
                db.copy_vector((VecKind::Note, *rid), (VecKind::Version, vid))?;
            }
            db.update_note(*rid, next)?;
            (*rid, WriteStatus::Updated)
        }
    };
    db.index_note_text(rid, &next.summary, &next.tags)?;
    edges::sync(db, rid, next, existing.map(|(_, n)| n), now)?;
    Ok(status)
}

fn same_state(a: &Note, b: &Note) -> bool {
    a.summary == b.summary && a.tags == b.tags && a.content_hash == b.content_hash
}

fn archived_version(note: &Note) -> Version {
    Version {
        seq: 0,
        summary: note.summary.clone(),
        tags: note.tags.clone(),
        content_hash: note.content_hash.clone(),
        created: note.created,
        updated: note.updated,
    }
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
    }
}

/// Maps `@V{n}` onto an index into versions stored oldest first; `None`
/// means the current state.
fn version_index(target: &NoteRef, archived: usize, n: i64) -> Result<Option<usize>> {
    let archived_i = archived as i64;
    let index = match n {
        0 => return Ok(None),
        n if n > 0 && n <= archived_i => archived_i - n,
        n if n < 0 && -n <= archived_i => -n - 1,
        _ => {
            return Err(Error::invalid(format!(
                "'{target}' is out of range: the note has {archived} archived version(s)"
            )));
        }
    };
    Ok(Some(index as usize))
}

/// `_inverse` may only be written on a `.tag/KEY` note.
fn check_inverse_tag(id: &str, tags: &Tags) -> Result<()> {
    if tags.contains_key(INVERSE_KEY) && !id.starts_with(".tag/") {
        return Err(Error::invalid(format!(
            "bad tag '{INVERSE_KEY}': it declares an edge and belongs on a '.tag/KEY' note"
        )));
    }
    Ok(())
}

fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path)
        .map_err(|e| Error::io(path, e))
        .map(|p| normalize(&p))
}

/// Removes `.` and `..` components without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `file://` URI of an absolute path, with unsafe characters escaped.
pub fn file_id(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A tag filter list from `-t` arguments.
pub fn parse_filters<S: AsRef<str>>(args: &[S]) -> Result<Vec<TagFilter>> {
    args.iter().map(|a| TagFilter::parse(a.as_ref())).collect()
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
    /// Include system notes (ids starting with `.`).
    pub include_system: bool,
}

impl Keeper {
    /// Parses a `FilterSpec` against this keeper's clock.
    pub fn filter(&self, spec: &FilterSpec<'_>) -> Result<NoteFilter> {
        let now = self.now();
        let bound = |text: Option<&str>| text.map(|t| time::parse_bound(t, now)).transpose();
        Ok(NoteFilter {
            pattern: spec.scope.map(str::to_string),
            include_system: spec.include_system,
            tags: parse_filters(spec.tags)?,
            since: bound(spec.since)?,
            until: bound(spec.until)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_ids_escape_unsafe_characters() {
        assert_eq!(
            file_id(Path::new("/tmp/a b/ü.md")),
            "file:///tmp/a%20b/%C3%BC.md"
        );
    }

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
    }
}
