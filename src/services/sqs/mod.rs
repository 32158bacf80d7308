//! Amazon SQS: queues and messages on the virtual clock, over AWS JSON 1.0 and AWS Query.
//! This is the foundation's part (create, find, list and delete queues; send, receive with long
//! polling, delete messages); the rest of the API answers `InvalidAction` until it is built.

mod digest;
pub mod store;
pub mod types;

use super::{Context, not_yet, parse, typed};
use crate::app::App;
use crate::clock::Clock;
use crate::engine::time::Millis;
use crate::engine::{Engine, Timer};
use crate::error::AwsError;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use digest::{md5_hex, md5_of_attributes};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;
use store::{Message, Queue, QueueConfig, QueueKey};
use types::*;

/// SQS's errors, named as its API model names them.
#[derive(Debug, Clone, PartialEq)]
pub enum SqsError {
    QueueDoesNotExist,
    QueueNameExists(String),
    InvalidParameterValue(String),
    InvalidAttributeName(String),
    InvalidAttributeValue(String),
    InvalidMessageContents(String),
    ReceiptHandleIsInvalid(String),
    MissingParameter(String),
}

impl From<SqsError> for AwsError {
    fn from(e: SqsError) -> AwsError {
        use SqsError::*;
        match e {
            QueueDoesNotExist => {
                AwsError::client("QueueDoesNotExist", "The specified queue does not exist.")
            }
            QueueNameExists(m) => AwsError::client("QueueNameExists", m),
            InvalidParameterValue(m) => AwsError::client("InvalidParameterValue", m),
            InvalidAttributeName(m) => AwsError::client("InvalidAttributeName", m),
            InvalidAttributeValue(m) => AwsError::client("InvalidAttributeValue", m),
            InvalidMessageContents(m) => AwsError::client("InvalidMessageContents", m),
            ReceiptHandleIsInvalid(m) => AwsError::client("ReceiptHandleIsInvalid", m),
            MissingParameter(m) => AwsError::client("MissingParameter", m),
        }
    }
}

type Result<T> = std::result::Result<T, SqsError>;

pub async fn call(
    app: &App,
    cx: &Context,
    operation: &str,
    input: Value,
) -> std::result::Result<Value, AwsError> {
    match operation {
        "CreateQueue" => typed(input, |i| create_queue(&mut app.engine(), cx, i)),
        "GetQueueUrl" => typed(input, |i| get_queue_url(&mut app.engine(), cx, i)),
        "ListQueues" => typed(input, |i| list_queues(&mut app.engine(), cx, i)),
        "DeleteQueue" => typed(input, |i| delete_queue(&mut app.engine(), cx, i)),
        "SendMessage" => typed(input, |i| send_message(&mut app.engine(), cx, i)),
        "DeleteMessage" => typed(input, |i| delete_message(&mut app.engine(), cx, i)),
        "ReceiveMessage" => {
            let output = receive_message(app, cx, parse(input)?).await?;
            serde_json::to_value(output).map_err(|e| AwsError::internal(e.to_string()))
        }
        _ => Err(not_yet(operation)),
    }
}

fn valid_name(name: &str) -> bool {
    let base = name.strip_suffix(".fifo").unwrap_or(name);
    (1..=80).contains(&name.len())
        && !base.is_empty()
        && base
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `/<account>/<queue>` → (account, queue).
pub fn parse_queue_path(path: &str) -> Option<(&str, &str)> {
    let (account, name) = path.strip_prefix('/')?.split_once('/')?;
    let name = name.strip_suffix('/').unwrap_or(name);
    (account.len() == 12 && account.bytes().all(|b| b.is_ascii_digit()) && valid_name(name))
        .then_some((account, name))
}

fn queue_url(cx: &Context, key: &QueueKey) -> String {
    format!("http://{}/{}/{}", cx.host, key.account, key.name)
}

/// The queue a QueueUrl names, in the caller's region.
fn key_from_url(cx: &Context, url: &str) -> Result<QueueKey> {
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |i| &rest[i..]),
        None => url,
    };
    let (account, name) = parse_queue_path(path).ok_or(SqsError::QueueDoesNotExist)?;
    Ok(QueueKey {
        account: account.into(),
        region: cx.region.clone(),
        name: name.into(),
    })
}

