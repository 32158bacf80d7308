//! Publish and PublishBatch, the fan-out to every subscription through the engine's delivery
//! path, and the confirmation messages subscriptions are sent.

use super::archive::ArchivedMessage;
use super::context::{base_url, parse_topic_arn, signing_cert_url};
use super::delivery_policy::{self, Effective, Level, Schedule};
use super::envelope::{self, ConfirmationFields, NotificationFields};
use super::errors::{SnsError, invalid};
use super::filter::FilterScope;
use super::shapes::*;
use super::signing::SIGNER;
use super::store::Subscription;
use super::topics::allows;
use crate::arn::Arn;
use crate::engine::delivery::{
    Counters, DeadLetter, Delivery, Failure, Publisher, SqsMessage, Target,
};
use crate::engine::log::DeliveryRecord;
use crate::engine::time::format_rfc3339;
use crate::error::AwsError;
use crate::services::Context;
use crate::services::sqs::shapes::MessageAttributeValue as SqsAttribute;
use crate::state::{State, Step};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashSet};

/// Largest message, attributes included (256 KiB).
const MAX_MESSAGE_BYTES: usize = 262_144;
/// How long a FIFO deduplication id is remembered.
const DEDUP_INTERVAL_MS: i64 = 5 * 60 * 1000;

fn value_invalid(message: String) -> SnsError {
    SnsError::ParameterValueInvalid(message)
}

/// Checks message attributes as SNS does; answers the bytes they count toward the size limit.
fn check_attributes(
    attributes: &BTreeMap<String, MessageAttributeValue>,
) -> Result<usize, SnsError> {
    let mut size = 0;
    for (name, value) in attributes {
        if name.len() >= 256 {
            return Err(value_invalid(
                "Length of message attribute name must be less than 256 bytes.".into(),
            ));
        }
        if let Some(c) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || "_-.".contains(*c)))
        {
            return Err(value_invalid(format!(
                "Invalid non-alphanumeric character '#x{:X}' was found in the message attribute name. Can only include \
                 alphanumeric characters, hyphens, underscores, or dots.",
                c as u32
            )));
        }
        if name.starts_with('.') {
            return Err(value_invalid(
                "Invalid message attribute name starting with character '.' was found.".into(),
            ));
        }
        if name.ends_with('.') {
            return Err(value_invalid(
                "Invalid message attribute name ending with character '.' was found.".into(),
            ));
        }
        if name.contains("..") {
            return Err(value_invalid(
                "Message attribute name can not have successive '.' character.".into(),
            ));
        }
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("aws.") || lower.starts_with("amazon.") {
            return Err(value_invalid(format!(
                "The message attribute name '{name}' is reserved."
            )));
        }
        if value.data_type.is_empty() {
            return Err(SnsError::ValidationError(format!(
                "1 validation error detected: Value null at 'messageAttributes.{name}.member.dataType' failed to satisfy \
                 constraint: Member must not be null"
            )));
        }
        let (base, label) = match value.data_type.split_once('.') {
            Some((base, label)) => (base, Some(label)),
            None => (value.data_type.as_str(), None),
        };
        let kind = match (base, label) {
            ("String", Some("Array")) => "String.Array",
            (_, Some("")) => "",
            ("String", _) => "String",
            ("Number", _) => "Number",
            ("Binary", _) => "Binary",
            _ => "",
        };
        let empty = || {
            value_invalid(format!(
                "The message attribute '{name}' must contain non-empty message attribute value for message attribute type '{base}'."
            ))
        };
        match kind {
            "String" | "String.Array" | "Number" => {
                if value.binary_value.is_some() && value.string_value.is_none() {
                    return Err(value_invalid(format!(
                        "The message attribute '{name}' with type '{base}' must use field 'String'."
                    )));
                }
                let text = value
                    .string_value
                    .as_deref()
                    .filter(|s| !s.is_empty())
                    .ok_or_else(empty)?;
                if kind == "Number" && text.trim().parse::<f64>().map_or(true, |n| !n.is_finite()) {
                    return Err(value_invalid(format!(
                        "Could not cast message attribute '{name}' value to number."
                    )));
                }
                if kind == "String.Array"
                    && !serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_array())
                {
                    return Err(value_invalid(format!(
                        "The message attribute '{name}' with type 'String.Array' has an invalid value."
                    )));
                }
                size += text.len();
            }
            "Binary" => {
                if value.string_value.is_some() && value.binary_value.is_none() {
                    return Err(value_invalid(format!(
                        "The message attribute '{name}' with type 'Binary' must use field 'Binary'."
                    )));
                }
                // The decoded bytes count toward the limit.
                let encoded = value
                    .binary_value
                    .as_deref()
                    .filter(|b| !b.is_empty())
                    .ok_or_else(empty)?;
                size += decoded_len(encoded);
            }
            _ => {
                return Err(value_invalid(format!(
                    "The message attribute '{name}' has an invalid message attribute type, the set of supported type \
                     prefixes is Binary, Number, and String."
                )));
            }
        }
        size += name.len() + value.data_type.len();
    }
    Ok(size)
}

