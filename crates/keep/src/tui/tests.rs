//! Tests of the pure `update` for every action, and snapshots of the main
//! screens drawn on ratatui's `TestBackend`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::app::{
    App, Background, Confirm, Effect, Focus, Mode, Msg, Preview, Row, SearchMode, update,
};
use super::doc::{self, Item};
use super::query::Query;
use super::theme::Theme;
use super::view::view;
use keep_core::model::ListOrder;

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn ch(c: char) -> Msg {
    key(KeyCode::Char(c))
}

fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

fn row(i: usize) -> Row {
    Row {
        id: format!("note-{i}"),
        title: (i == 1).then(|| "Harbour log, autumn".to_string()),
        date: format!("2026-11-{:02} 09:30", 1 + i % 28),
        line: format!("Line {i} about tide pools and harbour lights"),
        tags: if i.is_multiple_of(2) {
            "topic=sea".into()
        } else {
            String::new()
        },
        why: None,
    }
}

fn page(start: usize, total: usize) -> Msg {
    let end = (start + super::app::PAGE).min(total);
    Msg::Page {
        start,
        total,
        rows: (start..end).map(row).collect(),
    }
}

fn preview_of(id: &str) -> Preview {
    Preview {
        id: id.into(),
        title: None,
        version: 0,
        versions: 2,
        summary: "The harbour lights were repaired on Tuesday.".into(),
        current: None,
        tags_added: vec![],
        tags_removed: vec![],
        date: "2026-11-20 10:00".into(),
        tags: vec![
            ("author".into(), "alice".into()),
            ("topic".into(), "sea".into()),
        ],
        edges: vec![
            ("author".into(), "alice".into()),
            ("mentioned".into(), "%0123456789ab".into()),
        ],
        history: vec![
            (
                1,
                "2026-11-19 10:00".into(),
                "The harbour lights were broken.".into(),
            ),
            (
                2,
                "2026-11-18 10:00".into(),
                "Harbour lights: first note.".into(),
            ),
        ],
        parts: Default::default(),
        source: None,
        similar: None,
    }
}

/// An app showing 1,000 notes with the first selected and previewed.
fn browsing() -> App {
    let mut app = App::new(120, 30);
    app.start();
    update(&mut app, page(0, 1000));
    update(&mut app, Msg::Preview(Box::new(preview_of("note-0"))));
    app.catalog = vec![
        ("author".into(), vec!["alice".into(), "albert".into()]),
        ("topic".into(), vec!["sea".into(), "sky".into()]),
    ];
    app.background = Background {
        notes: 1000,
        pending_embeddings: 3,
        watcher: None,
    };
    app
}

/// The preview document as the pane of `app` lays it out.
fn preview_lines(app: &App) -> Vec<doc::DocLine> {
    let width = app.areas.unwrap().preview_rows().width;
    doc::lines(app.preview.as_ref().unwrap(), usize::from(width))
}

fn searches(effects: &[Effect]) -> Vec<(u64, Query)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Search {
                generation, query, ..
            } => Some((*generation, query.clone())),
            _ => None,
        })
        .collect()
}

/// Types `text` one key at a time.
fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        update(app, ch(c));
    }
}

/// Search results of `generation`.
fn results(generation: u64, rows: Vec<Row>, semantic: bool, notices: Vec<String>) -> Msg {
    Msg::Results {
        generation,
        rows,
        semantic,
        notices,
    }
}

/// The effect of previewing version `version` (0 = current) of `id`.
fn preview(id: &str, version: i64) -> Vec<Effect> {
    vec![Effect::LoadPreview {
        id: id.into(),
        version,
    }]
}

#[test]
fn start_loads_the_first_page_status_and_catalog() {
    let mut app = App::new(80, 24);
    let effects = app.start();
    assert_eq!(
        effects,
        vec![
            Effect::LoadPage {
                start: 0,
                order: ListOrder::Updated
            },
            Effect::LoadBackground,
            Effect::LoadCatalog
        ]
    );
    let effects = update(&mut app, page(0, 1000));
    assert_eq!(app.total, 1000);
    assert_eq!(effects, preview("note-0", 0));
}

