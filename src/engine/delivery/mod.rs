//! Delivery: one message on its way from a source (an SNS subscription, a rule target, ...) to
//! one target, attempt by attempt under a retry policy, until it is delivered, dead-lettered or
//! discarded. In-process targets (SQS queues, the outbox) are attempted inside the engine; an
//! HTTP target leaves as an [`Effect`] and its outcome comes back through [`Engine::complete`].

use super::batch::PARTIAL_BATCH_FAILURE;
use super::observe::{DeliveryRecord, OutboxMessage};
use super::time::Millis;
use super::{Effect, Engine, Timer};
use crate::services::{bus, events, sns, sqs};

mod parts;
pub use parts::*;

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
    /// AWS counters of a delivery given up: see [`GiveUpMetrics`].
    give_up_metrics: Option<GiveUpMetrics>,
    /// Part of this batch was delivered already.
    partly_delivered: bool,
    /// The source following this delivery, if any.
    follow: Option<Box<dyn Follow>>,
}

/// The AWS-named counters a delivery given up adds to: `dropped` by one per undelivered item
/// when there is no dead-letter queue, `dlq_failed` by one when writing to it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct GiveUpMetrics {
    pub namespace: &'static str,
    pub resource: String,
    pub dropped: &'static str,
    pub dlq_failed: &'static str,
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
            give_up_metrics: None,
            partly_delivered: false,
            follow: None,
        }
    }

    /// Tells `follow` how each attempt and the delivery end.
    pub fn followed_by(mut self, follow: Box<dyn Follow>) -> Delivery {
        self.follow = Some(follow);
        self
    }

    /// While a fault is set on `key` (CONTROL_API.md faults; the custom bus uses the subscriber's
    /// ARN), every attempt fails inside the emulator before it reaches the target: retried
    /// without limit, not counted as an attempt, never dead-lettered.
    pub fn internal_faults(mut self, key: String) -> Delivery {
        self.internal_fault_key = Some(key);
        self
    }

    /// Gives every attempt that reaches its target a request id, for [`GiveUp::request_id`].
    pub fn with_request_ids(mut self) -> Delivery {
        self.request_ids = true;
        self
    }

    /// Makes the target's `Retry-After` answers count (see [`Engine::complete_after`]).
    pub fn honouring_retry_after(mut self) -> Delivery {
        self.honours_retry_after = true;
        self
    }

    /// Gives an HTTP target `ms` to answer (wall-clock time: see docs/custom-bus.md).
    pub fn timeout(mut self, ms: Millis) -> Delivery {
        self.timeout_ms = Some(ms);
        self
    }

    /// Counts the delivery in `metrics` when it is given up.
    pub fn counted(mut self, metrics: GiveUpMetrics) -> Delivery {
        self.give_up_metrics = Some(metrics);
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
    pub fn born_at(mut self, at: Millis) -> Delivery {
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
    pub fn doomed(mut self, outcome: Outcome) -> Delivery {
        self.doomed = Some(outcome);
        self
    }

    /// Lets faults set on `name` (as well as on the target's own name) fail this delivery.
    pub fn also_known_as(mut self, name: String) -> Delivery {
        self.alias = Some(name);
        self
    }

    /// Orders this delivery after the earlier ones of `lane`.
    pub fn in_lane(mut self, lane: String) -> Delivery {
        self.lane = Some(lane);
        self
    }

    /// Limits this delivery to `per_second` on average together with every other delivery
    /// throttled under `key`.
    pub fn throttled(mut self, key: String, per_second: u32) -> Delivery {
        self.throttle = Some((key, per_second.max(1)));
        self
    }
}

/// The rule of an EventBridge target's delivery (`<rule ARN>#<target id>`), which EventBridge's
/// metrics are kept per.
fn events_rule(d: &Delivery) -> Option<&str> {
    (d.service == "events").then(|| {
        d.source
            .rsplit_once('#')
            .map_or(d.source.as_str(), |(r, _)| r)
    })
}

/// The topic of an SNS subscription's delivery (the subscription ARN less its id), which SNS's
/// metrics are kept per.
fn sns_topic(d: &Delivery) -> Option<String> {
    (d.service == "sns").then(|| {
        d.source
            .rsplit_once(':')
            .map_or(d.source.clone(), |(topic, _)| topic.to_string())
    })
}

impl Engine {
    /// Starts a delivery: its first attempt happens now.
    pub fn deliver(&mut self, delivery: Delivery) -> DeliveryId {
        self.next_delivery_id += 1;
        let id = self.next_delivery_id;
        let mut delivery = delivery;
        delivery.born_at.get_or_insert(self.now);
        let lane = delivery.lane.clone();
        self.deliveries.insert(id, delivery);
        match lane {
            Some(lane) => {
                let queue = self.lanes.entry(lane).or_default();
                queue.push_back(id);
                if queue.len() == 1 {
                    self.attempt(id);
                }
            }
            None => self.attempt(id),
        }
        id
    }

    /// Drops a delivery under way without a decision (its source stopped): no further attempt is
    /// made, an HTTP answer still on its way is ignored, and the next one of its lane may start.
    pub fn cancel(&mut self, id: DeliveryId) {
        let Some(d) = self.deliveries.remove(&id) else {
            return;
        };
        let Some(lane) = &d.lane else { return };
        let Some(queue) = self.lanes.get_mut(lane) else {
            return;
        };
        if queue.front() == Some(&id) {
            self.finished(&d);
        } else {
            queue.retain(|&other| other != id);
        }
    }

    /// A delivery is over: the next one of its lane may start.
    fn finished(&mut self, d: &Delivery) {
        let Some(lane) = &d.lane else { return };
        let Some(queue) = self.lanes.get_mut(lane) else {
            return;
        };
        queue.pop_front();
        match queue.front().copied() {
            Some(next) => self.attempt(next),
            None => {
                self.lanes.remove(lane);
            }
        }
    }

    pub(super) fn attempt(&mut self, id: DeliveryId) {
        let now = self.now();
        let Some(d) = self.deliveries.get_mut(&id) else {
            return;
        };
        if let Some((key, per_second)) = d.throttle.clone() {
            let interval = (1000 / Millis::from(per_second)).max(1);
            let slot = self.throttles.get(&key).copied().unwrap_or(now).max(now);
            if d.slot_reserved {
                d.slot_reserved = false;
            } else if slot > now {
                // Held back by its own throttle: re-queued for its slot; not an attempt, not a retry.
                d.slot_reserved = true;
                self.throttles.insert(key, slot + interval);
                let record = DeliveryRecord {
                    next_attempt_at: Some(slot),
                    ..d.record(now, "throttled")
                };
                self.metrics.delivery(d.service, "throttled", "");
                self.log.push(record);
                self.schedule(slot, Timer::Attempt(id));
                return;
            } else {
                self.throttles.insert(key, now + interval);
            }
        }
        if let Some(key) = d.internal_fault_key.clone()
            && let Some(fault) = self.faults.hit(&key)
        {
            // A failure inside the emulator: not an attempt at the target; retried without limit.
            d.internal_failures += 1;
            let delay = d
                .policy
                .internal_delay_ms(d.internal_failures, &mut self.rng, self.jitter);
            let record = DeliveryRecord {
                attempt: d.attempts + 1,
                phase: "internal",
                outcome: Some("retryable"),
                status: Some(fault.status),
                error_code: Some(
                    fault
                        .error_code
                        .unwrap_or_else(|| "INTERNAL_FAILURE".into()),
                ),
                next_attempt_at: Some(now + delay),
                ..d.record(now, "attempt")
            };
            self.metrics.delivery(d.service, "attempt", "retryable");
            self.log.push(record);
            self.schedule(now + delay, Timer::Attempt(id));
            return;
        }
        d.attempts += 1;
        d.last_request_id = match d.request_ids && d.doomed.is_none() {
            true => Some(self.rng.uuid()),
            false => None,
        };
        let target = d.target.name().to_string();
        let fault = match (&d.doomed, &d.alias) {
            (Some(_), _) => None,
            (None, alias) => self
                .faults
                .hit(&target)
                .or_else(|| alias.as_ref().and_then(|a| self.faults.hit(a))),
        };
        let outcome = match fault {
            _ if d.doomed.is_some() => d.doomed.clone(),
            Some(fault) => Some(Outcome::from_status(fault.status, fault.error_code)),
            None => match &d.target {
                Target::Sqs { queue_arn, message } => {
                    let (arn, message) = (queue_arn.clone(), message.clone());
                    Some(Outcome::in_process(sqs::enqueue(self, &arn, message)))
                }
                Target::SqsBatch { queue_arn, entries } => {
                    let (arn, entries) = (queue_arn.clone(), entries.clone());
                    let (mut outcome, refused) = self.send_batch(&arn, entries);
                    let d = self.deliveries.get_mut(&id).expect("attempted above");
                    // Once part of the batch went through, the rest failing is still a partial
                    // failure of the batch.
                    d.partly_delivered |= outcome.error_code() == Some(PARTIAL_BATCH_FAILURE);
                    if d.partly_delivered && !refused.is_empty() {
                        outcome = Outcome::Permanent {
                            status: outcome.status(),
                            error_code: Some(PARTIAL_BATCH_FAILURE.into()),
                        };
                    }
                    if let Target::SqsBatch { entries, .. } = &mut d.target {
                        *entries = refused;
                    }
                    Some(outcome)
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
                Target::Sns {
                    topic_arn,
                    publisher,
                    body,
                    group_id,
                    dedup_id,
                } => {
                    let (arn, publisher, body) =
                        (topic_arn.clone(), publisher.clone(), body.clone());
                    let (group_id, dedup_id) = (group_id.clone(), dedup_id.clone());
                    let published =
                        sns::deliver_to_topic(self, &arn, &publisher, &body, group_id, dedup_id);
                    Some(Outcome::in_process(published))
                }
                Target::Bus {
                    bus_arn,
                    publisher,
                    event,
                    trail,
                } => {
                    let (arn, publisher) = (bus_arn.clone(), publisher.clone());
                    let (event, trail) = (event.clone(), trail.clone());
                    let forwarded = if arn.contains(":event-busv2/") {
                        bus::forward(self, &arn, &publisher, &event, trail)
                    } else {
                        events::forward(self, &arn, &publisher, &event, trail)
                    };
                    Some(Outcome::in_process(forwarded))
                }
                Target::Http {
                    method,
                    url,
                    headers,
                    body,
                } => {
                    let effect = Effect::Http {
                        delivery: id,
                        method: method.clone(),
                        url: url.clone(),
                        headers: headers.clone(),
                        body: body.clone(),
                        timeout_ms: d.timeout_ms,
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

    /// [`Engine::complete`] for an HTTP answer that said `Retry-After` (milliseconds): a
    /// delivery that honours it waits at least that long before its retry, within its policy's
    /// limits, and a negative one ends its retries (EventBridge API destinations).
    pub fn complete_after(
        &mut self,
        id: DeliveryId,
        outcome: Outcome,
        retry_after: Option<Millis>,
    ) {
        if let Some(d) = self
            .deliveries
            .get_mut(&id)
            .filter(|d| d.honours_retry_after)
        {
            d.retry_after_ms = retry_after;
        }
        self.complete(id, outcome);
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
        let age = now - d.born_at.unwrap_or(now);
        let floor = d.retry_after_ms.take();
        let retry = match outcome {
            Outcome::Permanent { .. } if !d.policy.retries_permanent() => None,
            Outcome::Retryable { .. } if floor.is_some_and(|f| f < 0) => None,
            Outcome::Retryable { .. } | Outcome::Permanent { .. } => {
                let (attempts, rng, jitter) = (d.attempts, &mut self.rng, self.jitter);
                let decided = d.policy.retry(attempts, &outcome, age, rng, jitter);
                // A longer Retry-After must still fit the policy's limits when waited out.
                let decided = match (decided, floor) {
                    (Ok(r), Some(f)) if f > r.delay_ms => d
                        .policy
                        .retry(attempts, &outcome, age + f - r.delay_ms, rng, jitter)
                        .map(|r| Retry { delay_ms: f, ..r }),
                    (decided, _) => decided,
                };
                match decided {
                    Ok(retry) => Some(retry),
                    Err(limit) => {
                        d.exhausted = limit;
                        None
                    }
                }
            }
            Outcome::Delivered { .. } => None,
        };
        d.last_outcome = Some(outcome);
        let record = DeliveryRecord {
            delay_seconds,
            outcome: Some(name),
            status,
            error_code,
            next_attempt_at: retry.map(|r| now + r.delay_ms),
            ..d.record(now, "attempt")
        };
        self.metrics.delivery(d.service, "attempt", name);
        if let Some(topic) = sns_topic(d) {
            let metric = if name == "delivered" {
                "NumberOfNotificationsDelivered"
            } else {
                "NumberOfNotificationsFailed"
            };
            // HTTP/S counts every failed attempt; other protocols one failure per message.
            let counted = name == "delivered" || retry.is_none() || d.protocol.starts_with("http");
            if counted {
                self.metrics.aws("AWS/SNS", metric, &topic, 1);
            }
        }
        if let Some(rule) = events_rule(d) {
            // Invocations counts hand-overs to the target; FailedInvocations those given up.
            if name == "delivered" {
                self.metrics.aws("AWS/Events", "Invocations", rule, 1);
            } else if retry.is_none() {
                self.metrics.aws("AWS/Events", "FailedInvocations", rule, 1);
            }
        }
        if let Some(follow) = &d.follow {
            follow.attempted(&mut self.metrics, name, retry.is_some());
        }
        self.log.push(record);
        if let Some(retry) = retry {
            d.phase = retry.phase;
            self.schedule(now + retry.delay_ms, Timer::Attempt(id));
            return;
        }
        let d = self.deliveries.remove(&id).expect("present above");
        let ending = match name {
            "delivered" => Ending::Delivered,
            _ => self.give_up(&d),
        };
        self.finished(&d);
        if let Some(follow) = &d.follow {
            follow.ended(self, ending, d.last_outcome.as_ref());
        }
    }

    /// Writes a dead letter: to its queue, or put on its event bus.
    fn write_dead_letter(&mut self, dlq: &DeadLetter, message: SqsMessage) -> bool {
        if self.faults.hit(&dlq.queue_arn).is_some() {
            return false;
        }
        let arn = dlq.queue_arn.as_str();
        match &dlq.bus {
            Some(publisher) if arn.contains(":event-busv2/") => {
                bus::forward(self, arn, publisher, &message.body, Vec::new()).is_ok()
            }
            Some(publisher) => {
                events::forward(self, arn, publisher, &message.body, Vec::new()).is_ok()
            }
            None => sqs::enqueue(self, arn, message).is_ok(),
        }
    }

    /// A delivery that will not succeed: to its dead-letter queue, or discarded, or kept by its
    /// source ([`Follow::keep`]).
    fn give_up(&mut self, d: &Delivery) -> Ending {
        let how = d.last_outcome.as_ref().map(|outcome| GiveUp {
            attempts: d.attempts,
            exhausted: d.exhausted,
            outcome,
            target: d.target.name(),
            items: d.items(),
            request_id: d.last_request_id.as_deref(),
        });
        let kept = match (&d.follow, &how) {
            (Some(follow), Some(how)) => follow.keep(how),
            _ => false,
        };
        if kept {
            self.metrics.delivery(d.service, "blocked", "");
            let record = d.record(self.now(), "blocked");
            self.log.push(record);
            return Ending::Kept;
        }
        let (event, target) = match &d.dead_letter {
            Some(dlq) => {
                let mut message = dlq.message.clone();
                if let (Some(finish), Some(how)) = (dlq.finish, &how) {
                    finish(&mut message, how);
                }
                match self.write_dead_letter(dlq, message) {
                    true => ("dead-lettered", dlq.queue_arn.clone()),
                    false => ("dlq-failed", dlq.queue_arn.clone()),
                }
            }
            None => ("discarded", d.target.name().to_string()),
        };
        self.metrics.delivery(d.service, event, "");
        if let Some(topic) = sns_topic(d).filter(|_| event != "discarded") {
            let metric = if event == "dead-lettered" {
                "NumberOfNotificationsRedrivenToDlq"
            } else {
                "NumberOfNotificationsFailedToRedriveToDlq"
            };
            self.metrics.aws("AWS/SNS", metric, &topic, 1);
        }
        if let Some(rule) = events_rule(d).filter(|_| event != "discarded") {
            let metric = if event == "dead-lettered" {
                "InvocationsSentToDLQ"
            } else {
                "InvocationsFailedToBeSentToDLQ"
            };
            self.metrics.aws("AWS/Events", metric, rule, 1);
        }
        if let Some(m) = &d.give_up_metrics {
            match event {
                "discarded" => {
                    let items = d.items().len().max(1) as u64;
                    self.metrics.aws(m.namespace, m.dropped, &m.resource, items);
                }
                "dlq-failed" => self.metrics.aws(m.namespace, m.dlq_failed, &m.resource, 1),
                _ => {}
            }
        }
        let record = DeliveryRecord {
            target,
            ..d.record(self.now(), event)
        };
        self.log.push(record);
        match event {
            "dead-lettered" => Ending::DeadLettered,
            "dlq-failed" => Ending::DlqFailed,
            _ => Ending::Discarded,
        }
    }

    /// Deliveries still under way (waiting for a retry or an HTTP answer).
    pub fn deliveries_in_progress(&self) -> usize {
        self.deliveries.len()
    }
}

#[cfg(test)]
mod tests;