/// The bytes a Base64 text decodes to.
fn decoded_len(encoded: &str) -> usize {
    let padding = encoded.bytes().rev().take_while(|b| *b == b'=').count();
    (encoded.len() / 4 * 3).saturating_sub(padding)
}

/// One message as published, checked.
struct Message<'a> {
    id: String,
    text: &'a str,
    subject: Option<&'a str>,
    /// `MessageStructure=json`: the per-protocol messages.
    structure: Option<Map<String, Value>>,
    attributes: &'a BTreeMap<String, MessageAttributeValue>,
    group_id: Option<&'a str>,
    dedup_id: Option<String>,
    sequence_number: Option<u128>,
    timestamp: String,
    /// Delivered again from the topic's archive by a replay.
    replayed: bool,
}

impl Message<'_> {
    /// The text a protocol gets: its own entry of a JSON structure, else `default`.
    fn text_for(&self, key: &str) -> String {
        match &self.structure {
            Some(map) => map
                .get(key)
                .and_then(Value::as_str)
                .or_else(|| map["default"].as_str())
                .unwrap_or_default()
                .to_string(),
            None => self.text.to_string(),
        }
    }

    /// name → (DataType, value as text) for envelopes and filter policies.
    fn attribute_pairs(&self) -> BTreeMap<String, (String, String)> {
        self.attributes
            .iter()
            .map(|(k, v)| {
                let value = v
                    .string_value
                    .clone()
                    .or_else(|| v.binary_value.clone())
                    .unwrap_or_default();
                (k.clone(), (v.data_type.clone(), value))
            })
            .collect()
    }
}

/// A checked message's JSON structure (if any) and deduplication id (FIFO).
type Checked = (Option<Map<String, Value>>, Option<String>);

fn check_common<'a>(
    fields: &'a PublishBatchEntryRef<'a>,
    fifo: bool,
    content_based: bool,
) -> Result<Checked, SnsError> {
    if fields.message.is_empty() {
        return Err(invalid("Empty message"));
    }
    let bad_subject =
        |s: &str| s.is_empty() || s.chars().count() >= 100 || s.chars().any(char::is_control);
    if fields.subject.is_some_and(bad_subject) {
        return Err(invalid("Subject"));
    }
    let size = fields.message.len() + check_attributes(fields.attributes)?;
    if size > MAX_MESSAGE_BYTES {
        return Err(invalid("Message too long"));
    }
    let structure = match fields.structure {
        None => None,
        Some("json") => {
            let parsed: Value = serde_json::from_str(fields.message)
                .map_err(|_| invalid("Message Structure - JSON message body failed to parse"))?;
            let map = parsed
                .as_object()
                .cloned()
                .ok_or_else(|| invalid("Message Structure - JSON message body failed to parse"))?;
            if !map.get("default").is_some_and(Value::is_string) {
                return Err(invalid(
                    "Message Structure - No default entry in JSON message body",
                ));
            }
            Some(map)
        }
        Some(other) => {
            return Err(invalid(format!(
                "MessageStructure Reason: Invalid value [{other}]. Must be json."
            )));
        }
    };
    let valid_token = |t: &str| {
        (1..=128).contains(&t.len())
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b.is_ascii_punctuation())
    };
    if let Some(group) = fields.group_id.filter(|g| !valid_token(g)) {
        return Err(invalid(format!(
            "MessageGroupId Reason: {group} is not a valid message group id."
        )));
    }
    let dedup_id = if fifo {
        if fields.group_id.is_none() {
            return Err(invalid(
                "The MessageGroupId parameter is required for FIFO topics",
            ));
        }
        match fields.dedup_id {
            Some(d) if !valid_token(d) => return Err(invalid("MessageDeduplicationId")),
            Some(d) => Some(d.to_string()),
            None if content_based => {
                Some(crate::services::sqs::sha256_hex(fields.message.as_bytes()))
            }
            None => {
                return Err(invalid(
                    "The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
                ));
            }
        }
    } else if fields.dedup_id.is_some() {
        return Err(invalid(
            "MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type",
        ));
    } else {
        None
    };
    Ok((structure, dedup_id))
}

/// The fields Publish and a PublishBatch entry share.
struct PublishBatchEntryRef<'a> {
    message: &'a str,
    subject: Option<&'a str>,
    structure: Option<&'a str>,
    attributes: &'a BTreeMap<String, MessageAttributeValue>,
    group_id: Option<&'a str>,
    dedup_id: Option<&'a str>,
}

