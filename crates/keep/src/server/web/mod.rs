//! The web page of `keep serve`: a team's memory in a browser. Every view
//! is HTML rendered here from the typed results of the commands the JSON
//! API runs (find, list, a note, its history, the log, stats, conflicts),
//! run as the same caller, so the page, scripts and tokens share one set
//! of rules; every write the page makes is a JSON API route, sent by the
//! page's script with the CSRF token. The script, style sheet and theme are compiled in; the
//! page loads nothing from elsewhere.

mod activity;
mod assets;
mod find;
mod graph;
mod html;
mod note;
mod theme;

use super::api::{Asked, Serving, refusal};
use crate::server::http::{Answer, Visit};
use html::esc;
use keep_commands::Command;

/// Whether `path` is one of the page's.
pub fn serves(path: &str) -> bool {
    matches!(
        path,
        "/" | "/log" | "/stats" | "/conflicts" | "/signin" | "/signout"
    ) || path.starts_with("/note/")
        || path.starts_with("/graph/")
        || path.starts_with("/assets/")
}

/// What one request of the page sees: the server as its caller reaches
/// it, and its visit.
pub struct Seen<'a> {
    pub serving: &'a Serving<'a>,
    pub visit: &'a Visit,
}

impl Seen<'_> {
    /// Runs `command` as this caller: its result, or the status and
    /// message of its error.
    fn run<C: Command>(&self, command: C) -> Result<C::Output, (u16, String)> {
        self.serving.run(command).map_err(|e| refusal(&e))
    }

    /// Whether the caller may write.
    fn writes(&self) -> bool {
        !self.visit.caller.read_only
    }
}

/// Answers a request of one of the page's paths.
pub fn answer(serving: &Serving<'_>, visit: &Visit, asked: &Asked<'_>) -> Answer {
    let seen = Seen { serving, visit };
    if let Some(name) = asked.path.strip_prefix("/assets/") {
        return assets::answer(serving.warm, name);
    }
    if asked.method != "GET" {
        return Answer::html(
            405,
            shell(
                &seen,
                "Not here",
                "",
                &html::alert("this page only reads: its writes go to /v1"),
            ),
        );
    }
    let id_of = |prefix: &str| {
        asked.path.strip_prefix(prefix).map(|rest| {
            percent_encoding::percent_decode_str(rest)
                .decode_utf8_lossy()
                .into_owned()
        })
    };
    let query = super::query::Query::parse(asked.query);
    let (status, title, body) = match asked.path {
        "/" => find::page(&seen, &query),
        "/log" => activity::log(&seen, &query),
        "/stats" => activity::stats(&seen),
        "/conflicts" => activity::conflicts(&seen),
        "/signin" => {
            let mut form = sign_in(None);
            form.status = 200;
            return form;
        }
        path if path.starts_with("/note/") => {
            note::page(&seen, &id_of("/note/").unwrap_or_default())
        }
        path if path.starts_with("/graph/") => {
            graph::page(&seen, &id_of("/graph/").unwrap_or_default(), &query)
        }
        _ => (404, "Not found".to_string(), html::alert("no such page")),
    };
    let current = asked.path;
    Answer::html(status, shell(&seen, &title, current, &body))
}

/// The views in the navigation bar: path and name.
const VIEWS: [(&str, &str); 4] = [
    ("/", "Find"),
    ("/log", "Log"),
    ("/stats", "Stats"),
    ("/conflicts", "Conflicts"),
];

/// A whole page: head, navigation, who is signed in, and `body`.
fn shell(seen: &Seen<'_>, title: &str, current: &str, body: &str) -> String {
    let caller = &seen.visit.caller;
    let mut nav = String::new();
    for (path, name) in VIEWS {
        let here = if path == current {
            " aria-current=\"page\""
        } else {
            ""
        };
        nav.push_str(&format!("<a href=\"{path}\"{here}>{name}</a>"));
    }
    let who = match &caller.token {
        Some(name) => format!("token {}", esc(name)),
        None => "owner".to_string(),
    };
    let mut rights = String::new();
    if caller.read_only {
        rights.push_str(" <span class=\"badge\">read-only</span>");
    }
    for (key, value) in caller.scope.pairs() {
        rights.push_str(&format!(
            " <span class=\"badge\">{}</span>",
            esc(&format!("{key}={value}"))
        ));
    }
    let sign_out = if seen.visit.signed_in {
        format!(
            "<form method=\"post\" action=\"/signout\" class=\"inline\"><input type=\"hidden\" name=\"csrf\" value=\"{}\"><button type=\"submit\">Sign out</button></form>",
            esc(&seen.visit.csrf)
        )
    } else {
        String::new()
    };
    page(
        title,
        &format!(
            "<meta name=\"keep-csrf\" content=\"{}\">",
            esc(&seen.visit.csrf)
        ),
        &format!(
            "<header><nav aria-label=\"Views\">{nav}</nav><div class=\"who\">{who}{rights} {sign_out}</div></header>\
             <p id=\"flash\" class=\"error\" role=\"alert\" hidden></p><main id=\"main\">{body}</main>"
        ),
    )
}

/// The HTML document around `content`.
fn page(title: &str, head: &str, content: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · keep</title>{head}\
         <link rel=\"icon\" href=\"/assets/icon.svg\" type=\"image/svg+xml\">\
         <link rel=\"stylesheet\" href=\"/assets/theme.css\">\
         <link rel=\"stylesheet\" href=\"/assets/page.css\">\
         <script src=\"/assets/page.js\" defer></script></head>\
         <body><a class=\"skip\" href=\"#main\">Skip to the content</a>{content}</body></html>",
        esc(title)
    )
}

/// The sign-in form, for a browser that shows no token.
pub fn sign_in(failed: Option<&str>) -> Answer {
    let message = failed.map(html::alert).unwrap_or_default();
    let body = format!(
        "<main id=\"main\" class=\"signin\"><h1>keep</h1>\
         <p>This server asks for a token: the store's (<code>keep serve --token</code>) or one made with <code>keep token add</code>.</p>{message}\
         <form method=\"post\" action=\"/signin\"><label for=\"token\">Token</label>\
         <input id=\"token\" name=\"token\" type=\"password\" autocomplete=\"current-password\" required autofocus>\
         <button type=\"submit\">Sign in</button></form>\
         <p class=\"muted\">The token is kept in this browser (a cookie scripts cannot read) until you sign out.</p></main>"
    );
    Answer::html(401, page("Sign in", "", &body))
}
