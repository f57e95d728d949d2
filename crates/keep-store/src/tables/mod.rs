//! The operations written once for every database, one trait per family
//! of tables, each over plain SQL (`Sql`) and so available on any store
//! handle: a note's row, its history, edges and tag lookups, the store's
//! settings and vector spaces, rows waiting for a vector, ratings, watched
//! folders and leases, the operations log, the tokens of `keep serve`, and
//! where a string is left in any of them.

mod edges;
mod history;
mod log;
mod meta;
mod notes;
mod ratings;
mod residue;
mod tokens;
mod waiting;
mod watches;

pub use edges::Edges;
pub use history::History;
pub use log::OperationsLog;
pub use meta::Meta;
pub use notes::NoteRows;
pub use ratings::Ratings;
pub use residue::Residue;
pub use tokens::Tokens;
pub use waiting::Waiting;
pub use watches::Watches;
