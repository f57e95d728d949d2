//! Paths given by users, made absolute without touching the file system.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// `path` made absolute against the working directory, with `.` and `..`
/// removed.
pub(crate) fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path)
        .map_err(|e| Error::io(path, e))
        .map(|p| keep_model::lexically_normal(&p))
}
