//! Forgetting for good: a purge removes a note's text from every place
//! keep writes it (its row, versions, parts, tags and edges, the word
//! indexes, and the details of its entries in the operations log, whose
//! ids and times stay; on SQLite the freed pages are overwritten with
//! zeros and the write-ahead log is emptied, `Store::purge_for_good`) and
//! names the backups made since the note existed, which still hold it;
//! `residue` answers where a string is left in the store's rows and in
//! the files of its folder.

use std::path::Path;

use keep_model::time::Timestamp;
use keep_store::Residue as _;
use keep_store::prelude::*;
use keep_store::{Db, NoteReads};

use super::Keeper;
use super::edges;
use super::write::Deleted;
use crate::error::{Error, Result, Transactions};

/// The meta key of the backups `keep backup` made.
const BACKUPS: &str = "backups";
/// Backups remembered, the newest.
const KEPT_BACKUPS: usize = 200;

#[derive(serde::Serialize, serde::Deserialize)]
struct BackupRecord {
    path: String,
    at: Timestamp,
}

fn backups(db: &Db<'_>) -> Result<Vec<BackupRecord>> {
    Ok(db
        .meta(BACKUPS)?
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default())
}

/// Remembers a backup made at `path` at `at`.
fn record_backup(db: &Db<'_>, path: &Path, at: Timestamp) -> Result<()> {
    let mut all = backups(db)?;
    let path = path.display().to_string();
    all.retain(|b| b.path != path);
    all.push(BackupRecord { path, at });
    let drop = all.len().saturating_sub(KEPT_BACKUPS);
    all.drain(..drop);
    let json = serde_json::to_string(&all).map_err(|e| Error::invalid(e.to_string()))?;
    Ok(db.set_meta(BACKUPS, &json)?)
}

/// The backups made since `since` whose files are still there.
fn backups_since(db: &Db<'_>, since: Timestamp) -> Result<Vec<String>> {
    Ok(backups(db)?
        .into_iter()
        .filter(|b| b.at >= since && Path::new(&b.path).exists())
        .map(|b| b.path)
        .collect())
}

/// Removes note `rid` (`note`) with everything of it inside a purge, and
/// logs the purge with `detail`, the note's earlier entries keeping their
/// ids and times but not what they said; its archived versions' count.
pub(super) fn remove_for_good(
    db: &Db<'_>,
    rid: keep_store::NoteRid,
    note: &keep_model::Note,
    now: Timestamp,
    detail: &str,
) -> Result<i64> {
    let versions = db.version_count(rid)?;
    edges::remove_note(db, rid, note, now)?;
    db.forget_details(&note.id)?;
    db.log_operation(now, "purge", &note.id, versions + 1, detail)?;
    Ok(versions)
}

/// Where a string is left in the store.
#[derive(Debug, Clone, Default, serde::Serialize, schemars::JsonSchema)]
pub struct Residue {
    /// Rows holding it: `the summary of ID`, `a part of ID`, `log entry
    /// 12 of ID`.
    pub rows: Vec<String>,
    /// Files of the store's folder whose bytes hold it (as given, or in
    /// lower case, as word indexes keep words).
    pub files: Vec<FileResidue>,
}

#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct FileResidue {
    pub path: String,
    /// How many times it occurs there.
    pub times: usize,
}

impl Residue {
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty() && self.files.is_empty()
    }
}

impl Keeper {
    /// Writes a consistent copy of the store to the new file `to` while
    /// other processes go on writing, and records where and when, so that
    /// a purge can name the backups that still hold what it removed.
    pub fn backup(&mut self, to: &Path) -> Result<()> {
        self.store.backup(to)?;
        let now = self.now();
        let at = std::path::absolute(to).unwrap_or_else(|_| to.to_path_buf());
        self.store.transact(|db| record_backup(db, &at, now))
    }

    /// Removes note `id` for good, with its history and parts, leaving no
    /// text of it in the store's files.
    pub(super) fn purge_note(&mut self, id: &str) -> Result<Deleted> {
        let now = self.now();
        let ((versions, created), scrub) = self.store.purge_for_good(|db| {
            let (rid, note) = db.note(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
            let versions = remove_for_good(db, rid, &note, now, "")?;
            Ok::<_, Error>((versions, note.created))
        })?;
        let backups = backups_since(&self.store.db(), created)?;
        Ok(Deleted::Note {
            id: id.to_string(),
            versions,
            backups,
            log_kept: !scrub.log_emptied,
            index_kept: scrub.index_kept,
        })
    }

    /// Where `text` is left in the store: the rows that hold it, and the
    /// files of the store's folder whose bytes do.
    pub fn residue(&self, text: &str) -> Result<Residue> {
        if text.is_empty() {
            return Err(Error::invalid("give the text to look for"));
        }
        let rows = self.store.db().rows_holding(text)?;
        let mut files = Vec::new();
        files_holding(self.store.dir(), text, &mut files)?;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Residue { rows, files })
    }
}

/// Every file under `dir` holding `text` or its lower case, with how
/// many times.
fn files_holding(dir: &Path, text: &str, out: &mut Vec<FileResidue>) -> Result<()> {
    let lower = text.to_lowercase();
    let finders: Vec<memchr::memmem::Finder<'_>> = if lower == text {
        vec![memchr::memmem::Finder::new(text)]
    } else {
        vec![
            memchr::memmem::Finder::new(text),
            memchr::memmem::Finder::new(&lower),
        ]
    };
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for entry in entries {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        let kind = std::fs::symlink_metadata(&path).map_err(|e| Error::io(&path, e))?;
        if kind.is_dir() {
            files_holding(&path, text, out)?;
            continue;
        }
        if !kind.is_file() || kind.len() == 0 {
            continue;
        }
        let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
        // SAFETY: the map is only read, and a file that changes under it
        // changes only what this search reports.
        let bytes = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(&path, e))?;
        let times: usize = finders.iter().map(|f| f.find_iter(&bytes).count()).sum();
        if times > 0 {
            out.push(FileResidue {
                path: path.display().to_string(),
                times,
            });
        }
    }
    Ok(())
}
