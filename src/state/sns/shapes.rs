//! The shapes of the SNS operations: their inputs and outputs, named and shaped as in the SNS API
//! model (JSON form).
//! Plain data: it imports no operation, so the state can hold it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub type Attributes = BTreeMap<String, String>;

#[derive(Debug, Serialize, Default)]
pub struct Empty {}

/// SNS message attributes have SQS's shape: the one type deliveries carry.
pub use crate::engine::delivery::MessageAttributeValue;

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "PascalCase")]
pub struct Tag {
    pub key: String,
    pub value: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateTopicInput {
    pub name: String,
    #[serde(default)]
    pub attributes: Attributes,
    #[serde(default)]
    pub tags: Vec<Tag>,
    pub data_protection_policy: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TopicArnOutput {
    pub topic_arn: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TopicArnInput {
    pub topic_arn: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct AttributesOutput {
    pub attributes: Attributes,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SetTopicAttributesInput {
    pub topic_arn: String,
    pub attribute_name: String,
    pub attribute_value: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct NextTokenInput {
    pub next_token: Option<String>,
    pub topic_arn: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TopicEntry {
    pub topic_arn: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListTopicsOutput {
    pub topics: Vec<TopicEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SubscribeInput {
    pub topic_arn: String,
    pub protocol: String,
    pub endpoint: Option<String>,
    #[serde(default)]
    pub attributes: Attributes,
    #[serde(default)]
    pub return_subscription_arn: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SubscriptionArnOutput {
    pub subscription_arn: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ConfirmSubscriptionInput {
    pub topic_arn: String,
    pub token: String,
    pub authenticate_on_unsubscribe: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SubscriptionArnInput {
    pub subscription_arn: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SetSubscriptionAttributesInput {
    pub subscription_arn: String,
    pub attribute_name: String,
    pub attribute_value: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SubscriptionEntry {
    pub subscription_arn: String,
    pub owner: String,
    pub protocol: String,
    pub endpoint: String,
    pub topic_arn: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListSubscriptionsOutput {
    pub subscriptions: Vec<SubscriptionEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

#[derive(Debug, Deserialize, Clone)]
#[serde(rename_all = "PascalCase")]
pub struct PublishInput {
    pub topic_arn: Option<String>,
    pub target_arn: Option<String>,
    pub phone_number: Option<String>,
    #[serde(flatten)]
    pub fields: PublishFields,
}

/// The members Publish and a PublishBatch entry share: the message and how it is delivered.
#[derive(Debug, Deserialize, Clone)]
#[serde(rename_all = "PascalCase")]
pub struct PublishFields {
    pub message: String,
    pub subject: Option<String>,
    pub message_structure: Option<String>,
    #[serde(default)]
    pub message_attributes: BTreeMap<String, MessageAttributeValue>,
    pub message_deduplication_id: Option<String>,
    pub message_group_id: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PublishOutput {
    pub message_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence_number: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PublishBatchInput {
    pub topic_arn: String,
    pub publish_batch_request_entries: Vec<PublishBatchEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PublishBatchEntry {
    pub id: String,
    #[serde(flatten)]
    pub fields: PublishFields,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PublishBatchResultEntry {
    pub id: String,
    pub message_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence_number: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchResultErrorEntry {
    pub id: String,
    pub code: String,
    pub message: String,
    pub sender_fault: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PublishBatchOutput {
    pub successful: Vec<PublishBatchResultEntry>,
    pub failed: Vec<BatchResultErrorEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TagResourceInput {
    pub resource_arn: String,
    pub tags: Vec<Tag>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UntagResourceInput {
    pub resource_arn: String,
    pub tag_keys: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ResourceArnInput {
    pub resource_arn: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TagsOutput {
    pub tags: Vec<Tag>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AddPermissionInput {
    pub topic_arn: String,
    pub label: String,
    #[serde(rename = "AWSAccountId")]
    pub aws_account_id: Vec<String>,
    pub action_name: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RemovePermissionInput {
    pub topic_arn: String,
    pub label: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PutDataProtectionPolicyInput {
    pub resource_arn: String,
    pub data_protection_policy: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DataProtectionPolicyOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_protection_policy: Option<String>,
}
