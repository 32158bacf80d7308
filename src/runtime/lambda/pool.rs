//! Which environment an invocation runs in: plain data under the pool's lock, no I/O. Each
//! environment is a slot keyed by its function's ARN, version and revision, busy or idle.
//!
//! - An idle environment of the same key is reused (a warm start).
//! - Otherwise a new one is started (a cold start), if fewer than the function's
//!   `max_environments` are alive (busy or idle, every version); an idle one of another version
//!   or revision of the function gives its place up. If all are busy, the invocation is
//!   throttled.
//! - An environment of an older revision is not reused: stopped when found idle, or when its
//!   invocation ends.
//! - An idle environment is stopped after the idle time (a timer that finds it used since does
//!   nothing: the slot counts its uses).
//!
//! Slots are generic over what they hold ([`Alive`]) so that these rules are tested without
//! processes.

use std::collections::HashMap;
use std::sync::Arc;

/// What a slot holds: an environment, which may have died on its own.
pub(super) trait Alive {
    fn alive(&self) -> bool;
}

/// What environments are kept apart by: an invocation reuses only an environment of its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Key {
    pub function_arn: String,
    pub version: String,
    pub revision: String,
}

struct Slot<E> {
    id: u64,
    key: Key,
    busy: bool,
    /// Stopped once its invocation ends (its function was stopped while it ran).
    retired: bool,
    /// `None` while its process starts.
    env: Option<Arc<E>>,
    /// How many invocations it has taken.
    uses: u64,
}

/// What [`Pool::acquire`] gives an invocation.
pub(super) enum Acquired<E> {
    /// An idle environment of its key, now busy.
    Warm { id: u64, env: Arc<E> },
    /// A slot for a new environment, busy, to be filled by [`Pool::started`].
    Cold { id: u64 },
    /// Every environment the function may have is busy.
    Throttled,
}

pub(super) struct Pool<E> {
    slots: Vec<Slot<E>>,
    next_id: u64,
    /// The latest revision invoked of each function and version.
    revisions: HashMap<(String, String), String>,
}

impl<E: Alive> Pool<E> {
    pub(super) fn new() -> Pool<E> {
        Pool {
            slots: Vec::new(),
            next_id: 1,
            revisions: HashMap::new(),
        }
    }

    /// A slot for an invocation of `key` with at most `max` environments of its function; and
    /// the environments to stop (dead, or of an older revision, or giving their place up).
    pub(super) fn acquire(&mut self, key: &Key, max: u32) -> (Acquired<E>, Vec<Arc<E>>) {
        let current = (key.function_arn.clone(), key.version.clone());
        self.revisions.insert(current, key.revision.clone());
        let stale = |slot: &mut Slot<E>| {
            let dead = slot.env.as_ref().is_some_and(|env| !env.alive());
            let older = slot.key.function_arn == key.function_arn
                && slot.key.version == key.version
                && slot.key.revision != key.revision;
            !slot.busy && (dead || older)
        };
        let mut stop: Vec<Arc<E>> = self
            .slots
            .extract_if(.., stale)
            .filter_map(|s| s.env)
            .collect();
        let warm = self
            .slots
            .iter_mut()
            .find(|s| !s.busy && !s.retired && s.key == *key && s.env.is_some());
        if let Some(slot) = warm {
            slot.busy = true;
            slot.uses += 1;
            if let Some(env) = slot.env.clone() {
                return (Acquired::Warm { id: slot.id, env }, stop);
            }
        }
        let of_function = |s: &Slot<E>| s.key.function_arn == key.function_arn;
        let count = self.slots.iter().filter(|s| of_function(s)).count();
        if count >= max as usize {
            let idle = self.slots.iter().position(|s| of_function(s) && !s.busy);
            match idle {
                Some(at) => stop.extend(self.slots.remove(at).env),
                None => return (Acquired::Throttled, stop),
            }
        }
        let id = self.next_id;
        self.next_id += 1;
        self.slots.push(Slot {
            id,
            key: key.clone(),
            busy: true,
            retired: false,
            env: None,
            uses: 1,
        });
        (Acquired::Cold { id }, stop)
    }

