//! An enabled event source mapping at work, as Lambda's SQS pollers work (the Lambda developer
//! guide, "Using Lambda with Amazon SQS"): it receives up to BatchSize messages (hidden for the
//! queue's visibility timeout, their receive counts raised, so the queue's own redrive policy
//! applies), waits up to MaximumBatchingWindowInSeconds for a fuller batch, deletes the
//! messages its filters do not match, and invokes the function with the rest, as
//! `{"Records": [...]}`, each in the record shape of [`crate::services::sqs::record`]. A batch
//! the function handled is deleted; a failed one (a function error, a throttle) is left to come
//! back after its visibility timeout. With `ReportBatchItemFailures`, the answer's
//! `batchItemFailures` name the messages that failed, under AWS's rules for empty, null and
//! malformed answers. Up to ScalingConfig.MaximumConcurrency batches (else
//! [`DEFAULT_CONCURRENCY`]) are under way at once; a FIFO queue hands out no message of a group
//! while another of that group is in flight, so each group keeps its order and a failing group
//! is held back while the others go on.
//!
//! Nothing polls on a period: a mapping looks at its queue when it is enabled, after each
//! batch, when a message arrives, when its batching window closes and when the next hidden
//! message becomes visible.

use super::asynchronous::{NAMESPACE, SERVICE};
use crate::engine::delivery::{Counters, Delivery, Ending, Follow, Keep, NoRetries, Target};
use crate::engine::time::Millis;
use crate::services::sqs::{consume, record};
use crate::state::lambda::mappings::{Batch, MappingState, MappingTimer};
use crate::state::{State, Step};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Batches under way at once when ScalingConfig sets no MaximumConcurrency (AWS starts with
/// five pollers and adds more under load).
pub(super) const DEFAULT_CONCURRENCY: u32 = 5;
/// After a batch that failed, the next look waits this long.
const BACKOFF_MS: Millis = 1_000;
/// Batches a mapping takes at one virtual instant before it waits a moment (a function that
/// feeds its own queue would otherwise loop at one instant).
const MAX_BATCHES_AT_ONCE: u32 = 100;

/// Schedules a look at the queue at `at`, unless the mapping is not enabled or has a look due
/// by then already.
pub(super) fn schedule(e: &mut State, uuid: &str, at: Millis) {
    let Some(m) = e.lambda.mappings.get_mut(uuid) else {
        return;
    };
    if m.state != MappingState::Enabled || m.poll_at.is_some_and(|due| due <= at) {
        return;
    }
    m.poll_at = Some(at);
    e.schedule(
        at,
        Step::LambdaMapping(MappingTimer::Poll(uuid.to_string())),
    );
}

/// A message arrived in queue `source_arn`: the mappings reading it look now.
pub fn wake_source(e: &mut State, source_arn: &str) {
    let uuids: Vec<String> = e
        .lambda
        .mappings
        .values()
        .filter(|m| m.source == source_arn)
        .map(|m| m.uuid.clone())
        .collect();
    for uuid in uuids {
        schedule(e, &uuid, e.now());
    }
}

/// Messages may have arrived in any queue (a move task step): every mapping looks.
pub fn wake_all(e: &mut State) {
    let uuids: Vec<String> = e.lambda.mappings.keys().cloned().collect();
    for uuid in uuids {
        schedule(e, &uuid, e.now());
    }
}

/// Looks at the queue: takes batches while there is room for one and a batch is full, the
/// batching window has closed, or there is no window.
pub(super) fn poll(e: &mut State, uuid: &str) {
    let now = e.now();
    let Some(m) = e.lambda.mappings.get_mut(uuid) else {
        return;
    };
    if m.poll_at.is_some_and(|due| due <= now) {
        m.poll_at = None;
    }
    let (queue, size, window) = (
        m.source.clone(),
        m.batch_size as usize,
        Millis::from(m.window_s) * 1000,
    );
    let room = m.max_concurrency.unwrap_or(DEFAULT_CONCURRENCY) as usize;
    loop {
        let visible = consume::visible(e, &queue);
        let next_visible_at = match visible {
            0 => consume::next_visible_at(e, &queue),
            _ => None,
        };
        let Some(m) = e.lambda.mappings.get_mut(uuid) else {
            return;
        };
        if m.state != MappingState::Enabled || m.batches.len() >= room {
            return;
        }
        if visible == 0 {
            m.window_opened_at = None;
            if let Some(at) = next_visible_at {
                schedule(e, uuid, at);
            }
            return;
        }
        if visible < size && window > 0 {
            let closes = *m.window_opened_at.get_or_insert(now) + window;
            if now < closes {
                return schedule(e, uuid, closes);
            }
        }
        m.window_opened_at = None;
        match m.batches_at {
            (at, n) if at == now && n >= MAX_BATCHES_AT_ONCE => {
                return schedule(e, uuid, now + BACKOFF_MS);
            }
            (at, n) if at == now => m.batches_at = (at, n + 1),
            _ => m.batches_at = (now, 1),
        }
        let Ok(taken) = consume::take_batch(e, &queue, size) else {
            return disable_for_missing_queue(e, uuid);
        };
        if taken.is_empty() {
            return schedule(e, uuid, now + BACKOFF_MS);
        }
        let Some(m) = e.lambda.mappings.get(uuid) else {
            return;
        };
        let mut kept = Vec::new();
        let mut records = Vec::new();
        let mut dropped = Vec::new();
        for (held, handle) in taken {
            let event = record::lambda_record(&held.message, &queue, &handle, &m.region);
            // What filters see (the body parsed), made only when there are filters.
            let matches = m.filters.is_empty() || {
                let view = record::with_parsed_body(&event);
                m.filters.iter().any(|f| f.pattern.matches(&view))
            };
            match matches {
                true => {
                    records.push(event);
                    kept.push(held);
                }
                // Matching no filter: deleted without an invocation, as Lambda does.
                false => dropped.push(held),
            }
        }
        for held in &dropped {
            consume::delete(e, &queue, held);
        }
        if !kept.is_empty() {
            start_batch(e, uuid, kept, records);
        }
    }
}

/// The queue is gone: the mapping stops, with the reason.
fn disable_for_missing_queue(e: &mut State, uuid: &str) {
    if let Some(m) = e.lambda.mappings.get_mut(uuid) {
        m.state = MappingState::Disabled;
        m.enabled = false;
        m.state_reason = "PROBLEM: The event source does not exist.".into();
    }
}

/// Invokes the function with a batch: one delivery, its answer kept, never retried (the
/// queue's visibility timeout is the retry).
fn start_batch(
    e: &mut State,
    uuid: &str,
    messages: Vec<crate::services::sqs::store::Held>,
    records: Vec<Value>,
) {
    e.lambda.tokens += 1;
    let token = e.lambda.tokens;
    let request_id = e.engine.rng.uuid();
    let Some(m) = e.lambda.mappings.get_mut(uuid) else {
        return;
    };
    m.batches.insert(token, Batch { messages });
    let payload = json!({"Records": records}).to_string();
    let target = Target::Invoke {
        function: m.function.clone(),
        payload,
        request_id: request_id.clone(),
        host: m.host.clone(),
    };
    let name = super::lookup::name_of(&m.function).to_string();
    let delivery = Delivery::new(
        SERVICE,
        m.arn.clone(),
        "lambda".into(),
        request_id,
        target,
        NoRetries,
        None,
    )
    .followed_by(Follow {
        keep: Keep::Always,
        then: Step::LambdaBatchEnded {
            uuid: uuid.to_string(),
            token,
        },
    })
    .keeping_answer()
    .counted(Counters {
        namespace: NAMESPACE,
        resource: name,
        attempted: Some("Invocations"),
        failed: Some("Errors"),
        ..Counters::default()
    });
    e.deliver(delivery);
}

/// Which messages of a batch failed, by a function's answer under `ReportBatchItemFailures`
/// (the Lambda developer guide, "Reporting batch item failures"): none for an empty or null
/// answer or list; all for an answer that is no JSON, or an item identifier that is empty,
/// null, under another key, or names no message of the batch.
pub(super) fn failed_items(answer: Option<&str>, ids: &[String]) -> BTreeSet<usize> {
    let all = || (0..ids.len()).collect();
    let text = answer.unwrap_or("").trim();
    if text.is_empty() {
        return BTreeSet::new();
    }
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return all();
    };
    let list = match value.get("batchItemFailures") {
        None | Some(Value::Null) => return BTreeSet::new(),
        Some(Value::Array(list)) => list,
        Some(_) => return all(),
    };
    let mut failed = BTreeSet::new();
    for item in list {
        let id = item.get("itemIdentifier").and_then(Value::as_str);
        match id.and_then(|id| ids.iter().position(|m| m == id)) {
            Some(n) if id.is_some_and(|id| !id.is_empty()) => {
                failed.insert(n);
            }
            _ => return all(),
        }
    }
    failed
}

