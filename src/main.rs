//! The `switchyard` command: `switchyard` or `switchyard serve`.
//! The binary: command line and process only; everything else is the library's.

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use switchyard::config::QueueUrlStyle;
use switchyard::localstack_env::{LocalStackEnv, Note};
use switchyard::server::init::InitError;
use switchyard::services::ServiceId;
use switchyard::{AuthMode, ClockMode, Config, Emulator};

#[derive(Parser)]
#[command(
    name = "switchyard",
    version,
    about = "A local AWS emulator for SNS, SQS and EventBridge"
)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the AWS APIs and the control API (the default).
    Serve(Box<ServeArgs>),
    /// A small HTTP endpoint to deliver to: answers every request with one status, confirms SNS
    /// subscriptions, and prints each request as a line.
    Endpoint(EndpointArgs),
    /// Work with SNS delivery policies without sending a message.
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// Work with state snapshots (docs/control-api.md, "State snapshots").
    State {
        #[command(subcommand)]
        command: StateCommand,
    },
    /// The model of the custom event bus (`aws eventsv2`), switchyard's own API, for boto3 and
    /// the AWS CLI, which have none of their own.
    Model {
        #[command(subcommand)]
        command: ModelCommand,
    },
}

#[derive(Subcommand)]
enum ModelCommand {
    /// Print the model (botocore's service-2.json format) to standard output.
    Print,
    /// Write the model where `aws configure add-model --service-name eventsv2` writes it,
    /// DIR/eventsv2/2025-05-15/service-2.json, and print that path. boto3 and the AWS CLI read
    /// ~/.aws/models; another DIR is one to name in AWS_DATA_PATH.
    Install {
        /// The models folder [default: ~/.aws/models].
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// The custom event bus's model, as it ships in the repository for boto3 and the AWS CLI.
const EVENTSV2_MODEL: &str = include_str!("../compat/models/eventsv2/2025-05-15/service-2.json");

#[derive(Subcommand)]
enum StateCommand {
    /// Write the whole state of a running switchyard to FILE (`-` for standard output), to
    /// start from with --state-file or load with POST /_switchyard/state.
    Export {
        /// Where to write the snapshot; `-` for standard output.
        file: String,
        /// The running switchyard (http only).
        #[arg(long, default_value = "http://localhost:4566")]
        endpoint: String,
    },
}

#[derive(Args)]
struct EndpointArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 9000)]
    port: u16,
    /// The HTTP status of every answer (a confirmed SubscriptionConfirmation gets 200).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u16).range(200..=599))]
    status: u16,
    /// Do not confirm SNS subscriptions (SubscriptionConfirmation gets --status like any request).
    #[arg(long)]
    no_confirm: bool,
}

