//! What each key and mouse event does, in each mode of the browser: the
//! list, the search bar, typed input, confirmations and the help.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::nav::{clear_search, list_from_top, reload, search, select};
use super::reader;
use super::state::*;

pub(super) fn on_key(app: &mut App, key: KeyEvent, effects: &mut Vec<Effect>) {
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
pub(super) fn back_in_list(app: &mut App, effects: &mut Vec<Effect>) {
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
pub(super) fn toggle_mark(app: &mut App, effects: &mut Vec<Effect>) {
    let Some(id) = app.selected_id().map(str::to_string) else {
        return;
    };
    if !app.marked.remove(&id) {
        app.marked.insert(id);
    }
    select(app, app.selected.saturating_add(1), effects);
}

/// `*` on search results: marks them all, or unmarks them when all are.
pub(super) fn toggle_all_results(app: &mut App) {
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

pub(super) fn cycle_search_mode(app: &mut App, effects: &mut Vec<Effect>) {
    app.search_mode = app.search_mode.next();
    app.inform(format!("search: {}", app.search_mode.name()));
    if !app.query.trim().is_empty() {
        search(app, effects);
    }
}

pub(super) fn on_browse_key(app: &mut App, key: KeyEvent, effects: &mut Vec<Effect>) {
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

pub(super) fn open_input(app: &mut App, prompt: Prompt, text: String) {
    app.mode = Mode::Input { prompt, text };
}

pub(super) fn on_search_key(app: &mut App, key: KeyEvent, effects: &mut Vec<Effect>) {
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

pub(super) fn on_input_key(
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

pub(super) fn submit(app: &mut App, prompt: Prompt, text: String, effects: &mut Vec<Effect>) {
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

pub(super) fn on_mouse(app: &mut App, mouse: MouseEvent, effects: &mut Vec<Effect>) {
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
