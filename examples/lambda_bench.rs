//! Lambda's speed (issue 31), through the AWS SDK for Rust, against switchyard's release binary in
//! its own process (`--clock real`) and MiniStack, each started afresh for every round, in turn
//! (the order alternating between rounds): cold start and warm Invoke latency of a Python function
//! and of a `provided.al2023` function (a compiled bootstrap, `bench/lambda-bootstrap.rs`), warm
//! invocations a second from one caller and from several at once, and the time an SQS event
//! source mapping takes to empty a queue of queued messages. The SDK's floor is measured in the
//! same run: the same Invoke answered by a bare axum handler in this process. See
//! docs/benchmarks.md, "Lambda (issue 31)".
//!
//! ```text
//! cargo build --release --bin switchyard --example lambda_bench && bench/install-peers.sh ministack
//! ./target/release/examples/lambda_bench --rounds 3
//! ```
//! Options (or BENCH_TARGETS, BENCH_ROUNDS, ...): --targets switchyard,ministack, --rounds N (3),
//! --cold N functions created and invoked once (10), --warm N invocations timed (200), --seconds
//! S per throughput window (5), --callers N at once (8), --messages N queued for each drain
//! (100000), --limit S a drain may take (300), --binary PATH (target/release/switchyard), --dir
//! PATH (bench/.peers), --python PATH (the interpreter both run Python handlers with; default
//! the `python3` on PATH, resolved past shims to the binary itself).

// A benchmark measures wall time, which clippy.toml's virtual-clock rule forbids everywhere else.
#![allow(clippy::disallowed_methods)]

mod loadgen;

use aws_sdk_lambda::error::DisplayErrorContext;
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::{FunctionCode, InvocationType, Runtime, State};
use aws_sdk_sqs::types::QueueAttributeName;
use loadgen::{Setup, arg, check_options, fill_batches};
use std::collections::BTreeMap;
use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const OPTIONS: [&str; 11] = [
    "targets", "rounds", "cold", "warm", "seconds", "callers", "messages", "limit", "binary",
    "dir", "python",
];
const ROLE: &str = "arn:aws:iam::000000000000:role/lambda";
/// Every invocation's payload; both functions answer it back.
const PAYLOAD: &str = r#"{"n":1,"text":"hello"}"#;
const ECHO: &str = "def handler(event, context):\n    return event\n";
const DRAIN: &str = "def handler(event, context):\n    return {'n': len(event['Records'])}\n";
/// How long an emulator may take to answer its first ListFunctions.
const STARTUP_LIMIT: Duration = Duration::from_secs(120);
/// SendMessageBatch requests in flight while a queue is filled.
const FILL_CONNECTIONS: usize = 8;

/// Which emulator, and how it is started.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Target {
    /// Not an emulator: the bare handler and the process starts.
    Baseline,
    Switchyard,
    MiniStack,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::Baseline => "baseline",
            Target::Switchyard => "switchyard",
            Target::MiniStack => "MiniStack",
        }
    }
}

/// What the run needs to start the emulators and build the functions.
struct Setting {
    binary: PathBuf,
    dir: PathBuf,
    python: String,
    bootstrap_zip: Vec<u8>,
}

/// A running emulator: its process group (it and every environment it starts) and address.
struct Running {
    child: Child,
    addr: SocketAddr,
    lambda: aws_sdk_lambda::Client,
    sqs: aws_sdk_sqs::Client,
}

