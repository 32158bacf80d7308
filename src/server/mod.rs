//! The HTTP server: one port for the AWS APIs, the control API under `/_switchyard/` and
//! LocalStack's developer endpoints under `/_localstack/` and `/_aws/`, and the library API Rust
//! tests use to run an emulator in-process on a free port.
//! The top layer: nothing in the library imports it.

mod connections;
mod console;
mod control;
pub mod init;
mod localstack;
mod resources;
mod sqs_messages;

use crate::config::Config;
use crate::engine::time::Millis;
use crate::runtime::init_status::Stage;
use crate::runtime::{self, Advance, AdvanceError, Advanced, Runtime};
use crate::state::snapshot::SnapshotError;
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use hyper_util::service::TowerToHyperService;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// A running emulator, in-process: the AWS APIs and the control API on one port, served by
/// tasks of the current tokio runtime. Dropping it stops it.
///
/// The kit for Rust tests (docs/testing.md, "Rust"): [`Emulator::start`] with
/// [`Config::for_tests`] (a free port, a manual clock), AWS clients pointed at [`Emulator::url`],
/// and the clock moved with [`Emulator::advance`] instead of a sleep. The control methods match
/// the Python and JavaScript kits': `advance`, `settle`, `now`, `reset`, `state` as
/// [`Emulator::state_snapshot`], `load_state`, `stop`.
///
/// ```
/// use std::time::Duration;
/// use switchyard::{Config, Emulator};
///
/// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let emulator = Emulator::start(Config::for_tests()).await?;
/// let before = emulator.now();
/// emulator.advance(Duration::from_secs(30)).await?;
/// assert_eq!(emulator.now().duration_since(before)?, Duration::from_secs(30));
/// emulator.stop().await?;
/// # Ok(()) }
/// ```
pub struct Emulator {
    url: String,
    addr: SocketAddr,
    app: Arc<Runtime>,
    server: Option<JoinHandle<io::Result<()>>>,
    timers: JoinHandle<()>,
}

impl Emulator {
    /// Binds `config.host:config.port` (0 = a free port), starts serving, then creates the
    /// init resources and runs the init scripts the config names ([`init`]; `/_localstack/init`
    /// shows how far it got). An init that cannot start or whose resource file fails is an
    /// error carrying an [`init::InitError`].
    ///
    /// With `config.state_file` it starts from that snapshot; a file that cannot be read is an
    /// error carrying a [`StateFileError`].
    ///
    /// It must be called inside a tokio runtime (`#[tokio::test]`, `#[tokio::main]`), which
    /// then runs its server and timers.
    ///
    /// ```
    /// # #[tokio::main] async fn main() -> std::io::Result<()> {
    /// let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// assert!(emulator.url().starts_with("http://127.0.0.1:"));
    /// # Ok(()) }
    /// ```
    pub async fn start(mut config: Config) -> io::Result<Emulator> {
        let plan = init::Plan::load(&config).map_err(io::Error::other)?;
        let initial = match &config.state_file {
            Some(path) => Some(read_state_file(path, &config)?),
            None => None,
        };
        let listener = TcpListener::bind((config.host.as_str(), config.port)).await?;
        let addr = listener.local_addr()?;
        config.port = addr.port();
        let url = format!("http://{}:{}", config.host, addr.port());
        let app = Runtime::open(config).map_err(io::Error::other)?;
        if let Some(state) = initial {
            let ticket = app.install(state);
            app.durable(ticket)
                .await
                .map_err(|e| io::Error::other(e.message))?;
        }
        let timers = tokio::spawn(runtime::run_timers(app.clone()));
        let closing = app.clone();
        let front = Front::new(app.clone());
        let idle_timeout = app.config.idle_timeout;
        let server = tokio::spawn(connections::serve(
            listener,
            front,
            idle_timeout,
            async move { closing.closed().await },
        ));
        app.init.update(|p| p.complete_until(Stage::Start));
        let emulator = Emulator {
            url,
            addr,
            app,
            server: Some(server),
            timers,
        };
        if let Err(e) = plan.run(&emulator.app, addr).await {
            let _ = emulator.stop().await;
            return Err(io::Error::other(e));
        }
        Ok(emulator)
    }