#[derive(Subcommand)]
enum PolicyCommand {
    /// Validate a subscription DeliveryPolicy as the API does and print its retry schedule.
    Simulate {
        /// The policy document (JSON), or `-` for standard input.
        file: String,
        /// The subscription protocol: http and https use the policy; sqs, lambda, firehose,
        /// email, email-json, sms and application follow the policy SNS fixes for them.
        #[arg(long, default_value = "https")]
        protocol: String,
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Table,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum OnOff {
    On,
    Off,
}

#[derive(Clone, Copy, ValueEnum)]
enum Auth {
    Off,
    Verify,
}

#[derive(Args)]
struct ServeArgs {
    /// Address to listen on [default: GATEWAY_LISTEN's, else 127.0.0.1].
    #[arg(long, env = "SWITCHYARD_HOST")]
    host: Option<String>,
    /// Port to listen on; 0 picks a free one [default: GATEWAY_LISTEN's, else 4566].
    #[arg(long, env = "SWITCHYARD_PORT")]
    port: Option<u16>,
    /// Region of unsigned requests.
    #[arg(long, env = "SWITCHYARD_REGION", default_value = "us-east-1")]
    region: String,
    /// Account of requests whose access key is not a 12-digit account id.
    #[arg(long, env = "SWITCHYARD_ACCOUNT", default_value = "000000000000", value_parser = account_id)]
    account: String,
    /// real, fast:<factor> or manual [default: real; with --state-dir, the mode the directory
    /// was last run with].
    #[arg(long, env = "SWITCHYARD_CLOCK", value_parser = clap::value_parser!(ClockMode))]
    clock: Option<ClockMode>,
    /// Random jitter on retry delays.
    #[arg(long, env = "SWITCHYARD_JITTER", value_enum, default_value = "on")]
    jitter: OnOff,
    /// Seed of ids and jitter (default: random).
    #[arg(long, env = "SWITCHYARD_SEED")]
    seed: Option<u64>,
    /// Check SigV4 signatures (verify) or only read them (off).
    #[arg(long, env = "SWITCHYARD_AUTH", value_enum, default_value = "off")]
    auth: Auth,
    /// ACCESS_KEY:SECRET pairs for --auth verify (any other key's secret is `test`).
    #[arg(long, env = "SWITCHYARD_CREDENTIALS", value_delimiter = ',', value_parser = credential)]
    credentials: Vec<(String, String)>,
    /// FUNCTION_ARN=URL pairs: SNS and EventBridge invoke these Lambda functions with an HTTP POST
    /// of the event to URL (e.g. a Lambda Runtime Interface Emulator); others go to the outbox.
    #[arg(long = "lambda-endpoint", env = "SWITCHYARD_LAMBDA_ENDPOINTS", value_delimiter = ',', value_parser = lambda_endpoint)]
    lambda_endpoints: Vec<(String, String)>,
    /// RUNTIME=INTERPRETER pairs: the interpreter that runs a Lambda runtime (`python3.12=/usr/bin/python3.12`,
    /// `nodejs=/opt/node22/bin/node`; a runtime name or a prefix of it); others run with the
    /// `python3` or `node` on PATH.
    #[arg(long = "lambda-runtime", env = "SWITCHYARD_LAMBDA_RUNTIMES", value_delimiter = ',', value_parser = lambda_runtime)]
    lambda_runtimes: Vec<(String, PathBuf)>,
    /// PEM file of CA certificates trusted for HTTPS deliveries besides the system's roots (e.g.
    /// the CA of a local HTTPS test server).
    #[arg(long, env = "SWITCHYARD_HTTPS_CA", value_name = "PEM_FILE", value_parser = https_ca)]
    https_ca: Option<PathBuf>,
    /// Deliveries by a service within one account (SNS topic or EventBridge rule to a queue or
    /// topic) need the target's resource policy, as in AWS.
    #[arg(long, env = "SWITCHYARD_ENFORCE_POLICIES")]
    enforce_policies: bool,
    /// Keep the state in DIR, so that it survives restarts and crashes (every answered change is
    /// on disk); without it the state is in memory only.
    #[arg(long, env = "SWITCHYARD_STATE_DIR", value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Records kept in the delivery log.
    #[arg(long, env = "SWITCHYARD_DELIVERY_LOG_SIZE", default_value_t = 100_000)]
    delivery_log_size: usize,
    /// JSON or YAML file of resources (queues, topics, rules, ...) to create before the ready
    /// line; an entry that fails stops switchyard.
    #[arg(long, env = "SWITCHYARD_INIT_RESOURCES", value_name = "FILE")]
    init_resources: Option<PathBuf>,
    /// A shell script, or a directory of *.sh scripts (run in name order, as LocalStack's
    /// ready.d), to run once the server answers and before the ready line.
    #[arg(long, env = "SWITCHYARD_INIT", value_name = "PATH")]
    init: Option<PathBuf>,
    /// HOST[:PORT] that queue URLs and other URLs handed back carry instead of the host the
    /// client used (without a port, the one switchyard listens on); LOCALSTACK_HOST is read too.
    #[arg(long, env = "SWITCHYARD_HOSTNAME", value_name = "HOST[:PORT]", value_parser = hostname)]
    hostname: Option<String>,
    /// Shape of queue URLs (default auto); SQS_ENDPOINT_STRATEGY is read too.
    #[arg(long, env = "SWITCHYARD_QUEUE_URL_STYLE", value_enum)]
    queue_url_style: Option<QueueUrlStyle>,
    /// Seconds a connection may take to send a request's headers, from when it opened or got
    /// its previous answer; a client that stalls mid-header or idles longer is disconnected.
    #[arg(long, env = "SWITCHYARD_IDLE_TIMEOUT", value_name = "SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    idle_timeout: u64,
    /// A state snapshot to start from (written by `switchyard state export` or
    /// GET /_switchyard/state); a file that cannot be read stops switchyard.
    #[arg(long, env = "SWITCHYARD_STATE_FILE", value_name = "FILE")]
    state_file: Option<PathBuf>,
}

impl ServeArgs {
    /// LocalStack's variables, read as LocalStack reads them, where switchyard's own option and
    /// variable are not given: `LOCALSTACK_HOST` (`host[:port]`) and `SQS_ENDPOINT_STRATEGY`.
    /// Empty ones count as unset.
    fn with_localstack_env(mut self) -> Result<ServeArgs, String> {
        let var = |name| std::env::var(name).ok().filter(|v| !v.is_empty());
        if self.hostname.is_none()
            && let Some(v) = var("LOCALSTACK_HOST")
        {
            self.hostname = Some(hostname(&v).map_err(|e| format!("LOCALSTACK_HOST={v:?}: {e}"))?);
        }
        if self.queue_url_style.is_none()
            && let Some(v) = var("SQS_ENDPOINT_STRATEGY")
        {
            let style = QueueUrlStyle::from_str(&v, false).map_err(|_| {
                format!(
                    "SQS_ENDPOINT_STRATEGY={v:?}: expected auto, standard, domain, path, dynamic \
                     or off"
                )
            })?;
            self.queue_url_style = Some(style);
        }
        Ok(self)
    }
}

/// `host[:port]`: a host name or IP address (IPv6 in brackets) and an optional port.
fn hostname(s: &str) -> Result<String, String> {
    let (host, port) = switchyard::services::sqs::urls::split_authority(s);
    let port_ok = port.is_empty() || port[1..].parse::<u16>().is_ok_and(|p| p > 0);
    let host_ok = match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        Some(v6) => v6.parse::<std::net::Ipv6Addr>().is_ok(),
        None => {
            !host.is_empty()
                && host
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
        }
    };
    if host_ok && port_ok {
        Ok(s.to_string())
    } else {
        Err("expected HOST[:PORT], e.g. switchyard or localhost.localstack.cloud:4566".into())
    }
}

fn account_id(s: &str) -> Result<String, String> {
    if s.len() == 12 && s.bytes().all(|b| b.is_ascii_digit()) {
        Ok(s.to_string())
    } else {
        Err("an account id is 12 digits".into())
    }
}

fn lambda_endpoint(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((arn, url)) if arn.starts_with("arn:aws:lambda:") && url.starts_with("http://") => {
            Ok((arn.into(), url.into()))
        }
        _ => Err("expected arn:aws:lambda:...=http://host:port/path".into()),
    }
}

