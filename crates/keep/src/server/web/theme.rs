//! The terminal browser's theme as the page's colours: each colour of the
//! theme a CSS variable, the page's background chosen to suit its text.
//! Without a theme in the configuration the page follows the system's
//! light or dark preference with the built-in `light` and `dark` themes.

use ratatui::style::{Color, Style};

use crate::tui::theme::Theme;

/// The theme's style sheet (`/assets/theme.css`).
pub fn css(name: Option<&str>, themes_dir: Option<&std::path::Path>) -> String {
    let named = |n: &str| Theme::named(n, themes_dir).ok();
    match name.and_then(named) {
        Some(theme) => format!(":root{{{}}}\n", variables(&theme)),
        None => {
            let dark = named("dark").map(|t| variables(&t)).unwrap_or_default();
            let light = named("light").map(|t| variables(&t)).unwrap_or_default();
            format!(":root{{{dark}}}\n@media (prefers-color-scheme: light){{:root{{{light}}}}}\n")
        }
    }
}

fn variables(theme: &Theme) -> String {
    let fg = |style: &Style, fallback: &str| {
        style
            .fg
            .and_then(css_colour)
            .unwrap_or_else(|| fallback.into())
    };
    let bg = |style: &Style, fallback: &str| {
        style
            .bg
            .and_then(css_colour)
            .unwrap_or_else(|| fallback.into())
    };
    let text = fg(&theme.text, "CanvasText");
    let background = match theme.text.fg.and_then(rgb) {
        Some((r, g, b)) if luminance(r, g, b) < 0.5 => "#ffffff",
        Some(_) => "#141414",
        None => "Canvas",
    };
    [
        ("bg", background.to_string()),
        ("text", text),
        ("muted", fg(&theme.muted, "GrayText")),
        ("accent", fg(&theme.accent, "LinkText")),
        ("tag", fg(&theme.tag, "CanvasText")),
        ("border", fg(&theme.border, "GrayText")),
        ("sel-fg", fg(&theme.selected, "HighlightText")),
        ("sel-bg", bg(&theme.selected, "Highlight")),
        ("bar-fg", fg(&theme.status, "CanvasText")),
        ("bar-bg", bg(&theme.status, "Canvas")),
        ("error", fg(&theme.error, "CanvasText")),
        ("added", fg(&theme.added, "CanvasText")),
        ("removed", fg(&theme.removed, "CanvasText")),
    ]
    .iter()
    .map(|(name, value)| format!("--{name}:{value};"))
    .collect()
}

fn luminance(r: u8, g: u8, b: u8) -> f64 {
    (0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b)) / 255.0
}

/// A terminal colour as red, green and blue (the usual xterm values).
fn rgb(colour: Color) -> Option<(u8, u8, u8)> {
    const BASIC: [(u8, u8, u8); 16] = [
        (0, 0, 0),
        (205, 49, 49),
        (13, 188, 121),
        (229, 229, 16),
        (36, 114, 200),
        (188, 63, 188),
        (17, 168, 205),
        (229, 229, 229),
        (102, 102, 102),
        (241, 76, 76),
        (35, 209, 139),
        (245, 245, 67),
        (59, 142, 234),
        (214, 112, 214),
        (41, 184, 219),
        (255, 255, 255),
    ];
    let basic = |i: usize| Some(BASIC[i]);
    match colour {
        Color::Reset => None,
        Color::Rgb(r, g, b) => Some((r, g, b)),
        Color::Black => basic(0),
        Color::Red => basic(1),
        Color::Green => basic(2),
        Color::Yellow => basic(3),
        Color::Blue => basic(4),
        Color::Magenta => basic(5),
        Color::Cyan => basic(6),
        Color::Gray => basic(7),
        Color::DarkGray => basic(8),
        Color::LightRed => basic(9),
        Color::LightGreen => basic(10),
        Color::LightYellow => basic(11),
        Color::LightBlue => basic(12),
        Color::LightMagenta => basic(13),
        Color::LightCyan => basic(14),
        Color::White => basic(15),
        Color::Indexed(i) => Some(indexed(i)),
    }
}

/// One of xterm's 256 colours.
fn indexed(i: u8) -> (u8, u8, u8) {
    match i {
        0..=15 => rgb(match i {
            0 => Color::Black,
            1 => Color::Red,
            2 => Color::Green,
            3 => Color::Yellow,
            4 => Color::Blue,
            5 => Color::Magenta,
            6 => Color::Cyan,
            7 => Color::Gray,
            8 => Color::DarkGray,
            9 => Color::LightRed,
            10 => Color::LightGreen,
            11 => Color::LightYellow,
            12 => Color::LightBlue,
            13 => Color::LightMagenta,
            14 => Color::LightCyan,
            _ => Color::White,
        })
        .unwrap_or((0, 0, 0)),
        16..=231 => {
            let n = i - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            (level(n / 36), level((n / 6) % 6), level(n % 6))
        }
        _ => {
            let grey = 8 + (i - 232) * 10;
            (grey, grey, grey)
        }
    }
}

fn css_colour(colour: Color) -> Option<String> {
    rgb(colour).map(|(r, g, b)| format!("#{r:02x}{g:02x}{b:02x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configured_theme_gives_its_colours_and_none_follows_the_system() {
        let dark = css(Some("dark"), None);
        assert!(dark.contains("--accent:#5fafff;"), "{dark}");
        assert!(dark.contains("--bg:#141414;"), "{dark}");
        assert!(!dark.contains("@media"), "{dark}");
        let light = css(Some("light"), None);
        assert!(light.contains("--bg:#ffffff;"), "{light}");
        let system = css(None, None);
        assert!(system.contains("prefers-color-scheme: light"), "{system}");
        assert_eq!(indexed(196), (255, 0, 0));
        assert_eq!(indexed(244), (128, 128, 128));
    }
}