#[test]
fn moving_previews_the_new_row_and_pages_ahead() {
    let mut app = browsing();
    let effects = update(&mut app, ch('j'));
    assert_eq!(app.selected, 1);
    assert!(effects.contains(&Effect::LoadPreview {
        id: "note-1".into(),
        version: 0
    }));
    update(&mut app, ch('k'));
    assert_eq!(app.selected, 0);
    let effects = update(&mut app, ch('G'));
    assert_eq!(app.selected, 999);
    assert!(effects.contains(&Effect::LoadPage {
        start: 999 - super::app::PAGE / 2,
        order: ListOrder::Updated
    }));
    assert!(app.scroll + app.visible > 999, "the last row is in view");
    update(&mut app, ch('g'));
    assert_eq!((app.selected, app.scroll), (0, 0));
    update(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.selected, app.visible);
    update(&mut app, ctrl('u'));
    assert_eq!(app.selected, 0);
}

#[test]
fn rows_outside_the_loaded_page_are_absent_until_it_arrives() {
    let mut app = browsing();
    update(&mut app, ch('G'));
    assert!(app.row(999).is_none());
    update(&mut app, page(899, 1000));
    assert_eq!(app.row(999).map(|r| r.id.as_str()), Some("note-999"));
}

#[test]
fn typing_searches_at_each_key_and_drops_stale_results() {
    let mut app = browsing();
    update(&mut app, ch('/'));
    assert_eq!(app.mode, Mode::Search);
    update(&mut app, ch('t'));
    let effects = update(&mut app, ch('i'));
    let sent = searches(&effects);
    assert_eq!(sent.len(), 1);
    let (generation, query) = sent[0].clone();
    assert_eq!(query.text, "ti");
    // Results of the first key arrive late: dropped.
    update(
        &mut app,
        results(generation - 1, vec![row(5)], false, vec![]),
    );
    assert!(app.results.is_none());
    update(
        &mut app,
        results(generation, vec![row(7), row(8)], false, vec![]),
    );
    assert_eq!(app.len(), 2);
    assert_eq!(app.selected_id(), Some("note-7"));
    // Semantic results merge and keep the selection where it was.
    update(&mut app, key(KeyCode::Enter));
    assert_eq!(app.mode, Mode::Browse);
    update(&mut app, ch('j'));
    update(
        &mut app,
        results(generation, vec![row(9), row(8), row(7)], true, vec![]),
    );
    assert_eq!(app.selected_id(), Some("note-8"));
    assert!(app.results.as_ref().unwrap().semantic);
    // A keyword answer after the semantic one does not replace it.
    update(&mut app, results(generation, vec![row(1)], false, vec![]));
    assert_eq!(app.len(), 3);
}

#[test]
fn filters_in_the_search_bar_become_query_fields() {
    let mut app = browsing();
    update(&mut app, ch('/'));
    let mut effects = Vec::new();
    for c in "lights #topic=sea since:P7D".chars() {
        effects = update(&mut app, ch(c));
    }
    let (_, query) = searches(&effects).pop().unwrap();
    assert_eq!(query.text, "lights");
    assert_eq!(query.tags, vec!["topic=sea"]);
    assert_eq!(query.since.as_deref(), Some("P7D"));
}

#[test]
fn escape_goes_back_one_level_then_clears_the_search() {
    let mut app = browsing();
    typed(&mut app, "/x");
    let generation = app.generation;
    update(
        &mut app,
        results(
            generation,
            vec![row(3)],
            false,
            vec!["keyword recall only".into()],
        ),
    );
    assert_eq!(app.message.as_ref().unwrap().0, "keyword recall only");
    let effects = update(&mut app, key(KeyCode::Esc));
    assert_eq!(app.mode, Mode::Browse, "Esc leaves the search bar first");
    assert!(app.results.is_some() && effects.is_empty());
    let effects = update(&mut app, key(KeyCode::Esc));
    assert!(app.results.is_none() && app.query.is_empty());
    assert!(effects.contains(&Effect::LoadPage {
        start: 0,
        order: ListOrder::Updated
    }));
}

