//! The folder watcher: holds the single-watcher lease (renewed while it
//! runs, expiring if the process dies), watches every registered folder
//! with inotify (polling where notifications are unavailable or the watch
//! limit is reached), runs a catch-up scan whenever it starts watching a
//! folder, and turns bursts of events into one debounced pass over the
//! touched paths. A folder that disappears stays registered and is picked
//! up again when it comes back.

pub mod drain;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::{Event, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher};

use keep_core::keeper::{SyncReport, WATCH_LEASE, WatchedDir, lease_holder};
use keep_core::{Keeper, Result, Settings};

use drain::{Drainer, Step};

/// How long the lease lasts without renewal.
pub const LEASE_TTL: Duration = Duration::from_secs(15);
const LEASE_RENEW: Duration = Duration::from_secs(5);
/// How long changes wait after the store refused them (a full disk).
const FAULT_RETRY: Duration = Duration::from_secs(5);
/// Quiet time after the last event before a pass.
const DEBOUNCE: Duration = Duration::from_millis(150);
/// Longest a pass waits during a continuous burst.
const MAX_DELAY: Duration = Duration::from_secs(2);
/// How often registrations and missing folders are checked.
const REFRESH: Duration = Duration::from_secs(2);
const POLL_INTERVAL: Duration = Duration::from_secs(2);

/// What the watcher tells whoever runs it.
#[derive(Debug)]
pub enum WatchEvent {
    /// A pass over a folder changed something (or failed on some files).
    Synced { dir: String, report: SyncReport },
    /// Something worth a line: lease taken or lost, a folder missing, ...
    Message(String),
}

/// Runs until `stop` is set. Errors only when the store cannot be used.
pub fn run(
    settings: &Settings,
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(WatchEvent),
) -> Result<()> {
    let mut keeper = Keeper::open(settings.clone())?;
    keeper.set_agent("watch");
    let holder = lease_holder();
    let mut state = State::default();
    let mut drainer = Drainer::default();
    let mut last_lease: Option<Instant> = None;
    let mut holding = false;
    while !stop.load(Ordering::Relaxed) {
        if last_lease.is_none_or(|t| t.elapsed() >= LEASE_RENEW) {
            last_lease = Some(Instant::now());
            let now_holding = keeper
                .take_lease(WATCH_LEASE, &holder, LEASE_TTL)
                .unwrap_or(false);
            if now_holding && !holding {
                state = State::start()?;
                on_event(WatchEvent::Message(
                    "watching: this process holds the watch lease".into(),
                ));
            } else if !now_holding && holding {
                state = State::default();
                on_event(WatchEvent::Message(
                    "another process is watching now".into(),
                ));
            }
            holding = now_holding;
        }
        if !holding {
            std::thread::sleep(Duration::from_millis(200));
            continue;
        }
        state.refresh(&mut keeper, on_event)?;
        state.collect_events(on_event);
        state.flush_if_quiet(&mut keeper, on_event)?;
        if state.is_quiet() {
            embed_a_little(&mut keeper, &mut drainer, stop, on_event);
        }
    }
    drainer.release(&mut keeper);
    if holding {
        // Should this write fail, the lease lapses when it expires or
        // this process ends.
        keeper.release_lease(WATCH_LEASE, &holder).ok();
    }
    Ok(())
}

/// Texts given vectors per step while nothing else happens: small enough
/// that new files and a stop request wait at most a few hundred
/// milliseconds.
const EMBED_STEP: usize = 16;
/// Longest such a step embeds before it commits.
const EMBED_BUDGET: Duration = Duration::from_millis(250);

/// Gives a few waiting texts their vectors, in one committed batch, when
/// no other process drains the backlog; with none waiting, brings the
/// vector graphs and word indexes up to date if one is due.
fn embed_a_little(
    keeper: &mut Keeper,
    drainer: &mut Drainer,
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(WatchEvent),
) {
    let step = match drainer.step(keeper, EMBED_BUDGET, Some(EMBED_STEP)) {
        Step::Idle => drainer.refresh_indexes(keeper, 1, &|| stop.load(Ordering::Relaxed)),
        step => step,
    };
    if let Step::Failed(e) = step {
        on_event(WatchEvent::Message(format!(
            "waiting notes are not embedded: {e}"
        )));
    }
}

/// Runs on a background thread, at low priority, for the MCP server and
/// the browser: the watcher when folders are registered (it also fills in
/// waiting vectors when quiet), else a drain of the embedding backlog.
/// Stops when the handle drops.
pub fn spawn_background(settings: Settings) -> Option<Background> {
    let keeper = Keeper::open(settings.clone()).ok()?;
    let watching = !keeper.watches().ok()?.is_empty();
    drop(keeper);
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("keep-background".into())
        .spawn(move || {
            let _done = done;
            lower_priority();
            if watching {
                let ran = run(&settings, &flag, &mut |event| match &event {
                    WatchEvent::Synced { report, .. } => {
                        for f in &report.failed {
                            eprintln!("keep: {}: {}", f.path, f.reason);
                        }
                    }
                    // Lease changes and retries: the server and the
                    // browser show the watcher's state themselves.
                    WatchEvent::Message(_) => {}
                });
                if let Err(e) = ran {
                    eprintln!("keep: the folder watcher stopped: {e}");
                }
            } else {
                drain::drain_while_running(&settings, &flag);
            }
        })
        .ok()?;
    Some(Background {
        stop,
        finished,
        thread: Some(thread),
    })
}

