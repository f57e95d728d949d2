//! The browser's keys as people read them: the full list (help overlay,
//! `keep ui --help`, the man page) and the short hints of the footer for
//! whatever has focus.

use super::app::{App, Focus, Mode};

/// Every key, by where it works.
pub const KEYS: &[(&str, &[(&str, &str)])] = &[
    (
        "list",
        &[
            ("j k ↓ ↑", "move; wheel scrolls, click selects"),
            ("PgDn PgUp ^D ^U", "page down, up"),
            ("g G Home End", "first, last note"),
            ("Enter", "the note in full, in $PAGER"),
            ("Tab → l", "into the preview"),
            ("Space v", "mark or unmark, then move down"),
            ("*", "mark or unmark all search results"),
            ("s", "sort: updated, created, accessed, id"),
            ("Esc", "back: unmark, then clear the search"),
        ],
    ),
    (
        "preview",
        &[
            ("j k ↓ ↑", "move the cursor; wheel scrolls"),
            ("PgDn PgUp Space b", "page down, up (also ^D ^U)"),
            ("g G Home End", "top, bottom"),
            ("Enter on a part", "the part in full, in $PAGER"),
            ("Enter on an edge", "go to that note (also similar notes)"),
            ("Enter on a version", "show that version"),
            ("Enter elsewhere", "the note in full, in $PAGER"),
            ("Esc Tab ← h", "back to the list"),
        ],
    ),
    (
        "search bar",
        &[
            (
                "/",
                "search: words, #key=value, since:P7D until:DATE in:GLOB id:ID",
            ),
            ("^R (m in the list)", "mode: hybrid, keyword, meaning"),
            ("Enter ↓ Tab Esc", "back to the results"),
            ("^U", "clear"),
        ],
    ),
    (
        "the marked notes, else the selected",
        &[
            ("t", "add tags (Tab completes)"),
            ("x", "remove tags (Tab completes)"),
            ("D Del", "delete (asks, naming how many)"),
            ("E", "export to a file, as keep export"),
        ],
    ),
    (
        "the selected note",
        &[
            ("o", "open its file or URL ($KEEP_OPENER)"),
            ("[ ]", "older, newer version, with changes"),
            ("S", "similar notes, in the preview"),
            ("e", "edit the summary in $VISUAL, $EDITOR"),
            ("r", "revert to the previous version"),
            ("y", "copy the id (OSC 52)"),
        ],
    ),
    (
        "anywhere",
        &[
            ("n", "new note"),
            ("N", "set now"),
            ("^L", "reload"),
            ("?", "this help"),
            ("q ^C", "quit"),
        ],
    ),
];

/// How many sections of `KEYS` the help overlay puts in its left column.
pub const LEFT_SECTIONS: usize = 2;

/// The footer's hints for the current mode and focus.
pub fn hints(app: &App) -> Vec<(&'static str, &'static str)> {
    match &app.mode {
        Mode::Help => vec![("any key", "close")],
        Mode::Search => vec![
            ("type", "search"),
            ("^R", "mode"),
            ("^U", "clear"),
            ("Enter", "results"),
            ("Esc", "back"),
        ],
        Mode::Input { .. } => vec![("Tab", "complete"), ("Enter", "apply"), ("Esc", "cancel")],
        Mode::Confirm(_) => vec![("y", "yes"), ("any other key", "no")],
        Mode::Browse if app.focus == Focus::Preview => vec![
            ("j/k", "line"),
            ("PgDn/PgUp", "page"),
            ("Enter", "open"),
            ("o", "source"),
            ("[ ]", "versions"),
            ("t/x", "tags"),
            ("Esc", "list"),
            ("?", "keys"),
        ],
        Mode::Browse if !app.marked.is_empty() => vec![
            ("Space", "mark"),
            ("t", "tag marked"),
            ("x", "untag marked"),
            ("D", "delete marked"),
            ("E", "export marked"),
            ("Esc", "unmark"),
            ("?", "keys"),
        ],
        Mode::Browse => {
            let mut hints = vec![
                ("/", "search"),
                ("Enter", "read"),
                ("Tab", "preview"),
                ("Space", "mark"),
                ("t", "tag"),
                ("D", "delete"),
            ];
            if app.results.is_some() {
                hints.extend([("m", "mode"), ("Esc", "clear")]);
            } else {
                hints.push(("s", "sort"));
            }
            hints.extend([("?", "keys"), ("q", "quit")]);
            hints
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KEYS;

    #[test]
    fn the_browser_document_lists_every_key_as_the_help_does() {
        let readme = include_str!("../../../../docs/browser.md");
        for (section, keys) in KEYS {
            for (key, what) in *keys {
                let row = format!("| `{key}` | {section} | {what} |");
                assert!(readme.contains(&row), "docs/browser.md lacks {row}");
            }
        }
    }
}
