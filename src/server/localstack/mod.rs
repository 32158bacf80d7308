//! LocalStack's developer endpoints on the AWS port (docs/localstack.md), so that tools and tests
//! written against LocalStack find them here: `/_localstack/health`, `/info` and `/init`, and
//! under `/_aws/` the SQS peek (`sqs_messages.rs`), the SNS views of SMS and push messages and
//! of confirmation tokens (`sns.rs`) and the trigger of a scheduled rule (`events.rs`).
//! They answer in LocalStack's shapes with switchyard's own values; errors LocalStack does not
//! document are the control API's `{"error", "message"}`.

mod events;
mod sns;

use super::control::{error, ok};
use super::sqs_messages::{self, Peek};
use crate::engine::time::format_rfc3339;
use crate::runtime::Runtime;
use crate::runtime::init_status::{InitProgress, InitScript, Stage};
use crate::services::ServiceId;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{any, get};
use serde_json::{Map, Value, json};
use std::sync::{Arc, OnceLock};

type Shared = State<Arc<Runtime>>;

/// The edition switchyard reports: LocalStack's free one, without licensed features.
const EDITION: &str = "community";

pub(super) fn routes() -> Router<Arc<Runtime>> {
    Router::new()
        // `get` answers HEAD too, without a body: LocalStack's `HEAD /_localstack/health`.
        .route("/_localstack/health", get(health))
        .route("/_localstack/info", get(info))
        .route("/_localstack/init", get(init))
        .route("/_localstack/init/{stage}", get(init_stage))
        .route("/_localstack", any(not_found))
        .route("/_localstack/{*rest}", any(not_found))
        .route("/_aws/sqs/messages", get(messages).post(messages))
        .route("/_aws/sqs/messages/", get(messages).post(messages))
        .route(
            "/_aws/sqs/messages/{*rest}",
            get(messages_at).post(messages_at),
        )
        .route(
            "/_aws/sns/sms-messages",
            get(sns::sms_messages).delete(sns::clear_sms_messages),
        )
        .route(
            "/_aws/sns/platform-endpoint-messages",
            get(sns::platform_messages).delete(sns::clear_platform_messages),
        )
        .route(
            "/_aws/sns/subscription-tokens/{*arn}",
            get(sns::subscription_token),
        )
        .route(
            "/_aws/events/rules/{*rest}",
            get(events::trigger).post(events::trigger),
        )
        .route("/_aws", any(not_found))
        .route("/_aws/{*rest}", any(not_found))
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn(super::control::log_request))
}

async fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "NotFound",
        "No such LocalStack endpoint; docs/localstack.md lists those switchyard serves.",
    )
}

async fn method_not_allowed() -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "MethodNotAllowed",
        "This endpoint does not take that method; docs/localstack.md lists those it takes.",
    )
}

/// LocalStack's name of a service switchyard serves, if LocalStack has one.
fn localstack_name(service: ServiceId) -> Option<&'static str> {
    match service {
        ServiceId::Sqs => Some("sqs"),
        ServiceId::Sns => Some("sns"),
        ServiceId::Events => Some("events"),
        ServiceId::Sts => Some("sts"),
        ServiceId::Iam => Some("iam"),
        ServiceId::Scheduler => Some("scheduler"),
        ServiceId::Pipes => Some("pipes"),
        ServiceId::Lambda => Some("lambda"),
        // The custom event bus has no LocalStack counterpart.
        ServiceId::EventsV2 => None,
    }
}

/// Every service is in memory from the start: all `running`.
async fn health() -> Response {
    let services: Map<String, Value> = ServiceId::SERVING
        .into_iter()
        .filter_map(localstack_name)
        .map(|name| (name.to_string(), json!("running")))
        .collect();
    ok(json!({
        "services": services,
        "edition": EDITION,
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

async fn info(State(app): Shared) -> Response {
    let now = format_rfc3339(app.state().now());
    let docker = is_docker();
    ok(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "edition": EDITION,
        "is_license_activated": false,
        "session_id": app.session_id,
        "machine_id": machine_id(docker),
        "system": std::env::consts::OS,
        "is_docker": docker,
        // LocalStack's form: seconds, no zone (it is UTC); virtual time, as every API dates.
        "server_time_utc": now[..19],
        "uptime": app.uptime().as_secs(),
    }))
}

/// Whether switchyard runs in a container (Docker or Podman leave these files at its root).
fn is_docker() -> bool {
    ["/.dockerenv", "/run/.containerenv"]
        .iter()
        .any(|f| std::path::Path::new(f).exists())
}

/// A stable id of the machine that never shows what it is made from: the first 12 hex digits of
/// the SHA-256 of `/etc/machine-id` (else of the host name), `dkr_`-prefixed in a container as
/// LocalStack's are.
fn machine_id(docker: bool) -> String {
    static ID: OnceLock<String> = OnceLock::new();
    let id = ID.get_or_init(|| {
        use sha2::Digest;
        let source = ["/etc/machine-id", "/etc/hostname"]
            .iter()
            .find_map(|f| std::fs::read_to_string(f).ok())
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_default();
        hex::encode(sha2::Sha256::digest(source.trim().as_bytes()))[..12].to_string()
    });
    if docker {
        format!("dkr_{id}")
    } else {
        id.clone()
    }
}

fn script_json(script: &InitScript) -> Value {
    json!({"stage": script.stage.name(), "name": script.name, "state": script.state.name()})
}

async fn init(State(app): Shared) -> Response {
    let progress: InitProgress = app.init.read();
    let completed: Map<String, Value> = Stage::ALL
        .into_iter()
        .map(|s| (s.name().to_string(), json!(progress.is_completed(s))))
        .collect();
    let scripts: Vec<Value> = progress.scripts.iter().map(script_json).collect();
    ok(json!({"completed": completed, "scripts": scripts}))
}

async fn init_stage(State(app): Shared, Path(stage): Path<String>) -> Response {
    let Some(stage) = Stage::parse(&stage) else {
        return error(
            StatusCode::NOT_FOUND,
            "NotFound",
            format!("No such stage {stage}: the stages are BOOT, START, READY and SHUTDOWN."),
        );
    };
    let progress = app.init.read();
    let scripts: Vec<Value> = progress.scripts_of(stage).map(script_json).collect();
    ok(json!({"completed": progress.is_completed(stage), "scripts": scripts}))
}

/// What a message peek asks (which messages, the answer's shape) and the queue URL its query or
/// body names, or the answer refusing it.
fn peek_request(
    query: Option<String>,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<(Peek, Option<String>), Box<Response>> {
    let query = super::control::query_map(query);
    let peek = Peek::from_request(&query, headers);
    let url = sqs_messages::queue_url(&query, headers, body, &peek)?;
    Ok((peek, url))
}

async fn messages(
    State(app): Shared,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match peek_request(query, &headers, &body) {
        Ok((peek, url)) => sqs_messages::by_url(&app, url.as_deref(), &peek),
        Err(refused) => *refused,
    }
}

async fn messages_at(
    State(app): Shared,
    Path(rest): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match peek_request(query, &headers, &body) {
        Ok((peek, _)) => sqs_messages::by_path(&app, &rest, &peek),
        Err(refused) => *refused,
    }
}