/// Publishes one message to a topic: checks, FIFO deduplication, fan-out.
fn publish_to_topic(
    e: &mut State,
    cx: &Context,
    topic_arn: &str,
    fields: &PublishBatchEntryRef,
    prepared: Option<Prepared>,
) -> Result<PublishOutput, SnsError> {
    let now = e.now();
    let topic = super::topics::topic_mut(e, cx, topic_arn)?;
    if !allows(topic, &cx.account, "SNS:Publish") {
        return Err(SnsError::AuthorizationError(format!(
            "User: {} is not authorized to perform: SNS:Publish on resource: {}",
            Arn::root(&cx.account),
            topic.arn
        )));
    }
    let (structure, dedup_id) = check_common(fields, topic.fifo, topic.content_based_dedup)?;
    let mut sequence_number = None;
    if topic.fifo {
        let key = (
            topic
                .dedup_per_group
                .then(|| fields.group_id.unwrap_or_default().to_string()),
            dedup_id.clone().unwrap_or_default(),
        );
        if topic.dedup.len() > 1024 {
            topic.dedup.retain(|_, (until, _, _)| *until > now);
        }
        let duplicate = topic
            .dedup
            .get(&key)
            .filter(|(until, _, _)| *until > now)
            .map(|(_, id, seq)| (id.clone(), *seq));
        if let Some((id, seq)) = duplicate {
            // A duplicate inside the interval: accepted, not delivered again.
            log_duplicate(e, topic_arn, &id);
            return Ok(PublishOutput {
                message_id: id,
                sequence_number: Some(seq.to_string()),
            });
        }
        topic.next_sequence_number += 1 + u128::from(now as u64 % 5);
        sequence_number = Some(topic.next_sequence_number);
        let id = e.engine.rng.uuid();
        let topic = super::topics::topic_mut(e, cx, topic_arn)?;
        topic.dedup.insert(
            key,
            (
                now + DEDUP_INTERVAL_MS,
                id.clone(),
                topic.next_sequence_number,
            ),
        );
        if let Some(archive) = topic.archive.as_mut() {
            archive.record(
                ArchivedMessage {
                    id: id.clone(),
                    text: fields.message.to_string(),
                    subject: fields.subject.map(str::to_string),
                    structure: structure.clone(),
                    attributes: fields.attributes.clone(),
                    group_id: fields.group_id.unwrap_or_default().to_string(),
                    dedup_id: dedup_id.clone(),
                    sequence_number: topic.next_sequence_number,
                    published_at: now,
                },
                now,
            );
        }
        return fan_out(
            e,
            cx,
            topic_arn,
            fields,
            id,
            structure,
            dedup_id,
            sequence_number,
            None,
        );
    }
    let (id, timestamp) = match prepared {
        Some(p) => (p.id, Some(p.timestamp)),
        None => (e.engine.rng.uuid(), None),
    };
    fan_out(
        e,
        cx,
        topic_arn,
        fields,
        id,
        structure,
        dedup_id,
        sequence_number,
        timestamp,
    )
}

/// What Publish settles before it takes the engine's lock for the fan-out: the message id and
/// timestamp, so that the notification's signature is made outside the lock (RSA signing costs
/// milliseconds; under the lock it would hold up every other request).
#[derive(Debug)]
pub struct Prepared {
    pub id: String,
    pub timestamp: String,
}

/// Settles the id and timestamp of a plain (not FIFO, no JSON structure) publish to an existing
/// topic, and what to sign for its notification: the runtime signs it off the lock (with
/// [`sign_ahead`]), and the fan-out then finds the signature made.
pub fn prepare(e: &mut State, input: &PublishInput) -> Option<(Prepared, SignAhead)> {
    let arn = input.topic_arn.clone()?;
    if input.message_structure.is_some()
        || input.target_arn.is_some()
        || input.phone_number.is_some()
    {
        return None;
    }
    let topic = e.sns.topics.get(&arn).filter(|t| !t.fifo)?;
    let version = topic.signature_version;
    let (id, timestamp) = (e.engine.rng.uuid(), format_rfc3339(e.now()));
    let text = super::signing::string_to_sign(&[
        ("Message", Some(&input.message)),
        ("MessageId", Some(&id)),
        ("Subject", input.subject.as_deref()),
        ("Timestamp", Some(&timestamp)),
        ("TopicArn", Some(&arn)),
        ("Type", Some("Notification")),
    ]);
    Some((Prepared { id, timestamp }, SignAhead { version, text }))
}

/// A notification's signature to make ahead of its publish (see [`prepare`]).
#[derive(Debug)]
pub struct SignAhead {
    version: super::signing::SignatureVersion,
    text: String,
}

/// Signs ahead (a few milliseconds of RSA: off the lock); the signer keeps the signature.
pub fn sign_ahead(s: SignAhead) {
    let _ = SIGNER.sign(s.version, &s.text);
}

/// A duplicate suppressed at publish: one `deduplicated` record per subscription that would
/// have received it (CONTROL_API.md, delivery log).
fn log_duplicate(e: &mut State, topic_arn: &str, message_id: &str) {
    let now = e.now();
    let subscriptions: Vec<(String, String, String)> = e
        .sns
        .subscriptions_of(topic_arn)
        .filter(|s| s.confirmed)
        .map(|s| (s.arn.clone(), s.endpoint.clone(), s.protocol.clone()))
        .collect();
    for (source, target, protocol) in subscriptions {
        e.engine.metrics.delivery("sns", "deduplicated", "");
        e.engine.log.push(DeliveryRecord {
            at: now,
            event: "deduplicated",
            source,
            target,
            protocol,
            message_id: message_id.to_string(),
            attempt: 0,
            phase: "initial",
            delay_seconds: 0.0,
            outcome: None,
            status: None,
            error_code: None,
            next_attempt_at: None,
        });
    }
}

