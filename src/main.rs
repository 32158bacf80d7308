//! The `switchyard` command: `switchyard` or `switchyard serve`.
//! The binary: command line and process only; everything else is the library's.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
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
    Serve(ServeArgs),
    /// Work with SNS delivery policies without sending a message.
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
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
    /// real, fast:<factor> or manual.
    #[arg(long, env = "SWITCHYARD_CLOCK", default_value = "real", value_parser = clap::value_parser!(ClockMode))]
    clock: ClockMode,
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
    #[arg(long = "credentials", env = "SWITCHYARD_CREDENTIALS", value_delimiter = ',', value_parser = credential)]
    credentials: Vec<(String, String)>,
    /// FUNCTION_ARN=URL pairs: SNS and EventBridge invoke these Lambda functions with an HTTP POST
    /// of the event to URL (e.g. a Lambda Runtime Interface Emulator); others go to the outbox.
    #[arg(long = "lambda-endpoint", env = "SWITCHYARD_LAMBDA_ENDPOINTS", value_delimiter = ',', value_parser = lambda_endpoint)]
    lambda_endpoints: Vec<(String, String)>,
    /// PEM file of CA certificates trusted for HTTPS deliveries besides the system's roots (e.g.
    /// the CA of a local HTTPS test server).
    #[arg(long = "https-ca", env = "SWITCHYARD_HTTPS_CA", value_name = "PEM_FILE", value_parser = https_ca)]
    https_ca: Option<PathBuf>,
    /// Records kept in the delivery log.
    #[arg(long, env = "SWITCHYARD_DELIVERY_LOG_SIZE", default_value_t = 100_000)]
    delivery_log_size: usize,
    /// JSON or YAML file of resources (queues, topics, rules, ...) to create before the ready
    /// line; an entry that fails stops switchyard.
    #[arg(
        long = "init-resources",
        env = "SWITCHYARD_INIT_RESOURCES",
        value_name = "FILE"
    )]
    init_resources: Option<PathBuf>,
    /// A shell script, or a directory of *.sh scripts (run in name order, as LocalStack's
    /// ready.d), to run once the server answers and before the ready line.
    #[arg(long = "init", env = "SWITCHYARD_INIT", value_name = "PATH")]
    init: Option<PathBuf>,
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
            clock: a.clock,
            jitter: matches!(a.jitter, OnOff::On),
            seed: a.seed,
            auth: match a.auth {
                Auth::Off => AuthMode::Off,
                Auth::Verify => AuthMode::Verify,
            },
            credentials: a.credentials,
            delivery_log_size: a.delivery_log_size,
            lambda_endpoints: a.lambda_endpoints,
            https_ca: a.https_ca,
            init_resources: a.init_resources,
            init_scripts: a.init,
        }
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let args = match cli.command {
        Some(Command::Serve(args)) => args,
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
    let serving: Vec<_> = ServiceId::SERVING.iter().map(|s| s.name()).collect();
    let localstack = match LocalStackEnv::read(|name| std::env::var(name).ok(), &serving) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("switchyard: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let log_filter = localstack.log_filter.unwrap_or("info");
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(log_filter)),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
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
    // A signal ends start-up too: an init script that hangs must not keep switchyard up.
    let started = tokio::select! {
        started = Emulator::start(config) => started,
        () = shutdown_signal() => return std::process::ExitCode::SUCCESS,
    };
    let emulator = match started {
        Ok(e) => e,
        Err(e) if e.get_ref().is_some_and(|e| e.is::<InitError>()) => {
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
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "switchyard listening on {}", emulator.url());
    // LocalStack's ready line, which testcontainers' LocalStack modules wait for.
    let _ = writeln!(stdout, "Ready.");
    let _ = stdout.flush();

    shutdown_signal().await;
    tracing::info!("shutting down");
    match emulator.stop().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("switchyard: {e}");
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

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}
