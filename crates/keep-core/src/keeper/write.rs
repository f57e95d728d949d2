//! Writing notes: the next state of a note from new content or from a tag
//! or summary edit, archiving the previous state as a version and keeping
//! the indexes, parts and edges in step, all in one transaction; deletes.

use super::Keeper;
use super::edges;
use super::read::version_index;
use super::redact::{add_redacted, mark_redacted};
use super::truth::{Duplicate, OnDuplicate, truth_tags};
use crate::error::{Advice, Error, Result, Transactions};
use crate::facts::Verdict;
use keep_ingest::summarize;
use keep_model::secrets::Redaction;
use keep_model::time::Timestamp;
use keep_model::{self as model, Note, NoteRef, Part, Selector, TagFilter, Tags, Version, keys};
use keep_store::Embedded;
use keep_store::NoteReads;
use keep_store::prelude::*;
use keep_store::{Db, NoteRid, VecRow};

/// What the caller asks of a `put`, beyond the content.
#[derive(Debug, Clone, Default)]
pub struct PutOptions {
    /// Use this id instead of the one derived from the content.
    pub id: Option<String>,
    /// User tags to add (already parsed with `model::parse_user_tag`).
    pub tags: Tags,
    /// Use this summary instead of one made from the content.
    pub summary: Option<String>,
    /// When the thing the note records happened or began to hold; by
    /// default the document's own date, else when it is stored (a note
    /// whose text is unchanged keeps its time).
    pub at: Option<Timestamp>,
    /// When the note stops being true (`_expires`).
    pub expires: Option<Timestamp>,
    /// Notes this one replaces; each must exist.
    pub supersedes: Vec<String>,
    /// How much the note matters, 1 to 5 (`_importance`); None keeps what
    /// the note had.
    pub importance: Option<u8>,
    /// What to do when text put without an id means nearly what a note
    /// already says.
    pub on_duplicate: OnDuplicate,
    /// A scope: the write may only change notes carrying these tags (an
    /// existing note without them is refused), and duplicates are looked
    /// for only among them.
    pub within: Vec<TagFilter>,
    /// Keep secrets as written for this write (the owner's
    /// `--allow-secrets`); front ends for other callers never set it.
    pub keep_secrets: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WriteStatus {
    /// A new note was stored.
    Created,
    /// The note changed; its previous state was archived as a version.
    Updated,
    /// Nothing changed.
    Unchanged,
    /// Nothing was stored: the note `duplicate_of` already says the same.
    Duplicate,
    /// A new note was stored that probably updates the note
    /// `possible_update_of` (it says the same of the same subject with
    /// another detail); it is linked to it with `may-supersede` until
    /// `supersede` accepts it or the tag is removed.
    PossibleUpdate,
}

impl WriteStatus {
    /// Whether the text given is now stored (as a note, or as a version).
    pub fn stored(self) -> bool {
        !matches!(self, WriteStatus::Duplicate)
    }
}

#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct WriteOutcome {
    pub id: String,
    pub status: WriteStatus,
    /// The existing note the text restates (`status` is `duplicate`, or
    /// `updated` when asked to update it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    /// The existing note the text probably updates (`status` is
    /// `possible_update`, or `updated` when asked to update it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub possible_update_of: Option<String>,
    /// Cosine similarity of the text to that note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// What tells the text from that note ("30 seconds -> 30 minutes").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub differences: Vec<String>,
    /// Secrets replaced by a marker before the text was stored.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<Redaction>,
}

impl WriteOutcome {
    pub(super) fn plain(id: String, status: WriteStatus) -> Self {
        WriteOutcome {
            id,
            status,
            duplicate_of: None,
            possible_update_of: None,
            similarity: None,
            differences: Vec::new(),
            redacted: Vec::new(),
        }
    }

    fn redacting(mut self, found: Vec<Redaction>) -> Self {
        self.redacted = found;
        self
    }

    /// Names the note `found` that the text restates or updates.
    fn naming(mut self, found: Duplicate) -> Self {
        match found.verdict {
            Verdict::Same => self.duplicate_of = Some(found.id),
            _ => self.possible_update_of = Some(found.id),
        }
        self.similarity = Some(found.similarity);
        self.differences = found.differences;
        self
    }
}

