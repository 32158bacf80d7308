//! switchyard's speed, read as a ratio to a bare axum handler measured in the same run: SQS
//! throughput and latency over JSON 1.0 and Query, send+receive+delete round trips, the health
//! endpoint, and the release binary's startup time and resident memory; SNS Publish also as a
//! share of the machine's RSA signing limit. See docs/benchmarks.md.
//!
//! ```text
//! cargo build --release && cargo run --release --example bench -- --connections 32 --seconds 3
//! ```
//! Options (or BENCH_CONNECTIONS, BENCH_SECONDS, ...): --connections N (32), --seconds S per
//! workload (3), --warmup S (1), --backlog N messages (10000), --binary PATH
//! (target/release/switchyard), --scaling 1,8,64 (the connection counts of the scaling table;
//! "" skips it), --million N (1 KiB messages queued for the memory figure; 0 skips it),
//! --paired N (only issue 17's SQS aims and the request log's cost, in N rounds of pairs; see
//! [`paired`]).

// A benchmark measures wall time, which clippy.toml's virtual-clock rule forbids everywhere else.
#![allow(clippy::disallowed_methods)]

mod loadgen;

/// The release binary's allocator, so that switchyard in this process (and the bare handler
/// beside it) runs on the same stack as the binary does (docs/decisions.md, "The allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use bytes::Bytes;
use hyper::Method;
use loadgen::*;
use serde_json::json;
use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

const OPTIONS: [&str; 9] = [
    "paired",
    "connections",
    "seconds",
    "warmup",
    "backlog",
    "binary",
    "scaling",
    "counts",
    "million",
];
/// The memory scenario: this many queues, the first few holding messages of 1 KiB.
const QUEUES: usize = 100;
const FILLED_QUEUES: usize = 10;
const MESSAGES_PER_QUEUE: usize = 1_000;
/// AWS's quota of rules on one bus, which the emulator enforces.
const RULES_PER_BUS: usize = 300;

/// `request` sent again and again to the emulator, between two runs of the bare handler: the
/// workload's figures and the bare rates before and after it.
async fn between_bares(
    sy: SocketAddr,
    bare: SocketAddr,
    o: &Opts,
    request: Req,
    bare_work: MakeWork<'_>,
) -> (Stats, (f64, f64)) {
    let quick = Opts { warmup: 0.0, ..*o };
    let before = measure(bare, &quick, None, bare_work).await.reqs_per_s;
    let work = move |_: &str| Work::One(request.clone());
    let stats = measure(sy, o, None, &work).await;
    let after = measure(bare, &quick, None, bare_work).await.reqs_per_s;
    (stats, (before, after))
}

/// A connection to the emulator, emptied.
async fn reset(addr: SocketAddr) -> Setup {
    let mut setup = Setup::open(addr, false).await.expect("connect");
    setup.conn.ok(&control(Method::POST, "reset")).await;
    setup
}

/// A topic `fan` with `n` SQS subscriptions (queues `fan-q0`, ...) on an emptied emulator;
/// answers the topic ARN.
async fn fan_out_topic(addr: SocketAddr, n: usize) -> String {
    let mut setup = reset(addr).await;
    setup.fan_out_topic("fan", n).await.expect("topic")
}

/// `rules` rules on the default bus of an emptied emulator, each with an SQS target; the first
/// `matching` match the benchmark's events. Answers the PutEvents request of `entries` events.
async fn event_rules(addr: SocketAddr, rules: usize, matching: usize, entries: usize) -> Req {
    let mut setup = reset(addr).await;
    let (_, queue) = setup.queue("events").await.expect("queue");
    for i in 0..rules {
        let rule = setup.rule(&format!("r{i}"), &queue, i < matching).await;
        rule.expect("rule");
    }
    put_events(entries)
}

/// Wall time of one manual-clock advance through the whole AWS-managed SQS retry schedule
/// (100,016 attempts of one message to a faulted queue); answers (attempts, seconds).
async fn retry_schedule(addr: SocketAddr) -> (u64, f64) {
    let arn = fan_out_topic(addr, 1).await;
    let mut admin = Conn::open(addr).await;
    let fault = json!({"target": "arn:aws:sqs:us-east-1:000000000000:fan-q0", "status": 500});
    let mut fault_req = control(Method::POST, "faults");
    fault_req.body = Bytes::from(fault.to_string());
    assert_eq!(admin.send(&fault_req).await.0, 201);
    assert_eq!(admin.send(&publish(&arn)).await.0, 200);
    let mut advance = control(Method::POST, "clock/advance");
    advance.body = Bytes::from(json!({"seconds": 24 * 86_400}).to_string());
    let started = Instant::now();
    let (status, _) = admin.send(&advance).await;
    let took = started.elapsed().as_secs_f64();
    assert_eq!(status, 200);
    (100_016, took)
}

