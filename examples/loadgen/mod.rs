//! The load generator that `bench.rs` and `peers.rs` share: requests as AWS clients send them,
//! persistent HTTP/1.1 connections, workloads run back to back on C connections for a fixed
//! time, and the resources (queues, topics, rules) the workloads need, made through the API and
//! read from its answers so that any emulator can be driven alike. See docs/benchmarks.md.

// Each example that includes this module uses a part of it.
#![allow(dead_code)]

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;

pub const JSON: &str = "application/x-amz-json-1.0";
pub const FORM: &str = "application/x-www-form-urlencoded; charset=utf-8";
/// As long as switchyard's SendMessage answer over JSON 1.0, so the bare handler writes as much.
const BARE_ANSWER: &str = r#"{"MD5OfMessageBody":"5d41402abc4b2a76b9719d911017c592","MessageId":"00000000-0000-0000-0000-000000000000"}"#;

/// The bare handler the figures are read against: axum on the same stack, reading the request
/// body and answering a fixed SendMessage-sized JSON body, served on `listener` until it fails.
pub async fn serve_bare(listener: tokio::net::TcpListener) {
    let answer = |_body: Bytes| async { ([("content-type", JSON)], BARE_ANSWER) };
    let app = axum::Router::new().fallback(answer);
    axum::serve(listener, app)
        .await
        .expect("the bare handler serves");
}

/// How long one request may take before its connection is given up (a stuck server is a
/// failed workload, not a hung benchmark).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// `--name VALUE`, else the environment variable `BENCH_NAME`, else `default`.
pub fn arg<T: std::str::FromStr>(name: &str, default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    let flag = format!("--{name}");
    let value = (args.iter().position(|a| *a == flag))
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| std::env::var(format!("BENCH_{}", name.to_uppercase())).ok());
    value.map_or(default, |v| {
        v.parse().unwrap_or_else(|_| panic!("{flag} {v}?"))
    })
}

/// Refuses options other than `known` (every option takes a value).
pub fn check_options(known: &[&str], example: &str) {
    let ok = |a: &String| known.iter().any(|o| a.strip_prefix("--") == Some(o));
    if let Some(a) = std::env::args().skip(1).step_by(2).find(|a| !ok(a)) {
        panic!("unknown option {a}; see the top of examples/{example}.rs");
    }
}

