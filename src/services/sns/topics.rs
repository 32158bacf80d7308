//! Topic operations: create, delete, attributes, listing, tags, permissions, data protection.
//! Must not depend on the subscription, publish or delivery files (they import this one).

use super::access::default_policy;
use super::archive;
use super::context::parse_topic_arn;
use super::errors::{SnsError, invalid};
use super::paging::page;
use super::shapes::*;
use super::store::{Topic, beginning_of};
use crate::arn::Arn;
use crate::engine::time::{Millis, format_rfc3339};
use crate::services::{Context, SetMember};
use crate::signature::SignatureVersion;
use crate::state::State;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};

/// Topic attributes a client may set besides those with their own handling.
const PLAIN_ATTRIBUTES: [&str; 20] = [
    "DisplayName",
    "DeliveryPolicy",
    "KmsMasterKeyId",
    "TracingConfig",
    "ArchivePolicy",
    "ApplicationSuccessFeedbackRoleArn",
    "ApplicationSuccessFeedbackSampleRate",
    "ApplicationFailureFeedbackRoleArn",
    "HTTPSuccessFeedbackRoleArn",
    "HTTPSuccessFeedbackSampleRate",
    "HTTPFailureFeedbackRoleArn",
    "LambdaSuccessFeedbackRoleArn",
    "LambdaSuccessFeedbackSampleRate",
    "LambdaFailureFeedbackRoleArn",
    "SQSSuccessFeedbackRoleArn",
    "SQSSuccessFeedbackSampleRate",
    "SQSFailureFeedbackRoleArn",
    "FirehoseSuccessFeedbackRoleArn",
    "FirehoseSuccessFeedbackSampleRate",
    "FirehoseFailureFeedbackRoleArn",
];

/// AWS's key order in the JSON documents SNS returns (policies, delivery policies); keys not
/// listed follow in alphabetical order. `serde_json::Value` sorts keys, so documents are written
/// through [`ordered_json`]. Orders: docs/sns.md, "Key order", and the default topic
/// policy as AWS returns it.
const KEY_ORDER: [&str; 23] = [
    // Access policies.
    "Version",
    "Id",
    "Statement",
    "Sid",
    "Effect",
    "Principal",
    "Action",
    "Resource",
    "Condition",
    // Delivery policies.
    "http",
    "healthyRetryPolicy",
    "defaultHealthyRetryPolicy",
    "minDelayTarget",
    "maxDelayTarget",
    "numRetries",
    "numMaxDelayRetries",
    "numNoDelayRetries",
    "numMinDelayRetries",
    "backoffFunction",
    "sicklyRetryPolicy",
    "disableSubscriptionOverrides",
    "throttlePolicy",
    "defaultThrottlePolicy",
];
/// Keys that come after every other (`requestPolicy` and `guaranteed` close the documents).
const KEY_ORDER_LAST: [&str; 3] = ["requestPolicy", "defaultRequestPolicy", "guaranteed"];

