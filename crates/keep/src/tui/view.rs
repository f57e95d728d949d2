//! Drawing: reads the state, never changes it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

use super::app::{App, Confirm, Focus, Mode, Row, SearchMode, Severity, order_name};
use super::doc::{self, Role};
use super::keys::{KEYS, LEFT_SECTIONS, hints};
use super::layout::{MIN_HEIGHT, MIN_WIDTH, layout};
use super::theme::Theme;

pub fn view(app: &App, theme: &Theme, frame: &mut Frame) {
    let area = frame.area();
    let Some(areas) = layout(area) else {
        too_small(theme, frame, area);
        return;
    };
    search_bar(app, theme, frame, areas.search);
    note_list(app, theme, frame, areas.list);
    preview(app, theme, frame, areas.preview);
    status_line(app, theme, frame, areas.status);
    footer(app, theme, frame, areas.footer);
    if app.mode == Mode::Help {
        help(theme, frame, area);
    }
}

fn too_small(theme: &Theme, frame: &mut Frame, area: Rect) {
    let text = format!(
        "terminal too small: {}×{} (keep needs {MIN_WIDTH}×{MIN_HEIGHT})",
        area.width, area.height
    );
    frame.render_widget(
        Paragraph::new(text)
            .style(theme.text)
            .wrap(Wrap { trim: true }),
        area,
    );
}

fn search_bar(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    let line = match &app.mode {
        Mode::Input { prompt, text } => Line::from(vec![
            Span::styled(format!(" {}: ", prompt.label()), theme.accent),
            Span::styled(text.clone(), theme.text),
            Span::styled("▏", theme.accent),
        ]),
        mode => {
            let typing = *mode == Mode::Search;
            let mut spans = vec![Span::styled(" / ", theme.accent)];
            if app.query.is_empty() && !typing {
                spans.push(Span::styled("search (/), help (?)", theme.muted));
            } else {
                spans.push(Span::styled(app.query.clone(), theme.text));
            }
            if typing {
                spans.push(Span::styled("▏", theme.accent));
            }
            let mode = app.search_mode.name();
            let right = match &app.results {
                Some(r) if app.search_mode == SearchMode::Hybrid && !r.semantic => {
                    format!("{} hits · hybrid (keyword so far)", r.rows.len())
                }
                Some(r) => format!("{} hits · {mode}", r.rows.len()),
                None if typing => format!("{mode} (^R changes)"),
                None => format!("sorted by {} · search: {mode}", order_name(app.order)),
            };
            let used: usize = spans.iter().map(|s| s.content.width()).sum();
            let room = usize::from(area.width).saturating_sub(used + 2);
            let right = if right.width() <= room {
                right
            } else {
                truncate(app.search_mode.name(), room)
            };
            let pad = usize::from(area.width).saturating_sub(used + right.width() + 1);
            spans.push(Span::raw(" ".repeat(pad)));
            spans.push(Span::styled(right, theme.muted));
            Line::from(spans)
        }
    };
    frame.render_widget(Paragraph::new(line), area);
}

fn pane<'a>(title: String, focused: bool, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { theme.accent } else { theme.border })
        .title(Span::styled(
            title,
            if focused { theme.accent } else { theme.muted },
        ))
}

/// `text` cut to `width` columns, ending in `…` when cut.
fn truncate(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    format!("{}…", doc::take_width(text, width.saturating_sub(1)))
}

/// `text` cut from the left to `width` columns, so its end (a file name)
/// shows: `…/html/index.html`.
fn truncate_left(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut kept = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        kept.push(c);
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

/// `text` padded with spaces to `width` columns.
fn pad(text: String, width: usize) -> String {
    let w = text.width();
    text + &" ".repeat(width.saturating_sub(w))
}

/// The columns of a list row at a width: the date is dropped, then
/// shortened, as the pane narrows; the name column grows with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Columns {
    date: usize,
    name: usize,
}

fn columns(width: usize) -> Columns {
    let date = match width {
        0..50 => 0,
        50..80 => 5,
        _ => 10,
    };
    let name = (width / 3).clamp(10, 36);
    Columns { date, name }
}

/// A row's name: its title, else its id cut from the left.
fn row_name(row: &Row, width: usize) -> String {
    match row
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        Some(title) => truncate(title, width),
        None => truncate_left(&row.id, width),
    }
}

