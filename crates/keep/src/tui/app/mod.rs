//! The browser's state and its pure `update`: a message in, the state
//! changed and a list of effects out. No IO happens here.

use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use ratatui::layout::Rect;

use std::collections::BTreeSet;

use super::layout::{Areas, layout};
pub use super::note::{Preview, Row};
use super::query::Query;

mod reader;
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

    fn next(self) -> SearchMode {
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
    fn resize(&mut self, width: u16, height: u16) {
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

    pub(super) fn inform(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), Severity::Info));
    }

    pub(super) fn fail(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), Severity::Error));
    }
}

/// Applies `msg` to `app`; returns the work to do. Pure.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    let mut effects = Vec::new();
    let before = app.clone();
    match msg {
        Msg::Key(key) if key.kind != KeyEventKind::Release => on_key(app, key, &mut effects),
        Msg::Key(_) => {}
        Msg::Mouse(mouse) => on_mouse(app, mouse, &mut effects),
        Msg::Resize(w, h) => {
            app.resize(w, h);
            keep_in_view(app);
            app.dirty = true;
        }
        Msg::Tick => effects.push(Effect::LoadBackground),
        Msg::Page { start, total, rows } => {
            app.page_start = start;
            app.page = rows;
            app.total = total;
            if app.results.is_none() {
                app.selected = app.selected.min(total.saturating_sub(1));
                keep_in_view(app);
                preview_selected(app, &mut effects);
            }
        }
        Msg::Results {
            generation,
            rows,
            semantic,
            notices,
        } => {
            let downgrade = app
                .results
                .as_ref()
                .is_some_and(|r| r.generation == generation && r.semantic && !semantic);
            if generation == app.generation && !app.query.trim().is_empty() && !downgrade {
                let first = app
                    .results
                    .as_ref()
                    .is_none_or(|r| r.generation != generation);
                let keep_id = app.selected_id().map(str::to_string);
                app.results = Some(Results {
                    generation,
                    rows,
                    semantic,
                });
                app.selected = match (first, keep_id) {
                    (false, Some(id)) => app
                        .results
                        .as_ref()
                        .and_then(|r| r.rows.iter().position(|row| row.id == id))
                        .unwrap_or(0),
                    _ => 0,
                };
                if first {
                    app.scroll = 0;
                }
                keep_in_view(app);
                if let Some(notice) = notices.into_iter().next() {
                    app.inform(notice);
                }
                preview_selected(app, &mut effects);
            }
        }
        Msg::Preview(preview) => {
            if app.selected_id() == Some(preview.id.as_str()) {
                let same = app.preview.as_ref().filter(|p| p.id == preview.id);
                if same.is_none() {
                    app.cursor = 0;
                    app.preview_scroll = 0;
                }
                let keep_similar = same.and_then(|p| p.similar.clone());
                app.preview = Some(Preview {
                    similar: keep_similar,
                    ..*preview
                });
                reader::clamp(app);
            }
        }
        Msg::Similar { id, rows } => {
            if let Some(p) = app.preview.as_mut().filter(|p| p.id == id) {
                p.similar = Some(rows);
            }
        }
        Msg::Catalog(catalog) => {
            app.catalog = catalog;
        }
        Msg::Background { facts, changed } => {
            app.background = facts;
            if changed {
                reload(app, &mut effects);
            }
        }
        Msg::Done(text) => {
            app.inform(text);
            reload(app, &mut effects);
            effects.push(Effect::LoadCatalog);
        }
        Msg::Failed(text) => app.fail(text),
        Msg::Busy { worker, busy } => {
            if let Some(slot) = app.busy.get_mut(worker) {
                *slot = busy;
            }
        }
        Msg::Edited { id, text } => match text {
            Some(text) if !text.trim().is_empty() => effects.push(Effect::SetSummary { id, text }),
            Some(_) => app.fail("empty text: the note was left as it was"),
            None => app.inform("no change"),
        },
    }
    if *app != before {
        app.dirty = true;
    }
    effects
}

/// Loads the list (or repeats the search) and the preview again.
fn reload(app: &mut App, effects: &mut Vec<Effect>) {
    app.preview_stale = true;
    if app.results.is_some() {
        search(app, effects);
    } else {
        let start = page_start_for(app.selected);
        effects.push(Effect::LoadPage {
            start,
            order: app.order,
        });
    }
}

fn page_start_for(index: usize) -> usize {
    index.saturating_sub(PAGE / 2)
}

