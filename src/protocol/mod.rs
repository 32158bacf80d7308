//! The protocol front-ends. They know the wire and nothing else: which service and operation a
//! request is for ([`detect`]: target header, content type, `Action`, SigV4 scope, path), its
//! typed input, and how its output or error looks in AWS Query (XML) or AWS JSON 1.0 / 1.1.
//! They sit on top: nothing but the server imports them (not the services, the state, the
//! engine or the runtime).
// What a client sends reaches this code: no `unwrap`, `expect` or indexing that could panic on
// it (tests may); each one left is allowed in place with the reason it cannot fail.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

pub mod detect;
pub mod query;
pub mod rest_json;
pub mod sigv4;
mod unemulated;

use crate::clock::Clock;
use crate::config::{AuthMode, Config};
use crate::error::AwsError;
use crate::model::{Model, ShapeKind};
use crate::runtime::Runtime;
use crate::services::sqs::urls;
use crate::services::{Context, ServiceId};
use axum::body::{Body, Bytes};
use axum::http::header::{AsHeaderName, HeaderName};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use std::sync::Arc;

/// Larger than any request AWS accepts (1 MiB payloads, percent- or JSON-escaped), so anything
/// bigger is refused before it is read.
pub const MAX_REQUEST_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Query,
    Json10,
    Json11,
    /// restJson1: the operation in the method and path (Scheduler, Pipes).
    RestJson,
}

impl Protocol {
    fn content_type(self) -> &'static str {
        match self {
            Protocol::Query => "text/xml",
            Protocol::Json10 => "application/x-amz-json-1.0",
            Protocol::Json11 => "application/x-amz-json-1.1",
            Protocol::RestJson => "application/json",
        }
    }
}

/// AWS's own headers by name, made once: a lookup by `&str` parses the name on every call.
const X_AMZ_TARGET: HeaderName = HeaderName::from_static("x-amz-target");
const X_AMZN_TRACE_ID: HeaderName = HeaderName::from_static("x-amzn-trace-id");
const X_AMZ_DATE: HeaderName = HeaderName::from_static("x-amz-date");
const X_AMZN_REQUESTID: HeaderName = HeaderName::from_static("x-amzn-requestid");

fn header_str(parts: &Parts, name: impl AsHeaderName) -> Option<&str> {
    parts.headers.get(name).and_then(ascii)
}

/// A header value as text when it is all ASCII: what `HeaderValue::to_str` answers (a value
/// holds no control character but tab), in word-sized steps instead of a test per byte.
fn ascii(value: &HeaderValue) -> Option<&str> {
    let bytes = value.as_bytes();
    if bytes.is_ascii() {
        std::str::from_utf8(bytes).ok()
    } else {
        None
    }
}

/// What the request was found to be, for the request log and error rendering.
#[derive(Debug, Default)]
struct Route {
    service: Option<ServiceId>,
    operation: Option<String>,
    /// A Query request asking for its answer in JSON (`Accept: application/json`).
    json_answer: bool,
    /// The credential scope's service, when switchyard does not emulate it.
    unemulated: Option<String>,
}

/// The code of a request that is no AWS call: no signature, no Action, no X-Amz-Target (a
/// browser's `/favicon.ico`, a health check at `/health`, a typo under `/_`). Answered 404 in
/// JSON, as the control API answers, instead of an AWS error in XML.
const NOT_AN_AWS_REQUEST: &str = "NotFound";

fn not_an_aws_request(parts: &Parts) -> AwsError {
    AwsError::new(
        NOT_AN_AWS_REQUEST,
        404,
        format!(
            "{} {} is no AWS API call (it has no signature, Action or X-Amz-Target) and no \
             switchyard endpoint; the control API is under /_switchyard/ (docs/control-api.md)",
            parts.method,
            parts.uri.path()
        ),
    )
}

fn not_an_aws_request_answer(err: &AwsError) -> Response {
    let body = serde_json::json!({"error": err.code, "message": err.message}).to_string();
    let json = [(header::CONTENT_TYPE, "application/json")];
    (StatusCode::NOT_FOUND, json, body).into_response()
}

