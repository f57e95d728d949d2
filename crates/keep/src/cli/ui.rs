//! `keep ui`: the full-screen browser.

use clap_complete::ArgValueCompleter;

use super::complete;
use std::io::IsTerminal;
use std::sync::Arc;

use keep_core::Keeper;

use super::{CliError, CliResult, Ctx, Status};
use crate::tui::{self, UiOptions, theme::Theme};

/// Browse, search, read and tag notes in a full-screen terminal browser.
///
/// The list shows every note by its title or id (sort with s); / searches
/// as you type: keyword results at once, merged with semantic ones when the
/// model has answered; ^R (m in the list) switches between hybrid, keyword
/// and meaning. In the search bar, #key=value filters by tag, since:P7D
/// and until:2026-11-01 bound the time, in:GLOB limits ids. Tab moves into
/// the preview, which scrolls through the whole note: text, tags, edges,
/// versions (with a word diff and the tags changed) and every part; Enter
/// opens a part, or the whole note, in $PAGER, follows an edge or shows a
/// version; o opens the note's file or URL. Space or v marks notes; t, x,
/// D and E then tag, untag, delete or export all of them. Esc goes back
/// one level anywhere; the footer shows the keys of what has focus and ?
/// lists them all.
///
/// Themes: dark (default), light, high-contrast, or a file
/// <config dir>/keep/themes/NAME.toml; NO_COLOR gives a monochrome screen.
/// 'keep' with no command opens the browser when run in a terminal.
#[derive(Debug, Default, clap::Args)]
#[command(after_long_help = keys_help())]
pub struct Args {
    /// Colour theme: dark, light, high-contrast, monochrome or a user theme [default: the config file's, else dark]
    #[arg(long, value_name = "NAME", add = ArgValueCompleter::new(complete::theme))]
    pub theme: Option<String>,
}

/// Every key of the browser, for `--help` and the man page.
fn keys_help() -> String {
    let mut text = String::from("Keys:\n");
    for (section, keys) in crate::tui::keys::KEYS {
        text.push_str(&format!(" {section}:\n"));
        for (key, what) in *keys {
            text.push_str(&format!("  {key:<20}{what}\n"));
        }
    }
    text
}

/// True when both ends are a terminal, so `keep` alone opens the browser.
pub fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    if !on_terminal() {
        return Err(CliError::Usage(
            "keep ui needs a terminal on standard input and output".into(),
        ));
    }
    let config = &ctx.config;
    let theme = Theme::choose(
        args.theme.as_deref().or(config.theme.as_deref()),
        config.no_color,
        config.themes_dir.as_deref(),
    )
    .map_err(CliError::Usage)?;
    let options = UiOptions {
        editor: config.editor.clone(),
        pager: config.pager.clone(),
        opener: config.opener.clone(),
        trace: config.ui_trace.clone(),
    };
    // Open once here so a bad store fails before the screen changes.
    let settings = ctx.keeper()?.settings().clone();
    let _background = crate::watch::spawn_background(settings.clone());
    let open = Arc::new(move || {
        Keeper::open(settings.clone()).map(|mut keeper| {
            keeper.set_agent("browser");
            keeper
        })
    });
    // Lines the store says by itself would be drawn over the screen.
    keep_core::notices::hold();
    let shown = tui::run(open, theme, options);
    keep_core::notices::release();
    shown?;
    Ok(Status::Success)
}
