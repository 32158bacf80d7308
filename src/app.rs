//! The running emulator's shared state: configuration, the clock driver and the engine behind
//! its one lock, and the async side that runs the engine's effects (HTTP deliveries). The lock is
//! std's and is never held across an `.await`.

use crate::clock::{Clock, ClockMode};
use crate::config::Config;
use crate::engine::delivery::Outcome;
use crate::engine::rng::Rng;
use crate::engine::time::Millis;
use crate::engine::{Effect, Engine, Settings};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;
use tokio::sync::Notify;

/// How long an HTTP endpoint has to answer a delivery (SNS: 15 s).
const HTTP_TIMEOUT: Duration = Duration::from_secs(15);

pub struct App {
    pub config: Config,
    pub clock: Clock,
    engine: Mutex<Engine>,
    /// Wakes the timer task (real and fast clocks) when an earlier timer appears.
    pub(crate) ticker: Notify,
    /// One clock advance at a time.
    advancing: tokio::sync::Mutex<()>,
    request_ids: Mutex<Rng>,
    closing: tokio::sync::watch::Sender<bool>,
    /// Effects running on the async side, and a wake-up for when none are left.
    in_flight: AtomicUsize,
    idle: Notify,
    /// http:// and https:// deliveries.
    /// Built on the first delivery: loading the system's root certificates costs milliseconds
    /// that startup should not pay.
    http: std::sync::OnceLock<Client<HttpsConnector<HttpConnector>, Full<Bytes>>>,
    this: Weak<App>,
}

#[derive(Debug, PartialEq)]
pub enum AdvanceError {
    /// `real` clocks cannot be moved.
    NotAdjustable,
    /// The requested time is before the current virtual time.
    InPast { now: Millis },
}

impl App {
    pub fn new(config: Config) -> Arc<App> {
        let clock = Clock::new(config.clock);
        let seed = config.seed.unwrap_or_else(|| clock.wall_nanos_seed());
        let engine = Engine::new(Settings {
            start: clock.now(),
            seed,
            jitter: config.jitter,
            delivery_log_size: config.delivery_log_size,
            lambda_endpoints: config.lambda_endpoints.iter().cloned().collect(),
        });
        if let Some(path) = &config.https_ca {
            // Refuse a bad CA file now rather than at the first delivery.
            load_https_ca(path).unwrap_or_else(|e| panic!("https_ca: {e}"));
        }
        Arc::new_cyclic(|this| App {
            config,
            clock,
            engine: Mutex::new(engine),
            ticker: Notify::new(),
            advancing: tokio::sync::Mutex::new(()),
            request_ids: Mutex::new(Rng::new(seed.rotate_left(17) ^ 0x5EED)),
            closing: tokio::sync::watch::Sender::new(false),
            in_flight: AtomicUsize::new(0),
            idle: Notify::new(),
            http: std::sync::OnceLock::new(),
            this: this.clone(),
        })
    }

