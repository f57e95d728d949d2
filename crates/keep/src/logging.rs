//! Structured logs on stderr, through `tracing`: `KEEP_LOG` says how much
//! (`off`, `error`, `warn`, `info`, `debug`, `trace`, or per-target
//! directives such as `keep::access=info,keep_core=debug`). Off by default
//! for the command line, whose stderr is for people; for `keep serve`,
//! keep's own events at `info` (one access line per request) and the
//! libraries' warnings. No event carries a secret, a query string or note
//! text.

use tracing_subscriber::EnvFilter;

/// The variable that sets the log level.
pub const VARIABLE: &str = "KEEP_LOG";

/// Where access lines go: one per request `keep serve` answers.
pub const ACCESS: &str = "keep::access";

/// Starts logging for this process: `serving` when it is `keep serve`.
/// A `KEEP_LOG` that cannot be read is said once and the default kept.
pub fn init(serving: bool) {
    // The server's own lines at info; the libraries under it say only
    // what goes wrong.
    let default = if serving { "warn,keep=info" } else { "off" };
    let asked = std::env::var(VARIABLE)
        .ok()
        .filter(|v| !v.trim().is_empty());
    let filter = match asked.as_deref().map(EnvFilter::try_new) {
        Some(Ok(filter)) => filter,
        Some(Err(e)) => {
            eprintln!("keep: {VARIABLE}: {e}; logging at the default ({default})");
            EnvFilter::new(default)
        }
        None => EnvFilter::new(default),
    };
    // A second start (tests that run the binary's code in one process)
    // keeps the first.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init()
        .ok();
}
