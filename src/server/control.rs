//! The control API of docs/control-api.md under `/_switchyard/`: health, reset, clock, deliveries,
//! outbox, faults, metrics and state snapshots. JSON in and out; errors are `{"error","message"}`.
//! It talks to the runtime only: never to a service's operations.

use crate::dispatch::commands::{Applied, Command};
use crate::engine::log::DeliveryFilter;
use crate::engine::time::{Millis, format_rfc3339, parse_rfc3339};
use crate::engine::timeline::{Scale, TimelineQuery};
use crate::runtime::{Advance, AdvanceError, Runtime};
use crate::services::ServiceId;
use crate::state::snapshot::SnapshotError;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

type Shared = State<Arc<Runtime>>;

pub(super) fn routes() -> Router<Arc<Runtime>> {
    Router::new()
        .route("/_switchyard/health", get(health))
        .route("/_switchyard/reset", post(reset))
        .route("/_switchyard/clock", get(clock))
        .route("/_switchyard/clock/advance", post(advance))
        .route(
            "/_switchyard/deliveries",
            get(deliveries).delete(clear_deliveries),
        )
        .route("/_switchyard/deliveries/timeline", get(timeline))
        .route("/_switchyard/outbox", get(outbox).delete(clear_outbox))
        .route(
            "/_switchyard/faults",
            get(faults).post(add_fault).delete(clear_faults),
        )
        .route(
            "/_switchyard/faults/{id}",
            axum::routing::delete(remove_fault),
        )
        .route("/_switchyard/metrics", get(metrics))
        .route("/_switchyard/lambda/invocations", get(invocations))
        .route(
            "/_switchyard/state",
            get(state_file)
                .post(load_state)
                .layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .route("/_switchyard", any(not_found))
        .route("/_switchyard/{*rest}", any(not_found))
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn(log_request))
}

/// One log line per control request, like the AWS front-ends write.
pub(super) async fn log_request(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let stopwatch = crate::clock::Clock::stopwatch();
    let (method, path) = (request.method().clone(), request.uri().path().to_string());
    let response = next.run(request).await;
    tracing::info!(
        service = "control",
        operation = %format_args!("{method} {path}"),
        status = response.status().as_u16(),
        duration_us = stopwatch.elapsed().as_micros() as u64,
        error_code = response.extensions().get::<ErrorCode>().map(|c| c.0),
        "request"
    );
    response
}

/// The code of a control API error, carried on its response for the request log line.
#[derive(Clone, Copy)]
struct ErrorCode(&'static str);

pub(super) fn ok(body: Value) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

pub(super) fn error(
    status: StatusCode,
    code: &'static str,
    message: impl Into<String>,
) -> Response {
    let body = json!({"error": code, "message": message.into()}).to_string();
    let json = [(header::CONTENT_TYPE, "application/json")];
    (status, json, axum::Extension(ErrorCode(code)), body).into_response()
}

async fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "NotFound",
        "No such control API resource; see docs/control-api.md.",
    )
}

async fn method_not_allowed() -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "MethodNotAllowed",
        "This control API resource does not take that method.",
    )
}

pub(super) fn query_map(raw: Option<String>) -> HashMap<String, String> {
    form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
        .into_owned()
        .collect()
}

fn json_body(body: &Bytes) -> Result<serde_json::Map<String, Value>, Box<Response>> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            "InvalidRequest",
            "The body must be a JSON object.",
        ))),
    }
}

fn clock_json(app: &Runtime) -> Value {
    let now = app.state().now();
    let mode = app.clock.mode();
    json!({"mode": mode.name(), "factor": mode.factor(), "now": format_rfc3339(now), "epochMillis": now})
}

async fn health(State(app): Shared) -> Response {
    let services: Vec<_> = ServiceId::SERVING.iter().map(|s| s.name()).collect();
    ok(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "services": services,
        "clock": clock_json(&app),
    }))
}

/// Reads the body it ignores (clients send `{}`): a request body left unread when the answer goes
/// out makes hyper close the connection, which a client reusing it sees as a dropped request.
async fn reset(State(app): Shared, _body: Bytes) -> Response {
    done(app.reset().await)
}

/// `200 {}` once a change is applied (and, with `--state-dir`, durable).
fn done<T>(applied: Result<T, crate::error::AwsError>) -> Response {
    match applied {
        Ok(_) => ok(json!({})),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalFailure",
            e.message,
        ),
    }
}

/// `GET /_switchyard/state`: the whole state as one file (docs/control-api.md, "State
/// snapshots").
async fn state_file(State(app): Shared) -> Response {
    let bytes = app.snapshot();
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        bytes,
    )
        .into_response()
}

/// The largest state file `POST /_switchyard/state` reads: a client cannot make the server
/// hold more than this of one request in memory.
pub(super) const MAX_STATE_FILE: usize = 512 * 1024 * 1024;

