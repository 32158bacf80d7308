//! The web console at `/_switchyard/ui` (its files, embedded at build time from
//! `src/server/ui/`), the read-only `/_switchyard/resources` view it draws from, and
//! LocalStack's `/_aws/sqs/messages` it peeks into queues with. The console itself only calls
//! the control API and the AWS APIs, like any other client.

use super::resources;
use super::sqs_messages::{self, Peek};
use crate::runtime::Runtime;
use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::collections::HashMap;
use std::sync::Arc;

type Shared = State<Arc<Runtime>>;

/// The console's files: name, content type, bytes. Plain HTML, CSS and ES modules: no build step.
const FILES: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("ui/index.html"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("ui/style.css"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("ui/app.js"),
    ),
    (
        "timeline.js",
        "text/javascript; charset=utf-8",
        include_str!("ui/timeline.js"),
    ),
    (
        "forms.js",
        "text/javascript; charset=utf-8",
        include_str!("ui/forms.js"),
    ),
];

pub fn routes() -> Router<Arc<Runtime>> {
    Router::new()
        .route("/_switchyard/ui", get(index))
        .route("/_switchyard/ui/", get(index))
        .route("/_switchyard/ui/{file}", get(file))
        .route("/_switchyard/resources", get(resources))
        .route("/_aws/sqs/messages", get(messages))
        .route("/_aws/sqs/messages/{*rest}", get(messages_at))
}

async fn index() -> Response {
    serve("index.html")
}

async fn file(Path(name): Path<String>) -> Response {
    serve(&name)
}

fn serve(name: &str) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, content_type, body)) => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, *content_type),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            *body,
        )
            .into_response(),
        None => super::control::error(
            StatusCode::NOT_FOUND,
            "NotFound",
            format!("The console has no file {name}."),
        ),
    }
}

async fn resources(State(app): Shared, headers: HeaderMap) -> Response {
    let host = crate::protocol::url_host(&app.config, &headers);
    let view = resources::view(&app.state(), &host, app.config.queue_url_style);
    super::control::ok(view)
}

async fn messages(State(app): Shared, RawQuery(query): RawQuery, headers: HeaderMap) -> Response {
    let query: HashMap<String, String> = super::control::query_map(query);
    let peek = Peek::from_request(&query, &headers);
    sqs_messages::by_url(&app, query.get("QueueUrl").map(String::as_str), &peek)
}

async fn messages_at(
    State(app): Shared,
    Path(rest): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let peek = Peek::from_request(&super::control::query_map(query), &headers);
    sqs_messages::by_path(&app, &rest, &peek)
}
