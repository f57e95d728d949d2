//! The rows (notes, versions, parts) whose text waits for a vector, in the current space and the next.
//! Written once for every database, in plain SQL (`Sql`).

use crate::error::Result;
use crate::plain::Sql;
use crate::vectors::{
    PendingText, count_where, next_pending_condition, pending_condition, texts_where,
};

/// The temporary table of the notes a scoped embedding works on; both
/// databases find a temporary table by its bare name.
pub(crate) const PENDING_SCOPE: &str = "pending_scope";

/// The rows (notes, versions, parts) whose text waits for a vector, in the current space and the next.
pub trait Waiting: Sql {
    /// Rows with text and no vector, notes first; only of the notes of
    /// `set_pending_scope` when `scoped`.
    fn pending_texts_in(&self, limit: usize, scoped: bool) -> Result<Vec<PendingText>> {
        texts_where(self, limit, |kind| {
            pending_condition(kind, scoped.then_some(PENDING_SCOPE))
        })
    }

    fn count_pending(&self) -> Result<i64> {
        self.count_pending_in(false)
    }

    fn count_pending_in(&self, scoped: bool) -> Result<i64> {
        count_where(self, |kind| {
            pending_condition(kind, scoped.then_some(PENDING_SCOPE))
        })
    }

    /// Rows with a vector of the store's space and none of the next one.
    fn next_pending_texts(&self, limit: usize) -> Result<Vec<PendingText>> {
        texts_where(self, limit, next_pending_condition)
    }

    fn count_next_pending(&self) -> Result<i64> {
        count_where(self, next_pending_condition)
    }
}

impl<T: Sql + ?Sized> Waiting for T {}