/// Compact JSON with object keys in AWS's order ([`KEY_ORDER`]).
pub(crate) fn ordered_json(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let rank = |k: &str| {
                KEY_ORDER
                    .iter()
                    .position(|o| *o == k)
                    .map(|i| (0, i))
                    .or_else(|| KEY_ORDER_LAST.iter().position(|o| *o == k).map(|i| (2, i)))
                    .unwrap_or((1, 0))
            };
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), ordered_json(&map[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(ordered_json).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

fn valid_topic_name(name: &str) -> bool {
    (1..=256).contains(&name.len())
        && name
            .strip_suffix(".fifo")
            .unwrap_or(name)
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Applies one topic attribute (`creating`: CreateTopic's Attributes, else SetTopicAttributes).
fn apply_attribute(
    topic: &mut Topic,
    name: &str,
    value: &str,
    creating: bool,
    now: Millis,
) -> Result<(), SnsError> {
    let prefix = if creating { "Attributes Reason: " } else { "" };
    match name {
        "FifoTopic" if creating => {}
        "FifoTopic" => return Err(invalid("AttributeName")),
        "ContentBasedDeduplication" | "FifoThroughputScope" if !topic.fifo => {
            return Err(invalid(format!(
                "{prefix}{name}: Invalid parameter: The attribute {name} can only be set for FIFO topics"
            )));
        }
        "ContentBasedDeduplication" => match value {
            "true" | "false" => topic.content_based_dedup = value == "true",
            _ => return Err(invalid(format!("{prefix}ContentBasedDeduplication"))),
        },
        "FifoThroughputScope" => match value {
            // Kept as set too: GetTopicAttributes shows it only once it was set.
            "Topic" | "MessageGroup" => {
                topic.dedup_per_group = value == "MessageGroup";
                topic.attributes.insert(name.into(), value.into());
            }
            _ => return Err(invalid(format!("{prefix}FifoThroughputScope"))),
        },
        "SignatureVersion" => {
            topic.signature_version = SignatureVersion::parse(value)
                .ok_or_else(|| invalid(format!("{prefix}SignatureVersion")))?;
            topic.attributes.insert(name.into(), value.into());
        }
        "Policy" if value.is_empty() => topic.policy = None,
        "Policy" => {
            let doc: Value = serde_json::from_str(value)
                .map_err(|_| invalid(format!("{prefix}Policy: failed to parse JSON.")))?;
            if !doc.is_object() {
                return Err(invalid(format!("{prefix}Policy: failed to parse JSON.")));
            }
            topic.policy = Some(doc);
        }
        "DeliveryPolicy" if !value.is_empty() => {
            super::delivery_policy::parse(value, super::delivery_policy::Level::Topic)
                .map_err(|m| invalid(format!("{prefix}DeliveryPolicy: {m}")))?;
            topic.attributes.insert(name.into(), value.into());
        }
        "ArchivePolicy" if !topic.fifo && !value.is_empty() => {
            return Err(invalid(format!(
                "{prefix}{name}: Invalid parameter: The attribute {name} can only be set for FIFO topics"
            )));
        }
        "ArchivePolicy" => match archive::parse_archive_policy(value)
            .map_err(|m| invalid(format!("{prefix}{name}: {m}")))?
        {
            Some(days) => {
                archive::set_policy(&mut topic.archive, days, now);
                topic.attributes.insert(name.into(), value.into());
            }
            // `""` or `{}` stops archiving; what was archived is gone.
            None => {
                topic.archive = None;
                topic.attributes.remove(name);
            }
        },
        "TracingConfig" if !matches!(value, "PassThrough" | "Active") => {
            return Err(invalid(format!(
                "{prefix}TracingConfig: Invalid value [{value}]. Must be PassThrough or Active."
            )));
        }
        _ if PLAIN_ATTRIBUTES.contains(&name) => {
            if value.is_empty() {
                topic.attributes.remove(name);
            } else {
                topic.attributes.insert(name.into(), value.into());
            }
        }
        _ => return Err(invalid("AttributeName")),
    }
    Ok(())
}

fn check_tags(tags: &[Tag]) -> Result<(), SnsError> {
    let mut keys = std::collections::HashSet::new();
    for tag in tags {
        if tag.key.is_empty() || tag.key.chars().count() > 128 || tag.value.chars().count() > 256 {
            return Err(invalid("Tags"));
        }
        if !keys.insert(tag.key.as_str()) {
            return Err(invalid("Duplicated keys are not allowed."));
        }
    }
    Ok(())
}

/// What GetTopicAttributes would say for an attribute CreateTopic may name.
fn current_value(topic: &Topic, name: &str) -> String {
    match name {
        "FifoTopic" => topic.fifo.to_string(),
        "ContentBasedDeduplication" => topic.content_based_dedup.to_string(),
        "FifoThroughputScope" if topic.dedup_per_group => "MessageGroup".into(),
        "FifoThroughputScope" => "Topic".into(),
        "Policy" => ordered_json(
            &topic
                .policy
                .clone()
                .unwrap_or_else(|| default_policy(&topic.arn, &topic.account)),
        ),
        _ => topic.attributes.get(name).cloned().unwrap_or_default(),
    }
}

/// CreateTopic on an existing topic answers its ARN when every attribute and tag the caller
/// gives is the topic's already (omitted ones are no difference; AWS observed, LocalStack
/// `test_create_duplicate_topic_check_idempotency`, `test_create_topic_should_be_idempotent`).
fn same_topic(existing: &Topic, attributes: &Attributes, tags: &[Tag]) -> Result<(), SnsError> {
    let json = |t: &str| {
        serde_json::from_str::<Value>(t)
            .ok()
            .filter(Value::is_object)
    };
    let same = |name: &str, given: &str| {
        let current = current_value(existing, name);
        current == given
            || matches!(current.as_str(), "true" | "false") && current.eq_ignore_ascii_case(given)
            || json(&current).is_some_and(|c| json(given).is_some_and(|g| c == g))
    };
    if !attributes.iter().all(|(k, v)| same(k, v)) {
        return Err(invalid(
            "Attributes Reason: Topic already exists with different attributes",
        ));
    }
    let has = |t: &Tag| {
        existing
            .tags
            .iter()
            .any(|(k, v)| *k == t.key && *v == t.value)
    };
    if !tags.iter().all(has) {
        return Err(invalid(
            "Tags Reason: Topic already exists with different tags",
        ));
    }
    Ok(())
}

pub(super) fn create_topic(
    e: &mut State,
    cx: &Context,
    input: CreateTopicInput,
) -> Result<TopicArnOutput, SnsError> {
    let name = input.name;
    let fifo = match input.attributes.get("FifoTopic").map(String::as_str) {
        Some("true") => true,
        Some("false") | None => false,
        Some(_) => return Err(invalid("Attributes Reason: FifoTopic")),
    };
    if !valid_topic_name(&name) || name.ends_with(".fifo") != fifo {
        return Err(invalid("Topic Name"));
    }
    check_tags(&input.tags)?;
    let arn = Arn::new("sns", &cx.region, &cx.account, &name).text();
    let mut topic = Topic {
        arn: arn.clone(),
        name,
        account: cx.account.clone(),
        region: cx.region.clone(),
        created_at: e.now(),
        fifo,
        content_based_dedup: false,
        dedup_per_group: false,
        signature_version: SignatureVersion::V1,
        policy: None,
        attributes: BTreeMap::new(),
        tags: input
            .tags
            .iter()
            .map(|t| (t.key.clone(), t.value.clone()))
            .collect(),
        data_protection_policy: input.data_protection_policy,
        subscriptions_deleted: 0,
        dedup: HashMap::new(),
        next_sequence_number: 10_000_000_000_000_000_000,
        archive: None,
    };
    for (k, v) in &input.attributes {
        apply_attribute(&mut topic, k, v, true, e.now())?;
    }
    if let Some(existing) = e.sns.topics.get(&arn) {
        same_topic(existing, &input.attributes, &input.tags)?;
        return Ok(TopicArnOutput { topic_arn: arn });
    }
    // SNS's default quotas: 100,000 standard and 1,000 FIFO topics per account.
    let (quota, fifo) = if topic.fifo {
        (1_000, true)
    } else {
        (100_000, false)
    };
    let owned = e
        .sns
        .topics
        .values()
        .filter(|t| t.account == cx.account && t.fifo == fifo)
        .count();
    if owned >= quota {
        return Err(SnsError::TopicLimitExceeded("Topic limit exceeded".into()));
    }
    e.sns.topics.insert(arn.clone(), topic);
    Ok(TopicArnOutput { topic_arn: arn })
}

/// The topic an ARN names, in the caller's region.
pub(crate) fn topic_mut<'e>(
    e: &'e mut State,
    cx: &Context,
    arn: &str,
) -> Result<&'e mut Topic, SnsError> {
    topic_named(e, cx, arn, "TopicArn")
}

/// The topic `arn` names as the request's `member`, in the caller's region; `NotFound` when
/// there is none. The data protection calls name it as `ResourceArn` and answer `NotFound`,
/// not the tagging operations' `ResourceNotFound` (SNS API model: their error lists).
fn topic_named<'e>(
    e: &'e mut State,
    cx: &Context,
    arn: &str,
    member: &str,
) -> Result<&'e mut Topic, SnsError> {
    parse_topic_arn(cx, arn, member)?;
    e.sns.topics.get_mut(arn).ok_or_else(no_topic)
}