/// A comma-separated list of numbers (`"1,8,64"`); `""` is none.
pub fn levels(name: &str, default: &str) -> Vec<usize> {
    let levels: String = arg(name, default.to_string());
    levels
        .split(',')
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

#[derive(Clone, Copy)]
pub struct Opts {
    pub connections: usize,
    pub seconds: f64,
    pub warmup: f64,
}

/// One HTTP request, sent again and again.
#[derive(Clone)]
pub struct Req {
    pub method: Method,
    pub path: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Bytes,
}

pub fn req(method: Method, path: &str, headers: Vec<(&'static str, String)>, body: String) -> Req {
    let (path, body) = (path.to_string(), body.into());
    Req {
        method,
        path,
        headers,
        body,
    }
}

impl Req {
    /// With an `Authorization` header whose credential scope names `service`, as an SDK sends
    /// it. The signature itself is not computed: emulators that route by the scope (or need a
    /// header at all) accept any signature unless told to verify, and the load generator's
    /// cores stay out of HMACs.
    pub fn scoped(mut self, service: &str) -> Req {
        let auth = format!(
            "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/{service}/aws4_request, \
             SignedHeaders=host;x-amz-date, Signature={}",
            "0".repeat(64)
        );
        self.headers.push(("authorization", auth));
        self.headers.push(("x-amz-date", "20260101T000000Z".into()));
        self
    }
}

pub fn sqs_json(op: &str, input: Value) -> Req {
    let headers = vec![
        ("content-type", JSON.into()),
        ("x-amz-target", format!("AmazonSQS.{op}")),
    ];
    req(Method::POST, "/", headers, input.to_string())
}

pub fn send_json(queue_url: &str, body: &str) -> Req {
    sqs_json(
        "SendMessage",
        json!({"QueueUrl": queue_url, "MessageBody": body}),
    )
}

pub fn send_query(queue_url: &str) -> Req {
    let form = form_urlencoded::Serializer::new(String::new())
        .append_pair("Action", "SendMessage")
        .append_pair("Version", "2012-11-05")
        .append_pair("QueueUrl", queue_url)
        .append_pair("MessageBody", "hello")
        .finish();
    req(Method::POST, "/", vec![("content-type", FORM.into())], form)
}

/// An SNS (AWS Query) request.
pub fn sns(params: &[(&str, &str)]) -> Req {
    let form = form_urlencoded::Serializer::new(String::new())
        .append_pair("Version", "2010-03-31")
        .extend_pairs(params)
        .finish();
    req(Method::POST, "/", vec![("content-type", FORM.into())], form)
}

pub fn publish(topic_arn: &str) -> Req {
    let params = [
        ("Action", "Publish"),
        ("TopicArn", topic_arn),
        ("Message", "hello"),
    ];
    sns(&params)
}

/// An EventBridge (AWS JSON 1.1) request.
pub fn events(op: &str, input: Value) -> Req {
    let headers = vec![
        ("content-type", "application/x-amz-json-1.1".into()),
        ("x-amz-target", format!("AWSEvents.{op}")),
    ];
    req(Method::POST, "/", headers, input.to_string())
}

/// PutEvents of `entries` copies of the event the benchmark's matching rules match.
pub fn put_events(entries: usize) -> Req {
    let entry = json!({"Source": "bench", "DetailType": "tick", "Detail": r#"{"n":1}"#});
    events("PutEvents", json!({"Entries": vec![entry; entries]}))
}

pub fn control(method: Method, path: &str) -> Req {
    let path = format!("/_switchyard/{path}");
    req(method, &path, vec![], String::new())
}

/// A persistent keep-alive HTTP/1.1 connection.
pub struct Conn {
    tx: SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    host: String,
    /// The server said it closes the connection after its answer (HTTP/1.0 servers, such as
    /// moto's): the next request opens a new one, and its latency includes that.
    reopen: bool,
    /// The connection failed or timed out: nothing more is sent on it.
    pub broken: bool,
}

impl Conn {
    pub async fn open(addr: SocketAddr) -> Conn {
        Conn::try_open(addr).await.expect("connect")
    }

    pub async fn try_open(addr: SocketAddr) -> Result<Conn, String> {
        let stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
        stream.set_nodelay(true).expect("nodelay");
        let io = TokioIo::new(stream);
        let (tx, conn) = http1::handshake(io).await.map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        let host = addr.to_string();
        Ok(Conn {
            tx,
            addr,
            host,
            reopen: false,
            broken: false,
        })
    }

    /// Sends `r`; answers the status and body, or status 0 and the reason when no answer came
    /// (and the connection is then broken).
    pub async fn send(&mut self, r: &Req) -> (u16, Bytes) {
        match tokio::time::timeout(REQUEST_TIMEOUT, self.exchange(r)).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(e)) => self.fail(e.to_string()),
            Err(_) => self.fail(format!("no answer in {} s", REQUEST_TIMEOUT.as_secs())),
        }
    }

    fn fail(&mut self, reason: String) -> (u16, Bytes) {
        self.broken = true;
        (0, Bytes::from(reason))
    }

    async fn exchange(&mut self, r: &Req) -> Result<(u16, Bytes), String> {
        if self.reopen || self.tx.is_closed() {
            *self = Conn::try_open(self.addr).await?;
        }
        let e = |e: hyper::Error| e.to_string();
        let mut b = Request::builder().method(r.method.clone()).uri(&r.path);
        b = b.header("host", &self.host);
        for (name, value) in &r.headers {
            b = b.header(*name, value.as_str());
        }
        let request = b.body(Full::new(r.body.clone())).expect("request");
        self.tx.ready().await.map_err(e)?;
        let response = self.tx.send_request(request).await.map_err(e)?;
        let status = response.status().as_u16();
        let close = response
            .headers()
            .get("connection")
            .is_some_and(|v| v == "close");
        self.reopen = close || response.version() == hyper::Version::HTTP_10;
        let body = response.into_body().collect().await.map_err(e)?;
        Ok((status, body.to_bytes()))
    }

    /// Sends `r`, insists on a 200 and returns the answer as JSON (null if it is not JSON).
    pub async fn ok(&mut self, r: &Req) -> Value {
        self.try_ok(r).await.unwrap_or_else(|e| panic!("{e}"))
    }

    /// The answer as JSON (null if it is not JSON) when it is a 200, else why not.
    pub async fn try_ok(&mut self, r: &Req) -> Result<Value, String> {
        let (status, body) = self.send(r).await;
        let text = String::from_utf8_lossy(&body);
        if status != 200 {
            let short: String = text.chars().take(160).collect();
            return Err(format!("{} {}: {status} {short}", r.method, r.path));
        }
        Ok(serde_json::from_slice(&body).unwrap_or_default())
    }
}

/// What one connection does in a loop; one operation may be several HTTP requests.
pub enum Work {
    One(Req),
    /// The requests in turn, each connection starting at its own place: load spread over
    /// many queues or topics.
    Cycle(Vec<Req>),
    /// SendMessage (or another request that puts a message on the queue: an SNS Publish),
    /// ReceiveMessage of one message, DeleteMessage of what came back.
    RoundTrip {
        url: String,
        send: Req,
        receive: Req,
    },
}

impl Work {
    /// The round trip on the queue `url`; `service` scopes every request (see `Req::scoped`).
    pub fn round_trip(url: &str, service: Option<&str>) -> Work {
        let scope = |r: Req| service.map_or(r.clone(), |s| r.scoped(s));
        Work::RoundTrip {
            url: url.into(),
            send: scope(send_json(url, "hello")),
            receive: scope(sqs_json("ReceiveMessage", json!({"QueueUrl": url}))),
        }
    }

    /// Publish to `topic_arn`, then receive and delete a message from `url`, the queue of its
    /// SQS subscription: the notification's signature is made by the receive.
    pub fn publish_round_trip(topic_arn: &str, url: &str) -> Work {
        Work::RoundTrip {
            url: url.into(),
            send: publish(topic_arn),
            receive: sqs_json("ReceiveMessage", json!({"QueueUrl": url})),
        }
    }

    /// The number of HTTP requests made, and whether each answered 200; `i` counts the
    /// connection's operations.
    async fn run(&self, conn: &mut Conn, i: usize) -> (u64, bool) {
        let (url, send, receive) = match self {
            Work::One(r) => return (1, conn.send(r).await.0 == 200),
            Work::Cycle(rs) => return (1, conn.send(&rs[i % rs.len()]).await.0 == 200),
            Work::RoundTrip { url, send, receive } => (url, send, receive),
        };
        let sent = conn.send(send).await.0;
        let (received, body) = conn.send(receive).await;
        let answer: Value = serde_json::from_slice(&body).unwrap_or_default();
        let Some(handle) = answer["Messages"][0]["ReceiptHandle"].as_str() else {
            return (2, false);
        };
        let input = json!({"QueueUrl": url, "ReceiptHandle": handle});
        let mut delete = sqs_json("DeleteMessage", input);
        let scope = |(name, _): &&(&str, String)| ["authorization", "x-amz-date"].contains(name);
        delete
            .headers
            .extend(send.headers.iter().filter(scope).cloned());
        let deleted = conn.send(&delete).await.0;
        (3, [sent, received, deleted] == [200; 3])
    }
}

/// Makes a workload's work, given the URL of its queue.
pub type MakeWork<'a> = &'a dyn Fn(&str) -> Work;

pub struct Stats {
    pub ops_per_s: f64,
    pub reqs_per_s: f64,
    pub p50_us: u32,
    pub p99_us: u32,
    /// Operations that did not answer 200 on every request.
    pub failed: u64,
    pub ops: u64,
}

/// `connections` connections run `work` back to back for `seconds`; latency is per operation.
/// A connection that breaks (or whose server does not answer) stops.
pub async fn load(addr: SocketAddr, work: Arc<Work>, connections: usize, seconds: f64) -> Stats {
    let mut conns = Vec::with_capacity(connections);
    for _ in 0..connections {
        conns.push(Conn::open(addr).await);
    }
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(seconds);
    let tasks: Vec<_> = (conns.into_iter().enumerate())
        .map(|(c, mut conn)| {
            let work = work.clone();
            tokio::spawn(async move {
                let (mut lat, mut reqs, mut failed) = (Vec::with_capacity(1 << 16), 0, 0);
                let mut i = c;
                while Instant::now() < deadline && !conn.broken {
                    let t0 = Instant::now();
                    let (n, ok) = work.run(&mut conn, i).await;
                    lat.push(t0.elapsed().as_micros() as u32);
                    reqs += n;
                    failed += u64::from(!ok);
                    i += 1;
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
    let pct = |p: f64| lat.get(((lat.len().max(1) - 1) as f64 * p) as usize);
    let (ops_per_s, reqs_per_s) = (lat.len() as f64 / elapsed, reqs as f64 / elapsed);
    let (p50_us, p99_us) = (*pct(0.50).unwrap_or(&0), *pct(0.99).unwrap_or(&0));
    Stats {
        ops_per_s,
        reqs_per_s,
        p50_us,
        p99_us,
        failed,
        ops: lat.len() as u64,
    }
}

/// Sends every request of `requests` over `connections` connections (each its share, in turn);
/// the first refusal stops it.
pub async fn send_all(
    addr: SocketAddr,
    requests: Vec<Req>,
    connections: usize,
) -> Result<(), String> {
    let requests = Arc::new(requests);
    // A set, so that a caller that stops waiting (a deadline) stops the senders too.
    let mut tasks = tokio::task::JoinSet::new();
    for c in 0..connections {
        let requests = requests.clone();
        tasks.spawn(async move {
            let mut conn = Conn::try_open(addr).await?;
            for r in requests.iter().skip(c).step_by(connections) {
                conn.try_ok(r).await?;
            }
            Ok::<(), String>(())
        });
    }
    while let Some(sent) = tasks.join_next().await {
        sent.expect("send_all")?;
    }
    Ok(())
}

/// Sends `n` copies of `body` to `queue_url` over `connections` connections.
pub async fn fill(addr: SocketAddr, queue_url: &str, n: usize, body: &str, connections: usize) {
    let send = send_json(queue_url, body);
    send_all(addr, vec![send; n], connections)
        .await
        .expect("fill");
}

/// Queues `n` messages of `body` (a multiple of 10) with SendMessageBatch over `connections`;
/// `service` scopes the requests (see `Req::scoped`).
pub async fn fill_batches(
    addr: SocketAddr,
    queue_url: &str,
    n: usize,
    body: &str,
    connections: usize,
    service: Option<&str>,
) -> Result<(), String> {
    let entries: Vec<Value> = (0..10)
        .map(|i| json!({"Id": format!("m{i}"), "MessageBody": body}))
        .collect();
    let batch = sqs_json(
        "SendMessageBatch",
        json!({"QueueUrl": queue_url, "Entries": entries}),
    );
    let batch = service.map_or(batch.clone(), |s| batch.scoped(s));
    send_all(addr, vec![batch; n / 10], connections).await
}

/// Resident memory of `pid` in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    try_rss_kib(pid).expect("VmRSS")
}

/// Resident memory of `pid` in KiB, if it is still running.
pub fn try_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib = status
        .split("VmRSS:")
        .nth(1)
        .and_then(|s| s.split_whitespace().next());
    kib.and_then(|v| v.parse().ok())
}

/// Makes a server's resources through its API, reading names and ARNs from its answers, with
/// every request scoped for its service when `scoped` (see `Req::scoped`).
pub struct Setup {
    pub conn: Conn,
    pub scoped: bool,
}

impl Setup {
    pub async fn open(addr: SocketAddr, scoped: bool) -> Result<Setup, String> {
        let conn = Conn::try_open(addr).await?;
        Ok(Setup { conn, scoped })
    }

    pub fn scope(&self, r: Req, service: &str) -> Req {
        if self.scoped { r.scoped(service) } else { r }
    }

    async fn call(&mut self, r: Req, service: &str) -> Result<Value, String> {
        let r = self.scope(r, service);
        self.conn.try_ok(&r).await
    }

    /// A queue's URL and ARN.
    pub async fn queue(&mut self, name: &str) -> Result<(String, String), String> {
        let created = self
            .call(sqs_json("CreateQueue", json!({"QueueName": name})), "sqs")
            .await?;
        let url = created["QueueUrl"]
            .as_str()
            .ok_or("no QueueUrl")?
            .to_string();
        let input = json!({"QueueUrl": url, "AttributeNames": ["QueueArn"]});
        let attributes = self
            .call(sqs_json("GetQueueAttributes", input), "sqs")
            .await?;
        let arn = attributes["Attributes"]["QueueArn"]
            .as_str()
            .ok_or("no QueueArn")?;
        Ok((url, arn.to_string()))
    }

    /// A topic's ARN.
    pub async fn topic(&mut self, name: &str) -> Result<String, String> {
        let r = self.scope(sns(&[("Action", "CreateTopic"), ("Name", name)]), "sns");
        let (status, body) = self.conn.send(&r).await;
        let text = String::from_utf8_lossy(&body);
        // The answer is XML; the ARN is its one `<TopicArn>` element.
        let arn = (text.split("<TopicArn>").nth(1))
            .and_then(|r| r.split('<').next())
            .filter(|_| status == 200)
            .ok_or_else(|| format!("CreateTopic: {status} {text}"))?;
        Ok(arn.to_string())
    }

    /// Subscribes the queue `queue_arn` to `topic_arn` (non-raw: every delivery is a signed
    /// JSON envelope).
    pub async fn subscribe(&mut self, topic_arn: &str, queue_arn: &str) -> Result<(), String> {
        let params = [
            ("Action", "Subscribe"),
            ("TopicArn", topic_arn),
            ("Protocol", "sqs"),
            ("Endpoint", queue_arn),
        ];
        self.call(sns(&params), "sns").await.map(drop)
    }

    /// A topic `name` with `n` SQS subscriptions, to queues `{name}-q{i}`; answers its ARN.
    pub async fn fan_out_topic(&mut self, name: &str, n: usize) -> Result<String, String> {
        let topic = self.topic(name).await?;
        for i in 0..n {
            let (_, queue) = self.queue(&format!("{name}-q{i}")).await?;
            self.subscribe(&topic, &queue).await?;
        }
        Ok(topic)
    }

    /// A rule `name` on the default bus with the queue `queue_arn` as its target; it matches
    /// `put_events`'s events when `matching`.
    pub async fn rule(
        &mut self,
        name: &str,
        queue_arn: &str,
        matching: bool,
    ) -> Result<(), String> {
        let source = if matching { "bench" } else { "other" };
        let pattern = json!({"source": [source], "detail": {"n": [{"numeric": [">=", 0]}]}});
        let rule = json!({"Name": name, "EventPattern": pattern.to_string()});
        self.call(events("PutRule", rule), "events").await?;
        let target = json!({"Rule": name, "Targets": [{"Id": "q", "Arn": queue_arn}]});
        let put = self.call(events("PutTargets", target), "events").await?;
        match put["FailedEntryCount"].as_u64() {
            Some(0) | None => Ok(()),
            Some(_) => Err(format!("PutTargets: {put}")),
        }
    }
}