fn lambda_runtime(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((runtime, path)) if !runtime.is_empty() && !path.is_empty() => {
            Ok((runtime.into(), PathBuf::from(path)))
        }
        _ => Err("expected RUNTIME=INTERPRETER, e.g. python3.12=/usr/bin/python3.12".into()),
    }
}

fn https_ca(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    switchyard::runtime::load_https_ca(&path)?;
    Ok(path)
}

fn credential(s: &str) -> Result<(String, String), String> {
    match s.split_once(':') {
        Some((key, secret)) if !key.is_empty() && !secret.is_empty() => {
            Ok((key.into(), secret.into()))
        }
        _ => Err("expected ACCESS_KEY:SECRET".into()),
    }
}

impl From<ServeArgs> for Config {
    fn from(a: ServeArgs) -> Config {
        Config {
            host: a.host.unwrap_or_else(|| "127.0.0.1".into()),
            port: a.port.unwrap_or(4566),
            region: a.region,
            account: a.account,
            clock: a.clock.unwrap_or(ClockMode::Real),
            clock_from_state_dir: a.clock.is_none(),
            jitter: matches!(a.jitter, OnOff::On),
            seed: a.seed,
            auth: match a.auth {
                Auth::Off => AuthMode::Off,
                Auth::Verify => AuthMode::Verify,
            },
            credentials: a.credentials,
            delivery_log_size: a.delivery_log_size,
            lambda_endpoints: a.lambda_endpoints,
            lambda_interpreters: a.lambda_runtimes,
            https_ca: a.https_ca,
            init_resources: a.init_resources,
            init_scripts: a.init,
            idle_timeout: std::time::Duration::from_secs(a.idle_timeout),
            enforce_policies: a.enforce_policies,
            state_dir: a.state_dir,
            state_file: a.state_file,
            hostname: a.hostname,
            queue_url_style: a.queue_url_style.unwrap_or_default(),
        }
    }
}

