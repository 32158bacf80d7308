//! Where a request's CPU goes: the release binary and a bare axum handler, each in a process of
//! its own, driven by the load generator from this one; prints the requests/s and the CPU time
//! (user + system, from `/proc/PID/stat`) each side spent a request. Also the place to attach
//! `perf record -p PID` to a server under a steady load (`--seconds 30`). See docs/benchmarks.md,
//! "CPU a request".
//!
//! ```text
//! cargo build --release --bin switchyard --example cpu
//! ./target/release/examples/cpu --seconds 4 --runs 2
//! ```
//! Options (or BENCH_SECONDS, ...): --connections N (32), --seconds S per measure (4), --warmup S
//! (1), --runs N (2), --binary PATH (target/release/switchyard), --only TEXT (only the workloads
//! whose names contain TEXT: `--only PutEvents --seconds 30` for a profile), --log LEVEL (the
//! servers' RUST_LOG, `warn`: no request log; `info` writes it, to /dev/null). `cpu --serve-bare PORT` is the
//! bare handler's own process.

// A benchmark measures wall time, which clippy.toml's virtual-clock rule forbids everywhere else.
#![allow(clippy::disallowed_methods)]

mod loadgen;

/// The release binary's allocator, so that switchyard in this process (and the bare handler
/// beside it) runs on the same stack as the binary does (docs/decisions.md, "The allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use loadgen::*;
use serde_json::json;
use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

const OPTIONS: [&str; 8] = [
    "only",
    "log",
    "connections",
    "seconds",
    "warmup",
    "runs",
    "binary",
    "serve-bare",
];

/// CPU seconds (user + system) process `pid` has used.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
    // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// A server process and the address it answers on.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    /// Starts `program args` and reads its address from its first line ("... http://ADDR").
    fn start(program: &str, args: &[&str]) -> Server {
        let mut child = Command::new(program)
            .args(args)
            .env("RUST_LOG", arg::<String>("log", "warn".into()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{program}: {e}; run `cargo build --release` first"));
        let mut line = String::new();
        let stdout = child.stdout.take().expect("stdout");
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("ready line");
        let addr = line
            .trim()
            .rsplit("http://")
            .next()
            .and_then(|a| a.parse().ok());
        let addr = addr.unwrap_or_else(|| panic!("{program} printed {line:?}"));
        Server { child, addr }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The bare handler ([`serve_bare`]) as a process of its own; prints its address first.
fn bare_process(port: u16) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("bind");
        println!(
            "bare listening on http://{}",
            listener.local_addr().expect("addr")
        );
        serve_bare(listener).await;
    });
}

/// Runs `work` against `server` and prints its rate and both sides' CPU a request.
async fn measure(name: &str, server: &Server, work: Work, o: &Opts) {
    let only: String = arg("only", String::new());
    if !name.contains(&only) {
        return;
    }
    let work = Arc::new(work);
    load(server.addr, work.clone(), o.connections, o.warmup).await;
    let (server_before, client_before) = (
        cpu_seconds(server.child.id()),
        cpu_seconds(std::process::id()),
    );
    let stats = load(server.addr, work, o.connections, o.seconds).await;
    let server_cpu = cpu_seconds(server.child.id()) - server_before;
    let client_cpu = cpu_seconds(std::process::id()) - client_before;
    let requests = stats.reqs_per_s * o.seconds;
    let per = |cpu: f64| cpu * 1e6 / requests.max(1.0);
    println!(
        "| {name} | {:.0} | {} µs | {} µs | {:.1} µs | {:.1} µs |",
        stats.reqs_per_s,
        stats.p50_us,
        stats.p99_us,
        per(server_cpu),
        per(client_cpu)
    );
}

/// A fresh queue on `server`; answers its URL.
async fn queue(server: &Server) -> String {
    let mut conn = Conn::open(server.addr).await;
    let created = conn
        .ok(&sqs_json("CreateQueue", json!({"QueueName": "cpu"})))
        .await;
    created["QueueUrl"].as_str().expect("QueueUrl").to_string()
}

fn main() {
    check_options(&OPTIONS, "cpu");
    switchyard::memory::no_huge_pages();
    let bare_port: u16 = arg("serve-bare", 0);
    if std::env::args().any(|a| a == "--serve-bare") {
        return bare_process(bare_port);
    }
    let o = Opts {
        connections: arg("connections", 32),
        seconds: arg("seconds", 4.0),
        warmup: arg("warmup", 1.0),
    };
    let runs: usize = arg("runs", 2);
    let binary: String = arg("binary", "target/release/switchyard".into());
    let me = std::env::current_exe().expect("this example's path");
    let me = me.to_str().expect("a UTF-8 path");
    let dir = std::env::temp_dir().join(format!("switchyard-cpu-{}", std::process::id()));
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    println!(
        "| server, workload ({} connections) | requests/s | p50 | p99 | server CPU a request | client CPU a request |",
        o.connections
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for _ in 0..runs {
        rt.block_on(async {
            let bare = Server::start(me, &["--serve-bare", "0"]);
            let url = format!("http://{}/000000000000/cpu", bare.addr);
            measure(
                "bare handler",
                &bare,
                Work::One(send_json(&url, "hello")),
                &o,
            )
            .await;
            drop(bare);
            let sy = Server::start(&binary, &["--port", "0"]);
            let url = queue(&sy).await;
            measure(
                "switchyard, SendMessage",
                &sy,
                Work::One(send_json(&url, "hello")),
                &o,
            )
            .await;
            measure(
                "switchyard, GET /_localstack/health",
                &sy,
                Work::One(req(
                    hyper::Method::GET,
                    "/_localstack/health",
                    vec![],
                    String::new(),
                )),
                &o,
            )
            .await;
            measure(
                "switchyard, send + receive + delete",
                &sy,
                Work::round_trip(&url, None),
                &o,
            )
            .await;
            let mut setup = Setup::open(sy.addr, false).await.expect("connect");
            let topic = setup.fan_out_topic("cpu", 1).await.expect("topic");
            let name = "switchyard, Publish to 1 SQS subscription";
            measure(name, &sy, Work::One(publish(&topic)), &o).await;
            let (subscribed, _) = setup.queue("cpu-q0").await.expect("queue");
            let name = "switchyard, Publish + receive + delete (1 SQS subscription)";
            measure(name, &sy, Work::publish_round_trip(&topic, &subscribed), &o).await;
            let (_, events_queue) = setup.queue("cpu-events").await.expect("queue");
            setup.rule("cpu", &events_queue, true).await.expect("rule");
            let name = "switchyard, PutEvents to 1 rule with an SQS target";
            measure(name, &sy, Work::One(put_events(1).scoped("events")), &o).await;
            drop(sy);
            let _ = std::fs::remove_dir_all(&dir);
            let state_dir = dir.to_str().expect("a UTF-8 path");
            let kept = Server::start(&binary, &["--port", "0", "--state-dir", state_dir]);
            let url = queue(&kept).await;
            let name = "switchyard --state-dir, SendMessage";
            measure(name, &kept, Work::One(send_json(&url, "hello")), &o).await;
            drop(kept);
            let _ = std::fs::remove_dir_all(&dir);
        });
    }
}