/// As [`topic_mut`], to read.
fn topic_ref<'e>(e: &'e State, cx: &Context, arn: &str) -> Result<&'e Topic, SnsError> {
    parse_topic_arn(cx, arn, "TopicArn")?;
    e.sns.topics.get(arn).ok_or_else(no_topic)
}

fn no_topic() -> SnsError {
    SnsError::NotFound("Topic does not exist".into())
}

pub(super) fn delete_topic(
    e: &mut State,
    cx: &Context,
    input: TopicArnInput,
) -> Result<Empty, SnsError> {
    parse_topic_arn(cx, &input.topic_arn, "TopicArn")?;
    // Deleting a topic that does not exist succeeds, as in SNS.
    if e.sns.topics.remove(&input.topic_arn).is_some() {
        e.sns
            .subscriptions
            .retain(|_, s| s.topic_arn != input.topic_arn);
        e.sns.routes.remove(&input.topic_arn);
        e.sns
            .unsubscribed
            .retain(|_, s| s.topic_arn != input.topic_arn);
    }
    Ok(Empty {})
}

pub(super) fn get_topic_attributes(
    e: &mut State,
    cx: &Context,
    input: TopicArnInput,
) -> Result<AttributesOutput, SnsError> {
    let now = e.now();
    let topic = topic_ref(e, cx, &input.topic_arn)?;
    let (confirmed, pending) = e
        .sns
        .subscriptions_of(&topic.arn)
        .fold(
            (0, 0),
            |(c, p), s| {
                if s.confirmed { (c + 1, p) } else { (c, p + 1) }
            },
        );
    let mut attributes: Attributes = topic.attributes.clone();
    attributes.insert("TopicArn".into(), topic.arn.clone());
    attributes.insert("Owner".into(), topic.account.clone());
    let policy = topic
        .policy
        .clone()
        .unwrap_or_else(|| default_policy(&topic.arn, &topic.account));
    attributes.insert("Policy".into(), ordered_json(&policy));
    attributes.entry("DisplayName".into()).or_default();
    attributes.insert("SubscriptionsConfirmed".into(), confirmed.to_string());
    attributes.insert("SubscriptionsPending".into(), pending.to_string());
    attributes.insert(
        "SubscriptionsDeleted".into(),
        topic.subscriptions_deleted.to_string(),
    );
    attributes.insert(
        "EffectiveDeliveryPolicy".into(),
        effective_delivery_policy(topic),
    );
    if topic.fifo {
        attributes.insert("FifoTopic".into(), "true".into());
        attributes.insert(
            "ContentBasedDeduplication".into(),
            topic.content_based_dedup.to_string(),
        );
    }
    if let Some(beginning) = beginning_of(topic, now) {
        attributes.insert("BeginningArchiveTime".into(), format_rfc3339(beginning));
    }
    Ok(AttributesOutput { attributes })
}

