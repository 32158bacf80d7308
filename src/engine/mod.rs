//! The engine: every piece of service state, the virtual time it lives in, the one timer queue
//! and the records the control API shows. Synchronous and free of I/O: it is only ever told to
//! move to a later instant; work that needs I/O leaves it as an [`Effect`] value.

pub mod batch;
pub mod delivery;
pub mod observe;
pub mod rng;
pub mod scheduler;
pub mod time;

use crate::services::{bus, events, sns, sqs, streams};
use delivery::{Delivery, DeliveryId};
use observe::{DeliveryLog, Faults, Metrics, OutboxMessage};
use rng::Rng;
use scheduler::Scheduler;
use std::collections::HashMap;
use std::sync::Arc;
use time::Millis;
use tokio::sync::Notify;

/// Something that must happen at a virtual instant.
#[derive(Debug)]
pub enum Timer {
    /// Wake whoever waits on this (long polls checking their queue or deadline again).
    Wake(Arc<Notify>),
    /// The next step of an SQS message move task.
    SqsMoveTask(u64),
    /// The next attempt of a delivery.
    Attempt(DeliveryId),
    /// EventBridge: a scheduled rule's next firing, a replay's next step.
    Events(events::Timer),
    /// An event stream's next step: its start, or a look at its source.
    EventStream(streams::Timer),
    /// Test probe: records (now, id) when fired and schedules `then` (delay, id) if given.
    #[cfg(test)]
    Probe(u32, Option<(Millis, u32)>),
}

/// Work that needs I/O, handed to the async side (`crate::app`), whose outcome comes back
/// through the engine's methods.
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
}

pub struct Settings {
    pub start: Millis,
    pub seed: u64,
    pub jitter: bool,
    pub delivery_log_size: usize,
    pub lambda_endpoints: HashMap<String, String>,
}

pub struct Engine {
    now: Millis,
    timers: Scheduler<Timer>,
    pub rng: Rng,
    pub jitter: bool,
    /// Lambda function ARN → the local HTTP URL that invokes it.
    pub lambda_endpoints: HashMap<String, String>,
    pub log: DeliveryLog,
    pub outbox: Vec<OutboxMessage>,
    pub faults: Faults,
    pub metrics: Metrics,
    pub sqs: sqs::store::Store,
    pub sns: sns::store::Store,
    pub events: events::store::Store,
    pub bus: bus::store::Store,
    pub streams: streams::Store,
    deliveries: HashMap<DeliveryId, Delivery>,
    next_delivery_id: DeliveryId,
    /// Effects waiting to be picked up by the async side.
    effects: Vec<Effect>,
    /// Throttled deliveries: the next free slot per throttle key.
    throttles: HashMap<String, Millis>,
    /// Ordered lanes: the deliveries of each, the first under way.
    lanes: HashMap<String, std::collections::VecDeque<DeliveryId>>,
    #[cfg(test)]
    probes: Vec<(Millis, u32)>,
}

impl Engine {
    pub fn new(s: Settings) -> Self {
        Engine {
            now: s.start,
            timers: Scheduler::default(),
            rng: Rng::new(s.seed),
            jitter: s.jitter,
            lambda_endpoints: s.lambda_endpoints,
            log: DeliveryLog::new(s.delivery_log_size),
            outbox: Vec::new(),
            faults: Faults::default(),
            metrics: Metrics::default(),
            sqs: sqs::store::Store::default(),
            sns: sns::store::Store::default(),
            events: events::store::Store::default(),
            bus: bus::store::Store::default(),
            streams: streams::Store::default(),
            deliveries: HashMap::new(),
            next_delivery_id: 0,
            effects: Vec::new(),
            throttles: HashMap::new(),
            lanes: HashMap::new(),
            #[cfg(test)]
            probes: Vec::new(),
        }
    }

    /// The current virtual time.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// Schedules `timer` at `due`; a time already past fires at the next step of time.
    pub fn schedule(&mut self, due: Millis, timer: Timer) {
        self.timers.schedule(due.max(self.now), timer);
    }

    pub fn next_due(&self) -> Option<Millis> {
        self.timers.next_due()
    }

    pub fn pending_timers(&self) -> usize {
        self.timers.len()
    }

    /// Fires the timers due at the earliest instant at or before `limit`, with `now` set to that
    /// instant, including timers scheduled for the same instant while they fire. Answers how many
    /// fired, or `None` when no timer is due by `limit`.
    pub fn fire_next(&mut self, limit: Millis) -> Option<usize> {
        let due = self.timers.next_due().filter(|&due| due <= limit)?;
        self.now = self.now.max(due);
        let mut count = 0;
        while let Some((_, timer)) = self.timers.pop_due(self.now) {
            count += 1;
            self.fire(timer);
        }
        Some(count)
    }

