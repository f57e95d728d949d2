//! The meta keys that name a kind's vector index files: its graph and
//! the signs of its codes. The graph and the signs each write their own,
//! and both are cleared together, so they are named in one place.

use crate::vectors::VecKind;

/// The meta key naming the graph of a kind.
pub(super) fn graph_key(kind: VecKind) -> String {
    format!("graph_{}", kind.code_table())
}

/// The meta key naming the signs file of a kind.
pub(super) fn signs_key(kind: VecKind) -> String {
    format!("signs_{}", kind.code_table())
}

/// The meta keys of every kind's graph and signs.
pub(super) fn all() -> Vec<String> {
    VecKind::ALL
        .into_iter()
        .flat_map(|kind| [graph_key(kind), signs_key(kind)])
        .collect()
}