#[allow(clippy::too_many_arguments)]
fn fan_out(
    e: &mut State,
    cx: &Context,
    topic_arn: &str,
    fields: &PublishBatchEntryRef,
    id: String,
    structure: Option<Map<String, Value>>,
    dedup_id: Option<String>,
    sequence_number: Option<u128>,
    timestamp: Option<String>,
) -> Result<PublishOutput, SnsError> {
    let message = Message {
        id: id.clone(),
        text: fields.message,
        subject: fields.subject,
        structure,
        attributes: fields.attributes,
        group_id: fields.group_id,
        dedup_id,
        sequence_number,
        timestamp: timestamp.unwrap_or_else(|| format_rfc3339(e.now())),
        replayed: false,
    };
    e.engine
        .metrics
        .aws("AWS/SNS", "NumberOfMessagesPublished", topic_arn, 1);
    let now = e.now();
    let arns: Vec<String> = e
        .sns
        .subscriptions_of(topic_arn)
        .filter(|s| s.confirmed)
        .filter(|s| s.replay.as_ref().is_none_or(|r| r.takes_live(now)))
        .map(|s| s.arn.clone())
        .collect();
    for arn in arns {
        let delivery = {
            let sub = &e.sns.subscriptions[&arn];
            if !passes_filter(sub, &message) {
                e.engine
                    .metrics
                    .aws("AWS/SNS", "NumberOfNotificationsFilteredOut", topic_arn, 1);
                continue;
            }
            let topic = &e.sns.topics[topic_arn];
            delivery_for(
                cx,
                topic,
                sub,
                &message,
                e.lambda_endpoints.get(&sub.endpoint),
            )
        };
        e.deliver(delivery);
    }
    Ok(PublishOutput {
        message_id: id,
        sequence_number: sequence_number.map(|n| n.to_string()),
    })
}

/// Delivers one archived message to one subscription (a replay): the original MessageId,
/// SequenceNumber, Timestamp and FIFO ids, through the subscription's filter policy. Answers
/// whether it was handed to the engine.
pub(super) fn deliver_archived(
    e: &mut State,
    cx: &Context,
    topic_arn: &str,
    sub_arn: &str,
    archived: &ArchivedMessage,
) -> bool {
    let message = Message {
        id: archived.id.clone(),
        text: &archived.text,
        subject: archived.subject.as_deref(),
        structure: archived.structure.clone(),
        attributes: &archived.attributes,
        group_id: Some(&archived.group_id),
        dedup_id: archived.dedup_id.clone(),
        sequence_number: Some(archived.sequence_number),
        timestamp: format_rfc3339(archived.published_at),
        replayed: true,
    };
    let delivery = {
        let (Some(topic), Some(sub)) = (
            e.sns.topics.get(topic_arn),
            e.sns.subscriptions.get(sub_arn),
        ) else {
            return false;
        };
        if !passes_filter(sub, &message) {
            return false;
        }
        delivery_for(
            cx,
            topic,
            sub,
            &message,
            e.lambda_endpoints.get(&sub.endpoint),
        )
    };
    e.deliver(delivery);
    true
}

fn passes_filter(sub: &Subscription, message: &Message) -> bool {
    let Some((policy, _)) = &sub.filter else {
        return true;
    };
    match sub.filter_scope {
        FilterScope::MessageAttributes => policy.matches_attributes(&message.attribute_pairs()),
        FilterScope::MessageBody => {
            let text = message.text_for(&sub.protocol);
            serde_json::from_str::<Value>(&text).is_ok_and(|body| policy.matches_body(&body))
        }
    }
}

