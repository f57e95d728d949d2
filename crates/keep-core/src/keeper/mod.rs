//! `Keeper`: the core API that the CLI, the browser and the MCP server
//! call. It owns the rules (ids, versions, tags, edges, stubs); the store
//! owns SQL. Its methods are grouped by what they do: `read`, `write`,
//! `history`, `edges`, `backlog` (embeddings), `find` (recall), `ingest`,
//! `transfer` (export and import) and `watch`.

mod backlog;
mod chat;
mod conflicts;
pub(crate) mod edges;
mod find;
mod forget;
mod graphs;
mod history;
mod ingest;
mod lease;
mod paths;
mod providers;
mod read;
mod redact;
mod rights;
mod switch;
mod tokens;
mod transcripts;
mod transfer;
mod trash;
mod truth;
mod watch;
mod why;
mod write;

use keep_store::prelude::*;
use std::path::Path;

use crate::embed::{Embedder, LoadFor};
use crate::error::Result;
use keep_model::settings::Settings;
use keep_model::{Clock, Timestamp};
use keep_store::Store;

pub use backlog::{EmbedReport, ReindexReport};
pub use chat::{ChatImport, SessionOutcome};
pub use conflicts::Conflict;
pub use find::CandidateLists;
pub use forget::{FileResidue, Residue};
pub use history::{MoveOutcome, RevertOutcome};
pub use ingest::{
    DEFAULT_MAX_FILES, Failure, IngestOptions, IngestReport, Progress, Target, Timings,
    WalkOptions, is_url,
};
pub use keep_store::census::{AgentActivity, Census, KeyCount, SourceCount};
pub use keep_store::operations::{Operation, OperationFilter, agent_via};
pub use keep_store::{Health, Lease, ReplicaState, WatchedDir};
pub use lease::{EMBED_LEASE, WATCH_LEASE, lease_holder, wall_ms};
pub use providers::{Analysis, AnalysisPart, ProviderWork};
pub use read::{FilterSpec, NoteView, parse_filters};
pub use redact::Redacted;
pub use switch::SwitchReport;
pub use tokens::{Rights, Token};
pub use transcripts::MAX_CHAT_FILE_BYTES;
pub use transfer::{ImportOutcome, ImportStep};
pub use truth::{Duplicate, Feedback, OnDuplicate};
pub use watch::SyncReport;
pub use why::Why;
pub use write::{
    DeleteHow, Deleted, PutOptions, TagEdit, WriteOutcome, WriteStatus, text_to_probe,
};

pub struct Keeper {
    store: Store,
    settings: Settings,
    embedder: backlog::EmbedderSlot,
    /// The built-in model while the store changes away from it: it embeds
    /// queries for the vectors that still answer them.
    old_embedder: Option<Box<dyn Embedder>>,
    load_for: LoadFor,
    /// The built-in model's tokenizer, once an answer was sized with it.
    tokens: Option<std::sync::Arc<crate::embed::TokenCounter>>,
    /// Reads not yet recorded on the primary (a store with replicas).
    accesses: read::Accesses,
    /// Who asks now: the owner until a front end says otherwise.
    caller: crate::caller::Caller,
}

impl Drop for Keeper {
    fn drop(&mut self) {
        // Reads held back are recorded now, or not at all.
        let _ = self.record_accesses();
    }
}

impl Keeper {
    /// Opens (creating if needed) the store the settings name.
    pub fn open(settings: Settings) -> Result<Self> {
        Ok(Keeper {
            store: match &settings.database {
                Some(url) => Store::open_postgres(
                    url,
                    &settings.store,
                    settings.database_password.as_deref(),
                    &settings.replicas,
                )?,
                None => Store::open(&settings.store)?,
            },
            settings,
            embedder: backlog::EmbedderSlot::default(),
            old_embedder: None,
            load_for: LoadFor::default(),
            tokens: None,
            accesses: read::Accesses::default(),
            caller: crate::caller::Caller::owner(),
        })
    }

    /// Uses `embedder` instead of loading the configured model.
    pub fn with_embedder(mut self, embedder: Box<dyn Embedder>) -> Self {
        self.embedder = backlog::EmbedderSlot::Ready(embedder);
        self
    }

    /// Uses `model`, shared with other keepers and threads of this
    /// process, instead of loading a model of its own.
    pub fn with_shared_model(mut self, model: crate::embed::SharedModel) -> Self {
        self.embedder = backlog::EmbedderSlot::Shared(model);
        self
    }

