//! The vocabulary of keep, below every other crate: notes, ids, tags and
//! system tag keys, the `@V{N}` / `@P{N}` selectors, the states of a note,
//! filters and orders of listings, time, the words that carry no topic,
//! and the settings a front end resolves once and hands down.

mod change;
pub mod dates;
pub mod error;
mod filter;
mod id;
pub mod keys;
mod note;
pub mod secrets;
mod selector;
pub mod settings;
pub mod size;
mod stopwords;
mod tags;
pub mod time;

pub use change::{Change, StateRef};
pub use error::Invalid;
pub use filter::{Expired, ListKey, ListOrder, NoteFilter, PageFrom, Period};
pub use id::{
    MAX_ID_BYTES, NOW_ID, content_hash, file_id, inline_id, is_system_id, lexically_normal,
    path_of_file_id, percent_decode, percent_decode_bytes, printable, scoped_inline_id,
    validate_id,
};
pub use keys::is_system_key;
pub use note::{Edge, Note, Part, Rating, Version};
pub use selector::{NoteRef, Selector};
pub use settings::{ModelSettings, Provider, Providers, Replicas, Settings, WorkerCommand};
pub use stopwords::is_stopword;
pub use tags::{
    MAX_TAG_KEY_BYTES, MAX_TAG_VALUE_BYTES, TagFilter, Tags, parse_user_tag, parse_user_tags,
    validate_tag_key,
};
pub use time::{Clock, Timestamp, wall_ms};
