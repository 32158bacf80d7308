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
use super::time::Millis;

pub type DeliveryId = u64;

/// A message on its way to one target.
#[derive(Debug)]
pub struct Delivery<T> {
    /// The label of the delivering service in `switchyard_deliveries_total`: `sns`, `events`, ...
    pub service: &'static str,
    /// What delivers: SNS subscription ARN, `<rule ARN>#<target id>`, ...
    pub source: String,
    pub protocol: String,
    pub message_id: String,
    pub target: Target,
    pub policy: Box<dyn RetryPolicy>,
    pub dead_letter: Option<DeadLetter>,
    /// A rate limit shared by every delivery with the same key (SNS: maxReceivesPerSecond per
    /// subscription): (key, deliveries per second).
    pub throttle: Option<(String, u32)>,
    /// An ordered lane (SNS FIFO: subscription and message group): a delivery starts only when
    /// the one before it in its lane is over, so a retry never breaks the order.
    pub lane: Option<String>,
    attempts: u32,
    phase: &'static str,
    last_attempt_at: Option<Millis>,
    /// When the message came into being, for age limits (set when the delivery starts).
    born_at: Option<Millis>,
    /// How the last attempt ended and, once over, the limit that ended the retries.
    last_outcome: Option<Outcome>,
    exhausted: Option<&'static str>,
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
    per_attempt: Option<(Target, RenderAttempt)>,
}

/// How a delivery renders its target for attempt `n` from the target it was made with
/// ([`Delivery::rendered_per_attempt`]).
pub type RenderAttempt = fn(&Target, u32) -> Target;

/// The AWS-named metrics a delivery counts in (`switchyard_aws_metric_total`): their namespace,
/// the resource they are kept per, and the name of each counter the delivery has. Each delivering
/// service says which it has; the engine only counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counters {
    pub namespace: &'static str,
    pub resource: String,
    /// Every attempt that reached its target.
    pub attempted: Option<&'static str>,
    /// Every failed attempt after which another follows.
    pub retried: Option<&'static str>,
    /// Every attempt that delivered.
    pub delivered: Option<&'static str>,
    /// A failure: once per message when it is given up, or at every failed attempt when
    /// `every_failure`.
    pub failed: Option<&'static str>,
    pub every_failure: bool,
    /// The message written to its dead-letter queue.
    pub dead_lettered: Option<&'static str>,
    /// Writing it to its dead-letter queue failed.
    pub dlq_failed: Option<&'static str>,
    /// Given up without a dead-letter queue: one per undelivered item (batch entries).
    pub dropped: Option<&'static str>,
}

/// A source that follows its deliveries (event streams: the next event waits for the end of
/// the one before, and the source message is deleted only once it is delivered or disposed of).
#[derive(Debug, Clone)]
pub struct Follow<T> {
    /// Whether a delivery given up stays with its source instead of going to its dead-letter
    /// queue or being discarded.
    pub keep: Keep,
    /// Handed back in [`Work::Ended`] when the delivery is over.
    pub then: T,
}

/// When a delivery given up stays with its source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Keep {
    Always,
    /// Only when the retries ended by this limit (a failure not worth retrying).
    WhenExhaustedBy(&'static str),
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
pub enum Work<T> {
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
        letter: DeadLetter,
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
    },
}

impl<T> Delivery<T> {
    pub fn new(
        service: &'static str,
        source: String,
        protocol: String,
        message_id: String,
        target: Target,
        policy: Box<dyn RetryPolicy>,
        dead_letter: Option<DeadLetter>,
    ) -> Delivery<T> {
        Delivery {
            service,
            source,
            protocol,
            message_id,
            target,
            policy,
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
        }
    }

    /// Renders the target afresh for each attempt: `render(first, n)` is what attempt `n` (1 for
    /// the first) hands over, `first` the target this delivery was made with.
    pub fn rendered_per_attempt(mut self, render: RenderAttempt) -> Delivery<T> {
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
