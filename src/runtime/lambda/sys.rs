//! The three calls into the C library that the execution environments need and std does not
//! offer: the parent-death signal of a child, and signals to a child's process group.
//!
//! The one place under `src/runtime` that may use `unsafe` (the crate denies it elsewhere):
//! - [`die_with_parent`] installs a `pre_exec` hook, which runs in the forked child before
//!   `exec`. It is `unsafe` because only async-signal-safe calls are allowed there: the hook
//!   makes two system calls (`prctl`, `getppid`) and touches no memory, lock or allocator.
//! - [`signal_group`] calls `killpg`, a system call with no pointer passed.
#![allow(unsafe_code)]

use std::io;

/// The signals switchyard sends an environment's process group.
#[derive(Debug, Clone, Copy)]
pub(super) enum Signal {
    /// SIGTERM: asks the runtime to stop.
    Terminate,
    /// SIGKILL: stops it.
    Kill,
}

/// Makes the child get SIGKILL when switchyard dies, however it dies (`kill -9` included): Linux's
/// `PR_SET_PDEATHSIG`. The signal fires when the *thread* that forked the child ends, so the
/// child must be spawned from a thread that lives as long as the process (a runtime worker, in an
/// async fn), never from `spawn_blocking`, whose threads end when idle. Elsewhere than Linux it
/// does nothing: the runtime loops end when the Runtime API goes away.
pub(super) fn die_with_parent(command: &mut tokio::process::Command) {
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id();
        // SAFETY: the hook runs in the child between fork and exec, where only async-signal-safe
        // functions may be called: prctl and getppid are plain system calls, and the hook
        // allocates nothing (io::Error::last_os_error and from_raw_os_error do not allocate).
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The parent died between fork and prctl: the signal will never come.
                if libc::getppid() as u32 != parent {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Sends `signal` to the process group `group` (an environment's child is the leader of its own
/// group, so the runtime's own children get it too). False when there is no such group any more.
pub(super) fn signal_group(group: u32, signal: Signal) -> bool {
    let Ok(group) = libc::pid_t::try_from(group) else {
        return false;
    };
    // 0 and 1 would name switchyard's own group and init's: never an environment's.
    if group <= 1 {
        return false;
    }
    let signal = match signal {
        Signal::Terminate => libc::SIGTERM,
        Signal::Kill => libc::SIGKILL,
    };
    // SAFETY: killpg takes two integers and no pointer.
    unsafe { libc::killpg(group, signal) == 0 }
}
