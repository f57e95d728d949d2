//! The order of a listing, written once for every backend: a date newest
//! first then the id, which both dialects spell alike and both back with an
//! index in exactly that order (migrations `listing_order`), so a page
//! stops after its rows; a page after or before a note's place starts at
//! that place in the index (keyset paging), never by skipping rows.

use super::plain::Query;
use keep_model::{ListKey, ListOrder, PageFrom};

/// The date column an order sorts by first, if any.
fn date_column(order: ListOrder) -> Option<&'static str> {
    match order {
        ListOrder::Updated => Some("n.updated"),
        ListOrder::Accessed => Some("n.accessed"),
        ListOrder::Created => Some("n.created"),
        ListOrder::Id => None,
    }
}

/// The `ORDER BY` clause of a listing of notes aliased `n`, or of the same
/// listing read backwards (which the same index serves).
pub(super) fn order_by(order: ListOrder, backwards: bool) -> String {
    let (newest, id) = if backwards {
        ("ASC", "DESC")
    } else {
        ("DESC", "ASC")
    };
    match date_column(order) {
        Some(date) => format!(" ORDER BY {date} {newest}, n.id {id}"),
        None => format!(" ORDER BY n.id {id}"),
    }
}

/// The condition of the notes after (or before) `key` in `order`; the
/// date's range comes first so the index is entered at the key.
fn beyond(order: ListOrder, key: &ListKey, before: bool, q: &mut Query) -> String {
    let id = q.arg(key.id.as_str());
    let (older, newer_id) = if before { (">", "<") } else { ("<", ">") };
    match date_column(order) {
        Some(date) => {
            let at = q.arg(key.at);
            format!(" AND {date} {older}= {at} AND ({date} {older} {at} OR n.id {newer_id} {id})")
        }
        None => format!(" AND n.id {newer_id} {id}"),
    }
}

/// Adds the condition and order of a page of a listing beginning at
/// `from`; true when its rows come last first and are to be turned around.
pub(super) fn push_page(order: ListOrder, from: &PageFrom, q: &mut Query) -> bool {
    let condition = match from {
        PageFrom::After(key) => beyond(order, key, false, q),
        PageFrom::Before(key) => beyond(order, key, true, q),
        PageFrom::First | PageFrom::Last => String::new(),
    };
    let backwards = matches!(from, PageFrom::Last | PageFrom::Before(_));
    q.push(&condition);
    q.push(&order_by(order, backwards));
    backwards
}