/// Serves one AWS API request.
pub async fn handle(app: Arc<Runtime>, parts: Parts, body: Body) -> Response {
    let stopwatch = Clock::stopwatch();
    let request_id = app.request_id();
    let protocol = detect::protocol(&parts);
    let mut route = Route {
        json_answer: protocol == Protocol::Query
            && query::json::wanted(header_str(&parts, header::ACCEPT)),
        ..Route::default()
    };
    let mut error_code = None;
    let served = crate::panics::catch(serve(&app, &parts, body, protocol, &request_id, &mut route));
    let served = served.await.unwrap_or_else(|panic| {
        tracing::error!(request_id, panic, "the request panicked");
        Err(AwsError::internal(
            "The request processing has failed because of an unknown error, exception or failure.",
        ))
    });
    let response = match served {
        Ok(response) => response,
        Err(err) => {
            if err.is_server_fault() {
                tracing::error!(request_id, error = %err, "request failed");
            }
            error_code = Some(code_answered(protocol, route.service, &err));
            if let Some(service) = route
                .unemulated
                .as_deref()
                .filter(|_| route.service.is_none())
            {
                error_code = Some(unemulated::CODE);
                route.operation = header_str(&parts, X_AMZ_TARGET)
                    .and_then(|t| t.rsplit_once('.'))
                    .map(|(_, op)| op.to_string());
                unemulated::answer(&parts, service, &request_id)
            } else if err.code == NOT_AN_AWS_REQUEST {
                not_an_aws_request_answer(&err)
            } else if route.json_answer && err.code != "UnknownOperationException" {
                query_json_error(route.service, &err, &request_id)
            } else {
                render_error(protocol, route.service, &err, &request_id)
            }
        }
    };
    let unemulated = route.unemulated.as_deref().unwrap_or("-");
    tracing::info!(
        service = route.service.map_or(unemulated, |s| s.name()),
        operation = route.operation.as_deref().unwrap_or("-"),
        status = response.status().as_u16(),
        duration_us = stopwatch.elapsed().as_micros() as u64,
        error_code,
        request_id,
        "request"
    );
    response
}

async fn serve(
    app: &Runtime,
    parts: &Parts,
    body: Body,
    protocol: Protocol,
    request_id: &str,
    route: &mut Route,
) -> Result<Response, AwsError> {
    let mut query_params = query::Params::new();
    let query_not_utf8 = query::parse_params(
        &mut query_params,
        parts.uri.query().unwrap_or("").as_bytes(),
    );
    let signature = sigv4::read(&parts.headers, &query_params)?;
    let scope_service = signature
        .as_ref()
        .and_then(|s| detect::signing_service(s.service));
    route.service = scope_service;
    // A scope naming a service switchyard does not emulate: answered so (in `handle`) unless
    // the request names an emulated one otherwise (a queue URL, a Version, an X-Amz-Target),
    // which is then served, or refused for its scope under `--auth verify`.
    if let Some(signed) = &signature
        && scope_service.is_none()
    {
        route.unemulated = Some(signed.service.to_string());
    }

    let declared = header_str(parts, header::CONTENT_LENGTH).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_REQUEST_BYTES as u64) {
        return Err(AwsError::too_large(MAX_REQUEST_BYTES));
    }
    let body = read_body(body, MAX_REQUEST_BYTES)
        .await
        .ok_or_else(|| AwsError::too_large(MAX_REQUEST_BYTES))?;

    // Which service and operation, and the raw input; a Query parameter that is not UTF-8 is
    // refused once the caller is known to be allowed.
    let mut not_utf8 = None;
    let (service, operation, raw) = match protocol {
        Protocol::Json10 | Protocol::Json11 => {
            let target = header_str(parts, X_AMZ_TARGET).unwrap_or_default();
            let (service, op) = detect::json_target(target)?;
            route.service = Some(service);
            if !detect::has_operation(service, protocol, op) {
                return Err(AwsError::unknown_operation());
            }
            (service, op.to_string(), Raw::Json(body.clone()))
        }
        Protocol::RestJson => route_rest_json(parts, &body, route)?,
        Protocol::Query => {
            not_utf8 = query_not_utf8;
            // A copy: the signature may borrow from the URL's parameters (empty for a form POST).
            let params = query_params.clone();
            let signed = signature.is_some();
            let (service, action, params) = route_query(
                parts,
                &body,
                params,
                &mut not_utf8,
                signed,
                scope_service,
                route,
            )?;
            (service, action, Raw::Query(params))
        }
    };
    route.operation = Some(operation.clone());
    let model = service.model().ok_or_else(AwsError::unknown_operation)?;

    let access_key = signature.as_ref().map(|s| s.access_key);
    if app.config.auth == AuthMode::Verify {
        authenticate(app, signature.as_ref(), service, parts, &body)?;
    }

    if let Some(bad) = not_utf8 {
        return Err(service.not_utf8(&bad.name, bad.byte));
    }
    let input = decode_input(model, &operation, raw, parts)?;
    check_required(service, &operation, &input)?;

    let cx = Context {
        request_id: request_id.to_string(),
        account: account_for(access_key, &app.config.account),
        region: signature.map_or_else(|| unsigned_region(parts, &app.config), |s| s.region.into()),
        access_key: access_key.map(str::to_string),
        host: url_host(&app.config, &parts.headers),
        queue_url_style: app.config.queue_url_style,
        trace_header: header_str(parts, X_AMZN_TRACE_ID)
            .filter(|t| !t.is_empty())
            .map(str::to_string),
    };
    let output = crate::runtime::call(app, &cx, service, &operation, input).await?;
    if route.json_answer {
        let body = query::json::encode_response(model, &operation, &output, request_id);
        return Ok(json_content(respond(
            StatusCode::OK,
            Protocol::Json10,
            request_id,
            body,
            None,
        )));
    }
    Ok(render_output(
        protocol, model, &operation, &output, request_id,
    ))
}

