//! Amazon SQS: standard and FIFO queues, redrive to dead-letter queues and message moves, on the
//! virtual clock, over AWS JSON 1.0 and AWS Query. All 23 operations of the 2012-11-05 API.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

pub mod access;
use crate::state::sqs::attributes;
mod checks;
use crate::state::sqs::errors;
pub use checks::not_utf8;
pub use errors::{SqsError, not_for_queue_endpoint, query_message};
pub mod consume;
use crate::state::sqs::digest;
pub use digest::{md5_of_attributes, sha256_hex};
pub mod messages;
pub mod moves;
mod queues;
pub mod receipt;
pub mod record;
pub use crate::state::sqs::shapes;
pub use crate::state::sqs::store;
pub mod urls;

use super::{Context, operations};
use crate::body::Body;
use crate::engine::delivery::{BatchEntry, Failure, MAX_BATCH_BYTES, Outcome};
use crate::error::AwsError;
use crate::state::State;
use store::{Queue, QueueKey};

operations! {
    /// Runs an SQS operation (ReceiveMessage in one look: the runtime waits out long polls).
    otherwise: AwsError::invalid_action;
    "CreateQueue" => queues::create_queue,
    "GetQueueUrl" => queues::get_queue_url,
    "ListQueues" => queues::list_queues,
    "DeleteQueue" => queues::delete_queue,
    "GetQueueAttributes" => queues::get_queue_attributes,
    "SetQueueAttributes" => queues::set_queue_attributes,
    "PurgeQueue" => queues::purge_queue,
    "TagQueue" => queues::tag_queue,
    "UntagQueue" => queues::untag_queue,
    "ListQueueTags" => queues::list_queue_tags,
    "AddPermission" => queues::add_permission,
    "RemovePermission" => queues::remove_permission,
    "ListDeadLetterSourceQueues" => queues::list_dead_letter_source_queues,
    "SendMessage" => messages::send_message,
    "SendMessageBatch" => messages::send_message_batch,
    "DeleteMessage" => messages::delete_message,
    "DeleteMessageBatch" => |e, cx, i| messages::receipt_batch(e, cx, i, messages::ReceiptAction::Delete),
    "ChangeMessageVisibility" => messages::change_message_visibility,
    "ChangeMessageVisibilityBatch" => |e, cx, i| {
        messages::receipt_batch(e, cx, i, messages::ReceiptAction::ChangeVisibility)
    },
    "StartMessageMoveTask" => moves::start_message_move_task,
    "CancelMessageMoveTask" => moves::cancel_message_move_task,
    "ListMessageMoveTasks" => moves::list_message_move_tasks,
    "ReceiveMessage" => messages::receive_message,
}

/// A message's size as SQS counts it against MaximumMessageSize: the body and every attribute's
/// name, type and value.
pub fn message_size(m: &crate::engine::delivery::SqsMessage) -> usize {
    let attributes: usize = m
        .attributes
        .iter()
        .map(|(name, v)| {
            let value = v.string_value.as_ref().map_or(0, String::len)
                + v.binary_value.as_ref().map_or(0, |b| b.len());
            name.len() + v.data_type.len() + value
        })
        .sum();
    m.body.len() + attributes
}

/// The MaximumMessageSize of queue `queue_arn`, or `None` when there is no such queue.
pub fn maximum_message_size(e: &State, queue_arn: &str) -> Option<usize> {
    let key = QueueKey::from_arn(queue_arn)?;
    let queue = e.sqs.queues.get(&key)?;
    usize::try_from(queue.attributes.maximum_message_size).ok()
}

/// Puts a message on a queue for another part of the emulator (SNS and EventBridge deliveries,
/// dead-letter writes). Failures carry the Query codes a sender would see.
pub fn enqueue(
    e: &mut State,
    queue_arn: &str,
    m: crate::engine::delivery::SqsMessage,
) -> Result<(), Failure> {
    let missing = Failure::NotFound("AWS.SimpleQueueService.NonExistentQueue");
    let key = QueueKey::from_arn(queue_arn).ok_or(missing.clone())?;
    let (now, id) = (e.now(), e.engine.rng.uuid());
    let queue = e.sqs.queues.get_mut(&key).ok_or(missing)?;
    let attrs = &queue.attributes;
    let dedup_id = match (attrs.fifo, m.dedup_id) {
        (false, _) => None,
        (true, Some(d)) => Some(d),
        (true, None) if attrs.content_based_dedup => {
            Some(digest::sha256_hex(m.body.text().as_bytes()))
        }
        (true, None) => return Err(Failure::InvalidParameter("InvalidParameterValue")),
    };
    if attrs.fifo && m.group_id.is_none() {
        return Err(Failure::InvalidParameter("MissingParameter"));
    }
    let outgoing = store::Outgoing {
        md5_of_body: match &m.body {
            Body::Text(text) => digest::md5_hex(text.as_bytes()),
            Body::Unsigned(_) => String::new(),
        },
        md5_of_attributes: digest::md5_of_attributes(&m.attributes),
        body: m.body,
        attributes: m.attributes,
        // A trace header passed on by another service is no system attribute the sender gave:
        // no digest of one.
        md5_of_system_attributes: None,
        trace_header: m.trace_header,
        sender_id: std::sync::Arc::from(key.account.as_str()),
        group_id: m.group_id,
        dedup_id,
        delay_ms: if attrs.fifo { 0 } else { attrs.delay_s * 1000 },
    };
    queue.send(now, id, outgoing);
    arrived(e, &key);
    Ok(())
}

