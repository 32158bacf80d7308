//! The shapes of the SQS operations: their inputs and outputs, named and shaped as in the SQS API
//! model (JSON form).
//! Plain data: it imports no operation, so the state can hold it.

use crate::body::Body;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub type Attributes = BTreeMap<String, String>;

pub use crate::engine::delivery::MessageAttributeValue;

#[derive(Debug, Serialize, Default)]
pub struct Empty {}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct QueueUrlInput {
    pub queue_url: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateQueueInput {
    pub queue_name: String,
    #[serde(default)]
    pub attributes: Attributes,
    #[serde(default, rename = "tags")]
    pub tags: BTreeMap<String, String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct QueueUrlOutput {
    pub queue_url: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetQueueUrlInput {
    pub queue_name: String,
    #[serde(rename = "QueueOwnerAWSAccountId")]
    pub queue_owner_aws_account_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListQueuesInput {
    pub queue_name_prefix: Option<String>,
    pub next_token: Option<String>,
    pub max_results: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListQueuesOutput {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queue_urls: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListDeadLetterSourceQueuesInput {
    pub queue_url: String,
    pub next_token: Option<String>,
    pub max_results: Option<i64>,
}

#[derive(Debug, Serialize)]
pub struct ListDeadLetterSourceQueuesOutput {
    #[serde(rename = "queueUrls")]
    pub queue_urls: Vec<String>,
    #[serde(rename = "NextToken", skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetQueueAttributesInput {
    pub queue_url: String,
    #[serde(default)]
    pub attribute_names: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct AttributesOutput {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: Attributes,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SetQueueAttributesInput {
    pub queue_url: String,
    pub attributes: Attributes,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AddPermissionInput {
    pub queue_url: String,
    pub label: String,
    #[serde(rename = "AWSAccountIds")]
    pub aws_account_ids: Vec<String>,
    pub actions: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RemovePermissionInput {
    pub queue_url: String,
    pub label: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TagQueueInput {
    pub queue_url: String,
    pub tags: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UntagQueueInput {
    pub queue_url: String,
    pub tag_keys: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListQueueTagsOutput {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
}

/// What SendMessage and a SendMessageBatch entry carry.
#[derive(Debug, Deserialize, Clone)]
#[serde(rename_all = "PascalCase")]
pub struct SendMessageInput {
    #[serde(default)]
    pub queue_url: String,
    pub message_body: String,
    pub delay_seconds: Option<i64>,
    #[serde(default)]
    pub message_attributes: BTreeMap<String, MessageAttributeValue>,
    #[serde(default)]
    pub message_system_attributes: BTreeMap<String, MessageAttributeValue>,
    pub message_deduplication_id: Option<String>,
    pub message_group_id: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SendMessageOutput {
    #[serde(rename = "MD5OfMessageBody")]
    pub md5_of_message_body: String,
    #[serde(
        rename = "MD5OfMessageAttributes",
        skip_serializing_if = "Option::is_none"
    )]
    pub md5_of_message_attributes: Option<String>,
    #[serde(
        rename = "MD5OfMessageSystemAttributes",
        skip_serializing_if = "Option::is_none"
    )]
    pub md5_of_message_system_attributes: Option<String>,
    pub message_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence_number: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SendMessageBatchInput {
    pub queue_url: String,
    pub entries: Vec<SendMessageBatchEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SendMessageBatchEntry {
    pub id: String,
    #[serde(flatten)]
    pub message: SendMessageInput,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SendMessageBatchResultEntry {
    pub id: String,
    #[serde(flatten)]
    pub result: SendMessageOutput,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchResultErrorEntry {
    pub id: String,
    pub sender_fault: bool,
    pub code: String,
    pub message: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchOutput<T> {
    /// Left out when empty, as AWS's JSON answers leave it out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub successful: Vec<T>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<BatchResultErrorEntry>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchId {
    pub id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReceiveMessageInput {
    pub queue_url: String,
    #[serde(default)]
    pub attribute_names: Vec<String>,
    #[serde(default)]
    pub message_system_attribute_names: Vec<String>,
    #[serde(default)]
    pub message_attribute_names: Vec<String>,
    pub max_number_of_messages: Option<i64>,
    pub visibility_timeout: Option<i64>,
    pub wait_time_seconds: Option<i64>,
    pub receive_request_attempt_id: Option<String>,
}

#[derive(Debug, Serialize, Default)]
#[serde(rename_all = "PascalCase")]
pub struct ReceiveMessageOutput {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<ReceivedMessage>,
}

#[derive(Debug)]
pub struct ReceivedMessage {
    pub message_id: String,
    pub receipt_handle: String,
    /// Empty while `body` is a notification not signed yet: its MD5 is written from it.
    pub md5_of_body: String,
    /// Text, or a notification signed when first written out (outside the engine's lock).
    pub body: Body,
    pub attributes: Attributes,
    pub md5_of_message_attributes: Option<String>,
    pub message_attributes: BTreeMap<String, MessageAttributeValue>,
}

impl Serialize for ReceivedMessage {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let md5_of_body = match self.body.signed_md5() {
            Some(md5) => super::digest::lower_hex(&md5),
            None => self.md5_of_body.clone(),
        };
        let mut m = s.serialize_struct("ReceivedMessage", 7)?;
        m.serialize_field("MessageId", &self.message_id)?;
        m.serialize_field("ReceiptHandle", &self.receipt_handle)?;
        m.serialize_field("MD5OfBody", &md5_of_body)?;
        m.serialize_field("Body", &self.body)?;
        if !self.attributes.is_empty() {
            m.serialize_field("Attributes", &self.attributes)?;
        }
        if let Some(md5) = &self.md5_of_message_attributes {
            m.serialize_field("MD5OfMessageAttributes", md5)?;
        }
        if !self.message_attributes.is_empty() {
            m.serialize_field("MessageAttributes", &self.message_attributes)?;
        }
        m.end()
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReceiptInput {
    pub queue_url: String,
    pub receipt_handle: String,
    pub visibility_timeout: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReceiptBatchInput {
    pub queue_url: String,
    pub entries: Vec<ReceiptBatchEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReceiptBatchEntry {
    pub id: String,
    pub receipt_handle: String,
    pub visibility_timeout: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct StartMessageMoveTaskInput {
    pub source_arn: String,
    pub destination_arn: Option<String>,
    pub max_number_of_messages_per_second: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TaskHandleOutput {
    pub task_handle: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TaskHandleInput {
    pub task_handle: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct MovedOutput {
    pub approximate_number_of_messages_moved: u64,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListMessageMoveTasksInput {
    pub source_arn: String,
    pub max_results: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListMessageMoveTasksOutput {
    pub results: Vec<MoveTaskEntry>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct MoveTaskEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_handle: Option<String>,
    pub status: &'static str,
    pub source_arn: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_number_of_messages_per_second: Option<i64>,
    pub approximate_number_of_messages_moved: u64,
    pub approximate_number_of_messages_to_move: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    pub started_timestamp: i64,
}
