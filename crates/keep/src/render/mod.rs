//! One rendering layer for every front end: `text` for people (listings,
//! the frontmatter view, labels), `json` for programs (one type per
//! shape, shared by `--json` and the MCP server), and `advice`: what
//! would put a problem right, in the words of each front end.

pub mod advice;
pub use keep_commands::budget;
pub use keep_commands::shapes as json;
pub mod text;