#[test]
fn a_system_key_in_the_search_bar_is_an_error_not_a_search() {
    let mut app = browsing();
    update(&mut app, ch('/'));
    let mut effects = Vec::new();
    for c in "#_x".chars() {
        effects = update(&mut app, ch(c));
    }
    assert!(searches(&effects).is_empty());
    assert!(app.message.as_ref().unwrap().0.contains("'_'"));
}

#[test]
fn s_cycles_sort_orders_and_reloads_from_the_top() {
    let mut app = browsing();
    update(&mut app, ch('j'));
    let effects = update(&mut app, ch('s'));
    assert_eq!(app.order, ListOrder::Created);
    assert_eq!(app.selected, 0);
    assert!(effects.contains(&Effect::LoadPage {
        start: 0,
        order: ListOrder::Created
    }));
    typed(&mut app, "sss");
    assert_eq!(app.order, ListOrder::Updated);
}

#[test]
fn adding_tags_completes_keys_and_values_then_sends_them() {
    let mut app = browsing();
    typed(&mut app, "ta");
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(
        app.mode,
        Mode::Input {
            prompt: super::app::Prompt::AddTags,
            text: "author=".into()
        }
    );
    typed(&mut app, "al");
    update(&mut app, key(KeyCode::Tab));
    // alice and albert share "al": nothing longer to add.
    update(&mut app, ch('i'));
    update(&mut app, key(KeyCode::Tab));
    typed(&mut app, " t");
    update(&mut app, key(KeyCode::Tab));
    update(&mut app, ch('s'));
    update(&mut app, key(KeyCode::Tab));
    // sea and sky share only "s".
    update(&mut app, ch('e'));
    update(&mut app, key(KeyCode::Tab));
    let effects = update(&mut app, key(KeyCode::Enter));
    assert_eq!(
        effects,
        vec![Effect::AddTags {
            ids: vec!["note-0".into()],
            tags: vec!["author=alice".into(), "topic=sea".into()]
        }]
    );
    assert_eq!(app.mode, Mode::Browse);
}

#[test]
fn removing_tags_completes_from_the_note_and_sends_them() {
    let mut app = browsing();
    typed(&mut app, "xt");
    update(&mut app, key(KeyCode::Tab));
    let effects = update(&mut app, key(KeyCode::Enter));
    assert_eq!(
        effects,
        vec![Effect::RemoveTags {
            ids: vec!["note-0".into()],
            tags: vec!["topic".into()]
        }]
    );
}

#[test]
fn escape_abandons_a_prompt_and_empty_input_sends_nothing() {
    let mut app = browsing();
    typed(&mut app, "ta");
    assert!(update(&mut app, key(KeyCode::Esc)).is_empty());
    assert_eq!(app.mode, Mode::Browse);
    update(&mut app, ch('n'));
    assert!(update(&mut app, key(KeyCode::Enter)).is_empty());
    assert_eq!(app.message.as_ref().unwrap().0, "nothing entered");
}

#[test]
fn delete_and_revert_wait_for_y() {
    let mut app = browsing();
    update(&mut app, ch('D'));
    assert_eq!(
        app.mode,
        Mode::Confirm(Confirm::Delete(vec!["note-0".into()]))
    );
    assert_eq!(
        update(&mut app, ch('y')),
        vec![Effect::Delete {
            ids: vec!["note-0".into()]
        }]
    );
    update(&mut app, ch('r'));
    assert_eq!(app.mode, Mode::Confirm(Confirm::Revert("note-0".into())));
    assert!(update(&mut app, ch('n')).is_empty());
    assert_eq!(app.message.as_ref().unwrap().0, "cancelled");
    update(&mut app, ch('r'));
    assert_eq!(
        update(&mut app, ch('Y')),
        vec![Effect::Revert {
            id: "note-0".into()
        }]
    );
}

