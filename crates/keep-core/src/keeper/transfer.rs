//! Export and import as JSON Lines: a header line, then one note per line
//! with its tags, full history and parts, and the vector of each (base64
//! of little-endian f32, the model named in the header), then the
//! operations log, oldest first, one entry per line. Export → import into
//! an empty store → export gives the same notes and the same log, which
//! has gained the import's own entries.

use keep_store::prelude::*;
use std::collections::HashSet;
use std::io::{BufRead, Write};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};

use super::{Keeper, edges};
use crate::error::{Error, Notice, Result, Transactions};
use keep_model::time::Timestamp;
use keep_model::{self as model, Note, Part, Tags, Version};
use keep_store::Embedded;
use keep_store::NoteReads;
use keep_store::operations::{Operation, OperationFilter};
use keep_store::{Db, NoteRid, VecRow, VectorSpace};

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

/// What an export file holds, checked.
struct ExportFile {
    header: Header,
    records: Vec<(usize, Record)>,
    log: Vec<OperationRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImportOutcome {
    pub imported: usize,
    /// Ids already in the store, left as they were.
    pub skipped: Vec<String>,
    /// Vectors loaded with the notes (notes, versions and parts).
    pub vectors: usize,
    /// Rows that wait for embedding: no vector in the file, or one refused.
    pub waiting: usize,
    /// One line per vector (or model) refused.
    pub notices: Vec<Notice>,
    /// Entries of the file's operations log added to this store's.
    pub log_entries: usize,
}

impl Keeper {
    /// Writes every note, system notes included, with their vectors
    /// unless `vectors` is false; returns how many notes.
    pub fn export(&self, out: &mut dyn Write, vectors: bool) -> Result<usize> {
        let db = self.store.db();
        let notes = db.all_notes()?;
        let count = self.export_notes(out, vectors, &notes)?;
        export_log(out, db.operations(&OperationFilter::default())?)?;
        Ok(count)
    }

    /// Writes the notes `ids` in the same format as `export`, in the order
    /// given; an id that is not in the store is an error and nothing is
    /// written.
    pub fn export_some(&self, out: &mut dyn Write, vectors: bool, ids: &[String]) -> Result<usize> {
        let db = self.store.db();
        let mut notes = Vec::with_capacity(ids.len());
        for id in ids {
            let found = db.note(id)?.ok_or_else(|| Error::NotFound(id.clone()))?;
            notes.push(found);
        }
        let count = self.export_notes(out, vectors, &notes)?;
        let wanted: HashSet<&str> = ids.iter().map(String::as_str).collect();
        let mut log = db.operations(&OperationFilter::default())?;
        log.retain(|o| wanted.contains(o.note.as_str()));
        export_log(out, log)?;
        Ok(count)
    }

