//! The `keep` front ends over `keep_core::Keeper`: the command line
//! (`cli`, with `cli::server`, the side of `keep serve` that runs commands
//! for clients: the store socket, the JSON API, health), the full-screen
//! browser (`tui`), the MCP server (`mcp`), the folder watcher (`watch`)
//! and the entries that give MCP clients keep (`connect`), with the settings resolved once (`config`) and
//! one rendering layer they share (`render`).

pub mod cli;
pub mod config;
pub mod connect;
pub mod mcp;
pub mod render;
pub mod tui;
pub mod watch;
