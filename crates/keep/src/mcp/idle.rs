//! Gives freed memory back to the system once the server has been quiet
//! for a moment: a burst of calls grows the allocator's free lists, which
//! it would otherwise keep for the life of the process. Each call arms one
//! timer; nothing runs while no calls come.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Quiet time after the last call before memory is given back.
const QUIET: Duration = Duration::from_secs(2);

#[derive(Default)]
pub struct Idle {
    calls: AtomicU64,
}

impl Idle {
    /// Notes that a call ended; when no other ends within `QUIET`, freed
    /// memory is returned.
    pub fn call_ended(self: &Arc<Self>) {
        let this_call = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let idle = Arc::clone(self);
        tokio::spawn(async move {
            tokio::time::sleep(QUIET).await;
            if idle.calls.load(Ordering::Relaxed) == this_call {
                let _ = tokio::task::spawn_blocking(release_free_memory).await;
            }
        });
    }
}

fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's own
    // heaps to the system; it takes the allocator's locks itself.
    unsafe {
        libc::malloc_trim(0);
    }
}
