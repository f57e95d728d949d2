//! The upkeep of a SQLite store's indexes: the vector indexes of a large
//! store's vectors (where they stand, whether a refresh is due, the
//! refresh itself) and the merging of its word indexes, run by `keep
//! reindex` and by whichever process drains the store's backlog.

use super::Keeper;
use crate::error::Result;
use keep_store::{
    GraphBuild, GraphSizes, GraphState, GraphWork, TextIndexState, TextMerge, VecKind,
};

impl Keeper {
    /// Where the index of each kind of vector stands (none on PostgreSQL,
    /// whose HNSW indexes the server keeps).
    pub fn vector_graphs(&self) -> Result<Vec<GraphState>> {
        Ok(self.store.graph_states(self.settings.vector_index_from)?)
    }

    /// Whether an index is missing, out of date or no longer wanted.
    pub fn vector_graphs_due(&self) -> Result<bool> {
        Ok(self.vector_graphs()?.iter().any(|g| g.due))
    }

    /// How far the refresh of the graphs another process runs now
    /// stands; None when none runs.
    pub fn vector_graph_build(&self) -> Result<Option<GraphBuild>> {
        Ok(self.store.graph_build()?)
    }

    /// Brings every kind's graph up to date on `threads` threads;
    /// `progress(kind, done, total)` hears each row added and stops the
    /// work by answering false (what is done so far is not kept). While
    /// another process refreshes them, `waiting` hears how far it stands
    /// and waits for it by answering true, or leaves the work to it; a
    /// graph is never built by two processes at once.
    pub fn refresh_vector_graphs(
        &mut self,
        threads: usize,
        progress: &mut dyn FnMut(VecKind, usize, usize) -> bool,
        waiting: &mut dyn FnMut(&GraphBuild) -> bool,
    ) -> Result<Vec<(VecKind, GraphWork)>> {
        let sizes = GraphSizes::from(self.settings.vector_index_from);
        Ok(self
            .store
            .refresh_graphs(sizes, threads, progress, waiting)?)
    }

    /// The word indexes due a merge, with the segments each holds.
    pub fn text_indexes_due(&self) -> Result<Vec<TextIndexState>> {
        Ok(self.store.text_indexes_due()?)
    }

    /// Merges each word index that is due into one segment;
    /// `progress(index, pages done, pages)` hears each slice and stops
    /// the merge by answering false (what is merged so far is kept).
    pub fn merge_text_indexes(
        &mut self,
        progress: &mut dyn FnMut(&str, usize, usize) -> bool,
    ) -> Result<TextMerge> {
        Ok(self.store.merge_text_indexes(progress)?)
    }
}
