//! Amazon SNS over AWS Query: topics, subscriptions, publishing and fan-out to SQS, HTTP(S) and
//! the outbox through the engine's delivery path.

mod archive;
pub mod delivery_policy;
pub mod envelope;
pub mod filter;
mod platform;
mod publish;
pub use publish::deliver_to_topic;
pub mod signing;
mod sms;
pub mod store;
mod subscriptions;
mod topics;
pub mod types;

use super::{Context, typed};
use crate::app::App;
use crate::error::AwsError;
use serde_json::Value;
use std::sync::LazyLock;

/// The one signing key of the emulator (its certificate is served at SigningCertURL).
pub static SIGNER: LazyLock<signing::Signer> = LazyLock::new(signing::Signer::load);

/// SNS's errors, named as its API model names them.
#[derive(Debug, Clone, PartialEq)]
pub enum SnsError {
    InvalidParameter(String),
    ParameterValueInvalid(String),
    NotFound(String),
    ResourceNotFound(String),
    AuthorizationError(String),
    FilterPolicyLimitExceeded(String),
    TopicLimitExceeded(String),
    TagLimitExceeded(String),
    TooManyEntriesInBatchRequest(String),
    EmptyBatchRequest(String),
    BatchEntryIdsNotDistinct(String),
    InvalidBatchEntryId(String),
    BatchRequestTooLong(String),
    ValidationError(String),
    EndpointDisabled(String),
    PlatformApplicationDisabled(String),
    OptedOut(String),
    UserError(String),
    Verification(String),
}

impl From<SnsError> for AwsError {
    fn from(e: SnsError) -> AwsError {
        use SnsError::*;
        match e {
            InvalidParameter(m) => AwsError::client("InvalidParameterException", m),
            ParameterValueInvalid(m) => AwsError::client("InvalidParameterValueException", m),
            NotFound(m) => AwsError::new("NotFoundException", 404, m),
            ResourceNotFound(m) => AwsError::new("ResourceNotFoundException", 404, m),
            AuthorizationError(m) => AwsError::new("AuthorizationErrorException", 403, m),
            TopicLimitExceeded(m) => AwsError::new("TopicLimitExceededException", 403, m),
            FilterPolicyLimitExceeded(m) => {
                AwsError::new("FilterPolicyLimitExceededException", 403, m)
            }
            TagLimitExceeded(m) => AwsError::client("TagLimitExceededException", m),
            TooManyEntriesInBatchRequest(m) => {
                AwsError::client("TooManyEntriesInBatchRequestException", m)
            }
            EmptyBatchRequest(m) => AwsError::client("EmptyBatchRequestException", m),
            BatchEntryIdsNotDistinct(m) => AwsError::client("BatchEntryIdsNotDistinctException", m),
            InvalidBatchEntryId(m) => AwsError::client("InvalidBatchEntryIdException", m),
            BatchRequestTooLong(m) => AwsError::client("BatchRequestTooLongException", m),
            ValidationError(m) => AwsError::client("ValidationError", m),
            EndpointDisabled(m) => AwsError::client("EndpointDisabledException", m),
            PlatformApplicationDisabled(m) => {
                AwsError::client("PlatformApplicationDisabledException", m)
            }
            OptedOut(m) => AwsError::client("OptedOutException", m),
            UserError(m) => AwsError::client("UserErrorException", m),
            Verification(m) => AwsError::client("VerificationException", m),
        }
    }
}

pub(crate) fn invalid(what: impl std::fmt::Display) -> SnsError {
    SnsError::InvalidParameter(format!("Invalid parameter: {what}"))
}

pub async fn call(
    app: &App,
    cx: &Context,
    operation: &str,
    input: Value,
) -> Result<Value, AwsError> {
    use publish::*;
    use subscriptions::*;
    use topics::*;
    let e = || app.engine();
    match operation {
        "CreateTopic" => typed(input, |i| create_topic(&mut e(), cx, i)),
        "DeleteTopic" => typed(input, |i| delete_topic(&mut e(), cx, i)),
        "GetTopicAttributes" => typed(input, |i| get_topic_attributes(&mut e(), cx, i)),
        "SetTopicAttributes" => typed(input, |i| set_topic_attributes(&mut e(), cx, i)),
        "ListTopics" => typed(input, |i| list_topics(&mut e(), cx, i)),
        "TagResource" => typed(input, |i| tag_resource(&mut e(), cx, i)),
        "UntagResource" => typed(input, |i| untag_resource(&mut e(), cx, i)),
        "ListTagsForResource" => typed(input, |i| list_tags_for_resource(&mut e(), cx, i)),
        "AddPermission" => typed(input, |i| add_permission(&mut e(), cx, i)),
        "RemovePermission" => typed(input, |i| remove_permission(&mut e(), cx, i)),
        "GetDataProtectionPolicy" => typed(input, |i| get_data_protection_policy(&mut e(), cx, i)),
        "PutDataProtectionPolicy" => typed(input, |i| put_data_protection_policy(&mut e(), cx, i)),
        "Subscribe" => typed(input, |i| subscribe(&mut e(), cx, i)),
        "ConfirmSubscription" => typed(input, |i| confirm_subscription(&mut e(), cx, i)),
        "Unsubscribe" => typed(input, |i| unsubscribe(&mut e(), cx, i)),
        "GetSubscriptionAttributes" => {
            typed(input, |i| get_subscription_attributes(&mut e(), cx, i))
        }
        "SetSubscriptionAttributes" => {
            typed(input, |i| set_subscription_attributes(&mut e(), cx, i))
        }
        "ListSubscriptions" => typed(input, |i| list_subscriptions(&mut e(), cx, i)),
        "ListSubscriptionsByTopic" => {
            typed(input, |i| list_subscriptions_by_topic(&mut e(), cx, i))
        }
        "Publish" => {
            let input: types::PublishInput = crate::services::parse(input)?;
            let prepared = publish::presign(app, &input).await;
            let output = publish(&mut e(), cx, input, prepared)?;
            serde_json::to_value(output).map_err(|e| AwsError::internal(e.to_string()))
        }
        "PublishBatch" => typed(input, |i| publish_batch(&mut e(), cx, i)),
        _ => platform::call(&mut e(), cx, operation, input)
            .unwrap_or_else(|| Err(crate::services::not_yet(operation))),
    }
}

/// `arn:aws:sns:<region>:<account>:<name>` → (region, account, name), checked against the caller.
pub(crate) fn parse_topic_arn<'a>(
    cx: &Context,
    arn: &'a str,
    param: &str,
) -> Result<(&'a str, &'a str, &'a str), SnsError> {
    let parts: Vec<&str> = arn.split(':').collect();
    if parts.len() < 6 {
        return Err(invalid(format!(
            "{param} Reason: An ARN must have at least 6 elements, not {}",
            parts.len()
        )));
    }
    match parts.as_slice() {
        ["arn", _, "sns", region, account, name]
            if *region == cx.region && !account.is_empty() && !name.is_empty() =>
        {
            Ok((region, account, name))
        }
        _ => Err(invalid(param)),
    }
}

/// The base URL clients reached this emulator at, for SubscribeURL, UnsubscribeURL and the
/// signing certificate.
pub(crate) fn base_url(cx: &Context) -> String {
    format!("http://{}", cx.host)
}

pub(crate) fn signing_cert_url(cx: &Context) -> String {
    format!("{}/{}", base_url(cx), SIGNER.certificate_name())
}