fn on_key(app: &mut App, key: KeyEvent, effects: &mut Vec<Effect>) {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        app.quit = true;
        effects.push(Effect::Quit);
        return;
    }
    match app.mode.clone() {
        Mode::Help => app.mode = Mode::Browse,
        Mode::Search => on_search_key(app, key, effects),
        Mode::Input { prompt, text } => on_input_key(app, prompt, text, key, effects),
        Mode::Confirm(action) => {
            app.mode = Mode::Browse;
            if matches!(key.code, KeyCode::Char('y') | KeyCode::Char('Y')) {
                let effect = match action {
                    Confirm::Delete(ids) => {
                        app.marked.clear();
                        Effect::Delete { ids }
                    }
                    Confirm::Revert(id) => Effect::Revert { id },
                };
                effects.push(effect);
            } else {
                app.inform("cancelled");
            }
        }
        Mode::Browse if app.focus == Focus::Preview => reader::on_key(app, key, effects),
        Mode::Browse => on_browse_key(app, key, effects),
    }
}

/// `Esc` in the list: one level back each time: marks, then the search,
/// then the message.
fn back_in_list(app: &mut App, effects: &mut Vec<Effect>) {
    if !app.marked.is_empty() {
        app.inform(format!("unmarked {}", app.marked.len()));
        app.marked.clear();
    } else if app.results.is_some() {
        app.query.clear();
        clear_search(app, effects);
    } else {
        app.message = None;
    }
}

/// Marks the selected note, or unmarks it, and moves down one row.
fn toggle_mark(app: &mut App, effects: &mut Vec<Effect>) {
    let Some(id) = app.selected_id().map(str::to_string) else {
        return;
    };
    if !app.marked.remove(&id) {
        app.marked.insert(id);
    }
    select(app, app.selected.saturating_add(1), effects);
}

/// `*` on search results: marks them all, or unmarks them when all are.
fn toggle_all_results(app: &mut App) {
    let Some(results) = &app.results else {
        app.inform("* marks every search result: search first (/)");
        return;
    };
    let ids: Vec<String> = results.rows.iter().map(|r| r.id.clone()).collect();
    if ids.iter().all(|id| app.marked.contains(id)) {
        for id in &ids {
            app.marked.remove(id);
        }
    } else {
        app.marked.extend(ids);
    }
}

fn cycle_search_mode(app: &mut App, effects: &mut Vec<Effect>) {
    app.search_mode = app.search_mode.next();
    app.inform(format!("search: {}", app.search_mode.name()));
    if !app.query.trim().is_empty() {
        search(app, effects);
    }
}

fn on_browse_key(app: &mut App, key: KeyEvent, effects: &mut Vec<Effect>) {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let page = app.visible.max(1);
    match key.code {
        KeyCode::Char('q') => {
            app.quit = true;
            effects.push(Effect::Quit);
        }
        KeyCode::Esc => back_in_list(app, effects),
        KeyCode::Down | KeyCode::Char('j') => select(app, app.selected.saturating_add(1), effects),
        KeyCode::Up | KeyCode::Char('k') => select(app, app.selected.saturating_sub(1), effects),
        KeyCode::PageDown => select(app, app.selected.saturating_add(page), effects),
        KeyCode::Char(' ') | KeyCode::Char('v') => toggle_mark(app, effects),
        KeyCode::Char('*') => toggle_all_results(app),
        KeyCode::Char('m') => cycle_search_mode(app, effects),
        KeyCode::Char('d') if ctrl => select(app, app.selected.saturating_add(page), effects),
        KeyCode::PageUp => select(app, app.selected.saturating_sub(page), effects),
        KeyCode::Char('u') if ctrl => select(app, app.selected.saturating_sub(page), effects),
        KeyCode::Home | KeyCode::Char('g') => select(app, 0, effects),
        KeyCode::End | KeyCode::Char('G') => select(app, app.len().saturating_sub(1), effects),
        KeyCode::Char('l') if ctrl => reload(app, effects),
        KeyCode::Char('/') => app.mode = Mode::Search,
        KeyCode::Char('s') => {
            let i = ORDERS.iter().position(|o| *o == app.order).unwrap_or(0);
            app.order = ORDERS[(i + 1) % ORDERS.len()];
            app.inform(format!("sorted by {}", order_name(app.order)));
            if app.results.is_none() {
                list_from_top(app, effects);
            }
        }
        KeyCode::Tab | KeyCode::Right | KeyCode::Char('l') => {
            if app.preview.is_some() {
                app.focus = Focus::Preview;
            }
        }
        KeyCode::Enter => reader::page_note(app, effects),
        KeyCode::Char('?') => app.mode = Mode::Help,
        KeyCode::Char('n') => open_input(app, Prompt::NewNote, String::new()),
        KeyCode::Char('N') => open_input(app, Prompt::SetNow, String::new()),
        _ => on_note_key(app, key, effects),
    }
}

