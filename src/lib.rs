//! keep: a local-first, reflective memory for people and agents.
//!
//! The core API is [`Keeper`]; the command line, the full-screen browser and
//! the MCP server are thin layers over it.

pub mod cli;
pub mod embed;
pub mod error;
pub mod ingest;
pub mod json;
pub mod keeper;
pub mod mcp;
pub mod note;
pub mod search;
pub mod store;
pub mod summarize;
pub mod time;
pub mod tui;
pub mod watch;

pub use error::{Error, Result};
pub use keeper::Keeper;
