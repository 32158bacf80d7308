//! The emulator's whole state: the engine and every service's store, in one value the runtime
//! keeps behind its one lock. Service operations are synchronous functions over it.
//!
//! It owns what the engine hands back: the services' timers ([`Step`]) it dispatches when due,
//! the in-process hand-overs (enqueue into SQS, fan out from SNS, forward to a bus) and dead
//! letters it carries out at once under the same lock (so a cascade settles inside one request
//! or one clock advance), and the arrivals it passes to event streams and, through
//! [`State::take_woken`], to the runtime's waiters. It must not depend on the runtime, the
//! protocols or the server; the service stores are plain data, so this file imports no operation
//! ([`steps`] does).

mod calls;
pub mod commands;
mod kinds;
pub mod snapshot;
mod steps;

use crate::engine::delivery::{Delivery, DeliveryId, Outcome};
use crate::engine::time::Millis;
use crate::engine::{Effect, Settings, Timer};
pub use kinds::{Finish, Policy, Render};
use std::collections::HashMap;

/// A service's own piece of work the engine keeps for it: a timer's step when due, or the
/// follow-up of a followed delivery when it ends.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Step {
    /// EventBridge: a scheduled rule's next firing, a replay's next step.
    Events(crate::services::events::store::Timer),
    /// An event stream's next step: its start, or a look at its source.
    Stream(crate::services::streams::store::Timer),
    /// The next step of an SQS message move task.
    SqsMoveTask(u64),
    /// An event stream's delivery of the event under `token` ended.
    StreamDelivered { stream: String, token: u64 },
    /// A pipe's next step: a change of state settling, or a look at its source.
    Pipe(crate::services::pipes::store::Timer),
    /// A delivery of a pipe's batch under `token` ended.
    PipeDelivered {
        pipe: String,
        token: u64,
        stage: crate::services::pipes::store::Stage,
    },
    /// EventBridge Scheduler: a schedule's next run.
    Scheduler(crate::services::scheduler::store::Timer),
}

/// The engine as the services see it: its service steps are [`Step`]s.
pub type Engine = crate::engine::Engine<Step>;

#[derive(serde::Serialize, serde::Deserialize)]
pub struct State {
    pub engine: Engine,
    /// Lambda function ARN → the local HTTP URL that invokes it (`--lambda-endpoint`): the
    /// running process's setting, not part of a snapshot.
    #[serde(skip)]
    pub lambda_endpoints: HashMap<String, String>,
    pub sqs: crate::services::sqs::store::Store,
    pub sns: crate::services::sns::store::Store,
    pub events: crate::services::events::store::Store,
    pub bus: crate::services::bus::store::Store,
    pub streams: crate::services::streams::store::Store,
    pub pipes: crate::services::pipes::store::Store,
    pub iam: crate::services::iam::store::Store,
    pub scheduler: crate::services::scheduler::store::Store,
    /// Keys whose waiters (long polls) should look again, for the runtime.
    #[serde(skip)]
    woken: Vec<String>,
    /// Operations started by targets (Scheduler's universal targets), each with the delivery
    /// that started it: run after the settle that started them, not inside it (`steps.rs`).
    #[serde(skip)]
    calls: std::collections::VecDeque<(DeliveryId, crate::engine::delivery::Target)>,
    /// A settle is under way: one started inside it (a service delivering while a piece of work
    /// runs) runs the work only, and leaves the queued operations to the outer one.
    #[serde(skip)]
    settling: bool,
    /// `--enforce-policies`: a service's delivery within one account needs the target's
    /// policy too, as in AWS (docs/policies.md). The running process's setting.
    #[serde(skip)]
    pub enforce_policies: bool,
}

impl State {
    pub fn new(settings: Settings, lambda_endpoints: HashMap<String, String>) -> State {
        State {
            engine: Engine::new(settings),
            lambda_endpoints,
            sqs: Default::default(),
            sns: Default::default(),
            events: Default::default(),
            bus: Default::default(),
            streams: Default::default(),
            pipes: Default::default(),
            iam: Default::default(),
            scheduler: Default::default(),
            woken: Vec::new(),
            calls: Default::default(),
            settling: false,
            enforce_policies: false,
        }
    }

