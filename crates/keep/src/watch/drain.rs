//! The backlog drains by itself: work owed by configured providers
//! (transcripts, summaries), then a change of embedding model, then
//! vectors. Notes stored without a vector
//! (a folder put that was stopped, text put with `--id`, an import without
//! vectors) get one from whichever process holds the store's embed lease:
//! a server's or browser's background thread, a folder watcher when it is
//! quiet, or, after a command that leaves notes waiting, a detached `keep`
//! that works at low priority and exits when nothing waits or its store's
//! folder is deleted. One at a time
//! per store; each step is a short committed batch, so a kill loses
//! nothing and other writers get their turn.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use keep_core::keeper::{EMBED_LEASE, lease_holder, wall_ms};
use keep_core::{Keeper, Settings};

use crate::config::{Config, Environment};

/// The first argument that makes the binary a detached drain of the
/// store `KEEP_STORE` names; not a command for people.
pub const DRAIN_COMMAND: &str = "__drain";

/// How long the embed lease lasts without renewal (each step renews it).
const LEASE_TTL: Duration = Duration::from_secs(60);
/// How long to leave the backlog alone after the model cannot be used.
const RETRY_AFTER: Duration = Duration::from_secs(60);

/// What one step came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Some waiting notes got their vectors.
    Worked,
    /// Nothing waits.
    Idle,
    /// Another process holds the lease and does the work.
    Elsewhere,
    /// The backlog cannot be worked now (no model, a read-only store, ...);
    /// the next try is after `RETRY_AFTER`.
    Failed(String),
    /// Waiting for the retry after a failure.
    Resting,
}

/// One process's share of the backlog: the lease it may hold and when it
/// may try again after a failure.
pub struct Drainer {
    holder: String,
    holding: bool,
    retry_at: Option<Instant>,
    /// When the indexes' upkeep may be tried again after it failed: a
    /// store whose notes cannot be embedded still has its indexes kept.
    upkeep_retry_at: Option<Instant>,
}

impl Default for Drainer {
    fn default() -> Self {
        Drainer {
            holder: lease_holder(),
            holding: false,
            retry_at: None,
            upkeep_retry_at: None,
        }
    }
}

impl Drainer {
    /// Embeds for about `budget` (at most `limit` rows) if anything waits
    /// and this process holds (or takes) the embed lease.
    pub fn step(&mut self, keeper: &mut Keeper, budget: Duration, limit: Option<usize>) -> Step {
        if self.retry_at.is_some_and(|t| Instant::now() < t) {
            return Step::Resting;
        }
        if !self.anything_waits(keeper) {
            return Step::Idle;
        }
        match keeper.take_lease(EMBED_LEASE, &self.holder, LEASE_TTL) {
            Ok(true) => self.holding = true,
            Ok(false) => {
                self.holding = false;
                return Step::Elsewhere;
            }
            Err(e) => return self.failed(keeper, e.to_string()),
        }
        let until = Instant::now() + budget;
        if keeper.provider_work_waiting().unwrap_or(0) > 0 {
            // One note at a time: a model's answer takes seconds, and the
            // lease is renewed between them.
            return match keeper.work_providers(Some(1), None, &mut |_, _| {}) {
                Ok(work) => {
                    for (id, reason) in work.failed {
                        eprintln!("keep: {id}: kept as it was: {reason}");
                    }
                    Step::Worked
                }
                Err(e) => self.failed(keeper, e.to_string()),
            };
        }
        if keeper.model_switch_waiting().unwrap_or(0) > 0 {
            return match keeper.switch_model(limit, Some(until), &mut |_, _| {}) {
                Ok(_) => Step::Worked,
                Err(e) => self.failed(keeper, e.to_string()),
            };
        }
        match keeper.embed_pending_with(limit, Some(until), &mut |_| {}) {
            Ok(_) => Step::Worked,
            Err(e) => self.failed(keeper, e.to_string()),
        }
    }

