//! The Lambda Runtime API (version 2018-06-01) that one environment's runtime talks to, on a
//! listener of its own (127.0.0.1, a free port; `AWS_LAMBDA_RUNTIME_API` names it), served with
//! hyper's HTTP/1.1 connections:
//!
//! - `GET /2018-06-01/runtime/invocation/next` waits, without limit, until an invocation is given
//!   to this environment, and answers its payload with the headers `Lambda-Runtime-Aws-Request-Id`,
//!   `Lambda-Runtime-Deadline-Ms` (epoch milliseconds, wall time: now plus the function's
//!   timeout), `Lambda-Runtime-Invoked-Function-Arn`, and `Lambda-Runtime-Trace-Id` and
//!   `Lambda-Runtime-Client-Context` when the invocation has them.
//! - `POST /2018-06-01/runtime/invocation/{id}/response`: the handler's answer; 202.
//! - `POST /2018-06-01/runtime/invocation/{id}/error`: a function error, the body its error
//!   document (the header `Lambda-Runtime-Function-Error-Type` names its type); 202.
//! - `POST /2018-06-01/runtime/init/error`: the runtime could not start the function; 202. AWS
//!   says the runtime should exit after it; the error answers the invocation waiting, and any
//!   later one given to this environment.
//!
//! An id other than the invocation under way's, or a second answer to it, is refused with 400
//! and AWS's error document (`InvalidRequestID`). An answer over 6,291,556 bytes is refused with
//! 413 (`RequestEntityTooLarge`, as AWS tells the runtime) and ends the invocation with
//! `Function.ResponseSizeTooLarge`; the runtime can go on to the next invocation.

use super::output::Output;
use crate::clock::Clock;
use crate::engine::time::Millis;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinSet;

/// The largest answer a function may give (AWS's 6 MB invocation payload limit).
pub const MAX_RESPONSE_BYTES: usize = 6_291_556;

/// How much of a too-large answer is read (and dropped) so that the runtime gets its 413 on a
/// connection it can keep using; past it the connection is closed.
const DRAIN_LIMIT: usize = 64 << 20;

/// An invocation given to an environment.
pub(super) struct Task {
    pub request_id: String,
    pub payload: Bytes,
    pub invoked_arn: String,
    pub client_context: Option<String>,
    pub trace_id: Option<String>,
    pub timeout: Duration,
    /// Where the Runtime API tells what became of it.
    pub replies: mpsc::UnboundedSender<Reply>,
}

/// What the Runtime API tells the invocation side.
#[derive(Debug)]
pub(super) enum Reply {
    /// `/next` handed the event out. `before` is the output written before that moment.
    Picked { before: String },
    /// `/response`.
    Response(Bytes),
    /// `/error`: the error document.
    Error(Bytes),
    /// An answer over [`MAX_RESPONSE_BYTES`].
    TooLarge,
    /// `/init/error`: the error document.
    InitError(Bytes),
}

/// The meeting point of the invocation side and the runtime's requests.
pub(super) struct Exchange {
    state: Mutex<Waiting>,
    offered: Notify,
    output: Arc<Output>,
}

#[derive(Default)]
struct Waiting {
    /// Given to the environment, not yet fetched by `/next`.
    pending: Option<Task>,
    /// Fetched by `/next`, not yet answered: its id and where to tell the answer.
    current: Option<(String, mpsc::UnboundedSender<Reply>)>,
    /// What the runtime posted to `/init/error`.
    init_error: Option<Bytes>,
}

impl Exchange {
    pub(super) fn new(output: Arc<Output>) -> Arc<Exchange> {
        Arc::new(Exchange {
            state: Mutex::new(Waiting::default()),
            offered: Notify::new(),
            output,
        })
    }

