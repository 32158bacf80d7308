//! Giving freed memory back to the system. glibc's malloc keeps what a program frees for its
//! next allocations and returns little of it on its own, so a queue of a million messages purged
//! or drained would leave the process as large as it was. Parts that free much at once (a
//! queue's messages) report it here; past [`TRIM_EVERY`] bytes freed, the allocator is asked to
//! return its free pages (`malloc_trim`). docs/decisions.md ("Memory given back") says why this
//! and not another allocator.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes freed between two trims: a trim walks the allocator's free lists, so it must stay rare
/// against the frees it follows.
const TRIM_EVERY: usize = 64 << 20;

/// Bytes freed that a queue left empty returns at once: a drain's last frees do not wait for
/// [`TRIM_EVERY`], and a queue that keeps emptying at small depth trims seldom.
const TRIM_WHEN_EMPTIED: usize = 1 << 20;

static FREED: AtomicUsize = AtomicUsize::new(0);

/// `bytes` were freed; returns free memory to the system once enough has been.
pub fn freed(bytes: usize) {
    let total = FREED.fetch_add(bytes, Ordering::Relaxed) + bytes;
    if total >= TRIM_EVERY && FREED.swap(0, Ordering::Relaxed) >= TRIM_EVERY {
        trim();
    }
}

/// A queue was left empty: returns what was freed since the last trim, if it is much.
pub fn emptied() {
    if FREED.load(Ordering::Relaxed) >= TRIM_WHEN_EMPTIED
        && FREED.swap(0, Ordering::Relaxed) >= TRIM_WHEN_EMPTIED
    {
        trim();
    }
}

/// Returns the allocator's free pages to the system.
fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory malloc holds free; it takes no pointer.
    unsafe {
        libc::malloc_trim(0);
    }
}
