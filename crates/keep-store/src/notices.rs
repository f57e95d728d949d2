//! Lines the store says on stderr by itself, outside any command's
//! answer (a replica skipped, or taking reads again), and a way for a
//! full-screen front end to hold them until it leaves the screen.

use std::sync::{Mutex, PoisonError};

/// Lines held while a front end owns the terminal; None: said at once.
static HELD: Mutex<Option<Vec<String>>> = Mutex::new(None);

/// Says `line` on stderr, or holds it while `hold` is in force.
pub fn say(line: &str) {
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    match held.as_mut() {
        Some(lines) => lines.push(line.to_string()),
        None => eprintln!("keep: {line}"),
    }
}

/// Holds the lines said from now on, until `release`.
pub fn hold() {
    HELD.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(Vec::new);
}

/// Says the lines held, and says the next ones at once.
pub fn release() {
    let held = HELD.lock().unwrap_or_else(PoisonError::into_inner).take();
    for line in held.unwrap_or_default() {
        eprintln!("keep: {line}");
    }
}
