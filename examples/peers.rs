//! switchyard and its peers (moto's server, LocalStack in host mode, MiniStack, fakecloud) in
//! the same run, one after the other on this machine, driven by the same load generator
//! (`loadgen`, shared with `bench.rs`) with the same requests: start-up time, idle memory, memory
//! with 100,000 queued 1 KiB messages, SQS SendMessage, send + receive + delete, SNS Publish to 1
//! and 10 SQS subscriptions and PutEvents to one rule with an SQS target. Prints each figure and
//! its ratio to switchyard's. `bench/install-peers.sh` installs the peers into `bench/.peers`;
//! a peer that is not there is listed as not measured. See docs/benchmarks.md.
//!
//! ```text
//! cargo build --release && bench/install-peers.sh
//! cargo run --release --example peers -- --seconds 3 --connections 32
//! ```
//! Options (or BENCH_PEERS, BENCH_SECONDS, ...): --peers LIST
//! (switchyard,moto,localstack,ministack,fakecloud), --connections N (32), --seconds S per
//! workload (3), --warmup S (1), --messages N queued for the memory figure (100000), --spawns N
//! (start-ups timed, 3), --binary PATH (target/release/switchyard), --dir PATH (bench/.peers).

// A benchmark measures wall time, which clippy.toml's virtual-clock rule forbids everywhere else.
#![allow(clippy::disallowed_methods)]

mod loadgen;

use loadgen::*;
use serde_json::json;
use std::net::{SocketAddr, TcpListener};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const OPTIONS: [&str; 8] = [
    "peers",
    "connections",
    "seconds",
    "warmup",
    "messages",
    "spawns",
    "binary",
    "dir",
];
/// How long a peer may take to give its first answer.
const STARTUP_LIMIT: Duration = Duration::from_secs(180);
/// The share of operations that may fail before a workload counts as failed.
const FAILURES_ALLOWED: f64 = 0.01;

