//! `switchyard endpoint`: the small HTTP endpoint the README's SNS examples deliver to. It answers
//! every request with one status (`--status`, 200 by default), except that it confirms an SNS
//! SubscriptionConfirmation by GETting its SubscribeURL before answering 200 (unless
//! `--no-confirm`): a subscription's confirmation is the subscriber's act, not one of the
//! deliveries a test wants to fail. Each request is one logfmt line on stdout, numbered, with
//! what SNS says about it (`x-amz-sns-message-type`, `x-amz-sns-message-id`), so a reader sees
//! every attempt as it happens.
//! Not part of the emulator: a leaf that depends on nothing of it but the line format.

use crate::logfmt::write_value;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::future::Future;
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::net::TcpListener;

/// More than any SNS message (256 KiB) or EventBridge event; larger bodies are refused with 413.
const MAX_BODY: usize = 1024 * 1024;

/// What `switchyard endpoint` was told.
#[derive(Debug, Clone)]
pub struct Settings {
    pub host: String,
    /// 0 picks a free port.
    pub port: u16,
    /// The status of every answer but a confirmed SubscriptionConfirmation's.
    pub status: StatusCode,
    /// Confirm SNS subscriptions by GETting their SubscribeURL.
    pub confirm: bool,
}

struct Endpoint {
    settings: Settings,
    requests: AtomicU64,
}

/// Binds, prints `switchyard endpoint listening on http://<host>:<port>` and serves until
/// `shutdown` resolves.
pub async fn serve(
    settings: Settings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let listener = TcpListener::bind((settings.host.as_str(), settings.port)).await?;
    let port = listener.local_addr()?.port();
    let mut stdout = io::stdout().lock();
    writeln!(
        stdout,
        "switchyard endpoint listening on http://{}:{port} (answering {})",
        settings.host,
        settings.status.as_u16()
    )?;
    stdout.flush()?;
    drop(stdout);
    let endpoint = Arc::new(Endpoint {
        settings,
        requests: AtomicU64::new(0),
    });
    let routes = Router::new().fallback(answer).with_state(endpoint);
    axum::serve(listener, routes)
        .with_graceful_shutdown(shutdown)
        .await
}

/// Every request, whatever its method and path.
async fn answer(State(endpoint): State<Arc<Endpoint>>, request: Request) -> StatusCode {
    let n = endpoint.requests.fetch_add(1, Ordering::SeqCst) + 1;
    let (parts, body) = request.into_parts();
    let header = |name: &str| header(&parts.headers, name);
    let kind = header("x-amz-sns-message-type");
    let mut line = Line::default();
    line.field("n", &n.to_string());
    line.field("method", parts.method.as_str());
    line.field("path", parts.uri.path());
    line.field("type", kind.unwrap_or("-"));
    line.field("message_id", header("x-amz-sns-message-id").unwrap_or("-"));
    let body = match http_body_util::Limited::new(body, MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => {
            line.field("status", "413");
            line.print();
            return StatusCode::PAYLOAD_TOO_LARGE;
        }
    };
    let status = if kind == Some("SubscriptionConfirmation") && endpoint.settings.confirm {
        let confirmed = confirm(&body).await;
        line.field(
            "confirmed",
            if confirmed.is_ok() { "true" } else { "false" },
        );
        if let Err(why) = confirmed {
            line.field("error", &why);
        }
        StatusCode::OK
    } else {
        endpoint.settings.status
    };
    line.field("status", &status.as_u16().to_string());
    line.print();
    status
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// GETs the SubscribeURL of a SubscriptionConfirmation, as a subscriber confirms.
async fn confirm(body: &Bytes) -> Result<(), String> {
    let message: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    let url = message["SubscribeURL"]
        .as_str()
        .ok_or("the message has no SubscribeURL")?;
    let uri: axum::http::Uri = url
        .parse()
        .map_err(|e| format!("SubscribeURL {url}: {e}"))?;
    let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let response = client
        .get(uri)
        .await
        .map_err(|e| format!("GET {url}: {e}"))?;
    match response.status() {
        s if s.is_success() => Ok(()),
        s => Err(format!("GET {url} answered {}", s.as_u16())),
    }
}

/// One logfmt line, written whole so concurrent requests never interleave.
#[derive(Default)]
struct Line(String);

impl Line {
    fn field(&mut self, key: &str, value: &str) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        self.0.push_str(key);
        self.0.push('=');
        let _ = write_value(&mut self.0, value);
    }

    fn print(mut self) {
        self.0.push('\n');
        let mut stdout = io::stdout().lock();
        let _ = stdout.write_all(self.0.as_bytes());
        let _ = stdout.flush();
    }
}
