//! Every trait of a store handle, for `use keep_store::prelude::*`.

pub use crate::backend::{Backend, NoteWrites, Upkeep, Vectors};
pub use crate::embedded::Embedded;
pub use crate::keyword::{Keyword, TextSearch};
pub use crate::plain::{PlainQueries, Sql};
pub use crate::reads::NoteReads;
pub use crate::tables::{
    Edges, History, Meta, NoteRows, OperationsLog, Ratings, Residue, Tokens, Waiting, Watches,
};