#[test]
fn editing_hands_the_summary_to_the_editor_and_stores_the_result() {
    let mut app = browsing();
    let effects = update(&mut app, ch('e'));
    assert_eq!(
        effects,
        vec![Effect::Edit {
            id: "note-0".into(),
            text: "The harbour lights were repaired on Tuesday.".into()
        }]
    );
    let effects = update(
        &mut app,
        Msg::Edited {
            id: "note-0".into(),
            text: Some("Repaired on Wednesday.".into()),
        },
    );
    assert_eq!(
        effects,
        vec![Effect::SetSummary {
            id: "note-0".into(),
            text: "Repaired on Wednesday.".into()
        }]
    );
    assert!(
        update(
            &mut app,
            Msg::Edited {
                id: "note-0".into(),
                text: None
            }
        )
        .is_empty()
    );
    assert_eq!(app.message.as_ref().unwrap().0, "no change");
}

#[test]
fn editing_waits_for_the_preview() {
    let mut app = browsing();
    update(&mut app, ch('j'));
    assert!(update(&mut app, ch('e')).is_empty());
    assert_eq!(app.message.as_ref().unwrap().0, "the note is still loading");
}

#[test]
fn new_note_and_now_send_their_text() {
    let mut app = browsing();
    update(&mut app, ch('n'));
    for c in "buy rope".chars() {
        update(&mut app, ch(c));
    }
    assert_eq!(
        update(&mut app, key(KeyCode::Enter)),
        vec![Effect::Put {
            id: None,
            text: "buy rope".into()
        }]
    );
    update(&mut app, ch('N'));
    for c in "mending nets".chars() {
        update(&mut app, ch(c));
    }
    assert_eq!(
        update(&mut app, key(KeyCode::Enter)),
        vec![Effect::SetNow {
            text: "mending nets".into()
        }]
    );
}

#[test]
fn finished_actions_report_and_reload_failures_only_report() {
    let mut app = browsing();
    let effects = update(&mut app, Msg::Done("tagged note-0: a=b".into()));
    assert_eq!(app.message.as_ref().unwrap().0, "tagged note-0: a=b");
    assert!(effects.contains(&Effect::LoadCatalog));
    assert!(effects.iter().any(|e| matches!(e, Effect::LoadPage { .. })));
    // The page comes back with the same note selected: its preview is
    // loaded again, since the action changed it.
    let effects = update(&mut app, page(0, 1000));
    assert_eq!(effects, preview("note-0", 0));
    assert!(update(&mut app, page(0, 1000)).is_empty(), "only once");
    let effects = update(&mut app, Msg::Failed("database is locked".into()));
    assert!(effects.is_empty());
    assert_eq!(
        app.message,
        Some(("database is locked".into(), super::app::Severity::Error))
    );
    assert!(!app.quit);
}

#[test]
fn y_copies_the_id() {
    let mut app = browsing();
    assert_eq!(
        update(&mut app, ch('y')),
        vec![Effect::Copy("note-0".into())]
    );
    assert_eq!(app.message.as_ref().unwrap().0, "copied note-0");
}

#[test]
fn similar_notes_are_asked_for_and_shown_in_the_preview() {
    let mut app = browsing();
    assert_eq!(
        update(&mut app, ch('S')),
        vec![Effect::LoadSimilar {
            id: "note-0".into()
        }]
    );
    update(
        &mut app,
        Msg::Similar {
            id: "note-0".into(),
            rows: vec![row(4)],
        },
    );
    assert_eq!(app.preview.as_ref().unwrap().similar, Some(vec![row(4)]));
    // For another note they are dropped.
    update(
        &mut app,
        Msg::Similar {
            id: "note-9".into(),
            rows: vec![row(5)],
        },
    );
    assert_eq!(app.preview.as_ref().unwrap().similar, Some(vec![row(4)]));
}

#[test]
fn brackets_step_through_versions_within_bounds() {
    let mut app = browsing();
    assert_eq!(update(&mut app, ch('[')), preview("note-0", 1));
    assert!(update(&mut app, ch(']')).is_empty());
    assert_eq!(
        app.message.as_ref().unwrap().0,
        "this is the current version"
    );
    let mut older = preview_of("note-0");
    older.version = 2;
    update(&mut app, Msg::Preview(Box::new(older)));
    assert!(update(&mut app, ch('[')).is_empty());
    assert_eq!(app.message.as_ref().unwrap().0, "no older version");
}

