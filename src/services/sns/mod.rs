//! Amazon SNS over AWS Query: topics, subscriptions, publishing and fan-out to SQS, HTTP(S) and
//! the outbox through the engine's delivery path.

mod archive;
pub mod delivery_policy;
pub mod envelope;
pub mod filter;
mod platform;
pub mod publish;
pub use publish::deliver_to_topic;
pub mod shapes;
pub mod signing;
mod sms;
pub mod store;
mod subscriptions;
mod topics;

use super::{Context, typed};
use crate::arn::Arn;
use crate::error::AwsError;
use crate::state::State;
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

pub fn call(e: &mut State, cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    use publish::*;
    use subscriptions::*;
    use topics::*;
    match operation {
        "CreateTopic" => typed(input, |i| create_topic(e, cx, i)),
        "DeleteTopic" => typed(input, |i| delete_topic(e, cx, i)),
        "GetTopicAttributes" => typed(input, |i| get_topic_attributes(e, cx, i)),
        "SetTopicAttributes" => typed(input, |i| set_topic_attributes(e, cx, i)),
        "ListTopics" => typed(input, |i| list_topics(e, cx, i)),
        "TagResource" => typed(input, |i| tag_resource(e, cx, i)),
        "UntagResource" => typed(input, |i| untag_resource(e, cx, i)),
        "ListTagsForResource" => typed(input, |i| list_tags_for_resource(e, cx, i)),
        "AddPermission" => typed(input, |i| add_permission(e, cx, i)),
        "RemovePermission" => typed(input, |i| remove_permission(e, cx, i)),
        "GetDataProtectionPolicy" => typed(input, |i| get_data_protection_policy(e, cx, i)),
        "PutDataProtectionPolicy" => typed(input, |i| put_data_protection_policy(e, cx, i)),
        "Subscribe" => typed(input, |i| subscribe(e, cx, i)),
        "ConfirmSubscription" => typed(input, |i| confirm_subscription(e, cx, i)),
        "Unsubscribe" => typed(input, |i| unsubscribe(e, cx, i)),
        "GetSubscriptionAttributes" => typed(input, |i| get_subscription_attributes(e, cx, i)),
        "SetSubscriptionAttributes" => typed(input, |i| set_subscription_attributes(e, cx, i)),
        "ListSubscriptions" => typed(input, |i| list_subscriptions(e, cx, i)),
        "ListSubscriptionsByTopic" => typed(input, |i| list_subscriptions_by_topic(e, cx, i)),
        // The runtime signs a plain publish's notification off the lock first (see
        // [`publish::prepare`]) and calls [`publish::publish`] itself.
        "Publish" => typed(input, |i| publish(e, cx, i, None)),
        "PublishBatch" => typed(input, |i| publish_batch(e, cx, i)),
        _ => platform::call(e, cx, operation, input)
            .unwrap_or_else(|| Err(crate::services::not_yet(operation))),
    }
}

/// `arn:<partition>:sns:<region>:<account>:<name>` → (region, account, name), checked against
/// the caller: its region, an account and a name without `:`.
pub(crate) fn parse_topic_arn<'a>(
    cx: &Context,
    arn: &'a str,
    param: &str,
) -> Result<(&'a str, &'a str, &'a str), SnsError> {
    // The message counts the `:`-separated elements, which Arn::parse does not.
    let elements = arn.split(':').count();
    if elements < 6 {
        return Err(invalid(format!(
            "{param} Reason: An ARN must have at least 6 elements, not {elements}"
        )));
    }
    match Arn::parse(arn) {
        Some(a)
            if a.service == "sns"
                && a.region == cx.region
                && !a.account.is_empty()
                && !a.resource.is_empty()
                && !a.resource.contains(':') =>
        {
            Ok((a.region, a.account, a.resource))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_arns_are_six_elements_in_the_callers_region() {
        let cx = Context {
            request_id: String::new(),
            account: "000000000000".into(),
            region: "us-east-1".into(),
            access_key: None,
            host: "localhost:4566".into(),
        };
        let parse = |arn| parse_topic_arn(&cx, arn, "TopicArn");
        assert_eq!(
            parse("arn:aws:sns:us-east-1:111111111111:orders"),
            Ok(("us-east-1", "111111111111", "orders"))
        );
        assert_eq!(
            parse("arn:aws:sns:us-east-1:0"),
            Err(invalid(
                "TopicArn Reason: An ARN must have at least 6 elements, not 5"
            ))
        );
        for bad in [
            "arn:aws:sns:eu-west-1:000000000000:orders",
            "arn:aws:sqs:us-east-1:000000000000:orders",
            "arn:aws:sns:us-east-1::orders",
            "arn:aws:sns:us-east-1:000000000000:",
            "arn:aws:sns:us-east-1:000000000000:orders:1b2c",
            "urn:aws:sns:us-east-1:000000000000:orders",
        ] {
            assert_eq!(parse(bad), Err(invalid("TopicArn")), "{bad}");
        }
    }
}
