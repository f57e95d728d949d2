//! The browser's state: what is on screen (the list, search results, the
//! preview, the mode, messages) and the messages and effects that pass
//! between it and the runner.

use crossterm::event::{KeyEvent, MouseEvent};
use ratatui::layout::Rect;
use std::collections::BTreeSet;

use crate::tui::layout::{Areas, layout};
pub use crate::tui::note::{Preview, Row};
use crate::tui::query::Query;
use keep_core::model::ListOrder;

/// Rows fetched per page of the note list.
pub const PAGE: usize = 200;
/// Results asked of a search.
pub const RESULTS: usize = 200;

/// Which pane keys go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    #[default]
    List,
    Preview,
}

/// What a line of typed input becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prompt {
    AddTags,
    RemoveTags,
    NewNote,
    SetNow,
    /// A file name to export the marked notes to.
    Export,
}

impl Prompt {
    pub fn label(self) -> &'static str {
        match self {
            Prompt::AddTags => "add tags (key=value …)",
            Prompt::RemoveTags => "remove tags (key or key=value …)",
            Prompt::NewNote => "new note",
            Prompt::SetNow => "now",
            Prompt::Export => "export to file",
        }
    }
}

/// An action that waits for `y`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirm {
    /// The notes to delete: the marked ones, or the selected one.
    Delete(Vec<String>),
    Revert(String),
}

/// How a search ranks: both methods fused, or one of them alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchMode {
    #[default]
    Hybrid,
    Keyword,
    Meaning,
}

impl SearchMode {
    pub fn name(self) -> &'static str {
        match self {
            SearchMode::Hybrid => "hybrid",
            SearchMode::Keyword => "keyword",
            SearchMode::Meaning => "meaning",
        }
    }

    pub(in crate::tui) fn next(self) -> SearchMode {
        match self {
            SearchMode::Hybrid => SearchMode::Keyword,
            SearchMode::Keyword => SearchMode::Meaning,
            SearchMode::Meaning => SearchMode::Hybrid,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Browse,
    /// Typing in the search bar.
    Search,
    Input {
        prompt: Prompt,
        text: String,
    },
    Confirm(Confirm),
    Help,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Info,
    Error,
}

/// The status line's facts, refreshed in the background.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Background {
    pub notes: usize,
    pub pending_embeddings: i64,
    /// `watcher pid N, 3 folders` when a watcher holds the lease.
    pub watcher: Option<String>,
}

/// Search results, newest generation only.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Results {
    pub generation: u64,
    pub rows: Vec<Row>,
    /// True once semantic candidates are merged in.
    pub semantic: bool,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct App {
    pub mode: Mode,
    pub focus: Focus,
    pub query: String,
    pub search_mode: SearchMode,
    pub order: ListOrder,
    /// Total notes of the browse list.
    pub total: usize,
    /// Index of `page[0]` in the browse list.
    pub page_start: usize,
    pub page: Vec<Row>,
    pub results: Option<Results>,
    /// Absolute index in the current list.
    pub selected: usize,
    /// First visible row.
    pub scroll: usize,
    /// Rows the list pane shows, set from the terminal size.
    pub visible: usize,
    /// Where the panes are, for mouse clicks; None on a screen too small.
    pub areas: Option<Areas>,
    pub preview: Option<Preview>,
    /// Set when the store changed: the next list answer loads the preview
    /// again even for the same note.
    pub preview_stale: bool,
    /// The highlighted line of the preview document (see `doc`).
    pub cursor: usize,
    /// The first preview line shown.
    pub preview_scroll: usize,
    /// Ids of marked notes: `t`, `x`, `D` and `E` act on all of them.
    pub marked: BTreeSet<String>,
    pub background: Background,
    pub message: Option<(String, Severity)>,
    /// Known `key` → values, for completion.
    pub catalog: Vec<(String, Vec<String>)>,
    /// Search generation: results of older ones are dropped.
    pub generation: u64,
    /// Which background workers are busy (quick, semantic).
    pub busy: [bool; 2],
    pub quit: bool,
    /// Set by `update` when the screen must be drawn again.
    pub dirty: bool,
}

