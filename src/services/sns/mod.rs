//! Amazon SNS over AWS Query: topics, subscriptions, publishing and fan-out to SQS, HTTP(S) and
//! the outbox through the engine's delivery path.

mod archive;
mod context;
pub mod delivery_policy;
pub mod envelope;
pub mod errors;
pub use errors::SnsError;
pub mod filter;
mod platform;
pub mod publish;
pub use publish::deliver_to_topic;
pub mod shapes;
pub mod signing;
pub use signing::SIGNER;
mod sms;
pub mod store;
mod subscriptions;
mod topics;

use super::{Context, typed};
use crate::error::AwsError;
use crate::state::State;
use serde_json::Value;

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