/// How `delete` removes a whole note.
#[derive(Debug, Clone, Default)]
pub struct DeleteHow {
    /// For good, not to the trash.
    pub purge: bool,
    /// Why, kept with the note in the trash.
    pub reason: Option<String>,
}

/// Tag changes for `tag`.
#[derive(Debug, Clone, Default)]
pub struct TagEdit {
    pub add: Tags,
    pub remove_keys: Vec<String>,
    pub remove_values: Vec<(String, String)>,
    /// Keep secrets in the values added as written (`--allow-secrets`).
    pub keep_secrets: bool,
}

/// What was removed by `delete`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase", tag = "deleted")]
pub enum Deleted {
    /// The note went to the trash, with its history; `restore` brings it
    /// back.
    Trashed {
        id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The whole note with its history, for good: no text of it is left
    /// in the store's files.
    Note {
        id: String,
        versions: i64,
        /// Backups made since the note existed: they still hold it.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        backups: Vec<String>,
        /// Another process was reading the store, so SQLite's write-ahead
        /// log could not be emptied yet: copies of the pages from before
        /// the purge stay in it until its next checkpoint.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        log_kept: bool,
        /// Another process was refreshing the vector indexes, so the
        /// note's codes stay in an index file beside the database until
        /// that refresh finishes (it takes them out).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        index_kept: bool,
    },
    /// One archived version.
    Version { id: String, version: i64 },
}

/// Text ready to store: its id, content, tags and parts.
pub(super) struct Content {
    pub(super) id: String,
    pub(super) text: String,
    pub(super) hash: String,
    pub(super) system_tags: Tags,
    /// Tags from the file's metadata; user tags win over them.
    pub(super) provider_tags: Tags,
    /// A line the format provides (audio, images), put before the text.
    pub(super) description: Option<String>,
    /// The opening the format marks as what the document is about (a
    /// manual page's description): the summary is made from it.
    pub(super) lead: Option<String>,
    /// Chunks of long text, stored as parts.
    pub(super) parts: Vec<keep_ingest::chunk::Chunk>,
    /// Tags of each part, by index (a conversation's turns: speaker and
    /// time); parts beyond the list have none of their own.
    pub(super) part_tags: Vec<Tags>,
    /// The `_dates` in `system_tags` were resolved by the caller (turn by
    /// turn, each against its own time); else they are read from the text.
    pub(super) dates_given: bool,
    /// Secrets the screen replaced in the text, its parts, the caller's
    /// summary and tags (`Screen`); they become `_redacted`.
    pub(super) redacted: Vec<Redaction>,
}

/// Writes `content` as the next state of its note, inside a transaction.
pub(super) fn write_content(
    db: &Db<'_>,
    content: &Content,
    opts: &PutOptions,
    now: Timestamp,
) -> Result<WriteStatus> {
    model::validate_id(&content.id)?;
    check_inverse_tag(&content.id, &opts.tags)?;
    let summary = summary_for(content, opts)?;
    // The full text is indexed unless the summary already is that text (a
    // short document's summary can leave out what is not prose).
    let body = if summary == content.text {
        String::new()
    } else {
        content.text.clone()
    };
    let existing = db.note(&content.id)?;
    if let Some((_, note)) = &existing {
        check_scope(&content.id, note, &opts.within)?;
    }
    let mut tags = match &existing {
        Some((_, n)) => n.tags.clone(),
        None => Tags::new(),
    };
    tags.remove_key(keys::STUB);
    tags.remove_key(keys::OCR);
    tags.remove_key(keys::DELETED);
    // New text: what models made of the old text no longer holds.
    for key in [
        keys::SUMMARIZE,
        keys::SUMMARY_MODEL,
        keys::TRANSCRIBE,
        keys::TRANSCRIPT_MODEL,
        keys::PARTS_MODEL,
    ] {
        tags.remove_key(key);
    }
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
    mark_redacted(&mut tags, &content.redacted);
    let author = db.agent();
    let origin = keys::origin_of(
        tags.first(keys::SOURCE),
        keep_store::operations::author_of(&author).0,
    );
    tags.remove_key(keys::ORIGIN);
    tags.insert(keys::ORIGIN, origin);
    add_truth_tags(db, &content.id, &mut tags, opts)?;
    let at = event_time(content, opts, existing.as_ref().map(|(_, n)| n), now);
    if !content.dates_given {
        set_spoken_dates(&mut tags, &content.text, at);
    }
    let next = Note {
        id: content.id.clone(),
        summary,
        tags,
        content_hash: Some(content.hash.clone()),
        created: existing.as_ref().map_or(now, |(_, n)| n.created),
        updated: now,
        accessed: now,
        at,
    };
    // The text changed, or it was read again now that OCR is installed.
    let new_text = existing.as_ref().is_none_or(|(_, n)| {
        n.content_hash != next.content_hash
            || n.tags.contains_key(keys::OCR)
            || n.tags.contains_key(keys::TRANSCRIBE)
    });
    let status = write_state(db, existing.as_ref(), &next, now)?;
    if status != WriteStatus::Unchanged && new_text {
        let rid = db.note_rid(&next.id)?.expect("just written");
        db.index_note_body(rid, &body)?;
        let title = next.tags.first("title");
        let parts: Vec<Part> = content
            .parts
            .iter()
            .enumerate()
            .map(|(i, chunk)| {
                let mut tags = section_tags(title, chunk.section.as_deref());
                if let Some(own) = content.part_tags.get(i) {
                    tags.merge(own);
                }
                Part {
                    number: i as u32 + 1,
                    summary: chunk.text.clone(),
                    tags,
                }
            })
            .collect();
        let carried = match &existing {
            Some(_) => db.part_vectors(rid)?,
            None => Vec::new(),
        };
        db.replace_parts(rid, &parts)?;
        db.restore_part_vectors(rid, &carried)?;
    }
    Ok(status)
}

/// When the state written from `content` began to hold: the time the
/// caller gives, else the document's own date (a photo's, a page's), else
/// the old time when the text is unchanged, else `now`.
fn event_time(
    content: &Content,
    opts: &PutOptions,
    existing: Option<&Note>,
    now: Timestamp,
) -> Timestamp {
    if let Some(at) = opts.at {
        return at;
    }
    if let Some(dated) = own_date(&content.provider_tags) {
        return dated;
    }
    match existing {
        Some(old) if old.content_hash.as_deref() == Some(content.hash.as_str()) => old.at,
        _ => now,
    }
}

/// Replaces the `_dates` of `tags` with the days `text` speaks of, read
/// as said at `at`.
pub(super) fn set_spoken_dates(tags: &mut Tags, text: &str, at: Timestamp) {
    tags.remove_key(keys::DATES);
    for spoken in keep_model::dates::spoken_dates(text, at) {
        tags.insert(keys::DATES, spoken.start.to_string());
    }
}

/// The date a document's metadata gives: a photo's `taken`, a page's
/// `published` (a timestamp, a local time read as UTC, or a date).
pub(super) fn own_date(tags: &Tags) -> Option<Timestamp> {
    ["taken", "published"]
        .iter()
        .filter_map(|key| tags.first(key))
        .find_map(keep_model::time::parse_loose)
}

/// Adds the tags `--expires` and `--supersedes` ask for to `tags`: a new
/// expiry replaces the old one.
pub(super) fn add_truth_tags(
    db: &Db<'_>,
    id: &str,
    tags: &mut Tags,
    opts: &PutOptions,
) -> Result<()> {
    let truth = truth_tags(db, id, opts.expires, &opts.supersedes)?;
    if truth.contains_key(keys::EXPIRES) {
        tags.remove_key(keys::EXPIRES);
    }
    tags.merge(&truth);
    if let Some(importance) = opts.importance {
        if !(1..=5).contains(&importance) {
            return Err(Error::invalid(format!(
                "importance is 1 to 5 (3 is usual), not {importance}"
            )));
        }
        tags.remove_key(keys::IMPORTANCE);
        tags.insert(keys::IMPORTANCE, importance.to_string());
    }
    Ok(())
}

/// Refuses to change a note outside the scope a write is confined to.
pub(super) fn check_scope(id: &str, note: &Note, within: &[TagFilter]) -> Result<()> {
    if within.iter().all(|f| f.matches(&note.tags)) {
        Ok(())
    } else {
        Err(Error::Taken(id.to_string()))
    }
}

/// The summary a note gets from `content`: the caller's, or one made from
/// the text.
fn summary_for(content: &Content, opts: &PutOptions) -> Result<String> {
    let summary = match &opts.summary {
        Some(s) if s.trim().is_empty() => return Err(Error::invalid("the summary is empty")),
        Some(s) => s.trim().to_string(),
        None => summary_of(content, opts),
    };
    if summary.is_empty() {
        return Err(keep_ingest::Error::NoText {
            what: content.id.clone(),
        }
        .into());
    }
    Ok(summary)
}

/// A part's `_section` tag: the document's title, then the headings the
/// part sits under (`Guide > Install > On Debian`).
pub(super) fn section_tags(title: Option<&str>, section: Option<&str>) -> Tags {
    let mut path: Vec<&str> = title.into_iter().collect();
    for heading in section.into_iter().flat_map(|s| s.split(" > ")) {
        if path.last() != Some(&heading) && !(path.len() == 1 && title == Some(heading)) {
            path.push(heading);
        }
    }
    let mut tags = Tags::new();
    if !path.is_empty() {
        tags.insert(keys::SECTION, path.join(" > "));
    }
    tags
}

/// The description (if any), then the summary of the text: inline text
/// as written (summarised when long), a document's prose.
fn summary_of(content: &Content, opts: &PutOptions) -> String {
    let authored = content.system_tags.contains(keys::SOURCE, "inline")
        || content
            .system_tags
            .contains(keys::CONTENT_TYPE, "text/plain")
        || content
            .system_tags
            .contains(keys::CONTENT_TYPE, "text/markdown");
    let text = if let Some(lead) = content.lead.as_deref().filter(|l| says_something(l)) {
        summarize::summarize_lead(lead)
    } else if authored {
        summarize::summarize(&content.text)
    } else {
        let has_title =
            content.provider_tags.contains_key("title") || opts.tags.contains_key("title");
        summarize::summarize_document(&content.text, has_title)
    };
    // What a file says (an image's words, read by OCR) is its summary; the
    // format's description (size, camera) only stands in when it says
    // nothing, and stays in the tags.
    match &content.description {
        Some(d) if !says_something(&text) => d.clone(),
        _ => text,
    }
}

/// Whether text holds words: two or more of three letters or more (not
/// the specks OCR reads in a photo without writing).
fn says_something(text: &str) -> bool {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 3)
        .nth(1)
        .is_some()
}

