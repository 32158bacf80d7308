//! Accepting and serving HTTP/1.1 connections so that no client can hold the server: a request
//! head must arrive within [`Config::idle_timeout`] of the connection opening or of its previous
//! answer (a half-sent head or an idle keep-alive connection is closed then), and shutdown ends
//! every connection within [`SHUTDOWN_GRACE`] whatever it is doing.
//! `axum::serve` has neither: it sets no header timeout and waits for every connection to end.

use crate::clock::Clock;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::future::Future;
use std::io;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

#[cfg(doc)]
use crate::config::Config;

/// How long shutdown lets connections finish what they are doing (an answer being written, a
/// request being read) before it closes them. Long polls end at once when shutdown starts.
pub(super) const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// How long to wait before accepting again after `accept` failed (out of file descriptors, say),
/// instead of spinning on the error.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Serves `service` on `listener` until `shutdown` resolves; then stops accepting, lets idle
/// connections close and busy ones finish for up to [`SHUTDOWN_GRACE`], and drops the rest.
pub(super) async fn serve<S>(
    listener: TcpListener,
    service: S,
    idle_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()>
where
    S: hyper::service::Service<
            hyper::Request<hyper::body::Incoming>,
            Response = axum::response::Response,
            Error = std::convert::Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(idle_timeout);
    let graceful = GracefulShutdown::new();
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!(error = %e, "accepting a connection failed");
                        Clock::sleep(ACCEPT_BACKOFF).await;
                        continue;
                    }
                };
                // Answers are written whole; waiting to fill a segment only adds latency.
                let _ = stream.set_nodelay(true);
                let connection = builder.serve_connection(TokioIo::new(stream), service.clone());
                connections.spawn(graceful.watch(connection));
            }
            // Reaps finished connections so that the set holds only live ones.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let _ = Clock::within(SHUTDOWN_GRACE, graceful.shutdown()).await;
    connections.shutdown().await;
    Ok(())
}
