//! Export and import as JSON Lines: a header line, then one note per line
//! with its tags, full history and parts, and the vector of each (base64
//! of little-endian f32, the model named in the header), then the
//! operations log, oldest first, one entry per line. Export → import into
//! an empty store → export gives the same notes and the same log, which
//! has gained the import's own entries.

use keep_store::prelude::*;
use std::collections::HashSet;
use std::io::{BufRead, Seek, Write};

use sha2::Digest;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};

use super::redact::{Redacted, Screen, add_redacted};
use super::{Keeper, edges};
use crate::error::{Error, Notice, Result, Transactions};
use keep_model::time::Timestamp;
use keep_model::{self as model, Note, Part, Tags, Version};
use keep_store::NoteReads;
use keep_store::operations::Operation;
use keep_store::{Db, NoteRid, PartRid, VecRow, VectorSpace, VersionRid};

const FORMAT: &str = "keep-export";
/// 2 added ratings, 3 the operations log, 4 event times (`at`); older
/// files still import.
const FORMAT_VERSION: u32 = 4;

/// Operations an export may name.
const LOGGED_OPS: &[&str] = &[
    "create",
    "update",
    "tag",
    "trash",
    "restore",
    "revert",
    "purge",
    "delete-version",
    "move",
    "import",
];

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    format: String,
    version: u32,
    /// The model that made the vectors in this export, when it has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vectors: Option<HeaderVectors>,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct HeaderVectors {
    model: String,
    dimensions: usize,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    id: String,
    summary: String,
    tags: Tags,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    created: Timestamp,
    updated: Timestamp,
    accessed: Timestamp,
    /// When the current state began to hold; files before version 4 have
    /// none, and a note then began when it was created (or, with
    /// versions, when its current state was written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    at: Option<Timestamp>,
    /// Archived versions, oldest first.
    #[serde(default)]
    versions: Vec<VersionRecord>,
    #[serde(default)]
    parts: Vec<PartRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vector: Option<String>,
    /// `rate` counts, when the note was ever rated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rating: Option<RatingRecord>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RatingRecord {
    useful: i64,
    wrong: i64,
    /// When the note was last rated.
    updated: Timestamp,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct VersionRecord {
    summary: String,
    tags: Tags,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    created: Timestamp,
    updated: Timestamp,
    /// When this state began to hold (absent before version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vector: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PartRecord {
    number: u32,
    summary: String,
    #[serde(default)]
    tags: Tags,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vector: Option<String>,
}

/// A line of the operations log.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct OperationLine {
    operation: OperationRecord,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct OperationRecord {
    at: Timestamp,
    agent: String,
    op: String,
    note: String,
    version: i64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    detail: String,
}

impl From<Operation> for OperationRecord {
    fn from(o: Operation) -> Self {
        OperationRecord {
            at: o.at,
            agent: o.agent,
            op: o.op,
            note: o.note,
            version: o.version,
            detail: o.detail,
        }
    }
}

impl OperationRecord {
    fn to_operation(&self) -> Operation {
        Operation {
            seq: 0,
            at: self.at,
            agent: self.agent.clone(),
            op: self.op.clone(),
            note: self.note.clone(),
            version: self.version,
            detail: self.detail.clone(),
        }
    }
}

/// Notes read from the store at a time while exporting.
const EXPORT_PAGE: usize = 500;
/// Log entries read from the store at a time while exporting.
const LOG_PAGE: usize = 5_000;
/// Notes written in one transaction while importing...
const IMPORT_BATCH: usize = 5_000;
/// ...or fewer, once their lines hold this many bytes...
const IMPORT_BATCH_BYTES: usize = 64 << 20;
/// ...written a thousand at a time, with progress after each.
const IMPORT_STEP: usize = 1_000;
/// Ids of skipped notes an import reports by name; the rest are counted.
pub const LISTED_SKIPS: usize = 10_000;
/// The store setting that records an import of one file, by its digest:
/// when it began, and whether it has finished.
const IMPORT_META_PREFIX: &str = "import:";

/// What the first pass over an export file found: every line well formed.
struct Checked {
    header: Header,
    notes: usize,
    /// The sha256 of the file's lines, naming this import in the store.
    digest: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImportOutcome {
    pub imported: usize,
    /// Ids already in the store, left as they were (the first
    /// `LISTED_SKIPS` of them).
    pub skipped: Vec<String>,
    /// How many ids were already in the store.
    pub skipped_count: usize,
    /// Vectors loaded with the notes (notes, versions and parts).
    pub vectors: usize,
    /// Rows that wait for embedding: no vector in the file, or one refused.
    pub waiting: usize,
    /// One line per vector (or model) refused.
    pub notices: Vec<Notice>,
    /// Entries of the file's operations log added to this store's.
    pub log_entries: usize,
    /// An earlier import of this file was stopped before it finished and
    /// this one completed it.
    pub resumed: bool,
    /// Notes imported with secrets replaced by a marker (their vectors,
    /// made from the secret, left behind to be made again), and which.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<Redacted>,
}

/// The passes of an import, as its progress reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportStep {
    /// Every line checked; progress counts bytes of the file.
    Checking,
    /// The file's log added; progress counts bytes of the file.
    Log,
    /// The notes written; progress counts notes.
    Notes,
}