/// A restJson1 request's service and operation, by its method and path, and its raw input: the
/// URI labels and the body.
fn route_rest_json(
    parts: &Parts,
    body: &Bytes,
    route: &mut Route,
) -> Result<(ServiceId, String, Raw), AwsError> {
    let service = detect::rest_json_service(parts).ok_or_else(AwsError::unknown_operation)?;
    route.service = Some(service);
    let model = service.model().ok_or_else(AwsError::unknown_operation)?;
    let path = parts.uri.path();
    let (op, labels) = rest_json::route(model, &parts.method, path).ok_or_else(|| {
        AwsError::new(
            "UnknownOperationException",
            404,
            format!(
                "{} {path} is no operation of {}.",
                parts.method,
                service.name()
            ),
        )
    })?;
    Ok((service, op.to_string(), Raw::Rest(labels, body.clone())))
}

/// A Query request's service and action, and its parameters: those of the URL (`params`) and
/// of a form body, with SQS's queue named by the path added as `QueueUrl`. A form parameter
/// that is not UTF-8 is noted in `not_utf8` (for refusing once the caller is known to be
/// allowed).
fn route_query(
    parts: &Parts,
    body: &Bytes,
    mut params: query::Params,
    not_utf8: &mut Option<query::NotUtf8>,
    signed: bool,
    scope_service: Option<ServiceId>,
    route: &mut Route,
) -> Result<(ServiceId, String, query::Params), AwsError> {
    let content_type = header_str(parts, header::CONTENT_TYPE).unwrap_or("");
    if content_type.starts_with("application/x-www-form-urlencoded") {
        *not_utf8 = not_utf8.take().or(query::parse_params(&mut params, body));
    }
    let Some(action) = params.get("Action").cloned() else {
        // SQS answers a request without an action with UnknownOperationException.
        let sqs = detect::sqs_endpoint(scope_service, parts.uri.path(), &params);
        return Err(if sqs {
            AwsError::new("UnknownOperationException", 404, "")
        } else if !signed {
            not_an_aws_request(parts)
        } else {
            AwsError::missing_action()
        });
    };
    let service = detect::query_service(scope_service, parts.uri.path(), &params, &action)?;
    route.service = Some(service);
    let known = detect::has_operation(service, Protocol::Query, &action);
    if service == ServiceId::Sqs
        && detect::is_queue_path(parts.uri.path())
        && let Some(err) = crate::services::sqs::not_for_queue_endpoint(&action, known)
    {
        return Err(err);
    }
    if !known {
        return Err(AwsError::invalid_action(&action));
    }
    // SQS's Query API may name the queue by the request path instead of a parameter.
    let path = parts.uri.path();
    let host = header_str(parts, header::HOST).unwrap_or("localhost");
    if service == ServiceId::Sqs && !detect::is_queue_path(path) && urls::is_under_queue(path) {
        return Err(invalid_address(&format!("http://{host}{path}")));
    }
    if service == ServiceId::Sqs && !params.contains_key("QueueUrl") && detect::is_queue_path(path)
    {
        params.insert("QueueUrl".into(), format!("http://{host}{path}"));
    }
    Ok((service, action, params))
}

