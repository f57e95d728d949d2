//! The page's files, compiled into the binary: its script, style sheet,
//! icon, and the theme's colours from the server's configuration.

use std::sync::Arc;

use crate::server::Warm;
use crate::server::http::Answer;

const SCRIPT: &str = include_str!("assets/page.js");
const STYLE: &str = include_str!("assets/page.css");
const ICON: &str = include_str!("assets/icon.svg");

pub fn answer(warm: &Arc<Warm>, name: &str) -> Answer {
    let (content_type, body) = match name {
        "page.js" => ("text/javascript; charset=utf-8", SCRIPT.to_string()),
        "page.css" => ("text/css; charset=utf-8", STYLE.to_string()),
        "icon.svg" => ("image/svg+xml", ICON.to_string()),
        "theme.css" => (
            "text/css; charset=utf-8",
            super::theme::css(
                warm.config.theme.as_deref(),
                warm.config.themes_dir.as_deref(),
            ),
        ),
        _ => {
            return Answer {
                status: 404,
                content_type: "text/plain; charset=utf-8",
                body: b"no such file\n".to_vec(),
            };
        }
    };
    Answer {
        status: 200,
        content_type,
        body: body.into_bytes(),
    }
}
