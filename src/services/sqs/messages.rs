//! Message operations: SendMessage(Batch), ReceiveMessage (long polling included),
//! DeleteMessage(Batch), ChangeMessageVisibility(Batch).
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::checks::{check_attributes, check_characters, check_fifo_token, invalid_value};
use super::digest::{md5_hex, md5_of_attributes};
use super::receipt::{parse_receipt, receipt_handle};
use super::shapes::*;
use super::store::{Body, Outgoing, QueueKey, Visibility};
use super::{Context, SqsError, key_from_url, queue_mut};
use crate::engine::time::Millis;
use crate::state::State;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// Largest total payload of a SendMessageBatch (and of one message).
const MAX_PAYLOAD: usize = 1_048_576;

/// Checks one message against its queue and turns it into what the queue takes.
fn prepare(
    e: &State,
    cx: &Context,
    key: &QueueKey,
    input: SendMessageInput,
) -> Result<(Outgoing, usize), SqsError> {
    let queue = e.sqs.queues.get(key).ok_or(SqsError::QueueDoesNotExist)?;
    let attrs = &queue.attributes;
    if input.message_body.is_empty() {
        return Err(SqsError::MissingParameter(
            "The request must contain the parameter MessageBody.".into(),
        ));
    }
    check_characters(&input.message_body)?;
    let size = input.message_body.len() + check_attributes(&input.message_attributes)?;
    if size as i64 > attrs.maximum_message_size {
        return Err(SqsError::InvalidParameterValue(format!(
            "One or more parameters are invalid. Reason: Message must be shorter than {} bytes.",
            attrs.maximum_message_size
        )));
    }
    let mut trace_header = None;
    for (name, value) in &input.message_system_attributes {
        if name != "AWSTraceHeader" || value.data_type != "String" {
            return Err(SqsError::InvalidParameterValue(format!(
                "Message system attribute name '{name}' is invalid."
            )));
        }
        trace_header = Some(value.string_value.clone().filter(|s| !s.is_empty()).ok_or_else(|| {
            SqsError::InvalidParameterValue("Message system attribute 'AWSTraceHeader' must contain a non-empty value of type 'String'.".into())
        })?);
    }
    // Set by the request's X-Amzn-Trace-Id header unless the message names its own.
    if trace_header.is_none() {
        trace_header = cx.trace_header.clone();
    }
    let not_for_type = |name: &str, value: &str| {
        invalid_value(
            name,
            value,
            "The request include parameter that is not valid for this queue type.",
        )
    };
    let delay_s = match input.delay_seconds {
        // A FIFO queue takes no per-message delay, but accepts DelaySeconds=0 (as AWS does).
        Some(0) if attrs.fifo => attrs.delay_s,
        Some(d) if attrs.fifo => return Err(not_for_type("DelaySeconds", &d.to_string())),
        Some(d) if !(0..=900).contains(&d) => {
            return Err(invalid_value(
                "DelaySeconds",
                d,
                "DelaySeconds must be >= 0 and <= 900.",
            ));
        }
        Some(d) => d,
        None => attrs.delay_s,
    };
    check_fifo_token("MessageGroupId", input.message_group_id.as_deref())?;
    let dedup_id = if attrs.fifo {
        if input.message_group_id.is_none() {
            return Err(SqsError::MissingParameter(
                "The request must contain the parameter MessageGroupId.".into(),
            ));
        }
        let given = input.message_deduplication_id.as_deref();
        check_fifo_token("MessageDeduplicationId", given)?;
        match &input.message_deduplication_id {
            Some(d) => Some(d.clone()),
            None if attrs.content_based_dedup => {
                Some(super::digest::sha256_hex(input.message_body.as_bytes()))
            }
            None => {
                return Err(SqsError::InvalidParameterValue(
                    "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly".into(),
                ));
            }
        }
    } else if let Some(d) = &input.message_deduplication_id {
        return Err(not_for_type("MessageDeduplicationId", d));
    } else {
        None
    };
    let md5_of_system_attributes = md5_of_attributes(&input.message_system_attributes);
    let outgoing = Outgoing {
        md5_of_body: md5_hex(input.message_body.as_bytes()),
        md5_of_attributes: md5_of_attributes(&input.message_attributes),
        body: input.message_body.into(),
        attributes: input.message_attributes,
        trace_header,
        md5_of_system_attributes,
        sender_id: Arc::from(cx.account.as_str()),
        group_id: input.message_group_id,
        dedup_id,
        delay_ms: delay_s * 1000,
    };
    Ok((outgoing, size))
}

