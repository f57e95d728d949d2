//! One rendering layer for every front end: `text` for people (listings,
//! the frontmatter view, labels) and `json` for programs (one type per
//! shape, shared by `--json` and the MCP server).

pub mod json;
pub mod text;