/// What the runner reports back, and what the terminal sends.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Every second or so.
    Tick,
    Page {
        start: usize,
        total: usize,
        rows: Vec<Row>,
    },
    Results {
        generation: u64,
        rows: Vec<Row>,
        semantic: bool,
        notices: Vec<String>,
    },
    Preview(Box<Preview>),
    Similar {
        id: String,
        rows: Vec<Row>,
    },
    Catalog(Vec<(String, Vec<String>)>),
    Background {
        facts: Background,
        /// True when another process changed the store since last time.
        changed: bool,
    },
    /// An action finished; the text says what happened.
    Done(String),
    /// An effect failed; the app keeps running.
    Failed(String),
    /// A background worker started or finished a batch of work.
    Busy {
        worker: usize,
        busy: bool,
    },
    /// The editor closed; `None` when the text is unchanged.
    Edited {
        id: String,
        text: Option<String>,
    },
}

/// Work for the runner (or, for `Edit`, `Copy`, `Pager`, `Open` and
/// `Quit`, the terminal loop).
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    LoadPage {
        start: usize,
        order: ListOrder,
    },
    Search {
        generation: u64,
        query: Query,
        mode: SearchMode,
    },
    LoadPreview {
        id: String,
        version: i64,
    },
    LoadSimilar {
        id: String,
    },
    LoadCatalog,
    LoadBackground,
    AddTags {
        ids: Vec<String>,
        tags: Vec<String>,
    },
    RemoveTags {
        ids: Vec<String>,
        tags: Vec<String>,
    },
    Put {
        id: Option<String>,
        text: String,
    },
    SetSummary {
        id: String,
        text: String,
    },
    SetNow {
        text: String,
    },
    Delete {
        ids: Vec<String>,
    },
    /// Write the notes to a new file in the export format.
    Export {
        ids: Vec<String>,
        path: String,
    },
    Revert {
        id: String,
    },
    /// Suspend the screen and edit `text` in `$EDITOR`.
    Edit {
        id: String,
        text: String,
    },
    Copy(String),
    /// Suspend the screen and show `text` in `$PAGER`.
    Pager(String),
    /// Open a file or URL with the system's opener.
    Open(String),
    Quit,
}

/// The sort orders `s` cycles through.
pub const ORDERS: [ListOrder; 4] = [
    ListOrder::Updated,
    ListOrder::Created,
    ListOrder::Accessed,
    ListOrder::Id,
];

pub fn order_name(order: ListOrder) -> &'static str {
    match order {
        ListOrder::Updated => "updated",
        ListOrder::Created => "created",
        ListOrder::Accessed => "accessed",
        ListOrder::Id => "id",
    }
}

impl App {
    pub fn new(width: u16, height: u16) -> Self {
        let mut app = App::default();
        app.resize(width, height);
        app
    }

    /// Effects that fill the first screen.
    pub fn start(&mut self) -> Vec<Effect> {
        vec![
            Effect::LoadPage {
                start: 0,
                order: self.order,
            },
            Effect::LoadBackground,
            Effect::LoadCatalog,
        ]
    }

    /// Rows of the list now shown: search results or the browse list.
    pub fn len(&self) -> usize {
        match &self.results {
            Some(r) => r.rows.len(),
            None => self.total,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The row at absolute index `i`, when loaded.
    pub fn row(&self, i: usize) -> Option<&Row> {
        match &self.results {
            Some(r) => r.rows.get(i),
            None => i
                .checked_sub(self.page_start)
                .and_then(|j| self.page.get(j)),
        }
    }

    pub fn selected_id(&self) -> Option<&str> {
        self.row(self.selected).map(|r| r.id.as_str())
    }

    /// Takes the screen's layout: how many rows the list shows, and where
    /// it is for the mouse.
    pub(in crate::tui) fn resize(&mut self, width: u16, height: u16) {
        self.areas = layout(Rect::new(0, 0, width, height));
        self.visible = self
            .areas
            .map_or(1, |a| usize::from(a.list_rows().height))
            .max(1);
    }

    /// The notes an action applies to: the marked ones, else the selected.
    pub fn targets(&self) -> Vec<String> {
        if self.marked.is_empty() {
            self.selected_id().map(str::to_string).into_iter().collect()
        } else {
            self.marked.iter().cloned().collect()
        }
    }

    pub(in crate::tui) fn inform(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), Severity::Info));
    }

    pub(in crate::tui) fn fail(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), Severity::Error));
    }
}