    /// Locks the engine, first catching it up to the clock's current virtual time.
    pub fn engine(&self) -> EngineGuard<'_> {
        let mut engine = self.lock_raw();
        engine.run_until(self.clock.now());
        let next_due = engine.next_due();
        EngineGuard {
            engine,
            app: self,
            next_due,
        }
    }

    fn lock_raw(&self) -> MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn request_id(&self) -> String {
        self.request_ids
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .uuid()
    }

    /// Moves virtual time to `target` (CONTROL_API.md, `clock/advance`): timers fire in due order,
    /// each seeing its own due time, and the work they trigger (HTTP deliveries included) has
    /// finished when this returns. Answers how many timers fired.
    pub async fn advance_to(&self, target: Millis) -> Result<usize, AdvanceError> {
        if self.clock.mode() == ClockMode::Real {
            return Err(AdvanceError::NotAdjustable);
        }
        let _one_at_a_time = self.advancing.lock().await;
        let now = self.engine().now();
        if target < now {
            return Err(AdvanceError::InPast { now });
        }
        let mut count = 0;
        loop {
            // Work already under way finishes first: its outcome may schedule timers in the window.
            self.idle().await;
            let mut engine = self.lock_raw();
            let step = engine.fire_next(target);
            let effects = engine.take_effects();
            drop(engine);
            self.start_effects(effects);
            match step {
                Some(n) => count += n,
                None if self.in_flight.load(Ordering::SeqCst) == 0 => break,
                None => {}
            }
        }
        self.clock
            .jump_to(target)
            .map_err(|_| AdvanceError::NotAdjustable)?;
        count += self.engine().run_until(target);
        self.idle().await;
        self.ticker.notify_one();
        Ok(count)
    }

    /// Resolves when no effect is running.
    pub async fn idle(&self) {
        loop {
            let notified = self.idle.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.in_flight.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }

    /// Runs effects on the async side; each reports back to the engine when done.
    fn start_effects(&self, effects: Vec<Effect>) {
        let Some(app) = self.this.upgrade() else {
            return;
        };
        for effect in effects {
            self.in_flight.fetch_add(1, Ordering::SeqCst);
            let app = app.clone();
            tokio::spawn(async move {
                app.run_effect(effect).await;
                if app.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
                    app.idle.notify_waiters();
                }
            });
        }
    }

    async fn run_effect(&self, effect: Effect) {
        match effect {
            Effect::Http {
                delivery,
                method,
                url,
                headers,
                body,
                timeout_ms,
            } => {
                let timeout = timeout_ms.map_or(HTTP_TIMEOUT, |ms| {
                    Duration::from_millis(u64::try_from(ms).unwrap_or(0))
                });
                let (outcome, retry_after) = self.send(&method, &url, headers, body, timeout).await;
                self.engine().complete_after(delivery, outcome, retry_after);
            }
        }
    }

    /// Sends a delivery: 2xx delivered, 5xx and 429 retryable, other answers permanent, and no
    /// answer (refused, unreachable, TLS handshake failed, `timeout`: 15 s by default) retryable.
    /// Also answers the answer's `Retry-After` in milliseconds, when it gave one in seconds.
    async fn send(
        &self,
        method: &str,
        url: &str,
        headers: Vec<(String, String)>,
        body: String,
        timeout: Duration,
    ) -> (Outcome, Option<i64>) {
        let request = match build_request(method, url, headers, body) {
            Ok(r) => r,
            Err(_) => {
                let invalid = Outcome::Permanent {
                    status: None,
                    error_code: Some("InvalidEndpoint".into()),
                };
                return (invalid, None);
            }
        };
        let outcome = match Clock::within(timeout, self.client().request(request)).await {
            None => Outcome::Retryable {
                status: None,
                error_code: Some("Timeout".into()),
            },
            Some(Err(e)) => Outcome::Retryable {
                status: None,
                error_code: Some(
                    if is_tls_error(&e) {
                        "TlsError"
                    } else {
                        "ConnectionError"
                    }
                    .into(),
                ),
            },
            Some(Ok(response)) => {
                let status = response.status().as_u16();
                let retry_after = response
                    .headers()
                    .get(hyper::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<i64>().ok())
                    .map(|seconds| seconds.saturating_mul(1000));
                // Read (a bounded part of) the answer so the connection can be reused.
                let _ = Clock::within(
                    HTTP_TIMEOUT,
                    Limited::new(response.into_body(), 1 << 20).collect(),
                )
                .await;
                return (Outcome::from_status(status, None), retry_after);
            }
        };
        (outcome, None)
    }
}

impl App {
    fn client(&self) -> &Client<HttpsConnector<HttpConnector>, Full<Bytes>> {
        self.http
            .get_or_init(|| delivery_client(self.config.https_ca.as_deref()))
    }

    /// One HTTP exchange outside any delivery (an OAuth token request), through the delivery
    /// client with its timeout: the answer's status and body (the first MiB, lossily UTF-8), or
    /// why there was none.
    pub async fn exchange(
        &self,
        method: &str,
        url: &str,
        headers: Vec<(String, String)>,
        body: String,
    ) -> Result<(u16, String), String> {
        let request = build_request(method, url, headers, body)
            .map_err(|e| format!("invalid request: {e}"))?;
        let response = Clock::within(HTTP_TIMEOUT, self.client().request(request))
            .await
            .ok_or("timed out")?
            .map_err(|e| format!("no answer: {e}"))?;
        let status = response.status().as_u16();
        let body = Clock::within(
            HTTP_TIMEOUT,
            Limited::new(response.into_body(), 1 << 20).collect(),
        )
        .await
        .ok_or("timed out reading the answer")?
        .map_err(|e| format!("reading the answer: {e}"))?
        .to_bytes();
        Ok((status, String::from_utf8_lossy(&body).into_owned()))
    }
}

/// An HTTP request as a delivery or an exchange sends it.
fn build_request(
    method: &str,
    url: &str,
    headers: Vec<(String, String)>,
    body: String,
) -> Result<hyper::Request<Full<Bytes>>, hyper::http::Error> {
    let mut request = hyper::Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    request.body(Full::new(Bytes::from(body)))
}