/// Keys that act on the selected note (or the marked ones), from either
/// pane.
pub(super) fn on_note_key(app: &mut App, key: KeyEvent, effects: &mut Vec<Effect>) {
    let Some(id) = app.selected_id().map(str::to_string) else {
        return;
    };
    match key.code {
        KeyCode::Char('t') => open_input(app, Prompt::AddTags, String::new()),
        KeyCode::Char('x') => open_input(app, Prompt::RemoveTags, String::new()),
        KeyCode::Char('E') => open_input(app, Prompt::Export, "keep-export.jsonl".into()),
        KeyCode::Char('o') => reader::open_source(app, effects),
        KeyCode::Char('e') => {
            let loaded = app
                .preview
                .as_ref()
                .filter(|p| p.id == id && !app.preview_stale);
            match loaded.map(|p| p.current.clone().unwrap_or_else(|| p.summary.clone())) {
                Some(text) => effects.push(Effect::Edit { id, text }),
                None => app.inform("the note is still loading"),
            }
        }
        KeyCode::Char('D') | KeyCode::Delete => {
            app.mode = Mode::Confirm(Confirm::Delete(app.targets()))
        }
        KeyCode::Char('r') => app.mode = Mode::Confirm(Confirm::Revert(id)),
        KeyCode::Char('y') => {
            app.inform(format!("copied {id}"));
            effects.push(Effect::Copy(id));
        }
        KeyCode::Char('S') => {
            app.inform("finding similar notes…");
            effects.push(Effect::LoadSimilar { id });
        }
        KeyCode::Char('[') => step_version(app, 1, effects),
        KeyCode::Char(']') => step_version(app, -1, effects),
        _ => {}
    }
}

pub(super) fn step_version(app: &mut App, delta: i64, effects: &mut Vec<Effect>) {
    let Some(p) = app.preview.as_ref() else {
        return;
    };
    let next = (p.version + delta).clamp(0, p.versions);
    if next == p.version {
        app.inform(if delta > 0 {
            "no older version"
        } else {
            "this is the current version"
        });
        return;
    }
    let id = p.id.clone();
    effects.push(Effect::LoadPreview { id, version: next });
}

fn open_input(app: &mut App, prompt: Prompt, text: String) {
    app.mode = Mode::Input { prompt, text };
}

fn on_search_key(app: &mut App, key: KeyEvent, effects: &mut Vec<Effect>) {
    match key.code {
        KeyCode::Esc | KeyCode::Enter | KeyCode::Down | KeyCode::Tab => app.mode = Mode::Browse,
        KeyCode::Char('r') if key.modifiers.contains(KeyModifiers::CONTROL) => {
            cycle_search_mode(app, effects)
        }
        KeyCode::Backspace => {
            app.query.pop();
            search(app, effects);
        }
        KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
            app.query.clear();
            clear_search(app, effects);
        }
        KeyCode::Char(c) => {
            app.query.push(c);
            search(app, effects);
        }
        _ => {}
    }
}

/// Starts a search for the current query, or goes back to browsing when
/// it is empty.
pub(super) fn search(app: &mut App, effects: &mut Vec<Effect>) {
    if app.query.trim().is_empty() {
        clear_search(app, effects);
        return;
    }
    match Query::parse(&app.query) {
        Ok(query) => {
            app.generation += 1;
            if app.message.as_ref().is_some_and(|m| m.1 == Severity::Error) {
                app.message = None;
            }
            let generation = app.generation;
            effects.push(Effect::Search {
                generation,
                query,
                mode: app.search_mode,
            });
        }
        Err(e) => app.fail(e),
    }
}

fn list_from_top(app: &mut App, effects: &mut Vec<Effect>) {
    app.selected = 0;
    app.scroll = 0;
    effects.push(Effect::LoadPage {
        start: 0,
        order: app.order,
    });
}

fn clear_search(app: &mut App, effects: &mut Vec<Effect>) {
    app.generation += 1;
    if app.results.take().is_some() {
        list_from_top(app, effects);
    }
}

fn on_input_key(
    app: &mut App,
    prompt: Prompt,
    mut text: String,
    key: KeyEvent,
    effects: &mut Vec<Effect>,
) {
    match key.code {
        KeyCode::Esc => {
            app.mode = Mode::Browse;
            return;
        }
        KeyCode::Enter => {
            app.mode = Mode::Browse;
            submit(app, prompt, text, effects);
            return;
        }
        KeyCode::Backspace => {
            text.pop();
        }
        KeyCode::Tab => text = complete(app, prompt, &text),
        KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => text.clear(),
        KeyCode::Char(c) => text.push(c),
        _ => {}
    }
    app.mode = Mode::Input { prompt, text };
}