    /// `http://<host>:<port>`, the endpoint URL to give AWS clients (`endpoint_url`,
    /// `AWS_ENDPOINT_URL`) and the base of the control API.
    ///
    /// ```
    /// # #[tokio::main] async fn main() -> std::io::Result<()> {
    /// let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// let control = format!("{}/_switchyard/clock/advance", emulator.url());
    /// assert_eq!(emulator.url(), format!("http://{}", emulator.addr()));
    /// # let _ = control; Ok(()) }
    /// ```
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The address it listens on; with `port: 0` in the config, the port it was given.
    ///
    /// ```
    /// # #[tokio::main] async fn main() -> std::io::Result<()> {
    /// let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// assert_ne!(emulator.addr().port(), 0);
    /// # Ok(()) }
    /// ```
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The runtime behind it: switchyard's own tests and tools reach into it; no compatibility
    /// is promised.
    #[doc(hidden)]
    pub fn app(&self) -> &Arc<Runtime> {
        &self.app
    }

    /// The running state as a snapshot file, as `GET /_switchyard/state` answers it (the Python
    /// kit's `state()`): JSON bytes to write to a file for `--state-file`, or to give
    /// [`Emulator::load_state`] later.
    ///
    /// ```
    /// # #[tokio::main] async fn main() -> std::io::Result<()> {
    /// let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// let snapshot = emulator.state_snapshot();
    /// assert_eq!(snapshot.first(), Some(&b'{'));
    /// # Ok(()) }
    /// ```
    pub fn state_snapshot(&self) -> Vec<u8> {
        self.app.snapshot()
    }

    /// Replaces the running state with a snapshot file, as `POST /_switchyard/state` does: the
    /// resources, messages, pending deliveries and virtual time it holds.
    ///
    /// ```
    /// use std::time::Duration;
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// let saved = emulator.state_snapshot();
    /// let then = emulator.now();
    /// emulator.advance(Duration::from_secs(3600)).await?;
    /// emulator.load_state(&saved).await?;
    /// assert_eq!(emulator.now(), then);
    /// # Ok(()) }
    /// ```
    pub async fn load_state(&self, bytes: &[u8]) -> Result<(), SnapshotError> {
        self.app.load_snapshot(bytes).await
    }

    /// Moves virtual time forward by `by`, exactly as `POST /_switchyard/clock/advance
    /// {"seconds": ...}` does: due timers fire in order, each seeing its own due time, and this
    /// returns once the work they set off (HTTP deliveries included) has finished, with the new
    /// virtual time and how many timers fired. A `real` clock answers
    /// [`AdvanceError::NotAdjustable`]. `examples/in_process.rs` shows it in a test.
    ///
    /// ```
    /// use std::time::Duration;
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// let advanced = emulator.advance(Duration::from_secs(900)).await?;
    /// assert_eq!(advanced.fired, 0); // nothing was due
    ///
    /// let real = switchyard::Config { clock: switchyard::ClockMode::Real, ..switchyard::Config::for_tests() };
    /// let real = switchyard::Emulator::start(real).await?;
    /// let refused = real.advance(Duration::from_secs(1)).await;
    /// assert_eq!(refused, Err(switchyard::AdvanceError::NotAdjustable));
    /// # Ok(()) }
    /// ```
    pub async fn advance(&self, by: Duration) -> Result<Advanced, AdvanceError> {
        let ms = Millis::try_from(by.as_millis()).map_err(|_| AdvanceError::OutOfRange)?;
        self.app.advance(Advance::By(ms)).await
    }

    /// Moves virtual time forward to `until`, as `POST /_switchyard/clock/advance {"until": ...}`
    /// does; a time before the current virtual time is [`AdvanceError::InPast`].
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// let tomorrow = emulator.now() + Duration::from_secs(86_400);
    /// emulator.advance_until(tomorrow).await?;
    /// assert_eq!(emulator.now(), tomorrow);
    /// assert!(emulator.advance_until(SystemTime::UNIX_EPOCH).await.is_err()); // the past
    /// # Ok(()) }
    /// ```
    pub async fn advance_until(&self, until: SystemTime) -> Result<Advanced, AdvanceError> {
        let ms = match until.duration_since(UNIX_EPOCH) {
            Ok(after) => Millis::try_from(after.as_millis()),
            Err(before) => Millis::try_from(before.duration().as_millis()).map(|ms| -ms),
        };
        let ms = ms.map_err(|_| AdvanceError::OutOfRange)?;
        self.app.advance(Advance::Until(ms)).await
    }

