//! The server of `keep serve`, in one room: HTTP (`http`, with its
//! connections in `connections` and tokens, sign-in and CSRF in `auth`),
//! MCP over HTTP, the JSON API (`api`), the web page (`web`), TLS, and the
//! lock that says a server holds the store; and what its doors share
//! (the store's socket for the command line among them): warm keepers
//! over one loaded model, and the health report.

pub mod api;
pub mod auth;
pub mod connections;
pub mod http;
pub mod lock;
pub mod peer;
pub mod query;
pub mod routes;
pub mod tls;
pub mod web;

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::server::http::Sessions;
use keep_core::{Keeper, SharedModel};

/// Keepers kept open between commands; more are opened while many run.
const KEPT: usize = 4;
/// Keepers lent at once (commands, API calls and MCP calls); more wait.
const AT_MOST: usize = 8;
/// Clients whose last writes are remembered, at most; past it, those
/// that wrote longest ago are forgotten.
const CLIENTS_KEPT: usize = 4096;
/// A client's write long enough ago that every replica in use replayed it.
const MARK_KEPT: Duration = Duration::from_secs(3600);

/// Keepers sharing the server's model (and, on SQLite, the vector codes),
/// each lent to one command or call at a time.
pub struct Warm {
    pub config: Config,
    model: SharedModel,
    idle: Mutex<Vec<Keeper>>,
    lent: Mutex<usize>,
    returned: Condvar,
    pub sessions: Arc<Sessions>,
    /// Where the primary's log stood after each client's last write
    /// (MCP session, API token), so its reads through any keeper see it.
    marks: Mutex<HashMap<String, (u64, Instant)>>,
    url: String,
    started: String,
    since: Instant,
}

impl Warm {
    pub fn new(
        config: Config,
        model: SharedModel,
        sessions: Arc<Sessions>,
        url: String,
        started: String,
    ) -> Self {
        Warm {
            config,
            model,
            idle: Mutex::new(Vec::new()),
            lent: Mutex::new(0),
            returned: Condvar::new(),
            sessions,
            marks: Mutex::new(HashMap::new()),
            url,
            started,
            since: Instant::now(),
        }
    }

    /// A keeper for one command or call, an idle one or one opened now,
    /// once fewer than `AT_MOST` are lent; it comes back when the lease
    /// is dropped.
    pub fn lend(&self) -> keep_core::Result<Lent<'_>> {
        self.lend_to(None)
    }

    /// `lend` for `client` (an MCP session, an API token): its reads see
    /// the writes it made through other keepers, and the keeper's writes
    /// are remembered as its own when it comes back.
    pub fn lend_to(&self, client: Option<&str>) -> keep_core::Result<Lent<'_>> {
        let mut lent = self.lent.lock().unwrap_or_else(PoisonError::into_inner);
        while *lent >= AT_MOST {
            lent = self
                .returned
                .wait(lent)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *lent += 1;
        drop(lent);
        let mut lease = Lent {
            warm: self,
            keeper: None,
            client: client.map(str::to_string),
        };
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let keeper = match idle {
            Some(keeper) => keeper,
            None => {
                let settings = self
                    .config
                    .settings()
                    .map_err(|e| keep_core::Error::Invalid(e.0))?;
                Keeper::open(settings)?.with_shared_model(self.model.clone())
            }
        };
        keeper.set_write_mark(client.and_then(|c| self.mark_of(c)));
        lease.keeper = Some(keeper);
        Ok(lease)
    }

    /// Where the primary's log stood after `client`'s last write.
    fn mark_of(&self, client: &str) -> Option<u64> {
        let marks = self.marks.lock().unwrap_or_else(PoisonError::into_inner);
        marks.get(client).map(|(mark, _)| *mark)
    }

    /// Remembers `mark` as where `client`'s last write left the log.
    fn remember_mark(&self, client: &str, mark: u64) {
        let mut marks = self.marks.lock().unwrap_or_else(PoisonError::into_inner);
        if marks.len() >= CLIENTS_KEPT && !marks.contains_key(client) {
            marks.retain(|_, (_, at)| at.elapsed() < MARK_KEPT);
            if marks.len() >= CLIENTS_KEPT
                && let Some(oldest) = marks
                    .iter()
                    .min_by_key(|(_, (_, at))| *at)
                    .map(|(c, _)| c.clone())
            {
                marks.remove(&oldest);
            }
        }
        marks.insert(client.to_string(), (mark, Instant::now()));
    }

    /// The server's state as it is now: the store is asked, not assumed.
    pub fn health(&self) -> Health {
        let asked = self.lend().and_then(|mut lent| {
            let keeper = lent.keeper();
            Ok((
                keeper.pending_embeddings()?,
                keeper.vector_graph_build()?,
                keeper.replica_states(),
            ))
        });
        let (backlog, index_build, replicas) = match asked {
            Ok((backlog, build, replicas)) => (Ok(backlog), build, replicas),
            Err(e) => (Err(e), None, Vec::new()),
        };
        let location = match &self.config.database {
            Some(url) => keep_core::shown_url(url),
            None => self
                .config
                .store
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string()),
        };
        let name = self
            .config
            .model
            .model_dir
            .as_ref()
            .and_then(|dir| dir.file_name())
            .map(|n| n.to_string_lossy().into_owned());
        let model = match self.model.state() {
            None => ModelHealth {
                loaded: false,
                name,
                id: None,
                error: None,
            },
            Some(Ok(id)) => ModelHealth {
                loaded: true,
                name,
                id: Some(id),
                error: None,
            },
            Some(Err(why)) => ModelHealth {
                loaded: false,
                name,
                id: None,
                error: Some(why),
            },
        };
        let status = match (&backlog, &model.error) {
            (Err(_), _) => "unavailable",
            (Ok(_), Some(_)) => "degraded",
            (Ok(_), None) => "ok",
        };
        Health {
            status: status.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            pid: std::process::id(),
            url: self.url.clone(),
            started: self.started.clone(),
            uptime_seconds: self.since.elapsed().as_secs(),
            store: StoreHealth {
                location,
                reachable: backlog.is_ok(),
                error: backlog.as_ref().err().map(ToString::to_string),
            },
            model,
            backlog: backlog.ok(),
            index_build: index_build.map(|b| IndexBuild {
                kind: b.kind.map(|k| k.name().to_string()),
                done: b.done,
                total: b.total,
            }),
            replicas: replicas
                .into_iter()
                .map(|r| ReplicaHealth {
                    server: r.server,
                    reads: r.reads,
                    lag_seconds: r.lag_seconds,
                    skipped: r.skipped,
                })
                .collect(),
            sessions: self.sessions.opened(),
            commands: self.sessions.commands(),
        }
    }
}

