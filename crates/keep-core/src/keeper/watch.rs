//! Watched folders in the core: registering them, the single-watcher
//! lease, and bringing the store in line with a folder (all of it on a
//! catch-up scan, or the paths an event touched): new and changed files
//! are ingested, vanished ones tagged `_deleted`, and a file that vanished
//! while another with its exact content appeared is a rename, so its note
//! keeps its history under the new id.

use keep_store::prelude::*;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::Serialize;

use super::paths::absolute;
use super::write::write_state;
use super::{Failure, IngestOptions, Keeper, Target};
use crate::error::{Error, Notice, Result, Transactions};
use keep_ingest::walk::{self, WalkOptions};
use keep_model::{self as model, Note, file_id, keys};
use keep_store::NoteReads;
use keep_store::WatchedDir;

/// What one pass over a folder changed.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct SyncReport {
    pub added: Vec<String>,
    pub updated: Vec<String>,
    /// (old id, new id)
    pub moved: Vec<(String, String)>,
    pub deleted: Vec<String>,
    pub failed: Vec<Failure>,
    pub notices: Vec<Notice>,
}

impl SyncReport {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.updated.is_empty()
            && self.moved.is_empty()
            && self.deleted.is_empty()
            && self.failed.is_empty()
    }
}

/// A file as seen on disk: its id, size and modification time (ms).
struct Seen {
    path: PathBuf,
    id: String,
    size: i64,
    mtime: i64,
}

impl Keeper {
    /// Registers `dir` (made absolute and canonical) for watching.
    pub fn add_watch(
        &mut self,
        dir: &Path,
        recursive: bool,
        excludes: &[String],
    ) -> Result<WatchedDir> {
        self.caller.must_own("watch")?;
        let dir = absolute(dir)?;
        let dir = dir.canonicalize().map_err(|e| Error::io(&dir, e))?;
        if !dir.is_dir() {
            return Err(Error::invalid(format!("{} is not a folder", dir.display())));
        }
        let watched = WatchedDir {
            dir: dir.to_string_lossy().into_owned(),
            recursive,
            excludes: excludes.to_vec(),
        };
        let now = self.now().millis();
        self.store.transact(|db| Ok(db.add_watch(&watched, now)?))?;
        Ok(watched)
    }

    /// Stops watching `dir`; its notes stay. False when it was not watched.
    pub fn remove_watch(&mut self, dir: &Path) -> Result<bool> {
        self.caller.must_own("unwatch")?;
        let dir = absolute(dir)?;
        let canonical = dir.canonicalize().unwrap_or(dir.clone());
        self.store.transact(|db| {
            Ok(db.remove_watch(&canonical.to_string_lossy())?
                || db.remove_watch(&dir.to_string_lossy())?)
        })
    }

    pub fn watches(&self) -> Result<Vec<WatchedDir>> {
        Ok(self.store.db().watches()?)
    }

    /// Brings the store in line with folder `w`: everything in it when
    /// `touched` is None, else only the given paths (files or folders).
    /// A folder that is not there changes nothing and is an error.
    pub fn sync_folder(
        &mut self,
        w: &WatchedDir,
        touched: Option<&[PathBuf]>,
    ) -> Result<SyncReport> {
        let dir = PathBuf::from(&w.dir);
        if !dir.is_dir() {
            return Err(Error::WatchedFolderMissing { dir: w.dir.clone() });
        }
        let walk_opts = WalkOptions {
            recursive: w.recursive,
            excludes: w.excludes.clone(),
            ..WalkOptions::default()
        };
        let walked = walk::walk(&dir, &walk_opts)?;
        let mut report = SyncReport::default();
        let present: BTreeSet<PathBuf> = walked.files.into_iter().collect();
        let (files, ids) = self.candidates(&dir, w.recursive, &present, touched)?;
        let mut changed: Vec<Seen> = Vec::new();
        for path in files {
            let Some(seen) = seen(&path) else { continue };
            let db = self.store.db();
            let note = db.note(&seen.id)?.map(|(_, n)| n);
            let same = db.file_state(&seen.id)? == Some((seen.size, seen.mtime));
            if !same
                || note
                    .as_ref()
                    .is_none_or(|n| n.tags.contains_key(keys::DELETED))
            {
                changed.push(seen);
            }
        }
        let mut gone: Vec<Note> = Vec::new();
        for id in ids {
            let Some(path) = model::path_of_file_id(&id) else {
                continue;
            };
            if present.contains(&path) || path.exists() {
                continue;
            }
            if let Some((_, n)) = self.store.db().note(&id)?
                && !n.tags.contains_key(keys::DELETED)
            {
                gone.push(n);
            }
        }
        self.apply_renames(&mut changed, &mut gone, &mut report)?;
        self.ingest_changed(&changed, &mut report)?;
        // A folder that went away during the pass took its files with it:
        // they are not deleted, the folder is missing.
        if !gone.is_empty() && !dir.is_dir() {
            return Err(Error::WatchedFolderMissing { dir: w.dir.clone() });
        }
        self.mark_deleted(&gone, &mut report)?;
        Ok(report)
    }

