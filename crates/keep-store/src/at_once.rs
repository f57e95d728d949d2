//! Two reads at once, each on a connection of its own: the second
//! connection is lent to a scoped thread and given back with the answers.

/// Runs `aside` over `side` on another thread while `here` runs on this
/// one; returns both answers and `side`. A panic in either goes on in the
/// caller.
pub(crate) fn at_once<S: Send, A: Send, B>(
    side: S,
    aside: impl FnOnce(&S) -> A + Send,
    here: impl FnOnce() -> B,
) -> (A, B, S) {
    std::thread::scope(|scope| {
        let worker = scope.spawn(move || (aside(&side), side));
        let b = here();
        match worker.join() {
            Ok((a, side)) => (a, b, side),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}