    /// Runs what is due now without moving the clock: [`Emulator::advance`] by zero, as the
    /// Python and JavaScript kits' `settle()` (`POST /_switchyard/clock/advance {"seconds": 0}`).
    /// Deliveries a request set off are then finished, HTTP attempts included.
    ///
    /// ```
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// let before = emulator.now();
    /// emulator.settle().await?;
    /// assert_eq!(emulator.now(), before);
    /// # Ok(()) }
    /// ```
    pub async fn settle(&self) -> Result<Advanced, AdvanceError> {
        self.app.advance(Advance::By(0)).await
    }

    /// The current virtual time, as `GET /_switchyard/clock` answers it (`now`, `epochMillis`),
    /// to millisecond precision. With a manual clock it moves only by [`Emulator::advance`],
    /// [`Emulator::advance_until`] and [`Emulator::load_state`]; it starts at the wall time
    /// the emulator started.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// let start = emulator.now();
    /// assert!(start > SystemTime::UNIX_EPOCH);
    /// emulator.advance(Duration::from_millis(1500)).await?;
    /// assert_eq!(emulator.now(), start + Duration::from_millis(1500));
    /// # Ok(()) }
    /// ```
    pub fn now(&self) -> SystemTime {
        let ms = self.app.state().now();
        let magnitude = Duration::from_millis(ms.unsigned_abs());
        if ms >= 0 {
            UNIX_EPOCH + magnitude
        } else {
            UNIX_EPOCH - magnitude
        }
    }

    /// Empties the emulator, as `POST /_switchyard/reset` does: no resources, messages, pending
    /// deliveries, delivery log, outbox, faults or Lambda environments; the clock keeps its mode
    /// and time. With a state directory, what it kept is cleared too, and this returns once
    /// that is on disk. A test that shares an emulator with others calls it first.
    ///
    /// ```
    /// use std::time::Duration;
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// emulator.advance(Duration::from_secs(60)).await?;
    /// let now = emulator.now();
    /// emulator.reset().await?;
    /// assert_eq!(emulator.now(), now); // the time stays
    /// # Ok(()) }
    /// ```
    pub async fn reset(&self) -> io::Result<()> {
        self.app
            .reset()
            .await
            .map_err(|e| io::Error::other(format!("{}: {}", e.code, e.message)))
    }

    /// Stops accepting requests, ends long polls at once and waits for the server to finish:
    /// every connection is closed within [`connections::SHUTDOWN_GRACE`].
    ///
    /// ```
    /// # #[tokio::main] async fn main() -> std::io::Result<()> {
    /// let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// let addr = emulator.addr();
    /// emulator.stop().await?;
    /// assert!(std::net::TcpStream::connect(addr).is_err());
    /// # Ok(()) }
    /// ```
    pub async fn stop(mut self) -> io::Result<()> {
        self.close().await
    }

    /// [`Emulator::stop`] for an emulator that cannot be given away (one a test harness holds):
    /// afterwards it answers nothing, and its state directory is free for another.
    ///
    /// ```
    /// # #[tokio::main] async fn main() -> std::io::Result<()> {
    /// let mut emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
    /// emulator.close().await?;
    /// assert!(std::net::TcpStream::connect(emulator.addr()).is_err());
    /// # Ok(()) }
    /// ```
    pub async fn close(&mut self) -> io::Result<()> {
        self.app.close();
        self.timers.abort();
        let served = match self.server.take() {
            Some(server) => server.await.map_err(io::Error::other)?,
            None => Ok(()),
        };
        self.app.stop_functions().await;
        self.app.close_journal();
        served
    }
}

/// The state in the snapshot file at `path`, with `config`'s settings.
fn read_state_file(path: &std::path::Path, config: &Config) -> io::Result<crate::state::State> {
    let bytes = std::fs::read(path).map_err(|e| StateFileError::io(path, &e))?;
    let lambdas = config.lambda_endpoints.iter().cloned().collect();
    crate::dispatch::read_snapshot(&bytes, lambdas, config.enforce_policies)
        .map_err(|e| StateFileError::io(path, &e))
}