/// The JSON notification every non-raw subscription gets (HTTP/S, SQS, email-json, Firehose).
fn notification(
    cx: &Context,
    topic: &super::store::Topic,
    sub: &Subscription,
    message: &Message,
) -> String {
    let text = message.text_for(&sub.protocol);
    let sequence = message.sequence_number.map(|n| n.to_string());
    let unsubscribe_url = unsubscribe_url(cx, &sub.arn);
    let attributes = message.attribute_pairs();
    let envelope = envelope::notification(
        &SIGNER,
        topic.signature_version,
        &NotificationFields {
            message_id: &message.id,
            topic_arn: &topic.arn,
            subject: message.subject,
            message: &text,
            timestamp: &message.timestamp,
            sequence_number: sequence.as_deref(),
            unsubscribe_url: &unsubscribe_url,
            signing_cert_url: &signing_cert_url(cx),
            message_attributes: &attributes,
        },
    );
    match envelope.strip_suffix('}') {
        // A replayed message "contains the attribute Replayed, to help you identify that it's a
        // replayed message" (AWS subscriber page). FIFO envelopes are unsigned (spec §5.3), so
        // the field closes the document without touching a signature.
        Some(open) if message.replayed => format!(r#"{open},"Replayed":true}}"#),
        _ => envelope,
    }
}

/// AWS writes the ARN into the URL as it is, colons included (spec §4.2 URL formats).
fn unsubscribe_url(cx: &Context, sub_arn: &str) -> String {
    format!(
        "{}/?Action=Unsubscribe&SubscriptionArn={sub_arn}",
        base_url(cx)
    )
}

/// SNS message attributes as SQS message attributes (raw delivery).
fn sqs_attributes(
    attributes: &BTreeMap<String, MessageAttributeValue>,
) -> BTreeMap<String, SqsAttribute> {
    attributes
        .iter()
        .map(|(k, v)| {
            let value = SqsAttribute {
                data_type: v.data_type.clone(),
                string_value: v.string_value.clone(),
                binary_value: v.binary_value.clone(),
            };
            (k.clone(), value)
        })
        .collect()
}

/// What the subscription would put on an SQS queue (its own queue, or its dead-letter queue).
fn sqs_message(
    cx: &Context,
    topic: &super::store::Topic,
    sub: &Subscription,
    message: &Message,
    to_fifo: bool,
) -> SqsMessage {
    let (body, attributes) = if sub.raw {
        // Message attributes go along only with a String message structure, not JSON
        // (spec §5.2).
        let attributes = match message.structure {
            None => sqs_attributes(message.attributes),
            Some(_) => BTreeMap::new(),
        };
        (message.text_for(&sub.protocol), attributes)
    } else {
        (notification(cx, topic, sub, message), BTreeMap::new())
    };
    let fifo = topic.fifo && to_fifo;
    SqsMessage {
        body,
        attributes,
        // FIFO topic to FIFO queue keeps the group and deduplication ids; a standard topic passes
        // the group id to standard queues (fair queues).
        group_id: if fifo || (!topic.fifo && !to_fifo) {
            message.group_id.map(str::to_string)
        } else {
            None
        },
        dedup_id: if fifo { message.dedup_id.clone() } else { None },
    }
}

/// The HTTP/S delivery policy in force for a subscription: its own over the topic's over the
/// system defaults (policies were validated when set).
pub(crate) fn effective_policy(topic: &super::store::Topic, sub: &Subscription) -> Effective {
    let parsed = |text: Option<&String>, level| {
        text.and_then(|p| delivery_policy::parse(p, level).ok())
            .unwrap_or_default()
    };
    let topic_policy = parsed(topic.attributes.get("DeliveryPolicy"), Level::Topic);
    let own = parsed(sub.attributes.get("DeliveryPolicy"), Level::Subscription);
    delivery_policy::effective(&topic_policy, &own)
}

fn delivery_for(
    cx: &Context,
    topic: &super::store::Topic,
    sub: &Subscription,
    message: &Message,
    lambda_url: Option<&String>,
) -> Delivery<Step> {
    let http = effective_policy(topic, sub);
    let http_headers = |kind: &str, raw: bool| {
        let mut headers = vec![
            ("x-amz-sns-message-type".to_string(), kind.to_string()),
            ("x-amz-sns-message-id".to_string(), message.id.clone()),
            ("x-amz-sns-topic-arn".to_string(), topic.arn.clone()),
            ("x-amz-sns-subscription-arn".to_string(), sub.arn.clone()),
            ("Content-Type".to_string(), http.content_type.clone()),
            (
                "User-Agent".to_string(),
                "Amazon Simple Notification Service Agent".to_string(),
            ),
        ];
        if raw {
            headers.push(("x-amz-sns-rawdelivery".to_string(), "true".to_string()));
        }
        headers
    };
    let mut outbox_attributes = BTreeMap::new();
    if let Some(subject) = message.subject {
        outbox_attributes.insert("Subject".to_string(), json!(subject));
    }
    let target = match sub.protocol.as_str() {
        "sqs" => Target::Sqs {
            queue_arn: sub.endpoint.clone(),
            message: sqs_message(cx, topic, sub, message, sub.endpoint.ends_with(".fifo")),
        },
        "http" | "https" => {
            let body = if sub.raw {
                message.text_for(&sub.protocol)
            } else {
                notification(cx, topic, sub, message)
            };
            Target::Http {
                method: "POST".into(),
                url: sub.endpoint.clone(),
                headers: http_headers("Notification", sub.raw),
                body,
            }
        }
        "email-json" => Target::Outbox {
            address: sub.endpoint.clone(),
            body: notification(cx, topic, sub, message),
            attributes: outbox_attributes,
        },
        "firehose" if !sub.raw => Target::Outbox {
            address: sub.endpoint.clone(),
            body: notification(cx, topic, sub, message),
            attributes: outbox_attributes,
        },
        // A function mapped to a local invoke URL (--lambda-endpoint) gets a real POST.
        "lambda" => match lambda_url {
            Some(url) => Target::Http {
                method: "POST".into(),
                url: url.clone(),
                headers: vec![("Content-Type".to_string(), "application/json".to_string())],
                body: lambda_event(cx, topic, sub, message),
            },
            None => Target::Outbox {
                address: sub.endpoint.clone(),
                body: lambda_event(cx, topic, sub, message),
                attributes: outbox_attributes,
            },
        },
        "application" => {
            // A platform endpoint ARN names its platform: .../endpoint/<PLATFORM>/<app>/<id>.
            let platform = sub.endpoint.split('/').nth(1).unwrap_or("default");
            Target::Outbox {
                address: sub.endpoint.clone(),
                body: message.text_for(platform),
                attributes: outbox_attributes,
            }
        }
        _ => Target::Outbox {
            address: sub.endpoint.clone(),
            body: message.text_for(&sub.protocol),
            attributes: outbox_attributes,
        },
    };
    let dead_letter = sub.redrive.as_ref().map(|(arn, _)| {
        DeadLetter::new(
            arn.clone(),
            sqs_message(cx, topic, sub, message, arn.ends_with(".fifo")),
        )
    });
    // SQS, Lambda, e-mail, SMS and push follow the policy SNS fixes for them; HTTP/S its own.
    let policy = delivery_policy::policy_for(&sub.protocol, http.healthy);
    let mut delivery = Delivery::new(
        "sns",
        sub.arn.clone(),
        sub.protocol.clone(),
        message.id.clone(),
        target,
        policy,
        dead_letter,
    )
    .counted(Counters {
        namespace: "AWS/SNS",
        resource: topic.arn.clone(),
        delivered: Some("NumberOfNotificationsDelivered"),
        failed: Some("NumberOfNotificationsFailed"),
        // HTTP/S counts every failed attempt; other protocols one failure per message.
        every_failure: sub.protocol.starts_with("http"),
        dead_lettered: Some("NumberOfNotificationsRedrivenToDlq"),
        dlq_failed: Some("NumberOfNotificationsFailedToRedriveToDlq"),
        ..Counters::default()
    });
    if sub.protocol == "lambda" && lambda_url.is_some() {
        // A fault on the function's ARN fails it, whatever URL it is mapped to.
        delivery = delivery.also_known_as(sub.endpoint.clone());
    }
    if let Some(per_second) = http.throttle.filter(|_| sub.protocol.starts_with("http")) {
        delivery = delivery.throttled(sub.arn.clone(), per_second);
    }
    if topic.fifo {
        // A message being retried holds back the later messages of its group (this subscription).
        let group = message.group_id.unwrap_or_default();
        delivery = delivery.in_lane(format!("{}#{group}", sub.arn));
    }
    delivery
}

/// The event a Lambda function subscribed to a topic receives, keys in AWS's order
/// (https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html example event).
fn lambda_event(
    cx: &Context,
    topic: &super::store::Topic,
    sub: &Subscription,
    message: &Message,
) -> String {
    #[derive(serde::Serialize)]
    struct Event<'a> {
        #[serde(rename = "Records")]
        records: [Record<'a>; 1],
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "PascalCase")]
    struct Record<'a> {
        event_source: &'a str,
        event_version: &'a str,
        event_subscription_arn: &'a str,
        sns: Sns<'a>,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "PascalCase")]
    struct Sns<'a> {
        r#type: &'a str,
        message_id: &'a str,
        topic_arn: &'a str,
        subject: Option<&'a str>,
        message: String,
        timestamp: &'a str,
        signature_version: &'a str,
        signature: Value,
        signing_cert_url: String,
        unsubscribe_url: String,
        message_attributes: BTreeMap<String, LambdaAttribute>,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "PascalCase")]
    struct LambdaAttribute {
        r#type: String,
        value: String,
    }
    let notification: Value =
        serde_json::from_str(&notification(cx, topic, sub, message)).unwrap_or_default();
    let event = Event {
        records: [Record {
            event_source: "aws:sns",
            event_version: "1.0",
            event_subscription_arn: &sub.arn,
            sns: Sns {
                r#type: "Notification",
                message_id: &message.id,
                topic_arn: &topic.arn,
                subject: message.subject,
                message: message.text_for("lambda"),
                timestamp: &message.timestamp,
                // Lambda events say version 1 whatever the topic signs with (observed AWS quirk).
                signature_version: "1",
                signature: notification.get("Signature").cloned().unwrap_or_default(),
                signing_cert_url: signing_cert_url(cx),
                unsubscribe_url: unsubscribe_url(cx, &sub.arn),
                message_attributes: message
                    .attribute_pairs()
                    .into_iter()
                    .map(|(k, (t, v))| {
                        // Number and String.Array reach Lambda as String (spec §9.1).
                        let t = if t.starts_with("Number") || t.starts_with("String.Array") {
                            "String".to_string()
                        } else {
                            t
                        };
                        (
                            k,
                            LambdaAttribute {
                                r#type: t,
                                value: v,
                            },
                        )
                    })
                    .collect(),
            },
        }],
    };
    serde_json::to_string(&event).expect("serializable")
}