    /// The environment of slot `id` has started. False when the slot is gone (its function was
    /// stopped meanwhile): the caller stops the environment.
    pub(super) fn started(&mut self, id: u64, env: Arc<E>) -> bool {
        match self.slots.iter_mut().find(|s| s.id == id) {
            Some(slot) => {
                slot.env = Some(env);
                true
            }
            None => false,
        }
    }

    /// The invocation in slot `id` has ended. Answers the environment to stop (unusable,
    /// retired, or of an older revision), or else the slot's use count for its idle timer.
    pub(super) fn release(&mut self, id: u64, usable: bool) -> Released<E> {
        let Some(at) = self.slots.iter().position(|s| s.id == id) else {
            return Released::Gone;
        };
        let Some(slot) = self.slots.get_mut(at) else {
            return Released::Gone;
        };
        let current = (slot.key.function_arn.clone(), slot.key.version.clone());
        let older = self.revisions.get(&current) != Some(&slot.key.revision);
        if usable && !slot.retired && !older && slot.env.is_some() {
            slot.busy = false;
            return Released::Idle { uses: slot.uses };
        }
        Released::Stop(self.slots.remove(at).env)
    }

    /// Removes slot `id` whatever it holds (an invocation abandoned, an environment that did not
    /// start).
    pub(super) fn remove(&mut self, id: u64) -> Option<Arc<E>> {
        let at = self.slots.iter().position(|s| s.id == id)?;
        self.slots.remove(at).env
    }

    /// Slot `id`'s idle time is over: its environment, if it is still idle and unused since the
    /// timer was set (`uses`).
    pub(super) fn expire(&mut self, id: u64, uses: u64) -> Option<Arc<E>> {
        let at = self
            .slots
            .iter()
            .position(|s| s.id == id && !s.busy && s.uses == uses)?;
        self.slots.remove(at).env
    }

    /// `function_arn`'s idle environments, removed; its busy ones are retired (stopped when
    /// their invocation ends).
    pub(super) fn take_function(&mut self, function_arn: &str) -> Vec<Arc<E>> {
        self.revisions.retain(|(arn, _), _| arn != function_arn);
        for slot in self.slots.iter_mut() {
            if slot.key.function_arn == function_arn {
                slot.retired = true;
            }
        }
        let idle = |s: &mut Slot<E>| s.key.function_arn == function_arn && !s.busy;
        self.slots
            .extract_if(.., idle)
            .filter_map(|s| s.env)
            .collect()
    }

    /// Every environment, busy or idle, removed.
    pub(super) fn take_all(&mut self) -> Vec<Arc<E>> {
        self.revisions.clear();
        self.slots.drain(..).filter_map(|s| s.env).collect()
    }

    /// Environments alive or starting.
    pub(super) fn running(&self) -> usize {
        let alive = |s: &&Slot<E>| s.env.as_ref().is_none_or(|env| env.alive());
        self.slots.iter().filter(alive).count()
    }
}

/// What [`Pool::release`] answers.
pub(super) enum Released<E> {
    /// Idle now, after `uses` invocations: its idle timer starts.
    Idle { uses: u64 },
    /// Removed from the pool: stop it.
    Stop(Option<Arc<E>>),
    /// The slot was already gone (stopped meanwhile).
    Gone,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    struct Fake(AtomicBool);

    impl Alive for Fake {
        fn alive(&self) -> bool {
            self.0.load(Ordering::SeqCst)
        }
    }

    fn fake() -> Arc<Fake> {
        Arc::new(Fake(AtomicBool::new(true)))
    }

    fn key(version: &str, revision: &str) -> Key {
        Key {
            function_arn: "arn:f".into(),
            version: version.into(),
            revision: revision.into(),
        }
    }

    fn cold(pool: &mut Pool<Fake>, key: &Key, max: u32) -> (u64, Arc<Fake>) {
        let (Acquired::Cold { id }, _) = pool.acquire(key, max) else {
            panic!("expected a cold start");
        };
        let env = fake();
        assert!(pool.started(id, env.clone()));
        (id, env)
    }

