//! Moving about the browser's list: selecting a row and keeping it in
//! view, loading pages of notes and the preview, and starting, repeating
//! or clearing a search. Shared by the update and the keys.

use super::state::*;
use crate::tui::query::Query;

/// Loads the list (or repeats the search) and the preview again.
pub(super) fn reload(app: &mut App, effects: &mut Vec<Effect>) {
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

pub(super) fn page_start_for(index: usize) -> usize {
    index.saturating_sub(PAGE / 2)
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

pub(super) fn list_from_top(app: &mut App, effects: &mut Vec<Effect>) {
    app.selected = 0;
    app.scroll = 0;
    effects.push(Effect::LoadPage {
        start: 0,
        order: app.order,
    });
}

pub(super) fn clear_search(app: &mut App, effects: &mut Vec<Effect>) {
    app.generation += 1;
    if app.results.take().is_some() {
        list_from_top(app, effects);
    }
}

/// Moves the selection to `index` (clamped), loading the page around it
/// when it is not in memory, and the preview of the new row.
pub(super) fn select(app: &mut App, index: usize, effects: &mut Vec<Effect>) {
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

pub(super) fn preview_selected(app: &mut App, effects: &mut Vec<Effect>) {
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

pub(super) fn keep_in_view(app: &mut App) {
    let visible = app.visible.max(1);
    if app.selected < app.scroll {
        app.scroll = app.selected;
    } else if app.selected >= app.scroll + visible {
        app.scroll = app.selected + 1 - visible;
    }
    let max_scroll = app.len().saturating_sub(visible);
    app.scroll = app.scroll.min(max_scroll);
}