/// `AuthMode::Verify`: the request is signed, with a known access key, for `service`, and its
/// signature checks out with the key's secret (a session key's own, else the configured one).
fn authenticate(
    app: &Runtime,
    signature: Option<&sigv4::Signature>,
    service: ServiceId,
    parts: &Parts,
    body: &Bytes,
) -> Result<(), AwsError> {
    let sig = signature.ok_or_else(sigv4::missing_token)?;
    if !sigv4::valid_access_key(sig.access_key) {
        return Err(sigv4::invalid_token());
    }
    let expected = detect::signing_name(service);
    if sig.service != expected {
        return Err(sigv4::wrong_service(expected));
    }
    let session = crate::services::iam::keys::account_of(sig.access_key)
        .filter(|_| {
            !app.config
                .credentials
                .iter()
                .any(|(k, _)| *k == sig.access_key)
        })
        .map(|_| crate::services::iam::keys::session_secret(sig.access_key));
    let secret = session
        .as_deref()
        .unwrap_or_else(|| app.config.secret_for(sig.access_key));
    sigv4::verify(
        sig,
        &parts.method,
        &parts.uri,
        &parts.headers,
        body,
        secret,
        app.clock.wall_time(),
    )
}

/// The whole body, or `None` when it is larger than `limit` or cannot be read. A body of one
/// frame, as nearly every request's is, is answered as it came, without the buffer list
/// `axum::body::to_bytes` builds to join frames.
async fn read_body(mut body: Body, limit: usize) -> Option<Bytes> {
    use http_body_util::BodyExt;
    let mut whole: Option<Bytes> = None;
    let mut joined = bytes::BytesMut::new();
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.ok()?.into_data() else {
            continue; // trailers
        };
        if whole.as_ref().map_or(0, Bytes::len) + joined.len() + data.len() > limit {
            return None;
        }
        match whole.take() {
            None if joined.is_empty() => whole = Some(data),
            first => {
                joined.extend_from_slice(&first.unwrap_or_default());
                joined.extend_from_slice(&data);
            }
        }
    }
    Some(whole.unwrap_or_else(|| joined.freeze()))
}

/// The error code the client reads, for the request log: a Query answer (XML, or JSON for
/// `Accept: application/json`) carries the model's Query code (SQS's
/// `AWS.SimpleQueueService.NonExistentQueue`), an AWS JSON answer the error's own name.
fn code_answered(protocol: Protocol, service: Option<ServiceId>, err: &AwsError) -> &'static str {
    match (protocol, service.and_then(ServiceId::model)) {
        (Protocol::Query, Some(model)) => model.query_code(err.code),
        _ => err.code,
    }
}

/// An error of a Query request that asked for JSON.
fn query_json_error(service: Option<ServiceId>, err: &AwsError, request_id: &str) -> Response {
    let model = service.and_then(ServiceId::model);
    let status = model
        .and_then(|m| m.shapes.get(err.code))
        .and_then(|s| s.error.as_ref())
        .and_then(|e| e.http_status_code)
        .unwrap_or(err.status);
    let code = model.map_or(err.code, |m| m.query_code(err.code));
    let body = query::json::encode_error(code, status < 500, &err.message, request_id);
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    json_content(respond(status, Protocol::Json10, request_id, body, None))
}