fn queue_mut<'e>(e: &'e mut Engine, key: &QueueKey) -> Result<&'e mut Queue> {
    e.sqs.queues.get_mut(key).ok_or(SqsError::QueueDoesNotExist)
}

const SETTABLE: [&str; 15] = [
    "DelaySeconds",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "Policy",
    "ReceiveMessageWaitTimeSeconds",
    "VisibilityTimeout",
    "RedrivePolicy",
    "RedriveAllowPolicy",
    "KmsMasterKeyId",
    "KmsDataKeyReusePeriodSeconds",
    "SqsManagedSseEnabled",
    "FifoQueue",
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "FifoThroughputLimit",
];

fn parse_config(attributes: &BTreeMap<String, String>) -> Result<QueueConfig> {
    let mut config = QueueConfig::default();
    for (name, value) in attributes {
        if !SETTABLE.contains(&name.as_str()) {
            return Err(SqsError::InvalidAttributeName(format!(
                "Unknown Attribute {name}."
            )));
        }
        let invalid =
            || SqsError::InvalidAttributeValue(format!("Invalid value for the parameter {name}."));
        let ranged = |lo: i64, hi: i64| -> Result<i64> {
            value
                .trim()
                .parse::<i64>()
                .ok()
                .filter(|v| (lo..=hi).contains(v))
                .ok_or_else(invalid)
        };
        match name.as_str() {
            "DelaySeconds" => config.delay_s = ranged(0, 900)?,
            "MaximumMessageSize" => config.maximum_message_size = ranged(1024, 1_048_576)?,
            "MessageRetentionPeriod" => config.retention_s = ranged(60, 1_209_600)?,
            "ReceiveMessageWaitTimeSeconds" => config.receive_wait_s = ranged(0, 20)?,
            "VisibilityTimeout" => config.visibility_timeout_s = ranged(0, 43_200)?,
            "FifoQueue" => {
                config.fifo = match value.as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(invalid()),
                }
            }
            _ => {}
        }
    }
    Ok(config)
}

pub fn create_queue(
    e: &mut Engine,
    cx: &Context,
    input: CreateQueueInput,
) -> Result<QueueUrlOutput> {
    let name = input.queue_name;
    let fifo_name = name.ends_with(".fifo");
    let config = parse_config(&input.attributes)?;
    if !valid_name(&name) || fifo_name != config.fifo {
        let reason = if fifo_name || config.fifo {
            "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, \
             must end with .fifo suffix and be 1 to 80 in length."
        } else {
            "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
        };
        return Err(SqsError::InvalidParameterValue(reason.into()));
    }
    let key = QueueKey {
        account: cx.account.clone(),
        region: cx.region.clone(),
        name,
    };
    if let Some(existing) = e.sqs.queues.get(&key) {
        let differs = input
            .attributes
            .iter()
            .find(|(k, v)| existing.attributes.get(*k) != Some(v))
            .or_else(|| {
                existing
                    .attributes
                    .iter()
                    .find(|(k, _)| !input.attributes.contains_key(*k))
            });
        if let Some((attr, _)) = differs {
            return Err(SqsError::QueueNameExists(format!(
                "A queue already exists with the same name and a different value for attribute {attr}"
            )));
        }
        return Ok(QueueUrlOutput {
            queue_url: queue_url(cx, &key),
        });
    }
    let mut queue = Queue::new(key.clone(), e.now(), input.attributes, config);
    queue.tags = input.tags;
    e.sqs.queues.insert(key.clone(), queue);
    Ok(QueueUrlOutput {
        queue_url: queue_url(cx, &key),
    })
}

pub fn get_queue_url(
    e: &mut Engine,
    cx: &Context,
    input: GetQueueUrlInput,
) -> Result<QueueUrlOutput> {
    let key = QueueKey {
        account: input
            .queue_owner_aws_account_id
            .unwrap_or_else(|| cx.account.clone()),
        region: cx.region.clone(),
        name: input.queue_name,
    };
    if !e.sqs.queues.contains_key(&key) {
        return Err(SqsError::QueueDoesNotExist);
    }
    Ok(QueueUrlOutput {
        queue_url: queue_url(cx, &key),
    })
}