fn list_line<'a>(app: &App, row: &Row, selected: bool, width: usize, theme: &Theme) -> Line<'a> {
    let cols = columns(width);
    let mark = if app.marked.contains(&row.id) {
        "●"
    } else {
        " "
    };
    let mut spans = vec![Span::styled(mark, theme.tag)];
    let mut used = 1;
    if cols.date > 0 {
        let date = match cols.date {
            5 => row.date.get(5..10),
            _ => row.date.get(..10),
        }
        .unwrap_or(&row.date);
        spans.push(Span::styled(format!("{date} "), theme.muted));
        used += cols.date + 1;
    }
    spans.push(Span::styled(
        pad(row_name(row, cols.name), cols.name + 1),
        theme.accent,
    ));
    used += cols.name + 1;
    let rest = width.saturating_sub(used);
    let extra = row.why.as_deref().unwrap_or(&row.tags);
    let extra_width = extra.width().min(rest / 3);
    let text_width = rest.saturating_sub(extra_width + usize::from(extra_width > 0));
    spans.push(Span::styled(
        pad(truncate(&row.line, text_width), text_width),
        theme.text,
    ));
    if extra_width > 0 {
        spans.push(Span::styled(
            format!(" {}", truncate(extra, extra_width)),
            theme.tag,
        ));
    }
    if selected {
        spans = spans
            .into_iter()
            .map(|s| Span::styled(s.content, theme.selected))
            .collect();
    }
    Line::from(spans)
}

