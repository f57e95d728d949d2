//! Paths given by users, made absolute without touching the file system.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// `path` made absolute against the working directory, with `.` and `..`
/// removed.
pub(crate) fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path)
        .map_err(|e| Error::io(path, e))
        .map(|p| normalize(&p))
}

/// Removes `.` and `..` components without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