/// Background work yields the processors to the foreground: the calling
/// thread (and the threads it starts, such as the model's) runs at nice 10.
pub(crate) fn lower_priority() {
    // SAFETY: setpriority on the calling thread's own id changes only its
    // scheduling priority.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 10);
    }
}

/// Background work on its own thread.
pub struct Background {
    stop: Arc<AtomicBool>,
    /// Disconnects when the thread ends.
    finished: Receiver<()>,
    thread: Option<JoinHandle<()>>,
}

/// How long a closing process waits for background work to reach a stop.
/// At low priority on a busy machine a step can take longer; it is then
/// left to end with the process (every write is one transaction, and the
/// watch lease lapses when its process is gone).
const STOP_WAIT: Duration = Duration::from_secs(1);

impl Drop for Background {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if self.finished.recv_timeout(STOP_WAIT) == Err(RecvTimeoutError::Disconnected)
            && let Some(t) = self.thread.take()
        {
            // A background thread that panicked has said so on stderr
            // already; the process is closing either way.
            t.join().ok();
        }
    }
}

/// The watches of a lease holder.
#[derive(Default)]
struct State {
    tx: Option<Sender<notify::Result<Event>>>,
    rx: Option<Receiver<notify::Result<Event>>>,
    inotify: Option<RecommendedWatcher>,
    poll: Option<PollWatcher>,
    /// Registered folders being watched now, by path.
    active: BTreeMap<String, WatchedDir>,
    /// Registered folders that are missing (reported once).
    missing: BTreeSet<String>,
    touched: BTreeMap<String, BTreeSet<PathBuf>>,
    first_touch: Option<Instant>,
    last_touch: Option<Instant>,
    last_refresh: Option<Instant>,
    /// After a fault of the store (a full disk): when to try the touched
    /// paths again, and the fault, told once.
    retry_at: Option<Instant>,
    fault: Option<String>,
}

impl State {
    fn start() -> Result<State> {
        let (tx, rx) = channel();
        Ok(State {
            inotify: notify::recommended_watcher(tx.clone()).ok(),
            tx: Some(tx),
            rx: Some(rx),
            ..State::default()
        })
    }

    /// Starts watching new registrations and folders that came back (with
    /// a catch-up scan); stops watching removed and missing ones.
    fn refresh(&mut self, keeper: &mut Keeper, on_event: &mut dyn FnMut(WatchEvent)) -> Result<()> {
        if self.last_refresh.is_some_and(|t| t.elapsed() < REFRESH) {
            return Ok(());
        }
        self.last_refresh = Some(Instant::now());
        let registered = keeper.watches()?;
        let names: BTreeSet<String> = registered.iter().map(|w| w.dir.clone()).collect();
        let dropped: Vec<String> = self
            .active
            .keys()
            .filter(|d| !names.contains(*d))
            .cloned()
            .collect();
        for dir in dropped {
            self.unwatch(&dir);
        }
        for w in registered {
            let exists = Path::new(&w.dir).is_dir();
            if !exists {
                if self.active.contains_key(&w.dir) {
                    self.unwatch(&w.dir);
                }
                if self.missing.insert(w.dir.clone()) {
                    on_event(WatchEvent::Message(format!(
                        "{}: the folder is missing or unreadable; it stays registered and is watched again when it is back",
                        w.dir
                    )));
                }
                continue;
            }
            if self.active.get(&w.dir) == Some(&w) {
                continue;
            }
            if self.missing.remove(&w.dir) {
                on_event(WatchEvent::Message(format!(
                    "{}: the folder is back",
                    w.dir
                )));
            }
            self.watch(&w, on_event);
            self.active.insert(w.dir.clone(), w.clone());
            match keeper.sync_folder(&w, None) {
                Ok(report) => report_sync(&w.dir, report, on_event),
                Err(e) => on_event(WatchEvent::Message(e.to_string())),
            }
        }
        Ok(())
    }