/// Warm-up (unless 0 s), then the measured run. With `backlog`, each starts on an emptied
/// emulator with a queue `bench` holding that many messages, whose URL `work` is given.
async fn measure(addr: SocketAddr, o: &Opts, backlog: Option<usize>, work: MakeWork<'_>) -> Stats {
    let mut admin = Conn::open(addr).await;
    let mut url = String::new();
    let mut stats = None;
    for seconds in [o.warmup, o.seconds].into_iter().filter(|s| *s > 0.0) {
        if let Some(n) = backlog {
            admin.ok(&control(Method::POST, "reset")).await;
            let create = sqs_json("CreateQueue", json!({"QueueName": "bench"}));
            let created = admin.ok(&create).await;
            url = created["QueueUrl"].as_str().expect("QueueUrl").to_string();
            fill(addr, &url, n, "hello", o.connections).await;
        }
        stats = Some(load(addr, Arc::new(work(&url)), o.connections, seconds).await);
    }
    stats.expect("measured")
}

/// The bare handler ([`serve_bare`]) on a free port.
async fn start_bare() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(serve_bare(listener));
    addr
}

/// Spawns the binary on a free port; returns it, its address and the time until its ready line.
fn spawn_binary(path: &str) -> (Child, SocketAddr, Duration) {
    let start = Instant::now();
    let mut child = Command::new(path)
        .args(["--port", "0"])
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{path}: {e}; run `cargo build --release` first"));
    let mut line = String::new();
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    stdout.read_line(&mut line).expect("ready line");
    let took = start.elapsed();
    let url = line.trim().strip_prefix("switchyard listening on http://");
    let addr = url.and_then(|u| u.parse().ok()).expect("ready line");
    (child, addr, took)
}

fn stop(mut child: Child) {
    child.kill().expect("kill");
    child.wait().expect("wait");
}

/// The figures of `scaled`: each workload's, and the bare rates around them.
type Scaled = (Vec<Stats>, (f64, f64));

/// The item's workloads at one concurrency (`count` None: SendMessage, round trip, Publish to 1
/// and 10 subscriptions, PutEvents to one rule) or with `count` queues, topics and rules
/// (SendMessage spread over the queues, Publish over the topics, PutEvents to a bus of that
/// many rules, up to AWS's quota, of which one matches), and the bare rates just before and after them.
async fn scaled(
    sy: SocketAddr,
    bare: SocketAddr,
    at: &Opts,
    bare_work: MakeWork<'_>,
    count: Option<usize>,
) -> Scaled {
    let again = Opts { warmup: 0.0, ..*at };
    let before = measure(bare, at, None, bare_work).await.reqs_per_s;
    let works = match count {
        None => {
            let mut setup = reset(sy).await;
            let (url, _) = setup.queue("bench").await.expect("queue");
            let one = setup.fan_out_topic("one", 1).await.expect("topic");
            let ten = setup.fan_out_topic("ten", 10).await.expect("topic");
            let (_, events) = setup.queue("events").await.expect("queue");
            setup.rule("r0", &events, true).await.expect("rule");
            vec![
                Work::One(send_json(&url, "hello")),
                Work::round_trip(&url, None),
                Work::One(publish(&one)),
                Work::One(publish(&ten)),
                Work::One(put_events(1)),
            ]
        }
        Some(n) => many(sy, n).await,
    };
    let mut stats = Vec::new();
    for work in works {
        let work = Arc::new(work);
        if at.warmup > 0.0 {
            load(sy, work.clone(), at.connections, at.warmup).await;
        }
        stats.push(load(sy, work, at.connections, at.seconds).await);
    }
    let after = measure(bare, &again, None, bare_work).await.reqs_per_s;
    (stats, (before, after))
}