#[test]
fn edges_are_picked_with_the_cursor_and_followed() {
    let mut app = browsing();
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(app.focus, Focus::Preview);
    let lines = preview_lines(&app);
    let second_edge = lines.iter().position(|l| l.item == Item::Edge(1)).unwrap();
    for _ in 0..second_edge {
        update(&mut app, ch('j'));
    }
    assert_eq!(app.cursor, second_edge);
    let effects = update(&mut app, key(KeyCode::Enter));
    assert_eq!(app.focus, Focus::List);
    let (_, query) = searches(&effects).pop().unwrap();
    assert_eq!(query.id.as_deref(), Some("%0123456789ab"));
    assert_eq!(app.query, "id:%0123456789ab");
}

/// A long document: 40 parts, each with a heading and a paragraph.
fn long_document() -> Preview {
    let mut p = preview_of("note-0");
    p.title = Some("Debian Reference, chapter 2".into());
    p.source = Some("/usr/share/doc/debian-reference/index.html".into());
    p.parts = std::sync::Arc::new(
        (1..=40)
            .map(|i| format!("2.{i}. Package management step {i}\nThe full paragraph of step {i}."))
            .collect(),
    );
    p
}

fn focus_preview_of(p: Preview) -> App {
    let mut app = browsing();
    update(&mut app, Msg::Preview(Box::new(p)));
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(app.focus, Focus::Preview);
    app
}

#[test]
fn the_preview_scrolls_to_the_last_part_and_enter_pages_it() {
    let mut app = focus_preview_of(long_document());
    let lines = preview_lines(&app);
    let height = usize::from(app.areas.unwrap().preview_rows().height);
    assert!(lines.len() > height, "the document is longer than the pane");
    update(&mut app, ch('G'));
    assert_eq!(app.cursor, lines.len() - 1);
    assert_eq!(app.preview_scroll, lines.len() - height);
    assert_eq!(lines[app.cursor].item, Item::Part(39));
    let effects = update(&mut app, key(KeyCode::Enter));
    assert_eq!(
        effects,
        vec![Effect::Pager(
            "note-0@P{40}\n\n2.40. Package management step 40\nThe full paragraph of step 40.\n"
                .into()
        )]
    );
    update(&mut app, key(KeyCode::PageUp));
    assert_eq!(app.preview_scroll, lines.len() - 2 * height);
    update(&mut app, ch('g'));
    assert_eq!((app.cursor, app.preview_scroll), (0, 0));
    update(&mut app, ch(' '));
    assert_eq!(
        app.preview_scroll, height,
        "Space pages down in the preview"
    );
    assert_eq!(app.selected, 0, "the list did not move");
}

#[test]
fn the_wheel_over_the_preview_scrolls_it_not_the_list() {
    let mut app = browsing();
    update(&mut app, Msg::Preview(Box::new(long_document())));
    let preview = app.areas.unwrap().preview;
    let wheel = Msg::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: preview.x + 3,
        row: preview.y + 3,
        modifiers: KeyModifiers::NONE,
    });
    update(&mut app, wheel.clone());
    update(&mut app, wheel);
    assert_eq!(app.preview_scroll, 6);
    assert_eq!(app.selected, 0);
    assert!(
        app.cursor >= app.preview_scroll,
        "the cursor stays on screen"
    );
}