/// An import of one file as the store records it (`IMPORT_META_PREFIX`).
#[derive(Serialize, Deserialize, Clone, Copy)]
struct ImportRun {
    /// When the import began: the time of its log entries.
    began: Timestamp,
    /// Its first write dropped the vector indexes, to build them once at
    /// the end.
    #[serde(default)]
    indexes_deferred: bool,
    /// The file's log is in (its pass comes first).
    #[serde(default)]
    log_restored: bool,
    #[serde(default)]
    finished: bool,
}

impl Keeper {
    /// Writes every note, system notes included, with their vectors
    /// unless `vectors` is false, then the operations log; returns how
    /// many notes. The store is read a page at a time from one snapshot:
    /// memory stays small whatever its size, and writes made meanwhile by
    /// others are not half seen. `progress` hears how many notes are
    /// written, and of how many.
    pub fn export(
        &mut self,
        out: &mut dyn Write,
        vectors: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<usize> {
        self.caller.must_see_everything("export")?;
        self.store.snapshot(|db| {
            let space = write_header(db, out, vectors)?;
            let total = db.note_count()?;
            let mut count = 0;
            let mut after: Option<String> = None;
            loop {
                let page = db.notes_after(after.as_deref(), EXPORT_PAGE)?;
                let Some((_, last)) = page.last() else {
                    break;
                };
                after = Some(last.id.clone());
                for (rid, note) in &page {
                    write_note(db, out, space.as_ref(), *rid, note)?;
                    count += 1;
                    progress(count, total);
                }
            }
            export_log(db, out, |_| true)?;
            Ok(count)
        })
    }

    /// Writes the notes `ids` in the same format as `export`, in the order
    /// given; an id that is not in the store is an error and nothing is
    /// written.
    pub fn export_some(
        &mut self,
        out: &mut dyn Write,
        vectors: bool,
        ids: &[String],
    ) -> Result<usize> {
        for id in ids {
            self.may_read(id)?;
        }
        self.store.snapshot(|db| {
            let mut notes = Vec::with_capacity(ids.len());
            for id in ids {
                let found = db.note(id)?.ok_or_else(|| Error::NotFound(id.clone()))?;
                notes.push(found);
            }
            let space = write_header(db, out, vectors)?;
            for (rid, note) in &notes {
                write_note(db, out, space.as_ref(), *rid, note)?;
            }
            let wanted: HashSet<&str> = ids.iter().map(String::as_str).collect();
            export_log(db, out, |o| wanted.contains(o.note.as_str()))?;
            Ok(notes.len())
        })
    }

    /// Reads an export in three passes, so that memory stays small
    /// whatever its size: every line is checked before anything is
    /// written (a malformed line writes nothing); then the file's log is
    /// added, in one transaction; then the notes are written in batches of
    /// `IMPORT_BATCH`, each batch one transaction. Ids already present are
    /// skipped and reported. An import stopped part way (killed, a full
    /// disk) is completed by importing the same file again: what is in is
    /// skipped, and the log is not added twice.
    /// `progress(step, done, total)` hears how far each pass is.
    pub fn import<R: BufRead + Seek>(
        &mut self,
        input: &mut R,
        name: &str,
        progress: &mut dyn FnMut(ImportStep, usize, usize),
    ) -> Result<ImportOutcome> {
        self.caller.must_own("import")?;
        let size = input
            .seek(std::io::SeekFrom::End(0))
            .map_err(|e| Error::io(name, e))?;
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        rewind(input, name)?;
        let checked = check_export(input, name, &mut |done| {
            progress(ImportStep::Checking, done, size);
        })?;
        let meta_key = format!("{IMPORT_META_PREFIX}{}", &checked.digest[..32]);
        let earlier: Option<ImportRun> = self
            .store
            .db()
            .meta(&meta_key)?
            .and_then(|v| serde_json::from_str(&v).ok());
        let resumed = earlier.is_some_and(|r| !r.finished);
        let mut run = match earlier {
            Some(run) if !run.finished => run,
            _ => ImportRun {
                began: self.now(),
                indexes_deferred: false,
                log_restored: false,
                finished: false,
            },
        };
        let mut log_entries = 0;
        if !run.log_restored {
            rewind(input, name)?;
            log_entries = self.import_log(input, name, &meta_key, &mut run, &mut |done| {
                progress(ImportStep::Log, done, size);
            })?;
        }
        rewind(input, name)?;
        let mut written = NotesWritten::default();
        self.import_notes(
            input,
            name,
            &checked,
            &meta_key,
            &mut run,
            &mut written,
            &mut |done, total| progress(ImportStep::Notes, done, total),
        )?;
        self.store.transact(|db| {
            if run.indexes_deferred {
                db.build_vector_indexes()?;
            }
            run.finished = true;
            Ok(db.set_meta(&meta_key, &run.to_json())?)
        })?;
        progress(ImportStep::Notes, checked.notes, checked.notes);
        let mut notices = written.load.notices;
        // The notes are in; statistics that could not be refreshed (a full
        // disk) only make the next plans less informed, and word totals left
        // uncompacted (a reader holding them) only slow the next writes.
        if let Err(e) = self.store.db().after_bulk_load() {
            notices.push(Notice::new(format!(
                "the store's statistics or word totals were not brought up to date: {e}"
            )));
        }
        Ok(ImportOutcome {
            imported: written.imported,
            skipped_count: written.skipped_count,
            skipped: written.skipped,
            vectors: written.load.vectors,
            waiting: written.load.waiting,
            notices,
            log_entries,
            resumed,
            redacted: written.redacted,
        })
    }

    /// The third pass: every note of the file not in the store, in
    /// batches; a stub (a note that is only the target of a link) is
    /// filled in by the file's note.
    #[allow(clippy::too_many_arguments)]
    fn import_notes<R: BufRead>(
        &mut self,
        input: &mut R,
        name: &str,
        checked: &Checked,
        meta_key: &str,
        run: &mut ImportRun,
        written: &mut NotesWritten,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<()> {
        let mut lines = ExportLines::open(input, name)?;
        let mut first = true;
        let mut done = 0;
        let mut screen = self.screen(false);
        progress(0, checked.notes);
        loop {
            let mut batch = next_batch(&mut lines)?;
            let mut found: std::collections::HashMap<String, Vec<model::secrets::Redaction>> =
                Default::default();
            for (_, record) in &mut batch {
                if record.tags.contains_key(model::keys::SOURCE)
                    && !record.tags.contains_key(model::keys::ORIGIN)
                {
                    record.tags.insert(model::keys::ORIGIN, "imported");
                }
                let secrets = screen_record(&mut screen, record);
                if !secrets.is_empty() {
                    found.insert(record.id.clone(), secrets);
                }
            }
            if batch.is_empty() && !first {
                break;
            }
            let now = run.began;
            let header = &checked.header;
            let total = checked.notes;
            self.store.transact(|db| {
                db.prepare_bulk_load(total)?;
                if first {
                    let new_space = db.vector_space()?.is_none();
                    let space =
                        vector_space_for(db, header.vectors.as_ref(), &mut written.load.notices)?;
                    if new_space && space.is_some() && db.defer_vector_indexes()? {
                        run.indexes_deferred = true;
                    }
                    written.load.space = space;
                    db.set_meta(meta_key, &run.to_json())?;
                }
                let mut batch_notes = Vec::with_capacity(batch.len());
                for chunk in batch.chunks(IMPORT_STEP) {
                    batch_notes.extend(written.write(db, chunk, name, now)?);
                    done += chunk.len();
                    progress(done, total);
                }
                for (_, record) in &batch_notes {
                    if let Some(secrets) = found.remove(&record.id) {
                        written.redacted.push(Redacted {
                            id: record.id.clone(),
                            secrets,
                        });
                    }
                }
                written.load.store(db)?;
                let edge_keys = crate::edges::EdgeKeys::load(db)?;
                let notes: Vec<(NoteRid, Note)> = batch_notes
                    .into_iter()
                    .map(|(rid, record)| (rid, note_of(record)))
                    .collect();
                edges::link_new_notes(db, &edge_keys, &notes, now)?;
                Ok(())
            })?;
            first = false;
        }
        Ok(())
    }

    /// The second pass, the first to write: the file's log entries of the
    /// notes this import is to write (those the store lacks, or holds only
    /// as a stub), in one transaction that records the import, so that
    /// they come before its own entries, as they happened.
    fn import_log<R: BufRead>(
        &mut self,
        input: &mut R,
        name: &str,
        meta_key: &str,
        run: &mut ImportRun,
        progress: &mut dyn FnMut(usize),
    ) -> Result<usize> {
        let mut lines = ExportLines::open(input, name)?;
        progress(0);
        self.store.transact(|db| {
            let mut added = 0;
            let mut chunk = Vec::with_capacity(IMPORT_STEP);
            loop {
                let line = lines.next_line(Some(LineKind::Operation))?;
                lines.report(progress);
                let end = line.is_none();
                if let Some((_, ExportLine::Operation(entry))) = line {
                    chunk.push(entry.to_operation());
                }
                if chunk.len() == IMPORT_STEP || end {
                    added += append_absent(db, &chunk)?;
                    chunk.clear();
                }
                if end {
                    break;
                }
            }
            run.log_restored = true;
            db.set_meta(meta_key, &run.to_json())?;
            Ok(added)
        })
    }
}

/// Appends the entries of `entries` whose note the store lacks (or holds
/// only as a stub): the log of a note this import is to write; how many.
fn append_absent(db: &Db<'_>, entries: &[Operation]) -> Result<usize> {
    let ids: Vec<&str> = entries
        .iter()
        .map(|e| e.note.as_str())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let present = db.note_rids(&ids)?;
    let mut held = HashSet::new();
    for id in present.keys() {
        if holds_more_than_stub(db, id)? {
            held.insert(id.as_str());
        }
    }
    let absent: Vec<Operation> = entries
        .iter()
        .filter(|e| !held.contains(e.note.as_str()))
        .cloned()
        .collect();
    db.append_operations(&absent)?;
    Ok(absent.len())
}

impl ImportRun {
    fn to_json(self) -> String {
        serde_json::to_string(&self).unwrap_or_default()
    }
}

/// Whether the store holds note `id` as more than a stub (a note that is
/// only the target of a link, which an import fills in).
fn holds_more_than_stub(db: &Db<'_>, id: &str) -> Result<bool> {
    let Some(rid) = db.note_rid(id)? else {
        return Ok(false);
    };
    Ok(db
        .note_by_rid(rid)?
        .is_some_and(|n| !(n.tags.contains_key(model::keys::STUB) && n.summary.is_empty())))
}

/// Goes back to the start of the file for the next pass.
fn rewind<R: Seek>(input: &mut R, name: &str) -> Result<()> {
    input
        .seek(std::io::SeekFrom::Start(0))
        .map(|_| ())
        .map_err(|e| Error::io(name, e))
}

/// The next notes to write together: up to `IMPORT_BATCH`, or fewer
/// once their lines pass `IMPORT_BATCH_BYTES`; log lines are passed by.
fn next_batch<R: BufRead>(lines: &mut ExportLines<'_, R>) -> Result<Vec<(usize, Record)>> {
    let mut batch = Vec::new();
    let mut bytes = 0;
    while batch.len() < IMPORT_BATCH && bytes < IMPORT_BATCH_BYTES {
        let Some((number, line)) = lines.next_line(Some(LineKind::Note))? else {
            break;
        };
        if let ExportLine::Note(record) = line {
            bytes += lines.last_len;
            batch.push((number, *record));
        }
    }
    Ok(batch)
}

/// What the notes pass wrote and passed by.
#[derive(Default)]
struct NotesWritten {
    imported: usize,
    skipped: Vec<String>,
    skipped_count: usize,
    load: VectorLoad,
    redacted: Vec<Redacted>,
}

/// Replaces the secrets of an export's record (its summary, tags,
/// versions and parts); a record that held any loses its vectors, which
/// were made from the secret, and waits to be embedded again.
fn screen_record(screen: &mut Screen, record: &mut Record) -> Vec<model::secrets::Redaction> {
    screen.in_place(&mut record.summary, "summary");
    screen.tags(&mut record.tags);
    for (i, v) in record.versions.iter_mut().enumerate() {
        screen.in_place(&mut v.summary, &format!("version {}", i + 1));
        screen.tags(&mut v.tags);
    }
    for p in &mut record.parts {
        screen.in_place(&mut p.summary, &format!("part {}", p.number));
        screen.tags(&mut p.tags);
    }
    let found = screen.take();
    if !found.is_empty() {
        record.vector = None;
        record.versions.iter_mut().for_each(|v| v.vector = None);
        record.parts.iter_mut().for_each(|p| p.vector = None);
        add_redacted(&mut record.tags, &found);
    }
    found
}

impl NotesWritten {
    /// Writes the notes of `batch` the store lacks (a stub is replaced),
    /// many to a statement where the database can; the rid and record of
    /// each written.
    fn write<'r>(
        &mut self,
        db: &Db<'_>,
        batch: &'r [(usize, Record)],
        name: &str,
        now: Timestamp,
    ) -> Result<Vec<(NoteRid, &'r Record)>> {
        let fresh = self.absent(db, batch)?;
        let vectors: Vec<RecordVectors> = fresh
            .iter()
            .map(|&(line, r)| self.load.decode(name, line, r))
            .collect();
        let notes: Vec<(Note, Option<String>)> = fresh
            .iter()
            .zip(&vectors)
            .map(|((_, r), v)| (note_of(r), v.note.as_ref().map(|(hash, _)| hash.clone())))
            .collect();
        let rids = db.insert_indexed_notes(&notes)?;
        let logged: Vec<(&str, i64)> = fresh
            .iter()
            .map(|(_, r)| (r.id.as_str(), r.versions.len() as i64 + 1))
            .collect();
        db.log_operations(now, "import", &logged)?;
        let versions: Vec<(NoteRid, i64, Version, Option<&str>)> =
            rids.iter()
                .zip(fresh.iter().zip(&vectors))
                .flat_map(|(&rid, ((_, r), v))| {
                    r.versions.iter().zip(&v.versions).enumerate().map(
                        move |(i, (version, vector))| {
                            let hash = vector.as_ref().map(|(hash, _)| hash.as_str());
                            (rid, i as i64 + 1, version_of(i, version), hash)
                        },
                    )
                })
                .collect();
        let rows: Vec<(NoteRid, i64, &Version, Option<&str>)> = versions
            .iter()
            .map(|(rid, seq, v, hash)| (*rid, *seq, v, *hash))
            .collect();
        let mut vids = db.insert_versions(&rows)?.into_iter();
        let parts: Vec<(NoteRid, Part, Option<&str>)> = rids
            .iter()
            .zip(fresh.iter().zip(&vectors))
            .flat_map(|(&rid, ((_, r), v))| {
                r.parts.iter().zip(&v.parts).map(move |(part, vector)| {
                    let hash = vector.as_ref().map(|(hash, _)| hash.as_str());
                    (rid, part_of(part), hash)
                })
            })
            .collect();
        let rows: Vec<(NoteRid, &Part, Option<&str>)> = parts
            .iter()
            .map(|(rid, p, hash)| (*rid, p, *hash))
            .collect();
        let mut pids = db.insert_parts(&rows)?.into_iter();
        let mut written = Vec::with_capacity(fresh.len());
        for ((&rid, (_, record)), vectors) in rids.iter().zip(fresh).zip(vectors) {
            if let Some(r) = &record.rating {
                let rating = keep_model::Rating {
                    useful: r.useful,
                    wrong: r.wrong,
                };
                db.set_rating(rid, &rating, r.updated)?;
            }
            let vids: Vec<VersionRid> = vids.by_ref().take(record.versions.len()).collect();
            let pids: Vec<PartRid> = pids.by_ref().take(record.parts.len()).collect();
            self.load.hold(rid, &vids, &pids, vectors);
            written.push((rid, record));
        }
        self.imported += written.len();
        Ok(written)
    }

    /// The notes of `batch` to write: those the store lacks or holds only
    /// as a stub (deleted here, to be replaced); the others are counted
    /// as skipped.
    fn absent<'r>(
        &mut self,
        db: &Db<'_>,
        batch: &'r [(usize, Record)],
    ) -> Result<Vec<(usize, &'r Record)>> {
        let ids: Vec<&str> = batch.iter().map(|(_, r)| r.id.as_str()).collect();
        let present = db.note_rids(&ids)?;
        let mut fresh = Vec::with_capacity(batch.len());
        for (line, record) in batch {
            match present.get(&record.id) {
                Some(_)
                    if record.tags.contains_key(model::keys::STUB)
                        || holds_more_than_stub(db, &record.id)? =>
                {
                    self.skipped_count += 1;
                    if self.skipped.len() < LISTED_SKIPS {
                        self.skipped.push(record.id.clone());
                    }
                    continue;
                }
                Some(&stub) => db.delete_note(stub)?,
                None => {}
            }
            fresh.push((*line, record));
        }
        Ok(fresh)
    }
}

