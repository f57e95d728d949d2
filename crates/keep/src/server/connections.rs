//! The connections a server holds open: at most as many as its limit of
//! open files leaves room for. When all are taken, the one idle longest
//! (no request being answered) is closed for the newcomer, so clients
//! that hold connections open, or send their requests slowly, cannot
//! keep others out; a request whose body does not arrive in time is
//! dropped, and its address named once.

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

/// Open files kept for the store, the model and the keepers the server
/// lends, beside its connections.
const FILES_KEPT: usize = 32;
/// Connections held at most, whatever the limit of open files.
const MOST: usize = 1024;
/// Connections held at least, even under a very low limit.
const LEAST: usize = 4;
/// Addresses named for a slow request, at most (then no more are named).
const NAMED_AT_MOST: usize = 1024;

/// The connections of one server.
pub struct Connections {
    limit: usize,
    held: Mutex<Vec<Entry>>,
    freed: tokio::sync::Notify,
    next: AtomicU64,
    started: Instant,
    named: Mutex<HashSet<IpAddr>>,
}

struct Entry {
    id: u64,
    close: CancellationToken,
    state: Arc<State>,
}

/// What a connection is doing: answering a request, and when it last
/// did (milliseconds since the server started).
#[derive(Default)]
pub struct State {
    answering: AtomicBool,
    last: AtomicU64,
}

/// One connection held: dropping it frees its place.
pub struct Held {
    id: u64,
    connections: Arc<Connections>,
    /// Cancelled when the connection is closed to make room.
    pub close: CancellationToken,
    pub state: Arc<State>,
}

/// While it lives, the connection is answering a request and is not
/// closed to make room.
pub struct Answering {
    state: Arc<State>,
    connections: Arc<Connections>,
}

impl Connections {
    /// Connections for a server holding at most `limit` at once.
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(Connections {
            limit: limit.clamp(1, MOST),
            held: Mutex::new(Vec::new()),
            freed: tokio::sync::Notify::new(),
            next: AtomicU64::new(0),
            started: Instant::now(),
            named: Mutex::new(HashSet::new()),
        })
    }

    /// As many connections as this process's limit of open files leaves
    /// room for, after the files it has open now and those its store and
    /// keepers may open.
    pub fn for_this_process() -> Arc<Self> {
        Connections::new(room_for_connections(open_files_limit(), open_files_now()))
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Returns once a new connection may be taken: at once while fewer
    /// than the limit are held, else after closing the connection idle
    /// longest, or (every one answering) after one ends.
    pub async fn room(&self) {
        loop {
            if self.make_room() {
                return;
            }
            let _ = tokio::time::timeout(Duration::from_millis(100), self.freed.notified()).await;
        }
    }

    /// Whether there is room now, closing the connection idle longest
    /// when the limit is reached.
    fn make_room(&self) -> bool {
        let mut held = self.lock();
        if held.len() < self.limit {
            return true;
        }
        let idle = held
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.state.answering.load(Ordering::Acquire))
            .min_by_key(|(_, e)| e.state.last.load(Ordering::Acquire))
            .map(|(i, _)| i);
        match idle {
            Some(i) => {
                held.swap_remove(i).close.cancel();
                true
            }
            None => false,
        }
    }

    /// Holds a place for a connection just accepted.
    pub fn hold(self: &Arc<Self>) -> Held {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let state = Arc::new(State::default());
        state.last.store(self.millis(), Ordering::Release);
        let close = CancellationToken::new();
        self.lock().push(Entry {
            id,
            close: close.clone(),
            state: Arc::clone(&state),
        });
        Held {
            id,
            connections: Arc::clone(self),
            close,
            state,
        }
    }

    /// Names `from` on stderr for a request dropped as too slow, the
    /// first time it is.
    pub fn name_slow(&self, from: IpAddr, what: &str) {
        let mut named = self.named.lock().unwrap_or_else(PoisonError::into_inner);
        if named.len() < NAMED_AT_MOST && named.insert(from) {
            tracing::warn!("{from}: {what}; its connection was closed");
        }
    }

    fn millis(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Held {
    /// Marks the connection as answering a request until the guard drops.
    pub fn answering(&self) -> Answering {
        Answering::start(&self.state, &self.connections)
    }
}

impl Answering {
    /// Marks `state` as answering until the guard drops.
    pub fn start(state: &Arc<State>, connections: &Arc<Connections>) -> Answering {
        state.answering.store(true, Ordering::Release);
        Answering {
            state: Arc::clone(state),
            connections: Arc::clone(connections),
        }
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        self.state
            .last
            .store(self.connections.millis(), Ordering::Release);
        self.state.answering.store(false, Ordering::Release);
        self.connections.freed.notify_one();
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.connections.lock().retain(|e| e.id != self.id);
        self.connections.freed.notify_one();
    }
}

/// The connections a limit of `limit` open files leaves room for when
/// `open` are open now.
fn room_for_connections(limit: usize, open: usize) -> usize {
    limit
        .saturating_sub(open)
        .saturating_sub(FILES_KEPT)
        .clamp(LEAST, MOST)
}

/// This process's limit of open files (its soft limit).
fn open_files_limit() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given, nothing else.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    if !read || limit.rlim_cur == libc::RLIM_INFINITY {
        return MOST + FILES_KEPT;
    }
    usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
}

/// How many files this process has open now.
fn open_files_now() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(16, |entries| entries.count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_of_open_files_bounds_the_connections() {
        assert_eq!(room_for_connections(64, 20), 12);
        assert_eq!(room_for_connections(40, 20), LEAST);
        assert_eq!(room_for_connections(1 << 20, 20), MOST);
    }

    #[tokio::test]
    async fn a_newcomer_closes_the_connection_idle_longest() {
        let connections = Connections::new(2);
        let first = connections.hold();
        tokio::time::sleep(Duration::from_millis(5)).await;
        let second = connections.hold();
        let answering = second.answering();
        connections.room().await;
        assert!(first.close.is_cancelled(), "the idle one makes room");
        assert!(!second.close.is_cancelled());
        let _third = connections.hold();
        // Both held now answer or are new: room waits for one to end.
        let busy = _third.answering();
        let waited = tokio::time::timeout(Duration::from_millis(300), connections.room()).await;
        assert!(waited.is_err(), "no idle connection to close");
        drop(answering);
        drop(busy);
        connections.room().await;
        assert!(second.close.is_cancelled() || _third.close.is_cancelled());
    }
}