/// A Query answer in JSON is `application/json`.
fn json_content(mut response: Response) -> Response {
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// Refuses an input without a member its operation requires, at any depth, as the service
/// words it. Requests are checked here once decoded; init resource files before they run.
pub fn check_required(service: ServiceId, operation: &str, input: &Value) -> Result<(), AwsError> {
    let model = service.model().ok_or_else(AwsError::unknown_operation)?;
    if let Some(refused) = service.refused_before_required(operation, input) {
        return Err(refused);
    }
    if service.checks_required_itself(operation) {
        return Ok(());
    }
    let input_shape = (model.operations.get(operation))
        .and_then(|op| op.input.as_ref())
        .map(|r| r.shape.as_str());
    match input_shape.and_then(|shape| missing_member(model, shape, input)) {
        Some((missing, kind)) => Err(service.missing_parameter(&missing, kind)),
        None => Ok(()),
    }
}

/// The first required member absent from `value` (of structure `shape`), at any depth: a batch
/// entry without its `Id` is refused like a request without its `QueueUrl`. Answers its path
/// (member names, with map keys and 1-based list positions followed by `member`) and its kind.
fn missing_member(model: &Model, shape: &str, value: &Value) -> Option<(Vec<String>, ShapeKind)> {
    let shape = model.shape(shape);
    if !shape.requires {
        return None;
    }
    let under = |prefix: Vec<String>, (mut path, kind): (Vec<String>, ShapeKind)| {
        let mut full = prefix;
        full.append(&mut path);
        (full, kind)
    };
    match shape.kind {
        ShapeKind::Structure => {
            // Found by a scan of the value's few members, which costs less than hashing names.
            let member = |name: &str| {
                let mut members = value.as_object()?.iter();
                members.find(|(k, _)| k.as_str() == name).map(|(_, v)| v)
            };
            let absent = (shape.required.iter()).find(|m| member(m).is_none_or(Value::is_null));
            if let Some(m) = absent {
                let kind = model.shape(&shape.members.get(m)?.shape).kind;
                return Some((vec![m.clone()], kind));
            }
            let mut requiring = shape.members.iter().filter(|(_, r)| r.requires);
            requiring.find_map(|(name, r)| {
                let found = missing_member(model, &r.shape, member(name)?)?;
                Some(under(vec![name.clone()], found))
            })
        }
        ShapeKind::List => {
            let member = &shape.member.as_ref()?.shape;
            value.as_array()?.iter().enumerate().find_map(|(i, v)| {
                Some(under(
                    vec![(i + 1).to_string(), "member".into()],
                    missing_member(model, member, v)?,
                ))
            })
        }
        ShapeKind::Map => {
            let member = &shape.value.as_ref()?.shape;
            value.as_object()?.iter().find_map(|(k, v)| {
                Some(under(
                    vec![k.clone(), "member".into()],
                    missing_member(model, member, v)?,
                ))
            })
        }
        _ => None,
    }
}

enum Raw {
    Json(Bytes),
    Query(query::Params),
    /// restJson1: the raw values of the URI labels and the body (the rest is in the request).
    Rest(Vec<(String, String)>, Bytes),
}

fn decode_input(
    model: &Model,
    operation: &str,
    raw: Raw,
    parts: &Parts,
) -> Result<Value, AwsError> {
    let shape = (model.operations.get(operation))
        .and_then(|op| op.input.as_ref())
        .map(|r| r.shape.as_str());
    match raw {
        Raw::Json(body) if body.iter().all(u8::is_ascii_whitespace) => {
            Ok(Value::Object(Default::default()))
        }
        Raw::Json(body) => match serde_json::from_slice::<Value>(&body) {
            Ok(v @ Value::Object(_)) => Ok(v),
            Ok(_) => Err(AwsError::serialization(
                "Request body must be a JSON object.",
            )),
            Err(e) => Err(AwsError::serialization(format!(
                "Request body is not valid JSON: {e}."
            ))),
        },
        Raw::Query(params) => match shape {
            Some(shape) => query::decode(model, shape, &params),
            None => Ok(Value::Object(Default::default())),
        },
        Raw::Rest(labels, body) => {
            let request = rest_json::Request {
                labels: &labels,
                query: parts.uri.query().unwrap_or_default(),
                headers: &parts.headers,
                body: &body,
            };
            rest_json::decode(model, operation, &request)
        }
    }
}

/// The region of a request without a signature: the one its host names (`sqs.<region>.…`,
/// `<region>.queue.…`), as a regional endpoint means its region; else the one its queue path
/// names (`/queue/<region>/…`); else `--region`.
fn unsigned_region(parts: &Parts, config: &Config) -> String {
    header_str(parts, header::HOST)
        .and_then(urls::host_region)
        .or_else(|| urls::parse_path(parts.uri.path()).and_then(|a| a.region))
        .unwrap_or(&config.region)
        .to_string()
}

/// `host[:port]` of the URLs handed back to a request with `headers`: `--hostname` (its port, or
/// the one switchyard listens on), else the host the client addressed, else the listening
/// address.
pub fn url_host(config: &Config, headers: &HeaderMap) -> String {
    match &config.hostname {
        Some(name) if urls::split_authority(name).1.is_empty() => {
            format!("{name}:{}", config.port)
        }
        Some(name) => name.clone(),
        None => headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .map_or_else(
                || format!("{}:{}", config.host, config.port),
                str::to_string,
            ),
    }
}

/// SQS's answer to a request sent to an address under `/queue/` that names no queue.
fn invalid_address(address: &str) -> AwsError {
    AwsError::new(
        "InvalidAddress",
        404,
        format!("The address {address} is not valid for this endpoint."),
    )
}

/// A 12-digit access key id is the account id; a session key (`ASIA…`, as STS AssumeRole hands
/// out) acts in the account it carries; any other key is the default account.
pub fn account_for(access_key: Option<&str>, default: &str) -> String {
    match access_key {
        Some(k) if k.len() == 12 && k.bytes().all(|b| b.is_ascii_digit()) => k.to_string(),
        Some(k) => crate::services::iam::keys::account_of(k).unwrap_or_else(|| default.to_string()),
        None => default.to_string(),
    }
}

fn render_output(
    protocol: Protocol,
    model: &Model,
    operation: &str,
    output: &Value,
    request_id: &str,
) -> Response {
    let body = match protocol {
        Protocol::Query => query::encode_response(model, operation, output, request_id),
        // Straight into bytes: `to_string` goes through `fmt::Write`, a call per token.
        Protocol::Json10 | Protocol::Json11 => {
            // A JSON value always serializes; nothing is lost by the default.
            serde_json::to_vec(output).unwrap_or_default()
        }
        Protocol::RestJson => {
            let encoded = rest_json::encode(model, operation, output);
            let status = StatusCode::from_u16(encoded.status).unwrap_or(StatusCode::OK);
            let mut response = respond(status, protocol, request_id, encoded.body, None);
            response.headers_mut().extend(encoded.headers);
            return response;
        }
    };
    respond(StatusCode::OK, protocol, request_id, body, None)
}

/// Renders `err` as the request's protocol does: XML `ErrorResponse` for Query, `__type` and
/// `message` for JSON (with `x-amzn-query-error` where the service is Query-compatible).
pub fn render_error(
    protocol: Protocol,
    service: Option<ServiceId>,
    err: &AwsError,
    request_id: &str,
) -> Response {
    let model = service.and_then(ServiceId::model);
    let modeled = model
        .and_then(|m| m.shapes.get(err.code))
        .and_then(|s| s.error.as_ref());
    let status = modeled
        .and_then(|e| e.http_status_code)
        .unwrap_or(err.status);
    let query_code = model.map_or(err.code, |m| m.query_code(err.code));
    let sender = status < 500;
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    match protocol {
        Protocol::Query if err.code == "UnknownOperationException" => {
            let body = format!("<?xml version=\"1.0\"?><{0}/>", err.code).into_bytes();
            respond(status, protocol, request_id, body, None)
        }
        Protocol::Query => {
            let sqs_wording = (service == Some(ServiceId::Sqs))
                .then(|| crate::services::sqs::query_message(err.code))
                .flatten();
            let message = sqs_wording.unwrap_or(&err.message);
            let body = query::encode_error(model, query_code, sender, message, request_id);
            respond(status, protocol, request_id, body, None)
        }
        Protocol::Json10 | Protocol::Json11 => {
            let compatible = model.filter(|m| m.metadata.aws_query_compatible.is_some());
            let kind = match compatible {
                Some(m) if modeled.is_some() => {
                    format!("com.amazonaws.{}#{}", m.metadata.endpoint_prefix, err.code)
                }
                Some(_) => unmodeled_json_type(err.code)
                    .map_or_else(|| err.code.to_string(), str::to_string),
                None => err.code.to_string(),
            };
            let body = serde_json::json!({"__type": kind, "message": err.message});
            let body = body.to_string().into_bytes();
            let query_error = compatible.map(|_| {
                format!(
                    "{query_code};{}",
                    if sender { "Sender" } else { "Receiver" }
                )
            });
            respond(status, protocol, request_id, body, query_error)
        }
        Protocol::RestJson => {
            let body = rest_json::error_body(model, err);
            let mut response = respond(status, protocol, request_id, body, None);
            if let Ok(code) = HeaderValue::from_str(err.code) {
                response.headers_mut().insert("x-amzn-errortype", code);
            }
            response
        }
    }
}

/// The JSON `__type` AWS gives Query-compatible errors that are not in the model (recorded from
/// SQS); their Query code rides in the header.
fn unmodeled_json_type(code: &str) -> Option<&'static str> {
    match code {
        "InvalidParameterValue" => Some("com.amazon.coral.service#InvalidParameterValueException"),
        "MissingParameter" => Some("com.amazon.coral.service#MissingRequiredParameterException"),
        "AccessDenied" => Some("com.amazon.coral.service#AccessDeniedException"),
        _ => None,
    }
}

