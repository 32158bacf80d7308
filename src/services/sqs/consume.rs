//! Consumption of a queue by another part of the emulator, as a consumer would consume it. Event
//! streams take one message at a time (counting as a receive, redrive included), held invisible
//! while it is being delivered whatever the visibility timeout, then deleted, or released to be
//! visible again. Pipes take batches hidden for the queue's own visibility timeout, as
//! ReceiveMessage hides them, and delete what was delivered: the rest comes back when its
//! timeout ends.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::store::{HELD, Held, Message, Queue, QueueKey};
use crate::engine::time::Millis;
use crate::state::State;
use std::sync::Arc;

/// The queue's redrive target, when its dead-letter queue exists, and its maxReceiveCount.
pub(super) fn redrive(e: &State, queue: &Queue) -> (Option<QueueKey>, Option<u32>) {
    let policy = queue.attributes.redrive.as_ref().map(|(p, _)| p.clone());
    let dlq = policy
        .as_ref()
        .and_then(|p| QueueKey::from_arn(&p.dead_letter_target_arn))
        .filter(|k| e.sqs.queues.contains_key(k));
    let max_receives = policy
        .filter(|_| dlq.is_some())
        .map(|p| p.max_receive_count);
    (dlq, max_receives)
}

/// Moves messages past maxReceiveCount of `source_arn` to its dead-letter queue.
pub(super) fn dead_letter(
    e: &mut State,
    dlq: &QueueKey,
    source_arn: &Arc<str>,
    dead: Vec<Message>,
) {
    if dead.is_empty() {
        return;
    }
    let now = e.now();
    let Some(queue) = e.sqs.queues.get_mut(dlq) else {
        return;
    };
    for mut m in dead {
        m.dead_letter_source_arn = Some(source_arn.clone());
        queue.take_moved(m, now);
    }
    super::arrived(e, dlq);
}

/// The queue read does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoSuchQueue;

/// Receives the next message of `queue_arn` and holds it; `Ok(None)` when none is visible now.
pub fn take_one(e: &mut State, queue_arn: &str) -> Result<Option<Held>, NoSuchQueue> {
    let key = QueueKey::from_arn(queue_arn).ok_or(NoSuchQueue)?;
    let now = e.now();
    let queue = e.sqs.queues.get(&key).ok_or(NoSuchQueue)?;
    let (dlq, max_receives) = redrive(e, queue);
    let nonce = e.engine.rng.next_u64();
    // Again, mutably: `redrive` looked at the other queues (the dead-letter queue's existence).
    let queue = e.sqs.queues.get_mut(&key).ok_or(NoSuchQueue)?;
    let source_arn: Arc<str> = Arc::from(queue.arn.as_str());
    // Too many messages in flight (OverLimit): nothing to take now.
    let Ok(received) = queue.receive(now, 1, HELD - now, max_receives, None, || nonce) else {
        return Ok(None);
    };
    if let Some(dlq) = dlq {
        dead_letter(e, &dlq, &source_arn, received.dead_lettered);
    }
    Ok(received
        .messages
        .into_iter()
        .next()
        .map(|(seq, message)| Held {
            seq,
            nonce,
            message,
        }))
}

/// Receives up to `max` visible messages of `queue_arn`, each hidden for the queue's visibility
/// timeout and its receive count raised (messages past the redrive policy's maxReceiveCount go to
/// the dead-letter queue instead). Also answers the receipt handle of each.
pub fn take_batch(
    e: &mut State,
    queue_arn: &str,
    max: usize,
) -> Result<Vec<(Held, String)>, NoSuchQueue> {
    let key = QueueKey::from_arn(queue_arn).ok_or(NoSuchQueue)?;
    let now = e.now();
    let queue = e.sqs.queues.get(&key).ok_or(NoSuchQueue)?;
    let (dlq, max_receives) = redrive(e, queue);
    let visibility = queue.attributes.visibility_timeout_s * 1000;
    let rng = &mut e.engine.rng;
    // Again, mutably: `redrive` looked at the other queues (the dead-letter queue's existence).
    let queue = e.sqs.queues.get_mut(&key).ok_or(NoSuchQueue)?;
    let source_arn: Arc<str> = Arc::from(queue.arn.as_str());
    let next = || rng.next_u64();
    // Too many messages in flight (OverLimit): nothing to take now.
    let Ok(received) = queue.receive(now, max, visibility, max_receives, None, next) else {
        return Ok(Vec::new());
    };
    if let Some(dlq) = dlq {
        dead_letter(e, &dlq, &source_arn, received.dead_lettered);
    }
    Ok(received
        .messages
        .into_iter()
        .map(|(seq, message)| {
            let nonce = message.receipt.map_or(0, |r| r.0);
            let handle = super::receipt::receipt_handle(&key, seq, nonce);
            (
                Held {
                    seq,
                    nonce,
                    message,
                },
                handle,
            )
        })
        .collect())
}