    /// A state for unit tests: time `start`, seed 1, no jitter, a small delivery log.
    #[cfg(test)]
    pub fn for_tests(start: Millis) -> State {
        let settings = Settings {
            start,
            seed: 1,
            jitter: false,
            delivery_log_size: 100,
        };
        State::new(settings, HashMap::new())
    }

    /// The current virtual time.
    pub fn now(&self) -> Millis {
        self.engine.now()
    }

    /// Schedules a service's `step` at `due`.
    pub fn schedule(&mut self, due: Millis, step: Step) {
        self.engine.schedule(due, Timer::Service(step));
    }

    /// Schedules a wake-up of the waiters on `key` at `due`.
    pub fn schedule_wake(&mut self, due: Millis, key: String) {
        self.engine.schedule(due, Timer::Wake(key));
    }

    /// Wakes the waiters on `key` now (a queue deleted or reconfigured).
    pub fn wake_waiters(&mut self, key: &str) {
        self.woken.push(key.to_string());
    }

    /// Takes the keys whose waiters should look again.
    pub fn take_woken(&mut self) -> Vec<String> {
        std::mem::take(&mut self.woken)
    }

    /// Starts a delivery; in-process attempts (and whatever they set off) are over when this
    /// returns.
    pub fn deliver(&mut self, delivery: Delivery<Step>) -> DeliveryId {
        let id = self.engine.deliver(delivery);
        self.settle();
        id
    }

    /// Drops a delivery under way (see [`crate::engine::Engine::cancel`]).
    pub fn cancel(&mut self, id: DeliveryId) {
        self.engine.cancel(id);
        self.settle();
    }

    /// How an HTTP attempt ended, from the runtime (see
    /// [`crate::engine::Engine::complete_after`]).
    pub fn complete_after(
        &mut self,
        id: DeliveryId,
        outcome: Outcome,
        retry_after: Option<Millis>,
    ) {
        self.engine.complete_after(id, outcome, retry_after);
        self.settle();
    }

    /// Fires the timers due at the earliest instant at or before `limit`, with `now` set to that
    /// instant, including timers scheduled for the same instant while they fire. Answers how many
    /// fired, or `None` when no timer is due by `limit`.
    pub fn fire_next(&mut self, limit: Millis) -> Option<usize> {
        let first = self.engine.fire_one(limit)?;
        self.fired(first);
        let (now, mut count) = (self.now(), 1);
        while let Some(fired) = self.engine.fire_one(now) {
            count += 1;
            self.fired(fired);
        }
        Some(count)
    }

    /// Fires everything due up to `limit` in due order, then moves `now` to `limit`.
    pub fn run_until(&mut self, limit: Millis) -> usize {
        let mut count = 0;
        while let Some(n) = self.fire_next(limit) {
            count += n;
        }
        self.engine.move_to(limit);
        count
    }

    /// Timers waiting to fire, the services' and the engine's.
    pub fn pending_timers(&self) -> usize {
        self.engine.pending_timers()
    }

    /// Takes the effects waiting for the async side.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        self.engine.take_effects()
    }

    /// Forgets every resource, message, timer, record and fault; time stays where it is. Every
    /// waiter looks again.
    pub fn reset(&mut self) {
        // A reset after a panic in a settle (the state was broken) starts from no settle.
        self.calls.clear();
        self.settling = false;
        self.engine.reset();
        self.woken
            .extend(self.sqs.queues.values().map(|q| q.arn.clone()));
        self.sqs.reset();
        self.sns.reset();
        self.events = Default::default();
        self.bus = Default::default();
        self.streams = Default::default();
        self.pipes = Default::default();
        self.iam = Default::default();
        self.scheduler = Default::default();
    }
}
