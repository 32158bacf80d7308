//! How an emulator is set up: what the command line and environment give, or a Rust test.
//! Plain settings; it depends on nothing of the emulator.

use crate::clock::ClockMode;
use std::path::PathBuf;
use std::time::Duration;

/// Whether request signatures are checked (`--auth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMode {
    /// Signatures are read for region and account but not checked.
    Off,
    /// Signatures are checked against the secret of the access key.
    Verify,
}

/// The shape of the queue URLs SQS hands back (`--queue-url-style`), with LocalStack's
/// `SQS_ENDPOINT_STRATEGY` values and switchyard's default, `auto` (docs/localstack.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum QueueUrlStyle {
    /// The host URLs carry keeps the shape its name has: `sqs.<region>.<domain>` gives the
    /// standard shape, `<region>.queue.<domain>` the domain shape (each with the queue's region),
    /// and any other host `http://<host>/<account>/<name>`, as switchyard always answered.
    #[default]
    Auto,
    /// `http://sqs.<region>.<domain>/<account>/<name>`: LocalStack's default.
    Standard,
    /// `http://<region>.queue.<domain>/<account>/<name>`, without `<region>.` in us-east-1.
    Domain,
    /// `http://<host>/queue/<region>/<account>/<name>`.
    Path,
    /// As `Auto`, but any other host gives the path shape (LocalStack's `dynamic`).
    Dynamic,
    /// `http://<host>/<account>/<name>`, which names no region.
    Off,
}

/// Everything an emulator is started with: what the binary's flags and environment set, as plain
/// fields. [`Config::default`] is the binary's defaults (port 4566, a real clock);
/// [`Config::for_tests`] is what a Rust test wants. Change fields with struct update syntax:
///
/// ```
/// use switchyard::{AuthMode, ClockMode, Config};
///
/// let config = Config {
///     clock: ClockMode::Fast(60.0), // a virtual minute per second
///     auth: AuthMode::Verify,
///     credentials: vec![("AKIDEXAMPLE".into(), "secret".into())],
///     jitter: false,
///     ..Config::for_tests()
/// };
/// assert_eq!(config.port, 0);
/// assert_eq!(config.secret_for("AKIDEXAMPLE"), "secret");
/// ```
#[derive(Debug, Clone)]
pub struct Config {
    pub host: String,
    /// 0 picks a free port.
    pub port: u16,
    pub region: String,
    pub account: String,
    pub clock: ClockMode,
    pub jitter: bool,
    /// `None` picks a random seed.
    pub seed: Option<u64>,
    pub auth: AuthMode,
    /// Access key id → secret, for `--auth verify`; any other key's secret is `test`.
    pub credentials: Vec<(String, String)>,
    pub delivery_log_size: usize,
    /// Lambda function ARN → a local HTTP URL that invokes it (e.g. the Lambda Runtime Interface
    /// Emulator's `/2015-03-31/functions/function/invocations`); unmapped functions get the outbox.
    pub lambda_endpoints: Vec<(String, String)>,
    /// Lambda runtime (a name such as `python3.12`, or a prefix such as `python3`) → the
    /// interpreter that runs it (`--lambda-runtime`); others use `python3` / `node` on PATH.
    pub lambda_interpreters: Vec<(String, PathBuf)>,
    /// A PEM file of CA certificates trusted for HTTPS deliveries besides the system's roots
    /// (`--https-ca`), e.g. the CA of a local HTTPS test server. [`crate::Emulator::start`] fails
    /// with a [`crate::runtime::OpenError`] if it cannot be read or holds no usable certificate.
    pub https_ca: Option<PathBuf>,
    /// `host[:port]` that URLs handed back carry (queue URLs, SNS's SubscribeURL ...) instead of
    /// the host the client addressed (`--hostname`, LocalStack's `LOCALSTACK_HOST`); without a
    /// port, the port switchyard listens on.
    pub hostname: Option<String>,
    /// The shape of queue URLs handed back (`--queue-url-style`, LocalStack's
    /// `SQS_ENDPOINT_STRATEGY`).
    pub queue_url_style: QueueUrlStyle,
    /// A resource file (JSON or YAML) created before [`crate::Emulator::start`] returns
    /// (docs/localstack.md, "Init scripts and resources").
    pub init_resources: Option<PathBuf>,
    /// An init script, or a directory of `*.sh` scripts, run once the server answers.
    pub init_scripts: Option<PathBuf>,
    /// How long a connection may take to send a complete request head, counted from when it
    /// opened or got its previous answer: a client that stops halfway through its headers, or
    /// keeps an idle connection open, is disconnected then (docs/architecture.md, "Connections").
    pub idle_timeout: Duration,
    /// Deliveries by a service within one account (an SNS topic or an EventBridge rule to the
    /// owner's queue or topic) need the target's resource policy, as in AWS
    /// (`--enforce-policies`); without it they pass, as users expect locally.
    pub enforce_policies: bool,
    /// `--state-dir`: where the state is kept, so that it survives restarts (docs/state.md);
    /// `None` keeps it in memory.
    pub state_dir: Option<PathBuf>,
    /// With `state_dir`: the clock mode is the one the directory was last run with, when it has
    /// one (`--clock` not given), rather than `clock`.
    pub clock_from_state_dir: bool,
    /// A state snapshot to start from (`--state-file`; docs/control-api.md, "State
    /// snapshots"): [`crate::Emulator::start`] fails with a [`crate::server::StateFileError`]
    /// when it cannot be read.
    pub state_file: Option<PathBuf>,
}

