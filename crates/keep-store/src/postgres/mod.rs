//! The PostgreSQL store: the same notes, tags, versions, parts, edges and
//! vectors as the SQLite file, on a server many processes and machines
//! share. Keyword search runs over `tsvector` columns with GIN indexes,
//! vectors over pgvector with HNSW indexes (cosine).
//!
//! Every write is one transaction at READ COMMITTED that first takes one
//! transaction-level advisory lock: writers from every process and machine
//! take turns (as SQLite's single writer does), each seeing every write
//! committed before its turn, so a read-then-write (the next version
//! number, a duplicate check, a lease) is never raced. Reads never wait.

mod beside;
mod check;
mod plain;
mod replicas;
mod rows;
mod search;
mod stats;
pub mod tls;
mod vectors;

use crate::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use postgres::types::ToSql;
use postgres::{Client, Row, Statement};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::{Error, Result, WriteError};
use crate::types::Link;
use crate::vectors::VecKind;
use vectors::index_name;

/// Embedded migrations, applied in order; never edit one that has landed.
const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("migrations/0001_init.sql")),
    (2, include_str!("migrations/0002_words.sql")),
    (3, include_str!("migrations/0003_listing_order.sql")),
    (4, include_str!("migrations/0004_next_vectors.sql")),
    (5, include_str!("migrations/0005_operations.sql")),
    (6, include_str!("migrations/0006_bm25.sql")),
    (7, include_str!("migrations/0007_tokens.sql")),
    (8, include_str!("migrations/0008_event_time.sql")),
    (9, include_str!("migrations/0009_totals_per_statement.sql")),
    (10, include_str!("migrations/0010_half_precision_index.sql")),
    (11, include_str!("migrations/0011_origin.sql")),
];

/// Migrations that take long on a large store, with what they say before
/// they start when the store holds at least `SLOW_FROM` vectors of notes.
const SLOW_MIGRATIONS: &[(i64, &str)] = &[(
    10,
    "making the vector indexes again over half-precision copies, once: about a minute for each 150,000 vectors",
)];
const SLOW_FROM: f64 = 50_000.0;

/// The advisory lock every writer holds for its transaction ("keep").
const WRITE_LOCK: i64 = 0x6b65_6570;

/// The channel every committed write announces itself on.
const CHANGES_CHANNEL: &str = "keep_changes";

/// What every write does once it holds the lock: bumps the change counter
/// (the browser's change check) and tells listeners of the commit.
fn announce_sql() -> String {
    format!("SELECT nextval('keep_changes'); NOTIFY {CHANGES_CHANNEL};")
}

/// How every write ends: the word totals its rows changed are folded into
/// one row per column (migration 6), then it commits.
const FOLD_AND_COMMIT: &str = "SELECT keep_fold_text_totals(); COMMIT";

/// How long to wait for a server that does not answer.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection unused this long is asked whether it still stands before
/// it is used again (the server may have restarted meanwhile).
const PING_AFTER: Duration = Duration::from_secs(2);
/// After a failed attempt to connect again, statements fail at once for
/// this long, doubling with each failure up to `MOST_BACKOFF`.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MOST_BACKOFF: Duration = Duration::from_secs(2);

/// Statements prepared on this connection, by their text.
type Prepared = RefCell<HashMap<String, Statement>>;

/// Parameters of a statement.
pub(super) type Params<'a> = [&'a (dyn ToSql + Sync)];

pub struct PgStore {
    /// The connection to the primary: every write, and reads no replica takes.
    primary: Conn,
    /// The local folder of this store (sockets, caches).
    dir: PathBuf,
    /// What protects the link to the server.
    link: Link,
    /// Who writes through this store, for the operations log.
    agent: String,
    /// Hot standbys that take reads, when configured.
    replicas: Option<replicas::ReadRouting>,
    /// A second connection to the primary for reads run beside the
    /// first's, opened on first use (`beside`).
    side: Cell<Option<Box<Conn>>>,
}

/// One connection to a server and what lives as long as it: the
/// statements prepared on it, the word statistics read through it, and,
/// while the server cannot be reached, why.
pub(super) struct Conn {
    /// Dropped off any async runtime (see `Drop`).
    client: ManuallyDrop<RefCell<Client>>,
    prepared: Prepared,
    words: stats::WordStats,
    /// The server and database, without a password, for messages.
    shown: String,
    /// How to connect again when the connection is lost.
    config: postgres::Config,
    connector: MakeRustlsConnect,
    last_used: Cell<Instant>,
    /// While the server cannot be reached: why, and when to try again.
    down: RefCell<Option<Down>>,
}