/// `POST /_switchyard/state`: replaces the running state with the file; a file that cannot be
/// read is `400 InvalidState` naming the cause (`413` for one over [`MAX_STATE_FILE`]), and the
/// running state stays as it was.
async fn load_state(
    State(app): Shared,
    headers: axum::http::HeaderMap,
    body: axum::body::Body,
) -> Response {
    let too_large = || {
        error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "InvalidState",
            format!(
                "the file is larger than {} MiB, the most a state file may be.",
                MAX_STATE_FILE >> 20
            ),
        )
    };
    // A declared length over the bound is refused before a byte of the body is read.
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_STATE_FILE as u64) {
        return too_large();
    }
    let body = match http_body_util::Limited::new(body, MAX_STATE_FILE)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => return too_large(),
        Err(e) => {
            let cause = format!("not a JSON document: it ends early ({e}).");
            return error(StatusCode::BAD_REQUEST, "InvalidState", cause);
        }
    };
    match app.load_snapshot(&body).await {
        Ok(()) => ok(json!({})),
        Err(e @ SnapshotError::NotKept(_)) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalFailure",
            e.to_string(),
        ),
        Err(e) => error(StatusCode::BAD_REQUEST, "InvalidState", e.to_string()),
    }
}

async fn clock(State(app): Shared) -> Response {
    ok(clock_json(&app))
}

async fn advance(State(app): Shared, body: Bytes) -> Response {
    let body = match json_body(&body) {
        Ok(b) => b,
        Err(e) => return *e,
    };
    let how = match (body.get("seconds"), body.get("until")) {
        (Some(seconds), None) => match seconds.as_f64() {
            // Past `i64::MAX` milliseconds the cast saturates, which the runtime refuses as late.
            Some(s) if s >= 0.0 && s.is_finite() => Advance::By((s * 1000.0).round() as Millis),
            _ => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "InvalidArgument",
                    "seconds must be a number >= 0.",
                );
            }
        },
        (None, Some(until)) => match until.as_str().and_then(parse_rfc3339) {
            Some(t) => Advance::Until(t),
            None => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "InvalidArgument",
                    "until must be an RFC 3339 time.",
                );
            }
        },
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                "InvalidRequest",
                "Give exactly one of seconds and until.",
            );
        }
    };
    match app.advance(how).await {
        Ok(done) => ok(json!({"now": format_rfc3339(done.now), "fired": done.fired})),
        Err(e) => {
            let status = match e {
                AdvanceError::NotAdjustable => StatusCode::CONFLICT,
                AdvanceError::InPast { .. } | AdvanceError::OutOfRange => StatusCode::BAD_REQUEST,
                AdvanceError::Broken => StatusCode::INTERNAL_SERVER_ERROR,
            };
            error(status, e.code(), e.to_string())
        }
    }
}

/// A list's `limit` query parameter: 1000 when absent.
fn limit_of(q: &HashMap<String, String>) -> Result<usize, Box<Response>> {
    match q.get("limit").map(|l| l.parse::<usize>()) {
        None => Ok(1000),
        Some(Ok(n)) => Ok(n),
        Some(Err(_)) => Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            "InvalidArgument",
            "limit must be a non-negative integer.",
        ))),
    }
}

async fn deliveries(State(app): Shared, RawQuery(raw): RawQuery) -> Response {
    let q = query_map(raw);
    let limit = match limit_of(&q) {
        Ok(n) => n,
        Err(answer) => return *answer,
    };
    let filter = DeliveryFilter {
        source: q.get("source").cloned(),
        target: q.get("target").cloned(),
        message_id: q.get("messageId").cloned(),
        event: q.get("event").cloned(),
        limit,
    };
    let engine = app.state();
    ok(json!({"records": engine.engine.log.query(&filter)}))
}

/// `GET /_switchyard/deliveries/timeline`: the delivery log in lanes and bins of a window.
async fn timeline(State(app): Shared, RawQuery(raw): RawQuery) -> Response {
    let q = query_map(raw);
    let query = match timeline_query(&q) {
        Ok(query) => query,
        Err(message) => return error(StatusCode::BAD_REQUEST, "InvalidArgument", message),
    };
    if let (Some(from), Some(to)) = (query.from, query.to)
        && from > to
    {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidArgument",
            "from must not be after to.",
        );
    }
    let engine = app.state();
    let body = serde_json::to_string(&engine.engine.log.timeline(&query));
    drop(engine);
    match body {
        Ok(body) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response(),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            e.to_string(),
        ),
    }
}

