//! System tag keys: every `_`-prefixed key keep writes, in one place.
//! Users cannot set or remove these, with one exception (`_inverse`).

/// Where a note came from: `inline`, `file` or `url`.
pub const SOURCE: &str = "_source";
/// The media type of the note's content.
pub const CONTENT_TYPE: &str = "_content_type";
/// On a note created only as the target of an edge.
pub const STUB: &str = "_stub";
/// A document's link to another document (an edge whose target need not
/// be stored yet).
pub const LINKS_TO: &str = "links-to";
/// On a note whose text waits for OCR (its models were missing).
pub const OCR: &str = "_ocr";
/// On a part: the document's title and the headings the part sits under,
/// `Title > Section > Subsection`.
pub const SECTION: &str = "_section";
/// On a note in the trash (deleted with `del`, or its watched file was
/// deleted); the value is when.
pub const DELETED: &str = "_deleted";
/// How much a note matters, 1 to 5 (3 when unset): recall gives a
/// bounded boost or penalty (`weights::IMPORTANCE_MAX_BOOST`).
pub const IMPORTANCE: &str = "_importance";
/// Where the note's current text came from, for trust: `typed` by a
/// person (the command line, the browser), `agent` (text an MCP client or
/// the JSON API put), `document` (a file), `web` (a URL), `imported` (a
/// chat export, or a `keep export` file whose note did not say).
/// `_source` (which the duplicate verdict reads) stays beside it.
pub const ORIGIN: &str = "_origin";
/// The origins, in the order they are listed.
pub const ORIGINS: [&str; 5] = ["typed", "agent", "document", "web", "imported"];

/// The origin of text from `source` (`_source`) written by `author` (the
/// author part of `_agent`).
pub fn origin_of(source: Option<&str>, author: &str) -> &'static str {
    match source {
        Some("file") => "document",
        Some("url") => "web",
        Some("chat") => "imported",
        _ if matches!(author, "cli" | "browser") => "typed",
        _ => "agent",
    }
}

/// The kinds of secret replaced by a marker in the note's current
/// state (`aws-access-key`, `password`, ...): see `secrets`.
pub const REDACTED: &str = "_redacted";
/// Who wrote the note's current version: `cli`, `browser`, `watch`,
/// `api`, an MCP client's `name/version`, or `keep` for its own work.
/// Each archived version keeps its own; `keep log` has every write.
pub const AGENT: &str = "_agent";
/// Why a note was put in the trash, when the deleter said.
pub const DELETED_REASON: &str = "_deleted_reason";
/// When a note stops being true (RFC 3339, UTC); from then on it leaves
/// `find`, `list` and recall, but stays in `get`, `list -a` and exports.
pub const EXPIRES: &str = "_expires";
/// The days a note's text speaks of ("yesterday", "last Tuesday", "in
/// two weeks", "2023-05-07"), resolved against when the note's state
/// began, as `YYYY-MM-DD` (the first day of a week, month or year spoken
/// of). Event-time filters match them beside the note's own time.
pub const DATES: &str = "_dates";
/// On a part that is a turn of a conversation: when it was said (RFC
/// 3339, UTC). Its speaker is the user tag `speaker`.
pub const SAID_AT: &str = "_at";
/// The edge a note makes to the note it replaces (`supersedes=ID`); the
/// target is hidden from recall unless asked for. A user key, not `_`.
pub const SUPERSEDES: &str = "supersedes";
/// Edge from a reply to the message it answers; recall credits a reply's
/// match to that message.
pub const IN_REPLY_TO: &str = "in-reply-to";
/// The edge a probable update makes to the note it probably replaces
/// (`may-supersede=ID`), set by `put`; `supersede` turns it into
/// `supersedes`. A user key, so removing it dismisses the suggestion.
pub const MAY_SUPERSEDE: &str = "may-supersede";
/// Work a provider owes a note: `pending` while queued, `failed: REASON`
/// when the model's answer could not be used (the note keeps what it
/// had). `_summarize` asks for a language model's summary, `_transcribe`
/// for the transcript of an audio file.
pub const SUMMARIZE: &str = "_summarize";
pub const TRANSCRIBE: &str = "_transcribe";
/// The model that wrote a note's summary, its transcript, or its parts.
pub const SUMMARY_MODEL: &str = "_summary_model";
pub const TRANSCRIPT_MODEL: &str = "_transcript_model";
pub const PARTS_MODEL: &str = "_parts_model";
/// On a part a model chose: what the model says the part is about.
pub const PART_SUMMARY: &str = "_part_summary";
/// The one system tag a user may write: `_inverse` on a `.tag/KEY` note,
/// which declares KEY an edge and names its inverse.
pub const INVERSE: &str = "_inverse";

/// Keys starting with `_` belong to keep.
pub fn is_system_key(key: &str) -> bool {
    key.starts_with('_')
}