/// On an emptied emulator: `n` queues, `n` topics (each with one subscription to the queue
/// `sink`) and `n` rules on the default bus, at most `RULES_PER_BUS` (the first matching, each
/// with `sink` as its target).
/// Answers SendMessage spread over the queues, Publish spread over the topics, and PutEvents.
async fn many(sy: SocketAddr, n: usize) -> Vec<Work> {
    let mut setup = reset(sy).await;
    let (_, sink) = setup.queue("sink").await.expect("queue");
    let (mut sends, mut publishes) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (url, _) = setup.queue(&format!("q{i}")).await.expect("queue");
        sends.push(send_json(&url, "hello"));
        let topic = setup.topic(&format!("t{i}")).await.expect("topic");
        setup.subscribe(&topic, &sink).await.expect("subscribe");
        publishes.push(publish(&topic));
        if i < RULES_PER_BUS {
            let rule = setup.rule(&format!("r{i}"), &sink, i == 0).await;
            rule.expect("rule");
        }
    }
    vec![
        Work::Cycle(sends),
        Work::Cycle(publishes),
        Work::One(put_events(1)),
    ]
}

/// One row a level: each workload's operations/s, its requests/s as a share of the bare rate
/// around the row, and its p99.
fn scaling_table(level: &str, columns: &[&str], rows: &[(usize, Scaled)]) {
    if rows.is_empty() {
        return;
    }
    println!("\n| {level} | bare req/s | {} |", columns.join(" | "));
    println!("|---:|---:|{}", "---:|".repeat(columns.len()));
    for (n, (stats, (b0, b1))) in rows {
        let bare = (b0 + b1) / 2.0;
        let cells: Vec<String> = (stats.iter())
            .map(|s| {
                let (ops, ratio, p99) = (s.ops_per_s, s.reqs_per_s / bare, s.p99_us);
                format!("{ops:.0} ({ratio:.2}; p99 {p99} µs)")
            })
            .collect();
        println!("| {n} | {bare:.0} | {} |", cells.join(" | "));
        if (b0 - b1).abs() * 2.0 / (b0 + b1) > 0.10 {
            eprintln!("warning: {level} {n}: the bare rate moved over 10%: the machine is busy");
        }
        for s in stats.iter().filter(|s| s.failed > 0) {
            eprintln!(
                "warning: {level} {n}: {} operations did not answer 200",
                s.failed
            );
        }
    }
}

/// A table row; `bare` is the bare handler's rate measured just before and just after.
fn row(name: &str, s: &Stats, bare: (f64, f64)) {
    let rate = if s.reqs_per_s - s.ops_per_s < 0.5 {
        format!("{:.0}", s.reqs_per_s)
    } else {
        format!("{:.0} ({:.0} round trips/s)", s.reqs_per_s, s.ops_per_s)
    };
    let (p50, p99, ratio) = (s.p50_us, s.p99_us, 2.0 * s.reqs_per_s / (bare.0 + bare.1));
    println!("| {name} | {rate} | {p50} µs | {p99} µs | {ratio:.2} |");
    if s.failed > 0 {
        let failed = s.failed;
        eprintln!("warning: {name}: {failed} operations did not answer 200");
    }
    if (bare.0 - bare.1).abs() * 2.0 / (bare.0 + bare.1) > 0.10 {
        eprintln!("warning: {name}: the bare rate around it moved over 10%: the machine is busy");
    }
}

/// SNS signatures (SignatureVersion 1, the topics' default) a second on one thread: 500
/// distinct notification texts, as 500 publishes would sign.
fn signatures_per_second() -> f64 {
    use switchyard::services::sns::{SIGNER, signing::SignatureVersion};
    let n = 500;
    let started = Instant::now();
    for i in 0..n {
        let text = format!("Message\nhello\nMessageId\nsigning-limit-{i}\nType\nNotification\n");
        std::hint::black_box(SIGNER.sign(SignatureVersion::V1, &text));
    }
    n as f64 / started.elapsed().as_secs_f64()
}