    fn export_notes(
        &self,
        out: &mut dyn Write,
        vectors: bool,
        notes: &[(NoteRid, Note)],
    ) -> Result<usize> {
        let db = self.store.db();
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
        let encoded = |row: Option<VecRow>| -> Result<Option<String>> {
            match row {
                Some(row) if space.is_some() => Ok(db.vector_bytes(row)?.map(|b| BASE64.encode(b))),
                _ => Ok(None),
            }
        };
        for (rid, note) in notes {
            let mut versions = Vec::new();
            for (i, v) in db.versions(*rid)?.into_iter().enumerate() {
                let row = db.version_key(*rid, i as i64 + 1)?.map(VecRow::Version);
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
            for p in db.parts(*rid)? {
                let row = db.part_key(*rid, p.number)?.map(VecRow::Part);
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
                vector: encoded(Some(VecRow::Note(*rid)))?,
                rating: db.rating_with_time(*rid)?.map(|(r, updated)| RatingRecord {
                    useful: r.useful,
                    wrong: r.wrong,
                    updated,
                }),
            };
            write_line(out, &record)?;
        }
        Ok(notes.len())
    }

    /// Reads an export. Everything is checked before anything is written,
    /// and all notes land in one transaction. Ids already present are
    /// skipped and reported.
    /// `progress` hears how many of the notes are written, and of how many.
    pub fn import(
        &mut self,
        input: &mut dyn BufRead,
        name: &str,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<ImportOutcome> {
        let ExportFile {
            header,
            records,
            log,
        } = read_records(input, name)?;
        let total = records.len();
        let now = self.now();
        let outcome = self.store.transact(|db| {
            let mut written = Vec::new();
            let mut skipped = Vec::new();
            let mut notices = Vec::new();
            db.prepare_bulk_load(total)?;
            let new_space = db.vector_space()?.is_none();
            let space = vector_space_for(db, header.vectors.as_ref(), &mut notices)?;
            let indexes_deferred = new_space && space.is_some() && db.defer_vector_indexes()?;
            let log_entries = restore_log(db, &records, &log)?;
            let mut loaded = VectorLoad {
                space,
                name,
                vectors: 0,
                waiting: 0,
                notices,
            };
            for (done, (line, record)) in records.iter().enumerate() {
                progress(done, total);
                if db.note_rid(&record.id)?.is_some() {
                    skipped.push(record.id.clone());
                    continue;
                }
                let note = Note {
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
                };
                let rid = db.insert_note(&note)?;
                db.log_operation(
                    now,
                    "import",
                    &record.id,
                    record.versions.len() as i64 + 1,
                    "",
                )?;
                for (i, v) in record.versions.iter().enumerate() {
                    let version = Version {
                        seq: i as i64 + 1,
                        summary: v.summary.clone(),
                        tags: v.tags.clone(),
                        content_hash: v.content_hash.clone(),
                        created: v.created,
                        updated: v.updated,
                        at: v.at.unwrap_or(if i == 0 { v.created } else { v.updated }),
                    };
                    db.insert_version(rid, version.seq, &version)?;
                }
                let parts: Vec<Part> = record
                    .parts
                    .iter()
                    .map(|p| Part {
                        number: p.number,
                        summary: p.summary.clone(),
                        tags: p.tags.clone(),
                    })
                    .collect();
                db.replace_parts(rid, &parts)?;
                db.index_note_text(rid, &note.summary, &note.tags)?;
                if let Some(r) = &record.rating {
                    let rating = keep_model::Rating {
                        useful: r.useful,
                        wrong: r.wrong,
                    };
                    db.set_rating(rid, &rating, r.updated)?;
                }
                loaded.record(db, *line, rid, record)?;
                written.push((rid, note));
            }
            let edge_keys = crate::edges::EdgeKeys::load(db)?;
            for (rid, note) in &written {
                edges::sync_with(db, &edge_keys, *rid, note, None, now)?;
            }
            if indexes_deferred {
                db.build_vector_indexes()?;
            }
            progress(total, total);
            Ok(ImportOutcome {
                imported: written.len(),
                skipped,
                vectors: loaded.vectors,
                waiting: loaded.waiting,
                notices: loaded.notices,
                log_entries,
            })
        })?;
        let mut outcome = outcome;
        // The notes are in; statistics that could not be refreshed (a full
        // disk) only make the next plans less informed, and word totals left
        // uncompacted (a reader holding them) only slow the next writes.
        if let Err(e) = self.store.db().after_bulk_load() {
            outcome.notices.push(Notice::new(format!(
                "the store's statistics or word totals were not brought up to date: {e}"
            )));
        }
        Ok(outcome)
    }
}

/// Writes `log` (newest first, as the store reads it) oldest first.
fn export_log(out: &mut dyn Write, log: Vec<Operation>) -> Result<()> {
    for entry in log.into_iter().rev() {
        write_line(
            out,
            &OperationLine {
                operation: entry.into(),
            },
        )?;
    }
    Ok(())
}

/// Adds the file's log entries to the store's, except those of notes the
/// store already has (their history here is its own); returns how many.
fn restore_log(db: &Db<'_>, records: &[(usize, Record)], log: &[OperationRecord]) -> Result<usize> {
    let mut present = HashSet::new();
    for (_, record) in records {
        if db.note_rid(&record.id)?.is_some() {
            present.insert(record.id.as_str());
        }
    }
    let mut added = 0;
    for entry in log.iter().filter(|e| !present.contains(e.note.as_str())) {
        db.append_operation(&entry.to_operation())?;
        added += 1;
    }
    Ok(added)
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
struct VectorLoad<'a> {
    space: Option<VectorSpace>,
    name: &'a str,
    vectors: usize,
    waiting: usize,
    notices: Vec<Notice>,
}

impl VectorLoad<'_> {
    /// Loads the vectors of an imported note, its versions and its parts.
    fn record(&mut self, db: &Db<'_>, line: usize, rid: NoteRid, record: &Record) -> Result<()> {
        let mut rows = vec![(
            String::new(),
            VecRow::Note(rid),
            record.summary.as_str(),
            record.vector.as_deref(),
        )];
        for (i, v) in record.versions.iter().enumerate() {
            let seq = i as i64 + 1;
            if let Some(vid) = db.version_key(rid, seq)? {
                let what = format!(" (version {seq})");
                rows.push((what, VecRow::Version(vid), &v.summary, v.vector.as_deref()));
            }
        }
        for p in &record.parts {
            if let Some(pid) = db.part_key(rid, p.number)? {
                let what = format!(" (part {})", p.number);
                rows.push((what, VecRow::Part(pid), &p.summary, p.vector.as_deref()));
            }
        }
        for (what, row, text, vector) in rows.into_iter().filter(|r| !r.2.is_empty()) {
            let (Some(space), Some(vector)) = (&self.space, vector) else {
                self.waiting += 1;
                continue;
            };
            match decode_vector(vector, space.dims) {
                Ok(bytes) => {
                    db.set_vector(row, text, &model::content_hash(text.as_bytes()), &bytes)?;
                    self.vectors += 1;
                }
                Err(reason) => {
                    self.waiting += 1;
                    self.notices.push(Notice::new(format!(
                        "{}:{line}: vector of '{}'{what} refused ({reason}); it waits for embedding",
                        self.name, record.id
                    )));
                }
            }
        }
        Ok(())
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

/// Parses and validates every line of an export: its header, each note
/// with its line number, and the log.
fn read_records(input: &mut dyn BufRead, name: &str) -> Result<ExportFile> {
    let bad = |line: usize, reason: String| Error::Import {
        source_name: name.to_string(),
        line,
        reason,
    };
    let mut lines = input.lines().enumerate();
    let header = loop {
        match lines.next() {
            None => return Err(bad(1, "empty file, expected a keep export".into())),
            Some((i, line)) => {
                let line = line.map_err(|e| bad(i + 1, e.to_string()))?;
                if line.trim().is_empty() {
                    continue;
                }
                break serde_json::from_str::<Header>(&line)
                    .map_err(|_| bad(i + 1, "not a keep export header".into()))?;
            }
        }
    };
    if header.format != FORMAT || !(1..=FORMAT_VERSION).contains(&header.version) {
        return Err(bad(
            1,
            format!(
                "unsupported export format '{}' version {}",
                header.format, header.version
            ),
        ));
    }
    let mut records = Vec::new();
    let mut log = Vec::new();
    let mut seen = HashSet::new();
    for (i, line) in lines {
        let line = line.map_err(|e| bad(i + 1, e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        if line.trim_start().starts_with(r#"{"operation""#) {
            let entry: OperationLine =
                serde_json::from_str(&line).map_err(|e| bad(i + 1, e.to_string()))?;
            validate_operation(&entry.operation).map_err(|e| bad(i + 1, e.to_string()))?;
            log.push(entry.operation);
            continue;
        }
        let record: Record = serde_json::from_str(&line).map_err(|e| bad(i + 1, e.to_string()))?;
        validate_record(&record).map_err(|e| bad(i + 1, e.to_string()))?;
        if !seen.insert(record.id.clone()) {
            return Err(bad(i + 1, format!("id '{}' appears twice", record.id)));
        }
        records.push((i + 1, record));
    }
    Ok(ExportFile {
        header,
        records,
        log,
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