    fn state(&self) -> MutexGuard<'_, Waiting> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Gives `task` to the runtime's next `/next`; or answers the runtime's init error, which
    /// every invocation of an environment whose init failed gets.
    pub(super) fn offer(&self, task: Task) -> Result<(), Bytes> {
        let mut state = self.state();
        if let Some(error) = &state.init_error {
            return Err(error.clone());
        }
        state.pending = Some(task);
        drop(state);
        self.offered.notify_one();
        Ok(())
    }

    /// The invocation `request_id` has ended (timed out, its runtime gone): a late answer to it
    /// is refused like any unknown id.
    pub(super) fn forget(&self, request_id: &str) {
        let mut state = self.state();
        if state
            .pending
            .as_ref()
            .is_some_and(|t| t.request_id == request_id)
        {
            state.pending = None;
        }
        if state
            .current
            .as_ref()
            .is_some_and(|(id, _)| id == request_id)
        {
            state.current = None;
        }
    }

    /// Waits for the next task and makes it the current one.
    async fn next(&self) -> Task {
        loop {
            let notified = self.offered.notified();
            {
                let mut state = self.state();
                if let Some(task) = state.pending.take() {
                    state.current = Some((task.request_id.clone(), task.replies.clone()));
                    return task;
                }
            }
            notified.await;
        }
    }

    /// The current invocation's reply channel, taken, if `request_id` names it.
    fn take_current(&self, request_id: &str) -> Option<mpsc::UnboundedSender<Reply>> {
        let mut state = self.state();
        match &state.current {
            Some((id, _)) if id == request_id => state.current.take().map(|(_, tx)| tx),
            _ => None,
        }
    }

    fn init_failed(&self, document: Bytes) {
        let mut state = self.state();
        state.init_error = Some(document.clone());
        let waiting = match state.pending.take() {
            Some(task) => Some(task.replies),
            None => state.current.take().map(|(_, tx)| tx),
        };
        if let Some(tx) = waiting {
            let _ = tx.send(Reply::InitError(document));
        }
    }
}

/// Serves the Runtime API on `listener` until the task is aborted (the environment stopped);
/// its connections end with it.
pub(super) async fn serve(listener: TcpListener, exchange: Arc<Exchange>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    Clock::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let exchange = exchange.clone();
                let service = service_fn(move |request| {
                    let exchange = exchange.clone();
                    async move { Ok::<_, Infallible>(handle(&exchange, request).await) }
                });
                let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
                connections.spawn(connection);
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn handle(exchange: &Exchange, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let path = request.uri().path().to_owned();
    let Some(rest) = path.strip_prefix("/2018-06-01/runtime/") else {
        return not_found(&path);
    };
    let parts: Vec<&str> = rest.split('/').collect();
    match (request.method(), parts.as_slice()) {
        (&Method::GET, ["invocation", "next"]) => next(exchange).await,
        (&Method::POST, ["invocation", id, "response"]) => {
            answer(exchange, id, request, Reply::Response).await
        }
        (&Method::POST, ["invocation", id, "error"]) => {
            let error_type = error_type(&request);
            let document = move |body: Bytes| Reply::Error(error_document(body, &error_type));
            answer(exchange, id, request, document).await
        }
        (&Method::POST, ["init", "error"]) => {
            let error_type = error_type(&request);
            match read_body(request.into_body()).await {
                Body::Whole(body) => {
                    exchange.init_failed(error_document(body, &error_type));
                    accepted()
                }
                Body::TooLarge => too_large(),
                Body::Broken => bad_body(),
            }
        }
        _ => not_found(&path),
    }
}

async fn next(exchange: &Exchange) -> Response<Full<Bytes>> {
    let task = exchange.next().await;
    // What was written up to now precedes this invocation's START: read it before the runtime
    // can see the event (and its handler write).
    let before = exchange.output.take(false);
    let deadline: Millis = Clock::wall_millis() + task.timeout.as_millis() as Millis;
    let _ = task.replies.send(Reply::Picked { before });
    let mut builder = Response::builder()
        .status(StatusCode::OK)
        .header("Content-Type", "application/json")
        .header("Lambda-Runtime-Aws-Request-Id", &task.request_id)
        .header("Lambda-Runtime-Deadline-Ms", deadline.to_string())
        .header("Lambda-Runtime-Invoked-Function-Arn", &task.invoked_arn);
    let optional = [
        ("Lambda-Runtime-Trace-Id", &task.trace_id),
        ("Lambda-Runtime-Client-Context", &task.client_context),
    ];
    for (name, value) in optional {
        // A value that cannot be a header is left out rather than failing the invocation.
        if let Some(value) = value.as_deref().and_then(|v| HeaderValue::from_str(v).ok()) {
            builder = builder.header(name, value);
        }
    }
    builder
        .body(Full::new(task.payload))
        .unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR, "{}"))
}

