//! LocalStack's developer endpoint `GET /_aws/sqs/messages`: the messages of a queue with their
//! attributes, without receiving them (no receive count, visibility or first-receive time
//! changes). By `?QueueUrl=` or by path `/_aws/sqs/messages/<region>/<account>/<name>`;
//! `ShowInvisible` / `ShowDelayed` add in-flight and delayed messages (marked `IsVisible` /
//! `IsDelayed`); XML like ReceiveMessage's, or JSON with `Accept: application/json`.
//! A read-only view over the SQS store; it calls no SQS operation.

use crate::engine::time::Millis;
use crate::runtime::Runtime;
use crate::services::sqs::parse_queue_path;
use crate::services::sqs::store::{Message, QueueKey};
use crate::state::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use quick_xml::escape::escape;
use serde_json::{Value, json};
use std::collections::HashMap;

/// What the caller asked for.
pub struct Peek {
    pub show_invisible: bool,
    pub show_delayed: bool,
    pub json: bool,
}

impl Peek {
    pub fn from_request(query: &HashMap<String, String>, headers: &HeaderMap) -> Peek {
        let flag = |name: &str| {
            query
                .get(name)
                .is_some_and(|v| v.eq_ignore_ascii_case("true"))
        };
        let json = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("application/json"));
        Peek {
            show_invisible: flag("ShowInvisible"),
            show_delayed: flag("ShowDelayed"),
            json,
        }
    }
}

/// `?QueueUrl=`: the queue in the configured region, or, when that region has none of that
/// name, in the one region that does.
pub fn by_url(app: &Runtime, url: Option<&str>, peek: &Peek) -> Response {
    let Some(url) = url.filter(|u| !u.is_empty()) else {
        return error(
            peek,
            StatusCode::BAD_REQUEST,
            NO_QUEUE,
            "The specified queue does not exist.",
        );
    };
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |i| &rest[i..]),
        None => url,
    };
    let Some((account, name)) = parse_queue_path(path) else {
        return error(
            peek,
            StatusCode::NOT_FOUND,
            "InvalidAddress",
            "The address is not valid for this endpoint.",
        );
    };
    let state = app.state();
    let mut key = QueueKey {
        account: account.into(),
        region: app.config.region.clone(),
        name: name.into(),
    };
    if !state.sqs.queues.contains_key(&key) {
        let mut elsewhere = state
            .sqs
            .queues
            .keys()
            .filter(|k| k.account == account && k.name == name);
        if let (Some(only), None) = (elsewhere.next(), elsewhere.next()) {
            key = only.clone();
        }
    }
    render(&state, &key, peek)
}

/// `/<region>/<account>/<name>` after the endpoint's path.
pub fn by_path(app: &Runtime, rest: &str, peek: &Peek) -> Response {
    let mut parts = rest.trim_matches('/').splitn(3, '/');
    let (Some(region), Some(account), Some(name)) = (parts.next(), parts.next(), parts.next())
    else {
        return error(
            peek,
            StatusCode::NOT_FOUND,
            "InvalidAddress",
            "The address is not valid for this endpoint.",
        );
    };
    let key = QueueKey {
        account: account.into(),
        region: region.into(),
        name: name.into(),
    };
    render(&app.state(), &key, peek)
}

const NO_QUEUE: &str = "AWS.SimpleQueueService.NonExistentQueue";

fn render(state: &State, key: &QueueKey, peek: &Peek) -> Response {
    let Some(queue) = state.sqs.queues.get(key) else {
        return error(
            peek,
            StatusCode::BAD_REQUEST,
            NO_QUEUE,
            "The specified queue does not exist.",
        );
    };
    let now = state.now();
    let messages: Vec<Vec<(&str, Value)>> = queue
        .peek(now)
        .filter_map(|m| {
            shown(m, now, peek).map(|(visible, delayed)| fields(m, visible, delayed, peek))
        })
        .collect();
    if peek.json {
        let result = match messages.len() {
            0 => Value::Null,
            1 => json!({"Message": object(&messages[0])}),
            _ => json!({"Message": messages.iter().map(|m| object(m)).collect::<Vec<_>>()}),
        };
        let body = json!({"ReceiveMessageResponse": {
            "ReceiveMessageResult": result,
            "ResponseMetadata": {"RequestId": "peek"},
        }});
        reply(StatusCode::OK, "application/json", body.to_string())
    } else {
        let mut xml = String::from(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ReceiveMessageResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"><ReceiveMessageResult>",
        );
        for m in &messages {
            xml.push_str("<Message>");
            for (name, value) in m {
                xml_field(&mut xml, name, value);
            }
            xml.push_str("</Message>");
        }
        xml.push_str("</ReceiveMessageResult><ResponseMetadata><RequestId>peek</RequestId></ResponseMetadata></ReceiveMessageResponse>");
        reply(StatusCode::OK, "text/xml", xml)
    }
}