    /// Files and note ids a pass looks at.
    fn candidates(
        &self,
        dir: &Path,
        recursive: bool,
        present: &BTreeSet<PathBuf>,
        touched: Option<&[PathBuf]>,
    ) -> Result<(Vec<PathBuf>, BTreeSet<String>)> {
        let db = self.store.db();
        let in_scope = |id: &str| {
            recursive
                || id
                    .strip_prefix(&format!("{}/", file_id(dir)))
                    .is_some_and(|rest| !rest.contains('/'))
        };
        let mut ids = BTreeSet::new();
        let files: Vec<PathBuf> = match touched {
            None => {
                ids.extend(db.ids_starting_with(&format!("{}/", file_id(dir)), None)?);
                present.iter().cloned().collect()
            }
            Some(paths) => {
                let mut files = BTreeSet::new();
                for p in paths {
                    files.extend(present.iter().filter(|f| f.starts_with(p)).cloned());
                    ids.insert(file_id(p));
                    ids.extend(db.ids_starting_with(&format!("{}/", file_id(p)), None)?);
                }
                files.into_iter().collect()
            }
        };
        ids.retain(|id| in_scope(id));
        Ok((files, ids))
    }

    /// A new file with exactly the content of a vanished one takes over
    /// its note (and history).
    fn apply_renames(
        &mut self,
        changed: &mut Vec<Seen>,
        gone: &mut Vec<Note>,
        report: &mut SyncReport,
    ) -> Result<()> {
        if gone.is_empty() {
            return Ok(());
        }
        let mut by_hash: HashMap<String, usize> = HashMap::new();
        for (i, n) in gone.iter().enumerate() {
            if let Some(h) = &n.content_hash {
                by_hash.entry(h.clone()).or_insert(i);
            }
        }
        let mut taken = vec![false; gone.len()];
        let mut kept = Vec::new();
        for seen in changed.drain(..) {
            let is_new = self.store.db().note_rid(&seen.id)?.is_none();
            let hash = if is_new { file_hash(&seen.path) } else { None };
            match hash
                .and_then(|h| by_hash.get(&h).copied())
                .filter(|&i| !taken[i])
            {
                Some(i) => {
                    taken[i] = true;
                    let old = gone[i].id.clone();
                    self.store.transact(|db| {
                        let rid = db
                            .note_rid(&old)?
                            .ok_or_else(|| Error::NotFound(old.clone()))?;
                        db.rename_note(rid, &seen.id)?;
                        db.forget_file_state(&old)?;
                        Ok(db.set_file_state(&seen.id, seen.size, seen.mtime)?)
                    })?;
                    report.moved.push((old, seen.id.clone()));
                }
                None => kept.push(seen),
            }
        }
        *changed = kept;
        let mut i = 0;
        gone.retain(|_| {
            i += 1;
            !taken[i - 1]
        });
        Ok(())
    }

    fn ingest_changed(&mut self, changed: &[Seen], report: &mut SyncReport) -> Result<()> {
        if changed.is_empty() {
            return Ok(());
        }
        let targets: Vec<Target> = changed
            .iter()
            .map(|s| Target::Path(s.path.clone()))
            .collect();
        let opts = IngestOptions {
            defer_embedding: true,
            ..IngestOptions::default()
        };
        let result = self.ingest(&targets, &opts, &mut |_| {})?;
        let failed: BTreeSet<&str> = result.failed.iter().map(|f| f.path.as_str()).collect();
        self.store.transact(|db| {
            for s in changed {
                if !failed.contains(s.path.to_string_lossy().as_ref()) {
                    db.set_file_state(&s.id, s.size, s.mtime)?;
                }
            }
            Ok(())
        })?;
        report.added.extend(result.added);
        report.updated.extend(result.updated);
        report.failed.extend(result.failed);
        report.notices.extend(result.notices);
        Ok(())
    }

    /// Tags notes whose files are gone with `_deleted` (a new version).
    fn mark_deleted(&mut self, gone: &[Note], report: &mut SyncReport) -> Result<()> {
        let now = self.now();
        for old in gone {
            self.store.transact(|db| {
                let Some((rid, current)) = db.note(&old.id)? else {
                    return Ok(());
                };
                let mut next = current.clone();
                next.tags.insert(keys::DELETED, now.to_string());
                next.tags
                    .insert(keys::DELETED_REASON, "its file was deleted");
                next.updated = now;
                write_state(db, Some(&(rid, current)), &next, now)?;
                Ok(db.forget_file_state(&old.id)?)
            })?;
            report.deleted.push(old.id.clone());
        }
        Ok(())
    }
}

fn seen(path: &Path) -> Option<Seen> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64);
    Some(Seen {
        path: path.to_path_buf(),
        id: file_id(path),
        size: meta.len() as i64,
        mtime,
    })
}

fn file_hash(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > keep_ingest::MAX_FILE_BYTES {
        return None;
    }
    std::fs::read(path).ok().map(|b| model::content_hash(&b))
}