    /// Brings the store's vector graphs up to date when one is due, on
    /// `threads` threads, giving up (keeping nothing) once `stop` says so;
    /// then merges the word indexes that are due, a slice at a time.
    pub fn refresh_indexes(
        &mut self,
        keeper: &mut Keeper,
        threads: usize,
        stop: &dyn Fn() -> bool,
    ) -> Step {
        if self.upkeep_retry_at.is_some_and(|t| Instant::now() < t) {
            return Step::Resting;
        }
        match Self::keep_indexes(keeper, threads, stop) {
            Ok(true) => Step::Worked,
            Ok(false) => Step::Idle,
            Err(e) => {
                self.upkeep_retry_at = Some(Instant::now() + RETRY_AFTER);
                Step::Failed(e.to_string())
            }
        }
    }

    /// The graphs' refresh and the word indexes' merge, when due; true
    /// when either did work.
    fn keep_indexes(
        keeper: &mut Keeper,
        threads: usize,
        stop: &dyn Fn() -> bool,
    ) -> keep_core::Result<bool> {
        let mut worked = false;
        if keeper.vector_graphs_due()? {
            // Another process refreshing them finishes the work alone.
            keeper.refresh_vector_graphs(threads, &mut |_, _, _| !stop(), &mut |_| false)?;
            worked = true;
        }
        if !keeper.text_indexes_due()?.is_empty() {
            keeper.merge_text_indexes(&mut |_, _, _| !stop())?;
            worked = true;
        }
        Ok(worked)
    }

    /// Rows waiting for a vector (of the store's model or of the one it
    /// changes to) or notes for a provider's work.
    fn waiting(keeper: &Keeper) -> usize {
        (keeper.pending_embeddings().unwrap_or(0).max(0)
            + keeper.model_switch_waiting().unwrap_or(0).max(0)) as usize
            + keeper.provider_work_waiting().unwrap_or(0)
    }

    /// Whether rows wait for a vector. With none, the lease is given up
    /// and the count taken again: a writer that saw the lease held before
    /// it was given up left its rows to this process.
    fn anything_waits(&mut self, keeper: &mut Keeper) -> bool {
        if Self::waiting(keeper) > 0 {
            return true;
        }
        if !self.holding {
            return false;
        }
        self.release(keeper);
        Self::waiting(keeper) > 0
    }

    fn failed(&mut self, keeper: &mut Keeper, reason: String) -> Step {
        self.retry_at = Some(Instant::now() + RETRY_AFTER);
        self.release(keeper);
        Step::Failed(reason)
    }

    /// Gives the lease up. Should that write fail, the lease still lapses
    /// when it expires or this process ends.
    pub fn release(&mut self, keeper: &mut Keeper) {
        if std::mem::take(&mut self.holding) {
            keeper.release_lease(EMBED_LEASE, &self.holder).ok();
        }
    }
}

/// Pause between the steps of a server's drain: it also serves requests.
const SERVER_PAUSE: Duration = Duration::from_millis(500);
/// Longest a server's drain step embeds before it commits and looks at
/// `stop`.
const SERVER_STEP: Duration = Duration::from_millis(250);

/// A server's or browser's drain: steps until `stop` is set; the model is
/// loaded only when something waits.
pub fn drain_while_running(settings: &Settings, stop: &AtomicBool) {
    let Ok(mut keeper) = Keeper::open(settings.clone()) else {
        return;
    };
    let mut drainer = Drainer::default();
    let stopped = || stop.load(Ordering::Relaxed);
    while !stopped() {
        std::thread::sleep(SERVER_PAUSE);
        if drainer.step(&mut keeper, SERVER_STEP, None) == Step::Idle {
            // One thread: the server answers requests on the other cores.
            drainer.refresh_indexes(&mut keeper, 1, &stopped);
        }
    }
    drainer.release(&mut keeper);
}

/// Longest a detached drain step embeds before it commits.
const DETACHED_STEP: Duration = Duration::from_secs(2);
/// Pause between its steps, so other writers take the store in between.
const DETACHED_PAUSE: Duration = Duration::from_millis(20);