/// The topic's HTTP/S delivery policy with system defaults filled in (the policy in force when
/// the topic sets none).
pub(crate) fn effective_delivery_policy(topic: &Topic) -> String {
    let mut retry = json!({
        "minDelayTarget": 20,
        "maxDelayTarget": 20,
        "numRetries": 3,
        "numMaxDelayRetries": 0,
        "numNoDelayRetries": 0,
        "numMinDelayRetries": 0,
        "backoffFunction": "linear",
    });
    let mut target = json!({
        "disableSubscriptionOverrides": false,
        "defaultRequestPolicy": {"headerContentType": "text/plain; charset=UTF-8"},
    });
    let set = topic
        .attributes
        .get("DeliveryPolicy")
        .and_then(|p| serde_json::from_str::<Value>(p).ok());
    if let Some(http) = set.as_ref().and_then(|p| p.get("http")) {
        if let Some(given) = http
            .get("defaultHealthyRetryPolicy")
            .and_then(Value::as_object)
        {
            for (k, v) in given {
                retry.set(k, v.clone());
            }
        }
        for key in ["disableSubscriptionOverrides", "defaultThrottlePolicy"] {
            if let Some(v) = http.get(key).filter(|v| !v.is_null()) {
                target.set(key, v.clone());
            }
        }
        if let Some(v) = http.get("defaultRequestPolicy").filter(|v| !v.is_null()) {
            target.set("defaultRequestPolicy", v.clone());
        }
    }
    // The keys are written in SNS's order whatever their order here (`ordered_json`).
    target.set("defaultHealthyRetryPolicy", retry);
    ordered_json(&json!({ "http": target }))
}

