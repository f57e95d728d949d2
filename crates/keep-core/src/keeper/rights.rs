//! The caller's rights, checked where a request reaches the notes: what
//! a caller outside a note's scope asks of it answers as if the note did
//! not exist, a write to an id held outside the scope is refused without
//! a word of that note, and a read-only caller writes nothing.

use super::Keeper;
use crate::caller::Caller;
use crate::error::{Error, Result};
use keep_model::{Note, NoteFilter};
use keep_store::NoteReads;

impl Keeper {
    /// Who asks from now on (one request's caller): every read and write
    /// after this is held to its rights. A keeper opens as the owner's.
    pub fn set_caller(&mut self, caller: Caller) {
        self.caller = caller;
    }

    /// Who asks now.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// Note `id`, current state, read past the caller's scope: for the
    /// checks themselves.
    fn note_unscoped(&self, id: &str) -> Result<Option<Note>> {
        Ok(self.store.reads().note(id)?.map(|(_, n)| n))
    }

    /// Whether the caller may see note `id` (a note that does not exist
    /// is seen by no one).
    pub(super) fn sees(&self, id: &str) -> Result<bool> {
        Ok(self
            .note_unscoped(id)?
            .is_some_and(|n| self.caller.covers(&n.tags)))
    }

    /// Fails as for a missing note when note `id` lies outside the
    /// caller's scope; a note that does not exist passes, for the
    /// command to say so its own way.
    pub(super) fn may_read(&self, id: &str) -> Result<()> {
        if self.caller.sees_everything() {
            return Ok(());
        }
        match self.note_unscoped(id)? {
            Some(note) if !self.caller.covers(&note.tags) => Err(Error::NotFound(id.to_string())),
            _ => Ok(()),
        }
    }

    /// `may_read`, for a caller that may write (`what` names the write).
    pub(super) fn may_change(&self, id: &str, what: &str) -> Result<()> {
        self.caller.may_write(what)?;
        self.may_read(id)
    }

    /// `filter` narrowed to the caller's scope.
    pub(super) fn within_scope(&self, filter: &mut NoteFilter) {
        filter.tags.extend(self.caller.filters());
    }

    /// Ids among `ids` the caller may see.
    pub(super) fn seen_ids(&self, ids: Vec<String>) -> Result<Vec<String>> {
        if self.caller.sees_everything() {
            return Ok(ids);
        }
        let mut seen = Vec::with_capacity(ids.len());
        for id in ids {
            if self.sees(&id)? {
                seen.push(id);
            }
        }
        Ok(seen)
    }
}