/// Text put inline, before its parts are cut.
fn inline_content(text: &str, source: &str, opts: &PutOptions) -> Result<Content> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::invalid("nothing to put: the text is empty"));
    }
    let id = match &opts.id {
        Some(id) => id.clone(),
        None => model::inline_id(text),
    };
    let mut system_tags = Tags::new();
    system_tags.insert(keys::SOURCE, source);
    system_tags.insert(keys::CONTENT_TYPE, "text/plain");
    Ok(Content {
        id,
        hash: model::content_hash(text.as_bytes()),
        text: text.to_string(),
        system_tags,
        provider_tags: Tags::new(),
        description: None,
        lead: None,
        parts: Vec::new(),
        part_tags: Vec::new(),
        dates_given: false,
        redacted: Vec::new(),
    })
}

/// Whether `put_text` with `opts` compares the text's meaning with the
/// notes stored (which needs its embedding).
fn probes_duplicates(opts: &PutOptions) -> bool {
    opts.on_duplicate != OnDuplicate::Store && opts.id.is_none()
}

/// The text whose embedding `put_text` would compute for its duplicate
/// check, so that a server can have it embedded ahead of the write; None
/// when it makes none. Its secrets are redacted as the store's default
/// screen does (a store that keeps them embeds once more at the write).
pub fn text_to_probe(text: &str, opts: &PutOptions) -> Option<String> {
    if !probes_duplicates(opts) {
        return None;
    }
    let (text, _) = keep_model::secrets::redact(text, "text");
    let content = inline_content(&text, "inline", opts).ok()?;
    summary_for(&content, opts).ok()
}

