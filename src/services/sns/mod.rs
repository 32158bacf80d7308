//! Amazon SNS over AWS Query: topics, subscriptions, publishing and fan-out to SQS, HTTP(S) and
//! the outbox through the engine's delivery path. This file routes operations by name; nothing
//! in `sns/` imports it.
//!
//! The files import one way. Data and leaves, which import no operation: `store.rs` (what `State`
//! holds), `protocol.rs`, `archive.rs`, `filter.rs`, `signing.rs`, `envelope.rs`, `delivery_policy.rs`,
//! `shapes.rs`, `errors.rs`, `context.rs`, `paging.rs`, `checks.rs`. Operations over them:
//! `topics.rs`; `delivery.rs` (one message to one subscription) and `confirmation.rs`, `replay.rs`
//! on it; `publish.rs` over topics and delivery; `subscriptions.rs` over topics, confirmation and
//! replay; `platform.rs`, and `sms.rs` over it.

pub mod access;
use crate::state::sns::archive;
mod checks;
mod confirmation;
mod context;
mod delivery;
pub use crate::state::sns::delivery_policy;
pub mod envelope;
pub mod errors;
pub use crate::state::sns::filter;
pub use errors::SnsError;
mod paging;
mod platform;
pub use crate::state::sns::protocol;
pub mod publish;
mod replay;
pub use crate::signature as signing;
pub use crate::state::sns::shapes;
pub use publish::deliver_to_topic;
pub use signing::SIGNER;
mod sms;
pub use crate::state::sns::store;
mod subscriptions;
mod topics;

use super::{Context, typed};
use crate::error::AwsError;
use crate::state::State;
use serde_json::Value;

/// An error AWS answers before the model's required members are checked (`protocol`'s
/// `check_required` asks).
pub fn refused_before_required(operation: &str, input: &Value) -> Option<AwsError> {
    platform::refused_before_required(operation, input).map(AwsError::from)
}

pub fn call(e: &mut State, cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    use platform::*;
    use publish::*;
    use sms::*;
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
        // The runtime signs a publish's notifications off the lock first (see
        // [`publish::prepare`]) and calls [`publish::publish`] and [`publish::publish_batch`]
        // itself.
        "Publish" => typed(input, |i| publish(e, cx, i, None)),
        "PublishBatch" => typed(input, |i| publish_batch(e, cx, i, Vec::new())),
        "CreatePlatformApplication" => typed(input, |i| create_platform_application(e, cx, i)),
        "DeletePlatformApplication" => typed(input, |i| delete_platform_application(e, cx, i)),
        "GetPlatformApplicationAttributes" => {
            typed(input, |i| get_platform_application_attributes(e, cx, i))
        }
        "SetPlatformApplicationAttributes" => {
            typed(input, |i| set_platform_application_attributes(e, cx, i))
        }
        "ListPlatformApplications" => typed(input, |i| list_platform_applications(e, cx, i)),
        "CreatePlatformEndpoint" => typed(input, |i| create_platform_endpoint(e, cx, i)),
        "DeleteEndpoint" => typed(input, |i| delete_endpoint(e, cx, i)),
        "GetEndpointAttributes" => typed(input, |i| get_endpoint_attributes(e, cx, i)),
        "SetEndpointAttributes" => typed(input, |i| set_endpoint_attributes(e, cx, i)),
        "ListEndpointsByPlatformApplication" => {
            typed(input, |i| list_endpoints_by_platform_application(e, cx, i))
        }
        "GetSMSAttributes" => typed(input, |i| get_sms_attributes(e, cx, i)),
        "SetSMSAttributes" => typed(input, |i| set_sms_attributes(e, cx, i)),
        "CheckIfPhoneNumberIsOptedOut" => {
            typed(input, |i| check_if_phone_number_is_opted_out(e, cx, i))
        }
        "ListPhoneNumbersOptedOut" => typed(input, |i| list_phone_numbers_opted_out(e, cx, i)),
        "OptInPhoneNumber" => typed(input, |i| opt_in_phone_number(e, cx, i)),
        "GetSMSSandboxAccountStatus" => typed(input, |_: Value| {
            Ok::<_, SnsError>(SandboxStatusOutput {
                is_in_sandbox: true,
            })
        }),
        "CreateSMSSandboxPhoneNumber" => {
            typed(input, |i| create_sms_sandbox_phone_number(e, cx, i))
        }
        "DeleteSMSSandboxPhoneNumber" => {
            typed(input, |i| delete_sms_sandbox_phone_number(e, cx, i))
        }
        "VerifySMSSandboxPhoneNumber" => {
            typed(input, |i| verify_sms_sandbox_phone_number(e, cx, i))
        }
        "ListSMSSandboxPhoneNumbers" => typed(input, |i| list_sms_sandbox_phone_numbers(e, cx, i)),
        "ListOriginationNumbers" => typed(input, list_origination_numbers),
        _ => Err(crate::services::not_yet(operation)),
    }
}
