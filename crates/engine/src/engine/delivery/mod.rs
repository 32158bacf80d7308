//! Delivery: one message on its way from a source (an SNS subscription, a rule target, a
//! subscriber, an event stream) to one target, attempt by attempt under a retry policy, until it
//! is delivered, dead-lettered, discarded or kept by its source. This module holds the delivery
//! and what it is made of; [`attempt`] holds the engine's side (attempts, retries, throttles,
//! lanes, endings).
//!
//! An attempt at an HTTP target leaves the engine as an [`Effect`](super::Effect); an attempt at
//! a service of this emulator (an SQS queue, an SNS topic, an event bus) and the writing of a dead
//! letter leave it as [`Work`] for the layer above, which answers through
//! [`Engine::complete`](super::Engine::complete) and
//! [`Engine::dead_letter_written`](super::Engine::dead_letter_written). Nothing here knows a
//! service.

mod attempt;
mod failure;
mod outcome;
mod policy;
mod target;

pub use failure::Failure;
pub use outcome::*;
pub use policy::*;
pub use target::*;

use super::log::DeliveryRecord;
use super::statics;
use super::time::Millis;
use serde::{Deserialize, Serialize};

pub type DeliveryId = u64;

/// What the layer above chooses for the deliveries it starts: the engine's `T` is the type of
/// its services' steps, and it names the retry policies and dead-letter finishes its deliveries
/// use. They are values of the layer above's own types (not boxed functions or trait objects), so
/// a delivery under way can be written to a state snapshot and read back.
pub trait Layer: Sized {
    /// Every retry schedule a delivery may follow.
    type Policy: RetryPolicy;
    /// Every way a dead letter may be completed with how its delivery ended.
    type Finish: Finish;
    /// Every way a delivery's target may be made again for each attempt.
    type Render: Render;
}

/// Makes the target attempt `n` (1 for the first) hands over from the target a delivery was
/// made with (EventBridge Scheduler's `<aws.scheduler.attempt-number>`).
pub trait Render: std::fmt::Debug + Clone + Send {
    fn render(&self, first: &Target, n: u32) -> Target;
}

/// No rendering: for layers whose targets are made once.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum NoRender {}

impl Render for NoRender {
    fn render(&self, _: &Target, _: u32) -> Target {
        match *self {}
    }
}

/// Completes a dead letter with how its delivery ended (EventBridge: the ERROR_CODE, ...
/// attributes) before it is written.
pub trait Finish: std::fmt::Debug + Clone + Send {
    fn finish(&self, message: &mut SqsMessage, how: &GiveUp);
}

/// No finish: for layers whose dead letters go as they are.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum NoFinish {}

impl Finish for NoFinish {
    fn finish(&self, _: &mut SqsMessage, _: &GiveUp) {
        match *self {}
    }
}

/// The engine's own tests: steps are numbers, policies boxed.
#[cfg(test)]
impl Layer for u32 {
    type Policy = Box<dyn RetryPolicy>;
    type Finish = NoFinish;
    type Render = NoRender;
}

