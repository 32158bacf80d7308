//! The state's lock: std's mutex, which a request's task waits for as a future. A task that finds
//! it held, or others already waiting, joins the waiters and is woken when the lock is let go,
//! oldest first, while its worker thread goes on with other requests. Only the rare callers
//! outside a request (a snapshot, a clock advance, a checkpoint) block their thread, as std's
//! mutex does, and they do not queue.
//!
//! Why not block: the two workers then took turns sleeping in the kernel under busy requests
//! (futex waits and wake-ups were 40% of the server's CPU under PutEvents). Why not step aside
//! with `yield_now` and try again (what came before this): a task that steps aside runs again only
//! after its worker's other tasks, so under load an unlucky request tried again and again while
//! others took the lock, and the slowest 1% took nearly twice as long as with blocking
//! (docs/benchmarks.md, "The state's lock, again").

use std::ops::{Deref, DerefMut};
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering, fence};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};
use tokio::sync::Notify;

pub struct StateLock<T> {
    mutex: Mutex<T>,
    /// Tasks registered to be woken at the next release (read by every release, so that most
    /// releases, with nobody waiting, wake nobody).
    waiting: AtomicUsize,
    released: Notify,
}

/// The locked value; letting it go wakes the oldest waiting task.
pub struct Held<'a, T> {
    guard: Option<MutexGuard<'a, T>>,
    lock: &'a StateLock<T>,
}

impl<T> StateLock<T> {
    pub fn new(value: T) -> StateLock<T> {
        StateLock {
            mutex: Mutex::new(value),
            waiting: AtomicUsize::new(0),
            released: Notify::new(),
        }
    }

    /// Locks, blocking the thread while another holds it. For callers outside a request.
    pub fn lock(&self) -> Held<'_, T> {
        self.held(self.mutex.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Locks if nobody holds it.
    pub fn try_lock(&self) -> Option<Held<'_, T>> {
        match self.mutex.try_lock() {
            Ok(guard) => Some(self.held(guard)),
            Err(TryLockError::Poisoned(guard)) => Some(self.held(guard.into_inner())),
            Err(TryLockError::WouldBlock) => None,
        }
    }

    /// Locks, waiting as a future while another holds it: the thread runs other tasks meanwhile.
    pub async fn lock_async(&self) -> Held<'_, T> {
        if self.waiting.load(Ordering::Relaxed) == 0
            && let Some(held) = self.try_lock()
        {
            return held;
        }
        let _counted = Waiting::count(&self.waiting);
        loop {
            let mut released = pin!(self.released.notified());
            // Registered, then tried again: a release after the registration wakes a waiter;
            // one before it left the lock free for this try.
            released.as_mut().enable();
            fence(Ordering::SeqCst);
            if let Some(held) = self.try_lock() {
                // If the release's wake-up reached this task, dropping `released` passes it on.
                return held;
            }
            released.await;
        }
    }

    fn held<'a>(&'a self, guard: MutexGuard<'a, T>) -> Held<'a, T> {
        Held {
            guard: Some(guard),
            lock: self,
        }
    }
}

impl<T> Deref for Held<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.guard.as_deref().expect("held until dropped")
    }
}

impl<T> DerefMut for Held<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.guard.as_deref_mut().expect("held until dropped")
    }
}

impl<T> Drop for Held<'_, T> {
    fn drop(&mut self) {
        drop(self.guard.take());
        // Pairs with the waiter's fence: either it sees the lock free, or this sees it counted.
        fence(Ordering::SeqCst);
        if self.lock.waiting.load(Ordering::Relaxed) > 0 {
            self.lock.released.notify_one();
        }
    }
}

/// One waiting task in the count, for as long as it waits (a request dropped while waiting, its
/// client gone, leaves the count too).
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn count(waiting: &'a AtomicUsize) -> Waiting<'a> {
        waiting.fetch_add(1, Ordering::Relaxed);
        Waiting(waiting)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_waiter_gets_the_lock_and_no_change_is_lost() {
        let lock = Arc::new(StateLock::new(0u64));
        let tasks: Vec<_> = (0..64)
            .map(|_| {
                let lock = lock.clone();
                tokio::spawn(async move {
                    for _ in 0..200 {
                        *lock.lock_async().await += 1;
                        tokio::task::yield_now().await;
                    }
                })
            })
            .collect();
        // A caller outside the tasks takes it too, blocking its thread.
        let blocking = {
            let lock = lock.clone();
            tokio::task::spawn_blocking(move || {
                for _ in 0..200 {
                    *lock.lock() += 1;
                }
            })
        };
        for task in tasks {
            task.await.unwrap();
        }
        blocking.await.unwrap();
        assert_eq!(*lock.lock(), 64 * 200 + 200);
        assert_eq!(lock.waiting.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_waiter_dropped_while_waiting_leaves_the_count_and_passes_its_turn_on() {
        let lock = StateLock::new(());
        let held = lock.lock();
        {
            let mut first = pin!(lock.lock_async());
            assert!(futures_poll(first.as_mut()).is_none());
            assert_eq!(lock.waiting.load(Ordering::SeqCst), 1);
        }
        assert_eq!(lock.waiting.load(Ordering::SeqCst), 0);
        let mut second = pin!(lock.lock_async());
        assert!(futures_poll(second.as_mut()).is_none());
        drop(held);
        assert!(
            futures_poll(second.as_mut()).is_some(),
            "the release woke the waiter left"
        );
    }

    /// Polls `future` once.
    fn futures_poll<F: std::future::Future>(future: std::pin::Pin<&mut F>) -> Option<F::Output> {
        let waker = std::task::Waker::noop();
        match future.poll(&mut std::task::Context::from_waker(waker)) {
            std::task::Poll::Ready(out) => Some(out),
            std::task::Poll::Pending => None,
        }
    }
}