fn send_one(e: &mut State, key: &QueueKey, m: Outgoing) -> Result<SendMessageOutput, SqsError> {
    let now = e.now();
    let id = e.engine.rng.uuid();
    let (md5_body, md5_attrs, md5_sys) = (
        m.md5_of_body.clone(),
        m.md5_of_attributes.clone(),
        m.md5_of_system_attributes.clone(),
    );
    let sent = queue_mut(e, key)?.send(now, id, m);
    super::arrived(e, key);
    Ok(SendMessageOutput {
        md5_of_message_body: md5_body,
        md5_of_message_attributes: md5_attrs,
        md5_of_message_system_attributes: md5_sys,
        message_id: sent.message_id,
        sequence_number: sent.sequence_number.map(|n| n.to_string()),
    })
}

pub fn send_message(
    e: &mut State,
    cx: &Context,
    input: SendMessageInput,
) -> Result<SendMessageOutput, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let (outgoing, _) = prepare(e, cx, &key, input)?;
    send_one(e, &key, outgoing)
}

/// The checks every batch shares: 1–10 entries, distinct and well-formed ids.
fn check_batch<'a>(
    ids: impl ExactSizeIterator<Item = &'a str>,
    entry: &str,
) -> Result<(), SqsError> {
    let n = ids.len();
    if n == 0 {
        return Err(SqsError::EmptyBatchRequest(format!(
            "There should be at least one {entry} in the request."
        )));
    }
    if n > 10 {
        return Err(SqsError::TooManyEntriesInBatchRequest(format!(
            "Maximum number of entries per request are 10. You have sent {n}."
        )));
    }
    let mut seen = HashSet::new();
    for id in ids {
        if id.is_empty()
            || id.len() > 80
            || !id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(SqsError::InvalidBatchEntryId(
                "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.".into(),
            ));
        }
        if !seen.insert(id) {
            return Err(SqsError::BatchEntryIdsNotDistinct(format!(
                "Id {id} repeated."
            )));
        }
    }
    Ok(())
}

fn failure(id: String, err: SqsError) -> BatchResultErrorEntry {
    let err = crate::error::AwsError::from(err);
    let code = crate::model::SQS.query_code(err.code).to_string();
    BatchResultErrorEntry {
        id,
        sender_fault: err.status < 500,
        code,
        message: err.message,
    }
}

pub fn send_message_batch(
    e: &mut State,
    cx: &Context,
    input: SendMessageBatchInput,
) -> Result<BatchOutput<SendMessageBatchResultEntry>, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    queue_mut(e, &key)?;
    check_batch(
        input.entries.iter().map(|x| x.id.as_str()),
        "SendMessageBatchRequestEntry",
    )?;
    let total: usize = input
        .entries
        .iter()
        .map(|x| {
            x.message.message_body.len()
                + x.message
                    .message_attributes
                    .iter()
                    .map(|(k, v)| {
                        k.len()
                            + v.data_type.len()
                            + v.string_value.as_ref().map_or(0, String::len)
                            + v.binary_value.as_ref().map_or(0, |b| b.len() * 3 / 4)
                    })
                    .sum::<usize>()
        })
        .sum();
    if total > MAX_PAYLOAD {
        return Err(SqsError::BatchRequestTooLong(format!(
            "Batch requests cannot be longer than {MAX_PAYLOAD} bytes. You have sent {total} bytes."
        )));
    }
    check_fifo_batch(e, &key, &input.entries)?;
    let mut out = BatchOutput {
        successful: Vec::new(),
        failed: Vec::new(),
    };
    for entry in input.entries {
        match prepare(e, cx, &key, entry.message).and_then(|(m, _)| send_one(e, &key, m)) {
            Ok(result) => out.successful.push(SendMessageBatchResultEntry {
                id: entry.id,
                result,
            }),
            Err(err) => out.failed.push(failure(entry.id, err)),
        }
    }
    Ok(out)
}

