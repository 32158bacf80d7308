//! The engine: virtual time, the one timer queue and the delivery path (attempts, retries,
//! throttles, ordered lanes, dead letters), with the records the control API shows (delivery
//! log, outbox, faults, metrics).
//!
//! It sits at the bottom: it imports nothing of the services, the state, the runtime, the
//! protocols or the server, and no async runtime. It is synchronous and does no I/O. What it
//! cannot do itself leaves it as a value for the layer above: an HTTP request as an [`Effect`],
//! a hand-over to a service of this emulator or a dead letter to write as [`Work`], an arrival
//! or a wake-up at a key as a string ([`Engine::take_arrivals`], [`Fired::Wake`]), and the timers and follow-ups of
//! the services as values of the type `T` the layer above chooses, which the engine keeps in
//! order and hands back without looking inside.

pub mod delivery;
pub mod faults;
pub mod log;
pub mod metrics;
pub mod outbox;
pub mod rng;
pub mod scheduler;
pub mod statics;
pub mod time;
pub mod timeline;

use delivery::{Delivery, DeliveryId, Layer, Work};
use faults::Faults;
use log::DeliveryLog;
use metrics::Metrics;
use outbox::OutboxMessage;
use rng::Rng;
use scheduler::Scheduler;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use time::Millis;

/// Something that must happen at a virtual instant.
#[derive(Debug, Serialize, Deserialize)]
pub enum Timer<T> {
    /// Wake whoever waits on this key (long polls checking their queue or deadline again).
    Wake(String),
    /// The next attempt of a delivery.
    Attempt(DeliveryId),
    /// A step of a service (a scheduled rule, a replay, an event stream, a move task): handed
    /// back to the layer above when due.
    Service(T),
}

/// Work that needs I/O, handed to the async side, whose outcome comes back through
/// [`Engine::complete_after`].
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send `body` to `url` with `method`; the answer completes the attempt of `delivery`.
    Http {
        delivery: DeliveryId,
        method: String,
        url: String,
        headers: Vec<(String, String)>,
        body: String,
        /// How long the endpoint has to answer, when not the default.
        timeout_ms: Option<Millis>,
    },
    /// Invoke the Lambda function of this emulator `function` names with `payload`; its answer
    /// completes the attempt of `delivery` ([`delivery::Target::Invoke`]).
    Invoke {
        delivery: DeliveryId,
        function: String,
        payload: String,
        request_id: String,
        host: String,
    },
}

impl Effect {
    /// The delivery whose attempt this is.
    pub fn delivery(&self) -> DeliveryId {
        match self {
            Effect::Http { delivery, .. } | Effect::Invoke { delivery, .. } => *delivery,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub start: Millis,
    pub seed: u64,
    pub jitter: bool,
    pub delivery_log_size: usize,
}

/// What firing one timer asks of the layer above.
#[derive(Debug)]
pub enum Fired<T> {
    /// The engine handled it (an attempt); its work is waiting in [`Engine::take_work`].
    Engine,
    /// A service's step, due now.
    Service(T),
    /// Whoever waits on this key looks again.
    Wake(String),
}

/// The engine; written to a state snapshot and read back whole, but for what only lives between
/// two calls of the layer above (effects taken by the async side, work and arrivals taken by
/// the layer above before it lets go of the state): [`Engine::resume`] makes the effects again.
#[derive(Serialize, Deserialize)]
#[serde(bound(
    serialize = "T: Serialize, T::Policy: Serialize, T::Finish: Serialize, T::Render: Serialize",
    deserialize = "T: serde::de::DeserializeOwned, T::Policy: serde::de::DeserializeOwned, \
                   T::Finish: serde::de::DeserializeOwned, T::Render: serde::de::DeserializeOwned"
))]
pub struct Engine<T: Layer> {
    now: Millis,
    timers: Scheduler<Timer<T>>,
    pub rng: Rng,
    pub jitter: bool,
    pub log: DeliveryLog,
    pub outbox: Vec<OutboxMessage>,
    pub faults: Faults,
    pub metrics: Metrics,
    #[serde(with = "crate::pairs")]
    deliveries: HashMap<DeliveryId, Delivery<T>>,
    /// Deliveries given up whose dead letter is being written by the layer above.
    #[serde(with = "crate::pairs")]
    dead_lettering: HashMap<DeliveryId, Delivery<T>>,
    next_delivery_id: DeliveryId,
    /// Effects waiting to be picked up by the async side.
    #[serde(skip)]
    effects: Vec<Effect>,
    /// Work waiting for the layer above, in the order it arose.
    #[serde(skip)]
    work: VecDeque<Work<T>>,
    /// Keys where something arrived since the layer above last looked.
    #[serde(skip)]
    arrivals: Vec<String>,
    /// Throttled deliveries: the next free slot per throttle key.
    #[serde(with = "crate::pairs")]
    throttles: HashMap<String, Millis>,
    /// Ordered lanes: the deliveries of each, the first under way.
    #[serde(with = "crate::pairs")]
    lanes: HashMap<String, VecDeque<DeliveryId>>,
}