pub fn publish(
    e: &mut State,
    cx: &Context,
    input: PublishInput,
    prepared: Option<Prepared>,
) -> Result<PublishOutput, SnsError> {
    let fields = PublishBatchEntryRef {
        message: &input.message,
        subject: input.subject.as_deref(),
        structure: input.message_structure.as_deref(),
        attributes: &input.message_attributes,
        group_id: input.message_group_id.as_deref(),
        dedup_id: input.message_deduplication_id.as_deref(),
    };
    let targets = [&input.topic_arn, &input.target_arn, &input.phone_number]
        .iter()
        .filter(|t| t.is_some())
        .count();
    if targets != 1 {
        return Err(invalid(
            "TopicArn or TargetArn Reason: no value for required parameter",
        ));
    }
    if let Some(phone) = &input.phone_number {
        return publish_sms(e, cx, phone, &fields);
    }
    let arn = input.topic_arn.or(input.target_arn).unwrap_or_default();
    if arn.contains(":endpoint/") {
        // Mobile push to one platform endpoint.
        let (structure, _) = check_common(&fields, false, false)?;
        let message_id =
            super::platform::publish_to_endpoint(e, cx, &arn, &input.message, structure.as_ref())?;
        return Ok(PublishOutput {
            message_id,
            sequence_number: None,
        });
    }
    parse_topic_arn(
        cx,
        &arn,
        if input.phone_number.is_none() {
            "TopicArn"
        } else {
            "TargetArn"
        },
    )?;
    publish_to_topic(e, cx, &arn, &fields, prepared)
}

