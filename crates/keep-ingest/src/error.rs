//! What can go wrong turning files and pages into documents: a file that
//! cannot be read, holds no text, a page that cannot be fetched, OCR
//! models that are not there. Messages say what happened, never which
//! command to run: that advice is the front end's.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Something asked is malformed (a URL, an exclude pattern).
    #[error("{0}")]
    Invalid(String),

    /// A file or folder could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A document (file or download) whose content cannot be read:
    /// corrupt, truncated, encrypted, of an unknown type, lying about its
    /// type, too big, a bomb.
    #[error("{what}: {reason}")]
    Unreadable { what: String, reason: String },

    /// A document that was read but holds no text to store.
    #[error("{what}: has no text")]
    NoText { what: String },

    /// A URL that could not be downloaded.
    #[error("{url}: {reason}")]
    Fetch { url: String, reason: String },

    /// The OCR models are missing or cannot be loaded (`component` names
    /// what provides them).
    #[error("{reason}")]
    OcrUnavailable {
        reason: String,
        component: &'static str,
    },
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

    /// The message without the file, URL or folder it is about, for
    /// reports that name the subject themselves (`PATH: reason`).
    pub fn reason(&self) -> String {
        match self {
            Error::Io { source, .. } => source.to_string(),
            Error::Unreadable { reason, .. } | Error::Fetch { reason, .. } => reason.clone(),
            Error::NoText { .. } => "has no text".into(),
            other => other.to_string(),
        }
    }
}

impl From<keep_model::Invalid> for Error {
    fn from(e: keep_model::Invalid) -> Self {
        Error::Invalid(e.0)
    }
}

/// An extraction failure for `what`.
pub fn format_error(what: &str, reason: impl Into<String>) -> Error {
    Error::Unreadable {
        what: what.to_string(),
        reason: reason.into(),
    }
}

/// A failure inside an extractor, before the file name is known.
pub(crate) fn bad(reason: impl Into<String>) -> Error {
    format_error("", reason)
}