fn note_list(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    let (shown, total, what) = match &app.results {
        Some(r) => (
            (app.selected + 1).min(r.rows.len()),
            r.rows.len(),
            "results",
        ),
        None => ((app.selected + 1).min(app.total), app.total, "notes"),
    };
    let marked = match app.marked.len() {
        0 => String::new(),
        n => format!(" · {n} marked"),
    };
    let title = format!(" {what} {shown}/{total}{marked} ");
    let block = pane(title, app.focus == Focus::List, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let mut lines = Vec::new();
    for i in app.scroll..(app.scroll + usize::from(inner.height)).min(app.len()) {
        let line = match app.row(i) {
            Some(row) => list_line(app, row, i == app.selected, width, theme),
            None => Line::styled("…", theme.muted),
        };
        lines.push(line);
    }
    if app.is_empty() {
        let empty = if app.results.is_some() {
            "nothing found"
        } else {
            "no notes yet: press n to write one"
        };
        lines.push(Line::styled(empty, theme.muted));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn role_style(role: Role, theme: &Theme) -> Style {
    match role {
        Role::Text => theme.text,
        Role::Muted => theme.muted,
        Role::Heading | Role::Id => theme.accent,
        Role::Tag => theme.tag,
        Role::Added => theme.added,
        Role::Removed => theme.removed,
    }
}

fn preview(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    let Some(p) = &app.preview else {
        frame.render_widget(pane(" preview ".into(), false, theme), area);
        return;
    };
    let focused = app.focus == Focus::Preview;
    let inner = area.inner(ratatui::layout::Margin::new(1, 1));
    let width = usize::from(inner.width);
    let height = usize::from(inner.height).max(1);
    let lines = doc::lines(p, width);
    let scroll = app.preview_scroll.min(lines.len().saturating_sub(height));
    let version = match p.version {
        0 => String::new(),
        n => format!(" @V{{{n}}}"),
    };
    let name_room = usize::from(area.width).saturating_sub(version.width() + 18);
    let name = match p.title.as_deref().filter(|t| !t.trim().is_empty()) {
        Some(title) => truncate(title, name_room),
        None => truncate_left(&p.id, name_room),
    };
    let position = if lines.len() > height {
        format!(
            " {}–{} of {} ",
            scroll + 1,
            (scroll + height).min(lines.len()),
            lines.len()
        )
    } else {
        String::new()
    };
    let block = pane(format!(" {name}{version} "), focused, theme)
        .title(Line::styled(position, theme.muted).right_aligned());
    let shown: Vec<Line> = lines
        .iter()
        .enumerate()
        .skip(scroll)
        .take(height)
        .map(|(i, line)| {
            let spans: Vec<Span> = line
                .spans
                .iter()
                .map(|(text, role)| Span::styled(text.clone(), role_style(*role, theme)))
                .collect();
            if focused && i == app.cursor {
                let used: usize = line.spans.iter().map(|(t, _)| t.width()).sum();
                let mut spans: Vec<Span> = spans
                    .into_iter()
                    .map(|s| Span::styled(s.content, theme.selected))
                    .collect();
                spans.push(Span::styled(
                    " ".repeat(width.saturating_sub(used)),
                    theme.selected,
                ));
                Line::from(spans)
            } else {
                Line::from(spans)
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
}

fn status_line(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    if let Mode::Confirm(action) = &app.mode {
        let question = match action {
            Confirm::Delete(ids) => match ids.as_slice() {
                [id] => format!(" delete {id} and its history? y/n "),
                ids => format!(" delete {} marked notes and their history? y/n ", ids.len()),
            },
            Confirm::Revert(id) => format!(" revert {id} to its previous version? y/n "),
        };
        frame.render_widget(Paragraph::new(question).style(theme.error), area);
        return;
    }
    let notes = app.background.notes;
    let mut facts = vec![format!(
        " {notes} note{}",
        if notes == 1 { "" } else { "s" }
    )];
    if app.background.pending_embeddings > 0 {
        facts.push(format!(
            "{} waiting for embedding",
            app.background.pending_embeddings
        ));
    }
    if let Some(watcher) = &app.background.watcher {
        facts.push(watcher.clone());
    }
    if app.busy.iter().any(|b| *b) {
        facts.push("working…".into());
    }
    let left = facts.join(" · ");
    let (message, style) = match &app.message {
        Some((text, Severity::Error)) => (text.clone(), theme.error.patch(theme.status)),
        Some((text, Severity::Info)) => (text.clone(), theme.status),
        None => ("? help".into(), theme.status),
    };
    let width = usize::from(area.width);
    let message = truncate(&message, width.saturating_sub(left.chars().count() + 3));
    let pad = width.saturating_sub(left.chars().count() + message.chars().count() + 1);
    let line = Line::from(vec![
        Span::styled(left, theme.status),
        Span::styled(" ".repeat(pad), theme.status),
        Span::styled(format!("{message} "), style),
    ]);
    frame.render_widget(Paragraph::new(line).style(theme.status), area);
}

fn footer(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    let mut spans = Vec::new();
    for (key, what) in hints(app) {
        spans.push(Span::styled(format!(" {key}"), theme.accent));
        spans.push(Span::styled(format!(" {what} "), theme.muted));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Width of the keys column of the help overlay.
const HELP_KEYS: usize = 19;

/// The help overlay's lines for some sections of `KEYS`, descriptions
/// wrapped under themselves within `width` columns.
fn help_lines<'a>(
    sections: &[(&str, &[(&str, &str)])],
    width: usize,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let room = width.saturating_sub(HELP_KEYS + 2).max(10);
    let mut lines = Vec::new();
    for (title, keys) in sections {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::styled(format!(" {title}"), theme.muted));
        for (key, what) in *keys {
            let mut first = true;
            for chunk in wrap_words(what, room) {
                let key = if first { *key } else { "" };
                first = false;
                lines.push(Line::from(vec![
                    Span::styled(format!(" {key:<HELP_KEYS$} "), theme.accent),
                    Span::styled(chunk, theme.text),
                ]));
            }
        }
    }
    lines
}

/// `text` in lines of at most `width` columns, broken between words.
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("one line at least");
        if !line.is_empty() && line.width() + 1 + word.width() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

fn help(theme: &Theme, frame: &mut Frame, area: Rect) {
    let two_columns = area.width >= 100;
    let (left, right) = KEYS.split_at(if two_columns {
        LEFT_SECTIONS
    } else {
        KEYS.len()
    });
    let width = if two_columns {
        area.width.min(150)
    } else {
        area.width.min(90)
    };
    let column = usize::from(if two_columns { width / 2 } else { width }).saturating_sub(2);
    let left = help_lines(left, column, theme);
    let right = help_lines(right, column, theme);
    let rows = left.len().max(right.len()) as u16 + 2;
    let height = rows.min(area.height);
    let rect = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    let block = pane(" keys (any key closes) ".into(), true, theme);
    let inner = block.inner(rect);
    frame.render_widget(Clear, rect);
    frame.render_widget(block, rect);
    if two_columns {
        let half = inner.width / 2;
        let [l, r] = [
            Rect {
                width: half,
                ..inner
            },
            Rect {
                x: inner.x + half,
                width: inner.width - half,
                ..inner
            },
        ];
        frame.render_widget(Paragraph::new(left), l);
        frame.render_widget(Paragraph::new(right), r);
    } else {
        frame.render_widget(Paragraph::new(left), inner);
    }
}
