//! The browser's update: a message in (a key, a page of notes, search
//! results, a preview, the background's facts), the state changed, the
//! effects for the runner out, and whether the screen must be drawn again.

use crossterm::event::KeyEventKind;

use super::keys::{on_key, on_mouse};
use super::nav::{keep_in_view, preview_selected, reload};
use super::reader;
use super::state::*;

/// Applies `msg` to `app`; returns the work to do, and marks the app
/// `dirty` when what it shows changed. Pure.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    let mut effects = Vec::new();
    let redraw = match msg {
        Msg::Key(key) if key.kind != KeyEventKind::Release => {
            on_key(app, key, &mut effects);
            true
        }
        Msg::Key(_) => false,
        Msg::Mouse(mouse) => {
            on_mouse(app, mouse, &mut effects);
            true
        }
        Msg::Resize(w, h) => {
            app.resize(w, h);
            keep_in_view(app);
            true
        }
        Msg::Tick => {
            effects.push(Effect::LoadBackground);
            false
        }
        Msg::Page { start, total, rows } => {
            app.page_start = start;
            app.page = rows;
            app.total = total;
            if app.results.is_none() {
                app.selected = app.selected.min(total.saturating_sub(1));
                keep_in_view(app);
                preview_selected(app, &mut effects);
            }
            true
        }
        Msg::Results {
            generation,
            rows,
            semantic,
            notices,
        } => take_results(app, generation, rows, semantic, notices, &mut effects),
        Msg::Preview(preview) => take_preview(app, *preview),
        Msg::Similar { id, rows } => match app.preview.as_mut().filter(|p| p.id == id) {
            Some(p) => {
                p.similar = Some(rows);
                true
            }
            None => false,
        },
        Msg::Catalog(catalog) => {
            app.catalog = catalog;
            false
        }
        Msg::Background { facts, changed } => {
            let shown = app.background != facts;
            app.background = facts;
            if changed {
                reload(app, &mut effects);
            }
            shown
        }
        Msg::Done(text) => {
            app.inform(text);
            reload(app, &mut effects);
            effects.push(Effect::LoadCatalog);
            true
        }
        Msg::Failed(text) => {
            app.fail(text);
            true
        }
        Msg::Busy { worker, busy } => match app.busy.get_mut(worker) {
            Some(slot) if *slot != busy => {
                *slot = busy;
                true
            }
            _ => false,
        },
        Msg::Edited { id, text } => {
            match text {
                Some(text) if !text.trim().is_empty() => {
                    effects.push(Effect::SetSummary { id, text })
                }
                Some(_) => app.fail("empty text: the note was left as it was"),
                None => app.inform("no change"),
            }
            true
        }
    };
    app.dirty |= redraw;
    effects
}

/// Search results of generation `generation`, when they are still the
/// ones wanted; says whether they were taken.
fn take_results(
    app: &mut App,
    generation: u64,
    rows: Vec<Row>,
    semantic: bool,
    notices: Vec<String>,
    effects: &mut Vec<Effect>,
) -> bool {
    let downgrade = app
        .results
        .as_ref()
        .is_some_and(|r| r.generation == generation && r.semantic && !semantic);
    if generation != app.generation || app.query.trim().is_empty() || downgrade {
        return false;
    }
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
    preview_selected(app, effects);
    true
}

/// The preview of the selected note, when it is still selected; says
/// whether it was taken.
fn take_preview(app: &mut App, preview: Preview) -> bool {
    if app.selected_id() != Some(preview.id.as_str()) {
        return false;
    }
    let same = app.preview.as_ref().filter(|p| p.id == preview.id);
    if same.is_none() {
        app.cursor = 0;
        app.preview_scroll = 0;
    }
    let keep_similar = same.and_then(|p| p.similar.clone());
    let next = Preview {
        similar: keep_similar,
        ..preview
    };
    if app.preview.as_ref() == Some(&next) {
        return false;
    }
    app.preview = Some(next);
    reader::clamp(app);
    true
}
