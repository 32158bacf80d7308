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
//! (docs/benchmarks.md, "The state's lock, again"). Why not `tokio::sync::Mutex`: the synchronous
//! callers could not take it, and its guard is made to be held across an `.await`, which the
//! design forbids (docs/decisions.md).
//!
//! A holder that panics leaves the value half-changed: the lock remembers it ([`Held::is_broken`])
//! until a whole value is put in place ([`Held::mend`]); what to do with a broken value is the
//! runtime's choice. std's own poisoning is ignored in favour of this flag, which can be cleared.
//!
//! Its guard [`Held`] (and the runtime's `StateGuard` around it) must never be held across an
//! `.await`: clippy.toml lists both under `await-holding-invalid-types`.
//!
//! The hand-over between a release and a waiting task (the count, the fences, the try after
//! registering) is checked by a loom model (`loom_tests` below), which runs only under
//! `--cfg switchyard_loom`: `RUSTFLAGS="--cfg switchyard_loom" cargo test --release --lib runtime::lock`. Under it the
//! atomics and the mutex are loom's, and tokio's `Notify` is stood in by [`model::Notify`], a
//! model of the behaviour of it this lock relies on.

use std::ops::{Deref, DerefMut};
use std::pin::pin;
use std::sync::{PoisonError, TryLockError};
use sync::{AtomicBool, AtomicUsize, Mutex, MutexGuard, Notify, Ordering, fence};

/// The primitives the lock is made of: std's and tokio's, or loom's and a model of tokio's
/// `Notify` when loom checks it.
#[cfg(not(switchyard_loom))]
mod sync {
    pub(super) use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};
    pub(super) use std::sync::{Mutex, MutexGuard};
    pub(super) use tokio::sync::Notify;
}

#[cfg(switchyard_loom)]
mod sync {
    pub use super::model::Notify;
    pub use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};
    pub use loom::sync::{Mutex, MutexGuard};
}

pub(super) struct StateLock<T> {
    mutex: Mutex<T>,
    /// Tasks registered to be woken at the next release (read by every release, so that most
    /// releases, with nobody waiting, wake nobody).
    waiting: AtomicUsize,
    released: Notify,
    /// A holder panicked: the value may be half-changed. Written only by the holder (set as a
    /// panicking holder lets go, cleared by [`Held::mend`]), so the mutex orders it for the
    /// next holder.
    broken: AtomicBool,
}

/// The locked value; letting it go wakes the oldest waiting task.
pub(super) struct Held<'a, T> {
    guard: Option<MutexGuard<'a, T>>,
    lock: &'a StateLock<T>,
}

impl<T> StateLock<T> {
    pub(super) fn new(value: T) -> StateLock<T> {
        StateLock {
            mutex: Mutex::new(value),
            waiting: AtomicUsize::new(0),
            released: Notify::new(),
            broken: AtomicBool::new(false),
        }
    }

    /// Locks, blocking the thread while another holds it. For callers outside a request.
    pub(super) fn lock(&self) -> Held<'_, T> {
        self.held(self.mutex.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Locks if nobody holds it.
    pub(super) fn try_lock(&self) -> Option<Held<'_, T>> {
        match self.mutex.try_lock() {
            Ok(guard) => Some(self.held(guard)),
            Err(TryLockError::Poisoned(guard)) => Some(self.held(guard.into_inner())),
            Err(TryLockError::WouldBlock) => None,
        }
    }

    /// Locks, waiting as a future while another holds it: the thread runs other tasks meanwhile.
    pub(super) async fn lock_async(&self) -> Held<'_, T> {
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

    /// Whether a holder panicked since the value was last mended: a hint without the lock (the
    /// holder's [`Held::is_broken`] is the answer).
    pub(super) fn is_broken(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }
}

impl<T> Held<'_, T> {
    /// Whether a holder panicked while it held the value, leaving it possibly half-changed.
    pub(super) fn is_broken(&self) -> bool {
        self.lock.broken.load(Ordering::Relaxed)
    }

    /// The value is whole again (it was replaced): forgets an earlier holder's panic.
    pub(super) fn mend(&mut self) {
        self.lock.broken.store(false, Ordering::Relaxed);
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
        if std::thread::panicking() {
            // Marked before the release, so that the next holder sees it.
            self.lock.broken.store(true, Ordering::Relaxed);
            tracing::error!(
                "a panic while the state's lock was held: the state may be half-changed and is \
                 marked broken; requests answer 500 until POST /_switchyard/reset or a state load"
            );
        }
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

#[cfg(all(test, not(switchyard_loom)))]
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

    #[test]
    fn a_panic_under_the_lock_marks_it_broken_until_mended() {
        let lock = StateLock::new(0u32);
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut held = lock.lock();
            *held += 1;
            panic!("half-changed");
        }));
        let mut held = lock.lock();
        assert!(held.is_broken());
        held.mend();
        drop(held);
        assert!(!lock.lock().is_broken());
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