#[test]
fn enter_in_the_list_pages_the_whole_note_and_o_opens_its_source() {
    let mut app = browsing();
    update(&mut app, Msg::Preview(Box::new(long_document())));
    let effects = update(&mut app, key(KeyCode::Enter));
    let [Effect::Pager(text)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert!(text.starts_with("note-0\n\n"), "{text}");
    assert!(
        text.contains("2.40. Package management step 40\nThe full paragraph of step 40."),
        "the whole text, to its last part: {text}"
    );
    assert!(
        !text.contains("@P{"),
        "one text, not a list of parts: {text}"
    );
    assert_eq!(
        update(&mut app, ch('o')),
        vec![Effect::Open(
            "/usr/share/doc/debian-reference/index.html".into()
        )]
    );
    update(&mut app, Msg::Preview(Box::new(preview_of("note-0"))));
    assert!(update(&mut app, ch('o')).is_empty());
    assert_eq!(
        app.message.as_ref().unwrap().0,
        "this note has no file or URL to open"
    );
}

#[test]
fn enter_on_a_version_line_shows_that_version() {
    let mut app = focus_preview_of(preview_of("note-0"));
    let lines = preview_lines(&app);
    let oldest = lines
        .iter()
        .position(|l| l.item == Item::Version(2))
        .unwrap();
    for _ in 0..oldest {
        update(&mut app, key(KeyCode::Down));
    }
    assert_eq!(update(&mut app, key(KeyCode::Enter)), preview("note-0", 2));
}

#[test]
fn marked_notes_are_tagged_deleted_and_exported_together() {
    let mut app = browsing();
    typed(&mut app, " v");
    assert_eq!(app.selected, 2, "marking moves down");
    assert_eq!(app.targets(), vec!["note-0", "note-1"]);
    update(&mut app, ch('t'));
    for c in "status=done".chars() {
        update(&mut app, ch(c));
    }
    assert_eq!(
        update(&mut app, key(KeyCode::Enter)),
        vec![Effect::AddTags {
            ids: vec!["note-0".into(), "note-1".into()],
            tags: vec!["status=done".into()]
        }]
    );
    update(&mut app, ch('E'));
    assert_eq!(
        app.mode,
        Mode::Input {
            prompt: super::app::Prompt::Export,
            text: "keep-export.jsonl".into()
        }
    );
    assert_eq!(
        update(&mut app, key(KeyCode::Enter)),
        vec![Effect::Export {
            ids: vec!["note-0".into(), "note-1".into()],
            path: "keep-export.jsonl".into()
        }]
    );
    update(&mut app, ch('D'));
    let screen = render(&app, &dark(), 120, 30);
    assert!(
        screen.contains("delete 2 marked notes and their history? y/n"),
        "{screen}"
    );
    assert_eq!(
        update(&mut app, ch('y')),
        vec![Effect::Delete {
            ids: vec!["note-0".into(), "note-1".into()]
        }]
    );
    assert!(app.marked.is_empty(), "deleted notes are no longer marked");
}

#[test]
fn escape_goes_back_one_level_from_the_preview_marks_and_search() {
    let mut app = browsing();
    typed(&mut app, "/x");
    let generation = app.generation;
    update(
        &mut app,
        results(generation, vec![row(3), row(4)], true, vec![]),
    );
    update(&mut app, key(KeyCode::Esc));
    update(&mut app, ch('*'));
    assert_eq!(app.marked.len(), 2, "* marks every result");
    update(&mut app, key(KeyCode::Tab));
    update(&mut app, key(KeyCode::Esc));
    assert_eq!(app.focus, Focus::List);
    update(&mut app, key(KeyCode::Esc));
    assert!(app.marked.is_empty() && app.results.is_some());
    update(&mut app, key(KeyCode::Esc));
    assert!(app.results.is_none());
}

#[test]
fn the_search_mode_cycles_and_goes_with_each_search() {
    let mut app = browsing();
    update(&mut app, ch('/'));
    update(&mut app, ctrl('r'));
    let effects = update(&mut app, ch('a'));
    assert!(effects.iter().any(|e| matches!(
        e,
        Effect::Search {
            mode: SearchMode::Keyword,
            ..
        }
    )));
    update(&mut app, key(KeyCode::Enter));
    let effects = update(&mut app, ch('m'));
    assert_eq!(app.search_mode, SearchMode::Meaning);
    assert!(
        effects.iter().any(|e| matches!(
            e,
            Effect::Search {
                mode: SearchMode::Meaning,
                ..
            }
        )),
        "changing the mode searches again: {effects:?}"
    );
    update(&mut app, ch('m'));
    assert_eq!(app.search_mode, SearchMode::Hybrid);
}

#[test]
fn help_opens_and_any_key_closes_it() {
    let mut app = browsing();
    update(&mut app, ch('?'));
    assert_eq!(app.mode, Mode::Help);
    assert!(update(&mut app, ch('q')).is_empty());
    assert_eq!(app.mode, Mode::Browse);
    assert!(!app.quit);
}

#[test]
fn q_and_ctrl_c_quit() {
    let mut app = browsing();
    assert_eq!(update(&mut app, ch('q')), vec![Effect::Quit]);
    assert!(app.quit);
    let mut app = browsing();
    update(&mut app, ch('/'));
    assert_eq!(update(&mut app, ctrl('c')), vec![Effect::Quit]);
}

#[test]
fn the_mouse_scrolls_and_clicks_select() {
    let mut app = browsing();
    let mouse = |kind, column, row| {
        Msg::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    update(&mut app, mouse(MouseEventKind::ScrollDown, 5, 5));
    assert_eq!(app.selected, 3);
    update(
        &mut app,
        mouse(MouseEventKind::Down(MouseButton::Left), 5, 6),
    );
    assert_eq!(app.selected, 4, "row 6 is the fifth list row");
    update(
        &mut app,
        mouse(MouseEventKind::Down(MouseButton::Left), 110, 6),
    );
    assert_eq!(app.selected, 4, "a click in the preview selects nothing");
}

#[test]
fn background_facts_refresh_and_outside_changes_reload() {
    let mut app = browsing();
    app.dirty = false;
    assert_eq!(update(&mut app, Msg::Tick), vec![Effect::LoadBackground]);
    assert!(!app.dirty, "a tick alone changes nothing on screen");
    let facts = Background {
        notes: 1001,
        pending_embeddings: 0,
        watcher: Some("watching 1 folder(s), pid 42".into()),
    };
    let effects = update(
        &mut app,
        Msg::Background {
            facts: facts.clone(),
            changed: true,
        },
    );
    assert_eq!(app.background, facts);
    assert!(app.dirty);
    assert!(effects.iter().any(|e| matches!(e, Effect::LoadPage { .. })));
}

#[test]
fn resizing_changes_the_rows_shown() {
    let mut app = browsing();
    update(&mut app, Msg::Resize(80, 24));
    assert_eq!(app.visible, 22 * 55 / 100 - 2);
    update(&mut app, Msg::Resize(200, 60));
    assert_eq!(app.visible, 55);
}

// ---- screens ----

/// The screen as text, then each cell's style as a letter with a legend:
/// the snapshot shows layout and colours at once.
fn render(app: &App, theme: &Theme, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| view(app, theme, f)).unwrap();
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    let mut styles: Vec<ratatui::style::Style> = Vec::new();
    let mut marks = String::new();
    for y in 0..height {
        for x in 0..width {
            let cell = &buffer[(x, y)];
            text.push_str(cell.symbol());
            let style = cell.style();
            let i = styles.iter().position(|s| *s == style).unwrap_or_else(|| {
                styles.push(style);
                styles.len() - 1
            });
            marks.push(char::from(
                b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[i % 52],
            ));
        }
        text.push('\n');
        marks.push('\n');
    }
    let legend: Vec<String> = styles
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "{}: fg {:?} bg {:?} {:?}",
                char::from(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[i % 52]),
                s.fg,
                s.bg,
                s.add_modifier
            )
        })
        .collect();
    format!("{text}\n{marks}\n{}\n", legend.join("\n"))
}