/// The receipt handle of a message [`take_one`] holds, as ReceiveMessage would have given it
/// (its record carries one); empty when `queue_arn` is not a queue's ARN.
pub fn receipt_handle(queue_arn: &str, held: &Held) -> String {
    QueueKey::from_arn(queue_arn).map_or_else(String::new, |key| {
        super::receipt::receipt_handle(&key, held.seq, held.nonce)
    })
}

/// How many messages of `queue_arn` are visible now.
pub fn visible(e: &State, queue_arn: &str) -> usize {
    e.sqs.by_arn(queue_arn).map_or(0, |q| q.counts(e.now()).0)
}

/// Deletes a held message (delivered or disposed of).
pub fn delete(e: &mut State, queue_arn: &str, held: &Held) {
    let now = e.now();
    if let Some(queue) = e.sqs.by_arn_mut(queue_arn) {
        let _ = queue.delete(held.seq, held.nonce, now);
        if let Some(key) = QueueKey::from_arn(queue_arn) {
            super::arrived(e, &key);
        }
    }
}

/// Lets go of a held message: visible again now, not deleted.
pub fn release(e: &mut State, queue_arn: &str, held: &Held) {
    let now = e.now();
    if let Some(queue) = e.sqs.by_arn_mut(queue_arn) {
        queue.release(held.seq, held.nonce, now);
        e.wake_waiters(queue_arn);
    }
}

/// When the next message of `queue_arn` that is hidden now (delayed, or in flight with another
/// consumer) becomes visible.
pub fn next_visible_at(e: &State, queue_arn: &str) -> Option<Millis> {
    e.sqs.by_arn(queue_arn)?.next_visible_at(e.now())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::Dispatch;
    use crate::engine::delivery::SqsMessage;
    use crate::services::sqs::attributes::QueueAttributes;

    #[test]
    fn a_held_message_stays_invisible_until_deleted_or_released() {
        let mut e = State::for_tests(0);
        let key = QueueKey::from_arn("arn:aws:sqs:us-east-1:000000000000:src").unwrap();
        let queue = Queue::new(key.clone(), 0, QueueAttributes::default());
        e.sqs.queues.insert(key, queue);
        let arn = "arn:aws:sqs:us-east-1:000000000000:src";
        for body in ["a", "b"] {
            let m = SqsMessage {
                body: body.into(),
                attributes: Default::default(),
                group_id: None,
                dedup_id: None,
                trace_header: None,
            };
            crate::services::sqs::enqueue(&mut e, arn, m).unwrap();
        }
        let a = take_one(&mut e, arn).unwrap().unwrap();
        assert_eq!(a.message.body, "a");
        e.run_until(3 * 86_400_000);
        let b = take_one(&mut e, arn).unwrap().unwrap();
        assert_eq!(b.message.body, "b", "a is still held days later");
        assert!(take_one(&mut e, arn).unwrap().is_none());
        assert_eq!(next_visible_at(&e, arn), None);
        release(&mut e, arn, &a);
        delete(&mut e, arn, &b);
        let again = take_one(&mut e, arn).unwrap().unwrap();
        assert_eq!(
            (
                again.message.body.text().as_ref(),
                again.message.receive_count
            ),
            ("a", 2)
        );
        delete(&mut e, arn, &again);
        assert!(take_one(&mut e, arn).unwrap().is_none());
        assert!(take_one(&mut e, "arn:aws:sqs:us-east-1:000000000000:none").is_err());
    }
}
