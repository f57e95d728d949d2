//! What a build without PostgreSQL answers where a store on a database
//! server would be used: a URL is named without its password, there is no
//! password file to read and no server to listen to.

use crate::error::{Error, Result};

/// The server and database a URL names, without its password or options.
pub fn shown_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
    let rest = rest.split('?').next().unwrap_or("");
    let rest = match rest.split_once('@') {
        Some((user, host)) => format!("{}@{host}", user.split(':').next().unwrap_or("")),
        None => rest.to_string(),
    };
    format!("{scheme}://{rest}")
}

/// No password is read for a server this build cannot use.
pub fn pgpass_password(_url: &str, _text: &str) -> Option<String> {
    None
}

/// Changes on a database server cannot be listened to without PostgreSQL.
pub fn listen_for_changes(
    url: &str,
    _on_change: impl FnMut() -> bool + Send + 'static,
) -> Result<std::thread::JoinHandle<()>> {
    Err(Error::Invalid(format!(
        "{}: this keep was built without PostgreSQL (its postgres feature is off)",
        shown_url(url)
    )))
}

/// Runs `f`: without PostgreSQL nothing blocks on a server.
pub fn on_blocking_thread<T>(f: impl FnOnce() -> T) -> T {
    f()
}

/// The URL as given: without PostgreSQL there is no link to complete.
pub fn complete_database_url(
    url: &str,
    _var: impl Fn(&str) -> Option<String>,
    _home: Option<&std::path::Path>,
) -> String {
    url.to_string()
}