/// The client of HTTP/S deliveries: http:// and https:// through one connection pool, TCP_NODELAY,
/// HTTP/1.1. HTTPS trusts the system's root certificates and those of `extra_ca` (`--https-ca`).
///
/// # Panics
/// If `extra_ca` cannot be read or holds no certificate (the command line checks it first with
/// [`load_https_ca`]).
fn delivery_client(extra_ca: Option<&Path>) -> Client<HttpsConnector<HttpConnector>, Full<Bytes>> {
    let mut roots = system_roots().clone();
    if let Some(path) = extra_ca {
        let certs = load_https_ca(path).unwrap_or_else(|e| panic!("https_ca: {e}"));
        roots.add_parsable_certificates(certs);
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports the default TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut tcp = HttpConnector::new();
    tcp.set_nodelay(true);
    tcp.enforce_http(false);
    let connector = HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .wrap_connector(tcp);
    Client::builder(TokioExecutor::new()).build(connector)
}

/// The system's trusted root certificates, read once per process (tests start many emulators).
fn system_roots() -> &'static RootCertStore {
    static ROOTS: std::sync::OnceLock<RootCertStore> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for e in &found.errors {
            tracing::warn!("system root certificates: {e}");
        }
        let mut roots = RootCertStore::empty();
        let (_, ignored) = roots.add_parsable_certificates(found.certs);
        if ignored > 0 {
            tracing::debug!("{ignored} system root certificates could not be parsed");
        }
        roots
    })
}

/// The CA certificates of a PEM file (`--https-ca`), checked to be usable as trust anchors.
pub fn load_https_ca(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let shown = path.display();
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{shown}: {e}"))?;
    if certs.is_empty() {
        return Err(format!("{shown}: no CERTIFICATE in the PEM file"));
    }
    let mut check = RootCertStore::empty();
    for cert in &certs {
        check
            .add(cert.clone())
            .map_err(|e| format!("{shown}: not a usable CA certificate: {e}"))?;
    }
    Ok(certs)
}

/// Whether a failed request failed in the TLS handshake (untrusted certificate, wrong host name,
/// alert from the server): a rustls error somewhere in the chain, possibly inside `io::Error`s.
fn is_tls_error(e: &(dyn std::error::Error + 'static)) -> bool {
    if e.is::<rustls::Error>() {
        return true;
    }
    if let Some(inner) = e
        .downcast_ref::<std::io::Error>()
        .and_then(|io| io.get_ref())
        && is_tls_error(inner)
    {
        return true;
    }
    e.source().is_some_and(is_tls_error)
}

/// The locked engine. On release it starts the effects the engine handed out and wakes the timer
/// task if an earlier timer was scheduled.
pub struct EngineGuard<'a> {
    engine: MutexGuard<'a, Engine>,
    app: &'a App,
    next_due: Option<Millis>,
}

impl Deref for EngineGuard<'_> {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.engine
    }
}

impl DerefMut for EngineGuard<'_> {
    fn deref_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}

impl Drop for EngineGuard<'_> {
    fn drop(&mut self) {
        let effects = self.engine.take_effects();
        self.app.start_effects(effects);
        let now_due = self.engine.next_due();
        let earlier = match (now_due, self.next_due) {
            (Some(new), Some(old)) => new < old,
            (Some(_), None) => true,
            _ => false,
        };
        if earlier && self.app.clock.mode() != ClockMode::Manual {
            self.app.ticker.notify_one();
        }
    }
}

impl App {
    /// Starts shutting down: the server stops accepting and long polls end now.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Resolves once [`App::close`] was called.
    pub async fn closed(&self) {
        let mut rx = self.closing.subscribe();
        let _ = rx.wait_for(|closing| *closing).await;
    }
}

/// Fires timers as virtual time reaches them, for the real and fast clocks. Manual clocks move
/// only through [`App::advance_to`].
pub async fn run_timers(app: Arc<App>) {
    if app.clock.mode() == ClockMode::Manual {
        return;
    }
    loop {
        let next_due = app.engine().next_due();
        let wake = app.ticker.notified();
        match next_due.and_then(|due| app.clock.wall_until(due)) {
            Some(wait) => {
                tokio::select! {
                    _ = Clock::sleep(wait) => {}
                    _ = wake => {}
                }
            }
            None => wake.await,
        }
    }
}
