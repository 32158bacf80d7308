//! LocalStack's developer endpoint `/_aws/sqs/messages`: the messages of a queue with their
//! attributes, without receiving them (no receive count, visibility or first-receive time
//! changes). By `QueueUrl` (query string or form; in any of the shapes of `services::sqs::urls`)
//! or by path `/_aws/sqs/messages/<region>/<account>/<name>`; `ShowInvisible` / `ShowDelayed` add
//! in-flight and delayed messages (marked `IsVisible` / `IsDelayed`); XML like ReceiveMessage's,
//! or JSON with `Accept: application/json`. It also answers an SDK's ReceiveMessage sent to it as
//! its endpoint URL, over AWS Query or AWS JSON, in that protocol's ReceiveMessage shape; every
//! message carries LocalStack's dummy receipt handle.
//! A read-only view over the SQS store; it calls no SQS operation.

use crate::engine::time::Millis;
use crate::error::AwsError;
use crate::protocol::{Protocol, query, render_error};
use crate::runtime::Runtime;
use crate::services::ServiceId;
use crate::services::sqs::store::{Message, QueueKey};
use crate::services::sqs::{md5_of_attributes, urls};
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// What the caller asked for.
pub(super) struct Peek {
    pub show_invisible: bool,
    pub show_delayed: bool,
    pub answer: Answer,
}

/// The shape of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answer {
    /// ReceiveMessage's XML (AWS Query).
    Xml,
    /// The XML's elements in JSON (`Accept: application/json`), as LocalStack writes them.
    QueryJson,
    /// ReceiveMessage's AWS JSON 1.0 output, for an SDK that speaks JSON to SQS.
    AwsJson,
}

impl Peek {
    pub(super) fn from_request(query: &HashMap<String, String>, headers: &HeaderMap) -> Peek {
        let flag = |name: &str| {
            query
                .get(name)
                .is_some_and(|v| v.eq_ignore_ascii_case("true"))
        };
        let header = |name: header::HeaderName| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
        };
        let answer = if header(header::CONTENT_TYPE).starts_with("application/x-amz-json") {
            Answer::AwsJson
        } else if query::json::wanted(Some(header(header::ACCEPT))) {
            Answer::QueryJson
        } else {
            Answer::Xml
        };
        Peek {
            show_invisible: flag("ShowInvisible"),
            show_delayed: flag("ShowDelayed"),
            answer,
        }
    }
}

/// The receipt handle every listed message carries: LocalStack's, which no queue accepts.
const BACKDOOR_RECEIPT: &str = "SQS/BACKDOOR/ACCESS";

/// Which queue a request names, from its query string and its body: a form (`Action`, when
/// given, must be ReceiveMessage) or AWS JSON (`X-Amz-Target` must be ReceiveMessage). `Err` is
/// the answer to a request that is no ReceiveMessage.
pub(super) fn queue_url(
    query: &HashMap<String, String>,
    headers: &HeaderMap,
    body: &Bytes,
    peek: &Peek,
) -> Result<Option<String>, Box<Response>> {
    let not_receive = || {
        Box::new(error(
            peek,
            StatusCode::BAD_REQUEST,
            "InvalidRequest",
            "This endpoint only accepts ReceiveMessage calls",
        ))
    };
    if peek.answer == Answer::AwsJson {
        let target = headers
            .get("x-amz-target")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if target != "AmazonSQS.ReceiveMessage" {
            return Err(not_receive());
        }
        let input: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        return Ok(input["QueueUrl"].as_str().map(str::to_string));
    }
    let mut params = query.clone();
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if form {
        params.extend(form_urlencoded::parse(body).into_owned());
    }
    if params.get("Action").is_some_and(|a| a != "ReceiveMessage") {
        return Err(not_receive());
    }
    Ok(params.remove("QueueUrl"))
}

/// `?QueueUrl=`, in any shape: the queue in the region the URL names; for a URL that names none,
/// in the configured region, or, when that region has none of that name, in the one region that
/// does.
pub(super) fn by_url(app: &Runtime, url: Option<&str>, peek: &Peek) -> Response {
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
    let (account, name) = (address.account, address.name);
    let mut key = QueueKey {
        account: account.into(),
        region: address.region.unwrap_or(&app.config.region).into(),
        name: name.into(),
    };
    let state = app.state();
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
    drop(state);
    render(app, &key, peek)
}

/// `/<region>/<account>/<name>` after the endpoint's path.
pub(super) fn by_path(app: &Runtime, rest: &str, peek: &Peek) -> Response {
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
    render(app, &key, peek)
}

/// The request id of every answer: a peek is no AWS request.
const PEEK_REQUEST_ID: &str = "peek";

const NO_QUEUE: &str = "AWS.SimpleQueueService.NonExistentQueue";

