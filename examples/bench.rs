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
//! "" skips it), --million N (1 KiB messages queued for the memory figure; 0 skips it).

// A benchmark measures wall time, which clippy.toml's virtual-clock rule forbids everywhere else.
#![allow(clippy::disallowed_methods)]

use axum::Router;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};

/// As long as switchyard's SendMessage answer over JSON 1.0, so the bare handler writes as much.
const BARE_ANSWER: &str = r#"{"MD5OfMessageBody":"5d41402abc4b2a76b9719d911017c592","MessageId":"00000000-0000-0000-0000-000000000000"}"#;
const JSON: &str = "application/x-amz-json-1.0";
const FORM: &str = "application/x-www-form-urlencoded; charset=utf-8";
const OPTIONS: [&str; 7] = [
    "connections",
    "seconds",
    "warmup",
    "backlog",
    "binary",
    "scaling",
    "million",
];
/// The memory scenario: this many queues, the first few holding messages of 1 KiB.
const QUEUES: usize = 100;
const FILLED_QUEUES: usize = 10;
const MESSAGES_PER_QUEUE: usize = 1_000;

/// `--name VALUE`, else the environment variable `BENCH_NAME`, else `default`.
fn arg<T: std::str::FromStr>(name: &str, default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    let flag = format!("--{name}");
    let value = (args.iter().position(|a| *a == flag))
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| std::env::var(format!("BENCH_{}", name.to_uppercase())).ok());
    value.map_or(default, |v| {
        v.parse().unwrap_or_else(|_| panic!("{flag} {v}?"))
    })
}

#[derive(Clone, Copy)]
struct Opts {
    connections: usize,
    seconds: f64,
    warmup: f64,
}

