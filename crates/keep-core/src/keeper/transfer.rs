//! Export and import as JSON Lines: a header line, then one note per line
//! with its tags, full history and parts. Export → import into an empty
//! store → export gives identical output.

use std::collections::HashSet;
use std::io::{BufRead, Write};

use serde::{Deserialize, Serialize};

use super::{Keeper, edges};
use crate::error::{Error, Result};
use crate::model::time::Timestamp;
use crate::model::{self, Note, Part, Tags, Version};

const FORMAT: &str = "keep-export";
const FORMAT_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    format: String,
    version: u32,
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
    /// Archived versions, oldest first.
    #[serde(default)]
    versions: Vec<VersionRecord>,
    #[serde(default)]
    parts: Vec<PartRecord>,
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
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PartRecord {
    number: u32,
    summary: String,
    #[serde(default)]
    tags: Tags,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImportOutcome {
    pub imported: usize,
    /// Ids already in the store, left as they were.
    pub skipped: Vec<String>,
}

impl Keeper {
    /// Writes every note, system notes included; returns how many.
    pub fn export(&self, out: &mut dyn Write) -> Result<usize> {
        let db = self.store.db();
        let header = Header {
            format: FORMAT.into(),
            version: FORMAT_VERSION,
        };
        write_line(out, &header)?;
        let notes = db.all_notes()?;
        for (rid, note) in &notes {
            let record = Record {
                id: note.id.clone(),
                summary: note.summary.clone(),
                tags: note.tags.clone(),
                content_hash: note.content_hash.clone(),
                created: note.created,
                updated: note.updated,
                accessed: note.accessed,
                versions: db
                    .versions(*rid)?
                    .into_iter()
                    .map(|v| VersionRecord {
                        summary: v.summary,
                        tags: v.tags,
                        content_hash: v.content_hash,
                        created: v.created,
                        updated: v.updated,
                    })
                    .collect(),
                parts: db
                    .parts(*rid)?
                    .into_iter()
                    .map(|p| PartRecord {
                        number: p.number,
                        summary: p.summary,
                        tags: p.tags,
                    })
                    .collect(),
            };
            write_line(out, &record)?;
        }
        Ok(notes.len())
    }

    /// Reads an export. Everything is checked before anything is written,
    /// and all notes land in one transaction. Ids already present are
    /// skipped and reported.
    pub fn import(&mut self, input: &mut dyn BufRead, name: &str) -> Result<ImportOutcome> {
        let records = read_records(input, name)?;
        let now = self.now();
        self.store.write(|db| {
            let mut written = Vec::new();
            let mut skipped = Vec::new();
            for record in &records {
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
                };
                let rid = db.insert_note(&note)?;
                for (i, v) in record.versions.iter().enumerate() {
                    let version = Version {
                        seq: i as i64 + 1,
                        summary: v.summary.clone(),
                        tags: v.tags.clone(),
                        content_hash: v.content_hash.clone(),
                        created: v.created,
                        updated: v.updated,
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
                written.push((rid, note));
            }
            for (rid, note) in &written {
                edges::sync(db, *rid, note, None, now)?;
            }
            Ok(ImportOutcome {
                imported: written.len(),
                skipped,
            })
        })
    }
}

fn write_line<T: Serialize>(out: &mut dyn Write, value: &T) -> Result<()> {
    let line = serde_json::to_string(value).expect("export records serialise");
    writeln!(out, "{line}").map_err(|e| Error::io("<export>", e))
}

/// Parses and validates every line of an export.
fn read_records(input: &mut dyn BufRead, name: &str) -> Result<Vec<Record>> {
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
    if header.format != FORMAT || header.version != FORMAT_VERSION {
        return Err(bad(
            1,
            format!(
                "unsupported export format '{}' version {}",
                header.format, header.version
            ),
        ));
    }
    let mut records = Vec::new();
    let mut seen = HashSet::new();
    for (i, line) in lines {
        let line = line.map_err(|e| bad(i + 1, e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let record: Record = serde_json::from_str(&line).map_err(|e| bad(i + 1, e.to_string()))?;
        validate_record(&record).map_err(|e| bad(i + 1, e.to_string()))?;
        if !seen.insert(record.id.clone()) {
            return Err(bad(i + 1, format!("id '{}' appears twice", record.id)));
        }
        records.push(record);
    }
    Ok(records)
}

fn validate_record(record: &Record) -> Result<()> {
    model::validate_id(&record.id)?;
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
