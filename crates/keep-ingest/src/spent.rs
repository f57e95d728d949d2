//! Time spent in the stages of a long run (reading images by OCR,
//! summarising), counted per thread, so that a folder's ingest can say
//! where its time went.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// A stage whose time is counted.
#[derive(Debug, Clone, Copy)]
pub enum Stage {
    Ocr = 0,
    Summarising = 1,
}

thread_local! {
    static SPENT: Cell<[Duration; 2]> = const { Cell::new([Duration::ZERO; 2]) };
}

/// Runs `work`, counting its time against `stage` on this thread.
pub fn timed<T>(stage: Stage, work: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = work();
    let mut spent = SPENT.get();
    spent[stage as usize] += start.elapsed();
    SPENT.set(spent);
    out
}

/// The time this thread has spent in `stage` so far.
pub fn spent(stage: Stage) -> Duration {
    SPENT.get()[stage as usize]
}