    fn watch(&mut self, w: &WatchedDir, on_event: &mut dyn FnMut(WatchEvent)) {
        let mode = if w.recursive {
            RecursiveMode::Recursive
        } else {
            RecursiveMode::NonRecursive
        };
        let path = Path::new(&w.dir);
        let by_inotify = self
            .inotify
            .as_mut()
            .map(|watcher| watcher.watch(path, mode));
        if let Some(Ok(())) = by_inotify {
            return;
        }
        if let Some(Err(e)) = &by_inotify {
            on_event(WatchEvent::Message(format!(
                "{}: notifications unavailable ({e}); polling every {} s",
                w.dir,
                POLL_INTERVAL.as_secs()
            )));
        }
        if self.poll.is_none()
            && let Some(tx) = self.tx.clone()
        {
            let config = notify::Config::default().with_poll_interval(POLL_INTERVAL);
            match PollWatcher::new(tx, config) {
                Ok(poll) => self.poll = Some(poll),
                Err(e) => on_event(WatchEvent::Message(format!(
                    "{}: cannot poll either ({e}); changes there are not seen",
                    w.dir
                ))),
            }
        }
        if let Some(poll) = self.poll.as_mut()
            && let Err(e) = poll.watch(path, mode)
        {
            on_event(WatchEvent::Message(format!(
                "{}: cannot watch ({e})",
                w.dir
            )));
        }
    }

    fn unwatch(&mut self, dir: &str) {
        let path = Path::new(dir);
        // A folder that vanished has no watch left to remove: either
        // outcome leaves it unwatched, which is what is asked.
        if let Some(w) = self.inotify.as_mut() {
            w.unwatch(path).ok();
        }
        if let Some(p) = self.poll.as_mut() {
            p.unwatch(path).ok();
        }
        self.active.remove(dir);
        self.touched.remove(dir);
    }

    /// Files events named, grouped by the watched folder they are in.
    fn collect_events(&mut self, on_event: &mut dyn FnMut(WatchEvent)) {
        let Some(rx) = &self.rx else {
            std::thread::sleep(Duration::from_millis(100));
            return;
        };
        let mut wait = Duration::from_millis(100);
        loop {
            match rx.recv_timeout(wait) {
                Ok(Ok(event)) => {
                    for path in event.paths {
                        let Some(dir) = self.active.keys().find(|d| path.starts_with(d)).cloned()
                        else {
                            continue;
                        };
                        self.touched.entry(dir).or_default().insert(path);
                        self.first_touch.get_or_insert_with(Instant::now);
                        self.last_touch = Some(Instant::now());
                    }
                }
                Ok(Err(e)) => on_event(WatchEvent::Message(format!("watch error: {e}"))),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
            }
            wait = Duration::ZERO;
        }
    }

    /// One pass per folder once events have settled (or waited too long).
    /// No changes wait for their pass.
    fn is_quiet(&self) -> bool {
        self.first_touch.is_none()
    }

    fn flush_if_quiet(
        &mut self,
        keeper: &mut Keeper,
        on_event: &mut dyn FnMut(WatchEvent),
    ) -> Result<()> {
        let (Some(first), Some(last)) = (self.first_touch, self.last_touch) else {
            return Ok(());
        };
        if (last.elapsed() < DEBOUNCE && first.elapsed() < MAX_DELAY)
            || self.retry_at.is_some_and(|t| Instant::now() < t)
        {
            return Ok(());
        }
        self.first_touch = None;
        self.last_touch = None;
        self.retry_at = None;
        let mut touched = std::mem::take(&mut self.touched);
        while let Some((dir, paths)) = touched.pop_first() {
            let Some(w) = self.active.get(&dir).cloned() else {
                continue;
            };
            let list: Vec<PathBuf> = paths.iter().cloned().collect();
            match keeper.sync_folder(&w, Some(&list)) {
                Ok(report) => {
                    if self.fault.take().is_some() {
                        on_event(WatchEvent::Message(
                            "the store takes writes again: picking up where it stopped".into(),
                        ));
                    }
                    report_sync(&dir, report, on_event)
                }
                Err(e) if e.is_store_fault() => {
                    // Nothing of these paths was lost: they wait for the
                    // store to take writes again.
                    touched.insert(dir, paths);
                    self.keep_for_retry(touched, e.to_string(), on_event);
                    return Ok(());
                }
                Err(e) => on_event(WatchEvent::Message(e.to_string())),
            }
        }
        Ok(())
    }

    /// Holds `touched` back for `FAULT_RETRY` after a fault of the store,
    /// telling the fault once.
    fn keep_for_retry(
        &mut self,
        touched: BTreeMap<String, BTreeSet<PathBuf>>,
        fault: String,
        on_event: &mut dyn FnMut(WatchEvent),
    ) {
        for (dir, paths) in touched {
            self.touched.entry(dir).or_default().extend(paths);
        }
        let now = Instant::now();
        self.first_touch.get_or_insert(now);
        self.last_touch.get_or_insert(now);
        self.retry_at = Some(now + FAULT_RETRY);
        if self.fault.as_ref() != Some(&fault) {
            on_event(WatchEvent::Message(format!(
                "{fault}; the changes wait and are tried again every {} s",
                FAULT_RETRY.as_secs()
            )));
            self.fault = Some(fault);
        }
    }
}

fn report_sync(dir: &str, report: SyncReport, on_event: &mut dyn FnMut(WatchEvent)) {
    if !report.is_empty() || !report.notices.is_empty() {
        on_event(WatchEvent::Synced {
            dir: dir.to_string(),
            report,
        });
    }
}