/// A FIFO batch with an entry lacking MessageGroupId, or MessageDeduplicationId on a queue
/// without content-based deduplication, fails whole, as AWS fails it (400).
fn check_fifo_batch(
    e: &State,
    key: &QueueKey,
    entries: &[SendMessageBatchEntry],
) -> Result<(), SqsError> {
    let queue = e.sqs.queues.get(key).ok_or(SqsError::QueueDoesNotExist)?;
    let attrs = &queue.attributes;
    if !attrs.fifo {
        return Ok(());
    }
    for entry in entries {
        if entry.message.message_group_id.is_none() {
            // AWS's code for SendMessage's missing MessageGroupId, for the whole batch too
            // (moto's suite, recorded against AWS).
            return Err(SqsError::MissingParameter(
                "The request must contain the parameter MessageGroupId.".into(),
            ));
        }
        if entry.message.message_deduplication_id.is_none() && !attrs.content_based_dedup {
            return Err(SqsError::InvalidParameterValue(
                "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly".into(),
            ));
        }
    }
    Ok(())
}

fn expired_receipt(handle: &str) -> SqsError {
    invalid_value("ReceiptHandle", handle, "The receipt handle has expired.")
}

fn delete_one(e: &mut State, key: &QueueKey, handle: &str) -> Result<(), SqsError> {
    let now = e.now();
    let (seq, nonce) = parse_receipt(key, handle)?;
    queue_mut(e, key)?
        .delete(seq, nonce, now)
        .map_err(|_| expired_receipt(handle))?;
    // A FIFO group may be free again.
    super::arrived(e, key);
    Ok(())
}

pub fn delete_message(e: &mut State, cx: &Context, input: ReceiptInput) -> Result<Empty, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    queue_mut(e, &key)?;
    delete_one(e, &key, &input.receipt_handle)?;
    Ok(Empty {})
}

/// What DeleteMessageBatch and ChangeMessageVisibilityBatch do to each entry's message.
#[derive(Clone, Copy)]
pub enum ReceiptAction {
    Delete,
    ChangeVisibility,
}

/// DeleteMessageBatch and ChangeMessageVisibilityBatch: the whole-batch checks, then `action`
/// per entry, each succeeding or failing on its own.
pub fn receipt_batch(
    e: &mut State,
    cx: &Context,
    input: ReceiptBatchInput,
    action: ReceiptAction,
) -> Result<BatchOutput<BatchId>, SqsError> {
    let entry_name = match action {
        ReceiptAction::Delete => "DeleteMessageBatchRequestEntry",
        ReceiptAction::ChangeVisibility => "ChangeMessageVisibilityBatchRequestEntry",
    };
    let key = key_from_url(cx, &input.queue_url)?;
    queue_mut(e, &key)?;
    check_batch(input.entries.iter().map(|x| x.id.as_str()), entry_name)?;
    let mut out = BatchOutput {
        successful: Vec::new(),
        failed: Vec::new(),
    };
    for entry in input.entries {
        let handle = &entry.receipt_handle;
        let done = match action {
            ReceiptAction::Delete => delete_one(e, &key, handle),
            ReceiptAction::ChangeVisibility => {
                change_one(e, &key, handle, entry.visibility_timeout)
            }
        };
        match done {
            Ok(()) => out.successful.push(BatchId { id: entry.id }),
            Err(err) => out.failed.push(failure(entry.id, err)),
        }
    }
    Ok(out)
}

fn change_one(
    e: &mut State,
    key: &QueueKey,
    handle: &str,
    timeout: Option<i64>,
) -> Result<(), SqsError> {
    let now = e.now();
    let timeout = timeout.ok_or_else(|| {
        SqsError::MissingParameter(
            "The request must contain the parameter VisibilityTimeout.".into(),
        )
    })?;
    if !(0..=43_200).contains(&timeout) {
        return Err(invalid_value(
            "VisibilityTimeout",
            timeout,
            "Must be between 0 and 43200, if provided.",
        ));
    }
    let (seq, nonce) = parse_receipt(key, handle)?;
    match queue_mut(e, key)?.change_visibility(seq, nonce, now, timeout * 1000) {
        Ok(()) => {
            super::arrived(e, key);
            Ok(())
        }
        Err(Visibility::Expired) => Err(expired_receipt(handle)),
        Err(Visibility::Gone) => Err(invalid_value(
            "ReceiptHandle",
            handle,
            "Message does not exist or is not available for visibility timeout change.",
        )),
        Err(Visibility::NotInFlight) => Err(SqsError::MessageNotInflight(
            "Message does not exist or is not available for visibility timeout change.".into(),
        )),
        Err(Visibility::BeyondLimit) => Err(invalid_value(
            "VisibilityTimeout",
            timeout,
            "Total VisibilityTimeout for the message is beyond the limit [43200 seconds]",
        )),
    }
}