pub fn list_queues(
    e: &mut Engine,
    cx: &Context,
    input: ListQueuesInput,
) -> Result<ListQueuesOutput> {
    if let Some(n) = input.max_results.filter(|n| !(1..=1000).contains(n)) {
        return Err(SqsError::InvalidParameterValue(format!(
            "Value {n} for parameter MaxResults is invalid. Reason: MaxResults must be an integer between 1 and 1000."
        )));
    }
    let after = match &input.next_token {
        Some(token) => {
            let name = B64
                .decode(token)
                .ok()
                .and_then(|b| String::from_utf8(b).ok());
            Some(name.ok_or_else(|| {
                SqsError::InvalidParameterValue("Invalid NextToken value.".into())
            })?)
        }
        None => None,
    };
    let prefix = input.queue_name_prefix.unwrap_or_default();
    let limit = input.max_results.unwrap_or(1000) as usize;
    let mut names = e
        .sqs
        .queues
        .keys()
        .filter(|k| k.account == cx.account && k.region == cx.region && k.name.starts_with(&prefix))
        .filter(|k| after.as_ref().is_none_or(|a| k.name > *a));
    let page: Vec<&QueueKey> = names.by_ref().take(limit).collect();
    let more = names.next().is_some();
    let next_token =
        (more && input.max_results.is_some()).then(|| B64.encode(&page[page.len() - 1].name));
    Ok(ListQueuesOutput {
        queue_urls: page.iter().map(|k| queue_url(cx, k)).collect(),
        next_token,
    })
}

pub fn delete_queue(e: &mut Engine, cx: &Context, input: QueueUrlInput) -> Result<Empty> {
    let key = key_from_url(cx, &input.queue_url)?;
    let queue = e
        .sqs
        .queues
        .remove(&key)
        .ok_or(SqsError::QueueDoesNotExist)?;
    queue.arrivals.notify_waiters();
    Ok(Empty {})
}

/// The characters SQS accepts in a message: #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF.
fn check_characters(body: &str) -> Result<()> {
    let bad = body.chars().find(|&c| {
        let c = c as u32;
        !(c == 0x9
            || c == 0xA
            || c == 0xD
            || (0x20..=0xD7FF).contains(&c)
            || (0xE000..=0xFFFD).contains(&c)
            || c >= 0x10000)
    });
    match bad {
        None => Ok(()),
        Some(c) => Err(SqsError::InvalidMessageContents(format!(
            "Invalid binary character '#x{:X}' was found in the message body, the set of allowed characters is \
             #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF",
            c as u32
        ))),
    }
}

fn check_attributes(attributes: &BTreeMap<String, MessageAttributeValue>) -> Result<usize> {
    let mut size = 0;
    for (name, value) in attributes {
        let kind = value.data_type.split('.').next().unwrap_or_default();
        let ok = match kind {
            "String" | "Number" => value.string_value.is_some(),
            "Binary" => value
                .binary_value
                .as_ref()
                .is_some_and(|b| B64.decode(b).is_ok()),
            _ => false,
        };
        if name.is_empty() || !ok {
            return Err(SqsError::InvalidParameterValue(format!(
                "The message attribute '{name}' must contain a non-empty message attribute value of a supported type."
            )));
        }
        size += name.len() + value.data_type.len();
        size += value.string_value.as_ref().map_or(0, String::len);
        size += value.binary_value.as_ref().map_or(0, |b| b.len() * 3 / 4);
    }
    Ok(size)
}

