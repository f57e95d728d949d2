//! The preview pane as a reader: a cursor and a scroll over the document
//! `doc` lays out, what keys and the wheel do there, and what `Enter` and
//! `o` do with a note, a part, an edge, a version or a similar note.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Effect, Focus, Mode, Preview, on_note_key, search, step_version};
use crate::tui::doc::{self, DocLine, Item};

/// The preview's document and how many of its lines the pane shows.
fn geometry(app: &App) -> Option<(Vec<DocLine>, usize)> {
    let p = app.preview.as_ref()?;
    let rows = app.areas?.preview_rows();
    Some((
        doc::lines(p, usize::from(rows.width)),
        usize::from(rows.height).max(1),
    ))
}

/// Keeps the cursor inside the document and on screen, and the scroll
/// inside the document.
pub fn clamp(app: &mut App) {
    let Some((lines, height)) = geometry(app) else {
        return;
    };
    settle(app, lines.len(), height);
}

fn settle(app: &mut App, len: usize, height: usize) {
    app.cursor = app.cursor.min(len.saturating_sub(1));
    let max_scroll = len.saturating_sub(height);
    app.preview_scroll = app.preview_scroll.min(max_scroll);
    if app.cursor < app.preview_scroll {
        app.preview_scroll = app.cursor;
    } else if app.cursor >= app.preview_scroll + height {
        app.preview_scroll = app.cursor + 1 - height;
    }
}

/// Moves the cursor by `delta` lines.
fn step(app: &mut App, delta: isize) {
    let Some((lines, height)) = geometry(app) else {
        return;
    };
    app.cursor = app.cursor.saturating_add_signed(delta);
    settle(app, lines.len(), height);
}

/// Moves view and cursor a page down (`pages` > 0) or up.
fn page(app: &mut App, pages: isize) {
    let Some((lines, height)) = geometry(app) else {
        return;
    };
    let delta = pages * height as isize;
    let max_scroll = lines.len().saturating_sub(height);
    app.preview_scroll = app
        .preview_scroll
        .saturating_add_signed(delta)
        .min(max_scroll);
    app.cursor = app.cursor.saturating_add_signed(delta);
    settle(app, lines.len(), height);
}

/// Scrolls the view by `delta` lines (the wheel), taking the cursor along
/// when it would leave the screen.
pub fn scroll(app: &mut App, delta: isize) {
    let Some((lines, height)) = geometry(app) else {
        return;
    };
    let max_scroll = lines.len().saturating_sub(height);
    app.preview_scroll = app
        .preview_scroll
        .saturating_add_signed(delta)
        .min(max_scroll);
    app.cursor = app
        .cursor
        .clamp(app.preview_scroll, app.preview_scroll + height - 1);
    settle(app, lines.len(), height);
}

pub fn on_key(app: &mut App, key: KeyEvent, effects: &mut Vec<Effect>) {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Tab | KeyCode::Left | KeyCode::Esc | KeyCode::Char('h') => app.focus = Focus::List,
        KeyCode::Char('q') => {
            app.quit = true;
            effects.push(Effect::Quit);
        }
        KeyCode::Down | KeyCode::Char('j') => step(app, 1),
        KeyCode::Up | KeyCode::Char('k') => step(app, -1),
        KeyCode::Char('d') if ctrl => page(app, 1),
        KeyCode::Char('u') if ctrl => page(app, -1),
        KeyCode::PageDown | KeyCode::Char(' ') => page(app, 1),
        KeyCode::PageUp | KeyCode::Char('b') => page(app, -1),
        KeyCode::Home | KeyCode::Char('g') => step(app, isize::MIN / 2),
        KeyCode::End | KeyCode::Char('G') => step(app, isize::MAX / 2),
        KeyCode::Enter => act(app, effects),
        KeyCode::Char('?') => app.mode = Mode::Help,
        _ => on_note_key(app, key, effects),
    }
}

/// `Enter` on the line under the cursor.
fn act(app: &mut App, effects: &mut Vec<Effect>) {
    let Some((lines, _)) = geometry(app) else {
        return;
    };
    let Some(p) = app.preview.clone() else {
        return;
    };
    match lines.get(app.cursor).map_or(Item::Note, |l| l.item) {
        Item::Note => effects.push(Effect::Pager(note_text(&p))),
        Item::Part(i) => {
            if let Some(text) = p.parts.get(i) {
                effects.push(Effect::Pager(format!(
                    "{}@P{{{}}}\n\n{text}\n",
                    p.id,
                    i + 1
                )));
            }
        }
        Item::Edge(i) => {
            if let Some((_, target)) = p.edges.get(i) {
                go_to(app, target, effects);
            }
        }
        Item::Similar(i) => {
            if let Some(row) = p.similar.as_ref().and_then(|s| s.get(i)) {
                go_to(app, &row.id.clone(), effects);
            }
        }
        Item::Version(n) => step_version(app, n - p.version, effects),
    }
}

/// Shows one note in the list: a search for its id.
fn go_to(app: &mut App, id: &str, effects: &mut Vec<Effect>) {
    app.focus = Focus::List;
    app.query = format!("id:{id}");
    search(app, effects);
}

/// `Enter` on a note in the list: its text in the pager.
pub fn page_note(app: &mut App, effects: &mut Vec<Effect>) {
    match loaded_preview(app) {
        Some(p) => effects.push(Effect::Pager(note_text(p))),
        None if app.selected_id().is_some() => app.inform("the note is still loading"),
        None => {}
    }
}

/// `o`: the note's file or URL in the system's opener.
pub fn open_source(app: &mut App, effects: &mut Vec<Effect>) {
    match loaded_preview(app).map(|p| p.source.clone()) {
        Some(Some(source)) => {
            app.inform(format!("opening {source}"));
            effects.push(Effect::Open(source));
        }
        Some(None) => app.inform("this note has no file or URL to open"),
        None if app.selected_id().is_some() => app.inform("the note is still loading"),
        None => {}
    }
}

/// The preview, when it is the selected note's and up to date.
fn loaded_preview(app: &App) -> Option<&Preview> {
    let id = app.selected_id()?;
    app.preview
        .as_ref()
        .filter(|p| p.id == id && !app.preview_stale)
}

/// What the pager shows of a note: its id, the version shown, then its
/// whole text as `keep get --text` gives it (a long note's parts joined,
/// each part's overlap with the one before left out), else its summary.
pub fn note_text(p: &Preview) -> String {
    let head = match p.version {
        0 => format!("{}\n\n", p.id),
        n => format!("{}@V{{{n}}}\n\n", p.id),
    };
    let text = if p.version == 0 && !p.parts.is_empty() {
        keep_core::rejoin(p.parts.iter().map(String::as_str))
    } else {
        p.summary.clone()
    };
    format!("{head}{}\n", text.trim_end())
}
