//! Drawing: reads the state, never changes it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::app::{App, Confirm, Focus, Mode, Severity, order_name};
use super::diff::{self, Change};
use super::layout::{MIN_HEIGHT, MIN_WIDTH, layout};
use super::theme::Theme;

/// Every key, as the help overlay and README list them.
pub const KEYS: &[(&str, &str)] = &[
    ("j k ↓ ↑", "move; wheel scrolls, click selects"),
    ("PgDn PgUp Space ^D ^U", "page down, up"),
    ("g G Home End", "first, last note"),
    ("/", "search, with #key=value since: until: in: id:"),
    ("Esc", "clear the search (in the list)"),
    ("s", "sort by updated, created, accessed, id"),
    (
        "Tab Enter →",
        "into the preview: j k pick an edge, Enter follows it",
    ),
    ("[ ]", "older, newer version (diff against current)"),
    ("S", "similar notes"),
    ("t", "add tags (Tab completes keys and values)"),
    ("x", "remove tags (Tab completes)"),
    ("e", "edit the summary in $VISUAL or $EDITOR"),
    ("n", "new note"),
    ("N", "set now"),
    ("D Del", "delete the note (asks)"),
    ("r", "revert to the previous version (asks)"),
    ("y", "copy the id (OSC 52)"),
    ("^L", "reload"),
    ("?", "this help"),
    ("q ^C", "quit"),
];

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
            let right = match &app.results {
                Some(r) if r.semantic => format!("{} hits · hybrid", r.rows.len()),
                Some(r) => format!("{} hits · keyword", r.rows.len()),
                None => format!("sorted by {}", order_name(app.order)),
            };
            let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
            let pad = usize::from(area.width).saturating_sub(used + right.chars().count() + 1);
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

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn note_list(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    let title = match &app.results {
        Some(r) => format!(
            " results {}/{} ",
            (app.selected + 1).min(r.rows.len()),
            r.rows.len()
        ),
        None => format!(
            " notes {}/{} ",
            (app.selected + 1).min(app.total),
            app.total
        ),
    };
    let block = pane(title, app.focus == Focus::List, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let id_width = (width / 4).clamp(8, 28);
    let mut lines = Vec::new();
    for i in app.scroll..(app.scroll + usize::from(inner.height)).min(app.len()) {
        let selected = i == app.selected;
        let line = match app.row(i) {
            Some(row) => {
                let date = row.date.get(..10).unwrap_or(&row.date);
                let fixed = 10 + 1 + id_width + 1;
                let rest = width.saturating_sub(fixed);
                let extra = row.why.as_deref().unwrap_or(&row.tags);
                let extra_width = extra.chars().count().min(rest / 3);
                let text_width = rest.saturating_sub(extra_width + usize::from(extra_width > 0));
                let mut spans = vec![
                    Span::styled(format!("{date} "), theme.muted),
                    Span::styled(
                        format!("{:<id_width$} ", truncate(&row.id, id_width)),
                        theme.accent,
                    ),
                    Span::styled(
                        format!("{:<text_width$}", truncate(&row.line, text_width)),
                        theme.text,
                    ),
                ];
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

fn preview(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    let Some(p) = &app.preview else {
        frame.render_widget(pane(" preview ".into(), false, theme), area);
        return;
    };
    let title = if p.version == 0 {
        format!(" {} ", p.id)
    } else {
        format!(" {}@V{{{}}} of {} ", p.id, p.version, p.versions)
    };
    let block = pane(title, app.focus == Focus::Preview, theme);
    let mut text = Text::default();
    let heading = |t: &str| Line::styled(t.to_string(), theme.accent);
    text.push_line(Line::styled(format!("updated {}", p.date), theme.muted));
    match &p.current {
        Some(current) => {
            text.push_line(Line::styled(
                "changes from this version to the current one:",
                theme.muted,
            ));
            let spans: Vec<Span> = diff::words(&p.summary, current)
                .into_iter()
                .flat_map(|c| {
                    let (word, style) = match c {
                        Change::Same(w) => (w, theme.text),
                        Change::Added(w) => (w, theme.added),
                        Change::Removed(w) => (w, theme.removed),
                    };
                    [Span::styled(word.to_string(), style), Span::raw(" ")]
                })
                .collect();
            text.push_line(Line::from(spans));
        }
        None => {
            for line in p.summary.lines() {
                text.push_line(Line::styled(line.to_string(), theme.text));
            }
        }
    }
    if !p.tags.is_empty() {
        text.push_line(Line::default());
        text.push_line(heading("tags"));
        for (k, v) in &p.tags {
            let system = k.starts_with('_');
            text.push_line(Line::from(vec![
                Span::styled(
                    format!("  {k}"),
                    if system { theme.muted } else { theme.tag },
                ),
                Span::styled(
                    format!("={v}"),
                    if system { theme.muted } else { theme.text },
                ),
            ]));
        }
    }
    if !p.edges.is_empty() {
        text.push_line(Line::default());
        text.push_line(heading("edges (Tab, then Enter follows)"));
        for (i, (label, target)) in p.edges.iter().enumerate() {
            let chosen = app.focus == Focus::Preview && i == app.edge;
            let style = if chosen { theme.selected } else { theme.text };
            text.push_line(Line::styled(format!("  {label} → {target}"), style));
        }
    }
    if !p.history.is_empty() {
        text.push_line(Line::default());
        text.push_line(heading("versions ([ older, ] newer)"));
        for (n, date, line) in &p.history {
            let style = if *n == p.version {
                theme.selected
            } else {
                theme.text
            };
            text.push_line(Line::styled(format!("  @V{{{n}}} {date}  {line}"), style));
        }
    }
    if !p.parts.is_empty() {
        text.push_line(Line::default());
        text.push_line(heading(&format!("parts ({})", p.parts.len())));
        for (i, line) in p.parts.iter().enumerate() {
            text.push_line(Line::styled(
                format!("  @P{{{}}} {line}", i + 1),
                theme.text,
            ));
        }
    }
    if let Some(similar) = &p.similar {
        text.push_line(Line::default());
        text.push_line(heading("similar"));
        if similar.is_empty() {
            text.push_line(Line::styled("  none", theme.muted));
        }
        for row in similar {
            text.push_line(Line::from(vec![
                Span::styled(format!("  {} ", row.id), theme.accent),
                Span::styled(row.line.clone(), theme.text),
            ]));
        }
    }
    frame.render_widget(
        Paragraph::new(text).block(block).wrap(Wrap { trim: false }),
        area,
    );
}

fn status_line(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    if let Mode::Confirm(action) = &app.mode {
        let question = match action {
            Confirm::Delete(id) => format!(" delete {id} and its history? y/n "),
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

fn help(theme: &Theme, frame: &mut Frame, area: Rect) {
    let width = area.width.min(78);
    let height = (KEYS.len() as u16 + 4).min(area.height);
    let rect = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    let lines: Vec<Line> = KEYS
        .iter()
        .map(|(keys, what)| {
            Line::from(vec![
                Span::styled(format!(" {keys:<22}"), theme.accent),
                Span::styled((*what).to_string(), theme.text),
            ])
        })
        .collect();
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines)
            .block(pane(" keys (any key closes) ".into(), true, theme))
            .style(Style::default()),
        rect,
    );
}
