//! The `keep` front ends over `keep_core::Keeper` and the typed commands
//! of `keep_commands`: the command line (`cli`, with `cli::warm`, the
//! store's socket that a running server answers it on), the server of
//! `keep serve` (`server`: HTTP, tokens and sign-in, MCP over HTTP, the
//! JSON API, the web page), the full-screen browser (`tui`), the MCP
//! server (`mcp`), the folder watcher (`watch`) and the entries that give
//! MCP clients keep (`connect`), with the settings resolved once
//! (`config`) and one rendering layer they share (`render`).

pub mod cli;
pub mod config;
pub mod connect;
pub mod logging;
pub mod mcp;
pub mod render;
pub mod server;
pub mod tui;
pub mod watch;