/// A model of tokio's `Notify` for loom, which cannot see inside tokio's (its own lock is std's,
/// which loom's threads, all on one OS thread, would deadlock on). It keeps what the lock relies
/// on, as tokio documents it: `notify_one` wakes the oldest registered waiter, or leaves one
/// permit when nobody is registered; `enable` registers a waiter, or takes the permit; a waiter
/// dropped after a `notify_one` reached it, before it saw it, passes the wake-up on.
#[cfg(switchyard_loom)]
mod model {
    use loom::sync::Mutex;
    use std::collections::VecDeque;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll, Waker};

    pub struct Notify {
        inner: Mutex<Inner>,
    }

    #[derive(Default)]
    struct Inner {
        permit: bool,
        next_id: u64,
        /// Registered waiters, oldest first, with the waker of their last poll.
        waiting: VecDeque<(u64, Option<Waker>)>,
        /// Waiters a `notify_one` reached that have not seen it yet.
        notified: Vec<u64>,
    }

    impl Inner {
        /// Wakes the oldest waiter, or leaves the permit; answers the waker to wake.
        fn notify(&mut self) -> Option<Waker> {
            match self.waiting.pop_front() {
                Some((id, waker)) => {
                    self.notified.push(id);
                    waker
                }
                None => {
                    self.permit = true;
                    None
                }
            }
        }
    }

    impl Notify {
        pub fn new() -> Notify {
            Notify {
                inner: Mutex::new(Inner::default()),
            }
        }

        pub fn notified(&self) -> Notified<'_> {
            Notified {
                notify: self,
                state: State::Init,
            }
        }

        pub fn notify_one(&self) {
            let waker = self.inner.lock().unwrap().notify();
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }

    enum State {
        Init,
        Waiting(u64),
        Done,
    }

    pub struct Notified<'a> {
        notify: &'a Notify,
        state: State,
    }

    impl Notified<'_> {
        pub fn enable(mut self: Pin<&mut Self>) -> bool {
            self.poll_with(None).is_ready()
        }

        fn poll_with(&mut self, waker: Option<&Waker>) -> Poll<()> {
            let mut inner = self.notify.inner.lock().unwrap();
            match self.state {
                State::Init if inner.permit => {
                    inner.permit = false;
                    self.state = State::Done;
                    Poll::Ready(())
                }
                State::Init => {
                    let id = inner.next_id;
                    inner.next_id += 1;
                    inner.waiting.push_back((id, waker.cloned()));
                    self.state = State::Waiting(id);
                    Poll::Pending
                }
                State::Waiting(id) => {
                    if let Some(at) = inner.notified.iter().position(|n| *n == id) {
                        inner.notified.swap_remove(at);
                        self.state = State::Done;
                        return Poll::Ready(());
                    }
                    if let Some(waker) = waker
                        && let Some(entry) = inner.waiting.iter_mut().find(|(n, _)| *n == id)
                    {
                        entry.1 = Some(waker.clone());
                    }
                    Poll::Pending
                }
                State::Done => Poll::Ready(()),
            }
        }
    }

    impl Future for Notified<'_> {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            let waker = cx.waker().clone();
            self.poll_with(Some(&waker))
        }
    }

    impl Drop for Notified<'_> {
        fn drop(&mut self) {
            let State::Waiting(id) = self.state else {
                return;
            };
            let waker = {
                let mut inner = self.notify.inner.lock().unwrap();
                inner.waiting.retain(|(n, _)| *n != id);
                match inner.notified.iter().position(|n| *n == id) {
                    Some(at) => {
                        inner.notified.swap_remove(at);
                        inner.notify()
                    }
                    None => None,
                }
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

/// The loom model: every interleaving (to a bound of preemptions) of synchronous and async
/// holders. A wake-up lost anywhere leaves a task waiting for ever, which loom reports as a
/// deadlock; a change lost or a count left behind fails the assertions.
#[cfg(all(test, switchyard_loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;
    use std::future::Future;

    fn model(f: impl Fn() + Sync + Send + 'static) {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound.get_or_insert(3);
        let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = runs.clone();
        builder.check(move || {
            counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            f()
        });
        eprintln!(
            "interleavings: {}",
            runs.load(std::sync::atomic::Ordering::Relaxed)
        );
    }

    /// Adds one to the value held, and lets the other threads run meanwhile: loom switches
    /// threads only at its own operations, and letting go of its mutex is not one, so a lock
    /// held without one in between is never seen held.
    fn add_one(mut held: Held<'_, u32>) {
        *held += 1;
        thread::yield_now();
        drop(held);
    }

    #[test]
    fn a_release_wakes_the_tasks_waiting_and_no_change_is_lost() {
        model(|| {
            let lock = Arc::new(StateLock::new(0u32));
            let tasks: Vec<_> = (0..2)
                .map(|_| {
                    let lock = lock.clone();
                    thread::spawn(move || add_one(loom::future::block_on(lock.lock_async())))
                })
                .collect();
            // A caller outside the tasks, blocking its thread.
            add_one(lock.lock());
            for task in tasks {
                task.join().unwrap();
            }
            assert_eq!(*lock.lock(), 3);
            assert_eq!(lock.waiting.load(Ordering::SeqCst), 0);
        });
    }

    #[test]
    fn a_task_given_up_while_waiting_does_not_keep_the_wake_up() {
        model(|| {
            let lock = Arc::new(StateLock::new(0u32));
            let held = lock.lock();
            let given_up = {
                let lock = lock.clone();
                thread::spawn(move || {
                    // Polled once, then dropped (its client went away), whatever the poll saw.
                    let mut waiting = pin!(lock.lock_async());
                    let waker = std::task::Waker::noop();
                    let _ = waiting
                        .as_mut()
                        .poll(&mut std::task::Context::from_waker(waker));
                })
            };
            let waiting = {
                let lock = lock.clone();
                thread::spawn(move || add_one(loom::future::block_on(lock.lock_async())))
            };
            thread::yield_now();
            drop(held);
            given_up.join().unwrap();
            waiting.join().unwrap();
            assert_eq!(*lock.lock(), 1);
            assert_eq!(lock.waiting.load(Ordering::SeqCst), 0);
        });
    }
}