/// Whether `m` is listed, and if so (visible, delayed): in-flight messages only with
/// ShowInvisible, delayed ones (hidden, never received) only with ShowDelayed.
fn shown(m: &Message, now: Millis, peek: &Peek) -> Option<(bool, bool)> {
    let visible = m.visible_at <= now;
    let delayed = !visible && m.receipt.is_none();
    let in_flight = !visible && !delayed;
    let listed = visible || (in_flight && peek.show_invisible) || (delayed && peek.show_delayed);
    listed.then_some((visible, delayed))
}

/// The message as ReceiveMessage's XML names its parts, in order.
fn fields<'m>(m: &'m Message, visible: bool, delayed: bool, peek: &Peek) -> Vec<(&'m str, Value)> {
    let mut attributes: Vec<(&str, String)> = vec![
        ("SenderId", m.sender_id.to_string()),
        ("SentTimestamp", m.sent_at.to_string()),
        ("ApproximateReceiveCount", m.receive_count.to_string()),
        (
            "ApproximateFirstReceiveTimestamp",
            m.first_received_at.unwrap_or(0).to_string(),
        ),
    ];
    if let Some(group) = &m.group_id {
        attributes.push(("MessageGroupId", group.clone()));
    }
    if let (Some(dedup), Some(_)) = (&m.dedup_id, m.sequence_number) {
        attributes.push(("MessageDeduplicationId", dedup.clone()));
    }
    if let Some(n) = m.sequence_number {
        attributes.push(("SequenceNumber", n.to_string()));
    }
    if let Some(source) = &m.dead_letter_source_arn {
        attributes.push(("DeadLetterQueueSourceArn", source.to_string()));
    }
    if let Some(trace) = &m.trace_header {
        attributes.push(("AWSTraceHeader", trace.clone()));
    }
    if peek.show_invisible {
        attributes.push(("IsVisible", visible.to_string()));
    }
    if peek.show_delayed {
        attributes.push(("IsDelayed", delayed.to_string()));
    }
    let mut out = vec![
        ("MessageId", json!(m.id)),
        ("MD5OfBody", json!(m.md5_of_body)),
        ("Body", json!(m.body)),
        (
            "Attribute",
            json!(
                attributes
                    .iter()
                    .map(|(n, v)| json!({"Name": n, "Value": v}))
                    .collect::<Vec<_>>()
            ),
        ),
    ];
    if !m.attributes.is_empty() {
        let list: Vec<Value> = m
            .attributes
            .iter()
            .map(|(name, v)| json!({"Name": name, "Value": v}))
            .collect();
        out.push(("MessageAttribute", one_or_many(list)));
    }
    out
}

/// One element stands alone, several make a list: how LocalStack's JSON renders repeated XML
/// elements.
fn one_or_many(mut list: Vec<Value>) -> Value {
    if list.len() == 1 {
        list.remove(0)
    } else {
        Value::Array(list)
    }
}

fn object(fields: &[(&str, Value)]) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

fn xml_field(xml: &mut String, name: &str, value: &Value) {
    match value {
        Value::Array(items) => items.iter().for_each(|item| xml_field(xml, name, item)),
        Value::Object(map) => {
            xml.push_str(&format!("<{name}>"));
            for (k, v) in map {
                xml_field(xml, k, v);
            }
            xml.push_str(&format!("</{name}>"));
        }
        Value::Null => {}
        Value::String(s) => xml.push_str(&format!("<{name}>{}</{name}>", escape(s.as_str()))),
        other => xml.push_str(&format!("<{name}>{other}</{name}>")),
    }
}

fn error(peek: &Peek, status: StatusCode, code: &str, message: &str) -> Response {
    if peek.json {
        let body = json!({"ErrorResponse": {
            "Error": {"Type": "Sender", "Code": code, "Message": message},
            "RequestId": "peek",
        }});
        reply(status, "application/json", body.to_string())
    } else {
        let xml = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ErrorResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"><Error><Type>Sender</Type><Code>{code}</Code><Message>{message}</Message></Error><RequestId>peek</RequestId></ErrorResponse>"
        );
        reply(status, "text/xml", xml)
    }
}

fn reply(status: StatusCode, content_type: &'static str, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, content_type)], body).into_response()
}