/// A message on its way to one target.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(
    serialize = "T: Serialize, T::Policy: Serialize, T::Finish: Serialize, T::Render: Serialize",
    deserialize = "T: serde::de::DeserializeOwned, T::Policy: serde::de::DeserializeOwned, \
                   T::Finish: serde::de::DeserializeOwned, T::Render: serde::de::DeserializeOwned"
))]
pub struct Delivery<T: Layer> {
    /// The label of the delivering service in `switchyard_deliveries_total`: `sns`, `events`, ...
    #[serde(with = "statics")]
    pub service: statics::Label,
    /// What delivers: SNS subscription ARN, `<rule ARN>#<target id>`, ...
    pub source: String,
    pub protocol: String,
    pub message_id: String,
    pub target: Target,
    pub policy: T::Policy,
    pub dead_letter: Option<DeadLetter<T::Finish>>,
    /// A rate limit shared by every delivery with the same key (SNS: maxReceivesPerSecond per
    /// subscription): (key, deliveries per second).
    pub throttle: Option<(String, u32)>,
    /// An ordered lane (SNS FIFO: subscription and message group): a delivery starts only when
    /// the one before it in its lane is over, so a retry never breaks the order.
    pub lane: Option<String>,
    attempts: u32,
    #[serde(with = "statics")]
    phase: statics::Label,
    last_attempt_at: Option<Millis>,
    /// When the message came into being, for age limits (set when the delivery starts).
    born_at: Option<Millis>,
    /// How the last attempt ended and, once over, the limit that ended the retries.
    last_outcome: Option<Outcome>,
    #[serde(with = "statics::option")]
    exhausted: Option<statics::Label>,
    /// A delivery that cannot be made (its target input failed to render, its target is
    /// misconfigured): every attempt ends so.
    doomed: Option<Outcome>,
    /// Another name faults know the target by (the ARN of an API destination or a Lambda
    /// function whose requests go to a URL).
    alias: Option<String>,
    /// This attempt already waited for its throttle slot.
    slot_reserved: bool,
    /// A fault on this name fails the delivery inside the emulator: see [`Delivery::internal_faults`].
    internal_fault_key: Option<String>,
    internal_failures: u32,
    /// Each attempt gets a request id (for dead-letter records that name it).
    request_ids: bool,
    last_request_id: Option<String>,
    /// How long an HTTP target has to answer, instead of the default.
    pub timeout_ms: Option<Millis>,
    /// The target's `Retry-After` is honoured; the last answer's, in milliseconds.
    honours_retry_after: bool,
    retry_after_ms: Option<Millis>,
    /// The AWS-named counters the delivery counts in.
    counters: Option<Counters>,
    /// Part of this batch was delivered already.
    partly_delivered: bool,
    /// The source following this delivery, if any.
    follow: Option<Follow<T>>,
    /// The body of the last HTTP answer, kept for the source (an enrichment's result, a Lambda
    /// function's partial batch failures) when it asked for it.
    answer: Option<String>,
    keeps_answer: bool,
    /// The target as first given and how to render it for each attempt (EventBridge
    /// Scheduler's `<aws.scheduler.attempt-number>`): see [`Delivery::rendered_per_attempt`].
    per_attempt: Option<(Target, T::Render)>,
    /// An HTTP attempt was sent and its answer has not come back yet (a snapshot read back sends
    /// it again: see [`crate::engine::Engine::resume`]).
    #[serde(default)]
    awaiting_answer: bool,
}

/// The AWS-named metrics a delivery counts in (`switchyard_aws_metric_total`): their namespace,
/// the resource they are kept per, and the name of each counter the delivery has. Each delivering
/// service says which it has; the engine only counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    #[serde(with = "statics")]
    pub namespace: statics::Label,
    pub resource: String,
    /// Every attempt that reached its target.
    #[serde(with = "statics::option")]
    pub attempted: Option<statics::Label>,
    /// Every failed attempt after which another follows.
    #[serde(with = "statics::option")]
    pub retried: Option<statics::Label>,
    /// Every attempt that delivered.
    #[serde(with = "statics::option")]
    pub delivered: Option<statics::Label>,
    /// A failure: once per message when it is given up, or at every failed attempt when
    /// `every_failure`.
    #[serde(with = "statics::option")]
    pub failed: Option<statics::Label>,
    pub every_failure: bool,
    /// The message written to its dead-letter queue.
    #[serde(with = "statics::option")]
    pub dead_lettered: Option<statics::Label>,
    /// Writing it to its dead-letter queue failed.
    #[serde(with = "statics::option")]
    pub dlq_failed: Option<statics::Label>,
    /// Given up without a dead-letter queue: one per undelivered item (batch entries).
    #[serde(with = "statics::option")]
    pub dropped: Option<statics::Label>,
}