fn render(app: &Runtime, key: &QueueKey, peek: &Peek) -> Response {
    // SNS notifications not signed yet are signed first, outside the lock (`crate::body`); one
    // that arrives in between is signed under it.
    let unsigned: Vec<crate::body::Body> = {
        let state = app.state();
        let now = state.now();
        (state.sqs.queues.get(key).into_iter())
            .flat_map(|queue| queue.peek(now))
            .filter(|m| m.body.needs_signing())
            .map(|m| m.body.clone())
            .collect()
    };
    unsigned.iter().for_each(crate::body::Body::sign);
    let guard = app.state();
    let state: &crate::state::State = &guard;
    let Some(queue) = state.sqs.queues.get(key) else {
        return error(
            peek,
            StatusCode::BAD_REQUEST,
            NO_QUEUE,
            "The specified queue does not exist.",
        );
    };
    let now = state.now();
    let listed: Vec<(&Message, Vec<(&str, String)>)> = queue
        .peek(now)
        .filter_map(|m| {
            shown(m, now, peek).map(|(visible, delayed)| (m, attributes(m, visible, delayed, peek)))
        })
        .collect();
    if peek.answer == Answer::AwsJson {
        let messages: Vec<Value> = listed.iter().map(|(m, a)| aws_json(m, a)).collect();
        let body = match messages.is_empty() {
            true => json!({}),
            false => json!({ "Messages": messages }),
        };
        return reply(
            StatusCode::OK,
            "application/x-amz-json-1.0",
            body.to_string(),
        );
    }
    let messages: Vec<Vec<(&str, Value)>> = listed.iter().map(|(m, a)| fields(m, a)).collect();
    if peek.answer == Answer::QueryJson {
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

/// The system attributes of a listed message, in the order LocalStack lists them.
fn attributes(
    m: &Message,
    visible: bool,
    delayed: bool,
    peek: &Peek,
) -> Vec<(&'static str, String)> {
    let mut attributes: Vec<(&str, String)> = vec![
        ("SenderId", m.sender_id.to_string()),
        ("SentTimestamp", m.sent_at.to_string()),
        ("ApproximateReceiveCount", m.receive_count.to_string()),
        (
            "ApproximateFirstReceiveTimestamp",
            m.first_received_at().unwrap_or(0).to_string(),
        ),
    ];
    if let Some(group) = m.group_id() {
        attributes.push(("MessageGroupId", group.to_string()));
    }
    if let (Some(dedup), Some(_)) = (m.dedup_id(), m.sequence_number()) {
        attributes.push(("MessageDeduplicationId", dedup.to_string()));
    }
    if let Some(n) = m.sequence_number() {
        attributes.push(("SequenceNumber", n.to_string()));
    }
    if let Some(source) = &m.dead_letter_source_arn {
        attributes.push(("DeadLetterQueueSourceArn", source.to_string()));
    }
    if let Some(trace) = m.trace_header() {
        attributes.push(("AWSTraceHeader", trace.to_string()));
    }
    if peek.show_invisible {
        attributes.push(("IsVisible", visible.to_string()));
    }
    if peek.show_delayed {
        attributes.push(("IsDelayed", delayed.to_string()));
    }
    attributes
}

/// The message as ReceiveMessage's XML names its parts, in order.
fn fields<'m>(m: &'m Message, attributes: &[(&str, String)]) -> Vec<(&'m str, Value)> {
    let mut out = vec![
        ("MessageId", json!(m.id)),
        ("ReceiptHandle", json!(BACKDOOR_RECEIPT)),
        ("MD5OfBody", json!(m.md5_of_body())),
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
    if let Some(md5) = md5_of_attributes(m.attributes()) {
        out.push(("MD5OfMessageAttributes", json!(md5)));
        let list: Vec<Value> = m
            .attributes()
            .iter()
            .map(|(name, v)| json!({"Name": name, "Value": v}))
            .collect();
        out.push(("MessageAttribute", one_or_many(list)));
    }
    out
}

/// The message as ReceiveMessage's AWS JSON output writes it.
fn aws_json(m: &Message, attributes: &[(&str, String)]) -> Value {
    let mut out = Map::new();
    out.insert("MessageId".into(), json!(m.id));
    out.insert("ReceiptHandle".into(), json!(BACKDOOR_RECEIPT));
    out.insert("MD5OfBody".into(), json!(m.md5_of_body()));
    out.insert("Body".into(), json!(m.body));
    let system: Map<String, Value> = attributes
        .iter()
        .map(|(n, v)| (n.to_string(), json!(v)))
        .collect();
    out.insert("Attributes".into(), Value::Object(system));
    if let Some(md5) = md5_of_attributes(m.attributes()) {
        out.insert("MD5OfMessageAttributes".into(), json!(md5));
        out.insert("MessageAttributes".into(), json!(m.attributes()));
    }
    Value::Object(out)
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

/// An error in LocalStack's shape: SQS's Query `ErrorResponse`, or the same fields in JSON; to an
/// SDK speaking AWS JSON, SQS's own error.
fn error(peek: &Peek, status: StatusCode, code: &'static str, message: &str) -> Response {
    if peek.answer == Answer::AwsJson {
        let code = if code == NO_QUEUE {
            "QueueDoesNotExist"
        } else {
            code
        };
        let err = AwsError::new(code, status.as_u16(), message);
        return render_error(
            Protocol::Json10,
            Some(ServiceId::Sqs),
            &err,
            PEEK_REQUEST_ID,
        );
    }
    if peek.answer == Answer::QueryJson {
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
