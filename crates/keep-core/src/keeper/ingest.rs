//! Ingestion into the store: plan the jobs (files, folder walks, URLs),
//! extract on the worker pool, write results in batched transactions,
//! embed in batches as they land, and report what was added, updated,
//! unchanged and failed.

use keep_store::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use serde::Serialize;

use super::paths::absolute;
use super::redact::{Redacted, Screen};
use super::write::{Content, add_truth_tags, check_scope, write_content, write_state};
use super::{Keeper, PutOptions, WriteOutcome, WriteStatus};
use crate::error::{Advice, Error, Notice, Result, Transactions};
pub use keep_ingest::fetch::is_url;
use keep_ingest::pool::{self, Job, Outcome, PoolConfig, Source};
use keep_ingest::walk;
pub use keep_ingest::walk::{DEFAULT_MAX_FILES, WalkOptions};
use keep_ingest::{Document, chunk, fetch, links, ocr};
use keep_model::{Note, NoteFilter, TagFilter, Tags, file_id, keys};
use keep_store::NoteReads;

/// Results written per transaction.
const WRITE_BATCH: usize = 32;

/// What to ingest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Path(PathBuf),
    Url(String),
}

impl Target {
    /// A URL when the argument looks like one, else a path.
    pub fn parse(arg: &str) -> Target {
        if fetch::is_url(arg) {
            Target::Url(arg.to_string())
        } else {
            Target::Path(PathBuf::from(arg))
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct IngestOptions {
    pub walk: WalkOptions,
    /// User tags for every note; they win over tags from the files.
    pub tags: Tags,
    /// Id and summary for a single file or URL.
    pub id: Option<String>,
    pub summary: Option<String>,
    /// When what the files record happened (`put --at`).
    pub at: Option<keep_model::Timestamp>,
    /// When the notes stop being true (`_expires`).
    pub expires: Option<keep_model::Timestamp>,
    /// Notes the (single) file or URL replaces.
    pub supersedes: Vec<String>,
    /// How much the notes matter, 1 to 5 (`_importance`).
    pub importance: Option<u8>,
    /// A scope: existing notes without these tags are not changed.
    pub within: Vec<keep_model::TagFilter>,
    /// Set by another thread to stop: files read so far are stored, the
    /// rest are left, and the report says how many.
    pub cancel: Option<std::sync::Arc<AtomicBool>>,
    /// Extraction threads (0: one per core).
    pub workers: usize,
    /// Only files whose real path lies under one of these (empty: any).
    pub roots: Vec<PathBuf>,
    /// Leave the new texts waiting for their vectors (the caller embeds
    /// them later, in small steps) instead of embedding them all now.
    pub defer_embedding: bool,
    /// Keep secrets as written (the owner's `--allow-secrets`).
    pub keep_secrets: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Failure {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct IngestReport {
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub unchanged: Vec<String>,
    pub failed: Vec<Failure>,
    /// Notes stored without their text because the OCR models are missing.
    pub ocr_pending: Vec<String>,
    /// Set when a folder had more files than the cap.
    pub capped: bool,
    /// Notes stored with secrets replaced by a marker, and which.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<Redacted>,
    pub notices: Vec<Notice>,
    /// Where the time went.
    #[serde(skip)]
    #[schemars(skip)]
    pub timings: Timings,
}

/// Where the time of an ingest went. Extraction and OCR are summed over
/// the worker threads (so they can exceed the wall time); the rest ran on
/// the writing thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timings {
    pub wall: Duration,
    /// Reading files and extracting their text, OCR included.
    pub extraction: Duration,
    pub ocr: Duration,
    /// Summaries and parts.
    pub summarising: Duration,
    /// Writing notes, parts and indexes, summarising excluded.
    pub storing: Duration,
    pub embedding: Duration,
}

impl IngestReport {
    /// Puts every list in a stable order (results arrive as they finish).
    fn sort(&mut self) {
        self.added.sort();
        self.updated.sort();
        self.unchanged.sort();
        self.ocr_pending.sort();
        self.redacted.sort_by(|a, b| a.id.cmp(&b.id));
        for f in &mut self.failed {
            f.path = keep_model::printable(&f.path);
        }
        self.failed.sort_by(|a, b| a.path.cmp(&b.path));
    }
}

/// Where an ingestion run is.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    Planned {
        total: usize,
    },
    Finished {
        done: usize,
        total: usize,
        name: &'a str,
    },
    /// Embedding the stored texts, after the files.
    Embedding {
        done: usize,
        total: usize,
    },
}

impl Keeper {
    /// Ingests files, folders and URLs. Per-file failures are reported,
    /// not returned; an error means nothing could be done at all.
    pub fn ingest(
        &mut self,
        targets: &[Target],
        opts: &IngestOptions,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<IngestReport> {
        let confined = self.confine_ingest(opts)?;
        let opts = &confined;
        let started = std::time::Instant::now();
        let mut report = IngestReport::default();
        let jobs = self.plan(targets, opts, &mut report)?;
        progress(Progress::Planned { total: jobs.len() });
        if jobs.is_empty() {
            report.sort();
            return Ok(report);
        }
        let known = self.known_hashes(&jobs)?;
        let isolation = self.settings.extract_worker.clone();
        let (ocr, ocr_off) =
            load_ocr_if_needed(&jobs, self.settings.ocr_dir.as_deref(), isolation.is_some());
        let workers = match opts.workers {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n,
        };
        let total = jobs.len();
        let config = PoolConfig {
            workers,
            fetch_timeout: self.settings.fetch_timeout,
            isolation,
            ocr,
            ocr_dir: self.settings.ocr_dir.clone(),
        };
        let results = pool::run(jobs.clone(), config, known);
        let mut pending: Vec<(usize, Box<Document>, String)> = Vec::new();
        let mut done = 0;
        let cancel = opts.cancel.as_deref();
        loop {
            if cancelled(cancel) {
                self.write_batch(&jobs, std::mem::take(&mut pending), opts, &mut report)?;
                report.notices.push(Notice::new(format!(
                    "stopped when asked: {} of {total} file(s) were not read",
                    total - done
                )));
                break;
            }
            match results.recv_timeout(Duration::from_millis(250)) {
                Ok((index, outcome)) => {
                    done += 1;
                    let job = &jobs[index];
                    match outcome {
                        Outcome::Extracted { doc, hash, took } => {
                            report.timings.extraction += took;
                            report.timings.ocr += doc.ocr_time;
                            pending.push((index, doc, hash));
                        }
                        Outcome::Unchanged => report.unchanged.push(job.id.clone()),
                        Outcome::Failed(reason) => report.failed.push(Failure {
                            path: job.name(),
                            reason,
                        }),
                    }
                    progress(Progress::Finished {
                        done,
                        total,
                        name: &job.name(),
                    });
                    if pending.len() < WRITE_BATCH {
                        continue;
                    }
                }
                Err(RecvTimeoutError::Timeout) if pending.is_empty() => continue,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    self.write_batch(&jobs, std::mem::take(&mut pending), opts, &mut report)?;
                    break;
                }
            }
            self.write_batch(&jobs, std::mem::take(&mut pending), opts, &mut report)?;
        }
        drop(results);
        self.settle_unchanged(&jobs, opts, &mut report)?;
        if !opts.defer_embedding {
            let embedding = std::time::Instant::now();
            self.embed_all(&mut report, cancel, progress)?;
            report.timings.embedding = embedding.elapsed();
        }
        report.timings.wall = started.elapsed();
        report.sort();
        if !report.ocr_pending.is_empty() {
            report.notices.push(Notice::advised(
                format!(
                    "{} note(s) are stored without the text in their images: {}; they are read once OCR is installed",
                    report.ocr_pending.len(),
                    ocr_off.unwrap_or_else(|| "OCR is not installed".into())
                ),
                Advice::InstallModels(Some(keep_ingest::ocr::OCR_COMPONENT)),
            ));
        }
        Ok(report)
    }

    /// Stores one file (any format keep reads) under its `file://` id.
    pub fn put_file(&mut self, path: &Path, opts: PutOptions) -> Result<WriteOutcome> {
        let path = absolute(path)?;
        if path.is_dir() {
            return Err(Error::IsFolder { path });
        }
        let ingest_opts = IngestOptions {
            tags: opts.tags,
            id: opts.id,
            summary: opts.summary,
            workers: 1,
            ..IngestOptions::default()
        };
        let report = self.ingest(&[Target::Path(path.clone())], &ingest_opts, &mut |_| {})?;
        single_outcome(report, &path.display().to_string())
    }

    /// `opts` held to the caller's rights, as `confine_put` holds a put.
    fn confine_ingest(&self, opts: &IngestOptions) -> Result<IngestOptions> {
        let mut confined = opts.clone();
        self.caller.may_write("put")?;
        confined.tags = self.caller.scoped_tags(confined.tags)?;
        confined.within.extend(self.caller.filters());
        for old in &confined.supersedes {
            self.may_change(old, "supersede")?;
        }
        Ok(confined)
    }

    /// Reads again the files of notes stored while OCR was missing.
    /// Returns how many got their text and how many still wait.
    pub fn read_pending_ocr(&mut self) -> Result<(usize, usize)> {
        let filter = NoteFilter {
            include_system: true,
            tags: vec![TagFilter {
                key: keys::OCR.into(),
                value: None,
            }],
            ..NoteFilter::default()
        };
        // A few notes wait, if any: found through the tags' index, not
        // by testing every note for the tag (1.8 s at a million).
        let db = self.store.reads();
        let tagged = db.rids_tagged(keys::OCR)?;
        let mut waiting: Vec<Note> = db
            .notes_passing(&tagged, &self.scoped_now(&filter))?
            .into_values()
            .collect();
        drop(db);
        waiting.sort_by(|a, b| a.id.cmp(&b.id));
        let targets: Vec<Target> = waiting
            .iter()
            .filter_map(|n| keep_model::path_of_file_id(&n.id))
            .map(Target::Path)
            .collect();
        if targets.is_empty() {
            return Ok((0, waiting.len()));
        }
        let report = self.ingest(&targets, &IngestOptions::default(), &mut |_| {})?;
        let read = report.added.len() + report.updated.len();
        let still = waiting.len() - read.min(waiting.len()) + report.ocr_pending.len();
        Ok((read.saturating_sub(report.ocr_pending.len()), still))
    }

    fn plan(
        &self,
        targets: &[Target],
        opts: &IngestOptions,
        report: &mut IngestReport,
    ) -> Result<Vec<Job>> {
        let mut jobs = Vec::new();
        for target in targets {
            match target {
                Target::Url(url) => jobs.push(Job {
                    id: fetch::normalize(url)?,
                    source: Source::Url(url.clone()),
                }),
                Target::Path(path) => {
                    let path = absolute(path)?;
                    match std::fs::metadata(&path) {
                        Err(e) => report.failed.push(Failure {
                            path: path.display().to_string(),
                            reason: keep_ingest::read::open_failure(&path, &e),
                        }),
                        Ok(meta) if meta.is_dir() => {
                            let walk_opts = WalkOptions {
                                confine: opts.roots.clone(),
                                ..opts.walk.clone()
                            };
                            let walked = walk::walk(&path, &walk_opts)?;
                            report.capped |= walked.capped;
                            if walked.capped {
                                report.notices.push(Notice::new(format!(
                                    "{} has more than {} files; the rest were left out",
                                    path.display(),
                                    opts.walk.max_files
                                )));
                            }
                            report.failed.extend(
                                walked
                                    .failures
                                    .into_iter()
                                    .map(|(path, reason)| Failure { path, reason }),
                            );
                            for file in walked.files {
                                jobs.push(file_job(file));
                            }
                        }
                        Ok(_) => jobs.push(file_job(path)),
                    }
                }
            }
        }
        if !opts.roots.is_empty() {
            jobs.retain(|job| match &job.source {
                Source::File(p) if !under_roots(p, &opts.roots) => {
                    report.failed.push(Failure {
                        path: p.display().to_string(),
                        reason: "is outside the allowed folders".into(),
                    });
                    false
                }
                _ => true,
            });
        }
        if let Some(id) = &opts.id {
            if jobs.len() != 1 {
                return Err(Error::invalid("an id can be given to one file or URL only"));
            }
            keep_model::validate_id(id)?;
            jobs[0].id = id.clone();
        }
        Ok(jobs)
    }

    fn known_hashes(&self, jobs: &[Job]) -> Result<HashMap<String, String>> {
        let db = self.store.db();
        let mut known = HashMap::new();
        for job in jobs {
            if let Some((_, note)) = db.note(&job.id)?
                && let Some(hash) = note.content_hash
                && !note.tags.contains_key(keys::OCR)
            {
                known.insert(job.id.clone(), hash);
            }
        }
        Ok(known)
    }

    /// Files whose content did not change still take the tags, expiry and
    /// supersedes asked for (a new version when that changes the note),
    /// and a note outside the scope the ingest is confined to is refused
    /// rather than reported unchanged.
    fn settle_unchanged(
        &mut self,
        jobs: &[Job],
        opts: &IngestOptions,
        report: &mut IngestReport,
    ) -> Result<()> {
        let asks = !opts.tags.is_empty()
            || opts.at.is_some()
            || opts.expires.is_some()
            || !opts.supersedes.is_empty()
            || opts.importance.is_some();
        if !asks && opts.within.is_empty() {
            return Ok(());
        }
        let put = PutOptions {
            tags: opts.tags.clone(),
            expires: opts.expires,
            supersedes: opts.supersedes.clone(),
            importance: opts.importance,
            within: opts.within.clone(),
            ..PutOptions::default()
        };
        let mut put = put;
        self.screen(opts.keep_secrets)
            .given(&mut put.summary, &mut put.tags);
        let now = self.now();
        for id in std::mem::take(&mut report.unchanged) {
            let result = self.store.transact(|db| {
                let Some((rid, note)) = db.note(&id)? else {
                    return Ok(WriteStatus::Unchanged);
                };
                check_scope(&id, &note, &put.within)?;
                let mut next = note.clone();
                next.tags.merge(&put.tags);
                add_truth_tags(db, &id, &mut next.tags, &put)?;
                if let Some(at) = opts.at {
                    next.at = at;
                }
                if next.tags == note.tags && next.at == note.at {
                    return Ok(WriteStatus::Unchanged);
                }
                next.updated = now;
                next.accessed = now;
                write_state(db, Some(&(rid, note)), &next, now)
            });
            match result {
                Ok(WriteStatus::Updated) => {
                    report.notices.push(Notice::new(format!(
                        "{id}: content unchanged; its tags were updated"
                    )));
                    report.updated.push(id);
                }
                Ok(_) => report.unchanged.push(id),
                Err(e) if e.is_store_fault() => return Err(e),
                Err(e) => {
                    let path = jobs
                        .iter()
                        .find(|j| j.id == id)
                        .map_or_else(|| id.clone(), Job::name);
                    report.failed.push(Failure {
                        path,
                        reason: e.reason(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Writes extracted documents in one transaction; when that fails,
    /// one by one, so one bad note cannot sink the others. A fault of the
    /// store (a full disk, ...) ends the ingest: what was written before
    /// it stays, whole.
    fn write_batch(
        &mut self,
        jobs: &[Job],
        batch: Vec<(usize, Box<Document>, String)>,
        opts: &IngestOptions,
        report: &mut IngestReport,
    ) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let summarising = keep_ingest::spent::spent(keep_ingest::spent::Stage::Summarising);
        let now = self.now();
        let contents: Vec<(usize, Content, PutOptions)> = batch
            .into_iter()
            .map(|(index, doc, hash)| {
                let mut screen = self.screen(opts.keep_secrets);
                let (mut content, put) = content_of(&jobs[index], *doc, hash, opts, &mut screen);
                self.queue_provider_work(&mut content, put.summary.is_some());
                (index, content, put)
            })
            .collect();
        for (_, content, _) in &contents {
            if let Some(rest) = chunk::left_out(&content.text, &content.parts) {
                report.notices.push(Notice::new(format!(
                    "{}: its first {} parts are kept as parts and embedded; the last {} of its text are found by keyword only",
                    content.id,
                    chunk::MAX_PARTS,
                    keep_model::size::human_bytes(i64::try_from(rest).unwrap_or(i64::MAX))
                )));
            }
        }
        let together = self.store.transact(|db| {
            contents
                .iter()
                .map(|(_, content, put)| write_content(db, content, put, now))
                .collect::<Result<Vec<_>>>()
        });
        let statuses: Vec<Result<WriteStatus>> = match together {
            Ok(statuses) => statuses.into_iter().map(Ok).collect(),
            Err(e) if e.is_store_fault() => return Err(e),
            Err(_) => contents
                .iter()
                .map(|(_, content, put)| {
                    self.store
                        .transact(|db| write_content(db, content, put, now))
                })
                .collect(),
        };
        for ((index, content, _), status) in contents.iter().zip(statuses) {
            let id = content.id.clone();
            match status {
                Ok(WriteStatus::Created | WriteStatus::PossibleUpdate) => {
                    report.added.push(id.clone())
                }
                Ok(WriteStatus::Updated) => report.updated.push(id.clone()),
                Ok(WriteStatus::Unchanged | WriteStatus::Duplicate) => {
                    report.unchanged.push(id.clone())
                }
                Err(e) if e.is_store_fault() => return Err(e),
                Err(e) => {
                    report.failed.push(Failure {
                        path: jobs[*index].name(),
                        reason: e.reason(),
                    });
                    continue;
                }
            }
            if !content.redacted.is_empty() {
                report.redacted.push(Redacted {
                    id: id.clone(),
                    secrets: content.redacted.clone(),
                });
            }
            if content.system_tags.contains_key(keys::OCR) {
                report.ocr_pending.push(id);
            }
        }
        let summarised = keep_ingest::spent::spent(keep_ingest::spent::Stage::Summarising)
            .saturating_sub(summarising);
        report.timings.summarising += summarised;
        report.timings.storing += started.elapsed().saturating_sub(summarised);
        Ok(())
    }

    /// Embeds the texts of the notes this ingest wrote, in large batches
    /// once the files are written (interleaving small batches with the
    /// writes is twice as slow), reporting progress; a missing model
    /// leaves them queued. Rows that waited before (an import, an earlier
    /// put without a model) are left to `find` and `reindex`: putting one
    /// file never waits for a store's whole backlog.
    fn embed_all(
        &mut self,
        report: &mut IngestReport,
        cancel: Option<&AtomicBool>,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<()> {
        let mut written = Vec::with_capacity(report.added.len() + report.updated.len());
        {
            let db = self.store.db();
            for id in report.added.iter().chain(&report.updated) {
                written.extend(db.note_rid(id)?);
            }
            db.set_pending_scope(&written)?;
        }
        let total = self.store.db().count_pending_in(true)?.max(0) as usize;
        if total == 0 {
            return Ok(());
        }
        progress(Progress::Embedding { done: 0, total });
        let mut before = 0;
        let mut step = || -> Result<()> {
            while !cancelled(cancel) {
                let mut on_batch = |done: usize| {
                    progress(Progress::Embedding {
                        done: (before + done).min(total),
                        total,
                    })
                };
                let work = self.embed_rows(Some(EMBED_STEP), None, true, &mut on_batch)?;
                before += work.embedded + work.copied;
                if work.remaining == 0 || work.embedded + work.copied == 0 {
                    break;
                }
            }
            Ok(())
        };
        match step() {
            Ok(()) => Ok(()),
            Err(e @ Error::ModelUnavailable { .. }) => {
                report.notices.push(Notice::advised(
                    format!("notes are stored but not embedded yet ({e})"),
                    Advice::Reindex,
                ));
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

/// Rows embedded between two looks at the cancellation flag.
const EMBED_STEP: usize = 256;

fn cancelled(cancel: Option<&AtomicBool>) -> bool {
    cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
}

fn file_job(path: PathBuf) -> Job {
    Job {
        id: file_id(&path),
        source: Source::File(path),
    }
}

fn under_roots(path: &Path, roots: &[PathBuf]) -> bool {
    path.canonicalize()
        .is_ok_and(|real| roots.iter().any(|root| real.starts_with(root)))
}

/// The note content and put options for an extracted document.
fn content_of(
    job: &Job,
    mut doc: Document,
    hash: String,
    opts: &IngestOptions,
    screen: &mut Screen,
) -> (Content, PutOptions) {
    screen.document(&mut doc);
    let mut system_tags = Tags::new();
    system_tags.insert(
        keys::SOURCE,
        match job.source {
            Source::File(_) => "file",
            Source::Url(_) => "url",
        },
    );
    system_tags.insert(keys::CONTENT_TYPE, doc.media_type.clone());
    if doc.ocr_pending {
        system_tags.insert(keys::OCR, "pending");
    }
    let base = match &job.source {
        Source::File(path) => links::Base::File(path),
        Source::Url(url) => links::Base::Url(url),
    };
    let mut provider_tags = doc.tags;
    for target in links::resolve(&doc.links, base) {
        provider_tags.insert(keys::LINKS_TO, target);
    }
    let parts = keep_ingest::spent::timed(keep_ingest::spent::Stage::Summarising, || {
        if doc.slides.is_empty() {
            chunk::sectioned(&doc.text)
        } else {
            chunk::slides(&doc.slides)
        }
    });
    let content = Content {
        id: job.id.clone(),
        text: doc.text,
        hash,
        system_tags,
        provider_tags,
        description: doc.description,
        lead: doc.lead,
        parts,
        part_tags: Vec::new(),
        dates_given: false,
        redacted: Vec::new(),
    };
    let mut put = PutOptions {
        id: None,
        tags: opts.tags.clone(),
        summary: opts.summary.clone(),
        at: opts.at,
        expires: opts.expires,
        supersedes: opts.supersedes.clone(),
        importance: opts.importance,
        within: opts.within.clone(),
        ..PutOptions::default()
    };
    screen.given(&mut put.summary, &mut put.tags);
    let mut content = content;
    content.redacted = screen.take();
    (content, put)
}

/// Loads the OCR models when some job may need them (or, when children
/// extract, checks that they are there); else why not.
fn load_ocr_if_needed(
    jobs: &[Job],
    ocr_dir: Option<&Path>,
    in_children: bool,
) -> (Option<Arc<ocr::Ocr>>, Option<String>) {
    let textual = |job: &Job| match &job.source {
        Source::File(p) => p
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .is_some_and(|e| {
                matches!(
                    e.as_str(),
                    "txt"
                        | "md"
                        | "markdown"
                        | "html"
                        | "htm"
                        | "docx"
                        | "pptx"
                        | "odt"
                        | "odp"
                        | "mp3"
                        | "flac"
                        | "ogg"
                        | "wav"
                        | "m4a"
                        | "rs"
                        | "py"
                        | "js"
                        | "ts"
                        | "go"
                        | "c"
                        | "h"
                        | "json"
                        | "toml"
                        | "yaml"
                        | "yml"
                        | "csv"
                )
            }),
        Source::Url(_) => false,
    };
    if jobs.iter().all(textual) {
        return (None, None);
    }
    let Some(dir) = ocr_dir else {
        return (
            None,
            Some("no folder is configured for the OCR models".into()),
        );
    };
    if in_children {
        return (None, ocr::Ocr::check(dir).err().map(|e| e.to_string()));
    }
    match ocr::Ocr::load(dir) {
        Ok(ocr) => (Some(Arc::new(ocr)), None),
        Err(e) => (None, Some(e.to_string())),
    }
}

/// The outcome of a one-file ingestion, or its failure as an error.
fn single_outcome(report: IngestReport, name: &str) -> Result<WriteOutcome> {
    let (id, status) = if let Some(id) = report.added.into_iter().next() {
        (id, WriteStatus::Created)
    } else if let Some(id) = report.updated.into_iter().next() {
        (id, WriteStatus::Updated)
    } else if let Some(id) = report.unchanged.into_iter().next() {
        (id, WriteStatus::Unchanged)
    } else {
        let failure = report.failed.into_iter().next();
        return Err(keep_ingest::Error::Unreadable {
            what: failure
                .as_ref()
                .map_or(name.to_string(), |f| f.path.clone()),
            reason: failure.map_or("nothing was stored".into(), |f| f.reason),
        }
        .into());
    };
    Ok(WriteOutcome::plain(id, status))
}
