//! Passwords given on the command line (`--store postgres://u:PASSWORD@…`):
//! once the arguments are parsed, the password is overwritten in the
//! process's own argument memory, so `ps` and `/proc/PID/cmdline` no
//! longer show it.

use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicPtr, Ordering};

static ARGC: AtomicIsize = AtomicIsize::new(0);
static ARGV: AtomicPtr<*mut c_char> = AtomicPtr::new(std::ptr::null_mut());
static HIDDEN: AtomicBool = AtomicBool::new(false);

/// Whether `hide_passwords` found one to hide.
pub fn some_were_hidden() -> bool {
    HIDDEN.load(Ordering::Relaxed)
}

/// Keeps argc and argv as the C runtime hands them to initialisers (glibc
/// passes them to the functions of `.init_array`).
extern "C" fn remember_arguments(argc: c_int, argv: *mut *mut c_char, _env: *mut *mut c_char) {
    ARGC.store(argc as isize, Ordering::Relaxed);
    ARGV.store(argv, Ordering::Relaxed);
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[unsafe(link_section = ".init_array")]
static REMEMBER: extern "C" fn(c_int, *mut *mut c_char, *mut *mut c_char) = remember_arguments;

/// The byte range of the password in a URL argument `user:PASSWORD@host`.
fn password_span(arg: &[u8]) -> Option<std::ops::Range<usize>> {
    let scheme_end = arg.windows(3).position(|w| w == b"://")? + 3;
    let rest = &arg[scheme_end..];
    let authority_end = rest
        .iter()
        .position(|&b| b == b'/' || b == b'?')
        .unwrap_or(rest.len());
    let at = rest[..authority_end].iter().rposition(|&b| b == b'@')?;
    let colon = rest[..at].iter().position(|&b| b == b':')?;
    let span = scheme_end + colon + 1..scheme_end + at;
    (!span.is_empty()).then_some(span)
}

/// `url` without its password (`user@host` for `user:PASSWORD@host`), and
/// whether it had one.
pub fn without_password(url: &str) -> (String, bool) {
    match password_span(url.as_bytes()) {
        Some(span) => (
            format!("{}{}", &url[..span.start - 1], &url[span.end..]),
            true,
        ),
        None => (url.to_string(), false),
    }
}

/// Overwrites with `*` every password in a URL among this process's
/// arguments; says whether there was one. The parsed arguments are copies
/// and keep theirs.
pub fn hide_passwords() -> bool {
    let (argc, argv) = (ARGC.load(Ordering::Relaxed), ARGV.load(Ordering::Relaxed));
    if argv.is_null() {
        return false;
    }
    let mut hidden = false;
    for i in 0..argc.max(0) {
        // SAFETY: argv holds argc pointers to NUL-terminated strings that
        // live as long as the process; each is written within its length.
        unsafe {
            let arg = *argv.offset(i);
            if arg.is_null() {
                continue;
            }
            let len = libc::strlen(arg);
            let bytes = std::slice::from_raw_parts_mut(arg.cast::<u8>(), len);
            if let Some(span) = password_span(bytes) {
                bytes[span].fill(b'*');
                hidden = true;
            }
        }
    }
    HIDDEN.fetch_or(hidden, Ordering::Relaxed);
    hidden
}

#[cfg(test)]
mod tests {
    use super::{password_span, without_password};

    #[test]
    fn a_url_loses_its_password_and_nothing_else() {
        assert_eq!(
            without_password("postgres://ana:s3:cr@t@db:5432/keep?sslmode=require"),
            ("postgres://ana@db:5432/keep?sslmode=require".into(), true)
        );
        assert_eq!(
            without_password("postgres://ana@db/keep"),
            ("postgres://ana@db/keep".into(), false)
        );
    }

    #[test]
    fn the_password_of_a_url_is_found_and_nothing_else() {
        let span = |s: &str| password_span(s.as_bytes()).map(|r| s[r].to_string());
        assert_eq!(
            span("postgres://u:s3cret@h:5432/db").as_deref(),
            Some("s3cret")
        );
        assert_eq!(span("postgres://u:p@ss@h/db").as_deref(), Some("p@ss"));
        assert_eq!(span("postgres://u@h:5432/db"), None);
        assert_eq!(span("postgres://h:5432/db?user=a@b"), None);
        assert_eq!(span("plain text: with a colon @ here"), None);
    }
}
