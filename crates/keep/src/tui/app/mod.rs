//! The browser's state and its pure update, each part in its file:
//! `state` (what is on screen, and the messages and effects exchanged with
//! the runner), `update` (a message in: the state changed, the effects
//! out, and whether the screen must be drawn again), `keys` (what each key
//! and mouse event does in each mode), `nav` (selecting, paging and
//! searching, which both use) and `reader` (the preview's cursor).
//! No IO happens here.

mod keys;
mod nav;
mod reader;
mod state;
mod update;

pub use keys::complete;
use keys::{on_note_key, step_version};
use nav::search;
pub use state::*;
pub use update::update;