/// Archived version `i` (0 = oldest) of an exported note.
fn version_of(i: usize, v: &VersionRecord) -> Version {
    Version {
        seq: i as i64 + 1,
        summary: v.summary.clone(),
        tags: v.tags.clone(),
        content_hash: v.content_hash.clone(),
        created: v.created,
        updated: v.updated,
        at: v.at.unwrap_or(if i == 0 { v.created } else { v.updated }),
    }
}

/// A part of an exported note.
fn part_of(p: &PartRecord) -> Part {
    Part {
        number: p.number,
        summary: p.summary.clone(),
        tags: p.tags.clone(),
    }
}

/// 128 bits of the sha256 of an id: sets of a million ids stay small.
fn id_digest(id: &str) -> u128 {
    let digest = sha2::Sha256::digest(id.as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    u128::from_le_bytes(bytes)
}

/// The note a record describes (its current state).
fn note_of(record: &Record) -> Note {
    Note {
        id: record.id.clone(),
        summary: record.summary.clone(),
        tags: record.tags.clone(),
        content_hash: record.content_hash.clone(),
        created: record.created,
        updated: record.updated,
        accessed: record.accessed,
        at: record.at.unwrap_or(if record.versions.is_empty() {
            record.created
        } else {
            record.updated
        }),
    }
}

/// Writes the header line; the vector space whose vectors follow, when
/// `vectors` and the store has one.
fn write_header(db: &Db<'_>, out: &mut dyn Write, vectors: bool) -> Result<Option<VectorSpace>> {
    let space = if vectors { db.vector_space()? } else { None };
    let header = Header {
        format: FORMAT.into(),
        version: FORMAT_VERSION,
        vectors: space.as_ref().map(|s| HeaderVectors {
            model: s.model.clone(),
            dimensions: s.dims,
        }),
    };
    write_line(out, &header)?;
    Ok(space)
}

/// Writes one note's line: its tags, versions, parts, rating and the
/// vectors of each when `space` is given.
fn write_note(
    db: &Db<'_>,
    out: &mut dyn Write,
    space: Option<&VectorSpace>,
    rid: NoteRid,
    note: &Note,
) -> Result<()> {
    let encoded = |row: Option<VecRow>| -> Result<Option<String>> {
        match row {
            Some(row) if space.is_some() => Ok(db.vector_bytes(row)?.map(|b| BASE64.encode(b))),
            _ => Ok(None),
        }
    };
    let mut versions = Vec::new();
    for (i, v) in db.versions(rid)?.into_iter().enumerate() {
        let row = db.version_key(rid, i as i64 + 1)?.map(VecRow::Version);
        versions.push(VersionRecord {
            vector: encoded(row)?,
            summary: v.summary,
            tags: v.tags,
            content_hash: v.content_hash,
            created: v.created,
            updated: v.updated,
            at: Some(v.at),
        });
    }
    let mut parts = Vec::new();
    for p in db.parts(rid)? {
        let row = db.part_key(rid, p.number)?.map(VecRow::Part);
        parts.push(PartRecord {
            vector: encoded(row)?,
            number: p.number,
            summary: p.summary,
            tags: p.tags,
        });
    }
    let record = Record {
        id: note.id.clone(),
        summary: note.summary.clone(),
        tags: note.tags.clone(),
        content_hash: note.content_hash.clone(),
        created: note.created,
        updated: note.updated,
        accessed: note.accessed,
        at: Some(note.at),
        versions,
        parts,
        vector: encoded(Some(VecRow::Note(rid)))?,
        rating: db.rating_with_time(rid)?.map(|(r, updated)| RatingRecord {
            useful: r.useful,
            wrong: r.wrong,
            updated,
        }),
    };
    write_line(out, &record)
}

/// Writes the entries of the log that `keep` passes, oldest first, read a
/// page at a time.
fn export_log(db: &Db<'_>, out: &mut dyn Write, keep: impl Fn(&Operation) -> bool) -> Result<()> {
    let mut seq = 0;
    loop {
        let page = db.operations_after(seq, LOG_PAGE)?;
        let Some(last) = page.last() else {
            return Ok(());
        };
        seq = last.seq;
        for entry in page.into_iter().filter(|e| keep(e)) {
            write_line(
                out,
                &OperationLine {
                    operation: entry.into(),
                },
            )?;
        }
    }
}

/// The vector space an import's vectors go into: the store's when it is
/// the same model (created from the header when the store has none);
/// None, with a notice, when the models differ or the file has no vectors.
fn vector_space_for(
    db: &Db<'_>,
    header: Option<&HeaderVectors>,
    notices: &mut Vec<Notice>,
) -> Result<Option<VectorSpace>> {
    let Some(header) = header else {
        return Ok(None);
    };
    let theirs = VectorSpace {
        model: header.model.clone(),
        dims: header.dimensions,
    };
    match db.vector_space()? {
        Some(ours) if ours == theirs => Ok(Some(ours)),
        Some(ours) => {
            notices.push(Notice::new(format!(
                "vectors not loaded: they were made by {} ({} dimensions) and this store's by {} ({} dimensions); the notes wait for embedding",
                theirs.model, theirs.dims, ours.model, ours.dims
            )));
            Ok(None)
        }
        None if (1..=8192).contains(&theirs.dims) => {
            db.create_vector_space(&theirs)?;
            db.create_codes()?;
            Ok(Some(theirs))
        }
        None => {
            notices.push(Notice::new(format!(
                "vectors not loaded: {} dimensions is not a vector width keep uses",
                theirs.dims
            )));
            Ok(None)
        }
    }
}

/// Loads the vectors of imported rows, counting what was loaded and what
/// waits, with a notice for each vector refused.
#[derive(Default)]
struct VectorLoad {
    space: Option<VectorSpace>,
    vectors: usize,
    waiting: usize,
    notices: Vec<Notice>,
    /// Vectors of the batch in hand, stored together (`store`).
    batch: Vec<(VecRow, Vec<u8>)>,
}

/// A decoded vector and the hash of the text it was made from.
type Decoded = Option<(String, Vec<u8>)>;

/// The vectors that came with a note of the file: its own, each
/// version's and each part's, None where none came or it was refused.
struct RecordVectors {
    note: Decoded,
    versions: Vec<Decoded>,
    parts: Vec<Decoded>,
}

impl VectorLoad {
    /// Stores the vectors of the batch in hand: their rows were written
    /// with the hashes of their texts.
    fn store(&mut self, db: &Db<'_>) -> Result<()> {
        if !self.batch.is_empty() {
            db.put_vectors(&self.batch)?;
            self.batch.clear();
        }
        Ok(())
    }

    /// Decodes the vectors of an imported note, its versions and its
    /// parts (line `line` of file `name`), counting them.
    fn decode(&mut self, name: &str, line: usize, record: &Record) -> RecordVectors {
        let mut one = |what: String, text: &str, vector: Option<&str>| -> Decoded {
            if text.is_empty() {
                return None;
            }
            let (Some(space), Some(vector)) = (&self.space, vector) else {
                self.waiting += 1;
                return None;
            };
            match decode_vector(vector, space.dims) {
                Ok(bytes) => {
                    self.vectors += 1;
                    Some((model::content_hash(text.as_bytes()), bytes))
                }
                Err(reason) => {
                    self.waiting += 1;
                    self.notices.push(Notice::new(format!(
                        "{name}:{line}: vector of '{}'{what} refused ({reason}); it waits for embedding",
                        record.id
                    )));
                    None
                }
            }
        };
        RecordVectors {
            note: one(String::new(), &record.summary, record.vector.as_deref()),
            versions: (1..)
                .zip(&record.versions)
                .map(|(seq, v)| one(format!(" (version {seq})"), &v.summary, v.vector.as_deref()))
                .collect(),
            parts: record
                .parts
                .iter()
                .map(|p| {
                    one(
                        format!(" (part {})", p.number),
                        &p.summary,
                        p.vector.as_deref(),
                    )
                })
                .collect(),
        }
    }

    /// Holds the decoded vectors of a written note (row `rid`), its
    /// versions (rows `vids`) and its parts (rows `pids`) for `store`.
    fn hold(
        &mut self,
        rid: NoteRid,
        vids: &[VersionRid],
        pids: &[PartRid],
        vectors: RecordVectors,
    ) {
        let rows = std::iter::once((VecRow::Note(rid), vectors.note))
            .chain(
                vids.iter()
                    .map(|&v| VecRow::Version(v))
                    .zip(vectors.versions),
            )
            .chain(pids.iter().map(|&p| VecRow::Part(p)).zip(vectors.parts));
        for (row, decoded) in rows {
            if let Some((_, bytes)) = decoded {
                self.batch.push((row, bytes));
            }
        }
    }
}

/// The stored bytes of an exported vector: base64 of `dims` finite
/// little-endian f32.
fn decode_vector(text: &str, dims: usize) -> std::result::Result<Vec<u8>, String> {
    let bytes = BASE64
        .decode(text)
        .map_err(|e| format!("not base64: {e}"))?;
    if bytes.len() != dims * 4 {
        return Err(format!(
            "{} bytes, expected {} for {dims} dimensions",
            bytes.len(),
            dims * 4
        ));
    }
    let finite = bytes
        .chunks_exact(4)
        .all(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]).is_finite());
    if !finite {
        return Err("holds a value that is not a finite number".into());
    }
    Ok(bytes)
}

