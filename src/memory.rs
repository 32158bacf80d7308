//! Giving freed memory back to the system. An allocator keeps what a program frees for its next
//! allocations, and returns it only in its own time or not at all, so a queue of a million
//! messages purged or drained would leave the process as large as it was. Parts that free much
//! at once (a queue's messages) report it here; past [`TRIM_EVERY`] bytes freed, the allocators
//! are asked to return their free pages: mimalloc, the binary's (`mi_collect`), and glibc's
//! malloc, which the library's users and the C code linked in (OpenSSL) allocate from
//! (`malloc_trim`). docs/decisions.md ("Memory given back", "The allocator") says why.
//!
//! [`no_huge_pages`] is the other half: a process that maps 2 MiB pages faults one in on its
//! first byte, and zeroing it takes a request's whole budget.
//!
//! The one module that may use `unsafe` (the crate denies it elsewhere): each block is a call
//! into C (mimalloc, glibc, prctl) with no pointers passed.
#![allow(unsafe_code)]

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

/// Returns the allocators' free pages to the system.
fn trim() {
    // SAFETY: mi_collect takes no pointer; it frees what mimalloc holds free, whether or not
    // mimalloc is the global allocator.
    unsafe {
        libmimalloc_sys::mi_collect(true);
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory malloc holds free; it takes no pointer.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Turns transparent huge pages off for this process (Linux), before it allocates much: with
/// them, the first touch of a fresh 2 MiB region faults in and zeroes a whole huge page, a
/// pause of tens of microseconds that lands on whichever request allocates there (often under
/// the state's lock), and the resident size rounds up to 2 MiB steps.
pub fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes integers only and changes only this process's page
    // policy; it fails harmlessly on kernels without it.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_os = "linux")]
    #[test]
    fn huge_pages_are_off_for_the_process_afterwards() {
        super::no_huge_pages();
        // SAFETY: PR_GET_THP_DISABLE takes no pointer; it answers the process's setting.
        let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        assert_eq!(disabled, 1);
    }
}