/// A text message straight to a phone number: the outbox.
fn publish_sms(
    e: &mut State,
    cx: &Context,
    phone: &str,
    fields: &PublishBatchEntryRef,
) -> Result<PublishOutput, SnsError> {
    let digits = phone.strip_prefix('+').unwrap_or_default();
    if !(7..=15).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(format!(
            "PhoneNumber Reason: {phone} is not valid to publish to"
        )));
    }
    check_common(fields, false, false)?;
    let id = e.engine.rng.uuid();
    let target = Target::Outbox {
        address: phone.to_string(),
        body: fields.message.to_string(),
        attributes: BTreeMap::new(),
    };
    let source = Arn::new("sns", &cx.region, &cx.account, phone).to_string();
    e.deliver(Delivery::new(
        "sns",
        source,
        "sms".into(),
        id.clone(),
        target,
        Box::new(Schedule::CUSTOMER_MANAGED),
        None,
    ));
    Ok(PublishOutput {
        message_id: id,
        sequence_number: None,
    })
}

pub fn publish_batch(
    e: &mut State,
    cx: &Context,
    input: PublishBatchInput,
) -> Result<PublishBatchOutput, SnsError> {
    super::topics::topic_mut(e, cx, &input.topic_arn)?;
    let entries = &input.publish_batch_request_entries;
    if entries.is_empty() {
        return Err(SnsError::EmptyBatchRequest(
            "The batch request doesn't contain any entries".into(),
        ));
    }
    if entries.len() > 10 {
        return Err(SnsError::TooManyEntriesInBatchRequest(
            "The batch request contains more entries than permissible.".into(),
        ));
    }
    let mut ids = HashSet::new();
    for entry in entries {
        if entry.id.is_empty() || entry.id.len() > 80 {
            return Err(SnsError::InvalidBatchEntryId(format!(
                "The Id of a batch entry in the batch request is too long: {}",
                entry.id
            )));
        }
        if !entry
            .id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(SnsError::InvalidBatchEntryId(format!(
                "The Id of a batch entry in the batch request contains an impermissible character: {}",
                entry.id
            )));
        }
        if !ids.insert(entry.id.as_str()) {
            return Err(SnsError::BatchEntryIdsNotDistinct(
                "Two or more batch entries in the request have the same Id.".into(),
            ));
        }
    }
    let total: usize = entries
        .iter()
        .map(|x| {
            x.message.len()
                + x.message_attributes
                    .iter()
                    .map(|(k, v)| {
                        k.len()
                            + v.data_type.len()
                            + v.string_value.as_ref().map_or(0, String::len)
                            + v.binary_value.as_deref().map_or(0, decoded_len)
                    })
                    .sum::<usize>()
        })
        .sum();
    if total > MAX_MESSAGE_BYTES {
        return Err(SnsError::BatchRequestTooLong(
            "The length of all the messages put together is more than the limit.".into(),
        ));
    }
    let mut out = PublishBatchOutput {
        successful: Vec::new(),
        failed: Vec::new(),
    };
    for entry in entries {
        let fields = PublishBatchEntryRef {
            message: &entry.message,
            subject: entry.subject.as_deref(),
            structure: entry.message_structure.as_deref(),
            attributes: &entry.message_attributes,
            group_id: entry.message_group_id.as_deref(),
            dedup_id: entry.message_deduplication_id.as_deref(),
        };
        match publish_to_topic(e, cx, &input.topic_arn, &fields, None) {
            Ok(r) => out.successful.push(PublishBatchResultEntry {
                id: entry.id.clone(),
                message_id: r.message_id,
                sequence_number: r.sequence_number,
            }),
            Err(err) => {
                let err = AwsError::from(err);
                let code = crate::model::SNS.query_code(err.code).to_string();
                out.failed.push(BatchResultErrorEntry {
                    id: entry.id.clone(),
                    code,
                    message: err.message,
                    sender_fault: err.status < 500,
                });
            }
        }
    }
    Ok(out)
}

