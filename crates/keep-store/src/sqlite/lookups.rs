//! The nearest notes among those passing a filter, from their int8 codes.

use super::SqliteDb;
use crate::error::Result;
use crate::vectors::Nearest;
use crate::{NoteReads, VecKind};
use keep_model::NoteFilter;

impl SqliteDb<'_> {
    /// Cosine distances to the notes passing `filter`, nearest first.
    pub fn nearest_passing(&self, query: &[f32], filter: &NoteFilter, k: usize) -> Result<Nearest> {
        let rids = self.rids_passing(filter)?;
        self.nearest_among(VecKind::Note, query, &rids, k)
    }
}