pub fn change_message_visibility(
    e: &mut State,
    cx: &Context,
    input: ReceiptInput,
) -> Result<Empty, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    queue_mut(e, &key)?;
    change_one(e, &key, &input.receipt_handle, input.visibility_timeout)?;
    Ok(Empty {})
}

fn wanted(names: &[String], name: &str) -> bool {
    names.iter().any(|n| {
        n == "All"
            || n == "*"
            || n == ".*"
            || n == name
            || n.strip_suffix(".*").is_some_and(|p| name.starts_with(p))
    })
}

fn present(
    key: &QueueKey,
    seq: u64,
    mut message: super::store::Message,
    input: &ReceiveMessageInput,
) -> ReceivedMessage {
    let mut attributes = BTreeMap::new();
    // Each attribute's text is made only when asked for (most receives ask for none).
    let mut add = |name: &str, value: &dyn Fn() -> Option<String>| {
        let asked = wanted(&input.attribute_names, name)
            || wanted(&input.message_system_attribute_names, name);
        if asked && let Some(value) = value() {
            attributes.insert(name.to_string(), value);
        }
    };
    let m = &message;
    add("SenderId", &|| Some(m.sender_id.to_string()));
    add("SentTimestamp", &|| Some(m.sent_at.to_string()));
    add("ApproximateReceiveCount", &|| {
        Some(m.receive_count.to_string())
    });
    add("ApproximateFirstReceiveTimestamp", &|| {
        m.first_received_at().map(|t| t.to_string())
    });
    add("SequenceNumber", &|| {
        m.sequence_number().map(|n| n.to_string())
    });
    add("MessageDeduplicationId", &|| {
        m.dedup_id()
            .filter(|_| m.sequence_number().is_some())
            .map(str::to_string)
    });
    add("MessageGroupId", &|| m.group_id().map(str::to_string));
    add("AWSTraceHeader", &|| m.trace_header().map(str::to_string));
    add("DeadLetterQueueSourceArn", &|| {
        m.dead_letter_source_arn.as_deref().map(str::to_string)
    });
    let message_attributes: BTreeMap<_, _> = message
        .take_attributes()
        .into_iter()
        .filter(|(name, _)| wanted(&input.message_attribute_names, name))
        .collect();
    ReceivedMessage {
        message_id: message.id.to_string(),
        receipt_handle: receipt_handle(key, seq, message.receipt.map_or(0, |r| r.0)),
        // Not signed here, under the engine's lock: once written out (`ReceivedMessage`).
        md5_of_body: match &message.body {
            Body::Text(_) => message.md5_of_body(),
            Body::Unsigned(_) => String::new(),
        },
        body: message.body,
        attributes,
        // Digest of the attributes returned, which the SDKs check against what they got.
        md5_of_message_attributes: md5_of_attributes(&message_attributes),
        message_attributes,
    }
}

/// One receive attempt under the lock: messages (moving dead letters on), or `None` to wait.
fn try_receive(
    e: &mut State,
    key: &QueueKey,
    input: &ReceiveMessageInput,
    max: usize,
) -> Result<Vec<ReceivedMessage>, SqsError> {
    let now = e.now();
    let queue = e.sqs.queues.get(key).ok_or(SqsError::QueueDoesNotExist)?;
    let visibility_ms = input
        .visibility_timeout
        .unwrap_or(queue.attributes.visibility_timeout_s)
        * 1000;
    let (dlq, max_receives) = super::consume::redrive(e, queue);
    let fifo_attempt = input
        .receive_request_attempt_id
        .as_deref()
        .filter(|_| queue.is_fifo());
    let mut nonces: Vec<u64> = (0..max).map(|_| e.engine.rng.next_u64()).collect();
    // Again, mutably: `redrive` looked at the other queues (the dead-letter queue's existence).
    let queue = e
        .sqs
        .queues
        .get_mut(key)
        .ok_or(SqsError::QueueDoesNotExist)?;
    let source_arn: Arc<str> = Arc::from(queue.arn.as_str());
    let received = queue.receive(now, max, visibility_ms, max_receives, fifo_attempt, || {
        nonces.pop().unwrap_or_default()
    })?;
    if let Some(dlq) = dlq {
        super::consume::dead_letter(e, &dlq, &source_arn, received.dead_lettered);
    }
    Ok(received
        .messages
        .into_iter()
        .map(|(seq, m)| present(key, seq, m, input))
        .collect())
}

