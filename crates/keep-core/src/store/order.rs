//! The order of a listing, written once for every backend: a date newest
//! first then the id, which both dialects spell alike and both back with an
//! index in exactly that order (migrations `listing_order`), so the first
//! page stops after its rows.

use crate::model::ListOrder;

/// The `ORDER BY` clause of a listing of notes aliased `n`.
pub(super) fn order_by(order: ListOrder) -> &'static str {
    match order {
        ListOrder::Updated => " ORDER BY n.updated DESC, n.id",
        ListOrder::Accessed => " ORDER BY n.accessed DESC, n.id",
        ListOrder::Created => " ORDER BY n.created DESC, n.id",
        ListOrder::Id => " ORDER BY n.id",
    }
}
