//! Reads on hot standbys (PostgreSQL's streaming replication): which
//! replica a read goes to, whether it is healthy (reachable, a standby,
//! not too far behind), and read-your-writes (a client's reads wait for a
//! replica to replay the primary's log up to the client's last write, a
//! bounded time, else read the primary). Writes never come here.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{Conn, PgDb, shown_url};
use crate::error::{Error, Result};
use crate::types::ReplicaState;

/// How often a replica's health is asked again while reads use it.
const CHECK_EVERY: Duration = Duration::from_millis(500);
/// How long an unreachable replica is left alone before it is tried again.
const RETRY_AFTER: Duration = Duration::from_secs(5);
/// How long the commands after one that could not reach a replica leave
/// it alone (each would otherwise wait for the connection to fail).
const DOWN_NOTED: Duration = Duration::from_secs(10);
/// How long connecting to a replica may take, unless its URL says.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a replica that is behind the primary's log at a check may
/// take to replay it before its lag is estimated: a healthy replica
/// replays within milliseconds.
const GRACE: Duration = Duration::from_millis(50);
/// How often a replica is asked how far it has replayed, while a read
/// waits for it.
const POLL: Duration = Duration::from_millis(2);
/// Samples of the primary's log position kept to date a replica's lag.
const SAMPLES: usize = 256;