fn dark() -> Theme {
    Theme::named("dark", None).unwrap()
}

#[test]
fn screen_browse_wide_dark() {
    insta::assert_snapshot!(render(&browsing(), &dark(), 120, 30));
}

#[test]
fn screen_browse_narrow_high_contrast() {
    let mut app = browsing();
    update(&mut app, Msg::Resize(80, 24));
    insta::assert_snapshot!(render(
        &app,
        &Theme::named("high-contrast", None).unwrap(),
        80,
        24
    ));
}

#[test]
fn screen_search_results_wide_light() {
    let mut app = browsing();
    for c in "/lights #topic=sea".chars() {
        update(&mut app, ch(c));
    }
    let generation = app.generation;
    let mut hits: Vec<Row> = (0..3).map(row).collect();
    hits[0].why = Some("kw 1 · sem 2".into());
    hits[1].why = Some("sem 1".into());
    hits[2].why = Some("via author of note-0".into());
    update(
        &mut app,
        Msg::Results {
            generation,
            rows: hits,
            semantic: true,
            notices: vec![],
        },
    );
    insta::assert_snapshot!(render(&app, &Theme::named("light", None).unwrap(), 120, 30));
}

#[test]
fn screen_version_diff_and_confirm_narrow_dark() {
    let mut app = browsing();
    update(&mut app, Msg::Resize(80, 24));
    let mut older = preview_of("note-0");
    older.version = 1;
    older.summary = "The harbour lights were broken.".into();
    older.current = Some("The harbour lights were repaired on Tuesday.".into());
    update(&mut app, Msg::Preview(Box::new(older)));
    update(&mut app, ch('D'));
    insta::assert_snapshot!(render(&app, &dark(), 80, 24));
}