fn write_line<T: Serialize>(out: &mut dyn Write, value: &T) -> Result<()> {
    let line = serde_json::to_string(value).expect("export records serialise");
    writeln!(out, "{line}").map_err(|e| Error::io("<export>", e))
}

/// The kinds of line after an export's header.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Note,
    Operation,
}

/// A line of an export after its header.
enum ExportLine {
    Note(Box<Record>),
    Operation(OperationRecord),
}

/// The lines of an export file read one at a time, each parsed and
/// checked, with its number for messages.
struct ExportLines<'a, R> {
    input: &'a mut R,
    name: &'a str,
    number: usize,
    text: String,
    /// Bytes of the last line read, and of every line read.
    last_len: usize,
    read: usize,
    /// `read` when progress was last reported.
    reported: usize,
    header: Header,
}

impl<'a, R: BufRead> ExportLines<'a, R> {
    /// Reads and checks the header (the first line that is not blank).
    fn open(input: &'a mut R, name: &'a str) -> Result<Self> {
        let mut lines = ExportLines {
            input,
            name,
            number: 0,
            text: String::new(),
            last_len: 0,
            read: 0,
            reported: 0,
            header: Header {
                format: String::new(),
                version: 0,
                vectors: None,
            },
        };
        if !lines.read_text()? {
            return Err(lines.bad(1, "empty file, expected a keep export".into()));
        }
        let header = serde_json::from_str::<Header>(&lines.text)
            .map_err(|_| lines.bad(lines.number, "not a keep export header".into()))?;
        if header.format != FORMAT || !(1..=FORMAT_VERSION).contains(&header.version) {
            return Err(lines.bad(
                1,
                format!(
                    "unsupported export format '{}' version {}",
                    header.format, header.version
                ),
            ));
        }
        lines.header = header;
        Ok(lines)
    }

