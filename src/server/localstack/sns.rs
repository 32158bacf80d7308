//! LocalStack's SNS developer endpoints, served from switchyard's own state: the SMS and mobile
//! push messages "sent" are the outbox's `sms` and `application` records
//! (`GET /_switchyard/outbox`), so these views and that one show the same messages, and a
//! DELETE here removes them there too; a pending subscription's token is the one its
//! SubscriptionConfirmation carried.
//!
//! As in LocalStack, the message views are per account and region (`accountId` and `region`,
//! defaulting to switchyard's `--account` and `--region`), grouped by phone number or endpoint
//! ARN, and a DELETE answers 204.

use super::super::control::{error, ok, query_map};
use crate::arn::Arn;
use crate::dispatch::commands::{Command, OutboxSelection};
use crate::engine::outbox::OutboxMessage;
use crate::runtime::Runtime;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Arc;

type Shared = State<Arc<Runtime>>;

/// Which messages a request is about.
type Selection = OutboxSelection;

fn selection(
    app: &Runtime,
    protocol: &'static str,
    query: &HashMap<String, String>,
    filter: &str,
) -> Result<Selection, Box<Response>> {
    let target = query.get(filter).filter(|t| !t.is_empty()).cloned();
    let mut account = query
        .get("accountId")
        .cloned()
        .unwrap_or_else(|| app.config.account.clone());
    let mut region = query
        .get("region")
        .cloned()
        .unwrap_or_else(|| app.config.region.clone());
    if let Some(arn) = target.as_deref().filter(|_| protocol == "application") {
        let Some(parsed) = Arn::parse(arn).filter(|a| a.service == "sns") else {
            return Err(Box::new(error(
                StatusCode::BAD_REQUEST,
                "InvalidArgument",
                format!("endpointArn {arn} is not an SNS platform endpoint ARN."),
            )));
        };
        (account, region) = (parsed.account.to_string(), parsed.region.to_string());
    }
    Ok(Selection {
        protocol: protocol.into(),
        account,
        region,
        target,
    })
}

/// The topic and subscription of a message a subscription delivered (its source is the
/// subscription ARN, `…:<topic>:<id>`); none for a direct publish.
fn topic_and_subscription(m: &OutboxMessage) -> (Value, Value) {
    match Arn::parent(&m.source) {
        Some(topic) => (json!(topic), json!(m.source)),
        None => (Value::Null, Value::Null),
    }
}

fn attribute(m: &OutboxMessage, name: &str) -> Value {
    m.attributes.get(name).cloned().unwrap_or(Value::Null)
}

/// One SMS message as LocalStack lists it. `Message` is the text the phone got.
fn sms_json(m: &OutboxMessage) -> Value {
    let (topic, subscription) = topic_and_subscription(m);
    json!({
        "PhoneNumber": m.target,
        "TopicArn": topic,
        "SubscriptionArn": subscription,
        "MessageId": m.message_id,
        "Message": m.body,
        "MessageAttributes": m.attributes.get("MessageAttributes").cloned().unwrap_or(json!({})),
        "MessageStructure": Value::Null,
        "Subject": attribute(m, "Subject"),
    })
}

/// One push message as LocalStack lists it. `Message` is what the device got.
fn push_json(m: &OutboxMessage) -> Value {
    let (topic, _) = topic_and_subscription(m);
    json!({
        "TargetArn": m.target,
        "TopicArn": topic,
        "Message": m.body,
        "MessageAttributes": attribute(m, "MessageAttributes"),
        "MessageStructure": Value::Null,
        "Subject": attribute(m, "Subject"),
        "MessageId": m.message_id,
    })
}

/// The selected messages grouped by phone number or endpoint ARN, in the order sent; a filter
/// with no messages still names its key.
fn grouped(app: &Runtime, selection: &Selection, render: fn(&OutboxMessage) -> Value) -> Value {
    let state = app.state();
    let mut groups: Map<String, Value> = Map::new();
    if let Some(target) = &selection.target {
        groups.insert(target.clone(), json!([]));
    }
    for m in state.engine.outbox.iter().filter(|m| selection.covers(m)) {
        let group = groups.entry(m.target.clone()).or_insert_with(|| json!([]));
        if let Value::Array(list) = group {
            list.push(render(m));
        }
    }
    Value::Object(groups)
}

async fn clear(app: &Runtime, selection: Selection) -> Response {
    match app.run(Command::ClearOutboxWhere(selection)).await {
        Ok(_) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalFailure",
            e.message,
        ),
    }
}

pub(super) async fn sms_messages(State(app): Shared, RawQuery(query): RawQuery) -> Response {
    match selection(&app, "sms", &query_map(query), "phoneNumber") {
        Ok(s) => ok(json!({
            "sms_messages": grouped(&app, &s, sms_json),
            "region": s.region,
        })),
        Err(refused) => *refused,
    }
}

pub(super) async fn clear_sms_messages(State(app): Shared, RawQuery(query): RawQuery) -> Response {
    match selection(&app, "sms", &query_map(query), "phoneNumber") {
        Ok(s) => clear(&app, s).await,
        Err(refused) => *refused,
    }
}

pub(super) async fn platform_messages(State(app): Shared, RawQuery(query): RawQuery) -> Response {
    match selection(&app, "application", &query_map(query), "endpointArn") {
        Ok(s) => ok(json!({
            "platform_endpoint_messages": grouped(&app, &s, push_json),
            "region": s.region,
        })),
        Err(refused) => *refused,
    }
}

pub(super) async fn clear_platform_messages(
    State(app): Shared,
    RawQuery(query): RawQuery,
) -> Response {
    match selection(&app, "application", &query_map(query), "endpointArn") {
        Ok(s) => clear(&app, s).await,
        Err(refused) => *refused,
    }
}

/// The token of a subscription that waits for (or waited for) its endpoint's confirmation: as
/// in LocalStack, it stays readable after the confirmation (ConfirmSubscription with it again
/// is harmless). Other subscriptions never had one to give.
pub(super) async fn subscription_token(State(app): Shared, Path(arn): Path<String>) -> Response {
    let answer = |status: StatusCode, body: Value| {
        (
            status,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response()
    };
    if Arn::parse(&arn).is_none() {
        return answer(
            StatusCode::BAD_REQUEST,
            json!({"error": "The provided SubscriptionARN is invalid", "subscription_arn": arn}),
        );
    }
    let state = app.state();
    match state
        .sns
        .subscriptions
        .get(&arn)
        .filter(|s| s.protocol.needs_confirmation())
    {
        Some(sub) => answer(
            StatusCode::OK,
            json!({"subscription_token": sub.token, "subscription_arn": arn}),
        ),
        None => answer(
            StatusCode::NOT_FOUND,
            json!({"error": "The provided SubscriptionARN is not found", "subscription_arn": arn}),
        ),
    }
}