/// One HTTP request, sent again and again.
#[derive(Clone)]
struct Req {
    method: Method,
    path: String,
    headers: Vec<(&'static str, String)>,
    body: Bytes,
}

fn req(method: Method, path: &str, headers: Vec<(&'static str, String)>, body: String) -> Req {
    let (path, body) = (path.to_string(), body.into());
    Req {
        method,
        path,
        headers,
        body,
    }
}

fn sqs_json(op: &str, input: Value) -> Req {
    let headers = vec![
        ("content-type", JSON.into()),
        ("x-amz-target", format!("AmazonSQS.{op}")),
    ];
    req(Method::POST, "/", headers, input.to_string())
}

fn send_json(queue_url: &str, body: &str) -> Req {
    sqs_json(
        "SendMessage",
        json!({"QueueUrl": queue_url, "MessageBody": body}),
    )
}

fn send_query(queue_url: &str) -> Req {
    let form = form_urlencoded::Serializer::new(String::new())
        .append_pair("Action", "SendMessage")
        .append_pair("Version", "2012-11-05")
        .append_pair("QueueUrl", queue_url)
        .append_pair("MessageBody", "hello")
        .finish();
    req(Method::POST, "/", vec![("content-type", FORM.into())], form)
}

/// An SNS (AWS Query) request.
fn sns(params: &[(&str, &str)]) -> Req {
    let form = form_urlencoded::Serializer::new(String::new())
        .append_pair("Version", "2010-03-31")
        .extend_pairs(params)
        .finish();
    req(Method::POST, "/", vec![("content-type", FORM.into())], form)
}

/// A topic with `n` SQS subscriptions on an emptied emulator; answers the topic ARN.
async fn fan_out_topic(addr: SocketAddr, n: usize) -> String {
    let mut admin = Conn::open(addr).await;
    admin.ok(&control(Method::POST, "reset")).await;
    let (status, body) = admin
        .send(&sns(&[("Action", "CreateTopic"), ("Name", "fan")]))
        .await;
    assert_eq!(status, 200);
    let body = String::from_utf8_lossy(&body).to_string();
    let arn = body
        .split("<TopicArn>")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .expect("TopicArn")
        .to_string();
    for i in 0..n {
        admin
            .ok(&sqs_json(
                "CreateQueue",
                json!({"QueueName": format!("fan{i}")}),
            ))
            .await;
        let queue = format!("arn:aws:sqs:us-east-1:000000000000:fan{i}");
        let params = [
            ("Action", "Subscribe"),
            ("TopicArn", arn.as_str()),
            ("Protocol", "sqs"),
            ("Endpoint", queue.as_str()),
        ];
        assert_eq!(admin.send(&sns(&params)).await.0, 200);
    }
    arn
}

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

/// An EventBridge (AWS JSON 1.1) request.
fn events(op: &str, input: Value) -> Req {
    let headers = vec![
        ("content-type", "application/x-amz-json-1.1".into()),
        ("x-amz-target", format!("AWSEvents.{op}")),
    ];
    req(Method::POST, "/", headers, input.to_string())
}

/// `rules` rules on the default bus of an emptied emulator, each with an SQS target; the first
/// `matching` match the benchmark's events. Answers the PutEvents request of `entries` events.
async fn event_rules(addr: SocketAddr, rules: usize, matching: usize, entries: usize) -> Req {
    let mut admin = Conn::open(addr).await;
    admin.ok(&control(Method::POST, "reset")).await;
    admin
        .ok(&sqs_json("CreateQueue", json!({"QueueName": "events"})))
        .await;
    for i in 0..rules {
        let source = if i < matching { "bench" } else { "other" };
        let pattern = json!({"source": [source], "detail": {"n": [{"numeric": [">=", 0]}]}});
        let rule = json!({"Name": format!("r{i}"), "EventPattern": pattern.to_string()});
        admin.ok(&events("PutRule", rule)).await;
        let target = json!({"Rule": format!("r{i}"), "Targets": [
            {"Id": "q", "Arn": "arn:aws:sqs:us-east-1:000000000000:events"}]});
        admin.ok(&events("PutTargets", target)).await;
    }
    let entry = json!({"Source": "bench", "DetailType": "tick", "Detail": r#"{"n":1}"#});
    events("PutEvents", json!({"Entries": vec![entry; entries]}))
}

/// Wall time of one manual-clock advance through the whole AWS-managed SQS retry schedule
/// (100,016 attempts of one message to a faulted queue); answers (attempts, seconds).
async fn retry_schedule(addr: SocketAddr) -> (u64, f64) {
    let arn = fan_out_topic(addr, 1).await;
    let mut admin = Conn::open(addr).await;
    let fault = json!({"target": "arn:aws:sqs:us-east-1:000000000000:fan0", "status": 500});
    let mut fault_req = control(Method::POST, "faults");
    fault_req.body = Bytes::from(fault.to_string());
    assert_eq!(admin.send(&fault_req).await.0, 201);
    assert_eq!(
        admin
            .send(&sns(&[
                ("Action", "Publish"),
                ("TopicArn", arn.as_str()),
                ("Message", "retry me")
            ]))
            .await
            .0,
        200
    );
    let mut advance = control(Method::POST, "clock/advance");
    advance.body = Bytes::from(json!({"seconds": 24 * 86_400}).to_string());
    let started = Instant::now();
    let (status, _) = admin.send(&advance).await;
    let took = started.elapsed().as_secs_f64();
    assert_eq!(status, 200);
    (100_016, took)
}

fn control(method: Method, path: &str) -> Req {
    let path = format!("/_switchyard/{path}");
    req(method, &path, vec![], String::new())
}

/// A persistent keep-alive HTTP/1.1 connection.
struct Conn {
    tx: SendRequest<Full<Bytes>>,
    host: String,
}

impl Conn {
    async fn open(addr: SocketAddr) -> Conn {
        let stream = TcpStream::connect(addr).await.expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        let io = TokioIo::new(stream);
        let (tx, conn) = http1::handshake(io).await.expect("handshake");
        tokio::spawn(conn);
        let host = addr.to_string();
        Conn { tx, host }
    }

    async fn send(&mut self, r: &Req) -> (u16, Bytes) {
        let mut b = Request::builder().method(r.method.clone()).uri(&r.path);
        b = b.header("host", &self.host);
        for (name, value) in &r.headers {
            b = b.header(*name, value.as_str());
        }
        let request = b.body(Full::new(r.body.clone())).expect("request");
        self.tx.ready().await.expect("connection ready");
        let response = self.tx.send_request(request).await.expect("response");
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.expect("body");
        (status, body.to_bytes())
    }

    /// Sends `r`, insists on a 200 and returns the answer as JSON (null if it is not JSON).
    async fn ok(&mut self, r: &Req) -> Value {
        let (status, body) = self.send(r).await;
        let text = String::from_utf8_lossy(&body);
        assert_eq!(status, 200, "{} {}: {text}", r.method, r.path);
        serde_json::from_slice(&body).unwrap_or_default()
    }
}

/// What one connection does in a loop; one operation may be several HTTP requests.
enum Work {
    One(Req),
    /// SendMessage, ReceiveMessage of one message, DeleteMessage of what came back.
    RoundTrip {
        url: String,
        send: Req,
        receive: Req,
    },
}

impl Work {
    /// The number of HTTP requests made, and whether each answered 200.
    async fn run(&self, conn: &mut Conn) -> (u64, bool) {
        let (url, send, receive) = match self {
            Work::One(r) => return (1, conn.send(r).await.0 == 200),
            Work::RoundTrip { url, send, receive } => (url, send, receive),
        };
        let sent = conn.send(send).await.0;
        let (received, body) = conn.send(receive).await;
        let answer: Value = serde_json::from_slice(&body).unwrap_or_default();
        let Some(handle) = answer["Messages"][0]["ReceiptHandle"].as_str() else {
            return (2, false);
        };
        let delete = json!({"QueueUrl": url, "ReceiptHandle": handle});
        let deleted = conn.send(&sqs_json("DeleteMessage", delete)).await.0;
        (3, [sent, received, deleted] == [200; 3])
    }
}

/// Makes a workload's work, given the URL of its queue.
type MakeWork<'a> = &'a dyn Fn(&str) -> Work;

struct Stats {
    ops_per_s: f64,
    reqs_per_s: f64,
    p50_us: u32,
    p99_us: u32,
    failed: u64,
}

/// `connections` connections run `work` back to back for `seconds`; latency is per operation.
async fn load(addr: SocketAddr, work: Work, connections: usize, seconds: f64) -> Stats {
    let work = Arc::new(work);
    let mut conns = Vec::with_capacity(connections);
    for _ in 0..connections {
        conns.push(Conn::open(addr).await);
    }
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(seconds);
    let tasks: Vec<_> = (conns.into_iter())
        .map(|mut conn| {
            let work = work.clone();
            tokio::spawn(async move {
                let (mut lat, mut reqs, mut failed) = (Vec::with_capacity(1 << 16), 0, 0);
                while Instant::now() < deadline {
                    let t0 = Instant::now();
                    let (n, ok) = work.run(&mut conn).await;
                    lat.push(t0.elapsed().as_micros() as u32);
                    reqs += n;
                    failed += u64::from(!ok);
                }
                (lat, reqs, failed)
            })
        })
        .collect();
    let (mut lat, mut reqs, mut failed) = (Vec::new(), 0, 0);
    for task in tasks {
        let (l, r, f) = task.await.expect("load task");
        lat.extend(l);
        reqs += r;
        failed += f;
    }
    let elapsed = start.elapsed().as_secs_f64();
    lat.sort_unstable();
    let pct = |p: f64| lat[((lat.len() - 1) as f64 * p) as usize];
    let (ops_per_s, reqs_per_s) = (lat.len() as f64 / elapsed, reqs as f64 / elapsed);
    let (p50_us, p99_us) = (pct(0.50), pct(0.99));
    Stats {
        ops_per_s,
        reqs_per_s,
        p50_us,
        p99_us,
        failed,
    }
}

/// Sends `n` copies of `body` to `queue_url` over `connections` connections.
async fn fill(addr: SocketAddr, queue_url: &str, n: usize, body: &str, connections: usize) {
    let send = Arc::new(send_json(queue_url, body));
    let tasks: Vec<_> = (0..connections)
        .map(|i| {
            let send = send.clone();
            let count = n / connections + usize::from(i < n % connections);
            tokio::spawn(async move {
                let mut conn = Conn::open(addr).await;
                for _ in 0..count {
                    conn.ok(&send).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("fill");
    }
}

/// Queues `n` messages of `body` (a multiple of 10) with SendMessageBatch over `connections`.
async fn fill_batches(addr: SocketAddr, queue_url: &str, n: usize, body: &str, connections: usize) {
    let entries: Vec<Value> = (0..10)
        .map(|i| json!({"Id": format!("m{i}"), "MessageBody": body}))
        .collect();
    let batch = Arc::new(sqs_json(
        "SendMessageBatch",
        json!({"QueueUrl": queue_url, "Entries": entries}),
    ));
    let batches = n / 10;
    let tasks: Vec<_> = (0..connections)
        .map(|i| {
            let batch = batch.clone();
            let count = batches / connections + usize::from(i < batches % connections);
            tokio::spawn(async move {
                let mut conn = Conn::open(addr).await;
                for _ in 0..count {
                    conn.ok(&batch).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("fill");
    }
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
        stats = Some(load(addr, work(&url), o.connections, seconds).await);
    }
    stats.expect("measured")
}

/// A handler that reads the request body and answers a fixed SendMessage-sized JSON body.
async fn start_bare() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let answer = |_body: Bytes| async { ([("content-type", JSON)], BARE_ANSWER) };
    let app = Router::new().fallback(answer);
    tokio::spawn(async move { axum::serve(listener, app).await });
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

/// Resident memory of `pid` in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let kib = status
        .split("VmRSS:")
        .nth(1)
        .and_then(|s| s.split_whitespace().next());
    kib.and_then(|v| v.parse().ok()).expect("VmRSS")
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

fn main() {
    let known = |a: &String| OPTIONS.iter().any(|o| a.strip_prefix("--") == Some(o));
    if let Some(a) = std::env::args().skip(1).step_by(2).find(|a| !known(a)) {
        panic!("unknown option {a}; see the top of examples/bench.rs");
    }
    let o = Opts {
        connections: arg("connections", 32),
        seconds: arg("seconds", 3.0),
        warmup: arg("warmup", 1.0),
    };
    let backlog = arg("backlog", 10_000);
    let binary: String = arg("binary", "target/release/switchyard".into());
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
            fill_batches(bin, &url, million, &"x".repeat(1024), 64).await;
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
    let hello = send_json(&format!("http://{sy}/000000000000/bench"), "hello");
    let bare_work = |_: &str| Work::One(hello.clone());
    let json = |url: &str| Work::One(send_json(url, "hello"));
    let query = |url: &str| Work::One(send_query(url));
    let round_trip = |url: &str| Work::RoundTrip {
        url: url.into(),
        send: send_json(url, "hello"),
        receive: sqs_json("ReceiveMessage", json!({"QueueUrl": url})),
    };
    let health = |_: &str| Work::One(control(Method::GET, "health"));
    let logged = |_: &str| Work::One(send_json(&bin_queue, "hello"));
    let queued = format!("SQS send + receive + delete, JSON 1.0, {backlog} messages queued");
    let workloads: [(&str, SocketAddr, Option<usize>, MakeWork); 6] = [
        ("SQS SendMessage, JSON 1.0", sy, Some(0), &json),
        ("SQS SendMessage, Query", sy, Some(0), &query),
        (
            "SQS send + receive + delete, JSON 1.0",
            sy,
            Some(0),
            &round_trip,
        ),
        (&queued, sy, Some(backlog), &round_trip),
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
    let levels: String = arg("scaling", "1,8,64".to_string());
    let levels: Vec<usize> = levels
        .split(',')
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    let scaling = client_rt.block_on(async {
        let mut table = Vec::new();
        for &c in &levels {
            let at = Opts {
                connections: c,
                ..o
            };
            let again = Opts { warmup: 0.0, ..at };
            let bare_before = measure(bare, &at, None, &bare_work).await.reqs_per_s;
            let send = measure(sy, &again, Some(0), &json).await;
            let trip = measure(sy, &again, Some(0), &round_trip).await;
            let bare_after = measure(bare, &again, None, &bare_work).await.reqs_per_s;
            table.push((c, send, trip, (bare_before, bare_after)));
        }
        table
    });
    // The machine's signing limit, which SNS Publish is read against: one thread signing,
    // the servers idle, times the cores.
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let signing_limit = cores as f64 * signatures_per_second();
    let (sns_rows, event_rows, retries) = client_rt.block_on(async {
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
        let mut event_rows = Vec::new();
        for (rules, matching, entries) in [(1, 1, 1), (10, 2, 10)] {
            let put = event_rules(sy, rules, matching, entries).await;
            let (stats, bares) = between_bares(sy, bare, &o, put, &bare_work).await;
            event_rows.push(((rules, matching, entries), stats, bares));
        }
        (rows, event_rows, retry_schedule(sy).await)
    });
    stop(child);
    drop(emulator);

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
    if !scaling.is_empty() {
        println!(
            "\n| connections | bare req/s | SendMessage/s | vs bare | round trips/s | round-trip req/s vs bare | SendMessage p99 | round trip p99 |"
        );
        println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (c, send, trip, (b0, b1)) in &scaling {
            let bare = (b0 + b1) / 2.0;
            println!(
                "| {c} | {bare:.0} | {:.0} | {:.2} | {:.0} | {:.2} | {} µs | {} µs |",
                send.reqs_per_s,
                send.reqs_per_s / bare,
                trip.ops_per_s,
                trip.reqs_per_s / bare,
                send.p99_us,
                trip.p99_us
            );
            if (b0 - b1).abs() * 2.0 / (b0 + b1) > 0.10 {
                eprintln!(
                    "warning: {c} connections: the bare rate moved over 10%: the machine is busy"
                );
            }
        }
    }
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