/// ReceiveMessage's checks of its input: the queue and how many messages at most.
pub fn check_receive(
    cx: &Context,
    input: &ReceiveMessageInput,
) -> Result<(QueueKey, usize), SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let max = input.max_number_of_messages.unwrap_or(1);
    if !(1..=10).contains(&max) {
        return Err(invalid_value(
            "MaxNumberOfMessages",
            max,
            "Must be between 1 and 10, if provided.",
        ));
    }
    if let Some(v) = input
        .visibility_timeout
        .filter(|v| !(0..=43_200).contains(v))
    {
        return Err(invalid_value(
            "VisibilityTimeout",
            v,
            "Must be >= 0 and <= 43200, if provided.",
        ));
    }
    if let Some(w) = input.wait_time_seconds.filter(|w| !(0..=20).contains(w)) {
        return Err(invalid_value(
            "WaitTimeSeconds",
            w,
            "Must be >= 0 and <= 20, if provided.",
        ));
    }
    check_fifo_token(
        "ReceiveRequestAttemptId",
        input.receive_request_attempt_id.as_deref(),
    )?;
    Ok((key, max as usize))
}

/// ReceiveMessage in one look, without waiting: what [`super::call`] runs. Long polls wait
/// outside the lock, where the runtime calls [`receive_or_wait`] itself.
pub(super) fn receive_message(
    e: &mut State,
    cx: &Context,
    input: ReceiveMessageInput,
) -> Result<ReceiveMessageOutput, SqsError> {
    let (key, max) = check_receive(cx, &input)?;
    let mut wait = Some(Wait {
        deadline: e.now(),
        wall_seconds: 0,
    });
    receive_or_wait(e, &key, &input, max, &mut wait).map(Option::unwrap_or_default)
}

/// How long a long poll waits: until a virtual deadline, and at most so many seconds of wall
/// time (whichever comes first).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Wait {
    pub deadline: Millis,
    pub wall_seconds: i64,
}

/// One look of ReceiveMessage (long polling included) at its queue: the messages received, or
/// `None` when it must wait for an arrival on the queue's ARN, having scheduled a wake-up for the
/// next message to become visible or the deadline. `wait` is settled by the first look.
pub fn receive_or_wait(
    e: &mut State,
    key: &QueueKey,
    input: &ReceiveMessageInput,
    max: usize,
    wait: &mut Option<Wait>,
) -> Result<Option<ReceiveMessageOutput>, SqsError> {
    let messages = try_receive(e, key, input, max)?;
    let now = e.now();
    let queue = queue_mut(e, key)?;
    let wait_s = input
        .wait_time_seconds
        .unwrap_or(queue.attributes.receive_wait_s);
    let wait = *wait.get_or_insert(Wait {
        deadline: now + wait_s * 1000,
        wall_seconds: wait_s,
    });
    if !messages.is_empty() || now >= wait.deadline {
        return Ok(Some(ReceiveMessageOutput { messages }));
    }
    let wake_at = queue
        .next_visible_at(now)
        .map_or(wait.deadline, |at| at.min(wait.deadline));
    let arn = queue.arn.clone();
    e.schedule_wake(wake_at, arn);
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receipt_handles_name_their_queue() {
        let key = QueueKey {
            account: "000000000000".into(),
            region: "us-east-1".into(),
            name: "q".into(),
        };
        let other = QueueKey {
            name: "r".into(),
            ..key.clone()
        };
        let handle = receipt_handle(&key, 42, 0xfeed);
        assert_eq!(parse_receipt(&key, &handle), Ok((42, 0xfeed)));
        assert!(matches!(
            parse_receipt(&other, &handle),
            Err(SqsError::ReceiptHandleIsInvalid(_))
        ));
        assert!(matches!(
            parse_receipt(&key, "garbage"),
            Err(SqsError::ReceiptHandleIsInvalid(_))
        ));
    }
}