pub(super) fn set_topic_attributes(
    e: &mut State,
    cx: &Context,
    input: SetTopicAttributesInput,
) -> Result<Empty, SnsError> {
    let now = e.now();
    let topic = topic_mut(e, cx, &input.topic_arn)?;
    apply_attribute(
        topic,
        &input.attribute_name,
        input.attribute_value.as_deref().unwrap_or(""),
        false,
        now,
    )?;
    Ok(Empty {})
}

pub(super) fn list_topics(
    e: &mut State,
    cx: &Context,
    input: NextTokenInput,
) -> Result<ListTopicsOutput, SnsError> {
    let mine = e
        .sns
        .topics
        .iter()
        .filter(|(_, t)| cx.owns(&t.account, &t.region));
    let (topics, next_token) = page(
        mine.map(|(k, t)| {
            (
                k,
                TopicEntry {
                    topic_arn: t.arn.clone(),
                },
            )
        }),
        input.next_token.as_deref(),
    )?;
    Ok(ListTopicsOutput { topics, next_token })
}

fn tagged_topic<'e>(e: &'e mut State, cx: &Context, arn: &str) -> Result<&'e mut Topic, SnsError> {
    parse_topic_arn(cx, arn, "ResourceArn")?;
    e.sns
        .topics
        .get_mut(arn)
        .ok_or_else(|| SnsError::ResourceNotFound("Resource does not exist".into()))
}

pub(super) fn tag_resource(
    e: &mut State,
    cx: &Context,
    input: TagResourceInput,
) -> Result<Empty, SnsError> {
    check_tags(&input.tags)?;
    let topic = tagged_topic(e, cx, &input.resource_arn)?;
    let mut tags: BTreeMap<String, String> = topic.tags.iter().cloned().collect();
    for tag in input.tags {
        tags.insert(tag.key, tag.value);
    }
    if tags.len() > 50 {
        return Err(SnsError::TagLimitExceeded(
            "Could not complete request: tag quota of per resource exceeded".into(),
        ));
    }
    topic.tags = tags.into_iter().collect();
    Ok(Empty {})
}

pub(super) fn untag_resource(
    e: &mut State,
    cx: &Context,
    input: UntagResourceInput,
) -> Result<Empty, SnsError> {
    let topic = tagged_topic(e, cx, &input.resource_arn)?;
    topic.tags.retain(|(k, _)| !input.tag_keys.contains(k));
    Ok(Empty {})
}

