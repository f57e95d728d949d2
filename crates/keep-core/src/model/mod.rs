//! The note model: ids, tags and system tag keys, the `@V{N}` / `@P{N}`
//! selectors, the states of a note, filters and orders of listings, and
//! time.

mod change;
mod filter;
mod id;
pub mod keys;
mod note;
mod selector;
mod tags;
pub mod time;

pub use change::{Change, StateRef};
pub use filter::{Expired, ListKey, ListOrder, NoteFilter, PageFrom};
pub use id::{
    MAX_ID_BYTES, NOW_ID, content_hash, file_id, inline_id, is_system_id, lexically_normal,
    path_of_file_id, percent_decode, percent_decode_bytes, printable, validate_id,
};
pub use keys::is_system_key;
pub use note::{Edge, Note, Part, Rating, Version};
pub use selector::{NoteRef, Selector};
pub use tags::{
    MAX_TAG_KEY_BYTES, MAX_TAG_VALUE_BYTES, TagFilter, Tags, parse_user_tag, parse_user_tags,
    validate_tag_key,
};
pub use time::{Clock, Timestamp};
