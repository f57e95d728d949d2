//! Everything configurable about a `Keeper`, resolved once by the front end
//! (flags, environment and config file) and passed to `Keeper::open`. The
//! core never reads the environment: what is not here is not configurable.

use std::path::PathBuf;
use std::time::Duration;

use std::ffi::OsString;

use crate::time::Clock;

/// Default overall time limit of a URL download.
pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(30);
/// Default recency half-life of recall, in days: a note not touched for a
/// month weighs half as much as one touched today.
pub const DEFAULT_HALF_LIFE_DAYS: f64 = 30.0;
/// Vectors of a kind at or above which a SQLite store searches them
/// through a graph, unless the settings say otherwise: below it an exact
/// scan of the codes takes about a millisecond.
pub const DEFAULT_VECTOR_INDEX_FROM: usize = 50_000;
/// How long a deleted note stays in the trash unless configured.
pub const DEFAULT_TRASH_DAYS: f64 = 30.0;

#[derive(Debug, Clone)]
pub struct Settings {
    /// The folder holding the database (`keep.db`); for a store on a
    /// database server, its local folder (the socket of `keep serve`).
    pub store: PathBuf,
    /// A PostgreSQL URL (`postgres://user@host/db`) when the store lives on
    /// a database server rather than in `store`.
    pub database: Option<String>,
    /// The database password when `database` has none (from the
    /// environment, a password file or `.pgpass`, never a command line).
    pub database_password: Option<String>,
    /// Hot standbys of `database` that answer reads.
    pub replicas: Replicas,
    /// Where "now" comes from.
    pub clock: Clock,
    /// The embedding model and its runtime.
    pub model: ModelSettings,
    /// The OCR models (PP-OCRv6 small, rten format); None: OCR is off.
    pub ocr_dir: Option<PathBuf>,
    /// Overall time limit of a URL download.
    pub fetch_timeout: Duration,
    /// Recency half-life of recall, in days; 0 turns decay off.
    pub half_life_days: f64,
    /// How long a deleted note stays in the trash before a later delete
    /// removes it for good, in days; 0 deletes for good at once.
    pub trash_days: f64,
    /// Whether secrets are replaced by a marker before anything is
    /// stored (`keep_model::secrets`); false keeps them as written.
    pub redact_secrets: bool,
    /// The program that extracts files in a child process; None extracts
    /// on threads of this process (tests of the core).
    pub extract_worker: Option<WorkerCommand>,
    /// Whether notes left waiting for a vector are embedded in the
    /// background (by a server, or a process the front end starts), so a
    /// search need not tell the user to run `keep reindex`.
    pub backlog_drains: bool,
    /// Language, speech and embedding models served over HTTP, each off
    /// unless configured.
    pub providers: Providers,
    /// Vectors of a kind from which a SQLite store searches them through
    /// an index rather than scanning them all.
    pub vector_index_from: usize,
}

/// How long a replica may trail the primary before reads skip it.
pub const DEFAULT_MAX_REPLICA_LAG: Duration = Duration::from_secs(5);
/// How long a read waits for a replica to replay its client's last write
/// before it reads the primary instead.
pub const DEFAULT_REPLICA_WAIT: Duration = Duration::from_secs(1);

/// Hot standbys of a PostgreSQL store (streaming replication) that take
/// its reads; none by default.
#[derive(Clone)]
pub struct Replicas {
    /// Each standby's URL (the same TLS parameters as the primary's) and
    /// its password when the URL has none.
    pub servers: Vec<(String, Option<String>)>,
    /// A standby further behind than this is skipped.
    pub max_lag: Duration,
    /// How long a read waits for a standby to replay the writes its
    /// client made, before reading the primary.
    pub wait: Duration,
}

impl Default for Replicas {
    fn default() -> Self {
        Replicas {
            servers: Vec::new(),
            max_lag: DEFAULT_MAX_REPLICA_LAG,
            wait: DEFAULT_REPLICA_WAIT,
        }
    }
}

impl std::fmt::Debug for Replicas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // URLs may hold passwords: only how many.
        f.debug_struct("Replicas")
            .field("servers", &self.servers.len())
            .field("max_lag", &self.max_lag)
            .field("wait", &self.wait)
            .finish()
    }
}

/// The model servers keep may ask for work (OpenAI-compatible APIs).
#[derive(Debug, Clone, Default)]
pub struct Providers {
    /// Writes a note's summary (chat completions), in the background.
    pub summarize: Option<Provider>,
    /// Cuts a document into parts with their own summaries and tags.
    pub analyze: Option<Provider>,
    /// Turns speech into text (`/audio/transcriptions`).
    pub transcribe: Option<Provider>,
    /// Embeds text instead of the built-in model (`/embeddings`).
    pub embed: Option<Provider>,
}

/// One model on one server.
#[derive(Clone, PartialEq, Eq)]
pub struct Provider {
    /// The API's base, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    /// The model the server is asked for.
    pub model: String,
    /// The key sent as a bearer token, read from the variable the config
    /// file names; never shown.
    pub api_key: Option<String>,
    /// How long one request may take in all.
    pub timeout: Duration,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set)"))
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Default time limit of one request to a provider.
pub const DEFAULT_PROVIDER_TIMEOUT: Duration = Duration::from_secs(120);

/// The program and arguments that run a child extractor (see
/// the extraction worker of keep-ingest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

/// Where the embedding model, its runtime and the cache of optimised graphs
/// are. A None path means "not configured"; loading the model then fails
/// with a clear error and recall falls back to keywords.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelSettings {
    /// A fastembed-compatible model directory (model.onnx, tokenizer.json, ...).
    pub model_dir: Option<PathBuf>,
    /// The ONNX Runtime shared library.
    pub ort_lib: Option<PathBuf>,
    /// Where optimised graphs are cached; None: no cache.
    pub cache_dir: Option<PathBuf>,
}

impl Settings {
    /// Settings for a store in `dir` with nothing else configured: the
    /// system clock, no model, no OCR. Front ends fill in the rest.
    pub fn for_store(dir: impl Into<PathBuf>) -> Self {
        Settings {
            store: dir.into(),
            database: None,
            database_password: None,
            replicas: Replicas::default(),
            clock: Clock::System,
            model: ModelSettings::default(),
            ocr_dir: None,
            fetch_timeout: DEFAULT_FETCH_TIMEOUT,
            half_life_days: DEFAULT_HALF_LIFE_DAYS,
            trash_days: DEFAULT_TRASH_DAYS,
            redact_secrets: true,
            extract_worker: None,
            backlog_drains: false,
            providers: Providers::default(),
            vector_index_from: DEFAULT_VECTOR_INDEX_FROM,
        }
    }
}
