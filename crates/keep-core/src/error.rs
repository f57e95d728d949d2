//! Typed errors of the core, one variant per cause a front end acts on;
//! the store's and ingestion's errors pass through whole. Messages say what
//! happened. What would put it right is [`Advice`], which each front end
//! says in its own words: a command on the command line, a step for the
//! person over MCP.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No note (or no such version or part of a note) exists.
    #[error("no note '{0}'")]
    NotFound(String),

    /// Nothing else of that name exists (a token); the text says what.
    #[error("{0}")]
    NoSuch(String),

    /// An argument the user gave is malformed or out of range.
    #[error("{0}")]
    Invalid(String),

    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A revert of a note that has no earlier version (it would delete it).
    #[error("'{id}' has no earlier version to revert to")]
    NoEarlierVersion { id: String },

    /// A folder was given where a file is needed.
    #[error("{}: is a folder", path.display())]
    IsFolder { path: PathBuf },

    /// A file of keep's own (a package, a model file) whose content
    /// cannot be read as what it should be.
    #[error("{what}: {reason}")]
    Unreadable { what: String, reason: String },

    /// A line of an import that is not a valid keep export.
    #[error("{source_name}:{line}: {reason}")]
    Import {
        source_name: String,
        line: usize,
        reason: String,
    },

    /// A watched folder that is missing or cannot be read.
    #[error("{dir}: the watched folder is missing or not readable; it stays registered")]
    WatchedFolderMissing { dir: String },

    /// The embedding runtime or model cannot be loaded; `component` names
    /// what `keep models` installs to mend it, when that would.
    #[error("{reason}")]
    ModelUnavailable {
        reason: String,
        component: Option<&'static str>,
    },

    /// A model server (a provider) could not be reached, failed, or gave
    /// an answer keep cannot use; `server` names it (never its key).
    #[error("{server}: {reason}")]
    Provider { server: String, reason: String },

    /// A model server that cannot be reached now (refused, no such
    /// host): the work waits for it.
    #[error("{server}: {reason}")]
    ProviderUnreachable { server: String, reason: String },

    /// The configured model does not match the vectors in the store:
    /// embedding everything again with it mends it.
    #[error("{0}")]
    ModelMismatch(String),

    /// The caller may not do this (a read-only token writing, a tag
    /// outside its scope, a command that reaches the whole store).
    #[error("{0}")]
    Forbidden(String),

    /// The id is held by a note outside the caller's scope; nothing of
    /// that note is said.
    #[error("'{0}' is taken by a note outside this scope; give another id")]
    Taken(String),

    /// A refusal that comes with a way out (`advice`).
    #[error("{message}")]
    Refused { message: String, advice: Advice },

    /// The store failed.
    #[error(transparent)]
    Store(#[from] keep_store::Error),

    /// Reading a file or page failed.
    #[error(transparent)]
    Ingest(#[from] keep_ingest::Error),
}

/// Whose fault an error is, for a front end to answer by: an HTTP
/// status, an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Nothing of that name (or nothing the caller may see).
    NotFound,
    /// The caller's rights do not reach it.
    Refused,
    /// The id is held by a note the caller may not see.
    Conflict,
    /// What was asked is malformed or cannot be done as asked.
    BadInput,
    /// The store (or a server it needs) failed; asking again later may work.
    Unavailable,
    /// Anything else.
    Failed,
}

/// What would put a problem right, for a front end to say its own way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Advice {
    /// Embed every note that waits for a vector now.
    Reindex,
    /// Install a component of the runtime and models (all when None).
    InstallModels(Option<&'static str>),
    /// Give the store as a folder (the one holding keep.db).
    StoreFolder,
    /// Free some space where the store is written, then try again.
    FreeSpace,
    /// Delete this note, already in the trash, for good.
    PurgeFromTrash(String),
    /// Revert this note, or delete it, instead of deleting its current
    /// version.
    RevertOrDelete(String),
    /// Back up a store on PostgreSQL with the server's own tools, or by
    /// exporting it.
    ExportInstead,
    /// Install pip, or fetch the packages elsewhere and install from them.
    PipOrWheels,
    /// Use the keep that made this store (or a newer one).
    NewerKeep,
    /// Search again with the relevance floor at 0 to see the nearest.
    FloorZero,
}

impl Error {
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::Invalid(msg.into())
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// The embedding model or runtime is missing or cannot be loaded.
    pub fn model_unavailable(reason: impl Into<String>) -> Self {
        Error::ModelUnavailable {
            reason: reason.into(),
            component: None,
        }
    }

