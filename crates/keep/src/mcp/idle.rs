//! Keeps a long-lived server's memory from creeping: the allocator gets
//! few heaps (every thread having its own leaves each one fragmented), and
//! freed memory goes back to the system once the server has been quiet
//! for a moment. Each call arms one timer; nothing runs while no calls
//! come.

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
                // Giving memory back is a courtesy: a failure keeps it until the next quiet moment.
                let _ = tokio::task::spawn_blocking(release_free_memory).await;
            }
        });
    }
}

/// Heaps the allocator may keep: one per core saves little time for a
/// server whose threads mostly wait, and costs tens of megabytes.
const HEAPS: i32 = 2;

/// Limits the allocator's heaps; call before the server starts threads.
pub fn use_few_heaps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a tunable of the allocator.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, HEAPS);
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
