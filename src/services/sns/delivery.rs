//! How one message reaches one subscription: the message as delivered, the subscription's filter
//! policy, the body each protocol gets (the JSON notification, raw text, an SQS message, the Lambda
//! event, the outbox) and the engine's `Delivery` with its retry policy, dead-letter queue,
//! counters, throttle and FIFO lane. Builds deliveries and starts none; must not depend on the
//! Publish, Subscribe or topic operations.

use super::context::{base_url, signing_cert_url};
use super::delivery_policy::{self, Effective, Level};
use super::envelope::{self, NotificationFields};
use super::filter::FilterScope;
use super::protocol::Protocol;
use super::shapes::MessageAttributeValue;
use super::store::Subscription;
use crate::arn::Arn;
use crate::body::Body;
use crate::engine::delivery::{Counters, DeadLetter, Delivery, Publisher, SqsMessage, Target};
use crate::services::{Context, target};
use crate::signature::SIGNER;
use crate::state::Step;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// One message as published, checked.
pub(super) struct Message<'a> {
    pub(super) id: String,
    pub(super) text: &'a str,
    pub(super) subject: Option<&'a str>,
    /// `MessageStructure=json`: the per-protocol messages.
    pub(super) structure: Option<Map<String, Value>>,
    pub(super) attributes: &'a BTreeMap<String, MessageAttributeValue>,
    pub(super) group_id: Option<&'a str>,
    pub(super) dedup_id: Option<String>,
    pub(super) sequence_number: Option<u128>,
    pub(super) timestamp: String,
    /// Delivered again from the topic's archive by a replay.
    pub(super) replayed: bool,
    /// The publisher's X-Ray trace header (`X-Amzn-Trace-Id`), passed to SQS subscriptions as
    /// their messages' AWSTraceHeader.
    pub(super) trace_header: Option<&'a str>,
}

impl Message<'_> {
    /// The text a protocol gets: its own entry of a JSON structure, else `default`.
    pub(super) fn text_for(&self, key: &str) -> String {
        match &self.structure {
            Some(map) => structured_text(map, key).to_string(),
            None => self.text.to_string(),
        }
    }

    /// name → (DataType, value as text) for envelopes and filter policies.
    pub(super) fn attribute_pairs(&self) -> BTreeMap<String, (String, String)> {
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

/// A JSON structure's message for protocol `key`: its own entry, else `default`.
pub(super) fn structured_text<'a>(map: &'a Map<String, Value>, key: &str) -> &'a str {
    map.get(key)
        .and_then(Value::as_str)
        .or_else(|| map.get("default").and_then(Value::as_str))
        .unwrap_or_default()
}

pub(super) fn passes_filter(sub: &Subscription, message: &Message) -> bool {
    let Some((policy, _)) = &sub.filter else {
        return true;
    };
    match sub.filter_scope {
        FilterScope::MessageAttributes => policy.matches_attributes(&message.attribute_pairs()),
        FilterScope::MessageBody => {
            let text = message.text_for(sub.protocol.as_str());
            serde_json::from_str::<Value>(&text).is_ok_and(|body| policy.matches_body(&body))
        }
    }
}

/// The JSON notification every non-raw subscription gets (HTTP/S, SQS, email-json, Firehose),
/// signed now.
fn notification(
    cx: &Context,
    topic: &super::store::Topic,
    sub: &Subscription,
    message: &Message,
) -> String {
    notification_document(cx, topic, sub, message, false).0
}

/// The notification as an SQS message body: signed when first read (`crate::body`).
fn notification_body(
    cx: &Context,
    topic: &super::store::Topic,
    sub: &Subscription,
    message: &Message,
) -> Body {
    match notification_document(cx, topic, sub, message, true) {
        (draft, Some(at)) => Body::unsigned(draft, at, topic.signature_version),
        (doc, None) => Body::from(doc),
    }
}