fn respond(
    status: StatusCode,
    protocol: Protocol,
    request_id: &str,
    body: Vec<u8>,
    query_error: Option<String>,
) -> Response {
    // Built whole: `into_response` on bytes would set a content type only to replace it here.
    let mut response = Response::new(axum::body::Body::from(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.reserve(3);
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(protocol.content_type()),
    );
    if let Ok(id) = HeaderValue::from_str(request_id) {
        headers.insert(X_AMZN_REQUESTID, id);
    }
    if let Some(v) = query_error.and_then(|v| HeaderValue::from_str(&v).ok()) {
        headers.insert("x-amzn-query-error", v);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_text_is_what_to_str_answers_for_every_byte() {
        for byte in 0..=255u8 {
            let Ok(value) = HeaderValue::from_bytes(&[b'a', byte, b'z']) else {
                continue;
            };
            assert_eq!(ascii(&value), value.to_str().ok(), "byte {byte}");
        }
    }

    /// A body sent in frames, as a client streaming its upload sends it.
    struct Frames(std::collections::VecDeque<&'static [u8]>);

    impl axum::body::HttpBody for Frames {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
            let next = self.0.pop_front();
            std::task::Poll::Ready(
                next.map(|b| Ok(hyper::body::Frame::data(Bytes::from_static(b)))),
            )
        }
    }

    fn read(frames: &[&'static [u8]], limit: usize) -> Option<Bytes> {
        let body = Body::new(Frames(frames.iter().copied().collect()));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(read_body(body, limit))
    }

    #[test]
    fn a_body_is_read_whole_from_any_number_of_frames_up_to_the_limit() {
        assert_eq!(read(&[], 4).unwrap(), "");
        assert_eq!(read(&[b"abcd"], 4).unwrap(), "abcd");
        assert_eq!(read(&[b"ab", b"", b"c", b"d"], 4).unwrap(), "abcd");
        assert_eq!(read(&[b"", b"abcd"], 4).unwrap(), "abcd");
        assert_eq!(read(&[b"abcde"], 4), None);
        assert_eq!(read(&[b"ab", b"cd", b"e"], 4), None);
    }
}