/// The position of the end of the primary's log.
const PRIMARY_POSITION: &str = "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint";
/// How far a standby has replayed (None when it is not a standby).
const REPLAYED: &str = "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint";
/// A standby's state: whether it is one, how far it replayed, the age of
/// the last transaction it replayed (an upper bound of its lag), whether
/// its replay is paused.
const STANDBY_STATE: &str = "SELECT pg_is_in_recovery(),
        (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint,
        extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8,
        CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() ELSE false END";

/// Stores opened by this process, so they spread over the replicas.
static OPENED: AtomicUsize = AtomicUsize::new(0);

/// What this process last said about each replica on stderr.
static SAID: Mutex<Option<HashMap<String, bool>>> = Mutex::new(None);

/// Says on stderr, once per change, that reads skip a replica or use it
/// again.
fn tell(server: &str, skipped: Option<&str>) {
    let mut said = SAID.lock().unwrap_or_else(PoisonError::into_inner);
    let said = said.get_or_insert_with(HashMap::new);
    let was_skipped = said.get(server).copied().unwrap_or(false);
    match skipped {
        Some(why) if !was_skipped => {
            crate::notices::say(&format!("reads skip replica {server}: {why}"));
            said.insert(server.to_string(), true);
        }
        None if was_skipped => {
            crate::notices::say(&format!("replica {server} takes reads again"));
            said.insert(server.to_string(), false);
        }
        _ => {}
    }
}

/// The replicas of one store handle, and its client's last write.
pub(super) struct ReadRouting {
    replicas: Vec<Replica>,
    max_lag: Duration,
    wait: Duration,
    /// The replica this handle reads first.
    first: usize,
    /// Where the primary's log stood after this client's last write.
    must_see: Cell<Option<u64>>,
    /// The primary's log position at the last checks, to date a lag.
    samples: RefCell<VecDeque<(Instant, u64)>>,
}

/// One hot standby.
pub(super) struct Replica {
    url: String,
    password: Option<String>,
    shown: String,
    /// Where a command that could not reach it says so, and until when.
    down_file: PathBuf,
    conn: OnceCell<Conn>,
    state: RefCell<Health>,
    checked: Cell<Option<Instant>>,
    /// How far it had replayed when last asked.
    replayed: Cell<u64>,
    /// A client's write it did not replay in time: reads after it go to
    /// the primary until a check finds it replayed.
    gave_up_on: Cell<Option<u64>>,
}

#[derive(Clone, Debug)]
enum Health {
    Unknown,
    Serving {
        lag: Duration,
    },
    Skipped {
        why: String,
        lag: Option<Duration>,
        retry_at: Option<Instant>,
    },
}

impl ReadRouting {
    /// The routing for `settings`; None when no replica is configured.
    /// `dir` is the store's local folder, where commands note a replica
    /// they could not reach for the ones after them.
    pub(super) fn new(settings: &keep_model::Replicas, dir: &Path) -> Result<Option<Self>> {
        if settings.servers.is_empty() {
            return Ok(None);
        }
        let replicas = settings
            .servers
            .iter()
            .map(|(url, password)| {
                super::driver_config(url).map_err(|e| {
                    Error::Server(format!(
                        "replica {}: not a valid PostgreSQL URL ({})",
                        shown_url(url),
                        super::without_secrets(&e, url)
                    ))
                })?;
                let shown = shown_url(url);
                Ok(Replica {
                    url: url.clone(),
                    password: password.clone(),
                    down_file: dir.join(format!("replica-{}.down", digest(&shown))),
                    shown,
                    conn: OnceCell::new(),
                    state: RefCell::new(Health::Unknown),
                    checked: Cell::new(None),
                    replayed: Cell::new(0),
                    gave_up_on: Cell::new(None),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let first = OPENED.fetch_add(1, Ordering::Relaxed) % replicas.len();
        Ok(Some(ReadRouting {
            replicas,
            max_lag: settings.max_lag,
            wait: settings.wait,
            first,
            must_see: Cell::new(None),
            samples: RefCell::new(VecDeque::new()),
        }))
    }

    /// The replica a read goes to now, or None for the primary.
    pub(super) fn choose(&self, primary: &PgDb<'_>) -> Option<&Replica> {
        let count = self.replicas.len();
        let order = (0..count).map(|i| &self.replicas[(self.first + i) % count]);
        let serving: Vec<&Replica> = order.filter(|r| self.serving(r, primary)).collect();
        let Some(mark) = self.must_see.get() else {
            return serving.first().copied();
        };
        if let Some(ready) = serving.iter().find(|r| r.replayed.get() >= mark) {
            return Some(ready);
        }
        let waiting = serving
            .into_iter()
            .find(|r| r.gave_up_on.get().is_none_or(|given| given < mark))?;
        waiting.wait_for(mark, self.wait).then_some(waiting)
    }

    /// Whether `replica` takes reads: reachable, a standby, and not
    /// further behind than allowed; asked again once `CHECK_EVERY` passed.
    fn serving(&self, replica: &Replica, primary: &PgDb<'_>) -> bool {
        let due = replica
            .checked
            .get()
            .is_none_or(|at| at.elapsed() >= CHECK_EVERY);
        if due {
            let retry_later = matches!(
                &*replica.state.borrow(),
                Health::Skipped { retry_at: Some(at), .. } if Instant::now() < *at
            );
            if !retry_later {
                self.check(replica, primary);
            }
        }
        matches!(&*replica.state.borrow(), Health::Serving { .. })
    }

    /// Asks `replica` and the primary where they stand and records what
    /// the replica's state is.
    fn check(&self, replica: &Replica, primary: &PgDb<'_>) {
        let first = replica.checked.replace(Some(Instant::now())).is_none();
        let noted = if first { replica.noted_down() } else { None };
        let said_before = noted.is_some();
        let health = match noted {
            Some(health) => health,
            None => match self.ask(replica, primary) {
                Ok(health) => {
                    replica.forget_down();
                    health
                }
                Err(e) => {
                    let why = reason(&e);
                    replica.note_down(&why);
                    Health::Skipped {
                        why: format!("it cannot be reached ({why})"),
                        lag: None,
                        retry_at: Some(Instant::now() + RETRY_AFTER),
                    }
                }
            },
        };
        // A replica an earlier command could not reach was named by it.
        if !said_before {
            let skipped = match &health {
                Health::Skipped { why, .. } => Some(why.as_str()),
                _ => None,
            };
            tell(&replica.shown, skipped);
        }
        replica.state.replace(health);
    }

    fn ask(&self, replica: &Replica, primary: &PgDb<'_>) -> Result<Health> {
        let standby = replica.connection()?.db("");
        let row = standby.one(STANDBY_STATE, &[])?;
        let (in_recovery, replayed, since_last, paused): (bool, Option<i64>, Option<f64>, bool) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        if !in_recovery {
            return Ok(Health::Skipped {
                why: "it is not a standby (it takes writes of its own)".into(),
                lag: None,
                retry_at: None,
            });
        }
        let mut replayed = replayed.unwrap_or(0) as u64;
        let head = primary.one(PRIMARY_POSITION, &[])?.get::<_, i64>(0) as u64;
        let now = Instant::now();
        self.sample(now, head);
        if replayed < head {
            replayed = replica.replayed_by(head, now + GRACE)?;
        }
        replica.replayed.set(replayed);
        if replica
            .gave_up_on
            .get()
            .is_some_and(|given| replayed >= given)
        {
            replica.gave_up_on.set(None);
        }
        let lag = if replayed >= head {
            Duration::ZERO
        } else {
            self.lag_of(replayed, since_last, now)
        };
        if lag > self.max_lag {
            let paused = if paused { ", its replay is paused" } else { "" };
            return Ok(Health::Skipped {
                why: format!(
                    "{:.1} s behind the primary (max_replica_lag {}){paused}",
                    lag.as_secs_f64(),
                    seconds(self.max_lag)
                ),
                lag: Some(lag),
                retry_at: None,
            });
        }
        Ok(Health::Serving { lag })
    }

    /// Remembers where the primary's log stood at `at`.
    fn sample(&self, at: Instant, head: u64) {
        let mut samples = self.samples.borrow_mut();
        if samples.len() == SAMPLES {
            samples.pop_front();
        }
        samples.push_back((at, head));
    }

    /// How far behind, at most, is a replica that replayed the log up to
    /// `replayed`: no more than the time since the last transaction it
    /// replayed (`since_last`, seconds), nor than the time since the
    /// primary's log last stood where the replica stands.
    fn lag_of(&self, replayed: u64, since_last: Option<f64>, now: Instant) -> Duration {
        let by_transaction = since_last
            .filter(|s| s.is_finite())
            .map(|s| Duration::from_secs_f64(s.max(0.0)));
        let by_samples = self
            .samples
            .borrow()
            .iter()
            .rev()
            .find(|(_, head)| *head <= replayed)
            .map(|(at, _)| now.duration_since(*at));
        match (by_transaction, by_samples) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => Duration::MAX,
        }
    }

    /// Notes where the primary's log stands after a write committed on
    /// `primary`: this client's reads must see it. When that cannot be
    /// asked, its reads go to the primary from now on.
    pub(super) fn wrote(&self, primary: &PgDb<'_>) {
        let head = primary
            .one(PRIMARY_POSITION, &[])
            .map_or(u64::MAX, |row| row.get::<_, i64>(0) as u64);
        self.read_after(Some(head));
    }

    pub(super) fn write_mark(&self) -> Option<u64> {
        self.must_see.get()
    }

    pub(super) fn restore_write_mark(&self, mark: Option<u64>) {
        self.must_see.set(mark);
    }

    /// Reads see at least the writes up to `mark` from now on.
    pub(super) fn read_after(&self, mark: Option<u64>) {
        let now = self.must_see.get();
        self.must_see.set(match (now, mark) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        });
    }

    /// Each replica's state, asked now.
    pub(super) fn states(&self, primary: &PgDb<'_>) -> Vec<ReplicaState> {
        self.replicas
            .iter()
            .map(|replica| {
                self.check(replica, primary);
                let (reads, lag, skipped) = match &*replica.state.borrow() {
                    Health::Serving { lag } => (true, Some(*lag), None),
                    Health::Skipped { why, lag, .. } => (false, *lag, Some(why.clone())),
                    Health::Unknown => (false, None, None),
                };
                ReplicaState {
                    server: replica.shown.clone(),
                    reads,
                    lag_seconds: lag.map(|l| l.as_secs_f64()),
                    skipped,
                }
            })
            .collect()
    }
}

impl Replica {
    /// The connection to this replica, made the first time.
    fn connection(&self) -> Result<&Conn> {
        if let Some(conn) = self.conn.get() {
            return Ok(conn);
        }
        let (conn, _) = Conn::open(&self.url, self.password.as_deref(), CONNECT_TIMEOUT)?;
        Ok(self.conn.get_or_init(|| conn))
    }

    /// The state an earlier command noted, when it could not reach this
    /// replica a moment ago: skipped until then.
    fn noted_down(&self) -> Option<Health> {
        let text = std::fs::read_to_string(&self.down_file).ok()?;
        let (until, why) = text.split_once('\n')?;
        let left =
            Duration::from_millis(until.trim().parse::<u64>().ok()?).checked_sub(since_epoch())?;
        Some(Health::Skipped {
            why: format!("it could not be reached a moment ago ({})", why.trim()),
            lag: None,
            retry_at: Some(Instant::now() + left),
        })
    }

    /// Notes for the commands after this one that this replica cannot be
    /// reached; a note that cannot be written only costs them the wait.
    fn note_down(&self, why: &str) {
        let until = (since_epoch() + DOWN_NOTED).as_millis();
        let _ = std::fs::write(&self.down_file, format!("{until}\n{why}\n"));
    }

    fn forget_down(&self) {
        // Nothing noted is the usual case.
        let _ = std::fs::remove_file(&self.down_file);
    }

    /// A handle for reads on this replica, with `primary` to read on if
    /// the replica is lost meanwhile.
    pub(super) fn db<'c>(&'c self, agent: &'c str, primary: PgDb<'c>) -> PgDb<'c> {
        match self.conn.get() {
            Some(conn) => PgDb {
                primary: Some((Box::new(primary), self)),
                ..conn.db(agent)
            },
            None => primary,
        }
    }

    /// Marks this replica lost in the middle of a read.
    pub(super) fn lost(&self, why: &str) {
        self.note_down(why);
        let why = format!("it was lost ({why})");
        tell(&self.shown, Some(&why));
        self.checked.set(Some(Instant::now()));
        self.state.replace(Health::Skipped {
            why,
            lag: None,
            retry_at: Some(Instant::now() + RETRY_AFTER),
        });
    }

    /// Waits up to `wait` for this replica to replay the log to `mark`;
    /// whether it did. When it did not, later reads after `mark` go to
    /// the primary without waiting until a check finds it replayed.
    fn wait_for(&self, mark: u64, wait: Duration) -> bool {
        match self.replayed_by(mark, Instant::now() + wait) {
            Ok(replayed) if replayed >= mark => {
                self.replayed.set(replayed);
                true
            }
            Ok(replayed) => {
                self.replayed.set(replayed);
                self.gave_up_on.set(Some(mark));
                false
            }
            Err(e) => {
                self.lost(&reason(&e));
                false
            }
        }
    }

    /// How far this replica has replayed once it reaches `mark` or
    /// `until` passes, whichever comes first.
    fn replayed_by(&self, mark: u64, until: Instant) -> Result<u64> {
        let standby = self.connection()?.db("");
        loop {
            let replayed = standby
                .one(REPLAYED, &[])?
                .get::<_, Option<i64>>(0)
                .unwrap_or(0) as u64;
            if replayed >= mark || Instant::now() >= until {
                return Ok(replayed);
            }
            std::thread::sleep(POLL);
        }
    }
}

/// The time since the Unix epoch, for notes other processes read.
fn since_epoch() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

/// A short name for `text` in a file name (FNV-1a, 64 bits).
fn digest(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// The reason in a store error, without the server it names.
fn reason(e: &Error) -> String {
    match e {
        Error::ConnectionLost { reason, .. } | Error::Connect { reason, .. } => reason.clone(),
        other => other.to_string(),
    }
}

/// `d` as a number of seconds for a message ("5 s", "0.5 s").
fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routing() -> ReadRouting {
        let settings = keep_model::Replicas {
            servers: vec![("postgres://keep@/keep?host=/nowhere".into(), None)],
            ..Default::default()
        };
        ReadRouting::new(&settings, Path::new("/nowhere"))
            .unwrap()
            .expect("one replica")
    }

    #[test]
    fn a_lag_is_the_shorter_of_the_last_transaction_replayed_and_the_log_samples() {
        let routing = routing();
        let now = Instant::now();
        routing.sample(now - Duration::from_secs(8), 100);
        routing.sample(now - Duration::from_secs(3), 200);
        routing.sample(now - Duration::from_secs(1), 300);
        // Replayed past the sample of 3 s ago: at most 3 s behind, though
        // its last transaction is 10 s old (a quiet primary since).
        let lag = routing.lag_of(250, Some(10.0), now);
        assert_eq!(lag, Duration::from_secs(3));
        // Its last transaction 2 s old bounds it tighter than the samples.
        assert_eq!(routing.lag_of(150, Some(2.0), now), Duration::from_secs(2));
        // Behind every sample and never replayed a transaction: unknown, so
        // as far behind as can be.
        assert_eq!(routing.lag_of(50, None, now), Duration::MAX);
    }

    #[test]
    fn a_write_mark_only_moves_forward_unless_set_back_on_purpose() {
        let routing = routing();
        assert_eq!(routing.write_mark(), None);
        routing.read_after(Some(500));
        routing.read_after(Some(400));
        assert_eq!(routing.write_mark(), Some(500));
        routing.restore_write_mark(Some(100));
        assert_eq!(routing.write_mark(), Some(100));
        routing.restore_write_mark(None);
        assert_eq!(routing.write_mark(), None);
    }
}
