//! keep-core: the one API every front end calls, [`Keeper`], over the
//! store (keep-store) and ingestion (keep-ingest): writing and reading
//! notes with their history and edges, recall, whether a text restates a
//! note (facts), the embedding model and its installation, and providers.
//! No terminal, no argument parsing and no protocol here: a front end
//! builds [`Settings`] from its flags, environment and config file, opens
//! a `Keeper`, and renders what it returns.

pub mod caller;
mod edges;
pub mod embed;
pub mod error;
pub mod facts;
pub mod keeper;
pub mod models;
pub mod provider;
pub mod recall;

/// The vocabulary shared by every crate of keep.
pub use keep_model as model;
pub use keep_model::settings;

pub use caller::Caller;
pub use embed::{Embedder, SharedModel};
pub use error::{Advice, Error, Kind, Notice, Result};
pub use keep_ingest::chat::ChatFormat;
pub use keep_ingest::chunk::rejoin;
pub use keep_ingest::serve_extraction_worker;
pub use keep_ingest::summarize::part_line;
pub use keep_model::{Settings, WorkerCommand};
pub use keep_store::{
    DEFAULT_GRAPH_FROM, GraphBuild, GraphState, GraphWork, Link, REFRESH_AFTER, TextIndexState,
    TextMerge, VecKind, complete_database_url, is_database_url, listen_for_changes, notices,
    on_blocking_thread, pgpass_password, shown_url,
};
pub use keeper::Keeper;