    /// Tells `progress` how many bytes are read, every megabyte or so.
    fn report(&mut self, progress: &mut dyn FnMut(usize)) {
        if self.read - self.reported >= 1 << 20 {
            self.reported = self.read;
            progress(self.read);
        }
    }

    fn bad(&self, line: usize, reason: String) -> Error {
        Error::Import {
            source_name: self.name.to_string(),
            line,
            reason,
        }
    }

    /// Reads the next line that is not blank into `text`; false at the end.
    fn read_text(&mut self) -> Result<bool> {
        loop {
            self.text.clear();
            let read = self
                .input
                .read_line(&mut self.text)
                .map_err(|e| self.bad(self.number + 1, e.to_string()))?;
            if read == 0 {
                return Ok(false);
            }
            self.number += 1;
            self.last_len = read;
            self.read += read;
            if !self.text.trim().is_empty() {
                return Ok(true);
            }
        }
    }

    /// The next line with its number, parsed and checked; with `only`,
    /// the next line of that kind, others passed by unread (a pass after
    /// the first, which checked them).
    fn next_line(&mut self, only: Option<LineKind>) -> Result<Option<(usize, ExportLine)>> {
        let operation = loop {
            if !self.read_text()? {
                return Ok(None);
            }
            let operation = self.text.trim_start().starts_with(r#"{"operation""#);
            let kind = if operation {
                LineKind::Operation
            } else {
                LineKind::Note
            };
            if only.is_none_or(|k| k == kind) {
                break operation;
            }
        };
        let number = self.number;
        let text = self.text.trim_end_matches(['\n', '\r']);
        if operation {
            let entry: OperationLine =
                serde_json::from_str(text).map_err(|e| self.bad(number, e.to_string()))?;
            validate_operation(&entry.operation).map_err(|e| self.bad(number, e.to_string()))?;
            return Ok(Some((number, ExportLine::Operation(entry.operation))));
        }
        let record: Record =
            serde_json::from_str(text).map_err(|e| self.bad(number, e.to_string()))?;
        validate_record(&record).map_err(|e| self.bad(number, e.to_string()))?;
        Ok(Some((number, ExportLine::Note(Box::new(record)))))
    }
}

/// The first pass over an export: every line parsed and checked, and no
/// id twice; nothing kept but the header, the count of notes and the
/// file's digest.
fn check_export<R: BufRead>(
    input: &mut R,
    name: &str,
    progress: &mut dyn FnMut(usize),
) -> Result<Checked> {
    let mut lines = ExportLines::open(input, name)?;
    progress(0);
    let mut digest = sha2::Sha256::new();
    digest.update(lines.text.as_bytes());
    let mut seen: HashSet<u128> = HashSet::new();
    let mut notes = 0;
    while let Some((number, line)) = lines.next_line(None)? {
        lines.report(progress);
        digest.update(lines.text.as_bytes());
        if let ExportLine::Note(record) = line {
            if !seen.insert(id_digest(&record.id)) {
                return Err(lines.bad(number, format!("id '{}' appears twice", record.id)));
            }
            notes += 1;
        }
    }
    let digest: String = digest
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(Checked {
        header: lines.header,
        notes,
        digest,
    })
}

fn validate_operation(entry: &OperationRecord) -> Result<()> {
    if !LOGGED_OPS.contains(&entry.op.as_str()) {
        return Err(Error::invalid(format!(
            "'{}' is not an operation keep logs",
            entry.op
        )));
    }
    if entry.agent.is_empty() || entry.agent.chars().count() > 100 {
        return Err(Error::invalid("an agent name has 1 to 100 characters"));
    }
    if entry
        .agent
        .chars()
        .chain(entry.detail.chars())
        .any(char::is_control)
    {
        return Err(Error::invalid("a log entry holds a control character"));
    }
    if entry.version < 0 {
        return Err(Error::invalid("a log entry's version count is negative"));
    }
    Ok(model::validate_id(&entry.note)?)
}

fn validate_record(record: &Record) -> Result<()> {
    model::validate_id(&record.id)?;
    if let Some(r) = &record.rating
        && (r.useful < 0 || r.wrong < 0)
    {
        return Err(Error::invalid("a rating count is negative"));
    }
    let all_tags = std::iter::once(&record.tags)
        .chain(record.versions.iter().map(|v| &v.tags))
        .chain(record.parts.iter().map(|p| &p.tags));
    for tags in all_tags {
        for (k, v) in tags.pairs() {
            model::validate_tag_key(k, &format!("{k}={v}"))?;
            if v.is_empty() || v.chars().any(char::is_control) {
                return Err(Error::invalid(format!("bad tag value for '{k}'")));
            }
        }
    }
    let mut numbers = HashSet::new();
    for part in &record.parts {
        if part.number == 0 || !numbers.insert(part.number) {
            return Err(Error::invalid(format!(
                "part numbers must be distinct and start at 1 (found {})",
                part.number
            )));
        }
    }
    Ok(())
}