/// `/response` and `/error` of invocation `id`: `reply` makes the reply from the body.
async fn answer(
    exchange: &Exchange,
    id: &str,
    request: Request<Incoming>,
    reply: impl FnOnce(Bytes) -> Reply,
) -> Response<Full<Bytes>> {
    let body = read_body(request.into_body()).await;
    if let Body::Broken = body {
        return bad_body();
    }
    let Some(tx) = exchange.take_current(id) else {
        return status(
            StatusCode::BAD_REQUEST,
            r#"{"errorMessage":"Invalid request ID","errorType":"InvalidRequestID"}"#,
        );
    };
    match body {
        Body::Whole(body) => {
            let _ = tx.send(reply(body));
            accepted()
        }
        Body::TooLarge | Body::Broken => {
            let _ = tx.send(Reply::TooLarge);
            too_large()
        }
    }
}

fn error_type(request: &Request<Incoming>) -> Option<String> {
    request
        .headers()
        .get("Lambda-Runtime-Function-Error-Type")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The error document a runtime posted; an empty one is made from the error type header.
fn error_document(body: Bytes, error_type: &Option<String>) -> Bytes {
    if !body.is_empty() {
        return body;
    }
    let error_type = error_type.as_deref().unwrap_or("Unknown");
    let document = serde_json::json!({"errorMessage": "", "errorType": error_type});
    Bytes::from(document.to_string())
}

enum Body {
    Whole(Bytes),
    TooLarge,
    /// The connection ended before the body did.
    Broken,
}

/// Reads a body of at most [`MAX_RESPONSE_BYTES`]; a longer one is read on to its end (up to
/// [`DRAIN_LIMIT`]) and dropped.
async fn read_body(mut body: Incoming) -> Body {
    let mut kept = Vec::new();
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return Body::Broken;
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        total = total.saturating_add(data.len());
        if total <= MAX_RESPONSE_BYTES {
            kept.extend_from_slice(&data);
        } else if total > DRAIN_LIMIT {
            return Body::TooLarge;
        } else {
            kept = Vec::new();
        }
    }
    match total > MAX_RESPONSE_BYTES {
        true => Body::TooLarge,
        false => Body::Whole(Bytes::from(kept)),
    }
}

fn status(code: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *response.status_mut() = code;
    response
        .headers_mut()
        .insert("Content-Type", HeaderValue::from_static("application/json"));
    response
}

fn accepted() -> Response<Full<Bytes>> {
    status(StatusCode::ACCEPTED, r#"{"status":"OK"}"#)
}

fn too_large() -> Response<Full<Bytes>> {
    status(
        StatusCode::PAYLOAD_TOO_LARGE,
        r#"{"errorMessage":"Exceeded maximum allowed payload size (6291556 bytes).","errorType":"RequestEntityTooLarge"}"#,
    )
}

fn bad_body() -> Response<Full<Bytes>> {
    status(
        StatusCode::BAD_REQUEST,
        r#"{"errorMessage":"The request body could not be read","errorType":"InvalidRequest"}"#,
    )
}

fn not_found(path: &str) -> Response<Full<Bytes>> {
    let body = serde_json::json!({
        "errorMessage": format!("No such Runtime API path: {path}"),
        "errorType": "InvalidRequest",
    });
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}
