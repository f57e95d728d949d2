//! What can go wrong in the store, one variant per cause a caller acts on
//! (the write was rolled back because the server went away; the disk is
//! full; this role may only read). Messages say what happened, never which
//! command to run: that advice is the front end's.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Something asked of the store is malformed or out of range.
    #[error("{0}")]
    Invalid(String),

    /// A row holds what cannot be read as what it should be (tags that
    /// are not JSON, a number out of range): `what` names the note.
    #[error("{what} cannot be read: {reason}")]
    Corrupt { what: String, reason: String },

    /// A file of the store could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The SQLite database could not be opened or a statement failed.
    #[error("database: {0}")]
    Database(#[from] rusqlite::Error),

    /// The database server failed or refused a statement.
    #[error("{0}")]
    Server(String),

    /// The database server could not be connected to at all.
    #[error("cannot connect to the database server {server}: {reason}")]
    Connect { server: String, reason: String },

    /// The connection to the database server is gone, or cannot be made
    /// again yet: what was asked was not done (a write in progress was
    /// rolled back whole).
    #[error(
        "lost the connection to the database server {server}: {reason}{}",
        if *during_write { "; the write in progress was rolled back" } else { "" }
    )]
    ConnectionLost {
        server: String,
        reason: String,
        during_write: bool,
    },

    /// A write to a store this process (or this role) may only read.
    #[error("the store {} is read-only here: reading works, writing does not", path.display())]
    ReadOnly { path: PathBuf },

    /// The disk (or the database server's disk) is full: the write in
    /// progress was rolled back whole.
    #[error(
        "the disk is full where the store is written ({place}): the write in progress was rolled back"
    )]
    DiskFull { place: String },

    /// The store was written by a newer keep.
    #[error(
        "the store at {} was written by a newer keep (schema {found}, this build knows {known})",
        path.display()
    )]
    SchemaTooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },

    /// The store's path names a file, not a folder.
    #[error("the store {} is a file, not a folder", path.display())]
    NotAFolder { path: PathBuf },
}

impl Error {
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::Invalid(message.into())
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// True for a fault of the store itself (its disk is full, it may not
    /// be written, its server is gone) rather than of one note: going on
    /// note by note, or file by file, cannot help.
    pub fn is_fault(&self) -> bool {
        matches!(
            self,
            Error::DiskFull { .. } | Error::ReadOnly { .. } | Error::ConnectionLost { .. }
        )
    }
}

impl From<keep_model::Invalid> for Error {
    fn from(e: keep_model::Invalid) -> Self {
        Error::Invalid(e.0)
    }
}

/// The error of a write's closure: the store's own, or one that carries
/// it (the core's), so that the store can say how its write ended (rolled
/// back, by a role that may not write) whoever made the error.
pub trait WriteError: From<Error> {
    /// The error with its store error, if it carries one, changed by `f`.
    fn map_store(self, f: impl FnOnce(Error) -> Error) -> Self;
}

impl WriteError for Error {
    fn map_store(self, f: impl FnOnce(Error) -> Error) -> Self {
        f(self)
    }
}
