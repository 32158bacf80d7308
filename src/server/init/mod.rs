//! Start-up resources and scripts (docs/localstack.md, "Init scripts and resources"): the
//! resource file (`Config::init_resources`) and the scripts (`Config::init_scripts`), run after
//! the server binds its port and before [`crate::Emulator::start`] returns (so before the
//! binary's ready line), their progress kept in the runtime's init status, which
//! `/_localstack/init` shows.

mod resources;
mod scripts;

use crate::config::Config;
use crate::runtime::Runtime;
use crate::runtime::init_status::{InitScript, ScriptState, Stage};
use resources::{Defaults, ResourceFile};
use scripts::Script;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Why start-up stopped: a resource file or script path that cannot be read, or a resource
/// entry that failed. The message names the file and the entry.
#[derive(Debug)]
pub struct InitError(String);

impl std::fmt::Display for InitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InitError {}

/// What the config asks init to do, read and checked before the server binds its port.
pub(super) struct Plan {
    /// The resource file, as the config names it, and the name the status lists it by.
    resources: Option<(ResourceFile, String, String)>,
    scripts: Vec<Script>,
}

impl Plan {
    /// Reads the resource file and finds the scripts.
    pub(super) fn load(config: &Config) -> Result<Plan, InitError> {
        let resources = match &config.init_resources {
            Some(path) => {
                let shown = path.display().to_string();
                let file = ResourceFile::load(path)
                    .map_err(|e| InitError(format!("init file {shown}: {e}")))?;
                let name = path
                    .file_name()
                    .map_or_else(|| shown.clone(), |n| n.to_string_lossy().into_owned());
                Some((file, shown, name))
            }
            None => None,
        };
        let scripts = match &config.init_scripts {
            Some(path) => scripts::discover(path)
                .map_err(|e| InitError(format!("init scripts {}: {e}", path.display())))?,
            None => Vec::new(),
        };
        if !scripts.is_empty() {
            let names: Vec<&str> = scripts.iter().map(|s| s.name.as_str()).collect();
            tracing::debug!(?names, "init: scripts discovered");
        }
        Ok(Plan { resources, scripts })
    }

    /// Lists the resource file and the scripts in the status (UNKNOWN), creates the resources,
    /// runs the scripts against the server listening on `bound`, and completes READY. Fails
    /// only for the resource file; a failing script is logged and marked ERROR.
    pub(super) async fn run(self, app: &Runtime, bound: SocketAddr) -> Result<(), InitError> {
        let file_line = self
            .resources
            .as_ref()
            .map(|(_, _, name)| listed(app, name));
        let script_lines: Vec<usize> = self.scripts.iter().map(|s| listed(app, &s.name)).collect();
        let host = reachable(bound).to_string();
        if let (Some((file, shown, _)), Some(line)) = (&self.resources, file_line) {
            set(app, line, ScriptState::Running);
            // The host of URLs, as for a request that addressed `host`: --hostname wins.
            let mut headers = axum::http::HeaderMap::new();
            if let Ok(value) = axum::http::HeaderValue::from_str(&host) {
                headers.insert(axum::http::header::HOST, value);
            }
            let url_host = crate::protocol::url_host(&app.config, &headers);
            let defaults = Defaults {
                region: &app.config.region,
                account: &app.config.account,
                host: &url_host,
            };
            if let Err(e) = file.apply(app, &defaults).await {
                set(app, line, ScriptState::Error);
                return Err(InitError(format!("init file {shown}: {e}")));
            }
            set(app, line, ScriptState::Successful);
        }
        let target = scripts::Target {
            url: &format!("http://{host}"),
            host: &host,
            region: &app.config.region,
        };
        scripts::run(app, &self.scripts, &script_lines, &target).await;
        app.init.update(|p| p.complete(Stage::Ready));
        Ok(())
    }
}

/// Adds a READY script to the status, UNKNOWN; answers its place for [`set`].
fn listed(app: &Runtime, name: &str) -> usize {
    app.init.update(|p| {
        p.scripts.push(InitScript {
            stage: Stage::Ready,
            name: name.to_string(),
            state: ScriptState::Unknown,
        });
        p.scripts.len() - 1
    })
}

fn set(app: &Runtime, line: usize, state: ScriptState) {
    app.init.update(|p| {
        if let Some(script) = p.scripts.get_mut(line) {
            script.state = state;
        }
    });
}

/// Where a client on this machine reaches a server bound to `bound`: a loopback address for
/// one bound to all interfaces (`0.0.0.0` in the Docker image).
fn reachable(bound: SocketAddr) -> SocketAddr {
    let ip = match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, bound.port())
}