fn timeline_query(q: &HashMap<String, String>) -> Result<TimelineQuery<'_>, String> {
    let number =
        |name: &str, default: usize, range: std::ops::RangeInclusive<usize>| match q.get(name) {
            None => Ok(default),
            Some(text) => text
                .parse::<usize>()
                .ok()
                .filter(|n| range.contains(n))
                .ok_or_else(|| {
                    format!(
                        "{name} must be an integer from {} to {}.",
                        range.start(),
                        range.end()
                    )
                }),
        };
    let time = |name: &str| match q.get(name) {
        None => Ok(None),
        Some(text) => parse_rfc3339(text)
            .map(Some)
            .ok_or_else(|| format!("{name} must be an RFC 3339 time.")),
    };
    let scale = match q.get("scale").map(String::as_str) {
        None | Some("linear") => Scale::Linear,
        Some("log") => Scale::Log,
        Some(_) => return Err("scale must be linear or log.".into()),
    };
    Ok(TimelineQuery {
        source: q.get("source").map(String::as_str),
        target: q.get("target").map(String::as_str),
        message_id: q.get("messageId").map(String::as_str),
        from: time("from")?,
        to: time("to")?,
        bins: number("bins", 200, 1..=2000)? as u32,
        scale,
        detail: number("detail", 4, 0..=100)?,
        exact: number("exact", 1000, 0..=10_000)?,
        lanes: number("lanes", 100, 1..=1000)?,
    })
}

async fn clear_deliveries(State(app): Shared) -> Response {
    done(app.run(Command::ClearDeliveries).await)
}

async fn outbox(State(app): Shared, RawQuery(raw): RawQuery) -> Response {
    let q = query_map(raw);
    let engine = app.state();
    let messages: Vec<_> = engine
        .engine
        .outbox
        .iter()
        .filter(|m| q.get("protocol").is_none_or(|p| *p == m.protocol))
        .filter(|m| q.get("target").is_none_or(|t| *t == m.target))
        .collect();
    ok(json!({"messages": messages}))
}

/// `GET /_switchyard/lambda/invocations`: the last Lambda invocations, oldest first, by
/// `function` (its ARN or name), `requestId`, `result`, at most `limit` (the newest).
async fn invocations(State(app): Shared, RawQuery(raw): RawQuery) -> Response {
    let q = query_map(raw);
    let limit = match limit_of(&q) {
        Ok(n) => n,
        Err(answer) => return *answer,
    };
    let state = app.state();
    let names = |f: &str, wanted: &str| {
        let unqualified = crate::services::lambda::functions::unqualified_arn(f);
        f == wanted
            || unqualified == wanted
            || crate::services::lambda::functions::name_of(f) == wanted
    };
    let mut found: Vec<_> = state
        .lambda
        .invocations
        .iter()
        .rev()
        .filter(|r| q.get("function").is_none_or(|f| names(&r.function, f)))
        .filter(|r| q.get("requestId").is_none_or(|id| *id == r.request_id))
        .filter(|r| q.get("result").is_none_or(|x| *x == r.result))
        .take(limit)
        .collect();
    found.reverse();
    ok(json!({"invocations": found}))
}

async fn clear_outbox(State(app): Shared) -> Response {
    done(app.run(Command::ClearOutbox).await)
}

async fn faults(State(app): Shared) -> Response {
    ok(json!({"faults": app.state().engine.faults.list()}))
}

async fn add_fault(State(app): Shared, body: Bytes) -> Response {
    let body = match json_body(&body) {
        Ok(b) => b,
        Err(e) => return *e,
    };
    let bad = |m: &str| error(StatusCode::BAD_REQUEST, "InvalidArgument", m);
    let Some(target) = body
        .get("target")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
    else {
        return bad("target must be a non-empty string.");
    };
    let Some(status) = body
        .get("status")
        .and_then(Value::as_u64)
        .filter(|s| (100..=599).contains(s))
    else {
        return bad("status must be an HTTP status code (100-599).");
    };
    let error_code = match body.get("errorCode") {
        None | Some(Value::Null) => None,
        Some(Value::String(code)) => Some(code.clone()),
        Some(_) => return bad("errorCode must be a string."),
    };
    let count = match body.get("count") {
        None | Some(Value::Null) => None,
        Some(n) => match n.as_u64().filter(|n| *n > 0) {
            Some(n) => Some(n),
            None => return bad("count must be a positive integer."),
        },
    };
    let command = Command::AddFault {
        target: target.to_string(),
        status: status as u16,
        error_code,
        count,
    };
    let id = match app.run(command).await {
        Ok(Applied::FaultAdded(id)) => id,
        other => return done(other),
    };
    (
        StatusCode::CREATED,
        [(header::CONTENT_TYPE, "application/json")],
        json!({"id": id}).to_string(),
    )
        .into_response()
}

async fn remove_fault(State(app): Shared, Path(id): Path<String>) -> Response {
    let removed = app.run(Command::RemoveFault { id: id.clone() }).await;
    if let Err(e) = removed {
        return done(Err::<(), _>(e));
    }
    if let Ok(Applied::Removed(true)) = removed {
        ok(json!({}))
    } else {
        error(
            StatusCode::NOT_FOUND,
            "FaultNotFound",
            format!("No fault with id {id}."),
        )
    }
}

async fn clear_faults(State(app): Shared) -> Response {
    done(app.run(Command::ClearFaults).await)
}

async fn metrics(State(app): Shared) -> Response {
    let text = app.state().engine.metrics.render();
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        text,
    )
        .into_response()
}
