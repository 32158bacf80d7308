//! The HTTP server: one port for the AWS APIs and the control API under `/_switchyard/`, and the
//! library API Rust tests use to run an emulator in-process on a free port.
//! The top layer: nothing in the library imports it.

mod console;
mod control;
pub mod init;
mod resources;
mod sqs_messages;

use crate::config::Config;
use crate::runtime::{self, Runtime};
use axum::Router;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use init::{InitStatus, Stage};
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// A running emulator. Dropping it stops it.
pub struct Emulator {
    url: String,
    addr: SocketAddr,
    app: Arc<Runtime>,
    server: Option<JoinHandle<io::Result<()>>>,
    timers: JoinHandle<()>,
    init: Arc<InitStatus>,
}

impl Emulator {
    /// Binds `config.host:config.port` (0 = a free port), starts serving, then creates the
    /// init resources and runs the init scripts the config names ([`init`]). An init that
    /// cannot start or whose resource file fails is an error carrying an [`init::InitError`].
    pub async fn start(mut config: Config) -> io::Result<Emulator> {
        let status = Arc::new(InitStatus::default());
        let plan = init::Plan::load(&config, &status).map_err(io::Error::other)?;
        status.complete(Stage::Boot);
        let listener = TcpListener::bind((config.host.as_str(), config.port)).await?;
        let addr = listener.local_addr()?;
        config.port = addr.port();
        let url = format!("http://{}:{}", config.host, addr.port());
        let app = Runtime::new(config);
        let timers = tokio::spawn(runtime::run_timers(app.clone()));
        let closing = app.clone();
        let routes = router(app.clone()).merge(init::routes(status.clone()));
        let server = tokio::spawn(async move {
            axum::serve(listener, routes)
                .with_graceful_shutdown(async move { closing.closed().await })
                .await
        });
        status.complete(Stage::Start);
        let emulator = Emulator {
            url,
            addr,
            app,
            server: Some(server),
            timers,
            init: status,
        };
        if let Err(e) = plan.run(&emulator.app, &emulator.init, addr).await {
            let _ = emulator.stop().await;
            return Err(io::Error::other(e));
        }
        Ok(emulator)
    }

    /// `http://<host>:<port>`, the endpoint URL to give AWS clients.
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn app(&self) -> &Arc<Runtime> {
        &self.app
    }

    /// Start-up progress: stages and init scripts, as `/_localstack/init` shows it.
    pub fn init(&self) -> &InitStatus {
        &self.init
    }

    /// Stops accepting requests, ends long polls at once and waits for the server to finish.
    pub async fn stop(mut self) -> io::Result<()> {
        self.app.close();
        self.timers.abort();
        match self.server.take() {
            Some(server) => server.await.map_err(io::Error::other)?,
            None => Ok(()),
        }
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.app.close();
        self.timers.abort();
    }
}

/// Every route: the control API, and everything else to the AWS front-ends.
pub fn router(app: Arc<Runtime>) -> Router {
    control::routes()
        .merge(console::routes())
        .fallback(aws)
        .with_state(app)
}

async fn aws(State(app): State<Arc<Runtime>>, request: Request) -> Response {
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
