//! LocalStack's developer endpoint `GET /_aws/sqs/messages`: the messages of a queue with their
//! attributes, without receiving them (no receive count, visibility or first-receive time
//! changes). By `?QueueUrl=` (in any of the shapes of `services::sqs::urls`) or by path
//! `/_aws/sqs/messages/<region>/<account>/<name>`;
//! `ShowInvisible` / `ShowDelayed` add in-flight and delayed messages (marked `IsVisible` /
//! `IsDelayed`); XML like ReceiveMessage's, or JSON with `Accept: application/json`.
//! A read-only view over the SQS store; it calls no SQS operation.

use crate::engine::time::Millis;
use crate::protocol::query;
use crate::runtime::Runtime;
use crate::services::ServiceId;
use crate::services::sqs::store::{Message, QueueKey};
use crate::services::sqs::urls;
use crate::state::State;
use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
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

/// `?QueueUrl=`, in any shape: the queue in the region the URL names; for a URL that names none,
/// in the configured region, or, when that region has none of that name, in the one region that
/// does.
pub fn by_url(app: &Runtime, url: Option<&str>, peek: &Peek) -> Response {
    let Some(url) = url.filter(|u| !u.is_empty()) else {
        return error(
            peek,
            StatusCode::BAD_REQUEST,
            NO_QUEUE,
            "The specified queue does not exist.",
        );
    };
    let Some(address) = urls::parse(url) else {
        return error(
            peek,
            StatusCode::NOT_FOUND,
            "InvalidAddress",
            "The address is not valid for this endpoint.",
        );
    };
    let state = app.state();
    let (account, name) = (address.account, address.name);
    let mut key = QueueKey {
        account: account.into(),
        region: address.region.unwrap_or(&app.config.region).into(),
        name: name.into(),
    };
    if address.region.is_none() && !state.sqs.queues.contains_key(&key) {
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

/// The request id of every answer: a peek is no AWS request.
const PEEK_REQUEST_ID: &str = "peek";

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
            "ResponseMetadata": {"RequestId": PEEK_REQUEST_ID},
        }});
        reply(StatusCode::OK, "application/json", body.to_string())
    } else {
        reply(StatusCode::OK, "text/xml", receive_xml(&messages))
    }
}

/// The messages as ReceiveMessage's XML answer, written with quick-xml (which escapes the text).
fn receive_xml(messages: &[Vec<(&str, Value)>]) -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    let written: std::io::Result<()> = (|| {
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
        let root = BytesStart::new("ReceiveMessageResponse")
            .with_attributes([("xmlns", "http://queue.amazonaws.com/doc/2012-11-05/")]);
        w.write_event(Event::Start(root))?;
        w.write_event(Event::Start(BytesStart::new("ReceiveMessageResult")))?;
        for m in messages {
            w.write_event(Event::Start(BytesStart::new("Message")))?;
            for (name, value) in m {
                xml_field(&mut w, name, value)?;
            }
            w.write_event(Event::End(BytesEnd::new("Message")))?;
        }
        w.write_event(Event::End(BytesEnd::new("ReceiveMessageResult")))?;
        w.write_event(Event::Start(BytesStart::new("ResponseMetadata")))?;
        xml_field(&mut w, "RequestId", &json!(PEEK_REQUEST_ID))?;
        w.write_event(Event::End(BytesEnd::new("ResponseMetadata")))?;
        w.write_event(Event::End(BytesEnd::new("ReceiveMessageResponse")))
    })();
    written.expect("writing to a Vec cannot fail");
    w.into_inner()
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

fn xml_field(w: &mut Writer<Vec<u8>>, name: &str, value: &Value) -> std::io::Result<()> {
    let text = match value {
        Value::Array(items) => return items.iter().try_for_each(|item| xml_field(w, name, item)),
        Value::Object(map) => {
            w.write_event(Event::Start(BytesStart::new(name)))?;
            for (k, v) in map {
                xml_field(w, k, v)?;
            }
            return w.write_event(Event::End(BytesEnd::new(name)));
        }
        Value::Null => return Ok(()),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    w.write_event(Event::Start(BytesStart::new(name)))?;
    w.write_event(Event::Text(BytesText::new(&text)))?;
    w.write_event(Event::End(BytesEnd::new(name)))
}

/// An error in LocalStack's shape: SQS's Query `ErrorResponse`, or the same fields in JSON.
fn error(peek: &Peek, status: StatusCode, code: &str, message: &str) -> Response {
    if peek.json {
        let body = json!({"ErrorResponse": {
            "Error": {"Type": "Sender", "Code": code, "Message": message},
            "RequestId": PEEK_REQUEST_ID,
        }});
        reply(status, "application/json", body.to_string())
    } else {
        let model = ServiceId::Sqs.model();
        let xml = query::encode_error(model, code, true, message, PEEK_REQUEST_ID);
        reply(status, "text/xml", xml)
    }
}

fn reply(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
    (status, [(header::CONTENT_TYPE, content_type)], body.into()).into_response()
}
