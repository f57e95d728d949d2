//! What the browser holds of notes: a line of the note list and what the
//! preview pane shows of one note.

/// One line of the note list.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub id: String,
    /// The note's `title` tag, shown instead of the id when there is one.
    pub title: Option<String>,
    /// `YYYY-MM-DD HH:MM` of the last update.
    pub date: String,
    pub line: String,
    /// User tags, `key=value` joined by spaces.
    pub tags: String,
    /// For search hits: why it was found (`kw 2 · sem 1`, `via author`).
    pub why: Option<String>,
}

/// What the preview pane shows of the selected note.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Preview {
    pub id: String,
    pub title: Option<String>,
    /// 0 for the current state, N for `@V{N}`.
    pub version: i64,
    /// How many archived versions the note has.
    pub versions: i64,
    pub summary: String,
    /// The current summary, when an archived version is shown.
    pub current: Option<String>,
    /// For an archived version: user tags (`key=value`) the current
    /// version has and it has not, and the reverse.
    pub tags_added: Vec<String>,
    pub tags_removed: Vec<String>,
    pub date: String,
    pub tags: Vec<(String, String)>,
    /// `(label, target id)`: outgoing edges then incoming ones.
    pub edges: Vec<(String, String)>,
    /// `(N, date, what changed)` of archived versions, newest first: the
    /// first line, or the tags changed when only tags did.
    pub history: Vec<(i64, String, String)>,
    /// The parts' summaries, in order; shared, so that copying the state
    /// at each key does not copy a long document.
    pub parts: std::sync::Arc<Vec<String>>,
    /// What `o` opens: the file or URL the note came from.
    pub source: Option<String>,
    /// Filled on request with `S`.
    pub similar: Option<Vec<Row>>,
}