impl Keeper {
    /// Stores text. Without an id, it is first judged against the notes
    /// stored: a restatement is reported (or becomes that note's next
    /// version with `OnDuplicate::Update`), a probable update is stored
    /// linked to the note it updates (`may-supersede`).
    pub fn put_text(
        &mut self,
        text: &str,
        source: &str,
        mut opts: PutOptions,
    ) -> Result<WriteOutcome> {
        self.confine_put(&mut opts, "put")?;
        let mut screen = self.screen(opts.keep_secrets);
        screen.given(&mut opts.summary, &mut opts.tags);
        let text = screen.text(text, "text");
        let mut content = inline_content(&text, source, &opts)?;
        content.redacted = screen.take();
        if opts.id.is_none() {
            content.id = model::scoped_inline_id(&content.text, &self.caller.scope);
        }
        content.parts = keep_ingest::chunk::sectioned(&content.text);
        let probe = if probes_duplicates(&opts) && self.store.db().note_rid(&content.id)?.is_none()
        {
            self.probe_duplicate(&summary_for(&content, &opts)?, &opts.tags, &opts.within)?
        } else {
            None
        };
        let Some(probe) = probe else {
            return self.put_content(content, opts);
        };
        // A note the caller already says this one supersedes is no news.
        let found = probe
            .duplicate
            .clone()
            .filter(|d| !(d.verdict == Verdict::Update && opts.supersedes.contains(&d.id)));
        match (&found, opts.on_duplicate) {
            (Some(d), OnDuplicate::Report) if d.verdict == Verdict::Same => {
                return Ok(WriteOutcome::plain(d.id.clone(), WriteStatus::Duplicate)
                    .naming(d.clone())
                    .redacting(content.redacted));
            }
            (Some(d), OnDuplicate::Update) => content.id = d.id.clone(),
            (Some(d), _) => opts.tags.insert(keys::MAY_SUPERSEDE, d.id.clone()),
            (None, _) => {}
        }
        let updates_in_place = opts.on_duplicate == OnDuplicate::Update;
        let mut outcome = self.put_content(content, opts)?;
        if outcome.status != WriteStatus::Unchanged {
            self.keep_probe_vector(&outcome.id, &probe)?;
        }
        if let Some(d) = found {
            if !updates_in_place && outcome.status == WriteStatus::Created {
                outcome.status = WriteStatus::PossibleUpdate;
            }
            outcome = outcome.naming(d);
        }
        Ok(outcome)
    }

