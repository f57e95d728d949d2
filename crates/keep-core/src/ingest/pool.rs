//! Extraction on worker threads. Each file is read (with a size cap),
//! hashed, skipped when its hash is already stored, then extracted on a
//! thread of its own so that a panic is caught and a hang is cut off after
//! a time limit; results come back over a channel in completion order.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, Once};
use std::thread;
use std::time::Duration;

use super::ocr::Ocr;
use super::{Document, MAX_FILE_BYTES, extract, fetch};
use crate::model;

/// Longest an extraction may run.
pub const TIME_LIMIT: Duration = Duration::from_secs(120);
const EXTRACT_THREAD: &str = "keep-extract";

/// Where a job's bytes come from.
#[derive(Debug, Clone)]
pub enum Source {
    File(PathBuf),
    Url(String),
}

#[derive(Debug, Clone)]
pub struct Job {
    /// The note id the result will be stored under.
    pub id: String,
    pub source: Source,
}

impl Job {
    /// The path or URL, for messages and progress.
    pub fn name(&self) -> String {
        match &self.source {
            Source::File(p) => p.display().to_string(),
            Source::Url(u) => u.clone(),
        }
    }
}

#[derive(Debug)]
pub enum Outcome {
    Extracted {
        doc: Box<Document>,
        hash: String,
    },
    /// The stored note already has this content hash.
    Unchanged,
    Failed(String),
}

/// Runs `jobs` on `workers` threads; each result arrives as (job index,
/// outcome). `known` maps ids to stored content hashes.
pub fn run(
    jobs: Vec<Job>,
    workers: usize,
    known: HashMap<String, String>,
    ocr: Option<Arc<Ocr>>,
    fetch_timeout: Duration,
) -> Receiver<(usize, Outcome)> {
    quiet_extract_panics();
    let (tx, rx) = channel();
    let queue = Arc::new(Mutex::new(jobs.into_iter().enumerate()));
    let known = Arc::new(known);
    for _ in 0..workers.max(1) {
        let queue = Arc::clone(&queue);
        let known = Arc::clone(&known);
        let ocr = ocr.clone();
        let tx: Sender<(usize, Outcome)> = tx.clone();
        thread::spawn(move || {
            loop {
                let next = queue.lock().unwrap_or_else(|p| p.into_inner()).next();
                let Some((index, job)) = next else { break };
                let outcome = process(&job, &known, ocr.clone(), fetch_timeout);
                if tx.send((index, outcome)).is_err() {
                    break;
                }
            }
        });
    }
    rx
}

fn process(
    job: &Job,
    known: &HashMap<String, String>,
    ocr: Option<Arc<Ocr>>,
    fetch_timeout: Duration,
) -> Outcome {
    let bytes = match read(&job.source, fetch_timeout) {
        Ok(b) => b,
        Err(reason) => return Outcome::Failed(reason),
    };
    let hash = model::content_hash(&bytes);
    if known.get(&job.id) == Some(&hash) {
        return Outcome::Unchanged;
    }
    let name = job.name();
    let path = match &job.source {
        Source::File(p) => Some(p.clone()),
        Source::Url(u) => Some(PathBuf::from(u.split(['?', '#']).next().unwrap_or(u))),
    };
    let (tx, rx) = channel();
    let spawned = thread::Builder::new()
        .name(EXTRACT_THREAD.into())
        .spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(|| {
                extract(&bytes, &name, path.as_deref(), ocr.as_deref())
            }));
            let _ = tx.send(result);
        });
    if let Err(e) = spawned {
        return Outcome::Failed(format!("could not start extraction: {e}"));
    }
    match rx.recv_timeout(TIME_LIMIT) {
        Ok(Ok(Ok(doc))) => Outcome::Extracted {
            doc: Box::new(doc),
            hash,
        },
        Ok(Ok(Err(e))) => Outcome::Failed(reason_of(e)),
        Ok(Err(panic)) => Outcome::Failed(format!(
            "the extractor crashed ({}); the file is probably malformed",
            panic_message(&panic)
        )),
        Err(RecvTimeoutError::Timeout) => Outcome::Failed(format!(
            "extraction took longer than {} s; gave up",
            TIME_LIMIT.as_secs()
        )),
        Err(RecvTimeoutError::Disconnected) => Outcome::Failed("the extractor vanished".into()),
    }
}

/// The reason part of an extraction error (the caller adds the name).
fn reason_of(e: crate::Error) -> String {
    e.reason()
}

fn read(source: &Source, fetch_timeout: Duration) -> Result<Vec<u8>, String> {
    match source {
        Source::Url(url) => fetch::fetch(url, fetch_timeout).map_err(reason_of),
        Source::File(path) => {
            let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
            if meta.len() > MAX_FILE_BYTES {
                return Err(format!(
                    "is {:.1} MB; files over {} MB are not read",
                    meta.len() as f64 / 1e6,
                    MAX_FILE_BYTES / (1024 * 1024)
                ));
            }
            std::fs::read(path).map_err(|e| e.to_string())
        }
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    let text = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("panic");
    text.lines()
        .next()
        .unwrap_or("panic")
        .chars()
        .take(200)
        .collect()
}

/// Keeps panics on extraction threads off stderr (they become failures in
/// the report); other panics print as before.
fn quiet_extract_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if thread::current().name() != Some(EXTRACT_THREAD) {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_cover_every_job_and_skip_known_hashes() {
        let dir = tempfile::tempdir().unwrap();
        let mut jobs = Vec::new();
        for (name, body) in [
            ("a.txt", "alpha text"),
            ("b.txt", "bravo text"),
            ("c.pdf", "not a pdf"),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, body).unwrap();
            jobs.push(Job {
                id: name.into(),
                source: Source::File(path),
            });
        }
        jobs.push(Job {
            id: "gone".into(),
            source: Source::File(dir.path().join("gone.txt")),
        });
        let known = HashMap::from([("b.txt".to_string(), model::content_hash(b"bravo text"))]);
        let mut results: Vec<(usize, Outcome)> = run(jobs, 2, known, None, Duration::from_secs(5))
            .iter()
            .collect();
        results.sort_by_key(|r| r.0);
        assert!(
            matches!(&results[0].1, Outcome::Extracted { doc, .. } if doc.text == "alpha text")
        );
        assert!(matches!(results[1].1, Outcome::Unchanged));
        assert!(matches!(&results[2].1, Outcome::Failed(r) if r.contains("named as PDF")));
        assert!(matches!(&results[3].1, Outcome::Failed(r) if r.contains("No such file")));
    }
}