pub(super) fn list_tags_for_resource(
    e: &mut State,
    cx: &Context,
    input: ResourceArnInput,
) -> Result<TagsOutput, SnsError> {
    let topic = tagged_topic(e, cx, &input.resource_arn)?;
    let tags = topic
        .tags
        .iter()
        .map(|(key, value)| Tag {
            key: key.clone(),
            value: value.clone(),
        })
        .collect();
    Ok(TagsOutput { tags })
}

const ACTIONS: [&str; 9] = [
    "Publish",
    "Subscribe",
    "Receive",
    "GetTopicAttributes",
    "SetTopicAttributes",
    "AddPermission",
    "RemovePermission",
    "DeleteTopic",
    "ListSubscriptionsByTopic",
];

pub(super) fn add_permission(
    e: &mut State,
    cx: &Context,
    input: AddPermissionInput,
) -> Result<Empty, SnsError> {
    let topic = topic_mut(e, cx, &input.topic_arn)?;
    if input
        .action_name
        .iter()
        .any(|a| !ACTIONS.contains(&a.as_str()) && a != "*")
    {
        return Err(invalid("Policy statement action out of service scope!"));
    }
    let mut policy = topic
        .policy
        .clone()
        .unwrap_or_else(|| default_policy(&topic.arn, &topic.account));
    let statements = policy
        .get_mut("Statement")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| invalid("Policy"))?;
    if statements.iter().any(|s| s["Sid"] == input.label.as_str()) {
        return Err(invalid("Statement already exists"));
    }
    let principals: Vec<String> = input.aws_account_id.iter().map(|a| Arn::root(a)).collect();
    let actions: Vec<String> = input
        .action_name
        .iter()
        .map(|a| format!("SNS:{a}"))
        .collect();
    let one_or_many = |v: Vec<String>| match v.as_slice() {
        [one] => json!(one),
        _ => json!(v),
    };
    statements.push(json!({
        "Sid": input.label,
        "Effect": "Allow",
        "Principal": {"AWS": one_or_many(principals)},
        "Action": one_or_many(actions),
        "Resource": topic.arn,
    }));
    topic.policy = Some(policy);
    Ok(Empty {})
}

pub(super) fn remove_permission(
    e: &mut State,
    cx: &Context,
    input: RemovePermissionInput,
) -> Result<Empty, SnsError> {
    let topic = topic_mut(e, cx, &input.topic_arn)?;
    let mut policy = topic
        .policy
        .clone()
        .unwrap_or_else(|| default_policy(&topic.arn, &topic.account));
    if let Some(statements) = policy.get_mut("Statement").and_then(Value::as_array_mut) {
        statements.retain(|s| s["Sid"] != input.label.as_str());
    }
    topic.policy = Some(policy);
    Ok(Empty {})
}

pub(super) fn get_data_protection_policy(
    e: &mut State,
    cx: &Context,
    input: ResourceArnInput,
) -> Result<DataProtectionPolicyOutput, SnsError> {
    let topic = topic_named(e, cx, &input.resource_arn, "ResourceArn")?;
    Ok(DataProtectionPolicyOutput {
        data_protection_policy: topic.data_protection_policy.clone(),
    })
}

pub(super) fn put_data_protection_policy(
    e: &mut State,
    cx: &Context,
    input: PutDataProtectionPolicyInput,
) -> Result<Empty, SnsError> {
    let topic = topic_named(e, cx, &input.resource_arn, "ResourceArn")?;
    if !input.data_protection_policy.is_empty() {
        let doc: Value = serde_json::from_str(&input.data_protection_policy)
            .map_err(|_| invalid("DataProtectionPolicy: failed to parse JSON."))?;
        if !doc.is_object() {
            return Err(invalid("DataProtectionPolicy: failed to parse JSON."));
        }
    }
    topic.data_protection_policy =
        (!input.data_protection_policy.is_empty()).then_some(input.data_protection_policy);
    Ok(Empty {})
}