/// `keep __drain`: the detached drain. Runs at low priority until nothing
/// waits, another process has taken the work, or the backlog cannot be
/// worked; exit status 0 in every case (nobody reads it).
pub fn run_detached() -> u8 {
    super::lower_priority();
    let Ok(config) = Config::resolve(None, &Environment::capture()) else {
        return 0;
    };
    let Ok(settings) = config.settings() else {
        return 0;
    };
    let Ok(mut keeper) = Keeper::open(settings) else {
        return 0;
    };
    let folder = StoreFolder::of(&keeper, &config);
    let gone = || !folder.still_there();
    let mut drainer = Drainer::default();
    while !gone() && drainer.step(&mut keeper, DETACHED_STEP, None) == Step::Worked {
        std::thread::sleep(DETACHED_PAUSE);
    }
    if !gone() {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        drainer.refresh_indexes(&mut keeper, threads, &gone);
    }
    drainer.release(&mut keeper);
    0
}

/// The folder of a SQLite store as a detached drain opened it. Deleted or
/// replaced, the store the drain works on is gone (its files live on only
/// while open), and the drain ends instead of working on for nobody.
struct StoreFolder {
    /// The folder and its device and inode when opened; None for a store
    /// on a database server, which no folder holds.
    opened: Option<(std::path::PathBuf, (u64, u64))>,
    checked: std::cell::Cell<Option<(Instant, bool)>>,
}

/// How often the folder is looked at again (the graph build asks often).
const FOLDER_CHECK_EVERY: Duration = Duration::from_millis(200);

impl StoreFolder {
    fn of(keeper: &Keeper, config: &Config) -> Self {
        let dir = keeper.store_dir().to_path_buf();
        let opened = config
            .database
            .is_none()
            .then(|| identity(&dir).map(|id| (dir, id)))
            .flatten();
        StoreFolder {
            opened,
            checked: std::cell::Cell::new(None),
        }
    }

    fn still_there(&self) -> bool {
        let Some((dir, id)) = &self.opened else {
            return true;
        };
        if let Some((at, there)) = self.checked.get()
            && at.elapsed() < FOLDER_CHECK_EVERY
        {
            return there;
        }
        let there = identity(dir) == Some(*id);
        self.checked.set(Some((Instant::now(), there)));
        there
    }
}

fn identity(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// After a command that may have left notes waiting: starts a detached
/// drain when vectors wait and a model is installed, a provider's work
/// waits, or a vector graph (no process refreshing it) or a word index is
/// due, the setting allows it and no live process holds the embed lease.
/// Never fails the command.
pub fn start_if_waiting(keeper: &Keeper, config: &Config) {
    let vectors_wait = (keeper.pending_embeddings().unwrap_or(0) > 0
        || keeper.model_switch_waiting().unwrap_or(0) > 0)
        && keeper.model_id().is_ok();
    let indexes_due = || {
        keeper.vector_graphs_due().unwrap_or(false)
            && keeper.vector_graph_build().is_ok_and(|b| b.is_none())
            || keeper.text_indexes_due().is_ok_and(|due| !due.is_empty())
    };
    if !config.background_embed
        || !(vectors_wait || keeper.provider_work_waiting().unwrap_or(0) > 0 || indexes_due())
        || keeper
            .live_lease(EMBED_LEASE, wall_ms())
            .map_or(true, |l| l.is_some())
    {
        return;
    }
    let Ok(program) = std::env::current_exe() else {
        return;
    };
    let store = config
        .database
        .clone()
        .map_or_else(|| keeper.store_dir().as_os_str().to_owned(), Into::into);
    use std::os::unix::process::CommandExt;
    Command::new(program)
        .arg(DRAIN_COMMAND)
        .env("KEEP_STORE", store)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own process group: a Ctrl-C or a closed terminal that ends
        // the command does not end the drain.
        .process_group(0)
        .spawn()
        .ok();
}