pub use tls::complete_url as complete_database_url;

/// The driver's settings and the link's for `url`.
fn driver_config(url: &str) -> std::result::Result<(postgres::Config, tls::Tls), String> {
    let (rest, tls) = tls::split(url)?;
    let mut config = rest
        .parse::<postgres::Config>()
        .map_err(|e| e.to_string())?;
    config.ssl_mode(tls.driver_mode());
    Ok((config, tls))
}

/// A server that could not be reached.
struct Down {
    why: String,
    retry_at: Instant,
    backoff: Duration,
}

/// A handle for statements, inside a write's transaction or not.
pub struct PgDb<'c> {
    conn: &'c Conn,
    /// Why the server could not be reached, while it cannot.
    down: Option<String>,
    /// Who writes, for the operations log.
    agent: &'c str,
    /// On a replica's handle: the primary's, which answers a read when
    /// the replica is lost in the middle of it.
    primary: Option<(Box<PgDb<'c>>, &'c replicas::Replica)>,
}

/// The server and database a URL names, without its password: user,
/// host (an IPv6 address in brackets), the port when one is given, and
/// the database.
pub fn shown_url(url: &str) -> String {
    match tls::without_link_parameters(url).parse::<postgres::Config>() {
        Ok(config) => {
            let user = config.get_user().unwrap_or("");
            let host = config
                .get_hosts()
                .first()
                .map(|h| match h {
                    postgres::config::Host::Tcp(name) if name.contains(':') => format!("[{name}]"),
                    postgres::config::Host::Tcp(name) => name.clone(),
                    postgres::config::Host::Unix(path) => path.display().to_string(),
                })
                .unwrap_or_default();
            let port = config
                .get_ports()
                .first()
                .map_or(String::new(), |p| format!(":{p}"));
            let db = config.get_dbname().unwrap_or(user);
            let at = if user.is_empty() { "" } else { "@" };
            format!("postgres://{user}{at}{host}{port}/{db}")
        }
        Err(_) => "the database URL".into(),
    }
}

impl PgStore {
    /// Connects to the database `url` names and brings its schema up to
    /// date; `dir` is this store's local folder; `password` is used when
    /// the URL has none; `replicas` are hot standbys that take its reads.
    pub fn open(
        url: &str,
        dir: &Path,
        password: Option<&str>,
        replicas: &keep_model::Replicas,
    ) -> Result<Self> {
        crate::private::folder(dir)?;
        let (primary, link) = Conn::open(url, password, CONNECT_TIMEOUT)?;
        let mut store = PgStore {
            agent: super::operations::DEFAULT_AGENT.into(),
            primary,
            dir: dir.to_path_buf(),
            link,
            replicas: None,
            side: Cell::new(None),
        };
        store.link.encryption = store.encryption()?;
        store.require_pgvector()?;
        store.migrate()?;
        store.replicas = replicas::ReadRouting::new(replicas, dir)?;
        Ok(store)
    }

