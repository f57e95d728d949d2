//! Themes: the TOML files of the crate's `themes/` (built in), user themes in
//! `<config dir>/keep/themes/NAME.toml`, and the monochrome theme that
//! `NO_COLOR` asks for.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// Built-in themes: name and TOML text.
pub const BUILT_IN: [(&str, &str); 3] = [
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

/// The colours of a theme file, each a name, `#rrggbb` or `reset`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    text: String,
    muted: String,
    accent: String,
    tag: String,
    border: String,
    selection_fg: String,
    selection_bg: String,
    status_fg: String,
    status_bg: String,
    error: String,
    added: String,
    removed: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    pub name: String,
    pub text: Style,
    pub muted: Style,
    pub accent: Style,
    pub tag: Style,
    pub border: Style,
    pub selected: Style,
    pub status: Style,
    pub error: Style,
    pub added: Style,
    pub removed: Style,
}

fn color(field: &str, value: &str) -> Result<Color, String> {
    Color::from_str(value).map_err(|_| format!("{field} = '{value}' is not a colour"))
}

impl Theme {
    fn from_toml(name: &str, text: &str) -> Result<Theme, String> {
        let file: ThemeFile = toml::from_str(text).map_err(|e| e.message().to_string())?;
        let fg = |field: &str, value: &str| Ok::<_, String>(Style::new().fg(color(field, value)?));
        Ok(Theme {
            name: name.to_string(),
            text: fg("text", &file.text)?,
            muted: fg("muted", &file.muted)?,
            accent: fg("accent", &file.accent)?.add_modifier(Modifier::BOLD),
            tag: fg("tag", &file.tag)?,
            border: fg("border", &file.border)?,
            selected: Style::new()
                .fg(color("selection_fg", &file.selection_fg)?)
                .bg(color("selection_bg", &file.selection_bg)?),
            status: Style::new()
                .fg(color("status_fg", &file.status_fg)?)
                .bg(color("status_bg", &file.status_bg)?),
            error: fg("error", &file.error)?.add_modifier(Modifier::BOLD),
            added: fg("added", &file.added)?,
            removed: fg("removed", &file.removed)?.add_modifier(Modifier::CROSSED_OUT),
        })
    }

    /// No colour at all: emphasis by weight, reversal and underline only.
    pub fn monochrome() -> Theme {
        let plain = Style::new();
        Theme {
            name: "monochrome".into(),
            text: plain,
            muted: plain.add_modifier(Modifier::DIM),
            accent: plain.add_modifier(Modifier::BOLD),
            tag: plain.add_modifier(Modifier::ITALIC),
            border: plain,
            selected: plain.add_modifier(Modifier::REVERSED),
            status: plain.add_modifier(Modifier::REVERSED),
            error: plain.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            added: plain.add_modifier(Modifier::UNDERLINED),
            removed: plain.add_modifier(Modifier::CROSSED_OUT),
        }
    }

    /// A built-in theme, or `<config dir>/keep/themes/NAME.toml`.
    /// A built-in theme, `monochrome`, or `NAME.toml` in `themes_dir`.
    pub fn named(name: &str, themes_dir: Option<&Path>) -> Result<Theme, String> {
        if name == "monochrome" {
            return Ok(Theme::monochrome());
        }
        if let Some((_, text)) = BUILT_IN.iter().find(|(n, _)| *n == name) {
            return Theme::from_toml(name, text);
        }
        let path = user_theme_path(name, themes_dir);
        match path.as_ref().map(std::fs::read_to_string) {
            Some(Ok(text)) => Theme::from_toml(name, &text)
                .map_err(|e| format!("theme {}: {e}", path.unwrap_or_default().display())),
            _ => Err(format!(
                "no theme '{name}': built in are {}, monochrome; or add {}",
                BUILT_IN.map(|(n, _)| n).join(", "),
                path.map_or_else(
                    || format!("themes/{name}.toml in the config directory"),
                    |p| p.display().to_string()
                )
            )),
        }
    }

    /// `NO_COLOR` wins; then the name asked for; then `dark`.
    pub fn choose(
        name: Option<&str>,
        no_color: bool,
        themes_dir: Option<&Path>,
    ) -> Result<Theme, String> {
        if no_color {
            return Ok(Theme::monochrome());
        }
        Theme::named(name.unwrap_or("dark"), themes_dir)
    }
}

fn user_theme_path(name: &str, themes_dir: Option<&Path>) -> Option<PathBuf> {
    if name.contains(['/', '\\']) || name.starts_with('.') {
        return None;
    }
    Some(themes_dir?.join(format!("{name}.toml")))
}

#[cfg(test)]
mod tests {
    use super::{BUILT_IN, Theme};

    #[test]
    fn every_built_in_theme_parses() {
        for (name, _) in BUILT_IN {
            let theme = Theme::named(name, None).unwrap();
            assert_eq!(theme.name, name);
            assert_ne!(theme.selected, theme.text);
        }
    }

    #[test]
    fn an_unknown_theme_names_the_choices() {
        let err = Theme::named("neon", None).unwrap_err();
        assert!(err.contains("dark, light, high-contrast"), "{err}");
    }

    #[test]
    fn a_bad_colour_is_reported_with_its_field() {
        let text = BUILT_IN[0].1.replace("#5fafff", "chartreuse-ish");
        let err = Theme::from_toml("x", &text).unwrap_err();
        assert!(err.contains("is not a colour"), "{err}");
    }
}
