//! What `keep serve` shares between its doors (the store socket, the
//! JSON API, the health endpoint): warm keepers over one loaded model,
//! and the health report.

pub mod api;
pub mod socket;
pub mod wire;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::cli::CliError;
use crate::config::Config;
use crate::mcp::http::Sessions;
use keep_core::{Keeper, SharedModel};

/// Keepers kept open between commands; more are opened while many run.
const KEPT: usize = 4;

/// Keepers sharing the server's model, handed to one command at a time.
pub struct Warm {
    pub config: Config,
    model: SharedModel,
    idle: Mutex<Vec<Keeper>>,
    pub sessions: Arc<Sessions>,
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
            sessions,
            url,
            started,
            since: Instant::now(),
        }
    }

    /// A keeper for one command: an idle one, or one opened now.
    pub fn take(&self) -> Result<Keeper, CliError> {
        if let Some(keeper) = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
        {
            return Ok(keeper);
        }
        Ok(Keeper::open(self.config.settings()?)?.with_shared_model(self.model.clone()))
    }

    /// Gives back a keeper a command is done with.
    pub fn give(&self, keeper: Keeper) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < KEPT {
            idle.push(keeper);
        }
    }

    /// The server's state as it is now: the store is asked, not assumed.
    pub fn health(&self) -> Health {
        let backlog = self.take().and_then(|keeper| {
            let backlog = keeper.pending_embeddings()?;
            self.give(keeper);
            Ok(backlog)
        });
        let location = match &self.config.database {
            Some(url) => keep_core::shown_url(url),
            None => self
                .config
                .store
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string()),
        };
        let model = match self.model.state() {
            None => ModelHealth {
                loaded: false,
                id: None,
                error: None,
            },
            Some(Ok(id)) => ModelHealth {
                loaded: true,
                id: Some(id),
                error: None,
            },
            Some(Err(why)) => ModelHealth {
                loaded: false,
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
            sessions: self.sessions.opened(),
            commands: self.sessions.commands(),
        }
    }
}

/// What `/health` and `keep serve --status` report.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// MCP sessions opened since the start.
    pub sessions: usize,
    /// Commands answered over the store's socket.
    pub commands: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoreHealth {
    /// The folder, or the database without its password.
    pub location: String,
    pub reachable: bool,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelHealth {
    /// False until the first command that needs the model.
    pub loaded: bool,
    pub id: Option<String>,
    pub error: Option<String>,
}