pub fn send_message(
    e: &mut Engine,
    cx: &Context,
    input: SendMessageInput,
) -> Result<SendMessageOutput> {
    let key = key_from_url(cx, &input.queue_url)?;
    let now = e.now();
    let id = e.rng.uuid();
    let queue = queue_mut(e, &key)?;
    if input.message_body.is_empty() {
        return Err(SqsError::MissingParameter(
            "The request must contain the parameter MessageBody.".into(),
        ));
    }
    check_characters(&input.message_body)?;
    let size = input.message_body.len() + check_attributes(&input.message_attributes)?;
    let max = queue.config.maximum_message_size;
    if size as i64 > max {
        return Err(SqsError::InvalidParameterValue(format!(
            "One or more parameters are invalid. Reason: Message must be shorter than {max} bytes."
        )));
    }
    let delay = input.delay_seconds.unwrap_or(queue.config.delay_s);
    if !(0..=900).contains(&delay) {
        return Err(SqsError::InvalidParameterValue(format!(
            "Value {delay} for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900."
        )));
    }
    let md5_of_body = md5_hex(input.message_body.as_bytes());
    let md5_of_attributes = md5_of_attributes(&input.message_attributes);
    queue.push(Message {
        id: id.clone(),
        body: input.message_body,
        md5_of_body: md5_of_body.clone(),
        attributes: input.message_attributes,
        md5_of_attributes: md5_of_attributes.clone(),
        sender_id: cx.account.clone(),
        sent_at: now,
        visible_at: now + delay * 1000,
        receive_count: 0,
        first_received_at: None,
        receipt: None,
    });
    Ok(SendMessageOutput {
        md5_of_message_body: md5_of_body,
        md5_of_message_attributes: md5_of_attributes,
        message_id: id,
    })
}

fn receipt_handle(key: &QueueKey, message: &Message, token: &str) -> String {
    B64.encode(format!(
        "{}/{}/{}/{}",
        key.account, key.name, message.id, token
    ))
}

fn check_receipt(handle: &str) -> Result<()> {
    let decoded = B64
        .decode(handle)
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    match decoded {
        Some(text) if text.split('/').count() == 4 => Ok(()),
        _ => Err(SqsError::ReceiptHandleIsInvalid(format!(
            "The input receipt handle \"{handle}\" is not a valid receipt handle."
        ))),
    }
}

pub fn delete_message(e: &mut Engine, cx: &Context, input: DeleteMessageInput) -> Result<Empty> {
    let key = key_from_url(cx, &input.queue_url)?;
    let queue = queue_mut(e, &key)?;
    check_receipt(&input.receipt_handle)?;
    queue.delete(&input.receipt_handle);
    Ok(Empty {})
}

fn out_of_range(name: &str, value: i64, reason: &str) -> SqsError {
    SqsError::InvalidParameterValue(format!(
        "Value {value} for parameter {name} is invalid. Reason: {reason}"
    ))
}

fn wanted(names: &[String], name: &str) -> bool {
    names.iter().any(|n| {
        n == "All"
            || n == ".*"
            || n == name
            || n.strip_suffix(".*").is_some_and(|p| name.starts_with(p))
    })
}

fn present(message: Message, input: &ReceiveMessageInput) -> ReceivedMessage {
    let system: Vec<String> = input
        .attribute_names
        .iter()
        .chain(&input.message_system_attribute_names)
        .cloned()
        .collect();
    let mut attributes = BTreeMap::new();
    let mut add = |name: &str, value: String| {
        if wanted(&system, name) {
            attributes.insert(name.to_string(), value);
        }
    };
    add("SenderId", message.sender_id.clone());
    add("SentTimestamp", message.sent_at.to_string());
    add("ApproximateReceiveCount", message.receive_count.to_string());
    if let Some(at) = message.first_received_at {
        add("ApproximateFirstReceiveTimestamp", at.to_string());
    }
    let message_attributes: BTreeMap<_, _> = message
        .attributes
        .into_iter()
        .filter(|(name, _)| wanted(&input.message_attribute_names, name))
        .collect();
    ReceivedMessage {
        message_id: message.id,
        receipt_handle: message.receipt.unwrap_or_default(),
        md5_of_body: message.md5_of_body,
        body: message.body,
        attributes,
        md5_of_message_attributes: if message_attributes.is_empty() {
            None
        } else {
            message.md5_of_attributes
        },
        message_attributes,
    }
}