/// mimalloc, not glibc's malloc: a request allocates and frees many small blocks, often on
/// different worker threads (docs/decisions.md, "The allocator").
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    switchyard::memory::no_huge_pages();
    // A worker writes the log lines it kept when it runs out of work, and when it stops.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_park(switchyard::logfmt::flush_thread)
        .on_thread_stop(switchyard::logfmt::end_thread)
        .build();
    match runtime {
        Ok(runtime) => runtime.block_on(run()),
        Err(e) => {
            eprintln!("switchyard: cannot start the async runtime: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `switchyard model print` and `switchyard model install`.
fn model(command: ModelCommand) -> std::process::ExitCode {
    let done = match command {
        ModelCommand::Print => std::io::stdout()
            .lock()
            .write_all(EVENTSV2_MODEL.as_bytes())
            .map_err(|e| format!("cannot write the model: {e}")),
        ModelCommand::Install { dir } => install_model(dir),
    };
    match done {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("switchyard: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Writes the model below `dir` (~/.aws/models when `None`) and prints the file's path.
fn install_model(dir: Option<PathBuf>) -> Result<(), String> {
    let dir = match dir {
        Some(dir) => dir,
        None => std::env::home_dir()
            .ok_or("no home folder to find ~/.aws/models in; name one with --dir")?
            .join(".aws")
            .join("models"),
    };
    let folder = dir.join("eventsv2").join("2025-05-15");
    let path = folder.join("service-2.json");
    std::fs::create_dir_all(&folder)
        .and_then(|()| std::fs::write(&path, EVENTSV2_MODEL))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("{}", path.display());
    Ok(())
}

async fn run() -> std::process::ExitCode {
    let cli = Cli::parse();
    let args = match cli.command {
        Some(Command::Serve(args)) => *args,
        Some(Command::Endpoint(args)) => return endpoint(args).await,
        Some(Command::State {
            command: StateCommand::Export { file, endpoint },
        }) => return export(&file, &endpoint).await,
        Some(Command::Model { command }) => return model(command),
        Some(Command::Policy {
            command:
                PolicyCommand::Simulate {
                    file,
                    protocol,
                    format,
                },
        }) => {
            return simulate(&file, &protocol, format);
        }
        None => cli.serve,
    };
    let args = match args.with_localstack_env() {
        Ok(args) => args,
        Err(message) => Cli::command()
            .error(clap::error::ErrorKind::InvalidValue, message)
            .exit(),
    };
    let serving: Vec<_> = ServiceId::SERVING.iter().map(|s| s.name()).collect();
    let localstack = match LocalStackEnv::read(|name| std::env::var(name).ok(), &serving) {
        Ok(settings) => settings,
        Err(message) => Cli::command()
            .error(clap::error::ErrorKind::InvalidValue, message)
            .exit(),
    };
    let log_filter = localstack.log_filter.unwrap_or("info");
    let log = switchyard::logfmt::LogfmtLayer::new(std::io::stderr());
    let log_sink = log.sink();
    {
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::util::SubscriberInitExt;
        tracing_subscriber::registry()
            .with(
                tracing_subscriber::EnvFilter::try_from_default_env()
                    .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(log_filter)),
            )
            .with(log)
            .init();
    }
    for note in &localstack.notes {
        match note {
            Note::Info(text) => tracing::info!("{text}"),
            Note::Warn(text) => tracing::warn!("{text}"),
        }
    }

    let mut args = args;
    args.host = args.host.or(localstack.listen_host);
    args.port = args.port.or(localstack.listen_port);
    let config: switchyard::Config = args.into();
    let address = format!("{}:{}", config.host, config.port);
    // One listener for the whole run, polled from before start-up: a signal ends start-up too
    // (an init script that hangs must not keep switchyard up), and a SIGTERM sent the moment the
    // ready line is read is not lost, as it would be by a listener made after that line.
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    let started = tokio::select! {
        started = Emulator::start(config) => started,
        () = &mut shutdown => return std::process::ExitCode::SUCCESS,
    };
    let emulator = match started {
        Ok(e) => e,
        Err(e)
            if e.get_ref().is_some_and(|e| {
                e.is::<InitError>()
                    || e.is::<switchyard::runtime::OpenError>()
                    || e.is::<switchyard::server::StateFileError>()
            }) =>
        {
            eprintln!("switchyard: {e}");
            return std::process::ExitCode::FAILURE;
        }
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            eprintln!(
                "switchyard: cannot listen on {address}: the port is in use (another switchyard or \
                 LocalStack?). Stop it, choose another port with --port N, or take a free one \
                 with --port 0 (the ready line says which)."
            );
            return std::process::ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("switchyard: cannot listen on {address}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    // The news in the log first, for whoever reads only stderr (a container's log, a CI step), so
    // that it comes before the log lines of the requests the ready line lets in.
    tracing::info!(
        url = emulator.url(),
        version = env!("CARGO_PKG_VERSION"),
        "listening"
    );
    // The ready line, then LocalStack's, which testcontainers' LocalStack modules wait for: one
    // write, so that whoever has read the first has the second too.
    let mut stdout = std::io::stdout();
    let lines = format!("switchyard listening on {}\nReady.\n", emulator.url());
    let _ = stdout.write_all(lines.as_bytes());
    let _ = stdout.flush();

    shutdown.await;
    tracing::info!("shutting down");
    let stopped = emulator.stop().await;
    // Every line logged is written before the process ends.
    log_sink.flush();
    match stopped {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("switchyard: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `switchyard endpoint`: serves until SIGINT or SIGTERM.
async fn endpoint(args: EndpointArgs) -> std::process::ExitCode {
    let address = format!("{}:{}", args.host, args.port);
    let settings = switchyard::endpoint::Settings {
        host: args.host,
        port: args.port,
        status: axum::http::StatusCode::from_u16(args.status).expect("a status in 200..=599"),
        confirm: !args.no_confirm,
    };
    match switchyard::endpoint::serve(settings, shutdown_signal()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("switchyard endpoint: cannot serve on {address}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `switchyard state export`: GETs `/_switchyard/state` from `endpoint` and writes it to `file`
/// (`-`: standard output).
async fn export(file: &str, endpoint: &str) -> std::process::ExitCode {
    use http_body_util::{BodyExt, Empty};
    let url = format!("{}/_switchyard/state", endpoint.trim_end_matches('/'));
    let uri = match url.parse::<hyper::Uri>() {
        Ok(uri) if uri.scheme_str() == Some("http") => uri,
        _ => {
            eprintln!("switchyard: --endpoint {endpoint:?}: expected http://host:port");
            return std::process::ExitCode::FAILURE;
        }
    };
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Empty<bytes::Bytes>>();
    let answer = match client.get(uri).await {
        Ok(response) => {
            let status = response.status();
            match response.into_body().collect().await {
                Ok(body) => Ok((status, body.to_bytes())),
                Err(e) => Err(e.to_string()),
            }
        }
        Err(e) => Err(e.to_string()),
    };
    let bytes = match answer {
        Ok((status, bytes)) if status.is_success() => bytes,
        Ok((status, bytes)) => {
            let text = String::from_utf8_lossy(&bytes);
            eprintln!("switchyard: {url} answered {status}: {text}");
            return std::process::ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("switchyard: cannot get {url} (is switchyard running there?): {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let written = if file == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(&bytes).and_then(|()| out.flush())
    } else {
        std::fs::write(file, &bytes)
    };
    match written {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("switchyard: {file}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `switchyard policy simulate`: the schedule a delivery policy gives, attempt by attempt.
fn simulate(file: &str, protocol: &str, format: Format) -> std::process::ExitCode {
    use std::io::Read;
    use switchyard::services::sns::delivery_policy::{schedule_for, simulate};
    let mut text = String::new();
    let read = if file == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(file).map(|t| text = t)
    };
    if let Err(e) = read {
        eprintln!("switchyard: {file}: {e}");
        return std::process::ExitCode::FAILURE;
    }
    let schedule = match schedule_for(protocol, Some(&text)) {
        Ok(s) => s,
        Err(message) => {
            eprintln!("{message}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let rows = simulate(&schedule);
    let total = rows.last().map_or(0.0, |r| r.since_first_seconds);
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => {
            let doc =
                serde_json::json!({"protocol": protocol, "attempts": rows, "totalSeconds": total});
            let _ = writeln!(out, "{doc}");
        }
        Format::Table => {
            let _ = writeln!(
                out,
                "{:>7}  {:<12}  {:>10}  {:>14}",
                "attempt", "phase", "delay (s)", "since first (s)"
            );
            for r in &rows {
                let _ = writeln!(
                    out,
                    "{:>7}  {:<12}  {:>10.3}  {:>14.3}",
                    r.attempt, r.phase, r.delay_seconds, r.since_first_seconds
                );
            }
            let _ = writeln!(
                out,
                "{} attempts (1 + {} retries) over {total:.3} s",
                rows.len(),
                rows.len() - 1
            );
        }
    }
    std::process::ExitCode::SUCCESS
}

/// Resolves at SIGINT or SIGTERM. The listeners are made when this is called, not when it is
/// first polled: a signal that comes in between is kept for it.
fn shutdown_signal() -> impl Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
        let mut interrupt = signal(SignalKind::interrupt()).expect("SIGINT handler");
        async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = term.recv() => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