/// The notification, signed now or (`later`) with its signature left blank; then where the
/// blank starts (`None` once signed, and for FIFO topics, which sign nothing).
fn notification_document(
    cx: &Context,
    topic: &super::store::Topic,
    sub: &Subscription,
    message: &Message,
    later: bool,
) -> (String, Option<usize>) {
    let text = message.text_for(sub.protocol.as_str());
    let sequence = message.sequence_number.map(|n| n.to_string());
    let unsubscribe_url = unsubscribe_url(cx, &sub.arn);
    let attributes = message.attribute_pairs();
    let cert_url = signing_cert_url(cx);
    let fields = NotificationFields {
        message_id: &message.id,
        topic_arn: &topic.arn,
        subject: message.subject,
        message: &text,
        timestamp: &message.timestamp,
        sequence_number: sequence.as_deref(),
        unsubscribe_url: &unsubscribe_url,
        signing_cert_url: &cert_url,
        message_attributes: &attributes,
    };
    let (doc, slot) = match later {
        true => envelope::notification_draft(topic.signature_version, &fields),
        false => (
            envelope::notification(&SIGNER, topic.signature_version, &fields),
            None,
        ),
    };
    match doc.strip_suffix('}') {
        // A replayed message "contains the attribute Replayed, to help you identify that it's a
        // replayed message" (AWS subscriber page). It closes the document, after the signature
        // (which does not sign it).
        Some(open) if message.replayed => (format!(r#"{open},"Replayed":true}}"#), slot),
        _ => (doc, slot),
    }
}

/// AWS writes the ARN into the URL as it is, colons included (docs/sns.md, "URL formats").
fn unsubscribe_url(cx: &Context, sub_arn: &str) -> String {
    format!(
        "{}/?Action=Unsubscribe&SubscriptionArn={sub_arn}",
        base_url(cx)
    )
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
        // (docs/sns.md, "Message envelopes").
        let attributes = match message.structure {
            None => message.attributes.clone(),
            Some(_) => BTreeMap::new(),
        };
        (
            Body::from(message.text_for(sub.protocol.as_str())),
            attributes,
        )
    } else {
        (notification_body(cx, topic, sub, message), BTreeMap::new())
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
        trace_header: message.trace_header.map(str::to_string),
    }
}

/// The headers of every HTTP/S request SNS makes (notifications and confirmations), as AWS
/// sends them (AWS observed, LocalStack `test_subscribe_external_http_endpoint_content_type`):
/// the `x-amz-sns-*` headers, the subscription's only when given (a SubscriptionConfirmation has
/// none), the content type, SNS's User-Agent, `Accept-Encoding` and `Connection`.
pub(super) fn http_headers(
    kind: &str,
    message_id: &str,
    topic_arn: &str,
    subscription_arn: Option<&str>,
    content_type: &str,
) -> Vec<(String, String)> {
    let mut headers = vec![
        ("x-amz-sns-message-type".to_string(), kind.to_string()),
        ("x-amz-sns-message-id".to_string(), message_id.to_string()),
        ("x-amz-sns-topic-arn".to_string(), topic_arn.to_string()),
    ];
    if let Some(arn) = subscription_arn {
        headers.push(("x-amz-sns-subscription-arn".to_string(), arn.to_string()));
    }
    headers.extend([
        ("Content-Type".to_string(), content_type.to_string()),
        (
            "User-Agent".to_string(),
            "Amazon Simple Notification Service Agent".to_string(),
        ),
        ("Accept-Encoding".to_string(), "gzip,deflate".to_string()),
        ("Connection".to_string(), "Keep-Alive".to_string()),
    ]);
    headers
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

/// Where a message to `sub` goes and what it carries, by protocol; `lambdas` are the
/// `--lambda-endpoint` URLs, through the one Lambda target ([`crate::services::target`]).
fn target_for(
    cx: &Context,
    topic: &super::store::Topic,
    sub: &Subscription,
    message: &Message,
    http: &Effective,
    lambdas: target::Lambdas,
) -> Target {
    let mut outbox_attributes = BTreeMap::new();
    if let Some(subject) = message.subject {
        outbox_attributes.insert("Subject".to_string(), json!(subject));
    }
    // SMS and push messages keep their message attributes (LocalStack's views show them).
    if matches!(sub.protocol, Protocol::Sms | Protocol::Application)
        && !message.attributes.is_empty()
    {
        outbox_attributes.insert("MessageAttributes".to_string(), json!(message.attributes));
    }
    let outbox = |body: String| Target::Outbox {
        address: sub.endpoint.clone(),
        body,
        attributes: outbox_attributes.clone(),
    };
    match sub.protocol {
        Protocol::Sqs => Target::Sqs {
            queue_arn: sub.endpoint.clone(),
            message: sqs_message(cx, topic, sub, message, sub.endpoint.ends_with(".fifo")),
        },
        Protocol::Http | Protocol::Https => {
            let body = if sub.raw {
                message.text_for(sub.protocol.as_str())
            } else {
                notification(cx, topic, sub, message)
            };
            let mut headers = http_headers(
                "Notification",
                &message.id,
                &topic.arn,
                Some(&sub.arn),
                &http.content_type,
            );
            if sub.raw {
                headers.push(("x-amz-sns-rawdelivery".to_string(), "true".to_string()));
            }
            Target::Http {
                method: "POST".into(),
                url: sub.endpoint.clone(),
                headers,
                body,
            }
        }
        Protocol::EmailJson => outbox(notification(cx, topic, sub, message)),
        Protocol::Firehose if !sub.raw => outbox(notification(cx, topic, sub, message)),
        // A function mapped to a local invoke URL (--lambda-endpoint) gets a real POST; else the
        // outbox, with the Subject.
        Protocol::Lambda => target::lambda_with(
            lambdas,
            &sub.endpoint,
            &Publisher {
                account: topic.account.clone(),
                host: cx.host.clone(),
            },
            lambda_event(cx, topic, sub, message),
            outbox_attributes.clone(),
        ),
        Protocol::Application => {
            // A platform endpoint ARN names its platform: .../endpoint/<PLATFORM>/<app>/<id>.
            let platform = Arn::parse(&sub.endpoint)
                .and_then(|a| a.resource.split('/').nth(1))
                .unwrap_or("default");
            outbox(message.text_for(platform))
        }
        Protocol::Email | Protocol::Sms | Protocol::Firehose => {
            outbox(message.text_for(sub.protocol.as_str()))
        }
    }
}

/// The engine's delivery of `message` to `sub`: its target, retry policy, dead-letter queue,
/// counters, throttle and FIFO lane.
pub(super) fn delivery_for(
    cx: &Context,
    topic: &super::store::Topic,
    sub: &Subscription,
    message: &Message,
    lambdas: target::Lambdas,
) -> Delivery<Step> {
    let http = effective_policy(topic, sub);
    let target = target_for(cx, topic, sub, message, &http, lambdas);
    // A Lambda function mapped to a URL is posted to there.
    let mapped_lambda = sub.protocol == Protocol::Lambda && matches!(target, Target::Http { .. });
    let dead_letter = sub.redrive.as_ref().map(|(arn, _)| {
        DeadLetter::new(
            arn.clone(),
            sqs_message(cx, topic, sub, message, arn.ends_with(".fifo")),
        )
    });
    // SQS, Lambda, e-mail, SMS and push follow the policy SNS fixes for them; HTTP/S its own.
    let policy = delivery_policy::policy_for(sub.protocol, http.healthy);
    let mut delivery = Delivery::new(
        "sns",
        sub.arn.clone(),
        sub.protocol.to_string(),
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
        every_failure: sub.protocol.is_http(),
        dead_lettered: Some("NumberOfNotificationsRedrivenToDlq"),
        dlq_failed: Some("NumberOfNotificationsFailedToRedriveToDlq"),
        ..Counters::default()
    });
    if mapped_lambda {
        // A fault on the function's ARN fails it, whatever URL it is mapped to.
        delivery = delivery.also_known_as(sub.endpoint.clone());
    }
    if let Some(per_second) = http.throttle.filter(|_| sub.protocol.is_http()) {
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
                        // Number and String.Array reach Lambda as String (docs/sns.md, "Lambda").
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
    #[expect(
        clippy::expect_used,
        reason = "structs of strings, JSON values and a map with string keys always serialize"
    )]
    serde_json::to_string(&event).expect("serializable")
}
