//! The emulator's whole state: the engine and every service's store, in one value the runtime
//! keeps behind its one lock. Service operations are synchronous functions over it.
//!
//! This is the data the services work on, below them: the stores (`sqs/`, `sns/`, ...) and the
//! plain types they hold (filter policies, event patterns, retry policies, Scheduler
//! expressions), the engine's service steps ([`Step`]) and the delivery kinds ([`Policy`],
//! [`Finish`], [`Render`]). It imports no service and no part of the dispatcher above the
//! services (`crate::dispatch`), which routes calls, runs what the engine hands back and settles
//! cascades. The one thing the state needs from the dispatcher, to settle the cascade of a
//! delivery a service starts before the service goes on, it is given as a function when it is
//! made ([`Settle`]). It must not depend on the runtime, the protocols or the server.
// What a client sends reaches this code through the services: no `unwrap`, `expect` or indexing
// that could panic on it (tests may); each one left is allowed in place with the reason it cannot
// fail.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

pub(crate) mod bus;
pub(crate) mod events;
pub(crate) mod iam;
mod kinds;
pub(crate) mod lambda;
pub mod lenient;
pub mod match_index;
pub mod pattern;
pub(crate) mod pipes;
pub(crate) mod placed;
pub(crate) mod scheduler;
pub(crate) mod snapshot;
pub(crate) mod sns;
pub(crate) mod sqs;
pub(crate) mod streams;

use crate::engine::delivery::{Delivery, DeliveryId};
use crate::engine::time::Millis;
use crate::engine::{Effect, Settings, Timer};
pub(crate) use kinds::{Finish, Policy, Render};
use std::collections::HashMap;

pub(crate) use placed::placed_in;

/// A service's own piece of work the engine keeps for it: a timer's step when due, or the
/// follow-up of a followed delivery when it ends.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Step {
    /// EventBridge: a scheduled rule's next firing, a replay's next step.
    Events(crate::state::events::store::Timer),
    /// An event stream's next step: its start, or a look at its source.
    Stream(crate::state::streams::store::Timer),
    /// The next step of an SQS message move task.
    SqsMoveTask(u64),
    /// An event stream's delivery of the event under `token` ended.
    StreamDelivered { stream: String, token: u64 },
    /// A pipe's next step: a change of state settling, or a look at its source.
    Pipe(crate::state::pipes::store::Timer),
    /// A delivery of a pipe's batch under `token` ended.
    PipeDelivered {
        pipe: String,
        token: u64,
        stage: crate::state::pipes::store::Stage,
    },
    /// EventBridge Scheduler: a schedule's next run.
    Scheduler(crate::state::scheduler::store::Timer),
    /// Lambda: an asynchronous invocation's attempts are over (its destinations follow).
    LambdaEventEnded(Box<crate::state::lambda::invocations::AsyncEvent>),
    /// Lambda: an event source mapping's change of state settling, or its next look.
    LambdaMapping(crate::state::lambda::mappings::MappingTimer),
    /// Lambda: the invocation of a mapping's batch under `token` ended.
    LambdaBatchEnded { uuid: String, token: u64 },
}

/// The engine as the services see it: its service steps are [`Step`]s.
pub(crate) type Engine = crate::engine::Engine<Step>;

/// The dispatcher's settle (`crate::dispatch::settle`): runs the work a delivery set off, and
/// the work that sets off, to the end. The state is given it when it is made, as it cannot
/// import what is above the services.
pub(crate) type Settle = fn(&mut State);

/// A state read from a snapshot settles nothing until [`State::read_snapshot`] gives it its
/// settle.
fn default_settle() -> Settle {
    |_| {}
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct State {
    pub engine: Engine,
    /// Lambda function ARN → the local HTTP URL that invokes it (`--lambda-endpoint`): the
    /// running process's setting, not part of a snapshot.
    #[serde(skip)]
    pub lambda_endpoints: HashMap<String, String>,
    pub sqs: crate::state::sqs::store::Store,
    pub sns: crate::state::sns::store::Store,
    pub events: crate::state::events::store::Store,
    pub bus: crate::state::bus::store::Store,
    pub streams: crate::state::streams::store::Store,
    pub pipes: crate::state::pipes::store::Store,
    pub iam: crate::state::iam::store::Store,
    pub scheduler: crate::state::scheduler::store::Store,
    /// Absent from the snapshots of versions before Lambda: none then.
    #[serde(default)]
    pub lambda: crate::state::lambda::store::Store,
    /// Keys whose waiters (long polls) should look again, for the runtime.
    #[serde(skip)]
    pub(crate) woken: Vec<String>,
    /// Operations started by targets (Scheduler's universal targets), each with the delivery
    /// that started it: run after the settle that started them, not inside it (the
    /// dispatcher's).
    #[serde(skip)]
    pub(crate) calls: std::collections::VecDeque<(DeliveryId, crate::engine::delivery::Target)>,
    /// A settle is under way: one started inside it (a service delivering while a piece of work
    /// runs) does nothing, and the one under way runs what that delivery set off (the
    /// dispatcher's).
    #[serde(skip)]
    pub(crate) settling: bool,
    /// What settles a delivery's cascade: the dispatcher's, given when the state is made.
    #[serde(skip, default = "default_settle")]
    settle: Settle,
    /// `--enforce-policies`: a service's delivery within one account needs the target's
    /// policy too, as in AWS (docs/policies.md). The running process's setting.
    #[serde(skip)]
    pub enforce_policies: bool,
}

impl State {
    /// A state at the settings' start with no resources, settling cascades with `settle`.
    pub fn new(
        settings: Settings,
        lambda_endpoints: HashMap<String, String>,
        settle: Settle,
    ) -> State {
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
            lambda: Default::default(),
            woken: Vec::new(),
            calls: Default::default(),
            settling: false,
            settle,
            enforce_policies: false,
        }
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
    /// returns, or, when it is called while a settle is under way (a service's delivery inside a
    /// hand-over), when that settle is.
    pub fn deliver(&mut self, delivery: Delivery<Step>) -> DeliveryId {
        let id = self.engine.deliver(delivery);
        (self.settle)(self);
        id
    }

    /// Drops a delivery under way (see [`crate::engine::Engine::cancel`]).
    pub fn cancel(&mut self, id: DeliveryId) {
        self.engine.cancel(id);
        (self.settle)(self);
    }

    /// Gives the state the settle it runs cascades with (a state read from a snapshot).
    pub(crate) fn settle_with(&mut self, settle: Settle) {
        self.settle = settle;
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
        self.lambda = Default::default();
    }
}