    /// A handle for reads: on a healthy replica that has replayed this
    /// client's writes, else on the primary.
    pub fn reader(&self) -> PgDb<'_> {
        let primary = self.db();
        let Some(routing) = &self.replicas else {
            return primary;
        };
        match routing.choose(&primary) {
            Some(replica) => replica.db(&self.agent, primary),
            None => primary,
        }
    }

    /// Where the primary's log stood after this client's last write, for
    /// a client whose reads must see it (None before any).
    pub fn write_mark(&self) -> Option<u64> {
        self.replicas.as_ref().and_then(|r| r.write_mark())
    }

    /// Whether reads go to replicas when they can.
    pub fn has_replicas(&self) -> bool {
        self.replicas.is_some()
    }

    /// Sets the write mark back to `mark`.
    pub fn restore_write_mark(&self, mark: Option<u64>) {
        if let Some(replicas) = &self.replicas {
            replicas.restore_write_mark(mark);
        }
    }

    /// Each replica's state, asked now.
    pub fn replica_states(&self) -> Vec<crate::types::ReplicaState> {
        match &self.replicas {
            Some(routing) => routing.states(&self.db()),
            None => Vec::new(),
        }
    }

    /// What protects the link to the server.
    pub fn link(&self) -> &Link {
        &self.link
    }

    /// The TLS version of this connection, or None when it is plain.
    fn encryption(&self) -> Result<Option<String>> {
        let row = self.db().with_client(|c| {
            c.query_opt(
                "SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                &[],
            )
        })?;
        Ok(row.and_then(|r| {
            let on: bool = r.get(0);
            on.then(|| {
                r.get::<_, Option<String>>(1)
                    .unwrap_or_else(|| "TLS".into())
            })
        }))
    }

    /// The local folder of this store.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Names who writes from now on, in the operations log.
    pub fn set_agent(&mut self, agent: &str) {
        self.agent = agent.to_string();
    }

    /// A handle on the primary: writes, and reads that must see every
    /// write committed.
    pub fn db(&self) -> PgDb<'_> {
        self.primary.db(&self.agent)
    }

    /// Runs `f` over one snapshot of the database (a repeatable-read,
    /// read-only transaction): every read sees the store as it was at the
    /// first, while other connections write on.
    pub fn snapshot<T, E: WriteError>(
        &mut self,
        f: impl FnOnce(&PgDb<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let db = self.db();
        if let Err(e) = db.batch("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
            // The connection is lost or the transaction never began: the error that matters is returned.
            let _ = db.batch("ROLLBACK");
            return Err(self.lost(e).into());
        }
        let value = f(&db);
        // Nothing was written: the end of the snapshot cannot lose anything.
        let _ = db.batch("ROLLBACK");
        value.map_err(|e| e.map_store(|e| self.lost(e)))
    }

    /// Runs `f` in one transaction holding the write lock; commits only if
    /// it succeeds.
    pub fn write<T>(&mut self, f: impl FnOnce(&PgDb<'_>) -> Result<T>) -> Result<T> {
        self.write_with(f)
    }

    /// `write` for a closure whose errors are the caller's own.
    pub fn write_with<T, E: WriteError>(
        &mut self,
        f: impl FnOnce(&PgDb<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let db = self.db();
        let begin = format!(
            "BEGIN ISOLATION LEVEL READ COMMITTED;
             SELECT pg_advisory_xact_lock({WRITE_LOCK});
             {}",
            announce_sql()
        );
        if let Err(e) = db.with_client(|c| c.batch_execute(&begin)) {
            // The connection is lost or the transaction never began: the error that matters is returned.
            let _ = db.batch("ROLLBACK");
            return Err(self.lost(e).into());
        }
        self.finish(&db, f)
    }

    /// Like `write`, when no other connection holds the write lock at this
    /// moment; `None` (nothing done) when one does.
    pub fn write_if_free<T>(
        &mut self,
        f: impl FnOnce(&PgDb<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        self.write_if_free_with(f)
    }

    /// `write_if_free` for a closure whose errors are the caller's own.
    pub fn write_if_free_with<T, E: WriteError>(
        &mut self,
        f: impl FnOnce(&PgDb<'_>) -> Result<T, E>,
    ) -> Result<Option<T>, E> {
        let db = self.db();
        let free = db.with_client(|c| {
            c.batch_execute("BEGIN ISOLATION LEVEL READ COMMITTED")?;
            let row = c.query_one("SELECT pg_try_advisory_xact_lock($1)", &[&WRITE_LOCK])?;
            Ok(row.get::<_, bool>(0))
        });
        match free {
            Ok(true) => {}
            Ok(false) => {
                db.batch("ROLLBACK")?;
                return Ok(None);
            }
            Err(e) => {
                // The connection is lost or the transaction never began: the error that matters is returned.
                let _ = db.batch("ROLLBACK");
                return Err(self.lost(e).into());
            }
        }
        if let Err(e) = db.batch(&announce_sql()) {
            // The connection is lost or the transaction never began: the error that matters is returned.
            let _ = db.batch("ROLLBACK");
            return Err(self.lost(e).into());
        }
        self.finish(&db, f).map(Some)
    }

    /// Runs `f` inside the transaction begun, and commits if it succeeds.
    fn finish<T, E: WriteError>(
        &self,
        db: &PgDb<'_>,
        f: impl FnOnce(&PgDb<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let value = match f(db) {
            Ok(value) => value,
            Err(e) => {
                // A lost connection has rolled back already: a failing
                // ROLLBACK says nothing more than `e`.
                db.batch("ROLLBACK").ok();
                return Err(e.map_store(|e| self.lost(e)));
            }
        };
        db.batch(FOLD_AND_COMMIT).map_err(|e| self.lost(e))?;
        if let Some(replicas) = &self.replicas {
            replicas.wrote(db);
        }
        Ok(value)
    }

    /// The error for a failed statement, naming the server when the
    /// connection itself is gone.
    fn lost(&self, e: Error) -> Error {
        match e {
            Error::ReadOnly { path } if path.as_os_str().is_empty() => Error::ReadOnly {
                path: PathBuf::from(format!("{} (this role may not write)", self.primary.shown)),
            },
            Error::ConnectionLost { server, reason, .. } => Error::ConnectionLost {
                server,
                reason,
                during_write: true,
            },
            other => other,
        }
    }

    fn require_pgvector(&self) -> Result<()> {
        let db = self.db();
        let installed = db
            .row("SELECT 1 FROM pg_extension WHERE extname = 'vector'", &[])?
            .is_some();
        if installed {
            return Ok(());
        }
        let available = db
            .row(
                "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'",
                &[],
            )?
            .is_some();
        if !available {
            return Err(Error::Server(format!(
                "the database server {} has no pgvector: install the extension \
                 (for example the postgresql-NN-pgvector package) and try again",
                self.primary.shown
            )));
        }
        let created = db.batch("CREATE EXTENSION IF NOT EXISTS vector");
        // Another process opening the same new database may have added it
        // at the same moment.
        if created.is_err()
            && db
                .row("SELECT 1 FROM pg_extension WHERE extname = 'vector'", &[])?
                .is_some()
        {
            return Ok(());
        }
        created.map_err(|e| {
            Error::Server(format!(
                "{}: pgvector is installed on the server but not in this database, \
                     and keep may not add it ({e}): ask its owner to run CREATE EXTENSION vector",
                self.primary.shown
            ))
        })
    }

    /// Applies the migrations this database lacks, under the write lock.
    /// A database already up to date is only read, so opening a store never
    /// waits for another connection's write (an import of minutes).
    fn migrate(&self) -> Result<()> {
        let known = MIGRATIONS.last().map_or(0, |m| m.0);
        let applied = self.db().with_client(|client| {
            let row = client.query_one("SELECT to_regclass('keep_schema') IS NOT NULL", &[])?;
            if !row.get::<_, bool>(0) {
                return Ok(0);
            }
            let row = client.query_one("SELECT coalesce(max(version), 0) FROM keep_schema", &[])?;
            Ok(row.get::<_, i64>(0))
        })?;
        let found = if applied >= known {
            applied
        } else {
            self.apply_migrations(known)?
        };
        if found > known {
            return Err(Error::SchemaTooNew {
                path: PathBuf::from(&self.primary.shown),
                found,
                known,
            });
        }
        Ok(())
    }

    /// Takes the write lock and applies what the database still lacks
    /// then (another keep may have applied it meanwhile); returns the
    /// version found under the lock.
    fn apply_migrations(&self, known: i64) -> Result<i64> {
        self.db().with_client(|client| {
            let mut tx = client.transaction()?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK])?;
            tx.batch_execute(
                "CREATE TABLE IF NOT EXISTS keep_schema
                     (version bigint PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())",
            )?;
            let current: i64 = tx
                .query_one("SELECT coalesce(max(version), 0) FROM keep_schema", &[])?
                .get(0);
            if current > known {
                return Ok(current);
            }
            let vectors: f64 = tx
                .query_one(
                    "SELECT coalesce((SELECT reltuples FROM pg_class WHERE relname = 'vec_notes'), 0)::float8",
                    &[],
                )?
                .get(0);
            for (version, sql) in MIGRATIONS.iter().filter(|m| m.0 > current) {
                let slow = SLOW_MIGRATIONS.iter().find(|m| m.0 == *version);
                if let Some((_, what)) = slow.filter(|_| vectors >= SLOW_FROM) {
                    crate::notices::say(what);
                }
                tx.batch_execute(sql)?;
                tx.execute("INSERT INTO keep_schema (version) VALUES ($1)", &[version])?;
            }
            tx.commit()?;
            Ok(current)
        })
    }
}

impl Conn {
    /// Connects to the server `url` names; `password` is used when the
    /// URL has none. Also says what protects the link.
    fn open(url: &str, password: Option<&str>, connect_timeout: Duration) -> Result<(Conn, Link)> {
        let shown = shown_url(url);
        let (mut config, tls) = driver_config(url).map_err(|e| {
            Error::Server(format!(
                "{shown}: not a valid PostgreSQL URL ({})",
                without_secrets(&e, url)
            ))
        })?;
        let connector = tls
            .connector()
            .map_err(|e| Error::Server(format!("{shown}: {e}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(connect_timeout);
        }
        config.application_name("keep");
        if let Some(password) = password
            && config.get_password().is_none()
        {
            config.password(password);
        }
        let host = config.get_hosts().first().cloned();
        let client = off_runtime(|| config.connect(connector.clone())).map_err(|e| {
            let reason = cause(&e);
            let host_name = match &host {
                Some(postgres::config::Host::Tcp(name)) => name.clone(),
                _ => String::new(),
            };
            Error::Connect {
                server: shown.clone(),
                reason: tls::failure(&reason, &tls, &host_name).unwrap_or(reason),
            }
        })?;
        let link = Link {
            mode: tls.mode.name(),
            encryption: None,
            local: host.as_ref().is_none_or(tls::is_local),
        };
        Ok((Conn::new(client, shown, config, connector), link))
    }

    /// A connection over `client`, which `config` and `connector` make
    /// again when it is lost.
    fn new(
        client: Client,
        shown: String,
        config: postgres::Config,
        connector: MakeRustlsConnect,
    ) -> Conn {
        Conn {
            client: ManuallyDrop::new(RefCell::new(client)),
            prepared: Prepared::default(),
            words: stats::WordStats::default(),
            shown,
            config,
            connector,
            last_used: Cell::new(Instant::now()),
            down: RefCell::new(None),
        }
    }

    /// A handle for statements on this connection, connected again first
    /// if it was lost.
    fn db<'c>(&'c self, agent: &'c str) -> PgDb<'c> {
        self.ensure_connected();
        PgDb {
            conn: self,
            down: self.down.borrow().as_ref().map(|d| d.why.clone()),
            agent,
            primary: None,
        }
    }

    /// Connects again when the connection is gone: closed after an error,
    /// or, after a while unused, not answering. A server that restarted is
    /// found again by the next command, not never. If it cannot be reached,
    /// the statement that follows says so.
    fn ensure_connected(&self) {
        let idle = self.last_used.replace(Instant::now()).elapsed() > PING_AFTER;
        let closed = self.client.borrow().is_closed()
            || (idle && {
                let mut client = self.client.borrow_mut();
                let client: &mut Client = &mut client;
                off_runtime(move || client.simple_query("SELECT 1")).is_err()
            });
        if !closed {
            self.down.replace(None);
            return;
        }
        if self
            .down
            .borrow()
            .as_ref()
            .is_some_and(|d| Instant::now() < d.retry_at)
        {
            return;
        }
        let config = self.config.clone();
        let connector = self.connector.clone();
        match off_runtime(move || config.connect(connector)) {
            Ok(fresh) => {
                let old = self.client.replace(fresh);
                off_runtime(move || drop(old));
                self.prepared.borrow_mut().clear();
                self.words.ef_search.set(0);
                self.down.replace(None);
            }
            Err(e) => {
                let backoff = self
                    .down
                    .borrow()
                    .as_ref()
                    .map_or(FIRST_BACKOFF, |d| (d.backoff * 2).min(MOST_BACKOFF));
                self.down.replace(Some(Down {
                    why: cause(&e),
                    retry_at: Instant::now() + backoff,
                    backoff,
                }));
            }
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // SAFETY: `client` is taken once, here, and never used again.
        let client = unsafe { ManuallyDrop::take(&mut self.client) };
        off_runtime(move || drop(client));
    }
}

/// Calls `on_change` from a thread of its own after every write committed
/// to the store in database `url`, by any process on any machine, until it
/// returns false or the connection is lost.
pub fn listen_for_changes(
    url: &str,
    mut on_change: impl FnMut() -> bool + Send + 'static,
) -> Result<std::thread::JoinHandle<()>> {
    let (ready, started) = std::sync::mpsc::channel();
    let url = url.to_string();
    let (config, tls) = driver_config(&url).map_err(Error::Server)?;
    let connector = tls.connector().map_err(Error::Server)?;
    let listener = std::thread::spawn(move || {
        let connected = config.connect(connector).and_then(|mut client| {
            client.batch_execute(&format!("LISTEN {CHANGES_CHANNEL}"))?;
            Ok(client)
        });
        let mut client = match connected {
            Ok(client) => {
                // The opener gave up waiting; the connection still serves whoever asks next.
                let _ = ready.send(Ok(()));
                client
            }
            Err(e) => {
                // The opener gave up waiting; nobody is left to tell.
                let _ = ready.send(Err(Error::from(e)));
                return;
            }
        };
        use postgres::fallible_iterator::FallibleIterator;
        let mut notifications = client.notifications();
        let mut arrivals = notifications.blocking_iter();
        while let Ok(Some(_)) = arrivals.next() {
            if !on_change() {
                break;
            }
        }
    });
    started
        .recv()
        .unwrap_or_else(|_| Err(Error::Server("the change listener stopped".into())))?;
    Ok(listener)
}

std::thread_local! {
    /// Set while `on_blocking_thread` runs: the thread may block.
    static MAY_BLOCK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` marked as running on a thread that may block (a blocking-pool
/// thread of an async runtime), so statements it makes go straight to the
/// server instead of through `off_runtime`'s extra thread.
pub fn on_blocking_thread<T>(f: impl FnOnce() -> T) -> T {
    let before = MAY_BLOCK.with(|m| m.replace(true));
    let value = f();
    MAY_BLOCK.with(|m| m.set(before));
    value
}

/// Runs `f` where the driver may block: the driver runs a small async
/// runtime of its own, which may not start on a thread already driving
/// one (the servers' async threads), so there `f` runs on a short-lived
/// thread. Threads with no runtime, and those `on_blocking_thread` marks,
/// run it directly.
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if MAY_BLOCK.with(std::cell::Cell::get) || tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    std::thread::scope(|scope| match scope.spawn(f).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// The message of a driver error with what caused it.
fn cause(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.message().to_string();
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = s.source();
    }
    text
}

/// The password a `.pgpass` file (`text`) gives for the server, port,
/// database and user `url` names: the first line whose fields match, `*`
/// matching anything; `localhost` also matches a Unix socket, as libpq
/// has it. None when no line matches or `url` is not a PostgreSQL URL.
pub fn pgpass_password(url: &str, text: &str) -> Option<String> {
    let config = tls::without_link_parameters(url)
        .parse::<postgres::Config>()
        .ok()?;
    let (host, socket) = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(name)) => (name.clone(), false),
        Some(postgres::config::Host::Unix(path)) => (path.display().to_string(), true),
        None => ("localhost".to_string(), true),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user()?.to_string();
    let database = config.get_dbname().unwrap_or(&user).to_string();
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .filter_map(pgpass_fields)
        .find(|f| {
            let host_matches = f[0] == "*" || f[0] == host || (socket && f[0] == "localhost");
            host_matches
                && [&port, &database, &user]
                    .iter()
                    .zip(&f[1..4])
                    .all(|(want, field)| field == "*" || field == *want)
        })
        .map(|f| f[4].clone())
}

/// The five fields of a `.pgpass` line (`:` separates, `\` escapes).
fn pgpass_fields(line: &str) -> Option<[String; 5]> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => fields.last_mut()?.push(chars.next()?),
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut()?.push(c),
        }
    }
    fields.try_into().ok()
}

/// `text` with the password of `url`, if any, blotted out.
fn without_secrets(text: &str, url: &str) -> String {
    match tls::without_link_parameters(url).parse::<postgres::Config>() {
        Ok(config) => match config.get_password() {
            Some(p) if !p.is_empty() => text.replace(&*String::from_utf8_lossy(p), "***"),
            _ => text.to_string(),
        },
        Err(_) => text.to_string(),
    }
}

impl PgDb<'_> {
    /// Prepares `sql` once per connection.
    fn statement(&self, sql: &str) -> Result<Statement> {
        if let Some(statement) = self.conn.prepared.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.with_client(|c| c.prepare(sql))?;
        let mut prepared = self.conn.prepared.borrow_mut();
        if prepared.len() > 512 {
            prepared.clear();
        }
        prepared.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    /// Runs `f` with the connection, off any async runtime.
    pub(super) fn with_client<T: Send>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, postgres::Error> + Send,
    ) -> Result<T> {
        if let Some(why) = &self.down
            && self.conn.client.borrow().is_closed()
        {
            return Err(Error::ConnectionLost {
                server: self.conn.shown.to_string(),
                reason: format!("it cannot be reached ({why})"),
                during_write: false,
            });
        }
        let mut client = self.conn.client.borrow_mut();
        let client: &mut Client = &mut client;
        off_runtime(move || f(client)).map_err(|e| self.named(e.into()))
    }

    /// `e`, naming the server when the connection to it is gone.
    fn named(&self, e: Error) -> Error {
        match e {
            Error::ConnectionLost {
                server,
                reason,
                during_write,
            } if server.is_empty() => Error::ConnectionLost {
                server: self.conn.shown.to_string(),
                reason,
                during_write,
            },
            other => other,
        }
    }

    /// Runs `run` on this handle. On a replica's handle that fails, it
    /// runs again on the primary, so a read goes on: a replica lost
    /// meanwhile is marked so; a statement a standby cancelled (a
    /// conflict with what it replays) just goes to the primary.
    fn or_primary<T>(&self, run: impl Fn(&PgDb<'_>) -> Result<T>) -> Result<T> {
        match (run(self), &self.primary) {
            (Err(e), Some((primary, replica))) => {
                if let Error::ConnectionLost { reason, .. } = &e {
                    replica.lost(reason);
                } else if self.conn.client.borrow().is_closed() {
                    replica.lost(&e.to_string());
                }
                run(primary)
            }
            (result, _) => result,
        }
    }

    pub(super) fn batch(&self, sql: &str) -> Result<()> {
        self.or_primary(|db| db.with_client(|c| c.batch_execute(sql)))
    }

    pub(super) fn rows(&self, sql: &str, params: &Params<'_>) -> Result<Vec<Row>> {
        self.or_primary(|db| {
            let statement = db.statement(sql)?;
            db.with_client(|c| c.query(&statement, params))
        })
    }

    /// The rows of `sql`, prepared for this run only.
    pub(super) fn rows_unprepared(&self, sql: &str, params: &Params<'_>) -> Result<Vec<Row>> {
        self.or_primary(|db| db.with_client(|c| c.query(sql, params)))
    }

    pub(super) fn row(&self, sql: &str, params: &Params<'_>) -> Result<Option<Row>> {
        self.or_primary(|db| {
            let statement = db.statement(sql)?;
            db.with_client(|c| c.query_opt(&statement, params))
        })
    }

    pub(super) fn one(&self, sql: &str, params: &Params<'_>) -> Result<Row> {
        self.or_primary(|db| {
            let statement = db.statement(sql)?;
            db.with_client(|c| c.query_one(&statement, params))
        })
    }

    pub(super) fn exec(&self, sql: &str, params: &Params<'_>) -> Result<u64> {
        self.or_primary(|db| {
            let statement = db.statement(sql)?;
            db.with_client(|c| c.execute(&statement, params))
        })
    }
}

impl From<postgres::Error> for Error {
    fn from(e: postgres::Error) -> Self {
        if e.code() == Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE) {
            // The store names itself in `PgStore::lost`.
            return Error::ReadOnly {
                path: PathBuf::new(),
            };
        }
        if e.code() == Some(&postgres::error::SqlState::DISK_FULL) {
            return Error::DiskFull {
                place: "the database server's disk".into(),
            };
        }
        use postgres::error::SqlState;
        let ended = [
            SqlState::ADMIN_SHUTDOWN,
            SqlState::CRASH_SHUTDOWN,
            SqlState::CANNOT_CONNECT_NOW,
        ];
        if e.is_closed() || e.code().is_some_and(|c| ended.contains(c)) {
            Error::ConnectionLost {
                server: String::new(),
                reason: cause(&e),
                during_write: false,
            }
        } else {
            Error::Server(format!("database server: {}", cause(&e)))
        }
    }
}

impl Upkeep for PgDb<'_> {
    /// The schema version and what is missing for the store to work (the
    /// `vector` extension).
    fn health(&self) -> Result<crate::types::Health> {
        let version: i64 = self
            .one("SELECT coalesce(max(version), 0) FROM keep_schema", &[])?
            .get(0);
        let mut problems = Vec::new();
        if self
            .row("SELECT 1 FROM pg_extension WHERE extname = 'vector'", &[])?
            .is_none()
        {
            problems
                .push("the vector extension (pgvector) is not installed in this database".into());
        }
        Ok(crate::types::Health {
            schema_version: version,
            known_version: MIGRATIONS.last().map_or(0, |m| m.0),
            problems,
        })
    }

    /// Changes whenever a write commits (this connection's included).
    fn data_version(&self) -> Result<i64> {
        Ok(self.one("SELECT last_value FROM keep_changes", &[])?.get(0))
    }

    /// A plan cached while the statistics say the tables are small (a
    /// prepared statement, the foreign-key check of each insert) keeps
    /// scanning whole tables as one transaction fills them: importing
    /// 10,020 notes into a store last analysed with one note took 59.9 s,
    /// 25.6 s with each statement planned as it runs. Planning each costs
    /// a quarter more where no statistics exist yet (a new store: 12.4 s
    /// against 16 s), so only when the statistics count fewer notes than
    /// are coming.
    fn prepare_bulk_load(&self, notes: usize) -> Result<()> {
        let analysed = self
            .row(
                "SELECT reltuples::float8 FROM pg_class WHERE oid = 'notes'::regclass",
                &[],
            )?
            .map_or(-1.0, |r| r.get::<_, f64>(0));
        if (0.0..notes as f64).contains(&analysed) {
            self.batch("SET LOCAL plan_cache_mode = force_custom_plan")?;
        }
        Ok(())
    }

    /// Analyses every table of the store, so ranking and the planner know
    /// the words and sizes an import brought, then compacts the word totals.
    ///
    /// An import adds a row of changes to `text_totals` for each text, and
    /// its commit folds them into one row a column: a million notes left
    /// 428 MB of dead rows behind five live ones, which every later
    /// write's fold read (174 ms of a `keep get`) and autovacuum could not
    /// shrink, the live rows sitting at the table's end. The table is
    /// rewritten, waiting at most 5 s for readers to let go of it.
    fn after_bulk_load(&self) -> Result<()> {
        self.batch("ANALYZE notes, bodies, tags, versions, parts, edges, vec_notes, vec_versions, vec_parts")?;
        self.conn.words.forget();
        self.batch("SET lock_timeout = '5s'")?;
        let compacted = self.batch("VACUUM FULL text_totals");
        self.batch("RESET lock_timeout")?;
        compacted
    }

    /// Inserting into HNSW one vector at a time took most of an import's
    /// time (10,020 notes: 87 of 130 samples of the server's active
    /// statement); building the index once over the loaded rows takes
    /// 1.5 s. Dropping an index locks its table until the write ends:
    /// the keeper asks only in the write that created the vector space,
    /// and only while every vector table is empty. An import writes in
    /// batches, so readers may search the first batches before the
    /// indexes are built at its end: exactly, by a scan.
    fn defer_vector_indexes(&self) -> Result<bool> {
        if self.vector_space()?.is_none() {
            return Ok(false);
        }
        for kind in VecKind::ALL {
            let sql = format!("SELECT EXISTS (SELECT 1 FROM {})", kind.vec_table());
            if self.row(&sql, &[])?.is_some_and(|r| r.get::<_, bool>(0)) {
                return Ok(false);
            }
        }
        for kind in VecKind::ALL {
            self.batch(&format!("DROP INDEX IF EXISTS {}", index_name(kind)))?;
        }
        Ok(true)
    }

    fn build_vector_indexes(&self) -> Result<()> {
        match self.vector_space()? {
            Some(space) => self.build_sized_indexes(space.dims),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::pgpass_password;

    const PASSFILE: &str = "\
# comment
db.example.org:5432:keep:alice:first
*:6543:*:alice:on\\:other\\\\port
localhost:*:keep:bob:by-socket
*:*:*:*:fallback
";

    #[test]
    fn the_first_matching_line_of_a_pgpass_file_gives_the_password() {
        let at = |url: &str| pgpass_password(url, PASSFILE);
        assert_eq!(
            at("postgres://alice@db.example.org/keep").as_deref(),
            Some("first")
        );
        assert_eq!(
            at("postgres://alice@[::1]:6543/other").as_deref(),
            Some("on:other\\port")
        );
        assert_eq!(
            at("postgres://bob@/keep?host=/run/postgresql").as_deref(),
            Some("by-socket")
        );
        assert_eq!(
            at("postgres://carol@db.example.org/x").as_deref(),
            Some("fallback")
        );
        assert_eq!(
            pgpass_password("postgres://alice@h/keep", "h:5432:keep:bob:x"),
            None
        );
        assert_eq!(pgpass_password("postgres://alice@h/keep", "a:b:c"), None);
    }
}
