//! Integration tests: the real `keep` binary in a hermetic environment
//! (temporary store and home, cleared KEEP_* variables, fixed clock).

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

mod backend;
mod backlog;
mod browser;
mod budget;
mod common;
mod completions;
mod connect;
mod context;
mod docs;
mod edges;
mod errors;
mod export;
mod faults;
mod figures;
mod find;
mod hooks;
mod ingest;
mod json_shapes;
mod list;
mod log;
mod mcp;
mod models;
mod no_surprises;
mod now_move;
mod pg_tls;
mod pipelines;
mod provenance;
mod providers;
mod put_get;
mod real_documents;
mod recall;
mod reliability;
mod replicas;
mod rights;
mod secrets;
mod serve;
mod tag_del_revert;
mod time;
mod tour;
mod transcripts;
mod troubleshooting;
mod truth;
mod tui;
mod upgrades;
mod vector_index;
mod watch;
mod web;
