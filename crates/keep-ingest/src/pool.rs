//! Extraction on worker threads. Each file is read (regular files only,
//! bounded), hashed, skipped when its hash is already stored, then
//! extracted: plain text and Markdown on a thread of their own, every other
//! format in a child process (`isolate`) when the settings name one, so
//! that a crash, a runaway allocation or a hang fails only its file. The
//! bytes read but not yet extracted are bounded for the whole pool.
//! Results come back over a channel in completion order.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

use super::isolate::{Isolated, WorkerCommand};
use super::ocr::Ocr;
use super::read::read_regular_file;
use super::threads::{EXTRACT_THREAD, panic_message, quiet_extract_panics};
use crate::document::Document;
use crate::extract::{MAX_FILE_BYTES, extract, needs_isolation};
use crate::fetch;
use keep_model as model;

/// Longest an extraction may run.
pub const TIME_LIMIT: Duration = Duration::from_secs(120);
/// Bytes of files held by the pool at once, read but not yet extracted.
pub const IN_FLIGHT_BYTES: u64 = 512 * 1024 * 1024;

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
            Source::File(p) => model::printable(&p.display().to_string()),
            Source::Url(u) => u.clone(),
        }
    }
}

#[derive(Debug)]
pub enum Outcome {
    Extracted {
        doc: Box<Document>,
        hash: String,
        /// How long reading and extracting took.
        took: Duration,
    },
    /// The stored note already has this content hash.
    Unchanged,
    Failed(String),
}

/// How the pool extracts.
#[derive(Clone, Default)]
pub struct PoolConfig {
    pub workers: usize,
    pub fetch_timeout: Duration,
    /// The child extractor for every format but plain text; None: threads.
    pub isolation: Option<WorkerCommand>,
    /// OCR models loaded here, for extraction on threads.
    pub ocr: Option<Arc<Ocr>>,
    /// Where children find the OCR models.
    pub ocr_dir: Option<PathBuf>,
}