    /// Holds a put to the caller's rights: a reader is refused, the
    /// scope's tags are added (another value of a scope key is refused),
    /// only notes inside the scope may be changed or compared with, and
    /// each note superseded must be one the caller may change.
    pub(super) fn confine_put(&self, opts: &mut PutOptions, what: &str) -> Result<()> {
        self.caller.may_write(what)?;
        opts.tags = self.caller.scoped_tags(std::mem::take(&mut opts.tags))?;
        opts.within.extend(self.caller.filters());
        for old in &opts.supersedes {
            self.may_change(old, "supersede")?;
        }
        Ok(())
    }

    fn put_content(&mut self, mut content: Content, opts: PutOptions) -> Result<WriteOutcome> {
        self.queue_provider_work(&mut content, opts.summary.is_some());
        let now = self.now();
        let status = self
            .store
            .transact(|db| write_content(db, &content, &opts, now))?;
        Ok(WriteOutcome::plain(content.id, status).redacting(content.redacted))
    }

    /// Adds and removes tags; a change archives the previous state.
    pub fn tag(&mut self, id: &str, edit: &TagEdit) -> Result<WriteOutcome> {
        self.may_change(id, "tag")?;
        self.caller.refuses_foreign_values(&edit.add)?;
        self.caller
            .refuses_leaving(&edit.remove_keys, &edit.remove_values)?;
        check_inverse_tag(id, &edit.add)?;
        for key in edit
            .remove_keys
            .iter()
            .chain(edit.remove_values.iter().map(|(k, _)| k))
        {
            if model::is_system_key(key) && key != keys::INVERSE {
                return Err(Error::invalid(format!(
                    "cannot remove '{key}': keys starting with '_' are managed by keep"
                )));
            }
        }
        let mut added = edit.add.clone();
        let mut screen = self.screen(edit.keep_secrets);
        screen.tags(&mut added);
        let found = screen.take();
        let now = self.now();
        let summaries_follow_tags = self.settings.providers.summarize.is_some();
        self.store.transact(|db| {
            let (rid, current) = db.note(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
            let mut next = current.clone();
            for key in &edit.remove_keys {
                next.tags.remove_key(key);
            }
            for (k, v) in &edit.remove_values {
                next.tags.remove_value(k, v);
            }
            next.tags.merge(&added);
            add_redacted(&mut next.tags, &found);
            // A model's summary was written for the reader the tags
            // describe: new tags ask for a new one.
            if summaries_follow_tags
                && next.tags.contains_key(keys::SUMMARY_MODEL)
                && next.tags.user_tags() != current.tags.user_tags()
            {
                next.tags.remove_key(keys::SUMMARIZE);
                next.tags.insert(keys::SUMMARIZE, "pending");
            }
            next.updated = now;
            next.accessed = now;
            let status = write_state(db, Some(&(rid, current)), &next, now)?;
            Ok(WriteOutcome::plain(id.to_string(), status).redacting(found.clone()))
        })
    }

    /// Replaces a note's summary, keeping its tags and content; a change
    /// archives the previous state and the note is embedded again.
    pub fn set_summary(&mut self, id: &str, summary: &str) -> Result<WriteOutcome> {
        self.may_change(id, "a new summary")?;
        let summary = summary.trim();
        if summary.is_empty() {
            return Err(Error::invalid("the summary is empty"));
        }
        let mut screen = self.screen(false);
        let summary = screen.text(summary, "summary");
        let found = screen.take();
        let now = self.now();
        self.store.transact(|db| {
            let (rid, current) = db.note(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
            let mut next = current.clone();
            next.summary = summary.clone();
            add_redacted(&mut next.tags, &found);
            next.updated = now;
            next.accessed = now;
            let status = write_state(db, Some(&(rid, current)), &next, now)?;
            Ok(WriteOutcome::plain(id.to_string(), status).redacting(found.clone()))
        })
    }

    /// Puts a whole note in the trash (or, with `how.purge` or no time
    /// in the trash configured, removes it for good with its versions,
    /// parts, edges and index entries); for `ID@V{N}` with N != 0, removes
    /// that archived version. Notes in the trash longer than the
    /// configured time go for good first.
    pub fn delete(&mut self, target: &NoteRef, how: &DeleteHow) -> Result<Deleted> {
        self.may_change(&target.id, "delete")?;
        self.purge_old_trash()?;
        if target.selector.is_none() && !how.purge && self.settings.trash_days > 0.0 {
            return self.trash(&target.id, how.reason.as_deref());
        }
        match target.selector {
            Some(Selector::Part(_)) => Err(Error::invalid(format!(
                "'{target}': parts cannot be deleted one by one; delete the note"
            ))),
            Some(Selector::Version(0)) => Err(Error::Refused {
                message: format!("'{target}' is the current version, not an archived one"),
                advice: Advice::RevertOrDelete(target.id.clone()),
            }),
            Some(Selector::Version(n)) => {
                let now = self.now();
                let (deleted, _) = self.store.purge_for_good(|db| {
                    let rid = db
                        .note_rid(&target.id)?
                        .ok_or_else(|| Error::NotFound(target.id.clone()))?;
                    let versions = db.versions(rid)?;
                    let index = version_index(target, versions.len(), n)?.expect("n != 0");
                    db.delete_version(rid, versions[index].seq)?;
                    let version = versions.len() as i64 - index as i64;
                    db.log_operation(
                        now,
                        "delete-version",
                        &target.id,
                        versions.len() as i64,
                        &format!("@V{{{version}}}"),
                    )?;
                    Ok::<_, Error>(Deleted::Version {
                        id: target.id.clone(),
                        version,
                    })
                })?;
                Ok(deleted)
            }
            None => self.purge_note(&target.id),
        }
    }

    /// The id of the working-intentions note for a scope.
    pub fn now_id(scope: Option<&str>) -> Result<String> {
        match scope {
            None => Ok(model::NOW_ID.to_string()),
            Some(scope) => {
                let id = format!("{}:{scope}", model::NOW_ID);
                if scope.trim().is_empty() {
                    return Err(Error::invalid("the scope is empty"));
                }
                model::validate_id(&id)?;
                Ok(id)
            }
        }
    }
}

/// Writes `next` over `existing` (or as a new note), archiving the existing
/// state when it changes, and names its author in `_agent`. Keeps edges
/// and the keyword index in step.
pub(super) fn write_state(
    db: &Db<'_>,
    existing: Option<&(NoteRid, Note)>,
    next: &Note,
    now: Timestamp,
) -> Result<WriteStatus> {
    let mut next = next.clone();
    next.tags.remove_key(keys::AGENT);
    if let Some((_, old)) = existing
        && same_state(old, &next)
    {
        return Ok(WriteStatus::Unchanged);
    }
    next.tags.insert(
        keys::AGENT,
        keep_store::operations::author_of(&db.agent()).0,
    );
    let next = &next;
    let (rid, status) = match existing {
        None => (db.insert_indexed_note(next)?, WriteStatus::Created),
        Some((rid, old)) => {
            if !old.tags.contains_key(keys::STUB) {
                let vid = db.append_version(*rid, &archived_version(old))?;
                db.copy_vector(VecRow::Note(*rid), VecRow::Version(vid))?;
            }
            db.update_note(*rid, next)?;
            db.index_note_text(*rid, &next.summary, &next.tags)?;
            (*rid, WriteStatus::Updated)
        }
    };
    edges::sync(db, rid, next, existing.map(|(_, n)| n), now)?;
    let (op, detail) = operation_of(existing.map(|(_, n)| n), next);
    db.log_operation(now, op, &next.id, db.version_count(rid)? + 1, detail)?;
    Ok(status)
}

/// What a write did, for the operations log, and what more there is to
/// say about it.
fn operation_of<'a>(old: Option<&Note>, next: &'a Note) -> (&'static str, &'a str) {
    let Some(old) = old else {
        return ("create", "");
    };
    let trashed = |n: &Note| n.tags.contains_key(keys::DELETED);
    match (trashed(old), trashed(next)) {
        (false, true) => ("trash", next.tags.first(keys::DELETED_REASON).unwrap_or("")),
        (true, false) => ("restore", ""),
        _ if old.summary != next.summary || old.content_hash != next.content_hash => ("update", ""),
        _ => ("tag", ""),
    }
}

/// Whether `next` (without an author) says what `old` says, whoever
/// wrote `old` and whichever way it came in (`_origin` follows the
/// author).
fn same_state(old: &Note, next: &Note) -> bool {
    let mut old_tags = old.tags.clone();
    old_tags.remove_key(keys::AGENT);
    old_tags.remove_key(keys::ORIGIN);
    let mut next_tags = next.tags.clone();
    next_tags.remove_key(keys::ORIGIN);
    old.summary == next.summary
        && old_tags == next_tags
        && old.content_hash == next.content_hash
        && old.at == next.at
}

pub(super) fn archived_version(note: &Note) -> Version {
    Version {
        seq: 0,
        summary: note.summary.clone(),
        tags: note.tags.clone(),
        content_hash: note.content_hash.clone(),
        created: note.created,
        updated: note.updated,
        at: note.at,
    }
}

/// `_inverse` may only be written on a `.tag/KEY` note.
pub(super) fn check_inverse_tag(id: &str, tags: &Tags) -> Result<()> {
    if tags.contains_key(keys::INVERSE) && !id.starts_with(".tag/") {
        return Err(Error::invalid(format!(
            "bad tag '{}': it declares an edge and belongs on a '.tag/KEY' note",
            keys::INVERSE
        )));
    }
    Ok(())
}
