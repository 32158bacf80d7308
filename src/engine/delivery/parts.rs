//! The values a delivery is made of: its target, the message an SQS target gets, the retry
//! policy trait, dead-letter settings and how an attempt ended. No engine state here.

use super::super::batch::BatchEntry;
use super::super::rng::Rng;
use super::super::time::Millis;
use crate::services::sqs::types::MessageAttributeValue;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Debug;

pub type DeliveryId = u64;

/// A message as it is put on an SQS queue.
#[derive(Debug, Clone, PartialEq)]
pub struct SqsMessage {
    pub body: String,
    pub attributes: BTreeMap<String, MessageAttributeValue>,
    pub group_id: Option<String>,
    pub dedup_id: Option<String>,
}

/// Where a delivery goes and what it carries.
#[derive(Debug, Clone)]
pub enum Target {
    /// An SQS queue of this emulator, by ARN.
    Sqs {
        queue_arn: String,
        message: SqsMessage,
    },
    /// An HTTP(S) endpoint: a real request (POST unless an API destination says otherwise).
    Http {
        method: String,
        url: String,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// An SNS topic of this emulator: a publish as the account of `publisher`.
    Sns {
        topic_arn: String,
        publisher: Publisher,
        body: String,
        group_id: Option<String>,
        dedup_id: Option<String>,
    },
    /// An EventBridge event bus of this emulator: the event is put on it. `trail` holds the buses
    /// the event already passed, so a loop ends instead of spinning.
    Bus {
        bus_arn: String,
        publisher: Publisher,
        event: String,
        trail: Vec<String>,
    },
    /// Several messages for one SQS queue of this emulator, handed over in one attempt (a
    /// SendMessageBatch). Entries the queue refuses stay; those it took are done, so a retry
    /// sends only the refused ones ([`PARTIAL_BATCH_FAILURE`]).
    SqsBatch {
        queue_arn: String,
        entries: Vec<BatchEntry>,
    },
    /// A receiver that cannot exist locally (e-mail, SMS, push, Lambda, Firehose): the outbox.
    Outbox {
        address: String,
        body: String,
        attributes: BTreeMap<String, Value>,
    },
}

impl Target {
    /// The outbox, under `address`, with no attributes.
    pub fn outbox(address: &str, body: String) -> Target {
        Target::Outbox {
            address: address.to_string(),
            body,
            attributes: BTreeMap::new(),
        }
    }

    /// The name the delivery log, faults and the outbox know the target by.
    pub fn name(&self) -> &str {
        match self {
            Target::Sqs { queue_arn, .. } | Target::SqsBatch { queue_arn, .. } => queue_arn,
            Target::Http { url, .. } => url,
            Target::Sns { topic_arn, .. } => topic_arn,
            Target::Bus { bus_arn, .. } => bus_arn,
            Target::Outbox { address, .. } => address,
        }
    }
}

/// Who hands a message on to an in-process service target: the account it acts as, and the host
/// clients reach the emulator at (for URLs inside the message).
#[derive(Debug, Clone, PartialEq)]
pub struct Publisher {
    pub account: String,
    pub host: String,
}

/// The next retry after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retry {
    pub delay_ms: Millis,
    /// How the log names the retry (SNS: `immediate`, `pre-backoff`, `backoff`, `post-backoff`).
    pub phase: &'static str,
}

/// A retry schedule: pure, so each service's schedule is unit-tested on its own.
pub trait RetryPolicy: Send + Debug {
    /// The retry after `attempts` attempts have failed (1 = the first attempt), or `None` when
    /// the policy is exhausted.
    fn next(&self, attempts: u32, rng: &mut Rng, jitter: bool) -> Option<Retry>;

    /// The retry after a failed attempt that ended with `outcome`; schedules that depend on the
    /// kind of failure (SNS to Firehose: throttling) look at it.
    fn next_after(
        &self,
        attempts: u32,
        _outcome: &Outcome,
        rng: &mut Rng,
        jitter: bool,
    ) -> Option<Retry> {
        self.next(attempts, rng, jitter)
    }

    /// The retry after a failed attempt when the message is `age_ms` old, or why there is none:
    /// the name of the limit that ended it, where the service reports one (EventBridge:
    /// `MaximumRetryAttempts`, `MaximumEventAgeInSeconds`).
    fn retry(
        &self,
        attempts: u32,
        outcome: &Outcome,
        _age_ms: Millis,
        rng: &mut Rng,
        jitter: bool,
    ) -> Result<Retry, Option<&'static str>> {
        self.next_after(attempts, outcome, rng, jitter).ok_or(None)
    }

    /// Whether failures that are not worth retrying elsewhere (4xx, a missing target, a failed
    /// transformation) are retried under this policy too (the custom bus retries every failure).
    fn retries_permanent(&self) -> bool {
        false
    }

    /// The wait after the `failures`-th failure inside the emulator itself (see
    /// [`Delivery::internal_faults`]): such failures are retried without limit.
    fn internal_delay_ms(&self, _failures: u32, _rng: &mut Rng, _jitter: bool) -> Millis {
        1000
    }
}