/// Runs `jobs` on the configured workers; each result arrives as (job
/// index, outcome). `known` maps ids to stored content hashes.
pub fn run(
    jobs: Vec<Job>,
    config: PoolConfig,
    known: HashMap<String, String>,
) -> Receiver<(usize, Outcome)> {
    quiet_extract_panics();
    let (tx, rx) = channel();
    let queue = Arc::new(Mutex::new(jobs.into_iter().enumerate()));
    let known = Arc::new(known);
    let budget = Arc::new(Budget::new(IN_FLIGHT_BYTES));
    let config = Arc::new(config);
    for _ in 0..config.workers.max(1) {
        let queue = Arc::clone(&queue);
        let known = Arc::clone(&known);
        let budget = Arc::clone(&budget);
        let config = Arc::clone(&config);
        let tx: Sender<(usize, Outcome)> = tx.clone();
        thread::spawn(move || {
            let mut child = config.isolation.clone().map(Isolated::new);
            loop {
                let next = queue.lock().unwrap_or_else(|p| p.into_inner()).next();
                let Some((index, job)) = next else { break };
                let outcome = process(&job, &known, &config, &budget, child.as_mut());
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
    config: &PoolConfig,
    budget: &Budget,
    child: Option<&mut Isolated>,
) -> Outcome {
    let _held = match &job.source {
        Source::File(path) => budget.take(std::fs::metadata(path).map_or(0, |m| m.len())),
        Source::Url(_) => budget.take(0),
    };
    let start = std::time::Instant::now();
    let bytes = match read(&job.source, config.fetch_timeout) {
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
    let extracted = match child {
        Some(child) if needs_isolation(&bytes, path.as_deref()) => child.extract(
            &bytes,
            &name,
            path.as_deref(),
            config.ocr_dir.as_deref(),
            TIME_LIMIT,
        ),
        _ => extract_on_thread(bytes, name, path, config.ocr.clone()),
    };
    match extracted {
        Ok(doc) => Outcome::Extracted {
            doc: Box::new(doc),
            hash,
            took: start.elapsed(),
        },
        Err(reason) => Outcome::Failed(reason),
    }
}

/// Extracts on a thread of its own, so that a panic is caught and a hang
/// is cut off after the time limit.
fn extract_on_thread(
    bytes: Vec<u8>,
    name: String,
    path: Option<PathBuf>,
    ocr: Option<Arc<Ocr>>,
) -> Result<Document, String> {
    let (tx, rx) = channel();
    let spawned = thread::Builder::new()
        .name(EXTRACT_THREAD.into())
        .spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(|| {
                extract(&bytes, &name, path.as_deref(), ocr.as_deref())
            }));
            // The caller stopped waiting (cancelled or timed out): nobody wants the result.
            let _ = tx.send(result);
        });
    if let Err(e) = spawned {
        return Err(format!("could not start extraction: {e}"));
    }
    match rx.recv_timeout(TIME_LIMIT) {
        Ok(Ok(Ok(doc))) => Ok(doc),
        Ok(Ok(Err(e))) => Err(e.reason()),
        Ok(Err(panic)) => Err(format!(
            "the extractor crashed ({}); the file is probably malformed",
            panic_message(&panic)
        )),
        Err(RecvTimeoutError::Timeout) => Err(format!(
            "extraction took longer than {} s; gave up",
            TIME_LIMIT.as_secs()
        )),
        Err(RecvTimeoutError::Disconnected) => Err("the extractor vanished".into()),
    }
}

fn read(source: &Source, fetch_timeout: Duration) -> Result<Vec<u8>, String> {
    match source {
        Source::Url(url) => fetch::fetch(url, fetch_timeout).map_err(|e| e.reason()),
        Source::File(path) => read_regular_file(path, MAX_FILE_BYTES),
    }
}

/// Bytes the pool may hold at once. A file larger than the whole budget
/// waits until it is alone.
struct Budget {
    capacity: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

/// A share of the budget, given back when dropped.
struct Held<'a> {
    budget: &'a Budget,
    bytes: u64,
}

impl Budget {
    fn new(capacity: u64) -> Self {
        Budget {
            capacity,
            used: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    fn take(&self, bytes: u64) -> Held<'_> {
        let bytes = bytes.min(self.capacity);
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        while *used + bytes > self.capacity {
            used = self.freed.wait(used).unwrap_or_else(|p| p.into_inner());
        }
        *used += bytes;
        Held {
            budget: self,
            bytes,
        }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut used = self.budget.used.lock().unwrap_or_else(|p| p.into_inner());
        *used -= self.bytes;
        self.budget.freed.notify_all();
    }
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
        let config = PoolConfig {
            workers: 2,
            fetch_timeout: Duration::from_secs(5),
            ..PoolConfig::default()
        };
        let mut results: Vec<(usize, Outcome)> = run(jobs, config, known).iter().collect();
        results.sort_by_key(|r| r.0);
        assert!(
            matches!(&results[0].1, Outcome::Extracted { doc, .. } if doc.text == "alpha text")
        );
        assert!(matches!(results[1].1, Outcome::Unchanged));
        assert!(matches!(&results[2].1, Outcome::Failed(r) if r.contains("named as PDF")));
        assert!(matches!(&results[3].1, Outcome::Failed(r) if r.contains("No such file")));
    }

    #[test]
    fn the_budget_waits_for_room_and_gives_it_back() {
        let budget = Arc::new(Budget::new(100));
        let first = budget.take(80);
        let b = Arc::clone(&budget);
        let waiter = thread::spawn(move || {
            let _second = b.take(50);
        });
        thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "took more than the budget");
        drop(first);
        waiter.join().unwrap();
        let _huge = budget.take(1_000);
        assert_eq!(*budget.used.lock().unwrap(), 100);
    }
}
