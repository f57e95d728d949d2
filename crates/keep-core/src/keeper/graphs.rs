//! The upkeep of a SQLite store's indexes: the graph indexes of a large
//! store's vectors (where they stand, whether a refresh is due, the
//! refresh itself) and the merging of its word indexes, run by `keep
//! reindex` and by whichever process drains the store's backlog.

use super::Keeper;
use crate::error::Result;
use keep_store::{GraphState, GraphWork, TextIndexState, TextMerge, VecKind};

impl Keeper {
    /// Where the graph of each kind of vector stands (none on PostgreSQL,
    /// whose HNSW indexes the server keeps).
    pub fn vector_graphs(&self) -> Result<Vec<GraphState>> {
        Ok(self.store.graph_states(self.settings.vector_index_from)?)
    }

    /// Whether a graph is missing, out of date or no longer wanted.
    pub fn vector_graphs_due(&self) -> Result<bool> {
        Ok(self.vector_graphs()?.iter().any(|g| g.due))
    }

    /// Whether another process is refreshing the graphs now.
    pub fn vector_graphs_refreshing(&self) -> Result<bool> {
        Ok(self.store.graph_refresh_running()?)
    }

    /// Brings every kind's graph up to date on `threads` threads;
    /// `progress(kind, done, total)` hears each row added and stops the
    /// work by answering false (what is done so far is not kept).
    pub fn refresh_vector_graphs(
        &mut self,
        threads: usize,
        progress: &mut dyn FnMut(VecKind, usize, usize) -> bool,
    ) -> Result<Vec<(VecKind, GraphWork)>> {
        let from = self.settings.vector_index_from;
        Ok(self.store.refresh_graphs(from, threads, progress)?)
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