    /// True when the error means "nothing matched" rather than "something broke".
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound(_) | Error::NoSuch(_))
    }

    /// Whose fault it is.
    pub fn kind(&self) -> Kind {
        match self {
            Error::NotFound(_) | Error::NoSuch(_) => Kind::NotFound,
            Error::Forbidden(_) => Kind::Refused,
            Error::Taken(_) => Kind::Conflict,
            e if e.is_store_fault() => Kind::Unavailable,
            Error::ProviderUnreachable { .. } => Kind::Unavailable,
            Error::Invalid(_)
            | Error::NoEarlierVersion { .. }
            | Error::IsFolder { .. }
            | Error::Import { .. }
            | Error::Refused { .. }
            | Error::Ingest(_) => Kind::BadInput,
            _ => Kind::Failed,
        }
    }

    /// True when the caller's rights refuse what it asked.
    pub fn is_forbidden(&self) -> bool {
        matches!(self, Error::Forbidden(_))
    }

    /// True when an id is held by a note the caller may not see.
    pub fn is_taken(&self) -> bool {
        matches!(self, Error::Taken(_))
    }

    /// True when recall by meaning cannot run (no model, or vectors of
    /// another model), so keywords answer alone.
    pub fn is_model_off(&self) -> bool {
        matches!(
            self,
            Error::ModelUnavailable { .. } | Error::ModelMismatch(_)
        )
    }

    /// True for a store this process may only read.
    pub fn is_read_only(&self) -> bool {
        matches!(self, Error::Store(keep_store::Error::ReadOnly { .. }))
    }

    /// True for a fault of the store itself (its disk is full, it may not
    /// be written, its server is gone) rather than of one note: retrying
    /// note by note, or going on to the next file, cannot help.
    pub fn is_store_fault(&self) -> bool {
        matches!(self, Error::Store(e) if e.is_fault())
    }

    /// What would put it right, when something would.
    pub fn advice(&self) -> Option<Advice> {
        match self {
            Error::ModelUnavailable { component, .. } => Some(Advice::InstallModels(*component)),
            Error::ModelMismatch(_) => Some(Advice::Reindex),
            Error::Refused { advice, .. } => Some(advice.clone()),
            Error::Store(keep_store::Error::DiskFull { .. }) => Some(Advice::FreeSpace),
            Error::Store(keep_store::Error::NotAFolder { .. }) => Some(Advice::StoreFolder),
            Error::Store(keep_store::Error::SchemaTooNew { .. }) => Some(Advice::NewerKeep),
            Error::Ingest(keep_ingest::Error::OcrUnavailable { component, .. }) => {
                Some(Advice::InstallModels(Some(component)))
            }
            _ => None,
        }
    }

    /// The message without the file, URL or folder it is about, for
    /// reports that name the subject themselves (`PATH: reason`).
    pub fn reason(&self) -> String {
        match self {
            Error::Io { source, .. } => source.to_string(),
            Error::IsFolder { .. } => "is a folder".into(),
            Error::Ingest(e) => e.reason(),
            other => other.to_string(),
        }
    }
}

impl From<keep_model::Invalid> for Error {
    fn from(e: keep_model::Invalid) -> Self {
        Error::Invalid(e.0)
    }
}

impl keep_store::WriteError for Error {
    fn map_store(self, f: impl FnOnce(keep_store::Error) -> keep_store::Error) -> Self {
        match self {
            Error::Store(e) => Error::Store(f(e)),
            other => other,
        }
    }
}

/// Something a command says beside its answer (a search with no model,
/// notes that wait for a vector), with what would put it right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub advice: Option<Advice>,
}

impl Notice {
    pub fn new(text: impl Into<String>) -> Self {
        Notice {
            text: text.into(),
            advice: None,
        }
    }

    pub fn advised(text: impl Into<String>, advice: Advice) -> Self {
        Notice {
            text: text.into(),
            advice: Some(advice),
        }
    }
}

/// A notice in JSON is its text.
impl serde::Serialize for Notice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl schemars::JsonSchema for Notice {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Notice".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// The store's transactions, run with the core's errors.
pub(crate) trait Transactions {
    /// Runs `f` in one transaction; commits only if it succeeds.
    fn transact<T>(&mut self, f: impl FnOnce(&keep_store::Db<'_>) -> Result<T>) -> Result<T>;
    /// Like `transact`, only when no other writer holds the store now.
    fn transact_if_free<T>(
        &mut self,
        f: impl FnOnce(&keep_store::Db<'_>) -> Result<T>,
    ) -> Result<Option<T>>;
}

impl Transactions for keep_store::Store {
    fn transact<T>(&mut self, f: impl FnOnce(&keep_store::Db<'_>) -> Result<T>) -> Result<T> {
        self.write_with(f)
    }

    fn transact_if_free<T>(
        &mut self,
        f: impl FnOnce(&keep_store::Db<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        self.write_if_free_with(f)
    }
}