impl crate::mcp::Lender for Warm {
    fn with_keeper(
        &self,
        client: Option<&str>,
        f: &mut dyn FnMut(&mut Keeper),
    ) -> Result<(), String> {
        let mut lent = self.lend_to(client).map_err(|e| e.to_string())?;
        f(lent.keeper());
        Ok(())
    }
}

/// A keeper lent by `Warm`.
pub struct Lent<'w> {
    warm: &'w Warm,
    keeper: Option<Keeper>,
    /// Whom the keeper is lent to, when a client that may write again.
    client: Option<String>,
}

impl Lent<'_> {
    pub fn keeper(&mut self) -> &mut Keeper {
        self.keeper.as_mut().expect("a lent keeper until taken")
    }

    /// The keeper itself, for a command that owns it while it runs.
    pub fn take(&mut self) -> Keeper {
        self.keeper.take().expect("a lent keeper until taken")
    }

    /// Gives back a keeper taken (a command that gave it up does not).
    pub fn put_back(&mut self, keeper: Keeper) {
        self.keeper = Some(keeper);
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(mut keeper) = self.keeper.take() {
            keeper.set_caller(keep_core::Caller::owner());
            if let (Some(client), Some(mark)) = (&self.client, keeper.write_mark()) {
                self.warm.remember_mark(client, mark);
            }
            let mut idle = self
                .warm
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if idle.len() < KEPT {
                idle.push(keeper);
            }
        }
        *self
            .warm
            .lent
            .lock()
            .unwrap_or_else(PoisonError::into_inner) -= 1;
        self.warm.returned.notify_one();
    }
}

/// What `/health` and `keep serve --status` report.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Health {
    /// "ok"; "degraded" when the model cannot be loaded; "unavailable"
    /// when the store cannot be reached.
    pub status: String,
    pub version: String,
    pub pid: u32,
    pub url: String,
    pub started: String,
    pub uptime_seconds: u64,
    pub store: StoreHealth,
    pub model: ModelHealth,
    /// Notes waiting for a vector (None when the store cannot be asked).
    pub backlog: Option<i64>,
    /// The vector index being built now, and how far it is.
    #[serde(default)]
    pub index_build: Option<IndexBuild>,
    /// The PostgreSQL store's replicas: whether each takes reads.
    #[serde(default)]
    pub replicas: Vec<ReplicaHealth>,
    /// MCP sessions opened since the start.
    pub sessions: usize,
    /// Commands answered over the store's socket.
    pub commands: usize,
}

/// How far the build of a vector index (graph) stands.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IndexBuild {
    pub kind: Option<String>,
    pub done: usize,
    pub total: usize,
}

/// A replica of the store, as `/health` reports it.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReplicaHealth {
    /// The server and database, without a password.
    pub server: String,
    /// Whether reads go to it now.
    pub reads: bool,
    /// How far behind the primary, at most, in seconds.
    pub lag_seconds: Option<f64>,
    /// Why reads skip it, when they do.
    pub skipped: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StoreHealth {
    /// The folder, or the database without its password.
    pub location: String,
    pub reachable: bool,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ModelHealth {
    /// False until the first command that needs the model.
    pub loaded: bool,
    /// The model this server uses (its folder's name), loaded or not.
    #[serde(default)]
    pub name: Option<String>,
    /// The vector space its vectors are made in, once loaded (shared by
    /// builds of one model).
    pub id: Option<String>,
    pub error: Option<String>,
}