impl Running {
    fn start(target: Target, s: &Setting) -> Result<Running, String> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let mut command = match target {
            Target::Baseline => return Err("the baseline is not started".into()),
            Target::Switchyard => {
                let mut c = Command::new(&s.binary);
                c.args(["--port", &port.to_string(), "--clock", "real"]);
                c.arg("--lambda-runtime")
                    .arg(format!("python3={}", s.python));
                c
            }
            Target::MiniStack => {
                let mut c = Command::new(s.dir.join("ministack/bin/ministack"));
                c.env("GATEWAY_PORT", port.to_string());
                c.env("BIND_HOST", "127.0.0.1");
                c
            }
        };
        let scratch = std::env::temp_dir().join(format!("switchyard-lambda-bench-{port}"));
        std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
        let log = std::fs::File::create(scratch.join("log")).map_err(|e| e.to_string())?;
        let err = log.try_clone().map_err(|e| e.to_string())?;
        let child = command
            .current_dir(&scratch)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("{}: {e}", target.name()))?;
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let url = format!("http://{addr}");
        let running = Running {
            child,
            addr,
            lambda: lambda_client(&url),
            sqs: sqs_client(&url),
        };
        Ok(running)
    }

    /// Waits for the first answer to ListFunctions.
    async fn ready(&self) -> Result<(), String> {
        let started = Instant::now();
        while self.lambda.list_functions().send().await.is_err() {
            if started.elapsed() > STARTUP_LIMIT {
                return Err(format!("no answer in {} s", STARTUP_LIMIT.as_secs()));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(())
    }
}

impl Drop for Running {
    /// Ends the process group this benchmark started, by its id.
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}

fn lambda_client(url: &str) -> aws_sdk_lambda::Client {
    use aws_sdk_lambda::config::{BehaviorVersion, Credentials, Region, retry::RetryConfig};
    let config = aws_sdk_lambda::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(url)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "bench"))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        // A throttle or an error counts as one; it is not hidden by a retry inside the latency.
        .retry_config(RetryConfig::disabled())
        .build();
    aws_sdk_lambda::Client::from_conf(config)
}

fn sqs_client(url: &str) -> aws_sdk_sqs::Client {
    use aws_sdk_sqs::config::{BehaviorVersion, Credentials, Region};
    let config = aws_sdk_sqs::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(url)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "bench"))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .build();
    aws_sdk_sqs::Client::from_conf(config)
}

/// A zip of `entries` (name, bytes), each executable.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, body) in entries {
        let options = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
        w.start_file(*name, options).expect("zip entry");
        w.write_all(body).expect("zip write");
    }
    w.finish().expect("zip").into_inner()
}

/// The two runtimes measured.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Kind {
    Python,
    Provided,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Python => "Python",
            Kind::Provided => "provided",
        }
    }
}

