//! The running emulator's shared state: configuration, the clock driver and the engine behind
//! its one lock. The lock is std's and is never held across an `.await`.

use crate::clock::{Clock, ClockMode};
use crate::config::Config;
use crate::engine::rng::Rng;
use crate::engine::time::Millis;
use crate::engine::{Effect, Engine, Settings};
use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard, PoisonError};
use tokio::sync::Notify;

pub struct App {
    pub config: Config,
    pub clock: Clock,
    engine: Mutex<Engine>,
    /// Wakes the timer task (real and fast clocks) when an earlier timer appears.
    pub(crate) ticker: Notify,
    /// One clock advance at a time.
    advancing: tokio::sync::Mutex<()>,
    request_ids: Mutex<Rng>,
    closing: tokio::sync::watch::Sender<bool>,
}

#[derive(Debug, PartialEq)]
pub enum AdvanceError {
    /// `real` clocks cannot be moved.
    NotAdjustable,
    /// The requested time is before the current virtual time.
    InPast { now: Millis },
}

impl App {
    pub fn new(config: Config) -> Self {
        let clock = Clock::new(config.clock);
        let seed = config.seed.unwrap_or_else(|| clock.wall_nanos_seed());
        let engine = Engine::new(Settings {
            start: clock.now(),
            seed,
            jitter: config.jitter,
            delivery_log_size: config.delivery_log_size,
        });
        App {
            config,
            clock,
            engine: Mutex::new(engine),
            ticker: Notify::new(),
            advancing: tokio::sync::Mutex::new(()),
            request_ids: Mutex::new(Rng::new(seed.rotate_left(17) ^ 0x5EED)),
            closing: tokio::sync::watch::Sender::new(false),
        }
    }

    /// Locks the engine, first catching it up to the clock's current virtual time.
    pub fn engine(&self) -> EngineGuard<'_> {
        let mut engine = self.engine.lock().unwrap_or_else(PoisonError::into_inner);
        let fired = engine.run_until(self.clock.now());
        self.start_effects(fired.effects);
        let next_due = engine.next_due();
        EngineGuard {
            engine,
            app: self,
            next_due,
        }
    }

    pub fn request_id(&self) -> String {
        self.request_ids
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .uuid()
    }

    /// Moves virtual time to `target` (CONTROL_API.md, `clock/advance`): timers fire in due order,
    /// each seeing its own due time, and the work they trigger has finished when this returns.
    /// Answers how many timers fired.
    pub async fn advance_to(&self, target: Millis) -> Result<usize, AdvanceError> {
        if self.clock.mode() == ClockMode::Real {
            return Err(AdvanceError::NotAdjustable);
        }
        let _one_at_a_time = self.advancing.lock().await;
        let now = self.engine().now();
        if target < now {
            return Err(AdvanceError::InPast { now });
        }
        let mut count = 0;
        loop {
            let step = self.lock_raw().fire_next(target);
            let Some(step) = step else { break };
            count += step.count;
            run_effects(step.effects).await;
        }
        self.clock
            .jump_to(target)
            .map_err(|_| AdvanceError::NotAdjustable)?;
        count += self.lock_raw().run_until(target).count;
        self.ticker.notify_one();
        Ok(count)
    }

    fn lock_raw(&self) -> MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Work fired by catching up outside an advance runs on its own (real and fast clocks).
    fn start_effects(&self, effects: Vec<Effect>) {
        if !effects.is_empty() {
            tokio::spawn(run_effects(effects));
        }
    }
}

/// Executes what fired timers handed out and waits for all of it.
async fn run_effects(effects: Vec<Effect>) {
    if let Some(effect) = effects.into_iter().next() {
        match effect {}
    }
}

/// The locked engine. On release it wakes the timer task if an earlier timer was scheduled.
pub struct EngineGuard<'a> {
    engine: MutexGuard<'a, Engine>,
    app: &'a App,
    next_due: Option<Millis>,
}

impl Deref for EngineGuard<'_> {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.engine
    }
}

impl DerefMut for EngineGuard<'_> {
    fn deref_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}

impl Drop for EngineGuard<'_> {
    fn drop(&mut self) {
        let now_due = self.engine.next_due();
        let earlier = match (now_due, self.next_due) {
            (Some(new), Some(old)) => new < old,
            (Some(_), None) => true,
            _ => false,
        };
        if earlier && self.app.clock.mode() != ClockMode::Manual {
            self.app.ticker.notify_one();
        }
    }
}

/// Fires timers as virtual time reaches them, for the real and fast clocks. Manual clocks move
/// only through [`App::advance_to`].
pub async fn run_timers(app: std::sync::Arc<App>) {
    if app.clock.mode() == ClockMode::Manual {
        return;
    }
    loop {
        let next_due = app.engine().next_due();
        let wake = app.ticker.notified();
        match next_due.and_then(|due| app.clock.wall_until(due)) {
            Some(wait) => {
                tokio::select! {
                    _ = Clock::sleep(wait) => {}
                    _ = wake => {}
                }
            }
            None => wake.await,
        }
    }
}

impl App {
    /// Starts shutting down: the server stops accepting and long polls end now.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Resolves once [`App::close`] was called.
    pub async fn closed(&self) {
        let mut rx = self.closing.subscribe();
        let _ = rx.wait_for(|closing| *closing).await;
    }
}