impl Default for Config {
    /// The binary's defaults: `127.0.0.1:4566`, a real clock, region `us-east-1`, account
    /// `000000000000`, jitter on with a random seed, no signature checks.
    ///
    /// ```
    /// let config = switchyard::Config::default();
    /// assert_eq!((config.host.as_str(), config.port), ("127.0.0.1", 4566));
    /// ```
    fn default() -> Self {
        Config {
            host: "127.0.0.1".into(),
            port: 4566,
            region: "us-east-1".into(),
            account: "000000000000".into(),
            clock: ClockMode::Real,
            jitter: true,
            seed: None,
            auth: AuthMode::Off,
            credentials: Vec::new(),
            delivery_log_size: 100_000,
            lambda_endpoints: Vec::new(),
            lambda_interpreters: Vec::new(),
            https_ca: None,
            hostname: None,
            queue_url_style: QueueUrlStyle::Auto,
            init_resources: None,
            init_scripts: None,
            idle_timeout: Duration::from_secs(60),
            enforce_policies: false,
            state_dir: None,
            clock_from_state_dir: false,
            state_file: None,
        }
    }
}

impl Config {
    /// The set-up Rust tests want: a free port (`port: 0`), a manual clock (virtual time moves
    /// only by [`crate::Emulator::advance`]) and seed 0 (the same ids and jitter every run);
    /// the rest as [`Config::default`].
    ///
    /// ```
    /// use switchyard::{ClockMode, Config};
    ///
    /// let config = Config::for_tests();
    /// assert_eq!((config.port, config.clock, config.seed), (0, ClockMode::Manual, Some(0)));
    /// ```
    pub fn for_tests() -> Self {
        Config {
            port: 0,
            clock: ClockMode::Manual,
            seed: Some(0),
            ..Config::default()
        }
    }

    /// The secret of `access_key` under `--auth verify`: the one [`Config::credentials`] gives,
    /// else `test`.
    ///
    /// ```
    /// assert_eq!(switchyard::Config::default().secret_for("AKIDEXAMPLE"), "test");
    /// ```
    pub fn secret_for(&self, access_key: &str) -> &str {
        self.credentials
            .iter()
            .find(|(key, _)| key == access_key)
            .map_or("test", |(_, secret)| secret)
    }
}