/// `--paired N`: issue 17's SQS aims read in pairs instead of against a median. N rounds, each
/// a window of the bare handler and a window of the workload back to back (in turn bare first
/// and workload first), so that both see the same machine; each round's ratio is the workload's
/// rate over the bare rate beside it. The same for the request log's cost: an emulator whose
/// threads log as the binary does at `info` against one at `warn`, both in this process (two
/// release binaries side by side read 0.80–1.21 of each other with the same log: too coarse
/// for 5%). Prints every round's ratio and their median.
fn paired(rounds: usize, o: &Opts) {
    let server_rt = tokio::runtime::Runtime::new().expect("server runtime");
    let client_rt = tokio::runtime::Runtime::new().expect("client runtime");
    let bare = server_rt.block_on(start_bare());
    let emulator = server_rt.block_on(switchyard::Emulator::start(switchyard::Config::for_tests()));
    let emulator = emulator.expect("emulator"); // serves until dropped
    let sy = emulator.addr();
    // The request log's cost: two emulators, each on a runtime whose threads log through the
    // binary's subscriber (registry, EnvFilter, logfmt to /dev/null) and park hooks, one at
    // `info` (the binary's default: a line a request) and one at `warn` (no request lines).
    let logging_rt = |level: &str| {
        use tracing_subscriber::layer::SubscriberExt;
        let devnull = std::fs::OpenOptions::new().write(true).open("/dev/null");
        let subscriber = tracing_subscriber::registry()
            .with(tracing_subscriber::EnvFilter::new(level))
            .with(switchyard::logfmt::LogfmtLayer::new(
                devnull.expect("/dev/null"),
            ));
        let dispatch = tracing::Dispatch::new(subscriber);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .on_thread_start(move || {
                // For the thread's life: the thread-local default outlives the guard forgotten.
                std::mem::forget(tracing::dispatcher::set_default(&dispatch));
            })
            // As the binary's runtime: a worker's lines go out when it runs out of work.
            .on_thread_park(switchyard::logfmt::flush_thread)
            .on_thread_stop(switchyard::logfmt::end_thread)
            .build();
        let rt = rt.expect("runtime");
        let config = switchyard::Config::for_tests();
        let emulator = rt.block_on(switchyard::Emulator::start(config));
        (rt, emulator.expect("emulator"))
    };
    let (info_rt, info) = logging_rt("info");
    let (warn_rt, warn) = logging_rt("warn");
    let (with_log, without_log) = (info.addr(), warn.addr());
    let hello = send_json(&format!("http://{sy}/000000000000/bench"), "hello");
    let bare_work = |_: &str| Work::One(hello.clone());
    let json = |url: &str| Work::One(send_json(url, "hello"));
    let round_trip = |url: &str| Work::round_trip(url, None);
    // (name, aim, the workload: address, backlog, work; what it is read against). Every window
    // with a backlog starts on an emptied emulator after the warm-up; the bare handler, always
    // warm, needs neither.
    type Side<'a> = (SocketAddr, Option<usize>, MakeWork<'a>);
    let pairs: [(&str, &str, Side, Side); 3] = [
        (
            "SQS SendMessage, JSON 1.0 / bare handler",
            "0.75 or more",
            (sy, Some(0), &json),
            (bare, None, &bare_work),
        ),
        (
            "SQS send + receive + delete, JSON 1.0 / bare handler",
            "0.7 or more",
            (sy, Some(0), &round_trip),
            (bare, None, &bare_work),
        ),
        (
            "SQS SendMessage, JSON 1.0, info log to /dev/null / the same at warn",
            "0.95 or more",
            (with_log, Some(0), &json),
            (without_log, Some(0), &json),
        ),
    ];
    let quick = Opts { warmup: 0.0, ..*o };
    let base_opts = |backlog: Option<usize>| if backlog.is_some() { *o } else { quick };
    println!(
        "| pair ({} connections, {} s windows, {rounds} rounds) | aim | median | min–max | rounds |",
        o.connections, o.seconds
    );
    println!("|---|---|---:|---:|---|");
    for (name, aim, (addr, backlog, work), (base, base_backlog, base_work)) in pairs {
        let ratios: Vec<f64> = client_rt.block_on(async {
            let mut ratios = Vec::new();
            for round in 0..rounds {
                let (w, b) = if round % 2 == 0 {
                    let b = measure(base, &base_opts(base_backlog), base_backlog, base_work).await;
                    (measure(addr, o, backlog, work).await, b)
                } else {
                    let w = measure(addr, o, backlog, work).await;
                    (
                        w,
                        measure(base, &base_opts(base_backlog), base_backlog, base_work).await,
                    )
                };
                ratios.push(w.reqs_per_s / b.reqs_per_s);
            }
            ratios
        });
        let mut sorted = ratios.clone();
        sorted.sort_by(f64::total_cmp);
        let median = if rounds % 2 == 1 {
            sorted[rounds / 2]
        } else {
            (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2.0
        };
        let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
        println!(
            "| {name} | {aim} | {median:.2} | {:.2}–{:.2} | {} |",
            sorted[0],
            sorted[rounds - 1],
            each.join(" ")
        );
    }
    drop((info, warn));
    drop((info_rt, warn_rt));
}

