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

use super::operations;
use crate::error::AwsError;
use serde_json::Value;

/// An error AWS answers before the model's required members are checked (`protocol`'s
/// `check_required` asks).
pub fn refused_before_required(operation: &str, input: &Value) -> Option<AwsError> {
    platform::refused_before_required(operation, input).map(AwsError::from)
}

operations! {
    /// Runs an SNS operation.
    "CreateTopic" => topics::create_topic,
    "DeleteTopic" => topics::delete_topic,
    "GetTopicAttributes" => topics::get_topic_attributes,
    "SetTopicAttributes" => topics::set_topic_attributes,
    "ListTopics" => topics::list_topics,
    "TagResource" => topics::tag_resource,
    "UntagResource" => topics::untag_resource,
    "ListTagsForResource" => topics::list_tags_for_resource,
    "AddPermission" => topics::add_permission,
    "RemovePermission" => topics::remove_permission,
    "GetDataProtectionPolicy" => topics::get_data_protection_policy,
    "PutDataProtectionPolicy" => topics::put_data_protection_policy,
    "Subscribe" => subscriptions::subscribe,
    "ConfirmSubscription" => subscriptions::confirm_subscription,
    "Unsubscribe" => subscriptions::unsubscribe,
    "GetSubscriptionAttributes" => subscriptions::get_subscription_attributes,
    "SetSubscriptionAttributes" => subscriptions::set_subscription_attributes,
    "ListSubscriptions" => subscriptions::list_subscriptions,
    "ListSubscriptionsByTopic" => subscriptions::list_subscriptions_by_topic,
    // The runtime signs a publish's notifications off the lock first (see
    // [`publish::prepare`]) and calls [`publish::publish`] and [`publish::publish_batch`]
    // itself.
    "Publish" => |e, cx, i| publish::publish(e, cx, i, None),
    "PublishBatch" => |e, cx, i| publish::publish_batch(e, cx, i, Vec::new()),
    "CreatePlatformApplication" => platform::create_platform_application,
    "DeletePlatformApplication" => platform::delete_platform_application,
    "GetPlatformApplicationAttributes" => platform::get_platform_application_attributes,
    "SetPlatformApplicationAttributes" => platform::set_platform_application_attributes,
    "ListPlatformApplications" => platform::list_platform_applications,
    "CreatePlatformEndpoint" => platform::create_platform_endpoint,
    "DeleteEndpoint" => platform::delete_endpoint,
    "GetEndpointAttributes" => platform::get_endpoint_attributes,
    "SetEndpointAttributes" => platform::set_endpoint_attributes,
    "ListEndpointsByPlatformApplication" => platform::list_endpoints_by_platform_application,
    "GetSMSAttributes" => sms::get_sms_attributes,
    "SetSMSAttributes" => sms::set_sms_attributes,
    "CheckIfPhoneNumberIsOptedOut" => sms::check_if_phone_number_is_opted_out,
    "ListPhoneNumbersOptedOut" => sms::list_phone_numbers_opted_out,
    "OptInPhoneNumber" => sms::opt_in_phone_number,
    "GetSMSSandboxAccountStatus" => |_, _, _: Value| {
        Ok::<_, SnsError>(sms::SandboxStatusOutput { is_in_sandbox: true })
    },
    "CreateSMSSandboxPhoneNumber" => sms::create_sms_sandbox_phone_number,
    "DeleteSMSSandboxPhoneNumber" => sms::delete_sms_sandbox_phone_number,
    "VerifySMSSandboxPhoneNumber" => sms::verify_sms_sandbox_phone_number,
    "ListSMSSandboxPhoneNumbers" => sms::list_sms_sandbox_phone_numbers,
    "ListOriginationNumbers" => |_, _, i| sms::list_origination_numbers(i),
}
