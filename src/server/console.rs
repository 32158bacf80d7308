//! The web console at `/_switchyard/ui` (its files, embedded at build time from
//! `src/server/ui/`) and the read-only `/_switchyard/resources` view it draws from; it peeks
//! into queues with LocalStack's `/_aws/sqs/messages` (`localstack/`). The console itself only
//! calls the control API, that endpoint and the AWS APIs, like any other client.

use super::resources;
use crate::runtime::Runtime;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
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

pub(super) fn routes() -> Router<Arc<Runtime>> {
    Router::new()
        .route("/_switchyard/ui", get(index))
        .route("/_switchyard/ui/", get(index))
        .route("/_switchyard/ui/{file}", get(file))
        .route("/_switchyard/resources", get(resources))
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