/// Sends a SubscriptionConfirmation or UnsubscribeConfirmation to the subscription's endpoint:
/// an HTTP POST, or the outbox for e-mail.
pub fn send_confirmation(e: &mut State, cx: &Context, sub_arn: &str, kind: &str) {
    let Some(sub) = e.sns.subscriptions.get(sub_arn) else {
        return;
    };
    let Some(topic) = e.sns.topics.get(&sub.topic_arn) else {
        return;
    };
    let id = e.engine.rng.uuid();
    // The topic ARN as it is, colons included (spec §4.2 URL formats).
    let subscribe_url = format!(
        "{}/?Action=ConfirmSubscription&TopicArn={}&Token={}",
        base_url(cx),
        topic.arn,
        sub.token
    );
    let fields = ConfirmationFields {
        message_id: &id,
        token: &sub.token,
        topic_arn: &topic.arn,
        subscribe_url: &subscribe_url,
        timestamp: &format_rfc3339(e.now()),
        signing_cert_url: &signing_cert_url(cx),
        subscription_arn: &sub.arn,
    };
    let body = if kind == "SubscriptionConfirmation" {
        envelope::subscription_confirmation(&SIGNER, topic.signature_version, &fields)
    } else {
        envelope::unsubscribe_confirmation(&SIGNER, topic.signature_version, &fields)
    };
    let target = match sub.protocol.as_str() {
        "http" | "https" => {
            let mut headers = vec![
                ("x-amz-sns-message-type".to_string(), kind.to_string()),
                ("x-amz-sns-message-id".to_string(), id.clone()),
                ("x-amz-sns-topic-arn".to_string(), topic.arn.clone()),
                (
                    "Content-Type".to_string(),
                    "text/plain; charset=UTF-8".to_string(),
                ),
                (
                    "User-Agent".to_string(),
                    "Amazon Simple Notification Service Agent".to_string(),
                ),
            ];
            if kind == "UnsubscribeConfirmation" {
                headers.push(("x-amz-sns-subscription-arn".to_string(), sub.arn.clone()));
            }
            Target::Http {
                method: "POST".into(),
                url: sub.endpoint.clone(),
                headers,
                body,
            }
        }
        "email-json" => Target::Outbox {
            address: sub.endpoint.clone(),
            body,
            attributes: BTreeMap::new(),
        },
        _ => {
            let text = format!(
                "You have chosen to subscribe to the topic:\n{}\n\nTo confirm this subscription, click or visit the link below \
                 (If this was in error no action is necessary):\n{subscribe_url}",
                topic.arn
            );
            let attributes = BTreeMap::from([
                ("Token".to_string(), json!(sub.token)),
                ("SubscribeURL".to_string(), json!(subscribe_url)),
            ]);
            Target::Outbox {
                address: sub.endpoint.clone(),
                body: text,
                attributes,
            }
        }
    };
    // Confirmations are retried like any message.
    let schedule =
        Schedule::fixed_for(&sub.protocol).unwrap_or_else(|| effective_policy(topic, sub).healthy);
    let delivery = Delivery::new(
        "sns",
        sub.arn.clone(),
        sub.protocol.clone(),
        id,
        target,
        Box::new(schedule),
        None,
    );
    e.deliver(delivery);
}

/// A publish made by another service of this emulator (an EventBridge rule target), acting as
/// `publisher`'s account. Fails as the publish would have: a missing topic, a topic policy that
/// refuses the account, or a message the topic refuses.
pub fn deliver_to_topic(
    e: &mut State,
    topic_arn: &str,
    publisher: &Publisher,
    body: &str,
    group_id: Option<String>,
    dedup_id: Option<String>,
) -> Result<(), Failure> {
    let cx = Context {
        request_id: String::new(),
        account: publisher.account.clone(),
        region: Arn::region_of(topic_arn).to_string(),
        access_key: None,
        host: publisher.host.clone(),
    };
    let attributes = BTreeMap::new();
    let fields = PublishBatchEntryRef {
        message: body,
        subject: None,
        structure: None,
        attributes: &attributes,
        group_id: group_id.as_deref(),
        dedup_id: dedup_id.as_deref(),
    };
    publish_to_topic(e, &cx, topic_arn, &fields, None)
        .map(|_| ())
        .map_err(|err| match err {
            SnsError::NotFound(_) | SnsError::ResourceNotFound(_) => Failure::NotFound("NotFound"),
            SnsError::AuthorizationError(_) => Failure::AccessDenied("AuthorizationError"),
            other => Failure::InvalidParameter(AwsError::from(other).code),
        })
}
