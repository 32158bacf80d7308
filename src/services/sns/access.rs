//! Who may act on a topic of another account: the topic's Policy decides (AddPermission writes
//! its statements there; a topic without one has SNS's default, which grants the owner only).
//! Tags and data protection policies stay the owner's; a subscription is its subscriber's and
//! its topic owner's. Also the check a service's delivery to a topic passes.
//! It imports no operation: the state asks it before an operation runs.

use super::errors::SnsError;
use super::store::Topic;
use crate::arn::Arn;
use crate::error::AwsError;
use crate::services::Context;
use crate::services::policy::{self, Principal, Request};
use crate::state::State;
use serde_json::{Value, json};

/// The policy SNS gives every topic: the owner account may do everything.
pub fn default_policy(arn: &str, account: &str) -> Value {
    json!({
        "Version": "2008-10-17",
        "Id": "__default_policy_ID",
        "Statement": [{
            "Sid": "__default_statement_ID",
            "Effect": "Allow",
            "Principal": {"AWS": "*"},
            "Action": ["SNS:GetTopicAttributes", "SNS:SetTopicAttributes", "SNS:AddPermission",
                "SNS:RemovePermission", "SNS:DeleteTopic", "SNS:Subscribe", "SNS:ListSubscriptionsByTopic",
                "SNS:Publish"],
            "Resource": arn,
            "Condition": {"StringEquals": {"AWS:SourceOwner": account}}
        }]
    })
}

/// The topic actions a topic policy may grant another account.
const TOPIC_ACTIONS: &[&str] = &[
    "GetTopicAttributes",
    "SetTopicAttributes",
    "AddPermission",
    "RemovePermission",
    "DeleteTopic",
    "Subscribe",
    "ListSubscriptionsByTopic",
    "Publish",
];

/// Operations on a topic by `ResourceArn` that only its owner may call.
const OWNER_ONLY: &[&str] = &[
    "TagResource",
    "UntagResource",
    "ListTagsForResource",
    "GetDataProtectionPolicy",
    "PutDataProtectionPolicy",
];

/// SNS's refusal (403, `AuthorizationError`) of `action` (`SNS:Publish`) on `resource` to the
/// caller: the principal GetCallerIdentity names (`sts::caller_arn`).
pub fn refused(e: &State, cx: &Context, action: &str, resource: &str) -> SnsError {
    SnsError::AuthorizationError(format!(
        "User: {} is not authorized to perform: {action} on resource: {resource} because no resource-based policy allows the {action} action",
        crate::services::iam::identity::caller_arn(e, cx)
    ))
}

/// Whether the topic's policy (or the default one) lets `account` do `action` (`SNS:Publish`).
/// The owner always may.
pub fn allows(topic: &Topic, account: &str, action: &str) -> bool {
    if account == topic.account {
        return true;
    }
    let default;
    let document = match &topic.policy {
        Some(p) => p,
        None => {
            default = default_policy(&topic.arn, &topic.account);
            &default
        }
    };
    let request = Request {
        principal: Principal::Account(account),
        action,
        resource: &topic.arn,
        source_arn: None,
    };
    policy::allows(Some(document), &request)
}

/// Whether the caller of `operation` (its input in the model's JSON form) may act on the topic
/// or subscription it names. Missing topics and subscriptions are left for the operation.
pub fn authorize(e: &State, cx: &Context, operation: &str, input: &Value) -> Result<(), AwsError> {
    let text = |name: &str| input.get(name).and_then(Value::as_str);
    let refuse = |resource: &str| Err(refused(e, cx, &format!("SNS:{operation}"), resource).into());
    // Platform applications and endpoints have no resource policy: they are their account's
    // alone, a direct publish to an endpoint included.
    let platform = ["PlatformApplicationArn", "EndpointArn", "TargetArn"]
        .into_iter()
        .filter_map(text)
        .find(|arn| {
            e.sns.platform.applications.contains_key(*arn)
                || e.sns.platform.endpoints.contains_key(*arn)
        });
    if let Some(arn) = platform {
        if Arn::account_of(arn) != cx.account {
            return refuse(arn);
        }
    } else if TOPIC_ACTIONS.contains(&operation) || operation == "PublishBatch" {
        let Some(topic) = text("TopicArn").and_then(|arn| e.sns.topics.get(arn)) else {
            return Ok(());
        };
        let action = format!(
            "SNS:{}",
            operation.strip_suffix("Batch").unwrap_or(operation)
        );
        if !allows(topic, &cx.account, &action) {
            return Err(refused(e, cx, &action, &topic.arn).into());
        }
    } else if OWNER_ONLY.contains(&operation) {
        let Some(arn) = text("ResourceArn") else {
            return Ok(());
        };
        if e.sns
            .topics
            .get(arn)
            .is_some_and(|t| t.account != cx.account)
        {
            return refuse(arn);
        }
    } else if let Some(arn) = text("SubscriptionArn") {
        let Some(subscription) = e.sns.subscriptions.get(arn) else {
            return Ok(());
        };
        let topic_owner = Arn::account_of(&subscription.topic_arn);
        if subscription.owner != cx.account && topic_owner != cx.account {
            return refuse(arn);
        }
    }
    Ok(())
}

/// Whether `service` (`events.amazonaws.com`), delivering for the resource `source_arn`, may
/// publish to the topic `topic_arn`: only asked with `--enforce-policies` (`enforce`) when the
/// source is of the topic's account. A topic that does not exist is left for the delivery.
pub fn delivery_allowed(
    e: &State,
    topic_arn: &str,
    service: &str,
    source_arn: &str,
    enforce: bool,
) -> bool {
    let Some(topic) = e.sns.topics.get(topic_arn) else {
        return true;
    };
    if Arn::account_of(source_arn) == topic.account && !enforce {
        return true;
    }
    let request = Request {
        principal: Principal::Service(service),
        action: "sns:Publish",
        resource: &topic.arn,
        source_arn: Some(source_arn),
    };
    policy::allows(topic.policy.as_ref(), &request)
}