impl<T: Layer> Engine<T> {
    pub fn new(s: Settings) -> Self {
        Engine {
            now: s.start,
            timers: Scheduler::default(),
            rng: Rng::new(s.seed),
            jitter: s.jitter,
            log: DeliveryLog::new(s.delivery_log_size),
            outbox: Vec::new(),
            faults: Faults::default(),
            metrics: Metrics::default(),
            deliveries: HashMap::new(),
            dead_lettering: HashMap::new(),
            next_delivery_id: 0,
            effects: Vec::new(),
            work: VecDeque::new(),
            arrivals: Vec::new(),
            throttles: HashMap::new(),
            lanes: HashMap::new(),
        }
    }

    /// The current virtual time.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// The delivering service and the source of delivery `id` while it is under way or its dead
    /// letter is being written (`sns` and the subscription ARN): whose policy a hand-over or a
    /// dead letter is checked against.
    pub fn delivery_source(&self, id: DeliveryId) -> Option<(&'static str, &str)> {
        (self.deliveries.get(&id))
            .or_else(|| self.dead_lettering.get(&id))
            .map(|d| (d.service, d.source.as_str()))
    }

    /// Schedules `timer` at `due`; a time already past fires at the next step of time.
    pub fn schedule(&mut self, due: Millis, timer: Timer<T>) {
        self.timers.schedule(due.max(self.now), timer);
    }

    pub fn next_due(&self) -> Option<Millis> {
        self.timers.next_due()
    }

    pub fn pending_timers(&self) -> usize {
        self.timers.len()
    }

    /// Fires the next timer due at or before `limit`, moving `now` to its due time: the engine's
    /// own timers it handles, a service's step or a wake-up it hands back. `None` when nothing is due by
    /// `limit`.
    pub fn fire_one(&mut self, limit: Millis) -> Option<Fired<T>> {
        let due = self.timers.next_due().filter(|&due| due <= limit)?;
        self.now = self.now.max(due);
        let (_, timer) = self.timers.pop_due(self.now)?;
        Some(match timer {
            Timer::Wake(key) => Fired::Wake(key),
            Timer::Attempt(id) => {
                self.attempt(id);
                Fired::Engine
            }
            Timer::Service(step) => Fired::Service(step),
        })
    }

    /// Moves `now` to `limit` (never back). Timers due by then must have been fired first.
    pub fn move_to(&mut self, limit: Millis) {
        self.now = self.now.max(limit);
    }

    /// Something arrived at `key` (a message in a queue, an event on a bus): whoever reads it
    /// (long polls, event streams) looks again.
    pub fn arrived(&mut self, key: String) {
        self.arrivals.push(key);
    }

    /// Takes the keys of [`Engine::arrived`] since the last call.
    pub fn take_arrivals(&mut self) -> Vec<String> {
        std::mem::take(&mut self.arrivals)
    }

    /// Hands back a list taken with [`Engine::take_arrivals`] to keep its memory.
    pub fn recycle_arrivals(&mut self, mut spent: Vec<String>) {
        if self.arrivals.is_empty() && self.arrivals.capacity() < spent.capacity() {
            spent.clear();
            self.arrivals = spent;
        }
    }

    /// Forgets every delivery, timer, record and fault; time stays where it is.
    pub fn reset(&mut self) {
        self.timers.clear();
        self.log.clear();
        self.outbox.clear();
        self.faults.clear();
        self.metrics.clear();
        self.deliveries.clear();
        self.dead_lettering.clear();
        self.effects.clear();
        self.work.clear();
        self.arrivals.clear();
        self.throttles.clear();
        self.lanes.clear();
    }

