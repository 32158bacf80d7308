//! Delivery: one message on its way from a source (an SNS subscription, a rule target, ...) to
//! one target, attempt by attempt under a retry policy, until it is delivered, dead-lettered or
//! discarded. In-process targets (SQS queues, the outbox) are attempted inside the engine; an
//! HTTP target leaves as an [`Effect`] and its outcome comes back through [`Engine::complete`].

use super::observe::{DeliveryRecord, OutboxMessage};
use super::rng::Rng;
use super::time::Millis;
use super::{Effect, Engine, Timer};
use crate::services::sqs;
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
    /// An HTTP(S) endpoint: a real POST.
    Http {
        url: String,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// A receiver that cannot exist locally (e-mail, SMS, push, Lambda, Firehose): the outbox.
    Outbox {
        address: String,
        body: String,
        attributes: BTreeMap<String, Value>,
    },
}

impl Target {
    /// The name the delivery log, faults and the outbox know the target by.
    pub fn name(&self) -> &str {
        match self {
            Target::Sqs { queue_arn, .. } => queue_arn,
            Target::Http { url, .. } => url,
            Target::Outbox { address, .. } => address,
        }
    }
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
    pub queue_arn: String,
    pub message: SqsMessage,
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

    fn parts(&self) -> (&'static str, Option<u16>, Option<String>) {
        match self {
            Outcome::Delivered { status } => ("delivered", *status, None),
            Outcome::Retryable { status, error_code } => ("retryable", *status, error_code.clone()),
            Outcome::Permanent { status, error_code } => ("permanent", *status, error_code.clone()),
        }
    }
}

/// A message on its way to one target.
#[derive(Debug)]
pub struct Delivery {
    /// The service that delivers (metrics label): `sns`, `events`, ...
    pub service: &'static str,
    /// What delivers: SNS subscription ARN, `<rule ARN>#<target id>`, ...
    pub source: String,
    pub protocol: String,
    pub message_id: String,
    pub target: Target,
    pub policy: Box<dyn RetryPolicy>,
    pub dead_letter: Option<DeadLetter>,
    attempts: u32,
    phase: &'static str,
    last_attempt_at: Option<Millis>,
}

impl Delivery {
    pub fn new(
        service: &'static str,
        source: String,
        protocol: String,
        message_id: String,
        target: Target,
        policy: Box<dyn RetryPolicy>,
        dead_letter: Option<DeadLetter>,
    ) -> Delivery {
        Delivery {
            service,
            source,
            protocol,
            message_id,
            target,
            policy,
            dead_letter,
            attempts: 0,
            phase: "initial",
            last_attempt_at: None,
        }
    }
}

impl Engine {
    /// Starts a delivery: its first attempt happens now.
    pub fn deliver(&mut self, delivery: Delivery) -> DeliveryId {
        self.next_delivery_id += 1;
        let id = self.next_delivery_id;
        self.deliveries.insert(id, delivery);
        self.attempt(id);
        id
    }

    pub(super) fn attempt(&mut self, id: DeliveryId) {
        let now = self.now();
        let Some(d) = self.deliveries.get_mut(&id) else {
            return;
        };
        d.attempts += 1;
        let target = d.target.name().to_string();
        let outcome = match self.faults.hit(&target) {
            Some(fault) => Some(Outcome::from_status(fault.status, fault.error_code)),
            None => match &d.target {
                Target::Sqs { queue_arn, message } => {
                    let (arn, message) = (queue_arn.clone(), message.clone());
                    Some(match sqs::enqueue(self, &arn, message) {
                        Ok(()) => Outcome::Delivered { status: None },
                        Err(code) => Outcome::Permanent {
                            status: None,
                            error_code: Some(code.to_string()),
                        },
                    })
                }
                Target::Outbox {
                    address,
                    body,
                    attributes,
                } => {
                    let message = OutboxMessage {
                        at: now,
                        protocol: d.protocol.clone(),
                        target: address.clone(),
                        source: d.source.clone(),
                        message_id: d.message_id.clone(),
                        body: body.clone(),
                        attributes: attributes.clone(),
                    };
                    self.outbox.push(message);
                    Some(Outcome::Delivered { status: None })
                }
                Target::Http { url, headers, body } => {
                    let effect = Effect::Http {
                        delivery: id,
                        url: url.clone(),
                        headers: headers.clone(),
                        body: body.clone(),
                    };
                    self.effects.push(effect);
                    None
                }
            },
        };
        if let Some(outcome) = outcome {
            self.complete(id, outcome);
        }
    }

    /// Records how attempt `id` ended and decides what comes next: done, a retry, or the end
    /// of the road (dead-letter queue or discard).
    pub fn complete(&mut self, id: DeliveryId, outcome: Outcome) {
        let now = self.now();
        let Some(d) = self.deliveries.get_mut(&id) else {
            return;
        };
        let delay_seconds = d
            .last_attempt_at
            .map_or(0.0, |at| (now - at) as f64 / 1000.0);
        d.last_attempt_at = Some(now);
        let (name, status, error_code) = outcome.parts();
        let retry = match outcome {
            Outcome::Retryable { .. } => d.policy.next(d.attempts, &mut self.rng, self.jitter),
            _ => None,
        };
        let record = DeliveryRecord {
            at: now,
            event: "attempt",
            source: d.source.clone(),
            target: d.target.name().to_string(),
            protocol: d.protocol.clone(),
            message_id: d.message_id.clone(),
            attempt: d.attempts,
            phase: d.phase,
            delay_seconds,
            outcome: Some(name),
            status,
            error_code,
            next_attempt_at: retry.map(|r| now + r.delay_ms),
        };
        self.metrics.delivery(d.service, "attempt", name);
        self.log.push(record);
        if let Some(retry) = retry {
            d.phase = retry.phase;
            self.schedule(now + retry.delay_ms, Timer::Attempt(id));
            return;
        }
        let d = self.deliveries.remove(&id).expect("present above");
        if name != "delivered" {
            self.give_up(d);
        }
    }

    /// A delivery that will not succeed: to its dead-letter queue, or discarded.
    fn give_up(&mut self, d: Delivery) {
        let (event, target) = match &d.dead_letter {
            Some(dlq) => {
                let refused = self.faults.hit(&dlq.queue_arn).is_some();
                match refused || sqs::enqueue(self, &dlq.queue_arn, dlq.message.clone()).is_err() {
                    false => ("dead-lettered", dlq.queue_arn.clone()),
                    true => ("dlq-failed", dlq.queue_arn.clone()),
                }
            }
            None => ("discarded", d.target.name().to_string()),
        };
        self.metrics.delivery(d.service, event, "");
        self.log.push(DeliveryRecord {
            at: self.now(),
            event,
            source: d.source,
            target,
            protocol: d.protocol,
            message_id: d.message_id,
            attempt: d.attempts,
            phase: d.phase,
            delay_seconds: 0.0,
            outcome: None,
            status: None,
            error_code: None,
            next_attempt_at: None,
        });
    }

    /// Deliveries still under way (waiting for a retry or an HTTP answer).
    pub fn deliveries_in_progress(&self) -> usize {
        self.deliveries.len()
    }
}
