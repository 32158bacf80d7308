//! Where a delivery goes and what it carries: the typed target, the message an SQS queue of this
//! emulator is handed, batches, the publisher of in-process hand-overs and dead-letter settings.
//! Values only: no engine state, and nothing of the services they are handed to.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A message attribute as SQS carries it (SendMessage's MessageAttributes, and what deliveries
/// into queues put on their messages).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "PascalCase", default)]
pub struct MessageAttributeValue {
    pub data_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub string_value: Option<String>,
    /// Base64, as both wires carry blobs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary_value: Option<String>,
}

impl MessageAttributeValue {
    /// A `String` attribute.
    pub fn string(value: &str) -> MessageAttributeValue {
        MessageAttributeValue {
            data_type: "String".into(),
            string_value: Some(value.into()),
            binary_value: None,
        }
    }
}

/// A message as it is put on an SQS queue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SqsMessage {
    /// Text, or an SNS notification signed when first read.
    #[serde(with = "crate::body::stored")]
    pub body: crate::body::Body,
    pub attributes: BTreeMap<String, MessageAttributeValue>,
    pub group_id: Option<String>,
    pub dedup_id: Option<String>,
    /// The AWSTraceHeader system attribute the message carries (an X-Ray trace header).
    pub trace_header: Option<String>,
}

/// One message of a [`Target::SqsBatch`], with the id its source knows it by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchEntry {
    pub id: String,
    pub message: SqsMessage,
}

/// The largest SendMessageBatch payload, all entries together (as large as one message may be).
pub const MAX_BATCH_BYTES: usize = 1024 * 1024;

/// Where a delivery goes and what it carries.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
        /// Message attributes the publish carries (Lambda's dead letters: RequestID ...).
        #[serde(default)]
        attributes: BTreeMap<String, MessageAttributeValue>,
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
    /// sends only the refused ones ([`super::Failure::PartialBatch`]).
    SqsBatch {
        queue_arn: String,
        entries: Vec<BatchEntry>,
    },
    /// An operation of a service of this emulator, called by name with a JSON input as the
    /// publisher's account in `region` (EventBridge Scheduler's universal targets); `address`
    /// is the name faults and the log know it by.
    Call {
        address: String,
        service: String,
        operation: String,
        input: String,
        publisher: Publisher,
        region: String,
    },
    /// One invocation of a Lambda function of this emulator (`function`: its ARN, with the
    /// version or alias invoked), run by the layer above outside the engine: an attempt leaves
    /// as [`Effect::Invoke`](crate::engine::Effect::Invoke), and its answer is the function's
    /// response. Every attempt carries the same `request_id` (the retries of an asynchronous
    /// invocation keep theirs, as AWS's do); `host` is the emulator's address the function's
    /// SDK calls go to.
    Invoke {
        function: String,
        payload: String,
        request_id: String,
        host: String,
    },
    /// An event handed to a Lambda function's own queue of asynchronous invocations (an Invoke
    /// with `InvocationType: Event`), as the account of `publisher`: accepted or refused at
    /// once; the invocations follow on their own.
    Lambda {
        function: String,
        publisher: Publisher,
        payload: String,
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
            Target::Outbox { address, .. } | Target::Call { address, .. } => address,
            Target::Invoke { function, .. } | Target::Lambda { function, .. } => function,
        }
    }
}

/// Who hands a message on to an in-process service target: the account it acts as, and the host
/// clients reach the emulator at (for URLs inside the message).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Publisher {
    pub account: String,
    pub host: String,
}

/// Where a message goes when its deliveries are over without success; `F` is the layer above's
/// [`super::Finish`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeadLetter<F> {
    /// An SQS queue, or an event bus when `bus` is set.
    pub queue_arn: String,
    pub message: SqsMessage,
    /// Completes the message with how the delivery ended (EventBridge: the ERROR_CODE, ...
    /// attributes) before it is written.
    pub finish: Option<F>,
    /// `queue_arn` names an event bus: the message body (an event) is put on it as this
    /// publisher (event streams).
    pub bus: Option<Publisher>,
}

impl<F> DeadLetter<F> {
    pub fn new(queue_arn: String, message: SqsMessage) -> DeadLetter<F> {
        DeadLetter {
            queue_arn,
            message,
            finish: None,
            bus: None,
        }
    }
}
