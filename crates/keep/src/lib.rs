//! The `keep` front ends over `keep_core::Keeper`: the command line
//! (`cli`, with `cli::server`, the side of `keep serve` that runs commands
//! for clients: the store socket, the JSON API, health), the full-screen
//! browser (`tui`), the MCP server (`mcp`) and the folder watcher
//! (`watch`), with the settings resolved once (`config`) and
//! one rendering layer they share (`render`).

pub mod cli;
pub mod config;
pub mod mcp;
pub mod render;
pub mod tui;
pub mod watch;