/// One attempt and no retries.
#[derive(Debug, Clone, Copy)]
pub struct NoRetries;

impl RetryPolicy for NoRetries {
    fn next(&self, _: u32, _: &mut Rng, _: bool) -> Option<Retry> {
        None
    }
}

/// Where a message goes when its deliveries are over without success.
#[derive(Debug, Clone)]
pub struct DeadLetter {
    /// An SQS queue, or an event bus when `bus` is set.
    pub queue_arn: String,
    pub message: SqsMessage,
    /// Completes the message with how the delivery ended (EventBridge: the ERROR_CODE, ...
    /// attributes) before it is written.
    pub finish: Option<fn(&mut SqsMessage, &GiveUp)>,
    /// `queue_arn` names an event bus: the message body (an event) is put on it as this
    /// publisher (event streams).
    pub bus: Option<Publisher>,
}

impl DeadLetter {
    pub fn new(queue_arn: String, message: SqsMessage) -> DeadLetter {
        DeadLetter {
            queue_arn,
            message,
            finish: None,
            bus: None,
        }
    }
}

/// How a followed delivery ended ([`Follow::ended`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ending {
    Delivered,
    DeadLettered,
    DlqFailed,
    Discarded,
    /// Given up, but the message stays with its source ([`Follow::keep`]): logged `blocked`.
    Kept,
}

/// A source that follows its deliveries (event streams: the next event waits for the end of
/// the one before, and the source message is deleted only once it is delivered or disposed of).
pub trait Follow: Send + Debug {
    /// Whether a delivery given up stays with its source instead of going to its dead-letter
    /// queue or being discarded.
    fn keep(&self, _how: &GiveUp) -> bool {
        false
    }

    /// An attempt ended with `outcome` (`delivered`, `retryable`, `permanent`); `retrying`
    /// when another attempt follows.
    fn attempted(
        &self,
        _metrics: &mut super::super::observe::Metrics,
        _outcome: &str,
        _retrying: bool,
    ) {
    }

    /// The delivery is over; `last` is how its last attempt ended.
    fn ended(&self, e: &mut super::super::Engine, ending: Ending, last: Option<&Outcome>);
}

/// How a delivery ended without success, for the dead-letter message.
#[derive(Debug)]
pub struct GiveUp<'a> {
    /// Attempts made, the first included.
    pub attempts: u32,
    /// The retry limit that ended it, if a limit did (not for failures that are not retried).
    pub exhausted: Option<&'static str>,
    pub outcome: &'a Outcome,
    pub target: &'a str,
    /// The ids of the batch entries still undelivered ([`Target::SqsBatch`]); empty otherwise.
    pub items: Vec<&'a str>,
    /// The request id of the last attempt, for deliveries that keep one
    /// ([`Delivery::with_request_ids`]); `None` when no request was made (a doomed delivery).
    pub request_id: Option<&'a str>,
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Delivered {
        status: Option<u16>,
    },
    /// Worth retrying (5xx, 429, connection errors, timeouts).
    Retryable {
        status: Option<u16>,
        error_code: Option<String>,
    },
    /// Not worth retrying (other 4xx, a missing queue).
    Permanent {
        status: Option<u16>,
        error_code: Option<String>,
    },
}

impl Outcome {
    /// The outcome an HTTP status means: 2xx delivered, 5xx and 429 retryable, else permanent.
    pub fn from_status(status: u16, error_code: Option<String>) -> Outcome {
        match status {
            200..=299 => Outcome::Delivered {
                status: Some(status),
            },
            429 | 500..=599 => Outcome::Retryable {
                status: Some(status),
                error_code,
            },
            _ => Outcome::Permanent {
                status: Some(status),
                error_code,
            },
        }
    }

    /// The outcome of a hand-over to a service of this emulator: delivered, or refused for good
    /// with the service's error code (a missing queue, topic or bus).
    pub fn in_process(result: Result<(), impl ToString>) -> Outcome {
        match result {
            Ok(()) => Outcome::Delivered { status: None },
            Err(code) => Outcome::Permanent {
                status: None,
                error_code: Some(code.to_string()),
            },
        }
    }

    /// The HTTP status and error code of a failure.
    pub fn status(&self) -> Option<u16> {
        self.parts().1
    }

    pub fn error_code(&self) -> Option<&str> {
        match self {
            Outcome::Delivered { .. } => None,
            Outcome::Retryable { error_code, .. } | Outcome::Permanent { error_code, .. } => {
                error_code.as_deref()
            }
        }
    }

    pub(super) fn parts(&self) -> (&'static str, Option<u16>, Option<String>) {
        match self {
            Outcome::Delivered { status } => ("delivered", *status, None),
            Outcome::Retryable { status, error_code } => ("retryable", *status, error_code.clone()),
            Outcome::Permanent { status, error_code } => ("permanent", *status, error_code.clone()),
        }
    }
}