/// The invocation of batch `token` of mapping `uuid` ended: the messages it handled are
/// deleted, the others left to come back after their visibility timeout.
pub fn batch_ended(e: &mut State, uuid: &str, token: u64, ending: Ending, answer: Option<String>) {
    let Some(m) = e.lambda.mappings.get_mut(uuid) else {
        return;
    };
    let Some(batch) = m.batches.remove(&token) else {
        return;
    };
    let ids: Vec<String> = batch
        .messages
        .iter()
        .map(|h| h.message.id.to_string())
        .collect();
    let failed: BTreeSet<usize> = match (ending, m.report_batch_item_failures) {
        (Ending::Delivered, true) => failed_items(answer.as_deref(), &ids),
        (Ending::Delivered, false) => BTreeSet::new(),
        _ => (0..ids.len()).collect(),
    };
    m.last_result = match failed.is_empty() {
        true => "OK".into(),
        false => "PROBLEM: Function call failed".into(),
    };
    let queue = m.source.clone();
    for (n, held) in batch.messages.iter().enumerate() {
        if !failed.contains(&n) {
            consume::delete(e, &queue, held);
        }
    }
    let now = e.now();
    let next = if failed.is_empty() {
        now
    } else {
        now + BACKOFF_MS
    };
    schedule(e, uuid, next);
}

#[cfg(test)]
mod tests {
    use super::failed_items;

    #[test]
    fn partial_batch_answers_follow_lambdas_rules() {
        let ids: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let all = [0, 1, 2].into_iter().collect();
        let none = Default::default();
        for answer in [
            None,
            Some(""),
            Some("null"),
            Some("{}"),
            Some(r#"{"batchItemFailures":[]}"#),
            Some(r#"{"batchItemFailures":null}"#),
        ] {
            assert_eq!(failed_items(answer, &ids), none, "{answer:?}");
        }
        for answer in [
            "not json",
            r#"{"batchItemFailures":[{"itemIdentifier":""}]}"#,
            r#"{"batchItemFailures":[{"itemIdentifier":null}]}"#,
            r#"{"batchItemFailures":[{"id":"a"}]}"#,
            r#"{"batchItemFailures":[{"itemIdentifier":"zzz"}]}"#,
            r#"{"batchItemFailures":"a"}"#,
        ] {
            assert_eq!(failed_items(Some(answer), &ids), all, "{answer}");
        }
        let one = failed_items(
            Some(r#"{"batchItemFailures":[{"itemIdentifier":"b"}]}"#),
            &ids,
        );
        assert_eq!(one, [1].into_iter().collect());
    }
}
