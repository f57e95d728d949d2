//! The trash: a deleted note keeps its text, tags and history, tagged
//! `_deleted` with the time (and `_deleted_reason`), out of listings and
//! recall, until `restore` brings it back or it has been there longer than
//! the configured time and a later delete removes it for good.

use super::Keeper;
use super::write::{Deleted, WriteOutcome, write_state};
use crate::error::{Advice, Error, Result, Transactions};
use keep_model::{ListOrder, NoteFilter, PageFrom, TagFilter, keys};
use keep_store::NoteReads;

/// A day in milliseconds.
const DAY_MS: f64 = 86_400_000.0;

impl Keeper {
    /// Puts note `id` in the trash, as a new version.
    pub(super) fn trash(&mut self, id: &str, reason: Option<&str>) -> Result<Deleted> {
        let now = self.now();
        // One line, as listings and the log show it.
        let reason = reason
            .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|r| !r.is_empty());
        self.store.transact(|db| {
            let (rid, current) = db.note(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
            if current.tags.contains_key(keys::DELETED) {
                return Err(Error::Refused {
                    message: format!("'{id}' is already in the trash"),
                    advice: Advice::PurgeFromTrash(id.to_string()),
                });
            }
            let mut next = current.clone();
            next.tags.insert(keys::DELETED, now.to_string());
            if let Some(reason) = &reason {
                next.tags.insert(keys::DELETED_REASON, reason.as_str());
            }
            next.updated = now;
            write_state(db, Some(&(rid, current)), &next, now)?;
            Ok(Deleted::Trashed {
                id: id.to_string(),
                reason: reason.clone(),
            })
        })
    }

    /// Takes note `id` out of the trash, as a new version.
    pub fn restore(&mut self, id: &str) -> Result<WriteOutcome> {
        self.may_change(id, "restore")?;
        let now = self.now();
        self.store.transact(|db| {
            let (rid, current) = db.note(id)?.ok_or_else(|| Error::NotFound(id.into()))?;
            if !current.tags.contains_key(keys::DELETED) {
                return Err(Error::invalid(format!("'{id}' is not in the trash")));
            }
            let mut next = current.clone();
            next.tags.remove_key(keys::DELETED);
            next.tags.remove_key(keys::DELETED_REASON);
            next.updated = now;
            let status = write_state(db, Some(&(rid, current)), &next, now)?;
            Ok(WriteOutcome::plain(id.to_string(), status))
        })
    }

    /// The notes in the trash: a filter for `list`.
    pub fn trash_filter() -> TagFilter {
        TagFilter {
            key: keys::DELETED.into(),
            value: None,
        }
    }

    /// Removes for good the notes in the trash longer than the configured
    /// time; returns how many.
    pub fn purge_old_trash(&mut self) -> Result<usize> {
        let now = self.now();
        let cutoff = now.millis() - (self.settings.trash_days * DAY_MS) as i64;
        let filter = NoteFilter {
            tags: vec![Self::trash_filter()],
            include_system: true,
            ..NoteFilter::default()
        };
        let old: Vec<String> = self
            .store
            .db()
            .list_notes_from(&filter, ListOrder::default(), &PageFrom::First, None)?
            .into_iter()
            .filter(|n| {
                n.tags
                    .first(keys::DELETED)
                    .and_then(|t| keep_model::Timestamp::parse_rfc3339(t).ok())
                    .is_some_and(|t| t.millis() <= cutoff)
            })
            .map(|n| n.id)
            .collect();
        if old.is_empty() {
            return Ok(0);
        }
        self.store.purge_for_good(|db| {
            for id in &old {
                if let Some((rid, note)) = db.note(id)? {
                    let since = note.tags.first(keys::DELETED).unwrap_or_default();
                    let detail = format!("in the trash since {since}");
                    super::forget::remove_for_good(db, rid, &note, now, &detail)?;
                }
            }
            Ok::<_, Error>(())
        })?;
        Ok(old.len())
    }
}