/// A message may have become receivable on queue `key` (sent, made visible, its FIFO group
/// freed): event streams reading it look again.
fn arrived(e: &mut State, key: &QueueKey) {
    e.engine.arrived(key.arn());
}

fn valid_name(name: &str) -> bool {
    let base = name.strip_suffix(".fifo").unwrap_or(name);
    (1..=80).contains(&name.len())
        && !base.is_empty()
        && base
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The URL of queue `key` as this request's client should see it: in its style, for the host
/// URLs carry (docs/localstack.md, "Host names and queue URLs").
fn queue_url(cx: &Context, key: &QueueKey) -> String {
    urls::queue_url(cx.queue_url_style, &cx.host, key)
}

/// The queue a QueueUrl names, in any shape from any host: in the region the URL names, else in
/// the caller's; a bare queue name is a queue of the caller's account and region (AWS accepts
/// it). A URL that names no queue is a queue that does not exist, as AWS answers.
fn key_from_url(cx: &Context, url: &str) -> Result<QueueKey, SqsError> {
    if !url.contains('/') {
        return valid_name(url)
            .then(|| QueueKey {
                account: cx.account.clone(),
                region: cx.region.clone(),
                name: url.into(),
            })
            .ok_or(SqsError::QueueDoesNotExist);
    }
    let address = urls::parse(url).ok_or(SqsError::QueueDoesNotExist)?;
    Ok(QueueKey {
        account: address.account.into(),
        region: address.region.unwrap_or(&cx.region).into(),
        name: address.name.into(),
    })
}

fn queue_mut<'e>(e: &'e mut State, key: &QueueKey) -> Result<&'e mut Queue, SqsError> {
    e.sqs.queues.get_mut(key).ok_or(SqsError::QueueDoesNotExist)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(valid_name("a-b_C9"));
        assert!(valid_name(&"x".repeat(80)));
        assert!(!valid_name(&"x".repeat(81)));
        assert!(!valid_name("a.b"));
        assert!(!valid_name(""));
    }

    #[test]
    fn batch_codes_are_query_codes() {
        assert_eq!(
            crate::model::SQS.query_code("QueueDoesNotExist"),
            "AWS.SimpleQueueService.NonExistentQueue"
        );
        assert_eq!(
            crate::model::SQS.query_code("InvalidParameterValue"),
            "InvalidParameterValue"
        );
    }
}

/// Hands `entries` to queue `queue_arn` in one go, as SendMessageBatch would: the whole batch is
/// refused when it is over [`MAX_BATCH_BYTES`] or the queue is missing, an entry when it is over
/// the queue's MaximumMessageSize or the queue refuses it. Answers the outcome and the entries
/// refused (a batch delivery's hand-over).
pub fn send_batch(
    e: &mut State,
    queue_arn: &str,
    entries: Vec<BatchEntry>,
) -> (Outcome, Vec<BatchEntry>) {
    let total: usize = entries.iter().map(|e| message_size(&e.message)).sum();
    if total > MAX_BATCH_BYTES {
        return (Outcome::Permanent(Failure::TooLarge), entries);
    }
    let Some(limit) = maximum_message_size(e, queue_arn) else {
        let missing = Failure::NotFound("AWS.SimpleQueueService.NonExistentQueue");
        return (Outcome::Permanent(missing), entries);
    };
    let count = entries.len();
    let mut kept = Vec::new();
    let mut first_code = None;
    for entry in entries {
        let result = if message_size(&entry.message) > limit {
            Err(Failure::TooLarge)
        } else {
            enqueue(e, queue_arn, entry.message.clone())
        };
        if let Err(code) = result {
            first_code.get_or_insert(code);
            kept.push(entry);
        }
    }
    let outcome = match (kept.len(), first_code) {
        (0, _) => Outcome::Delivered { status: None },
        (n, Some(failure)) if n == count => Outcome::Permanent(failure),
        _ => Outcome::Permanent(Failure::PartialBatch),
    };
    (outcome, kept)
}

#[cfg(test)]
mod batch_tests {
    use super::*;
    use crate::engine::delivery::SqsMessage;
    use std::collections::BTreeMap;

    fn entry(id: &str, body: String) -> BatchEntry {
        BatchEntry {
            id: id.into(),
            message: SqsMessage {
                body: body.into(),
                attributes: BTreeMap::new(),
                group_id: None,
                dedup_id: None,
                trace_header: None,
            },
        }
    }

    #[test]
    fn a_batch_is_refused_whole_or_in_part() {
        let mut e = State::for_tests(0);
        let missing = "arn:aws:sqs:us-east-1:000000000000:nowhere";
        let (outcome, kept) = send_batch(&mut e, missing, vec![entry("a", "x".into())]);
        assert_eq!(
            outcome.error_code(),
            Some("AWS.SimpleQueueService.NonExistentQueue")
        );
        assert_eq!(kept.len(), 1);
        let huge = vec![
            entry("a", "x".repeat(MAX_BATCH_BYTES / 2 + 1)),
            entry("b", "x".repeat(MAX_BATCH_BYTES / 2)),
        ];
        let (outcome, kept) = send_batch(&mut e, missing, huge);
        assert_eq!(outcome, Outcome::Permanent(Failure::TooLarge));
        assert_eq!(kept.len(), 2);
    }
}