#[test]
fn screen_long_document_scrolled_to_a_late_part() {
    let mut app = focus_preview_of(long_document());
    update(&mut app, ch('G'));
    for _ in 0..3 {
        update(&mut app, ch('k'));
    }
    insta::assert_snapshot!(render(&app, &dark(), 120, 30));
}

#[test]
fn screen_version_with_a_tag_change() {
    let mut app = browsing();
    let mut older = preview_of("note-0");
    older.version = 1;
    older.current = Some(older.summary.clone());
    older.tags_added = vec!["status=fixed".into()];
    older.tags_removed = vec!["status=open".into()];
    older.history[0].2 = "tags changed next: +status=fixed −status=open".into();
    update(&mut app, Msg::Preview(Box::new(older)));
    insta::assert_snapshot!(render(&app, &dark(), 120, 30));
}

#[test]
fn screen_marked_notes_bulk_tag_prompt_narrow() {
    let mut app = browsing();
    update(&mut app, Msg::Resize(70, 24));
    let mut rows: Vec<Row> = (0..6).map(row).collect();
    rows[2].id = "file:///usr/share/doc/apt/html/guide/ch2.html".into();
    rows[3].title = Some("The Debian Administrator's Handbook".into());
    update(
        &mut app,
        Msg::Page {
            start: 0,
            total: 6,
            rows,
        },
    );
    for _ in 0..3 {
        update(&mut app, ch(' '));
    }
    update(&mut app, ch('t'));
    for c in "topic=apt".chars() {
        update(&mut app, ch(c));
    }
    insta::assert_snapshot!(render(&app, &Theme::monochrome(), 70, 24));
}

#[test]
fn screen_help_overlay_monochrome() {
    let mut app = browsing();
    update(&mut app, ch('?'));
    insta::assert_snapshot!(render(&app, &Theme::monochrome(), 120, 30));
}

#[test]
fn screen_too_small() {
    let mut app = App::new(20, 5);
    update(&mut app, page(0, 3));
    insta::assert_snapshot!(render(&app, &dark(), 20, 5));
}

#[test]
fn screen_empty_store() {
    let mut app = App::new(80, 24);
    update(&mut app, page(0, 0));
    let screen = render(&app, &dark(), 80, 24);
    assert!(
        screen.contains("no notes yet: press n to write one"),
        "{screen}"
    );
}

#[test]
fn base64_pads_like_the_standard() {
    use super::base64;
    assert_eq!(base64(b""), "");
    assert_eq!(base64(b"f"), "Zg==");
    assert_eq!(base64(b"fo"), "Zm8=");
    assert_eq!(base64(b"foo"), "Zm9v");
    assert_eq!(base64(b"file:///a"), "ZmlsZTovLy9h");
}

#[test]
fn a_narrow_screen_keeps_the_search_bar_readable_and_drops_the_date() {
    let mut app = browsing();
    update(&mut app, Msg::Resize(44, 14));
    let screen = render(&app, &dark(), 44, 14);
    let first = screen.lines().next().unwrap();
    assert!(first.contains("search (/), help (?)  "), "{first}");
    assert!(first.trim_end().ends_with("hybrid"), "{first}");
    let row = screen.lines().nth(2).unwrap();
    assert!(
        row.starts_with("│ note-0 "),
        "no date on a narrow list: {row}"
    );
}