/// The state file given to start from cannot be read: its path and the cause.
#[derive(Debug)]
pub struct StateFileError(String);

impl StateFileError {
    /// The error `Emulator::start` answers: the path and the cause.
    fn io(path: &std::path::Path, cause: &dyn std::fmt::Display) -> io::Error {
        io::Error::other(StateFileError(format!(
            "state file {}: {cause}",
            path.display()
        )))
    }
}

impl std::fmt::Display for StateFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StateFileError {}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.app.close();
        self.timers.abort();
        self.app.close_journal();
    }
}

/// Every route: the control API, the console, LocalStack's endpoints, and everything else to the
/// AWS front-ends.
pub fn router(app: Arc<Runtime>) -> Router {
    control::routes()
        .merge(console::routes())
        .merge(localstack::routes())
        .fallback(|State(app), request| aws(app, request))
        .with_state(app)
}

type Answer = std::pin::Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

/// What the accept loop serves: the router's paths all begin `/_` (the control API, the
/// console, LocalStack's endpoints), so any other request goes to the AWS front-ends without
/// matching it against the route table first (a few tenths of a microsecond a request).
#[derive(Clone)]
struct Front {
    app: Arc<Runtime>,
    routes: TowerToHyperService<Router>,
}

impl Front {
    fn new(app: Arc<Runtime>) -> Front {
        let routes = TowerToHyperService::new(router(app.clone()));
        Front { app, routes }
    }
}

impl hyper::service::Service<hyper::Request<Incoming>> for Front {
    type Response = Response;
    type Error = Infallible;
    type Future = Answer;

    fn call(&self, request: hyper::Request<Incoming>) -> Answer {
        if request.uri().path().starts_with("/_") {
            let answer = self.routes.call(request);
            return Box::pin(async move {
                crate::panics::catch(answer).await.unwrap_or_else(|panic| {
                    tracing::error!(panic, "a request to switchyard's own API panicked");
                    Ok(control::error(
                        axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                        "InternalFailure",
                        "switchyard failed on this request; its log has the cause.",
                    ))
                })
            });
        }
        let app = self.app.clone();
        Box::pin(async move { Ok(aws(app, request.map(Body::new)).await) })
    }
}

async fn aws(app: Arc<Runtime>, request: Request) -> Response {
    // The certificate SNS signatures verify against (SigningCertURL).
    let signer = &crate::services::sns::SIGNER;
    if request.method() == axum::http::Method::GET
        && request.uri().path().strip_prefix('/') == Some(signer.certificate_name())
    {
        let pem = signer.certificate_pem().to_string();
        return (
            [(axum::http::header::CONTENT_TYPE, "application/x-pem-file")],
            pem,
        )
            .into_response();
    }
    let (parts, body) = request.into_parts();
    crate::protocol::handle(app, parts, body).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, Empty};
    use hyper::body::Bytes;

    /// A request whose handler panics is answered 500 InternalFailure, and the connection it
    /// came on serves the next request.
    #[tokio::test]
    async fn a_panicking_request_is_answered_500_and_its_connection_lives_on() {
        let app = Runtime::new(Config::for_tests());
        let routes = router(app.clone()).route(
            "/_test/panic",
            axum::routing::get(|| async {
                let empty: Vec<u8> = Vec::new();
                #[allow(clippy::indexing_slicing)]
                empty[3].to_string()
            }),
        );
        let front = Front {
            app,
            routes: TowerToHyperService::new(routes),
        };
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(connections::serve(
            listener,
            front,
            Duration::from_secs(60),
            async {
                let _ = stopped.await;
            },
        ));
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(connection);
        let get = |path: &str| {
            hyper::Request::get(path)
                .header("host", "localhost")
                .body(Empty::<Bytes>::new())
                .unwrap()
        };
        let answer = sender.send_request(get("/_test/panic")).await.unwrap();
        assert_eq!(answer.status(), 500);
        let body = answer.into_body().collect().await.unwrap().to_bytes();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"], "InternalFailure");
        let again = sender
            .send_request(get("/_switchyard/health"))
            .await
            .unwrap();
        assert_eq!(again.status(), 200);
        let _ = stop.send(());
        server.await.unwrap().unwrap();
    }
}
