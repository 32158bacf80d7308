//! The engine's side of a delivery: starting it, each attempt (throttle slots, injected faults,
//! the target), how an attempt ended and what follows (a retry, the next of its lane, a dead
//! letter, a discard, its source keeping it), and the records and counters of each decision.
//! Part of the engine: it must not depend on anything above it (services, state, runtime).

use super::{
    Counters, Delivery, DeliveryId, Draw, Ending, Failure, Finish, GiveUp, Layer, Outcome, Retry,
    RetryPolicy, Target, Work,
};
use crate::engine::log::DeliveryRecord;
use crate::engine::outbox::OutboxMessage;
use crate::engine::time::Millis;
use crate::engine::{Engine, Timer};

impl<T: Layer> Engine<T> {
    /// Starts a delivery: its first attempt happens now (after the one before it in its lane).
    pub fn deliver(&mut self, delivery: Delivery<T>) -> DeliveryId {
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

    /// Deliveries still under way (waiting for a retry, an HTTP answer or a hand-over).
    pub fn deliveries_in_progress(&self) -> usize {
        self.deliveries.len() + self.dead_lettering.len()
    }

    /// The HTTP attempts and Lambda invocations sent and not answered yet, sent again: for a state read back from a
    /// snapshot, whose answers would otherwise never come (the process that sent them may have
    /// gone, or answers into the state it replaced). In the order the deliveries started.
    pub fn resume(&mut self) {
        let mut waiting: Vec<_> = (self.deliveries.iter())
            .filter(|(_, d)| d.awaiting_answer)
            .filter_map(|(&id, d)| d.effect(id))
            .collect();
        waiting.sort_by_key(crate::engine::Effect::delivery);
        self.effects = waiting;
    }

    /// A delivery is over: the next one of its lane may start.
    fn finished(&mut self, d: &Delivery<T>) {
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

    /// Whether attempt `id` waits for its throttle slot (re-queued for it: not an attempt, not a
    /// retry) or fails inside the emulator (retried without limit).
    fn held_back(&mut self, id: DeliveryId) -> bool {
        let now = self.now;
        let Some(d) = self.deliveries.get_mut(&id) else {
            return true;
        };
        if let Some((key, per_second)) = d.throttle.clone() {
            let interval = (1000 / Millis::from(per_second)).max(1);
            let slot = self.throttles.get(&key).copied().unwrap_or(now).max(now);
            if d.slot_reserved {
                d.slot_reserved = false;
            } else if slot > now {
                d.slot_reserved = true;
                self.throttles.insert(key, slot + interval);
                let record = DeliveryRecord {
                    next_attempt_at: Some(slot),
                    ..d.record(now, "throttled")
                };
                self.metrics.delivery(d.service, "throttled", "");
                self.log.push(record);
                self.schedule(slot, Timer::Attempt(id));
                return true;
            } else {
                self.throttles.insert(key, now + interval);
            }
        }
        let Some(key) = d.internal_fault_key.clone() else {
            return false;
        };
        let Some(fault) = self.faults.hit(&key) else {
            return false;
        };
        d.internal_failures += 1;
        let draw = &mut Draw {
            rng: &mut self.rng,
            jitter: self.jitter,
        };
        let delay = d.policy.internal_delay_ms(d.internal_failures, draw);
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
        true
    }

    pub(in crate::engine) fn attempt(&mut self, id: DeliveryId) {
        if self.held_back(id) {
            return;
        }
        let now = self.now;
        let d = self.deliveries.get_mut(&id).expect("held_back checked it");
        d.attempts += 1;
        if let Some((first, render)) = &d.per_attempt {
            d.target = super::Render::render(render, first, d.attempts);
        }
        d.last_request_id = match d.request_ids && d.doomed.is_none() {
            true => Some(self.rng.uuid()),
            false => None,
        };
        let fault = match (&d.doomed, &d.alias) {
            (Some(_), _) => None,
            (None, alias) => self
                .faults
                .hit(d.target.name())
                .or_else(|| alias.as_ref().and_then(|a| self.faults.hit(a))),
        };
        let outcome = match fault {
            _ if d.doomed.is_some() => d.doomed.clone(),
            Some(fault) => Some(Outcome::injected(fault.status, fault.error_code)),
            None => match &d.target {
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
                Target::Http { .. } | Target::Invoke { .. } => {
                    d.awaiting_answer = true;
                    self.effects.extend(d.effect(id));
                    None
                }
                Target::Sqs { .. }
                | Target::Lambda { .. }
                | Target::SqsBatch { .. }
                | Target::Sns { .. }
                | Target::Bus { .. }
                | Target::Call { .. } => {
                    let target = d.target.clone();
                    self.work.push_back(Work::HandOver {
                        delivery: id,
                        target,
                    });
                    None
                }
            },
        };
        if let Some(outcome) = outcome {
            self.complete(id, outcome);
        }
    }

    /// [`Engine::complete`] for a batch hand-over: `refused` are the entries the target did not
    /// take, the only ones a retry sends again. Once part of the batch went through, the rest
    /// failing is still a partial failure of the batch.
    pub fn complete_batch(
        &mut self,
        id: DeliveryId,
        outcome: Outcome,
        refused: Vec<super::BatchEntry>,
    ) {
        let Some(d) = self.deliveries.get_mut(&id) else {
            return;
        };
        let mut outcome = outcome;
        d.partly_delivered |= outcome.failure() == Some(&Failure::PartialBatch);
        if d.partly_delivered && !refused.is_empty() {
            outcome = Outcome::Permanent(Failure::PartialBatch);
        }
        if let Target::SqsBatch { entries, .. } = &mut d.target {
            *entries = refused;
        }
        self.complete(id, outcome);
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

    /// The body of the HTTP answer to delivery `id`'s attempt, told before its
    /// [`Engine::complete_after`]; kept only by deliveries that asked for it.
    pub fn answered(&mut self, id: DeliveryId, body: Option<String>) {
        if let Some(d) = self.deliveries.get_mut(&id).filter(|d| d.keeps_answer) {
            d.answer = body;
        }
    }

    /// The retry after the attempt of `d` that ended with `outcome`, if any: the policy decides,
    /// within the limits of a `Retry-After` the target asked for.
    fn decide(
        d: &mut Delivery<T>,
        outcome: &Outcome,
        now: Millis,
        draw: &mut Draw,
    ) -> Option<Retry> {
        let age = now - d.born_at.unwrap_or(now);
        let floor = d.retry_after_ms.take();
        match outcome {
            Outcome::Delivered { .. } => None,
            Outcome::Permanent { .. } if !d.policy.retries_permanent() => None,
            Outcome::Retryable { .. } if floor.is_some_and(|f| f < 0) => None,
            Outcome::Retryable { .. } | Outcome::Permanent { .. } => {
                let attempts = d.attempts;
                let decided = d.policy.decide(attempts, outcome, age, draw);
                // A longer Retry-After must still fit the policy's limits when waited out.
                let decided = match (decided, floor) {
                    (Ok(r), Some(f)) if f > r.delay_ms => d
                        .policy
                        .decide(attempts, outcome, age + f - r.delay_ms, draw)
                        .map(|r| Retry { delay_ms: f, ..r }),
                    (decided, _) => decided,
                };
                decided.map_err(|limit| d.exhausted = limit).ok()
            }
        }
    }

    /// Records how attempt `id` ended and decides what comes next: done, a retry, or the end
    /// of the road (dead-letter queue, discard, or kept by its source).
    pub fn complete(&mut self, id: DeliveryId, outcome: Outcome) {
        let now = self.now();
        let Some(d) = self.deliveries.get_mut(&id) else {
            return;
        };
        d.awaiting_answer = false;
        let delay_seconds = d
            .last_attempt_at
            .map_or(0.0, |at| (now - at) as f64 / 1000.0);
        d.last_attempt_at = Some(now);
        let (name, status, error_code) = outcome.parts();
        let draw = &mut Draw {
            rng: &mut self.rng,
            jitter: self.jitter,
        };
        let retry = Self::decide(d, &outcome, now, draw);
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
        if let Some(c) = &d.counters {
            count_attempt(&mut self.metrics, c, name, retry.is_some());
        }
        self.log.push(record);
        if let Some(retry) = retry {
            d.phase = retry.phase;
            self.schedule(now + retry.delay_ms, Timer::Attempt(id));
            return;
        }
        let d = self.deliveries.remove(&id).expect("present above");
        match name {
            "delivered" => self.end(d, Ending::Delivered),
            _ => self.give_up(id, d),
        }
    }

    /// A delivery that will not succeed: kept by its source, discarded, or on its way to its
    /// dead-letter queue (written by the layer above: [`Work::DeadLetter`]).
    fn give_up(&mut self, id: DeliveryId, d: Delivery<T>) {
        let how = d.last_outcome.as_ref().map(|outcome| GiveUp {
            attempts: d.attempts,
            exhausted: d.exhausted,
            outcome,
            target: d.target.name(),
            items: d.items(),
            request_id: d.last_request_id.as_deref(),
        });
        let kept = match (&d.follow, &how) {
            (Some(follow), Some(how)) => follow.keep.keeps(how),
            _ => false,
        };
        if kept {
            self.metrics.delivery(d.service, "blocked", "");
            let record = d.record(self.now(), "blocked");
            self.log.push(record);
            return self.end(d, Ending::Kept);
        }
        let Some(dlq) = &d.dead_letter else {
            return self.gave_up(d, "discarded");
        };
        if self.faults.hit(&dlq.queue_arn).is_some() {
            return self.gave_up(d, "dlq-failed");
        }
        let mut message = dlq.message.clone();
        if let (Some(finish), Some(how)) = (&dlq.finish, &how) {
            finish.finish(&mut message, how);
        }
        let letter = dlq.clone();
        self.dead_lettering.insert(id, d);
        self.work.push_back(Work::DeadLetter {
            delivery: id,
            letter,
            message,
        });
    }

    /// How writing the dead letter of delivery `id` went.
    pub fn dead_letter_written(&mut self, id: DeliveryId, written: bool) {
        if let Some(d) = self.dead_lettering.remove(&id) {
            self.gave_up(
                d,
                if written {
                    "dead-lettered"
                } else {
                    "dlq-failed"
                },
            );
        }
    }

    /// Records and counts a delivery given up (`event`: `dead-lettered`, `dlq-failed` or
    /// `discarded`), then ends it.
    fn gave_up(&mut self, d: Delivery<T>, event: &'static str) {
        self.metrics.delivery(d.service, event, "");
        if let Some(c) = &d.counters {
            let metric = match event {
                "dead-lettered" => c.dead_lettered.map(|m| (m, 1)),
                "dlq-failed" => c.dlq_failed.map(|m| (m, 1)),
                _ => c.dropped.map(|m| (m, d.items().len().max(1) as u64)),
            };
            if let Some((metric, by)) = metric {
                self.metrics.aws(c.namespace, metric, &c.resource, by);
            }
        }
        let target = match (&d.dead_letter, event) {
            (Some(dlq), "dead-lettered" | "dlq-failed") => dlq.queue_arn.clone(),
            _ => d.target.name().to_string(),
        };
        let record = DeliveryRecord {
            target,
            ..d.record(self.now(), event)
        };
        self.log.push(record);
        let ending = match event {
            "dead-lettered" => Ending::DeadLettered,
            "dlq-failed" => Ending::DlqFailed,
            _ => Ending::Discarded,
        };
        self.end(d, ending);
    }

    /// A delivery is over: the next of its lane starts, and its source hears how it ended.
    fn end(&mut self, d: Delivery<T>, ending: Ending) {
        self.finished(&d);
        if let Some(follow) = d.follow {
            self.work.push_back(Work::Ended {
                then: follow.then,
                ending,
                last: d.last_outcome,
                answer: d.answer,
                attempts: d.attempts,
                exhausted: d.exhausted,
            });
        }
    }
}

/// Counts one attempt that ended `outcome` (`delivered`, `retryable`, `permanent`) in `c`.
fn count_attempt(
    metrics: &mut crate::engine::metrics::Metrics,
    c: &Counters,
    outcome: &str,
    retrying: bool,
) {
    let mut add = |metric: Option<&'static str>| {
        if let Some(metric) = metric {
            metrics.aws(c.namespace, metric, &c.resource, 1);
        }
    };
    add(c.attempted);
    if retrying {
        add(c.retried);
    }
    if outcome == "delivered" {
        add(c.delivered);
    } else if !retrying || c.every_failure {
        add(c.failed);
    }
}
