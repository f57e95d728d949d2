//! Extraction threads: the name they run under, and how their panics
//! become one-line failures in the report instead of noise on stderr.

use std::sync::Once;
use std::thread;

/// The name of every thread that extracts a document.
pub(crate) const EXTRACT_THREAD: &str = "keep-extract";

pub(crate) fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    let text = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("panic");
    text.lines()
        .next()
        .unwrap_or("panic")
        .chars()
        .take(200)
        .collect()
}

/// Keeps panics on extraction threads off stderr (they become failures in
/// the report); other panics print as before.
pub(crate) fn quiet_extract_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if thread::current().name() != Some(EXTRACT_THREAD) {
                previous(info);
            }
        }));
    });
}
