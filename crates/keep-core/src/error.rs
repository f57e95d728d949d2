//! Typed errors of the core, one variant per kind of failure. The core
//! never prints; the binary turns these into one-line messages and exit
//! codes.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How the message of a lost database connection begins.
pub const LOST_CONNECTION: &str = "lost the connection to the database server";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No note (or no such version or part of a note) exists.
    #[error("no note '{0}'")]
    NotFound(String),

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
    #[error("{}: is a folder (give it to put as a folder to take its files)", path.display())]
    IsFolder { path: PathBuf },

    /// A document (file or download) whose content keep cannot read: corrupt,
    /// truncated, encrypted, of an unknown type, lying about its type, too
    /// big, a bomb.
    #[error("{what}: {reason}")]
    Unreadable { what: String, reason: String },

    /// A document that was read but holds no text to store.
    #[error("{what}: has no text")]
    NoText { what: String },

    /// A URL that could not be downloaded.
    #[error("{url}: {reason}")]
    Fetch { url: String, reason: String },

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

    /// The store path names a file, not a folder.
    #[error("the store {} is a file, not a folder: give --store (or KEEP_STORE) a folder", path.display())]
    StoreNotAFolder { path: PathBuf },

    /// A write to a store this process may only read.
    #[error("the store {} is read-only here: reading works, writing does not", path.display())]
    ReadOnlyStore { path: PathBuf },

    /// The disk (or the database server's disk) holding the store is
    /// full: the write in progress was rolled back whole.
    #[error(
        "the disk is full where the store is written ({place}): the write in progress was rolled back; free some space and run the command again"
    )]
    DiskFull { place: String },

    /// The database could not be opened or a statement failed.
    #[error("database: {0}")]
    Database(#[from] rusqlite::Error),

    /// The database server could not be reached, refused, or lost the
    /// connection; the message names the server (never a password).
    #[error("{0}")]
    Server(String),

    /// The embedding runtime or model cannot be loaded.
    #[error("{0}")]
    ModelUnavailable(String),

    /// A model server (a provider) could not be reached, failed, or gave
    /// an answer keep cannot use; `server` names it (never its key).
    #[error("{server}: {reason}")]
    Provider { server: String, reason: String },

    /// A model server that cannot be reached now (refused, no such
    /// host): the work waits for it.
    #[error("{server}: {reason}")]
    ProviderUnreachable { server: String, reason: String },

    /// The configured model does not match the vectors in the store.
    #[error("{0}")]
    ModelMismatch(String),

    /// The database was written by a newer keep.
    #[error(
        "the store at {path} was written by a newer keep (schema {found}, this build knows {known})"
    )]
    SchemaTooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
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

    /// True when the error means "nothing matched" rather than "something broke".
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound(_))
    }

    /// True for a fault of the store itself (its disk is full, it may not
    /// be written, its server is gone) rather than of one note: retrying
    /// note by note, or going on to the next file, cannot help.
    pub fn is_store_fault(&self) -> bool {
        match self {
            Error::DiskFull { .. } | Error::ReadOnlyStore { .. } => true,
            Error::Server(message) => message.starts_with(LOST_CONNECTION),
            _ => false,
        }
    }

    /// The message without the file, URL or folder it is about, for
    /// reports that name the subject themselves (`PATH: reason`).
    pub fn reason(&self) -> String {
        match self {
            Error::Io { source, .. } => source.to_string(),
            Error::IsFolder { .. } => {
                "is a folder (give it to put as a folder to take its files)".into()
            }
            Error::Unreadable { reason, .. } | Error::Fetch { reason, .. } => reason.clone(),
            Error::NoText { .. } => "has no text".into(),
            other => other.to_string(),
        }
    }
}