/// ReceiveMessage, long polling included: waits until a message is visible, the virtual
/// deadline passes, or the wait's wall-clock duration runs out, whichever comes first.
pub async fn receive_message(
    app: &App,
    cx: &Context,
    input: ReceiveMessageInput,
) -> std::result::Result<ReceiveMessageOutput, AwsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let max = input.max_number_of_messages.unwrap_or(1);
    if !(1..=10).contains(&max) {
        return Err(out_of_range(
            "MaxNumberOfMessages",
            max,
            "Must be between 1 and 10, if provided.",
        )
        .into());
    }
    if let Some(v) = input
        .visibility_timeout
        .filter(|v| !(0..=43_200).contains(v))
    {
        return Err(out_of_range(
            "VisibilityTimeout",
            v,
            "Must be >= 0 and <= 43200, if provided.",
        )
        .into());
    }
    if let Some(w) = input.wait_time_seconds.filter(|w| !(0..=20).contains(w)) {
        return Err(
            out_of_range("WaitTimeSeconds", w, "Must be >= 0 and <= 20, if provided.").into(),
        );
    }
    let stopwatch = Clock::stopwatch();
    let mut deadline: Option<(Millis, Duration)> = None;
    loop {
        let arrivals = {
            let mut e = app.engine();
            let now = e.now();
            let token = e.rng.token(
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                32,
            );
            let queue = queue_mut(&mut e, &key)?;
            let visibility_ms = input
                .visibility_timeout
                .unwrap_or(queue.config.visibility_timeout_s)
                * 1000;
            let taken = queue.receive(now, max as usize, visibility_ms, |m| {
                receipt_handle(&key, m, &token)
            });
            let wait_s = input
                .wait_time_seconds
                .unwrap_or(queue.config.receive_wait_s);
            let (virtual_deadline, wall) =
                *deadline.get_or_insert((now + wait_s * 1000, Duration::from_secs(wait_s as u64)));
            if !taken.is_empty() || now >= virtual_deadline {
                return Ok(ReceiveMessageOutput {
                    messages: taken.into_iter().map(|m| present(m, &input)).collect(),
                });
            }
            let arrivals = queue.arrivals.clone();
            let wake_at = queue
                .next_visible_at(now)
                .map_or(virtual_deadline, |at| at.min(virtual_deadline));
            e.schedule(wake_at, Timer::Wake(arrivals.clone()));
            let mut notified = Box::pin(arrivals.notified_owned());
            notified.as_mut().enable();
            (notified, wall)
        };
        let (notified, wall) = arrivals;
        let left = wall.saturating_sub(stopwatch.elapsed());
        let woken = tokio::select! {
            woken = Clock::within(left, notified) => woken.is_some(),
            _ = app.closed() => false,
        };
        if !woken {
            return Ok(ReceiveMessageOutput::default());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_paths() {
        assert_eq!(
            parse_queue_path("/000000000000/orders"),
            Some(("000000000000", "orders"))
        );
        assert_eq!(
            parse_queue_path("/000000000000/orders.fifo"),
            Some(("000000000000", "orders.fifo"))
        );
        for bad in [
            "/",
            "/orders",
            "/12/orders",
            "/000000000000/",
            "/000000000000/a b",
            "/000000000000/a/b",
        ] {
            assert_eq!(parse_queue_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn names() {
        assert!(valid_name("a-b_C9"));
        assert!(valid_name(&"x".repeat(80)));
        assert!(!valid_name(&"x".repeat(81)));
        assert!(!valid_name("a.b"));
        assert!(!valid_name(""));
    }

    #[test]
    fn attribute_ranges() {
        let attrs = |k: &str, v: &str| BTreeMap::from([(k.to_string(), v.to_string())]);
        assert_eq!(
            parse_config(&attrs("VisibilityTimeout", "60"))
                .unwrap()
                .visibility_timeout_s,
            60
        );
        assert!(matches!(
            parse_config(&attrs("VisibilityTimeout", "43201")),
            Err(SqsError::InvalidAttributeValue(_))
        ));
        assert!(matches!(
            parse_config(&attrs("DelaySeconds", "x")),
            Err(SqsError::InvalidAttributeValue(_))
        ));
        assert!(matches!(
            parse_config(&attrs("Colour", "1")),
            Err(SqsError::InvalidAttributeName(_))
        ));
    }
}