/// How to start one emulator on a port.
struct Peer {
    name: &'static str,
    program: String,
    args: Vec<String>,
    env: Vec<(&'static str, String)>,
    /// The version the peer reports, or the reason it is not measured.
    version: Result<String, String>,
}

impl Peer {
    fn command(&self, port: u16) -> Command {
        let port = port.to_string();
        let mut command = Command::new(&self.program);
        command.args(self.args.iter().map(|a| a.replace("{port}", &port)));
        for (name, value) in &self.env {
            command.env(name, value.replace("{port}", &port));
        }
        command
    }
}

/// The peers named in `--peers`, found under `dir` as `bench/install-peers.sh` installs them.
fn peers(dir: &Path, binary: &str) -> Vec<Peer> {
    let names: String = arg(
        "peers",
        "switchyard,moto,localstack,ministack,fakecloud".to_string(),
    );
    let bin = |venv: &str, program: &str| dir.join(venv).join("bin").join(program);
    let python_version = |venv: &str, package: &str| -> Result<String, String> {
        let python = bin(venv, "python");
        let code = format!("import importlib.metadata as m; print(m.version('{package}'))");
        output(Command::new(python).args(["-c", &code]))
            .map(|v| format!("{package} {v}"))
            .map_err(|e| format!("not installed ({e}); run bench/install-peers.sh"))
    };
    let mut all = Vec::new();
    for name in names.split(',').map(str::trim) {
        let listen = ("GATEWAY_LISTEN", "127.0.0.1:{port}".to_string());
        let peer = match name {
            "switchyard" => Peer {
                name: "switchyard",
                program: binary.into(),
                args: vec!["--port".into(), "{port}".into()],
                env: vec![],
                version: output(Command::new(binary).arg("--version")),
            },
            "moto" => Peer {
                name: "moto",
                program: bin("moto", "moto_server").display().to_string(),
                args: ["-H", "127.0.0.1", "-p", "{port}"].map(String::from).into(),
                env: vec![],
                version: python_version("moto", "moto"),
            },
            "localstack" => Peer {
                name: "LocalStack",
                program: bin("localstack", "python").display().to_string(),
                args: ["-m", "localstack.runtime.main"].map(String::from).into(),
                env: vec![
                    listen,
                    ("LOCALSTACK_HOST", "127.0.0.1:{port}".into()),
                    ("DNS_ADDRESS", "0".into()),
                    ("SKIP_SSL_CERT_DOWNLOAD", "1".into()),
                    ("DISABLE_EVENTS", "1".into()),
                ],
                version: python_version("localstack", "localstack-core"),
            },
            "ministack" => Peer {
                name: "MiniStack",
                program: bin("ministack", "ministack").display().to_string(),
                args: vec![],
                env: vec![
                    ("GATEWAY_PORT", "{port}".into()),
                    ("BIND_HOST", "127.0.0.1".into()),
                ],
                version: python_version("ministack", "ministack"),
            },
            "fakecloud" => {
                let program = dir.join("fakecloud/bin/fakecloud");
                Peer {
                    name: "fakecloud",
                    version: output(Command::new(&program).arg("--version"))
                        .map_err(|e| format!("not installed ({e}); see bench/install-peers.sh")),
                    program: program.display().to_string(),
                    args: ["--addr", "127.0.0.1:{port}"].map(String::from).into(),
                    env: vec![],
                }
            }
            other => panic!("--peers: unknown peer {other}"),
        };
        all.push(peer);
    }
    all
}

/// A command's first line of output.
fn output(command: &mut Command) -> Result<String, String> {
    let out = command.output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().next().unwrap_or_default().trim().to_string();
    if out.status.success() && !line.is_empty() {
        Ok(line)
    } else {
        Err(format!("{}", out.status))
    }
}

/// A running peer: its process group (the peer and whatever it starts) and address.
struct Running {
    child: Child,
    addr: SocketAddr,
}

impl Running {
    /// Starts `peer` on a free port and waits for its first answer to ListQueues; answers it
    /// with the time from spawn to that answer.
    fn start(peer: &Peer, rt: &tokio::runtime::Runtime) -> Result<(Running, Duration), String> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let scratch = std::env::temp_dir().join(format!("switchyard-peers-{port}"));
        std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
        let started = Instant::now();
        let child = (peer.command(port))
            .current_dir(&scratch)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("{}: {e}", peer.program))?;
        let running = Running { child, addr };
        let list = sqs_json("ListQueues", json!({})).scoped("sqs");
        loop {
            let answered = rt.block_on(async {
                let mut conn = Conn::try_open(addr).await.ok()?;
                Some(conn.send(&list).await.0 == 200)
            });
            if answered == Some(true) {
                return Ok((running, started.elapsed()));
            }
            if started.elapsed() > STARTUP_LIMIT {
                return Err(format!("no answer in {} s", STARTUP_LIMIT.as_secs()));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Resident memory of the peer's process group, in KiB.
    fn rss_kib(&self) -> u64 {
        let group = self.child.id().to_string();
        let pids = std::fs::read_dir("/proc").into_iter().flatten().flatten();
        let in_group = |pid: &str| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // After the command's name in parentheses: state, parent, process group.
            let fields = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
            fields.split_whitespace().nth(2) == Some(group.as_str())
        };
        (pids.filter_map(|p| p.file_name().into_string().ok()))
            .filter(|pid| pid.parse::<u32>().is_ok() && in_group(pid))
            .filter_map(|pid| try_rss_kib(pid.parse().ok()?))
            .sum()
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

/// One figure of one peer: a value (higher is better for rates) or why there is none.
type Figure = Result<Value, String>;

#[derive(Clone, Copy)]
enum Value {
    Millis(f64),
    Mib(f64),
    /// Operations a second, and the p50 in µs.
    Rate(f64, u32),
}

impl Value {
    fn number(self) -> f64 {
        match self {
            Value::Millis(v) | Value::Mib(v) | Value::Rate(v, _) => v,
        }
    }

    fn text(self) -> String {
        match self {
            Value::Millis(ms) if ms < 100.0 => format!("{ms:.1} ms"),
            Value::Millis(ms) => format!("{:.2} s", ms / 1000.0),
            Value::Mib(mib) => format!("{mib:.1} MiB"),
            Value::Rate(ops, p50) => format!("{}/s, p50 {}", thousands(ops), micros(p50)),
        }
    }
}

fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn micros(us: u32) -> String {
    if us < 1000 {
        format!("{us} µs")
    } else {
        format!("{:.1} ms", f64::from(us) / 1000.0)
    }
}

const FIGURES: [&str; 8] = [
    "start-up, spawn to first answer (median)",
    "resident memory, idle",
    "resident memory, --messages queued 1 KiB messages",
    "SQS SendMessage",
    "SQS send + receive + delete (round trips)",
    "SNS Publish, 1 SQS subscription",
    "SNS Publish, 10 SQS subscriptions",
    "PutEvents, 1 rule with an SQS target",
];

/// Every figure of `peer`, in the order of `FIGURES`.
fn measure_peer(peer: &Peer, o: &Opts, rt: &tokio::runtime::Runtime) -> Vec<Figure> {
    let (spawns, messages): (usize, usize) = (arg("spawns", 3), arg("messages", 100_000));
    let mut figures = Vec::new();
    // Start-ups, the first of which then holds the messages of the memory figure.
    let mut startups = Vec::new();
    let mut memory = vec![Err("did not start".to_string()); 2];
    for i in 0..spawns.max(1) {
        match Running::start(peer, rt) {
            Ok((running, took)) => {
                startups.push(took);
                if i == 0 {
                    memory = memory_figures(&running, o, messages, rt);
                }
            }
            Err(e) => {
                memory = vec![Err(e.clone()); 2];
                startups.clear();
                figures.push(Err(e));
                break;
            }
        }
    }
    if !startups.is_empty() {
        startups.sort();
        let median = startups[startups.len() / 2];
        figures.push(Ok(Value::Millis(median.as_secs_f64() * 1000.0)));
    }
    figures.extend(memory);
    // The workloads, on a peer started afresh.
    let running = match Running::start(peer, rt) {
        Ok((running, _)) => running,
        Err(e) => return pad(figures, Err(e)),
    };
    let workloads = match rt.block_on(prepare(running.addr)) {
        Ok(workloads) => workloads,
        Err(e) => return pad(figures, Err(e)),
    };
    for work in workloads {
        let figure = match work {
            Ok(work) => rt.block_on(run(running.addr, work, o)),
            Err(e) => Err(e),
        };
        figures.push(figure);
    }
    figures
}

fn pad(mut figures: Vec<Figure>, reason: Figure) -> Vec<Figure> {
    figures.resize(FIGURES.len(), reason);
    figures
}

/// How long a peer may take to queue the memory figure's messages: a peer that answers every
/// batch, slowly, would otherwise hold the whole run up (moto took over 12 minutes once).
const FILL_DEADLINE: Duration = Duration::from_secs(180);

/// Idle memory a second after the first answer, and memory with `messages` 1 KiB messages
/// queued (SendMessageBatch), or why not (within [`FILL_DEADLINE`]).
fn memory_figures(
    running: &Running,
    o: &Opts,
    messages: usize,
    rt: &tokio::runtime::Runtime,
) -> Vec<Figure> {
    std::thread::sleep(Duration::from_secs(1));
    let idle = running.rss_kib();
    let mib = |kib: u64| Value::Mib(kib as f64 / 1024.0);
    let filled = rt.block_on(async {
        let mut setup = Setup::open(running.addr, true).await?;
        let (url, _) = setup.queue("memory").await?;
        let body = "x".repeat(1024);
        let fill = fill_batches(
            running.addr,
            &url,
            messages,
            &body,
            o.connections,
            Some("sqs"),
        );
        tokio::time::timeout(FILL_DEADLINE, fill)
            .await
            .map_err(|_| format!("not filled within {} s", FILL_DEADLINE.as_secs()))?
    });
    vec![Ok(mib(idle)), filled.map(|_| mib(running.rss_kib()))]
}

/// The workloads' resources, made through the peer's API; each workload's `Work`, or why it
/// cannot run. A publish and an event are sent first and must reach their queue.
async fn prepare(addr: SocketAddr) -> Result<Vec<Result<Work, String>>, String> {
    let mut setup = Setup::open(addr, true).await?;
    let (send_url, _) = setup.queue("send").await?;
    let (trip_url, _) = setup.queue("trip").await?;
    let mut workloads = vec![
        Ok(Work::One(send_json(&send_url, "hello").scoped("sqs"))),
        Ok(Work::round_trip(&trip_url, Some("sqs"))),
    ];
    for n in [1, 10] {
        let name = format!("fan{n}");
        let publish_work = async {
            let topic = setup.fan_out_topic(&name, n).await?;
            let publish = publish(&topic).scoped("sns");
            setup.conn.try_ok(&publish).await?;
            delivered(&mut setup, &format!("{name}-q0")).await?;
            Ok(Work::One(publish))
        };
        workloads.push(publish_work.await);
    }
    let rule_work = async {
        let (_, queue) = setup.queue("events").await?;
        setup.rule("bench", &queue, true).await?;
        let put = put_events(1).scoped("events");
        let answer = setup.conn.try_ok(&put).await?;
        if answer["FailedEntryCount"].as_u64() != Some(0) {
            return Err(format!("PutEvents: {answer}"));
        }
        delivered(&mut setup, "events").await?;
        Ok(Work::One(put))
    };
    workloads.push(rule_work.await);
    Ok(workloads)
}

/// Waits up to 5 s for a message on the queue `name`.
async fn delivered(setup: &mut Setup, name: &str) -> Result<(), String> {
    let (url, _) = setup.queue(name).await?;
    let receive = json!({"QueueUrl": url, "WaitTimeSeconds": 5, "MaxNumberOfMessages": 1});
    let receive = sqs_json("ReceiveMessage", receive).scoped("sqs");
    let answer = setup.conn.try_ok(&receive).await?;
    match answer["Messages"].as_array() {
        Some(messages) if !messages.is_empty() => Ok(()),
        _ => Err(format!("nothing delivered to the queue {name} in 5 s")),
    }
}

/// Warm-up, then the measured run of `work`; failed when more than 1% of its operations did
/// not answer 200 on every request.
async fn run(addr: SocketAddr, work: Work, o: &Opts) -> Figure {
    let work = Arc::new(work);
    if o.warmup > 0.0 {
        load(addr, work.clone(), o.connections, o.warmup).await;
    }
    let stats = load(addr, work, o.connections, o.seconds).await;
    if stats.ops == 0 || stats.failed as f64 > stats.ops as f64 * FAILURES_ALLOWED {
        let (failed, ops) = (stats.failed, stats.ops);
        return Err(format!("{failed} of {ops} operations did not answer 200"));
    }
    Ok(Value::Rate(stats.ops_per_s, stats.p50_us))
}

fn main() {
    check_options(&OPTIONS, "peers");
    let o = Opts {
        connections: arg("connections", 32),
        seconds: arg("seconds", 3.0),
        warmup: arg("warmup", 1.0),
    };
    let binary: String = arg("binary", "target/release/switchyard".into());
    let dir: String = arg("dir", "bench/.peers".into());
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    // Absolute, as every peer runs in a scratch folder of its own.
    let dir = std::path::absolute(dir).expect("--dir");
    let binary = std::path::absolute(binary).expect("--binary");
    let peers = peers(&dir, &binary.display().to_string());
    let mut columns = Vec::new();
    for peer in &peers {
        let figures = match &peer.version {
            Ok(version) => {
                eprintln!("{}: {version}", peer.name);
                measure_peer(peer, &o, &rt)
            }
            Err(reason) => vec![Err(format!("not measured: {reason}")); FIGURES.len()],
        };
        columns.push(figures);
    }
    let (c, secs) = (o.connections, o.seconds);
    println!("{c} connections, {secs} s a workload; in brackets: the ratio to switchyard\n");
    let names: Vec<&str> = peers.iter().map(|p| p.name).collect();
    println!("| figure | {} |", names.join(" | "));
    println!("|---|{}", "---:|".repeat(peers.len()));
    let reference = (peers.iter().position(|p| p.name == "switchyard"))
        .map(|i| columns[i].clone())
        .unwrap_or_default();
    for (row, figure) in FIGURES.iter().enumerate() {
        let cells: Vec<String> = (columns.iter())
            .map(|figures| match (&figures[row], reference.get(row)) {
                (Ok(v), Some(Ok(base))) => {
                    format!("{} ({:.2})", v.text(), v.number() / base.number())
                }
                (Ok(v), _) => v.text(),
                (Err(e), _) if e.starts_with("not measured") => e.clone(),
                (Err(e), _) => format!("failed ({e})"),
            })
            .collect();
        let figure = figure.replace("--messages", &thousands(arg("messages", 100_000) as f64));
        println!("| {figure} | {} |", cells.join(" | "));
    }
    println!("\nVersions:");
    for peer in &peers {
        let version = peer.version.as_ref().unwrap_or_else(|e| e);
        println!("- {}: {version}", peer.name);
    }
}
