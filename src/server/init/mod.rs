//! Start-up resources and scripts (docs/localstack.md, "Init scripts and resources"): the
//! resource file (`Config::init_resources`) and the scripts (`Config::init_scripts`), run after
//! the server binds its port and before [`crate::Emulator::start`] returns (so before the
//! binary's ready line), and the progress `/_localstack/init` shows.

mod resources;
mod scripts;
mod status;

pub(super) use status::routes;
pub use status::{InitStatus, ScriptState, Stage};

use crate::config::Config;
use crate::runtime::Runtime;
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
    /// The resource file, as the config names it, and its line in the status.
    resources: Option<(ResourceFile, String, usize)>,
    scripts: Vec<Script>,
    script_lines: Vec<usize>,
}

impl Plan {
    /// Reads the resource file and finds the scripts, listing them in `status` (UNKNOWN).
    pub(super) fn load(config: &Config, status: &InitStatus) -> Result<Plan, InitError> {
        let resources = match &config.init_resources {
            Some(path) => {
                let shown = path.display().to_string();
                let file = ResourceFile::load(path)
                    .map_err(|e| InitError(format!("init file {shown}: {e}")))?;
                let name = path
                    .file_name()
                    .map_or_else(|| shown.clone(), |n| n.to_string_lossy().into_owned());
                Some((file, shown, status.discovered(Stage::Ready, &name)))
            }
            None => None,
        };
        let scripts = match &config.init_scripts {
            Some(path) => scripts::discover(path)
                .map_err(|e| InitError(format!("init scripts {}: {e}", path.display())))?,
            None => Vec::new(),
        };
        let names: Vec<&str> = scripts.iter().map(|s| s.name.as_str()).collect();
        tracing::debug!(?names, "init: scripts discovered");
        let script_lines = scripts
            .iter()
            .map(|s| status.discovered(Stage::Ready, &s.name))
            .collect();
        Ok(Plan {
            resources,
            scripts,
            script_lines,
        })
    }

    /// Creates the resources, then runs the scripts against the server listening on `bound`,
    /// and marks READY complete. Fails only for the resource file; a failing script is logged.
    pub(super) async fn run(
        self,
        app: &Runtime,
        status: &InitStatus,
        bound: SocketAddr,
    ) -> Result<(), InitError> {
        let host = reachable(bound).to_string();
        if let Some((file, shown, line)) = &self.resources {
            status.set(*line, ScriptState::Running);
            let defaults = Defaults {
                region: &app.config.region,
                account: &app.config.account,
                host: &host,
            };
            if let Err(e) = file.apply(app, &defaults).await {
                status.set(*line, ScriptState::Error);
                return Err(InitError(format!("init file {shown}: {e}")));
            }
            status.set(*line, ScriptState::Successful);
        }
        let target = scripts::Target {
            url: &format!("http://{host}"),
            host: &host,
            region: &app.config.region,
        };
        scripts::run(&self.scripts, &self.script_lines, status, &target).await;
        status.complete(Stage::Ready);
        Ok(())
    }
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