fn submit(app: &mut App, prompt: Prompt, text: String, effects: &mut Vec<Effect>) {
    if text.trim().is_empty() {
        app.inform("nothing entered");
        return;
    }
    let words = || text.split_whitespace().map(str::to_string).collect();
    let ids = app.targets();
    let effect = match prompt {
        Prompt::NewNote => Effect::Put { id: None, text },
        Prompt::SetNow => Effect::SetNow { text },
        _ if ids.is_empty() => return app.fail("no note selected"),
        Prompt::AddTags => Effect::AddTags { ids, tags: words() },
        Prompt::RemoveTags => Effect::RemoveTags { ids, tags: words() },
        Prompt::Export => Effect::Export {
            ids,
            path: text.trim().to_string(),
        },
    };
    effects.push(effect);
}

/// Completes the last word of a tag prompt: a key, or a value after `=`.
/// With several candidates, the longest common prefix.
pub fn complete(app: &App, prompt: Prompt, text: &str) -> String {
    let head_len = text.rfind(' ').map_or(0, |i| i + 1);
    let (head, word) = text.split_at(head_len);
    let candidates: Vec<String> = match (prompt, word.split_once('=')) {
        (Prompt::AddTags, Some((key, value))) => app
            .catalog
            .iter()
            .filter(|(k, _)| k == key)
            .flat_map(|(k, vs)| vs.iter().map(move |v| format!("{k}={v}")))
            .filter(|c| c.starts_with(&format!("{key}={value}")))
            .collect(),
        (Prompt::AddTags, None) => app
            .catalog
            .iter()
            .map(|(k, _)| format!("{k}="))
            .filter(|c| c.starts_with(word))
            .collect(),
        (Prompt::RemoveTags, _) => app
            .preview
            .iter()
            .flat_map(|p| {
                p.tags
                    .iter()
                    .flat_map(|(k, v)| [k.clone(), format!("{k}={v}")])
            })
            .filter(|c| c.starts_with(word))
            .collect(),
        _ => Vec::new(),
    };
    let Some(first) = candidates.first() else {
        return text.to_string();
    };
    let common = candidates.iter().fold(first.clone(), |acc, c| {
        acc.chars()
            .zip(c.chars())
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a)
            .collect()
    });
    if common.len() > word.len() {
        format!("{head}{common}")
    } else {
        text.to_string()
    }
}

fn on_mouse(app: &mut App, mouse: MouseEvent, effects: &mut Vec<Effect>) {
    let over_preview = app
        .areas
        .is_some_and(|a| a.preview.contains((mouse.column, mouse.row).into()));
    let in_preview = app.focus == Focus::Preview || over_preview;
    match mouse.kind {
        MouseEventKind::ScrollDown if in_preview => reader::scroll(app, 3),
        MouseEventKind::ScrollUp if in_preview => reader::scroll(app, -3),
        MouseEventKind::ScrollDown => select(app, app.selected.saturating_add(3), effects),
        MouseEventKind::ScrollUp => select(app, app.selected.saturating_sub(3), effects),
        MouseEventKind::Down(MouseButton::Left) => {
            let Some(offset) = app
                .areas
                .and_then(|a| a.list_row_at(mouse.column, mouse.row))
            else {
                return;
            };
            if matches!(app.mode, Mode::Browse) {
                app.focus = Focus::List;
                select(app, app.scroll + offset, effects);
            }
        }
        _ => {}
    }
}

/// Moves the selection to `index` (clamped), loading the page around it
/// when it is not in memory, and the preview of the new row.
fn select(app: &mut App, index: usize, effects: &mut Vec<Effect>) {
    if app.is_empty() {
        return;
    }
    let index = index.min(app.len() - 1);
    if index == app.selected && app.preview.is_some() {
        return;
    }
    app.selected = index;
    keep_in_view(app);
    if app.results.is_none() {
        let end = app.page_start + app.page.len();
        let margin = app.visible;
        let near_end = index + margin >= end && end < app.total;
        let near_start = index < app.page_start + margin && app.page_start > 0;
        if index < app.page_start || index >= end || near_end || near_start {
            effects.push(Effect::LoadPage {
                start: page_start_for(index),
                order: app.order,
            });
        }
    }
    preview_selected(app, effects);
}

fn preview_selected(app: &mut App, effects: &mut Vec<Effect>) {
    let Some(id) = app.selected_id().map(str::to_string) else {
        app.preview = None;
        return;
    };
    if !app.preview_stale && app.preview.as_ref().is_some_and(|p| p.id == id) {
        return;
    }
    app.preview_stale = false;
    effects.push(Effect::LoadPreview { id, version: 0 });
}

fn keep_in_view(app: &mut App) {
    let visible = app.visible.max(1);
    if app.selected < app.scroll {
        app.scroll = app.selected;
    } else if app.selected >= app.scroll + visible {
        app.scroll = app.selected + 1 - visible;
    }
    let max_scroll = app.len().saturating_sub(visible);
    app.scroll = app.scroll.min(max_scroll);
}
