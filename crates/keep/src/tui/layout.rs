//! Where everything sits on the screen, computed in one place: drawing
//! (`view`), the list's page size (`App::resize`) and mouse hit-testing all
//! read this layout, so they cannot drift apart.

use ratatui::layout::{Constraint, Direction, Layout, Position, Rect};

/// Screens at least this wide show the preview beside the list.
pub const WIDE: u16 = 100;
/// Below this size the browser shows a message instead.
pub const MIN_WIDTH: u16 = 40;
pub const MIN_HEIGHT: u16 = 8;
/// Share of the middle of the screen the list takes, in percent.
const LIST_SHARE: u16 = 55;

/// The areas of the browser's screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub search: Rect,
    /// The list pane, borders included.
    pub list: Rect,
    pub preview: Rect,
    pub status: Rect,
    /// The key hints of the focused pane.
    pub footer: Rect,
}

impl Areas {
    /// The rows of the list, inside its borders.
    pub fn list_rows(&self) -> Rect {
        self.list.inner(ratatui::layout::Margin::new(1, 1))
    }

    /// The lines of the preview, inside its borders.
    pub fn preview_rows(&self) -> Rect {
        self.preview.inner(ratatui::layout::Margin::new(1, 1))
    }

    /// The list row (0 = the first one shown) under a screen position.
    pub fn list_row_at(&self, column: u16, row: u16) -> Option<usize> {
        let rows = self.list_rows();
        rows.contains(Position::new(column, row))
            .then(|| usize::from(row - rows.y))
    }
}

/// The layout of a screen of `area`; None when it is too small to use.
pub fn layout(area: Rect) -> Option<Areas> {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return None;
    }
    let [search, middle, status, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let direction = if area.width >= WIDE {
        Direction::Horizontal
    } else {
        Direction::Vertical
    };
    let [list, preview] = Layout::default()
        .direction(direction)
        .constraints([
            Constraint::Percentage(LIST_SHARE),
            Constraint::Percentage(100 - LIST_SHARE),
        ])
        .areas(middle);
    Some(Areas {
        search,
        list,
        preview,
        status,
        footer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_screens_put_the_preview_beside_the_list() {
        let areas = layout(Rect::new(0, 0, 120, 30)).unwrap();
        assert_eq!(areas.list.y, areas.preview.y);
        assert_eq!(areas.list_rows().height, 25);
        assert_eq!(areas.list_row_at(1, 2), Some(0));
        assert_eq!(areas.list_row_at(1, 1), None, "the border is not a row");
        assert_eq!(areas.list_row_at(areas.preview.x + 1, 5), None);
    }

    #[test]
    fn narrow_screens_stack_them_and_tiny_ones_have_no_layout() {
        let areas = layout(Rect::new(0, 0, 80, 24)).unwrap();
        assert_eq!(areas.list.x, areas.preview.x);
        assert!(areas.list.y < areas.preview.y);
        assert!(layout(Rect::new(0, 0, 39, 24)).is_none());
        assert!(layout(Rect::new(0, 0, 80, 7)).is_none());
    }
}
