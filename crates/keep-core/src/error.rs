//! Typed errors of the core. The core never prints; the binary turns these
//! into one-line messages and exit codes.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No note (or no such version or part of a note) exists.
    #[error("no note '{0}'")]
    NotFound(String),

    /// An argument the user gave is malformed or out of range.
    #[error("{0}")]
    Invalid(String),

    /// A file the user named could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// An import line or other structured input could not be understood.
    #[error("{what}: {reason}")]
    Format { what: String, reason: String },

    /// The database could not be opened or a statement failed.
    #[error("database: {0}")]
    Database(#[from] rusqlite::Error),

    /// The embedding runtime or model cannot be loaded.
    #[error("{0}")]
    ModelUnavailable(String),

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
}
