//! Giving freed memory back to the system. An allocator keeps what a program frees for its next
//! allocations, and returns it only in its own time or not at all, so a queue of a million
//! messages purged or drained would leave the process as large as it was. Parts that free much
//! at once (a queue's messages) report it here ([`freed`], [`emptied`]), which only counts; the
//! runtime, once it has let go of the state's lock, calls [`trim_if_due`], which past
//! [`TRIM_EVERY`] bytes freed (or [`TRIM_WHEN_EMPTIED`] when a queue was left empty) asks the
//! allocators to return their free pages: mimalloc, the binary's (`mi_collect`, with the
//! `mimalloc` feature), and glibc's
//! malloc, which the library's users and the C code linked in (OpenSSL) allocate from
//! (`malloc_trim`). A trim walks the allocators' free lists: under the lock, every other request
//! would wait for it. docs/decisions.md ("Memory given back", "The allocator") says why.
//!
//! The count is the process's, not a state's: the allocators, and so a trim, are the process's.
//!
//! [`no_huge_pages`] is the other half: a process that maps 2 MiB pages faults one in on its
//! first byte, and zeroing it takes a request's whole budget.
//!
//! The one module that may use `unsafe` (the crate denies it elsewhere): each block is a call
//! into C (mimalloc, glibc, prctl) with no pointers passed.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Bytes freed between two trims: a trim walks the allocator's free lists, so it must stay rare
/// against the frees it follows.
const TRIM_EVERY: usize = 64 << 20;

/// Bytes freed that a queue left empty returns at once: a drain's last frees do not wait for
/// [`TRIM_EVERY`], and a queue that keeps emptying at small depth trims seldom.
const TRIM_WHEN_EMPTIED: usize = 1 << 20;

/// Bytes freed since the last trim.
static FREED: AtomicUsize = AtomicUsize::new(0);

/// A queue was left empty with [`TRIM_WHEN_EMPTIED`] bytes freed or more since the last trim.
static EMPTIED: AtomicBool = AtomicBool::new(false);

/// `bytes` were freed: counted for the next [`trim_if_due`].
pub fn freed(bytes: usize) {
    FREED.fetch_add(bytes, Ordering::Relaxed);
}

/// A queue was left empty: what was freed since the last trim is returned at the next
/// [`trim_if_due`], if it is much. Whether it is much is decided now, as the queue empties.
pub fn emptied() {
    if FREED.load(Ordering::Relaxed) >= TRIM_WHEN_EMPTIED {
        EMPTIED.store(true, Ordering::Relaxed);
    }
}

/// Returns free memory to the system if enough was freed since the last trim ([`TRIM_EVERY`],
/// or [`TRIM_WHEN_EMPTIED`] and a queue left empty). Called off the state's lock, after each
/// release: two loads when nothing is due.
pub fn trim_if_due() {
    if !due(
        FREED.load(Ordering::Relaxed),
        EMPTIED.load(Ordering::Relaxed),
    ) {
        return;
    }
    // One caller trims: the one that takes the count.
    let emptied = EMPTIED.swap(false, Ordering::Relaxed);
    if due(FREED.swap(0, Ordering::Relaxed), emptied) {
        trim();
    }
}

/// Whether `freed` bytes, with a queue emptied or not, call for a trim.
fn due(freed: usize, emptied: bool) -> bool {
    freed >= TRIM_EVERY || (emptied && freed >= TRIM_WHEN_EMPTIED)
}

/// Returns the allocators' free pages to the system.
fn trim() {
    // SAFETY: mi_collect takes no pointer; it frees what mimalloc holds free, whether or not
    // mimalloc is the global allocator. Without the `mimalloc` feature it is not linked in.
    #[cfg(feature = "mimalloc")]
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
    #[test]
    fn a_trim_is_due_at_the_same_thresholds_as_before() {
        use super::{TRIM_EVERY, TRIM_WHEN_EMPTIED, due};
        assert!(!due(TRIM_EVERY - 1, false));
        assert!(due(TRIM_EVERY, false));
        assert!(!due(TRIM_WHEN_EMPTIED - 1, true));
        assert!(due(TRIM_WHEN_EMPTIED, true));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn huge_pages_are_off_for_the_process_afterwards() {
        super::no_huge_pages();
        // SAFETY: PR_GET_THP_DISABLE takes no pointer; it answers the process's setting.
        let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        assert_eq!(disabled, 1);
    }
}