fn main() {
    check_options(&OPTIONS, "bench");
    switchyard::memory::no_huge_pages();
    let o = Opts {
        connections: arg("connections", 32),
        seconds: arg("seconds", 3.0),
        warmup: arg("warmup", 1.0),
    };
    let backlog = arg("backlog", 10_000);
    let binary: String = arg("binary", "target/release/switchyard".into());
    let rounds: usize = arg("paired", 0);
    if rounds > 0 {
        return paired(rounds, &o);
    }
    let (c, secs, warmup) = (o.connections, o.seconds, o.warmup);
    eprintln!("{c} connections, {secs} s per workload after {warmup} s of warm-up");

    // The release binary: startup, then memory idle, with queues, and with messages.
    let mut startups: Vec<Duration> = (0..10)
        .map(|_| {
            let (child, _, took) = spawn_binary(&binary);
            stop(child);
            took
        })
        .collect();
    startups.sort();
    let client_rt = tokio::runtime::Runtime::new().expect("client runtime");
    let (child, bin, _) = spawn_binary(&binary);
    let pid = child.id();
    let idle = rss_kib(pid);
    let (with_queues, with_messages, bin_queue) = client_rt.block_on(async {
        let mut admin = Conn::open(bin).await;
        let mut urls = Vec::new();
        for i in 0..QUEUES {
            let input = json!({"QueueName": format!("q{i:03}")});
            let created = admin.ok(&sqs_json("CreateQueue", input)).await;
            urls.push(created["QueueUrl"].as_str().expect("QueueUrl").to_string());
        }
        let with_queues = rss_kib(pid);
        let kib = "x".repeat(1024);
        for url in &urls[..FILLED_QUEUES] {
            fill(bin, url, MESSAGES_PER_QUEUE, &kib, o.connections).await;
        }
        (with_queues, rss_kib(pid), urls.swap_remove(QUEUES - 1))
    });
    let million: usize = arg("million", 1_000_000);
    let with_million = (million > 0).then(|| {
        client_rt.block_on(async {
            let mut admin = Conn::open(bin).await;
            let created = admin
                .ok(&sqs_json("CreateQueue", json!({"QueueName": "million"})))
                .await;
            let url = created["QueueUrl"].as_str().expect("QueueUrl").to_string();
            let before = rss_kib(pid);
            let started = Instant::now();
            let kib = "x".repeat(1024);
            let filled = fill_batches(bin, &url, million, &kib, 64, None).await;
            filled.expect("fill");
            (before, rss_kib(pid), started.elapsed())
        })
    });

    // Throughput: each workload between two runs of the bare handler, in the same process.
    let server_rt = tokio::runtime::Runtime::new().expect("server runtime");
    let bare = server_rt.block_on(start_bare());
    let config = switchyard::Config::for_tests();
    let emulator = server_rt.block_on(switchyard::Emulator::start(config));
    let emulator = emulator.expect("emulator"); // serves until dropped
    let sy = emulator.addr();
    // The same emulator keeping its state (`--state-dir`): every answered change committed.
    let dir = std::env::temp_dir().join(format!("switchyard-bench-state-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let kept = switchyard::Config {
        state_dir: Some(dir.clone()),
        ..switchyard::Config::for_tests()
    };
    let kept = server_rt.block_on(switchyard::Emulator::start(kept));
    let kept = kept.expect("emulator with --state-dir");
    let sy_kept = kept.addr();
    let hello = send_json(&format!("http://{sy}/000000000000/bench"), "hello");
    let bare_work = |_: &str| Work::One(hello.clone());
    let json = |url: &str| Work::One(send_json(url, "hello"));
    let query = |url: &str| Work::One(send_query(url));
    let round_trip = |url: &str| Work::round_trip(url, None);
    let health = |_: &str| Work::One(control(Method::GET, "health"));
    let logged = |_: &str| Work::One(send_json(&bin_queue, "hello"));
    let queued = format!("SQS send + receive + delete, JSON 1.0, {backlog} messages queued");
    let workloads: [(&str, SocketAddr, Option<usize>, MakeWork); 8] = [
        ("SQS SendMessage, JSON 1.0", sy, Some(0), &json),
        ("SQS SendMessage, Query", sy, Some(0), &query),
        (
            "SQS send + receive + delete, JSON 1.0",
            sy,
            Some(0),
            &round_trip,
        ),
        (&queued, sy, Some(backlog), &round_trip),
        (
            "SQS SendMessage, JSON 1.0, --state-dir",
            sy_kept,
            Some(0),
            &json,
        ),
        (
            "SQS send + receive + delete, JSON 1.0, --state-dir",
            sy_kept,
            Some(0),
            &round_trip,
        ),
        ("GET /_switchyard/health", sy, None, &health),
        (
            "SQS SendMessage, JSON 1.0, release binary, info log to /dev/null",
            bin,
            None,
            &logged,
        ),
    ];
    let (rows, mut bares) = client_rt.block_on(async {
        let mut bares = vec![measure(bare, &o, None, &bare_work).await];
        let mut rows = Vec::new();
        let again = Opts { warmup: 0.0, ..o };
        for (name, addr, backlog, work) in workloads {
            let stats = measure(addr, &o, backlog, work).await;
            let before = bares[bares.len() - 1].reqs_per_s;
            bares.push(measure(bare, &again, None, &bare_work).await);
            rows.push((
                name.to_string(),
                stats,
                (before, bares[bares.len() - 1].reqs_per_s),
            ));
        }
        (rows, bares)
    });
    let scaling = client_rt.block_on(async {
        let mut table = Vec::new();
        for c in levels("scaling", "1,8,64") {
            let at = Opts {
                connections: c,
                ..o
            };
            table.push((c, scaled(sy, bare, &at, &bare_work, None).await));
        }
        table
    });
    let counts = client_rt.block_on(async {
        let mut table = Vec::new();
        for n in levels("counts", "1,10,100,1000") {
            table.push((n, scaled(sy, bare, &o, &bare_work, Some(n)).await));
        }
        table
    });
    // The machine's signing limit, which SNS Publish is read against: one thread signing,
    // the servers idle, times the cores.
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let signing_limit = cores as f64 * signatures_per_second();
    let (sns_rows, sns_read, event_rows, retries) = client_rt.block_on(async {
        let mut rows = Vec::new();
        for subscriptions in [1, 10] {
            let arn = fan_out_topic(sy, subscriptions).await;
            let publish = sns(&[
                ("Action", "Publish"),
                ("TopicArn", arn.as_str()),
                ("Message", "hello"),
            ]);
            let (stats, bares) = between_bares(sy, bare, &o, publish, &bare_work).await;
            rows.push((subscriptions, stats, bares));
        }
        // Publish, then receive and delete a notification: the receive makes its signature.
        let arn = fan_out_topic(sy, 1).await;
        let mut setup = Setup::open(sy, false).await.expect("connect");
        let (url, _) = setup.queue("fan-q0").await.expect("queue");
        let quick = Opts { warmup: 0.0, ..o };
        let before = measure(bare, &quick, None, &bare_work).await.reqs_per_s;
        let work = |_: &str| Work::publish_round_trip(&arn, &url);
        let read = measure(sy, &o, None, &work).await;
        let after = measure(bare, &quick, None, &bare_work).await.reqs_per_s;
        let mut event_rows = Vec::new();
        for (rules, matching, entries) in [(1, 1, 1), (10, 2, 10)] {
            let put = event_rules(sy, rules, matching, entries).await;
            let (stats, bares) = between_bares(sy, bare, &o, put, &bare_work).await;
            event_rows.push(((rules, matching, entries), stats, bares));
        }
        (
            rows,
            (read, (before, after)),
            event_rows,
            retry_schedule(sy).await,
        )
    });
    stop(child);
    drop(emulator);
    drop(kept);
    let _ = std::fs::remove_dir_all(&dir);

    println!("| workload ({c} connections, {secs} s each) | requests/s | p50 | p99 | vs bare |");
    println!("|---|---:|---:|---:|---:|");
    bares.sort_by(|a, b| a.reqs_per_s.total_cmp(&b.reqs_per_s));
    let (low, high) = (bares[0].reqs_per_s, bares[bares.len() - 1].reqs_per_s);
    let median = &bares[bares.len() / 2];
    let name = format!(
        "bare axum handler (median of {}: {low:.0}–{high:.0})",
        bares.len()
    );
    row(&name, median, (median.reqs_per_s, median.reqs_per_s));
    for (name, stats, bare) in &rows {
        row(name, stats, *bare);
    }
    let columns = [
        "SendMessage/s",
        "round trips/s",
        "Publish/s, 1 subscription",
        "Publish/s, 10 subscriptions",
        "PutEvents/s, 1 rule",
    ];
    scaling_table("connections", &columns, &scaling);
    let columns = [
        "SendMessage/s, spread over N queues",
        "Publish/s, spread over N topics",
        "PutEvents/s, N rules (1 matching; 300 at most)",
    ];
    scaling_table(&format!("N ({c} connections)"), &columns, &counts);
    println!(
        "\n| SNS workload ({c} connections) | publishes/s | deliveries/s | p50 | p99 | vs bare | of signing limit |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (n, stats, (b0, b1)) in &sns_rows {
        let bare = (b0 + b1) / 2.0;
        println!(
            "| Publish to a topic with {n} SQS subscription{} | {:.0} | {:.0} | {} µs | {} µs | {:.2} | {:.2} |",
            if *n == 1 { "" } else { "s" },
            stats.reqs_per_s,
            stats.reqs_per_s * *n as f64,
            stats.p50_us,
            stats.p99_us,
            stats.reqs_per_s / bare,
            stats.reqs_per_s / signing_limit
        );
    }
    let (stats, (b0, b1)) = &sns_read;
    println!(
        "| Publish to 1 SQS subscription, then receive + delete (signed by the receive) | {:.0} | {:.0} | {} µs | {} µs | {:.2} | {:.2} |",
        stats.ops_per_s,
        stats.ops_per_s,
        stats.p50_us,
        stats.p99_us,
        stats.reqs_per_s / ((b0 + b1) / 2.0),
        stats.ops_per_s / signing_limit
    );
    println!(
        "\nSigning limit: {signing_limit:.0} signatures/s ({cores} cores × {:.0} SHA1withRSA-2048 signatures/s on one thread).",
        signing_limit / cores as f64
    );
    println!(
        "\n| EventBridge workload ({c} connections) | PutEvents/s | events/s | deliveries/s | p50 | p99 | vs bare |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for ((rules, matching, entries), stats, (b0, b1)) in &event_rows {
        let bare = (b0 + b1) / 2.0;
        let events = stats.reqs_per_s * *entries as f64;
        println!(
            "| PutEvents of {entries} event{}, {rules} rule{} ({matching} matching, an SQS target each) | {:.0} | {events:.0} | {:.0} | {} µs | {} µs | {:.2} |",
            if *entries == 1 { "" } else { "s" },
            if *rules == 1 { "" } else { "s" },
            stats.reqs_per_s,
            events * *matching as f64,
            stats.p50_us,
            stats.p99_us,
            stats.reqs_per_s / bare
        );
    }
    let (attempts, seconds) = retries;
    println!(
        "\n| retry engine | figure |\n|---|---:|\n| the whole AWS-managed SQS schedule (23 virtual days) in one manual advance | {attempts} attempts in {seconds:.2} s: {:.0} retries/s |",
        attempts as f64 / seconds
    );
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
    let mib = |kib: u64| format!("{:.1} MiB", kib as f64 / 1024.0);
    let messages = FILLED_QUEUES * MESSAGES_PER_QUEUE;
    let per_message = (with_messages.saturating_sub(with_queues) * 1024) / messages as u64;
    let (median, fastest, slowest) = (ms(startups[5]), ms(startups[0]), ms(startups[9]));
    println!("\n| release binary | figure |\n|---|---:|");
    let (idle, with_queues, with_messages) = (mib(idle), mib(with_queues), mib(with_messages));
    let startup = format!("{median} ({fastest}–{slowest})");
    println!("| startup, spawn to ready line (median of 10; min–max) | {startup} |");
    println!("| resident memory, idle after start | {idle} |");
    println!("| resident memory, after creating {QUEUES} queues | {with_queues} |");
    let m = format!("after {messages} messages of 1 KiB in {FILLED_QUEUES} of them");
    println!("| resident memory, {m} | {with_messages} ({per_message} B a message) |");
    if let Some((before, after, took)) = with_million {
        let per = (after.saturating_sub(before) * 1024) / million as u64;
        let (before, after) = (mib(before), mib(after));
        let took = format!("{:.1} s", took.as_secs_f64());
        println!(
            "| resident memory, {million} more messages of 1 KiB in one queue (SendMessageBatch, {took}) | {after} (from {before}; {per} B a message) |"
        );
    }
}