    #[test]
    fn an_idle_environment_of_the_same_key_is_reused_and_a_busy_one_is_not() {
        let mut pool = Pool::new();
        let k = key("$LATEST", "r1");
        let (id, env) = cold(&mut pool, &k, 2);
        // Busy: a second invocation starts another.
        let (second, _) = cold(&mut pool, &k, 2);
        assert!(matches!(pool.release(id, true), Released::Idle { uses: 1 }));
        let (
            Acquired::Warm {
                id: again,
                env: same,
            },
            stop,
        ) = pool.acquire(&k, 2)
        else {
            panic!("expected a warm start");
        };
        assert_eq!((again, stop.len()), (id, 0));
        assert!(Arc::ptr_eq(&env, &same));
        assert_eq!(pool.running(), 2);
        // Both busy, at the cap: throttled.
        assert!(matches!(pool.acquire(&k, 2).0, Acquired::Throttled));
        assert!(matches!(pool.release(second, true), Released::Idle { .. }));
    }

    #[test]
    fn an_older_revision_is_stopped_idle_or_at_the_end_of_its_invocation() {
        let mut pool = Pool::new();
        let (idle, old_idle) = cold(&mut pool, &key("$LATEST", "r1"), 5);
        let (busy, _) = cold(&mut pool, &key("$LATEST", "r1"), 5);
        pool.release(idle, true);
        let (Acquired::Cold { .. }, stop) = pool.acquire(&key("$LATEST", "r2"), 5) else {
            panic!("a new revision starts anew");
        };
        assert_eq!(stop.len(), 1);
        assert!(Arc::ptr_eq(&stop[0], &old_idle));
        assert!(matches!(pool.release(busy, true), Released::Stop(Some(_))));
    }

    #[test]
    fn an_idle_environment_of_another_version_gives_its_place_up_at_the_cap() {
        let mut pool = Pool::new();
        let (one, _) = cold(&mut pool, &key("1", "r1"), 1);
        pool.release(one, true);
        let (acquired, stop) = pool.acquire(&key("$LATEST", "r1"), 1);
        assert!(matches!(acquired, Acquired::Cold { .. }));
        assert_eq!(stop.len(), 1);
        assert!(matches!(
            pool.acquire(&key("1", "r1"), 0).0,
            Acquired::Throttled
        ));
    }

    #[test]
    fn dead_environments_are_not_reused_nor_counted() {
        let mut pool = Pool::new();
        let k = key("$LATEST", "r1");
        let (id, env) = cold(&mut pool, &k, 1);
        pool.release(id, true);
        env.0.store(false, Ordering::SeqCst);
        assert_eq!(pool.running(), 0);
        let (acquired, stop) = pool.acquire(&k, 1);
        assert!(matches!(acquired, Acquired::Cold { .. }));
        assert_eq!(stop.len(), 1);
    }

    #[test]
    fn idle_timers_stop_only_environments_unused_since() {
        let mut pool = Pool::new();
        let k = key("$LATEST", "r1");
        let (id, _) = cold(&mut pool, &k, 1);
        let Released::Idle { uses } = pool.release(id, true) else {
            panic!("idle");
        };
        assert!(matches!(pool.acquire(&k, 1).0, Acquired::Warm { .. }));
        assert!(pool.expire(id, uses).is_none(), "busy");
        let Released::Idle { uses: later } = pool.release(id, true) else {
            panic!("idle");
        };
        assert!(pool.expire(id, uses).is_none(), "used since");
        assert!(pool.expire(id, later).is_some());
        assert_eq!(pool.running(), 0);
    }

    #[test]
    fn stopping_a_function_takes_its_idle_environments_and_retires_its_busy_ones() {
        let mut pool = Pool::new();
        let k = key("$LATEST", "r1");
        let (idle, _) = cold(&mut pool, &k, 5);
        let (busy, _) = cold(&mut pool, &k, 5);
        let (starting, _) = pool.acquire(&k, 5);
        pool.release(idle, true);
        assert_eq!(pool.take_function("arn:f").len(), 1);
        assert!(matches!(pool.release(busy, true), Released::Stop(Some(_))));
        let Acquired::Cold { id } = starting else {
            panic!("cold");
        };
        assert!(matches!(pool.release(id, true), Released::Stop(None)));
        assert_eq!(pool.running(), 0);
        let (gone, _) = cold(&mut pool, &k, 5);
        assert_eq!(pool.take_all().len(), 1);
        assert!(!pool.started(gone, fake()));
        assert!(matches!(pool.release(gone, true), Released::Gone));
    }
}
