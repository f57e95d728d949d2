//! A store is its owner's alone: the folder a store is made in is
//! created readable by its owner only (0700), and a database file made
//! anew is too (0600; SQLite gives its WAL and shared-memory files the
//! same mode). A folder or file that already exists keeps the mode its
//! owner gave it; `keep doctor` says when others may read it.

use std::fs::{DirBuilder, Permissions};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;

use crate::error::{Error, Result};

/// Makes `dir` (and its missing parents) when it is missing, the last
/// one readable by its owner only.
pub fn folder(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    match DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(Error::io(dir, e)),
        _ => Ok(()),
    }
}

/// Makes `file`, just created, readable and writable by its owner only.
pub fn new_file(file: &Path) -> Result<()> {
    std::fs::set_permissions(file, Permissions::from_mode(0o600)).map_err(|e| Error::io(file, e))
}