    /// Takes the effects waiting for the async side.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// Takes the work waiting for the layer above, in the order it arose.
    pub fn take_work(&mut self) -> VecDeque<Work<T>> {
        std::mem::take(&mut self.work)
    }

    /// Hands back a queue taken with [`Engine::take_work`], emptied, so its memory serves the
    /// next work instead of being freed and allocated again for every delivery.
    pub fn recycle_work(&mut self, mut spent: VecDeque<Work<T>>) {
        if self.work.is_empty() && self.work.capacity() < spent.capacity() {
            spent.clear();
            self.work = spent;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine<u32> {
        Engine::new(Settings {
            start: 1_000,
            seed: 1,
            jitter: false,
            delivery_log_size: 10,
        })
    }

    /// Fires everything due by `limit` as the layer above would, recording each step with the
    /// time it saw and scheduling the follow-ups of `then` (step → (delay, next step)).
    fn run(e: &mut Engine<u32>, limit: Millis, then: &[(u32, Millis, u32)]) -> Vec<(Millis, u32)> {
        let mut fired = Vec::new();
        while let Some(f) = e.fire_one(limit) {
            if let Fired::Service(step) = f {
                fired.push((e.now(), step));
                for &(_, delay, next) in then.iter().filter(|(s, _, _)| *s == step) {
                    e.schedule(e.now() + delay, Timer::Service(next));
                }
            }
        }
        e.move_to(limit);
        fired
    }

    #[test]
    fn timers_fire_in_due_order_seeing_their_own_due_time() {
        let mut e = engine();
        e.schedule(4_000, Timer::Service(3));
        e.schedule(2_000, Timer::Service(1));
        e.schedule(3_000, Timer::Service(2));
        assert_eq!(
            run(&mut e, 10_000, &[]),
            [(2_000, 1), (3_000, 2), (4_000, 3)]
        );
        assert_eq!(e.now(), 10_000);
    }

    #[test]
    fn timers_scheduled_while_firing_fire_in_the_same_advance_when_due_inside_it() {
        let mut e = engine();
        e.schedule(2_000, Timer::Service(1));
        e.schedule(2_400, Timer::Service(3));
        e.schedule(9_000, Timer::Service(5));
        let then = [(1, 500, 2), (3, 0, 4), (5, 2_000, 6)];
        assert_eq!(
            run(&mut e, 10_000, &then),
            [(2_000, 1), (2_400, 3), (2_400, 4), (2_500, 2), (9_000, 5)]
        );
        assert_eq!(e.pending_timers(), 1, "the follow-up due at 11 s waits");
        assert_eq!(run(&mut e, 11_000, &then), [(11_000, 6)]);
    }

    #[test]
    fn nothing_fires_early() {
        let mut e = engine();
        e.schedule(5_000, Timer::Service(1));
        assert!(run(&mut e, 4_999, &[]).is_empty());
        assert_eq!(e.now(), 4_999);
        assert_eq!(run(&mut e, 5_000, &[]), [(5_000, 1)]);
    }

    #[test]
    fn time_never_goes_back_and_past_timers_fire_now() {
        let mut e = engine();
        run(&mut e, 5_000, &[]);
        run(&mut e, 3_000, &[]);
        assert_eq!(e.now(), 5_000);
        e.schedule(1_000, Timer::Service(1));
        assert_eq!(run(&mut e, 5_000, &[]), [(5_000, 1)]);
    }

    #[test]
    fn wake_timers_hand_their_key_back_and_arrivals_wait_to_be_taken() {
        let mut e = engine();
        e.schedule(2_000, Timer::Wake("q".into()));
        e.arrived("now".into());
        assert!(matches!(e.fire_one(3_000), Some(Fired::Wake(key)) if key == "q"));
        assert_eq!(e.take_arrivals(), ["now"]);
        assert!(e.take_arrivals().is_empty());
    }

    #[test]
    fn reset_keeps_time_and_drops_timers() {
        let mut e = engine();
        run(&mut e, 7_000, &[]);
        e.schedule(8_000, Timer::Service(1));
        e.reset();
        assert_eq!(e.now(), 7_000);
        assert_eq!(e.next_due(), None);
    }
}