/// A source that follows its deliveries (event streams: the next event waits for the end of
/// the one before, and the source message is deleted only once it is delivered or disposed of).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Follow<T> {
    /// Whether a delivery given up stays with its source instead of going to its dead-letter
    /// queue or being discarded.
    pub keep: Keep,
    /// Handed back in [`Work::Ended`] when the delivery is over.
    pub then: T,
}

/// When a delivery given up stays with its source.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Keep {
    Always,
    /// Only when the retries ended by this limit (a failure not worth retrying).
    WhenExhaustedBy(#[serde(with = "statics")] statics::Label),
}

impl Keep {
    fn keeps(self, how: &GiveUp) -> bool {
        match self {
            Keep::Always => true,
            Keep::WhenExhaustedBy(limit) => how.exhausted == Some(limit),
        }
    }
}

/// What a delivery needs of the layer above, in the order it arose.
#[derive(Debug)]
pub enum Work<T: Layer> {
    /// Hand `target` (an SQS queue, an SNS topic, an event bus of this emulator) its message,
    /// then answer with [`Engine::complete`](super::Engine::complete) (or
    /// [`Engine::complete_batch`](super::Engine::complete_batch) for a batch).
    HandOver {
        delivery: DeliveryId,
        target: Target,
    },
    /// Write `message` to the dead-letter queue or bus `letter` names, then answer with
    /// [`Engine::dead_letter_written`](super::Engine::dead_letter_written).
    DeadLetter {
        delivery: DeliveryId,
        letter: DeadLetter<T::Finish>,
        message: SqsMessage,
    },
    /// A followed delivery is over.
    Ended {
        then: T,
        ending: Ending,
        last: Option<Outcome>,
        /// The body of the last HTTP answer, for deliveries that keep it
        /// ([`Delivery::keeping_answer`]).
        answer: Option<String>,
        /// How many attempts were made.
        attempts: u32,
        /// The limit of its retry policy that ended its retries, if one did.
        exhausted: Option<&'static str>,
    },
}

impl<T: Layer> Delivery<T> {
    pub fn new(
        service: &'static str,
        source: String,
        protocol: String,
        message_id: String,
        target: Target,
        policy: impl Into<T::Policy>,
        dead_letter: Option<DeadLetter<T::Finish>>,
    ) -> Delivery<T> {
        Delivery {
            service,
            source,
            protocol,
            message_id,
            target,
            policy: policy.into(),
            dead_letter,
            throttle: None,
            lane: None,
            attempts: 0,
            phase: "initial",
            last_attempt_at: None,
            born_at: None,
            last_outcome: None,
            exhausted: None,
            doomed: None,
            alias: None,
            slot_reserved: false,
            internal_fault_key: None,
            internal_failures: 0,
            request_ids: false,
            last_request_id: None,
            timeout_ms: None,
            honours_retry_after: false,
            retry_after_ms: None,
            counters: None,
            partly_delivered: false,
            follow: None,
            answer: None,
            keeps_answer: false,
            per_attempt: None,
            awaiting_answer: false,
        }
    }

    /// Renders the target afresh for each attempt: `render(first, n)` is what attempt `n` (1 for
    /// the first) hands over, `first` the target this delivery was made with.
    pub fn rendered_per_attempt(mut self, render: T::Render) -> Delivery<T> {
        self.per_attempt = Some((self.target.clone(), render));
        self
    }

    /// Has the layer above told how the delivery ends ([`Work::Ended`] with `follow.then`).
    pub fn followed_by(mut self, follow: Follow<T>) -> Delivery<T> {
        self.follow = Some(follow);
        self
    }

    /// While a fault is set on `key` (docs/control-api.md faults; the custom bus uses the subscriber's
    /// ARN), every attempt fails inside the emulator before it reaches the target: retried
    /// without limit, not counted as an attempt, never dead-lettered.
    pub fn internal_faults(mut self, key: String) -> Delivery<T> {
        self.internal_fault_key = Some(key);
        self
    }