/// Creates a function and waits until it is Active.
async fn create(
    r: &Running,
    s: &Setting,
    name: &str,
    kind: Kind,
    code: &str,
) -> Result<(), String> {
    let zip = match kind {
        Kind::Python => zip_of(&[("app.py", code.as_bytes())]),
        Kind::Provided => s.bootstrap_zip.clone(),
    };
    let (runtime, handler) = match kind {
        Kind::Python => (Runtime::Python312, "app.handler"),
        Kind::Provided => (Runtime::Providedal2023, "bootstrap"),
    };
    r.lambda
        .create_function()
        .function_name(name)
        .role(ROLE)
        .runtime(runtime)
        .handler(handler)
        .timeout(30)
        .code(FunctionCode::builder().zip_file(Blob::new(zip)).build())
        .send()
        .await
        .map_err(|e| format!("CreateFunction: {}", DisplayErrorContext(&e)))?;
    let started = Instant::now();
    loop {
        let got = r.lambda.get_function_configuration().function_name(name);
        let got = got.send().await;
        let got =
            got.map_err(|e| format!("GetFunctionConfiguration: {}", DisplayErrorContext(&e)))?;
        if got.state() == Some(&State::Active) {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(60) {
            return Err(format!("not Active after 60 s: {:?}", got.state()));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// One Invoke of `name` with [`PAYLOAD`], which must come back: its latency.
async fn invoke(lambda: &aws_sdk_lambda::Client, name: &str) -> Result<Duration, String> {
    let started = Instant::now();
    let out = (lambda.invoke().function_name(name))
        .payload(Blob::new(PAYLOAD))
        .send()
        .await
        .map_err(|e| format!("Invoke: {}", DisplayErrorContext(&e)))?;
    let took = started.elapsed();
    let payload = out.payload().map(|p| p.as_ref()).unwrap_or_default();
    let answer: serde_json::Value = serde_json::from_slice(payload).unwrap_or_default();
    let expected: serde_json::Value = serde_json::from_str(PAYLOAD).expect("payload");
    if out.function_error().is_some() || answer != expected {
        let text = String::from_utf8_lossy(payload);
        return Err(format!("Invoke answered {text}"));
    }
    Ok(took)
}

/// A DryRun Invoke (the API's own path, no environment): its latency.
async fn dry_run(lambda: &aws_sdk_lambda::Client, name: &str) -> Result<Duration, String> {
    let started = Instant::now();
    (lambda.invoke().function_name(name))
        .invocation_type(InvocationType::DryRun)
        .payload(Blob::new(PAYLOAD))
        .send()
        .await
        .map_err(|e| format!("Invoke DryRun: {}", DisplayErrorContext(&e)))?;
    Ok(started.elapsed())
}

/// What one round measured, by figure: latencies (ms), rates (a second) or failures.
#[derive(Default)]
struct Results {
    latencies: BTreeMap<(String, Target), Vec<f64>>,
    /// Each round's median of a latency figure.
    round_medians: BTreeMap<(String, Target), Vec<f64>>,
    rates: BTreeMap<(String, Target), Vec<f64>>,
    failures: BTreeMap<(String, Target), String>,
}

impl Results {
    fn latency(&mut self, figure: &str, t: Target, samples: Result<Vec<Duration>, String>) {
        let key = (figure.to_string(), t);
        match samples {
            Ok(samples) => {
                let ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
                let median = percentile(&ms, 0.5);
                eprintln!("  {figure}: median {median:.2} ms ({} samples)", ms.len());
                self.round_medians
                    .entry(key.clone())
                    .or_default()
                    .push(median);
                self.latencies.entry(key).or_default().extend(ms);
            }
            Err(e) => self.fail(key, e),
        }
    }

    fn rate(&mut self, figure: &str, t: Target, rate: Result<f64, String>) {
        let key = (figure.to_string(), t);
        match rate {
            Ok(rate) => {
                eprintln!("  {figure}: {rate:.1}");
                self.rates.entry(key).or_default().push(rate);
            }
            Err(e) => self.fail(key, e),
        }
    }

    fn fail(&mut self, key: (String, Target), e: String) {
        eprintln!("  {}: failed: {e}", key.0);
        self.failures.entry(key).or_insert(e);
    }
}

fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or(f64::NAN)
}

/// Cold starts: `n` functions created, each invoked once (creation not timed), then deleted.
async fn cold(
    r: &Running,
    s: &Setting,
    kind: Kind,
    round: usize,
    n: usize,
) -> Result<Vec<Duration>, String> {
    let mut samples = Vec::new();
    for i in 0..n {
        let name = format!("{}-cold-{round}-{i}", kind.name().to_lowercase());
        create(r, s, &name, kind, ECHO).await?;
        samples.push(invoke(&r.lambda, &name).await?);
        let deleted = r.lambda.delete_function().function_name(&name).send().await;
        deleted.map_err(|e| format!("DeleteFunction: {}", DisplayErrorContext(&e)))?;
    }
    Ok(samples)
}

/// `n` warm invocations one after another (after 10 not timed).
async fn warm(
    lambda: &aws_sdk_lambda::Client,
    name: &str,
    n: usize,
) -> Result<Vec<Duration>, String> {
    for _ in 0..10 {
        invoke(lambda, name).await?;
    }
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        samples.push(invoke(lambda, name).await?);
    }
    Ok(samples)
}

/// Invocations a second from `callers` callers at once, each invoking as soon as its last
/// answer came, for `seconds` after a warm-up of one second (which starts the environments).
async fn rate(
    lambda: &aws_sdk_lambda::Client,
    name: &str,
    callers: usize,
    seconds: f64,
) -> Result<f64, String> {
    for window in [1.0, seconds] {
        let until = Instant::now() + Duration::from_secs_f64(window);
        let started = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..callers {
            let (lambda, name) = (lambda.clone(), name.to_string());
            tasks.spawn(async move {
                let mut done = 0_u64;
                while Instant::now() < until {
                    invoke(&lambda, &name).await?;
                    done += 1;
                }
                Ok::<u64, String>(done)
            });
        }
        let mut done = 0;
        while let Some(joined) = tasks.join_next().await {
            done += joined.map_err(|e| e.to_string())??;
        }
        if window == seconds {
            return Ok(done as f64 / started.elapsed().as_secs_f64());
        }
    }
    unreachable!("the measured window returns")
}

/// How a drain went: seconds from CreateEventSourceMapping to the first message taken and to
/// an empty queue.
struct Drained {
    first_taken: f64,
    empty: f64,
}

/// `messages` messages queued (SendMessageBatch, 10 a request), then a mapping of batch `batch`
/// and window `window` seconds to a Python function; polls the queue's counts every 100 ms
/// until it is empty.
#[allow(clippy::too_many_arguments)]
async fn drain(
    r: &Running,
    s: &Setting,
    round: usize,
    batch: i32,
    window: i32,
    messages: usize,
    limit: f64,
) -> Result<Drained, String> {
    let mut setup = Setup::open(r.addr, true).await?;
    let (url, arn) = setup.queue(&format!("drain-{batch}-{round}")).await?;
    let filled = Instant::now();
    fill_batches(
        r.addr,
        &url,
        messages,
        "hello",
        FILL_CONNECTIONS,
        Some("sqs"),
    )
    .await?;
    eprintln!(
        "  {messages} messages queued in {:.1} s",
        filled.elapsed().as_secs_f64()
    );
    let function = format!("drain-{batch}-{round}");
    create(r, s, &function, Kind::Python, DRAIN).await?;
    let started = Instant::now();
    let mut mapping = (r.lambda.create_event_source_mapping())
        .function_name(&function)
        .event_source_arn(&arn)
        .batch_size(batch);
    if window > 0 {
        mapping = mapping.maximum_batching_window_in_seconds(window);
    }
    let mapping = mapping.send().await;
    let mapping =
        mapping.map_err(|e| format!("CreateEventSourceMapping: {}", DisplayErrorContext(&e)))?;
    let mut first_taken = None;
    let result = loop {
        let counts = (r.sqs.get_queue_attributes())
            .queue_url(&url)
            .attribute_names(QueueAttributeName::ApproximateNumberOfMessages)
            .attribute_names(QueueAttributeName::ApproximateNumberOfMessagesNotVisible)
            .send()
            .await;
        let counts = counts.map_err(|e| format!("GetQueueAttributes: {e}"))?;
        let count = |name: QueueAttributeName| -> usize {
            let attributes = counts.attributes();
            let value = attributes.and_then(|a| a.get(&name));
            value.and_then(|v| v.parse().ok()).unwrap_or(usize::MAX)
        };
        let visible = count(QueueAttributeName::ApproximateNumberOfMessages);
        let hidden = count(QueueAttributeName::ApproximateNumberOfMessagesNotVisible);
        let elapsed = started.elapsed().as_secs_f64();
        if visible < messages && first_taken.is_none() {
            first_taken = Some(elapsed);
        }
        if visible == 0 && hidden == 0 {
            break Ok(Drained {
                first_taken: first_taken.unwrap_or(elapsed),
                empty: elapsed,
            });
        }
        if elapsed > limit {
            let left = visible.saturating_add(hidden);
            let gone = messages.saturating_sub(left);
            break Err(format!(
                "{gone} of {messages} drained in {limit:.0} s ({:.0}/s)",
                gone as f64 / (elapsed - first_taken.unwrap_or(0.0))
            ));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    if let Some(uuid) = mapping.uuid() {
        let _ = r
            .lambda
            .delete_event_source_mapping()
            .uuid(uuid)
            .send()
            .await;
    }
    result
}

/// Every figure of one emulator, started afresh.
async fn measure(t: Target, s: &Setting, round: usize, results: &mut Results) {
    let (cold_n, warm_n): (usize, usize) = (arg("cold", 10), arg("warm", 200));
    let (seconds, callers): (f64, usize) = (arg("seconds", 5.0), arg("callers", 8));
    let (messages, limit): (usize, f64) = (arg("messages", 100_000), arg("limit", 300.0));
    eprintln!("round {round}: {}", t.name());
    let r = match Running::start(t, s) {
        Ok(r) => r,
        Err(e) => return results.fail(("start".into(), t), e),
    };
    if let Err(e) = r.ready().await {
        return results.fail(("start".into(), t), e);
    }
    for kind in [Kind::Python, Kind::Provided] {
        let k = kind.name();
        let samples = cold(&r, s, kind, round, cold_n).await;
        results.latency(&format!("{k}: cold start"), t, samples);
        let name = format!("{}-warm", k.to_lowercase());
        let made = create(&r, s, &name, kind, ECHO).await;
        if let Err(e) = made.clone() {
            results.fail((format!("{k}: warm"), t), e);
            continue;
        }
        let samples = warm(&r.lambda, &name, warm_n).await;
        results.latency(&format!("{k}: warm"), t, samples);
        let one = rate(&r.lambda, &name, 1, seconds).await;
        results.rate(&format!("{k}: warm invocations/s, 1 caller"), t, one);
        let many = rate(&r.lambda, &name, callers, seconds).await;
        let figure = format!("{k}: warm invocations/s, {callers} callers");
        results.rate(&figure, t, many);
    }
    let mut dry = Vec::new();
    for _ in 0..warm_n {
        match dry_run(&r.lambda, "python-warm").await {
            Ok(d) => dry.push(d),
            Err(e) => return results.fail(("Invoke DryRun".into(), t), e),
        }
    }
    results.latency("Invoke DryRun (no environment)", t, Ok(dry));
    for (batch, window) in [(10, 0), (100, 1)] {
        let figure = format!("SQS mapping, batch {batch}, window {window} s");
        match drain(&r, s, round, batch, window, messages, limit).await {
            Ok(d) => {
                let rate = messages as f64 / (d.empty - d.first_taken);
                eprintln!(
                    "  {figure}: empty after {:.2} s (first taken at {:.2} s)",
                    d.empty, d.first_taken
                );
                results.rate(&format!("{figure}: seconds to empty"), t, Ok(d.empty));
                results.rate(
                    &format!("{figure}: messages/s after the first"),
                    t,
                    Ok(rate),
                );
            }
            Err(e) => results.fail((format!("{figure}: seconds to empty"), t), e),
        }
    }
}

/// The SDK's floor: the same Invoke answered by a bare axum handler in this process (the
/// payload echoed as the functions answer it), one caller and `callers` at once.
async fn bare(results: &mut Results) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = axum::Router::new().fallback(|body: bytes::Bytes| async move {
        ([("content-type", "application/json")], body)
    });
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let lambda = lambda_client(&format!("http://{addr}"));
    let (warm_n, seconds, callers): (usize, f64, usize) =
        (arg("warm", 200), arg("seconds", 5.0), arg("callers", 8));
    eprintln!("bare handler");
    let t = Target::Baseline;
    let samples = warm(&lambda, "bare", warm_n).await;
    results.latency("bare: Invoke answered by axum", t, samples);
    let one = rate(&lambda, "bare", 1, seconds).await;
    results.rate("bare: invocations/s, 1 caller", t, one);
    let many = rate(&lambda, "bare", callers, seconds).await;
    results.rate(&format!("bare: invocations/s, {callers} callers"), t, many);
    server.abort();
}

/// Median wall time of `n` runs of a command, spawn to exit: what a process start costs.
fn spawned(program: &str, args: &[&str], n: usize) -> Vec<Duration> {
    let mut samples = Vec::new();
    for _ in 0..n {
        let started = Instant::now();
        let status = Command::new(program)
            .args(args)
            .stdout(Stdio::null())
            .status();
        if status.is_ok_and(|s| s.success()) {
            samples.push(started.elapsed());
        }
    }
    samples
}

/// The interpreter `python3` on PATH runs, past any shim (pyenv's is a shell script).
fn real_python() -> String {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 on PATH");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The bootstrap, compiled with rustc into a scratch folder, zipped.
fn bootstrap_zip() -> Vec<u8> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/lambda-bootstrap.rs");
    let out = std::env::temp_dir().join(format!(
        "switchyard-lambda-bootstrap-{}",
        std::process::id()
    ));
    let status = Command::new("rustc")
        .args(["-O", "--edition", "2021", "-o"])
        .arg(&out)
        .arg(&source)
        .status()
        .expect("rustc");
    assert!(status.success(), "rustc {}", source.display());
    let binary = std::fs::read(&out).expect("bootstrap");
    let _ = std::fs::remove_file(&out);
    zip_of(&[("bootstrap", &binary)])
}

fn print_table(results: &Results, targets: &[Target]) {
    let mut figures: Vec<&String> = (results.latencies.keys())
        .chain(results.rates.keys())
        .chain(results.failures.keys())
        .map(|(f, _)| f)
        .collect();
    figures.dedup();
    let mut seen = std::collections::BTreeSet::new();
    figures.retain(|f| seen.insert(*f));
    let names: Vec<&str> = targets.iter().map(|t| t.name()).collect();
    println!("\n| figure | {} |", names.join(" | "));
    println!("|---|{}", "---:|".repeat(targets.len()));
    for figure in figures {
        let cells: Vec<String> = (targets.iter())
            .map(|t| {
                let key = (figure.clone(), *t);
                if let Some(e) = results.failures.get(&key) {
                    return format!("failed ({e})");
                }
                if let Some(ms) = results.latencies.get(&key) {
                    let rounds = &results.round_medians[&key];
                    let (lo, hi) = (percentile(rounds, 0.0), percentile(rounds, 1.0));
                    return format!(
                        "{:.2} / {:.2} ms (rounds {lo:.2}–{hi:.2})",
                        percentile(ms, 0.5),
                        percentile(ms, 0.9)
                    );
                }
                if let Some(rates) = results.rates.get(&key) {
                    let (lo, hi) = (percentile(rates, 0.0), percentile(rates, 1.0));
                    return format!("{:.1} ({lo:.1}–{hi:.1})", percentile(rates, 0.5));
                }
                "–".into()
            })
            .collect();
        println!("| {figure} | {} |", cells.join(" | "));
    }
}

fn main() {
    check_options(&OPTIONS, "lambda_bench");
    let targets: String = arg("targets", "switchyard,ministack".to_string());
    let targets: Vec<Target> = (targets.split(','))
        .map(|t| match t.trim() {
            "switchyard" => Target::Switchyard,
            "ministack" => Target::MiniStack,
            other => panic!("--targets: unknown {other}"),
        })
        .collect();
    let rounds: usize = arg("rounds", 3);
    // Absolute, as each emulator runs in a scratch folder of its own.
    let absolute = |path: String| std::path::absolute(path).expect("path");
    let setting = Setting {
        binary: absolute(arg("binary", "target/release/switchyard".into())),
        dir: absolute(arg("dir", "bench/.peers".into())),
        python: arg("python", real_python()),
        bootstrap_zip: bootstrap_zip(),
    };
    eprintln!("python: {}", setting.python);
    let rt = tokio::runtime::Runtime::new().expect("tokio");
    let mut results = Results::default();
    // What a process start costs on this machine, for the reading of the cold starts.
    let t = Target::Baseline;
    let n = 20;
    let python = setting.python.as_str();
    results.latency(
        "process start: /bin/true",
        t,
        Ok(spawned("/bin/true", &[], n)),
    );
    let pass = spawned(python, &["-c", "pass"], n);
    results.latency("process start: python3 -c pass", t, Ok(pass));
    let imports =
        "import base64, decimal, http.client, importlib, json, logging, os, sys, time, traceback";
    let loop_imports = spawned(python, &["-c", imports], n);
    results.latency(
        "process start: python3, the loop's imports",
        t,
        Ok(loop_imports),
    );
    let shim = spawned("python3", &["-c", "pass"], n);
    results.latency("process start: python3 -c pass, through PATH", t, Ok(shim));
    for round in 0..rounds {
        rt.block_on(bare(&mut results));
        let mut order = targets.clone();
        if round % 2 == 1 {
            order.reverse();
        }
        for t in order {
            rt.block_on(measure(t, &setting, round, &mut results));
        }
    }
    println!(
        "\nLatencies: median / p90 over every round's invocations (the range of the rounds' \
         medians); rates: median of the rounds (range)."
    );
    let mut columns = vec![Target::Baseline];
    columns.extend(targets);
    print_table(&results, &columns);
}
