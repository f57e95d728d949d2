//! keep-core: notes, the store, embeddings, ingestion and recall behind
//! one API, [`Keeper`]. No terminal, no argument parsing and no protocol
//! here: the `keep` binary builds [`Settings`] from its flags, environment
//! and config file, opens a `Keeper`, and renders what it returns.

pub mod error;
pub mod facts;
pub mod model;
pub mod models;
pub mod settings;

pub mod keeper;
pub mod provider;
pub mod recall;
pub mod spent;
pub mod summarize;

#[cfg(feature = "internals")]
pub mod embed;
#[cfg(not(feature = "internals"))]
pub(crate) mod embed;
#[cfg(feature = "internals")]
pub mod ingest;
#[cfg(not(feature = "internals"))]
pub(crate) mod ingest;
#[cfg(feature = "internals")]
pub mod store;
#[cfg(not(feature = "internals"))]
pub(crate) mod store;

pub use embed::{Embedder, SharedModel};
pub use error::{Error, Result};
pub use keeper::Keeper;
pub use settings::{Settings, WorkerCommand};
pub use store::{
    DEFAULT_GRAPH_FROM, GraphState, GraphWork, TextIndexState, TextMerge, VecKind, is_database_url,
    listen_for_changes, on_blocking_thread, pgpass_password, shown_url,
};

/// The child side of isolated extraction: the binary runs this for its
/// hidden `__extract` command; returns the exit code.
pub fn serve_extraction_worker(memory_limit: Option<u64>) -> i32 {
    ingest::isolate::serve(memory_limit)
}