    /// Fires everything due up to `limit` in due order, then moves `now` to `limit`.
    pub fn run_until(&mut self, limit: Millis) -> usize {
        let mut count = 0;
        while let Some(n) = self.fire_next(limit) {
            count += n;
        }
        self.now = self.now.max(limit);
        count
    }

    fn fire(&mut self, timer: Timer) {
        match timer {
            Timer::Wake(notify) => notify.notify_waiters(),
            Timer::Attempt(id) => self.attempt(id),
            Timer::Events(timer) => events::fire(self, timer),
            Timer::EventStream(timer) => streams::fire(self, timer),
            Timer::SqsMoveTask(id) => {
                if let Some(next) = sqs::moves::step(&mut self.sqs, &mut self.rng, id, self.now) {
                    self.schedule(next, Timer::SqsMoveTask(id));
                }
                // Moved messages arrive in queues that event streams may read.
                streams::wake_all(self);
            }
            #[cfg(test)]
            Timer::Probe(id, then) => {
                self.probes.push((self.now, id));
                if let Some((delay, next)) = then {
                    self.schedule(self.now + delay, Timer::Probe(next, None));
                }
            }
        }
    }

    /// Forgets every resource, message, timer, record and fault; time stays where it is.
    pub fn reset(&mut self) {
        self.timers.clear();
        self.log.clear();
        self.outbox.clear();
        self.faults.clear();
        self.metrics.clear();
        self.sqs.reset();
        self.sns.reset();
        self.events = events::store::Store::default();
        self.bus = bus::store::Store::default();
        self.streams = streams::Store::default();
        self.deliveries.clear();
        self.effects.clear();
        self.throttles.clear();
        self.lanes.clear();
    }

    /// Takes the effects waiting for the async side.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        Engine::new(Settings {
            start: 1_000,
            seed: 1,
            jitter: false,
            delivery_log_size: 10,
            lambda_endpoints: HashMap::new(),
        })
    }

    #[test]
    fn timers_fire_in_due_order_seeing_their_own_due_time() {
        let mut e = engine();
        e.schedule(4_000, Timer::Probe(3, None));
        e.schedule(2_000, Timer::Probe(1, None));
        e.schedule(3_000, Timer::Probe(2, None));
        assert_eq!(e.run_until(10_000), 3);
        assert_eq!(e.probes, [(2_000, 1), (3_000, 2), (4_000, 3)]);
        assert_eq!(e.now(), 10_000);
    }

    #[test]
    fn timers_scheduled_while_firing_fire_in_the_same_advance_when_due_inside_it() {
        let mut e = engine();
        e.schedule(2_000, Timer::Probe(1, Some((500, 2))));
        e.schedule(2_400, Timer::Probe(3, Some((0, 4))));
        e.schedule(9_000, Timer::Probe(5, Some((2_000, 6))));
        e.run_until(10_000);
        assert_eq!(
            e.probes,
            [(2_000, 1), (2_400, 3), (2_400, 4), (2_500, 2), (9_000, 5)]
        );
        assert_eq!(e.pending_timers(), 1, "the follow-up due at 11 s waits");
        e.run_until(11_000);
        assert_eq!(e.probes.last(), Some(&(11_000, 6)));
    }

    #[test]
    fn nothing_fires_early() {
        let mut e = engine();
        e.schedule(5_000, Timer::Probe(1, None));
        assert_eq!(e.run_until(4_999), 0);
        assert!(e.probes.is_empty());
        assert_eq!(e.now(), 4_999);
        assert_eq!(e.run_until(5_000), 1);
    }

    #[test]
    fn time_never_goes_back_and_past_timers_fire_now() {
        let mut e = engine();
        e.run_until(5_000);
        e.run_until(3_000);
        assert_eq!(e.now(), 5_000);
        e.schedule(1_000, Timer::Probe(1, None));
        e.run_until(5_000);
        assert_eq!(e.probes, [(5_000, 1)]);
    }

    #[test]
    fn reset_keeps_time_and_drops_timers() {
        let mut e = engine();
        e.run_until(7_000);
        e.schedule(8_000, Timer::Probe(1, None));
        e.reset();
        assert_eq!(e.now(), 7_000);
        assert_eq!(e.next_due(), None);
    }
}