    /// Prepares the model, when it loads, for many queries over a long
    /// life (servers, the browser) rather than a quick start.
    pub fn for_many_queries(mut self) -> Self {
        self.load_for = LoadFor::ManyQueries;
        self
    }

    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.settings.clock = clock;
        self
    }

    /// Names who writes through this keeper from now on, in the
    /// operations log: `cli`, `browser`, `watch`, an MCP client's
    /// `name/version`; `keep` until told.
    pub fn set_agent(&mut self, agent: &str) {
        self.store.set_agent(agent);
    }

    /// What the store holds, and who wrote it.
    pub fn census(&self) -> Result<keep_store::census::Census> {
        self.caller.must_see_everything("stats")?;
        Ok(self.store.reads().census()?)
    }

    /// Ids of up to `limit` notes with text waiting for a vector (the note
    /// itself, a version or a part), the most recently updated first.
    pub fn waiting_for_vectors(&self, limit: usize) -> Result<Vec<String>> {
        Ok(self.store.reads().waiting_for_vectors(limit)?)
    }

    /// Entries of the operations log, newest first.
    /// A scoped caller sees the entries of the notes it may see now.
    pub fn operations(&self, filter: &OperationFilter) -> Result<Vec<Operation>> {
        let entries = self.store.reads().operations(filter)?;
        if self.caller.sees_everything() {
            return Ok(entries);
        }
        let mut seen = Vec::with_capacity(entries.len());
        for entry in entries {
            if self.sees(&entry.note)? {
                seen.push(entry);
            }
        }
        Ok(seen)
    }

    /// The settings this keeper was opened with.
    /// Where the primary's log stood after the last write through this
    /// keeper (None on a file, or before any): a client that reads
    /// through other keepers hands it to them with `set_write_mark`.
    pub fn write_mark(&self) -> Option<u64> {
        self.store.write_mark()
    }

    /// This keeper's reads see the writes up to `mark` and its own from
    /// now on: `mark` is where a client's last write made through another
    /// keeper left the log (None: the client wrote nothing yet).
    pub fn set_write_mark(&self, mark: Option<u64>) {
        self.store.restore_write_mark(mark);
    }

    /// Whether reads go to replicas when they can.
    pub fn has_replicas(&self) -> bool {
        self.store.has_replicas()
    }

    /// The state of each replica that takes reads, asked now; empty
    /// without replicas.
    pub fn replica_states(&self) -> Vec<ReplicaState> {
        self.store.replica_states()
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn now(&self) -> Timestamp {
        self.settings.clock.now()
    }

    pub fn store_path(&self) -> &Path {
        self.store.path()
    }

    /// What protects the link to a database server; None for a file.
    pub fn database_link(&self) -> Option<keep_store::Link> {
        self.store.link()
    }

    /// What the store's own check finds (schema version, integrity).
    pub fn health(&self) -> Result<Health> {
        Ok(self.store.db().health()?)
    }

    /// What is wrong with the store, one line each; empty when all is
    /// well.
    pub fn check(&self) -> Result<Vec<String>> {
        Ok(self.store.check()?)
    }

    /// Makes again what is derived from the notes (keyword indexes,
    /// codes; vectors that cannot be kept wait for the model), without
    /// changing a note; returns what it did. `progress` hears notes done
    /// of all.
    pub fn repair(&mut self, progress: &mut dyn FnMut(usize, usize)) -> Result<Vec<String>> {
        Ok(self.store.repair(progress)?)
    }

    /// The problems of a SQLite store file (a backup), read only.
    pub fn check_file(path: &Path) -> Result<Vec<String>> {
        Ok(keep_store::check_file(path)?)
    }

    /// The id of the configured embedding model (what its vectors are
    /// recorded as), without loading it.
    pub fn model_id(&self) -> Result<String> {
        if let Some(provider) = &self.settings.providers.embed {
            return Ok(crate::provider::embedder::model_id(provider));
        }
        crate::embed::ModelPaths::from_settings(&self.settings.model)?.model_id()
    }

    /// The built-in embedding model's tokenizer, to size answers in
    /// tokens (`max_tokens`); loaded once, without the model.
    pub fn token_counter(&mut self) -> Result<std::sync::Arc<crate::embed::TokenCounter>> {
        if let Some(counter) = &self.tokens {
            return Ok(counter.clone());
        }
        let paths = crate::embed::ModelPaths::from_settings(&self.settings.model)?;
        let counter = std::sync::Arc::new(crate::embed::TokenCounter::load(&paths)?);
        self.tokens = Some(counter.clone());
        Ok(counter)
    }

    /// The embedding model this keeper is set to use (its folder's name),
    /// whether or not it is installed.
    pub fn model_in_use(&self) -> Option<String> {
        let dir = self.settings.model.model_dir.as_ref()?;
        Some(dir.file_name()?.to_string_lossy().into_owned())
    }

    /// The model the store's vectors were made with, if any.
    pub fn vector_model(&self) -> Result<Option<String>> {
        Ok(self.store.db().vector_space()?.map(|s| s.model))
    }

    /// The folder holding the database, as given to `open` (for a store
    /// on a database server, its local folder).
    pub fn store_dir(&self) -> &Path {
        self.store.dir()
    }
}