    /// Keeps the body of the target's last HTTP answer, handed back in [`Work::Ended`] (a pipe's
    /// enrichment answers with the events to deliver, a Lambda function with the items of a
    /// batch that failed).
    pub fn keeping_answer(mut self) -> Delivery<T> {
        self.keeps_answer = true;
        self
    }

    /// Gives every attempt that reaches its target a request id, for [`GiveUp::request_id`].
    pub fn with_request_ids(mut self) -> Delivery<T> {
        self.request_ids = true;
        self
    }

    /// Makes the target's `Retry-After` answers count (see [`Engine::complete_after`]).
    pub fn honouring_retry_after(mut self) -> Delivery<T> {
        self.honours_retry_after = true;
        self
    }

    /// Gives an HTTP target `ms` to answer (wall-clock time: see docs/custom-bus.md).
    pub fn timeout(mut self, ms: Millis) -> Delivery<T> {
        self.timeout_ms = Some(ms);
        self
    }

    /// Counts the delivery's attempts and ending in the AWS-named `counters`.
    pub fn counted(mut self, counters: Counters) -> Delivery<T> {
        self.counters = Some(counters);
        self
    }

    /// The request an HTTP attempt of this delivery sends, as delivery `id`.
    fn effect(&self, id: DeliveryId) -> Option<super::Effect> {
        match &self.target {
            Target::Http {
                method,
                url,
                headers,
                body,
            } => Some(super::Effect::Http {
                delivery: id,
                method: method.clone(),
                url: url.clone(),
                headers: headers.clone(),
                body: body.clone(),
                timeout_ms: self.timeout_ms,
            }),
            Target::Invoke {
                function,
                payload,
                request_id,
                host,
            } => Some(super::Effect::Invoke {
                delivery: id,
                function: function.clone(),
                payload: payload.clone(),
                request_id: request_id.clone(),
                host: host.clone(),
            }),
            _ => None,
        }
    }

    /// The batch entries not delivered yet ([`Target::SqsBatch`]).
    fn items(&self) -> Vec<&str> {
        match &self.target {
            Target::SqsBatch { entries, .. } => entries.iter().map(|e| e.id.as_str()).collect(),
            _ => Vec::new(),
        }
    }

    /// Counts the message's age from `at` (EventBridge: when the event came in) rather than from
    /// the start of the delivery.
    pub fn born_at(mut self, at: Millis) -> Delivery<T> {
        self.born_at = Some(at);
        self
    }

    /// A delivery-log record of this delivery: `event` now, nothing decided yet.
    fn record(&self, at: Millis, event: &'static str) -> DeliveryRecord {
        DeliveryRecord {
            at,
            event,
            source: self.source.clone(),
            target: self.target.name().to_string(),
            protocol: self.protocol.clone(),
            message_id: self.message_id.clone(),
            attempt: self.attempts,
            phase: self.phase,
            delay_seconds: 0.0,
            outcome: None,
            status: None,
            error_code: None,
            next_attempt_at: None,
        }
    }

    /// Makes every attempt of this delivery end with `outcome` (a failure found before the
    /// first attempt, which still goes through the log, the retry policy and the DLQ).
    pub fn doomed(mut self, outcome: Outcome) -> Delivery<T> {
        self.doomed = Some(outcome);
        self
    }

    /// Lets faults set on `name` (as well as on the target's own name) fail this delivery.
    pub fn also_known_as(mut self, name: String) -> Delivery<T> {
        self.alias = Some(name);
        self
    }

    /// Orders this delivery after the earlier ones of `lane`.
    pub fn in_lane(mut self, lane: String) -> Delivery<T> {
        self.lane = Some(lane);
        self
    }

    /// Limits this delivery to `per_second` on average together with every other delivery
    /// throttled under `key`.
    pub fn throttled(mut self, key: String, per_second: u32) -> Delivery<T> {
        self.throttle = Some((key, per_second.max(1)));
        self
    }
}

#[cfg(test)]
mod tests;
