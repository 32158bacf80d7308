//! Issue 13's proofs at the level of the process: the `switchyard` binary with `--state-dir`,
//! driven by the AWS SDK for Rust and the control API, killed with SIGKILL (and stopped with
//! SIGTERM) and started again on the same directory.
//!
//! - `acknowledged_work_survives_sigkill_at_random_moments`: concurrent clients send, receive and
//!   delete on a standard and a FIFO queue and publish to a topic with two SQS subscriptions (one
//!   raw, one in SNS's envelope) while the process is killed several times; afterwards every
//!   acknowledged send is either deleted or still there, no acknowledged delete comes back, every
//!   message keeps its id, and FIFO order holds within each group.
//! - `a_retry_schedule_survives_sigterm_and_sigkill`: an SNS HTTP subscription with the example
//!   delivery policy of docs/sns-retries.md fails 10 attempts, the process stops (SIGTERM;
//!   SIGKILL; SIGKILL while the 11th attempt waits for its answer) and starts again, and the
//!   delivery log ends exactly as in a run without `--state-dir` that never stopped.
//!
//! Randomness comes from one seed, printed at the start (`SWITCHYARD_CRASH_SEED` sets it). The
//! kills happen after a number of completed sends drawn from it, not after a wall-clock time
//! (`SWITCHYARD_CRASH_KILLS` sets how many; 4 by default).
// The crate denies `unsafe`; this test sends signals to the process it started (libc::kill).
#![allow(unsafe_code)]

use aws_sdk_sqs::types::{DeleteMessageBatchRequestEntry, QueueAttributeName};
use aws_smithy_runtime_api::client::result::SdkError;
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use switchyard::clock::Clock;
use tokio::sync::{Notify, watch};

// ---------------------------------------------------------------------------------------------
// The process

/// A running `switchyard` binary and the URL of its ready line; killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    /// Starts the binary with `args`, its stderr to `log`, and waits for its ready line.
    fn start(args: &[String], log: &Path) -> Server {
        let stderr = std::fs::File::create(log).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_switchyard"))
            .args(args)
            // Checkpoints every 64 KiB of journal, so that kills fall before, during and after
            // them and restarts read a checkpoint and the journal after it.
            .env("SWITCHYARD_CHECKPOINT_BYTES", "65536")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        // The ready line, then whatever else it writes, so that a full pipe never blocks it.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send(line);
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let ready = rx
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_default();
        let Some(url) = ready
            .split("listening on ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
        else {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "no ready line ({ready:?}); its log {}:\n{}",
                log.display(),
                std::fs::read_to_string(log).unwrap_or_default()
            );
        };
        Server {
            url: url.to_string(),
            child,
        }
    }

    /// SIGKILL, and waits for the process to be gone.
    fn kill(&mut self) {
        self.child.kill().unwrap();
        let status = self.child.wait().unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");
    }

    /// SIGTERM, and waits for the process to end by itself.
    fn terminate(&mut self) -> ExitStatus {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: kill(2) with the id of our own child, which has not been waited for yet, so the
        // id still names it.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        self.child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn server_args(seed: u64, state_dir: Option<&Path>) -> Vec<String> {
    let mut args: Vec<String> = [
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--clock",
        "manual",
        "--seed",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(seed.to_string());
    if let Some(dir) = state_dir {
        args.push("--state-dir".into());
        args.push(dir.display().to_string());
    }
    args
}

/// Starts a server off the async workers (it reads the ready line blocking).
async fn start_server(args: Vec<String>, log: PathBuf) -> Server {
    tokio::task::spawn_blocking(move || Server::start(&args, &log))
        .await
        .unwrap()
}

/// A fresh directory for one run's state and logs.
fn work_dir(name: &str, seed: u64) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("switchyard-{name}-{seed}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The seed of this run: `SWITCHYARD_CRASH_SEED`, else the wall clock.
fn seed(test: &str) -> u64 {
    let seed = match std::env::var("SWITCHYARD_CRASH_SEED") {
        Ok(s) => s.parse().expect("SWITCHYARD_CRASH_SEED is a u64"),
        Err(_) => Clock::wall_millis() as u64,
    };
    eprintln!("{test}: seed {seed} (again with SWITCHYARD_CRASH_SEED={seed})");
    seed
}

/// xorshift64*: the test's own reproducible choices.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        // splitmix64 of the seed, so that nearby seeds give unrelated streams; never 0.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// In `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

// ---------------------------------------------------------------------------------------------
// Clients

fn sqs_client(url: &str) -> aws_sdk_sqs::Client {
    use aws_sdk_sqs::config::{BehaviorVersion, Credentials, Region, retry::RetryConfig};
    let config = aws_sdk_sqs::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(url)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        // One call, one request: an Ok is the answer to the request this test made.
        .retry_config(RetryConfig::disabled())
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .build();
    aws_sdk_sqs::Client::from_conf(config)
}

fn sns_client(url: &str) -> aws_sdk_sns::Client {
    use aws_sdk_sns::config::{BehaviorVersion, Credentials, Region, retry::RetryConfig};
    let config = aws_sdk_sns::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(url)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        .retry_config(RetryConfig::disabled())
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .build();
    aws_sdk_sns::Client::from_conf(config)
}

/// Whether an SDK call failed without an answer (the process was killed under it), rather than
/// with an AWS error.
fn no_answer<E, R>(e: &SdkError<E, R>) -> bool {
    !matches!(e, SdkError::ServiceError(_))
}

/// A request to the control API (or any URL): its status and JSON body, or why it got none.
async fn http(method: &str, url: &str, body: Option<Value>) -> Result<(u16, Value), String> {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<bytes::Bytes>>();
    let bytes = body.map_or_else(bytes::Bytes::new, |b| b.to_string().into());
    let request = hyper::Request::builder()
        .method(method)
        .uri(url)
        .header("content-type", "application/json")
        .body(Full::new(bytes))
        .unwrap();
    let response = client.request(request).await.map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Ok((status, json))
}

/// `POST /_switchyard/clock/advance` with `body`; panics unless it answers 200.
async fn advance(url: &str, body: Value) -> Value {
    let (status, answer) = http(
        "POST",
        &format!("{url}/_switchyard/clock/advance"),
        Some(body),
    )
    .await
    .unwrap();
    assert_eq!(status, 200, "{answer}");
    answer
}

async fn control_get(url: &str, path: &str) -> Value {
    let (status, answer) = http("GET", &format!("{url}/_switchyard/{path}"), None)
        .await
        .unwrap();
    assert_eq!(status, 200, "{path}: {answer}");
    answer
}

fn millis(rfc3339: &Value) -> i64 {
    let text = rfc3339
        .as_str()
        .unwrap_or_else(|| panic!("not a time: {rfc3339}"));
    text.parse::<jiff::Timestamp>()
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .as_millisecond()
}

fn rfc3339(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms).unwrap().to_string()
}

// ---------------------------------------------------------------------------------------------
// The crash test

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Queue {
    Standard,
    Fifo,
    /// The queue the topic delivers to raw.
    Fanout,
    /// The queue the topic delivers to in SNS's JSON envelope.
    Envelope,
}

impl Queue {
    fn name(self) -> &'static str {
        match self {
            Queue::Standard => "crash-standard",
            Queue::Fifo => "crash-ordered.fifo",
            Queue::Fanout => "crash-fanout",
            Queue::Envelope => "crash-envelope",
        }
    }

    fn url(self, base: &str) -> String {
        format!("{base}/000000000000/{}", self.name())
    }

    /// What was sent, of a message received from this queue, and its id: the body and the SQS
    /// message id, or the envelope's `Message` and `MessageId` (the publish's).
    fn content(self, m: &aws_sdk_sqs::types::Message) -> (String, String) {
        let body = m.body().unwrap();
        if self != Queue::Envelope {
            return (body.to_string(), m.message_id().unwrap().to_string());
        }
        let envelope: Value = serde_json::from_str(body).unwrap();
        assert_eq!(envelope["Type"], "Notification", "{body}");
        assert_eq!(envelope["TopicArn"], TOPIC, "{body}");
        (
            envelope["Message"].as_str().unwrap().to_string(),
            envelope["MessageId"].as_str().unwrap().to_string(),
        )
    }
}

const TOPIC: &str = "arn:aws:sns:us-east-1:000000000000:crash-topic";

/// A send (or publish) that was made: acknowledged when the call returned Ok, with the message
/// id it answered (none for the raw fanout queue, whose SQS id SNS does not tell).
struct Sent {
    body: String,
    queue: Queue,
    acked: bool,
    id: Option<String>,
}

/// A message a receive handed out. `start` and `end` are ticks of the test's one counter taken
/// before the request and after its answer; `pos` is its place in the answer.
struct Got {
    body: String,
    id: String,
    queue: Queue,
    start: u64,
    end: u64,
    pos: usize,
    drain: bool,
}

/// A delete that was asked for: acknowledged when the call (or its batch entry) succeeded;
/// `start` and `end` are ticks taken before the request and after its answer (or its failure).
struct Deleted {
    body: String,
    queue: Queue,
    acked: bool,
    start: u64,
    end: u64,
}

/// The current process (its generation and URL) and everything the clients saw.
struct World {
    server: watch::Sender<(u64, String)>,
    /// Sends (and publishes) finished, acknowledged or not: the kills are placed by it.
    sends_done: watch::Sender<u64>,
    stop: AtomicBool,
    ticks: AtomicU64,
    no_answers: AtomicU64,
    sent: Mutex<Vec<Sent>>,
    got: Mutex<Vec<Got>>,
    deleted: Mutex<Vec<Deleted>>,
}

/// A client's connection to the current process.
struct Conn {
    generation: u64,
    url: String,
    sqs: aws_sdk_sqs::Client,
    sns: aws_sdk_sns::Client,
}

impl World {
    fn tick(&self) -> u64 {
        self.ticks.fetch_add(1, Ordering::SeqCst)
    }

    fn conn(&self) -> Conn {
        let (generation, url) = self.server.borrow().clone();
        Conn {
            generation,
            sqs: sqs_client(&url),
            sns: sns_client(&url),
            url,
        }
    }

    /// The connection to the process running now.
    fn refresh(&self, conn: &mut Conn) {
        if self.server.borrow().0 != conn.generation {
            *conn = self.conn();
        }
    }

    /// After a call that got no answer: the process was killed; waits for the next one.
    async fn after_no_answer(&self, conn: &mut Conn, what: &str) {
        self.no_answers.fetch_add(1, Ordering::SeqCst);
        let mut server = self.server.subscribe();
        let generation = conn.generation;
        let restarted = Clock::within(
            Duration::from_secs(120),
            server.wait_for(|(g, _)| *g > generation),
        )
        .await;
        assert!(
            restarted.is_some(),
            "{what} got no answer, and no restart followed: the process dropped a request"
        );
        *conn = self.conn();
    }

    fn sent(&self, body: String, queue: Queue, acked: bool, id: Option<String>) {
        self.sent.lock().unwrap().push(Sent {
            body,
            queue,
            acked,
            id,
        });
    }

    fn deleted(&self, body: &str, queue: Queue, start: u64, acked: bool) {
        let end = self.tick();
        self.deleted.lock().unwrap().push(Deleted {
            body: body.to_string(),
            queue,
            acked,
            start,
            end,
        });
    }

    fn send_done(&self) {
        self.sends_done.send_modify(|n| *n += 1);
    }
}

/// Sends `count` messages to the standard queue, one by one or (`batch`) five at a time.
async fn standard_sender(world: Arc<World>, id: usize, batch: bool, count: usize) {
    let mut conn = world.conn();
    let mut i = 0;
    while i < count {
        world.refresh(&mut conn);
        let queue = Queue::Standard.url(&conn.url);
        if batch {
            let bodies: Vec<String> = (i..i + 5).map(|n| format!("std-{id}-{n}")).collect();
            let mut request = conn.sqs.send_message_batch().queue_url(&queue);
            for (n, body) in bodies.iter().enumerate() {
                request = request.entries(
                    aws_sdk_sqs::types::SendMessageBatchRequestEntry::builder()
                        .id(n.to_string())
                        .message_body(body)
                        .build()
                        .unwrap(),
                );
            }
            match request.send().await {
                Ok(out) => {
                    assert!(out.failed.is_empty(), "{:?}", out.failed);
                    let ids: HashMap<&str, &str> = out
                        .successful
                        .iter()
                        .map(|s| (s.id.as_str(), s.message_id.as_str()))
                        .collect();
                    assert_eq!(ids.len(), bodies.len());
                    for (n, body) in bodies.into_iter().enumerate() {
                        let id = ids[n.to_string().as_str()].to_string();
                        world.sent(body, Queue::Standard, true, Some(id));
                    }
                }
                Err(e) if no_answer(&e) => {
                    for body in bodies {
                        world.sent(body, Queue::Standard, false, None);
                    }
                    world.after_no_answer(&mut conn, "SendMessageBatch").await;
                }
                Err(e) => panic!("SendMessageBatch: {e:?}"),
            }
            i += 5;
        } else {
            let body = format!("std-{id}-{i}");
            match conn
                .sqs
                .send_message()
                .queue_url(&queue)
                .message_body(&body)
                .send()
                .await
            {
                Ok(out) => world.sent(body, Queue::Standard, true, out.message_id),
                Err(e) if no_answer(&e) => {
                    world.sent(body, Queue::Standard, false, None);
                    world.after_no_answer(&mut conn, "SendMessage").await;
                }
                Err(e) => panic!("SendMessage: {e:?}"),
            }
            i += 1;
        }
        world.send_done();
    }
}

/// Sends `count` messages to the FIFO queue in group `g<id>`, each after the previous one's
/// answer (or its loss), so the group's send order is the order of the bodies' numbers.
async fn fifo_sender(world: Arc<World>, id: usize, count: usize) {
    let mut conn = world.conn();
    for i in 0..count {
        world.refresh(&mut conn);
        let body = format!("fifo-{id}-{i}");
        match conn
            .sqs
            .send_message()
            .queue_url(Queue::Fifo.url(&conn.url))
            .message_body(&body)
            .message_group_id(format!("g{id}"))
            .message_deduplication_id(&body)
            .send()
            .await
        {
            Ok(out) => world.sent(body, Queue::Fifo, true, out.message_id),
            Err(e) if no_answer(&e) => {
                world.sent(body, Queue::Fifo, false, None);
                world.after_no_answer(&mut conn, "SendMessage (FIFO)").await;
            }
            Err(e) => panic!("SendMessage (FIFO): {e:?}"),
        }
        world.send_done();
    }
}

/// Publishes `count` messages to the topic; each lands in both subscribed queues.
async fn publisher(world: Arc<World>, id: usize, count: usize) {
    let mut conn = world.conn();
    for i in 0..count {
        world.refresh(&mut conn);
        let body = format!("sns-{id}-{i}");
        match conn
            .sns
            .publish()
            .topic_arn(TOPIC)
            .message(&body)
            .send()
            .await
        {
            Ok(out) => {
                world.sent(body.clone(), Queue::Fanout, true, None);
                world.sent(body, Queue::Envelope, true, out.message_id);
            }
            Err(e) if no_answer(&e) => {
                world.sent(body.clone(), Queue::Fanout, false, None);
                world.sent(body, Queue::Envelope, false, None);
                world.after_no_answer(&mut conn, "Publish").await;
            }
            Err(e) => panic!("Publish: {e:?}"),
        }
        world.send_done();
    }
}

/// Receives (long polls of 1 s) and deletes until told to stop, leaving about one message in ten
/// undeleted so that it comes back. On the FIFO queue it deletes a batch's messages in order and
/// stops at the first it leaves or fails to delete, as a consumer that keeps order does; on the
/// raw fanout queue it deletes with DeleteMessageBatch.
async fn receiver(world: Arc<World>, queue: Queue, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut conn = world.conn();
    while !world.stop.load(Ordering::SeqCst) {
        world.refresh(&mut conn);
        let start = world.tick();
        let received = conn
            .sqs
            .receive_message()
            .queue_url(queue.url(&conn.url))
            .max_number_of_messages(10)
            .wait_time_seconds(1)
            .send()
            .await;
        let end = world.tick();
        let messages = match received {
            Ok(out) => out.messages.unwrap_or_default(),
            Err(e) if no_answer(&e) => {
                world.after_no_answer(&mut conn, "ReceiveMessage").await;
                continue;
            }
            Err(e) => panic!("ReceiveMessage: {e:?}"),
        };
        let messages: Vec<(String, String, String)> = messages
            .iter()
            .map(|m| {
                let (body, id) = queue.content(m);
                (body, id, m.receipt_handle().unwrap().to_string())
            })
            .collect();
        {
            let mut got = world.got.lock().unwrap();
            for (pos, (body, id, _)) in messages.iter().enumerate() {
                got.push(Got {
                    body: body.clone(),
                    id: id.clone(),
                    queue,
                    start,
                    end,
                    pos,
                    drain: false,
                });
            }
        }
        let keep: Vec<(&str, &str)> = messages
            .iter()
            .filter(|_| !rng.chance(10))
            .map(|(body, _, handle)| (body.as_str(), handle.as_str()))
            .collect();
        match queue {
            Queue::Standard | Queue::Envelope => {
                for (body, handle) in keep {
                    // The process of the receive may be gone: the handle still holds.
                    world.refresh(&mut conn);
                    let start = world.tick();
                    match conn
                        .sqs
                        .delete_message()
                        .queue_url(queue.url(&conn.url))
                        .receipt_handle(handle)
                        .send()
                        .await
                    {
                        Ok(_) => world.deleted(body, queue, start, true),
                        Err(e) if no_answer(&e) => {
                            world.deleted(body, queue, start, false);
                            world.after_no_answer(&mut conn, "DeleteMessage").await;
                        }
                        // A standard queue deletes with any handle a message was given.
                        Err(e) => panic!("DeleteMessage: {e:?}"),
                    }
                }
            }
            Queue::Fifo => {
                for (n, (body, _, handle)) in messages.iter().enumerate() {
                    let body = body.as_str();
                    if !keep.iter().any(|(b, _)| *b == body) {
                        break;
                    }
                    world.refresh(&mut conn);
                    let start = world.tick();
                    match conn
                        .sqs
                        .delete_message()
                        .queue_url(queue.url(&conn.url))
                        .receipt_handle(handle)
                        .send()
                        .await
                    {
                        Ok(_) => world.deleted(body, queue, start, true),
                        Err(e) if no_answer(&e) => {
                            world.deleted(body, queue, start, false);
                            world
                                .after_no_answer(&mut conn, "DeleteMessage (FIFO)")
                                .await;
                            break;
                        }
                        // The clock moved past the visibility timeout: the handle expired.
                        Err(e) => {
                            use aws_sdk_sqs::error::ProvideErrorMetadata;
                            assert_eq!(
                                e.code(),
                                Some("InvalidParameterValue"),
                                "DeleteMessage (FIFO), message {n}: {e:?}"
                            );
                            assert!(
                                e.message().is_some_and(|m| m.contains("expired")),
                                "DeleteMessage (FIFO), message {n}: {e:?}"
                            );
                            world.deleted(body, queue, start, false);
                            break;
                        }
                    }
                }
            }
            Queue::Fanout => {
                if keep.is_empty() {
                    continue;
                }
                world.refresh(&mut conn);
                let mut request = conn
                    .sqs
                    .delete_message_batch()
                    .queue_url(queue.url(&conn.url));
                for (n, (_, handle)) in keep.iter().enumerate() {
                    request = request.entries(
                        DeleteMessageBatchRequestEntry::builder()
                            .id(n.to_string())
                            .receipt_handle(*handle)
                            .build()
                            .unwrap(),
                    );
                }
                let start = world.tick();
                match request.send().await {
                    Ok(out) => {
                        assert!(out.failed.is_empty(), "{:?}", out.failed);
                        for s in &out.successful {
                            let n: usize = s.id.parse().unwrap();
                            world.deleted(keep[n].0, queue, start, true);
                        }
                    }
                    Err(e) if no_answer(&e) => {
                        for (body, _) in &keep {
                            world.deleted(body, queue, start, false);
                        }
                        world.after_no_answer(&mut conn, "DeleteMessageBatch").await;
                    }
                    Err(e) => panic!("DeleteMessageBatch: {e:?}"),
                }
            }
        }
    }
}

/// Moves the manual clock 31 s (past the queues' 30 s visibility timeout) each time another
/// eighth of the sends is done, so that undeleted messages come back while the clients run.
async fn clock_mover(world: Arc<World>, total_sends: u64) {
    let mut conn = world.conn();
    let mut sends = world.sends_done.subscribe();
    for eighth in 1..8 {
        let at = total_sends * eighth / 8;
        sends.wait_for(|n| *n >= at).await.unwrap();
        world.refresh(&mut conn);
        let url = format!("{}/_switchyard/clock/advance", conn.url);
        match http("POST", &url, Some(json!({"seconds": 31}))).await {
            Ok((200, _)) => {}
            Ok((status, body)) => panic!("clock/advance: {status} {body}"),
            Err(_) => world.after_no_answer(&mut conn, "clock/advance").await,
        }
    }
}

/// Kills the process with SIGKILL when the completed sends reach each of `at`, and starts it
/// again on the same directory; answers the process running at the end.
async fn killer(
    world: Arc<World>,
    seed: u64,
    mut server: Server,
    at: Vec<u64>,
    args: Vec<String>,
    logs: PathBuf,
) -> Server {
    let mut sends = world.sends_done.subscribe();
    let mut rng = Rng::new(seed);
    for (k, at) in at.into_iter().enumerate() {
        sends.wait_for(|n| *n >= at).await.unwrap();
        // A little later than the send that reached the mark, by a drawn number of turns of the
        // scheduler, so that the kill does not always follow an answer.
        for _ in 0..rng.below(64) {
            tokio::task::yield_now().await;
        }
        server.kill();
        let generation = k as u64 + 1;
        let log = logs.join(format!("process-{generation}.log"));
        server = start_server(args.clone(), log).await;
        world.server.send_replace((generation, server.url.clone()));
    }
    server
}

/// Receives and deletes everything left in `queue`, after the clock has passed every
/// visibility timeout.
async fn drain(world: &World, url: &str, queue: Queue) {
    let sqs = sqs_client(url);
    loop {
        let start = world.tick();
        let messages = sqs
            .receive_message()
            .queue_url(queue.url(url))
            .max_number_of_messages(10)
            .send()
            .await
            .unwrap()
            .messages
            .unwrap_or_default();
        let end = world.tick();
        if messages.is_empty() {
            break;
        }
        for (pos, m) in messages.iter().enumerate() {
            let (body, id) = queue.content(m);
            world.got.lock().unwrap().push(Got {
                body: body.clone(),
                id,
                queue,
                start,
                end,
                pos,
                drain: true,
            });
            let start = world.tick();
            sqs.delete_message()
                .queue_url(queue.url(url))
                .receipt_handle(m.receipt_handle().unwrap())
                .send()
                .await
                .unwrap();
            world.deleted(&body, queue, start, true);
        }
    }
    let attributes = sqs
        .get_queue_attributes()
        .queue_url(queue.url(url))
        .attribute_names(QueueAttributeName::All)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap();
    for name in [
        QueueAttributeName::ApproximateNumberOfMessages,
        QueueAttributeName::ApproximateNumberOfMessagesNotVisible,
        QueueAttributeName::ApproximateNumberOfMessagesDelayed,
    ] {
        assert_eq!(
            attributes.get(&name).map(String::as_str),
            Some("0"),
            "{queue:?} {name:?}"
        );
    }
}

/// The FIFO group and the number of a FIFO body `fifo-<group>-<n>`.
fn fifo_place(body: &str) -> (u64, u64) {
    let mut parts = body.split('-').skip(1);
    let group = parts.next().unwrap().parse().unwrap();
    let n = parts.next().unwrap().parse().unwrap();
    (group, n)
}

/// What went wrong, one line each; empty when every invariant holds.
fn violations(world: &World) -> (Vec<String>, String) {
    let sent = world.sent.lock().unwrap();
    let got = world.got.lock().unwrap();
    let deleted = world.deleted.lock().unwrap();
    let mut wrong = Vec::new();

    // Messages are named by their queue and body.
    let sent_by_key: HashMap<(Queue, &str), &Sent> = sent
        .iter()
        .map(|s| ((s.queue, s.body.as_str()), s))
        .collect();
    let mut delete_acked: HashMap<(Queue, &str), u64> = HashMap::new();
    let mut delete_asked: HashSet<(Queue, &str)> = HashSet::new();
    for d in deleted.iter() {
        let key = (d.queue, d.body.as_str());
        delete_asked.insert(key);
        if d.acked {
            let first = delete_acked.entry(key).or_insert(d.end);
            *first = (*first).min(d.end);
        }
        if !sent_by_key.contains_key(&key) {
            wrong.push(format!(
                "deleted {} from {:?}, where it was never sent",
                d.body, d.queue
            ));
        }
    }
    let left: HashSet<(Queue, &str)> = got
        .iter()
        .filter(|g| g.drain)
        .map(|g| (g.queue, g.body.as_str()))
        .collect();

    // Every acknowledged send was deleted, or is still there.
    for s in sent.iter().filter(|s| s.acked) {
        let key = (s.queue, s.body.as_str());
        if !delete_acked.contains_key(&key) && !left.contains(&key) && !delete_asked.contains(&key)
        {
            wrong.push(format!(
                "lost: {} ({:?}) was acknowledged, never deleted, and is not in the queue",
                s.body, s.queue
            ));
        }
    }
    // Nothing comes back once its delete was acknowledged; nothing comes that was not sent.
    let mut times: HashMap<(Queue, &str), usize> = HashMap::new();
    for g in got.iter() {
        let key = (g.queue, g.body.as_str());
        *times.entry(key).or_default() += 1;
        if !sent_by_key.contains_key(&key) {
            wrong.push(format!(
                "{} came out of {:?}, which it was never sent to",
                g.body, g.queue
            ));
        }
        if let Some(&d) = delete_acked.get(&key)
            && g.start > d
        {
            wrong.push(format!(
                "came back: {} ({:?}) was received (tick {}{}) after its delete was acknowledged (tick {d})",
                g.body,
                g.queue,
                g.start,
                if g.drain { ", after the last restart" } else { "" }
            ));
        }
    }
    // A message keeps its id across restarts: the one its send answered, at every receive.
    let mut ids: HashMap<(Queue, &str), &str> = HashMap::new();
    for g in got.iter() {
        let key = (g.queue, g.body.as_str());
        let first = *ids.entry(key).or_insert(g.id.as_str());
        if first != g.id {
            wrong.push(format!(
                "{} ({:?}) was received with the ids {first} and {}",
                g.body, g.queue, g.id
            ));
        }
        if let Some(sent_id) = sent_by_key.get(&key).and_then(|s| s.id.as_deref())
            && sent_id != g.id
        {
            wrong.push(format!(
                "{} ({:?}) was sent as {sent_id} and received as {}",
                g.body, g.queue, g.id
            ));
        }
    }
    // FIFO, within each group:
    // - one answer holds the group's messages in send order;
    // - messages are first received in send order (a message received again after its
    //   visibility timeout starts the group over from itself, which is no break of order);
    // - nothing is skipped: when a message is received, every earlier message of its group that
    //   exists (acknowledged, or seen at some time) is in the same answer or had been asked to be
    //   deleted before.
    let mut groups: BTreeMap<u64, Vec<(&Got, u64)>> = BTreeMap::new();
    for g in got.iter().filter(|g| g.queue == Queue::Fifo) {
        let (group, n) = fifo_place(&g.body);
        groups.entry(group).or_default().push((g, n));
    }
    let mut delete_started: HashMap<&str, u64> = HashMap::new();
    for d in deleted.iter().filter(|d| d.queue == Queue::Fifo) {
        let first = delete_started.entry(&d.body).or_insert(d.start);
        *first = (*first).min(d.start);
    }
    for (group, list) in &groups {
        let mut first: BTreeMap<u64, &Got> = BTreeMap::new();
        for (g, n) in list {
            let entry = first.entry(*n).or_insert(g);
            if g.end < entry.start {
                *entry = g;
            }
        }
        let mut exists: HashSet<u64> = first.keys().copied().collect();
        exists.extend(
            sent.iter()
                .filter(|s| s.acked && s.queue == Queue::Fifo)
                .map(|s| fifo_place(&s.body))
                .filter(|(g, _)| g == group)
                .map(|(_, n)| n),
        );
        for (a, na) in list {
            for (b, nb) in list {
                if a.start == b.start && a.pos < b.pos && na >= nb {
                    wrong.push(format!(
                        "FIFO order: one answer gave {} before {}",
                        a.body, b.body
                    ));
                }
            }
            let with: HashSet<u64> = list
                .iter()
                .filter(|(b, _)| b.start == a.start)
                .map(|(_, n)| *n)
                .collect();
            for j in exists.iter().filter(|j| *j < na && !with.contains(j)) {
                let body = format!("fifo-{group}-{j}");
                if delete_started.get(body.as_str()).is_none_or(|d| *d > a.end) {
                    wrong.push(format!(
                        "FIFO order: {} was received (ticks {}-{}) while {body} was still in the queue",
                        a.body, a.start, a.end
                    ));
                }
            }
        }
        for (na, a) in &first {
            for (nb, b) in &first {
                if na > nb && a.end < b.start {
                    wrong.push(format!(
                        "FIFO order: {} was first received (ticks {}-{}) before {} (ticks {}-{})",
                        a.body, a.start, a.end, b.body, b.start, b.end
                    ));
                }
            }
        }
    }

    let acked = sent.iter().filter(|s| s.acked).count();
    let unacked: Vec<(Queue, &str)> = sent
        .iter()
        .filter(|s| !s.acked)
        .map(|s| (s.queue, s.body.as_str()))
        .collect();
    let unacked_seen = unacked.iter().filter(|k| times.contains_key(*k)).count();
    let again = times.values().filter(|n| **n > 1).count();
    let summary = format!(
        "{} messages sent, a publish once per subscribed queue ({acked} acknowledged; {} not, \
         of which {unacked_seen} arrived anyway), \
         {} messages received ({again} more than once, {} in the final drain), {} deletes \
         ({} acknowledged), {} calls without an answer",
        sent.len(),
        unacked.len(),
        got.len(),
        left.len(),
        deleted.len(),
        deleted.iter().filter(|d| d.acked).count(),
        world.no_answers.load(Ordering::SeqCst),
    );
    (wrong, summary)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn acknowledged_work_survives_sigkill_at_random_moments() {
    // SWITCHYARD_CRASH_KILLS sets another number of kills, for a longer hunt.
    let kills_wanted: usize = std::env::var("SWITCHYARD_CRASH_KILLS").map_or(4, |n| {
        n.parse().expect("SWITCHYARD_CRASH_KILLS is a number")
    });
    const STANDARD_SENDERS: usize = 4; // two send one by one, two in batches of five
    const STANDARD_MESSAGES: usize = 50;
    const FIFO_GROUPS: usize = 4;
    const FIFO_MESSAGES: usize = 40;
    const PUBLISHERS: usize = 2;
    const PUBLISHES: usize = 40;

    let seed = seed("crash");
    let mut rng = Rng::new(seed);
    let work = work_dir("crash", seed);
    let state = work.join("state");
    let args = server_args(seed, Some(&state));
    let server = start_server(args.clone(), work.join("process-0.log")).await;
    let url = server.url.clone();

    // The queues, the topic and its two subscriptions (raw and enveloped), before any kill.
    let sqs = sqs_client(&url);
    for queue in [Queue::Standard, Queue::Fifo, Queue::Fanout, Queue::Envelope] {
        let mut request = sqs
            .create_queue()
            .queue_name(queue.name())
            .attributes(QueueAttributeName::VisibilityTimeout, "30");
        if queue == Queue::Fifo {
            request = request.attributes(QueueAttributeName::FifoQueue, "true");
        }
        let created = request.send().await.unwrap().queue_url.unwrap();
        assert_eq!(created, queue.url(&url));
    }
    let sns = sns_client(&url);
    let topic = sns
        .create_topic()
        .name("crash-topic")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    assert_eq!(topic, TOPIC);
    for (queue, raw) in [(Queue::Fanout, "true"), (Queue::Envelope, "false")] {
        sns.subscribe()
            .topic_arn(TOPIC)
            .protocol("sqs")
            .endpoint(format!(
                "arn:aws:sqs:us-east-1:000000000000:{}",
                queue.name()
            ))
            .attributes("RawMessageDelivery", raw)
            .send()
            .await
            .unwrap();
    }

    let sends_per_standard = |i: usize| {
        if i.is_multiple_of(2) {
            STANDARD_MESSAGES
        } else {
            STANDARD_MESSAGES / 5
        }
    };
    let total_sends = ((0..STANDARD_SENDERS).map(sends_per_standard).sum::<usize>()
        + FIFO_GROUPS * FIFO_MESSAGES
        + PUBLISHERS * PUBLISHES) as u64;
    // The kills: after numbers of completed sends drawn between a tenth and nine tenths.
    let mut kills: Vec<u64> = Vec::new();
    while kills.len() < kills_wanted.min(total_sends as usize * 8 / 10) {
        let at = total_sends / 10 + rng.below(total_sends * 8 / 10);
        if !kills.contains(&at) {
            kills.push(at);
        }
    }
    kills.sort_unstable();
    eprintln!("crash: {total_sends} sends; SIGKILL after {kills:?} of them, and once at the end");

    let world = Arc::new(World {
        server: watch::Sender::new((0, url.clone())),
        sends_done: watch::Sender::new(0),
        stop: AtomicBool::new(false),
        ticks: AtomicU64::new(0),
        no_answers: AtomicU64::new(0),
        sent: Mutex::new(Vec::new()),
        got: Mutex::new(Vec::new()),
        deleted: Mutex::new(Vec::new()),
    });
    let run = async {
        let mut senders = Vec::new();
        for i in 0..STANDARD_SENDERS {
            senders.push(tokio::spawn(standard_sender(
                world.clone(),
                i,
                !i.is_multiple_of(2),
                STANDARD_MESSAGES,
            )));
        }
        for i in 0..FIFO_GROUPS {
            senders.push(tokio::spawn(fifo_sender(world.clone(), i, FIFO_MESSAGES)));
        }
        for i in 0..PUBLISHERS {
            senders.push(tokio::spawn(publisher(world.clone(), i, PUBLISHES)));
        }
        let mut receivers = Vec::new();
        for (n, queue) in [
            Queue::Standard,
            Queue::Standard,
            Queue::Fifo,
            Queue::Fifo,
            Queue::Fanout,
            Queue::Envelope,
        ]
        .into_iter()
        .enumerate()
        {
            let seed = seed ^ (n as u64 + 1).wrapping_mul(0x9E37_79B9);
            receivers.push(tokio::spawn(receiver(world.clone(), queue, seed)));
        }
        let clock = tokio::spawn(clock_mover(world.clone(), total_sends));
        let killing = tokio::spawn(killer(
            world.clone(),
            seed ^ 0x4B11,
            server,
            kills,
            args.clone(),
            work.clone(),
        ));
        for s in senders {
            s.await.unwrap();
        }
        clock.await.unwrap();
        let server = killing.await.unwrap();
        world.stop.store(true, Ordering::SeqCst);
        for r in receivers {
            r.await.unwrap();
        }
        server
    };
    let mut server = Clock::within(Duration::from_secs(600), run)
        .await
        .unwrap_or_else(|| panic!("crash (seed {seed}): the clients did not finish"));

    // Once more, with nothing under way, then the last start: everything left comes out.
    server.kill();
    let mut server = start_server(args.clone(), work.join("process-last.log")).await;
    let url = server.url.clone();
    advance(&url, json!({"seconds": 60})).await;
    for queue in [Queue::Standard, Queue::Fifo, Queue::Fanout, Queue::Envelope] {
        drain(&world, &url, queue).await;
    }
    let status = server.terminate();
    assert!(status.success(), "{status:?}");

    let (wrong, summary) = violations(&world);
    eprintln!("crash: {summary}");
    assert!(
        wrong.is_empty(),
        "crash (seed {seed}; state and logs kept in {}): {} violations:\n{}",
        work.display(),
        wrong.len(),
        wrong.join("\n")
    );
    assert!(
        world.no_answers.load(Ordering::SeqCst) > 0,
        "no kill caught a request under way (seed {seed})"
    );
    let _ = std::fs::remove_dir_all(&work);
}

// ---------------------------------------------------------------------------------------------
// The retry schedule across a stop

/// The example delivery policy of docs/sns-retries.md (51 attempts over about 43 minutes).
const EXAMPLE_POLICY: &str = r#"{"healthyRetryPolicy": {"minDelayTarget": 1, "maxDelayTarget": 60, "numRetries": 50,
  "numNoDelayRetries": 3, "numMinDelayRetries": 2, "numMaxDelayRetries": 35,
  "backoffFunction": "exponential"},
 "throttlePolicy": {"maxReceivesPerSecond": 10},
 "requestPolicy": {"headerContentType": "application/json"}}"#;

/// An HTTP endpoint in the test: records confirmations, counts notifications and answers them
/// with `status`; the notification numbered `hold` (from 1) is never answered.
struct Hook {
    url: String,
    status: Arc<AtomicU16>,
    notifications: Arc<AtomicUsize>,
    confirmations: Arc<Mutex<Vec<Value>>>,
    hold: Arc<AtomicUsize>,
    held: Arc<Notify>,
    server: tokio::task::JoinHandle<()>,
}

#[derive(Clone)]
struct HookState {
    status: Arc<AtomicU16>,
    notifications: Arc<AtomicUsize>,
    confirmations: Arc<Mutex<Vec<Value>>>,
    hold: Arc<AtomicUsize>,
    held: Arc<Notify>,
}

impl Hook {
    async fn start() -> Hook {
        async fn handle(
            axum::extract::State(s): axum::extract::State<HookState>,
            headers: axum::http::HeaderMap,
            body: String,
        ) -> axum::http::StatusCode {
            let kind = headers
                .get("x-amz-sns-message-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            match kind {
                "SubscriptionConfirmation" => {
                    s.confirmations
                        .lock()
                        .unwrap()
                        .push(serde_json::from_str(&body).unwrap());
                    axum::http::StatusCode::OK
                }
                "Notification" => {
                    let n = s.notifications.fetch_add(1, Ordering::SeqCst) + 1;
                    if n == s.hold.load(Ordering::SeqCst) {
                        s.held.notify_one();
                        std::future::pending::<()>().await;
                    }
                    axum::http::StatusCode::from_u16(s.status.load(Ordering::SeqCst)).unwrap()
                }
                other => panic!("unexpected message type {other:?}: {body}"),
            }
        }
        let state = HookState {
            status: Arc::new(AtomicU16::new(200)),
            notifications: Arc::default(),
            confirmations: Arc::default(),
            hold: Arc::default(),
            held: Arc::default(),
        };
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Hook {
            url,
            status: state.status,
            notifications: state.notifications,
            confirmations: state.confirmations,
            hold: state.hold,
            held: state.held,
            server,
        }
    }
}

impl Drop for Hook {
    fn drop(&mut self) {
        self.server.abort();
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Stop {
    /// The run that never stops.
    Never,
    /// SIGTERM once 10 attempts have failed.
    Term,
    /// SIGKILL once 10 attempts have failed.
    Kill,
    /// SIGKILL while the 11th attempt waits for its answer.
    KillInFlight,
}

/// The attempts at delivering the message `id` in the delivery log.
async fn attempts(url: &str, id: &str) -> usize {
    let log = control_get(url, &format!("deliveries?event=attempt&messageId={id}")).await;
    log["records"].as_array().unwrap().len()
}

/// Publishes one message to a topic whose HTTP subscription fails with 503 under the example
/// policy, stops the process as `stop` says and starts it again, and runs the clock to 3,000 s
/// after the publish. Answers the subscription's records of the delivery log, their times
/// relative to the publish, and how many notifications the endpoint got.
async fn retry_run(seed: u64, stop: Stop) -> (Vec<Value>, usize) {
    let hook = Hook::start().await;
    let work = work_dir(&format!("retries-{stop:?}").to_lowercase(), seed);
    let state = work.join("state");
    let args = server_args(seed, (stop != Stop::Never).then_some(state.as_path()));
    let mut server = start_server(args.clone(), work.join("process-0.log")).await;
    let url = server.url.clone();

    let sns = sns_client(&url);
    let topic = sns
        .create_topic()
        .name("alerts")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    sns.subscribe()
        .topic_arn(&topic)
        .protocol("http")
        .endpoint(&hook.url)
        .attributes("DeliveryPolicy", EXAMPLE_POLICY)
        .send()
        .await
        .unwrap();
    advance(&url, json!({"seconds": 0})).await;
    let confirmation = hook
        .confirmations
        .lock()
        .unwrap()
        .pop()
        .expect("a SubscriptionConfirmation");
    let (status, _) = http("GET", confirmation["SubscribeURL"].as_str().unwrap(), None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    hook.status.store(503, Ordering::SeqCst);
    if stop == Stop::KillInFlight {
        hook.hold.store(11, Ordering::SeqCst);
    }
    let published = millis(&control_get(&url, "clock").await["now"]);
    let message = sns
        .publish()
        .topic_arn(&topic)
        .message("hello")
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    let end = json!({"until": rfc3339(published + 3_000_000)});

    let url = if stop == Stop::Never {
        advance(&url, end).await;
        url
    } else {
        // Timer by timer until 10 attempts have failed.
        advance(&url, json!({"seconds": 0})).await;
        loop {
            let n = attempts(&url, &message).await;
            if n >= 10 {
                assert_eq!(n, 10, "one step made more than one attempt");
                break;
            }
            let next = control_get(&url, "resources").await["nextTimerAt"].clone();
            advance(&url, json!({"until": next})).await;
        }
        match stop {
            Stop::Term => {
                let status = server.terminate();
                assert!(status.success(), "{status:?}");
            }
            Stop::Kill => server.kill(),
            Stop::KillInFlight => {
                let next = control_get(&url, "resources").await["nextTimerAt"].clone();
                let stuck = {
                    let url = url.clone();
                    tokio::spawn(async move {
                        http(
                            "POST",
                            &format!("{url}/_switchyard/clock/advance"),
                            Some(json!({"until": next})),
                        )
                        .await
                    })
                };
                Clock::within(Duration::from_secs(60), hook.held.notified())
                    .await
                    .expect("the 11th attempt reaches the endpoint");
                server.kill();
                assert!(stuck.await.unwrap().is_err(), "the advance had no answer");
            }
            Stop::Never => unreachable!(),
        }
        server = start_server(args, work.join("process-1.log")).await;
        advance(&server.url, end).await;
        server.url.clone()
    };

    let log = control_get(&url, "deliveries?limit=1000").await;
    let status = server.terminate();
    assert!(status.success(), "{status:?}");
    let relative = |t: &Value| {
        if t.is_null() {
            Value::Null
        } else {
            json!(millis(t) - published)
        }
    };
    let records = log["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["messageId"] == message.as_str())
        .map(|r| {
            json!({
                "event": r["event"],
                "attempt": r["attempt"],
                "phase": r["phase"],
                "outcome": r["outcome"],
                "status": r["status"],
                "delaySeconds": r["delaySeconds"],
                "messageId": r["messageId"],
                "at": relative(&r["at"]),
                "nextAttemptAt": relative(&r["nextAttemptAt"]),
            })
        })
        .collect();
    let _ = std::fs::remove_dir_all(&work);
    (records, hook.notifications.load(Ordering::SeqCst))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_schedule_survives_sigterm_and_sigkill() {
    let seed = seed("retries");
    let (expected, sent) = retry_run(seed, Stop::Never).await;
    // The example policy's 51 attempts, the last one retryable, then the end of the delivery.
    let attempts: Vec<&Value> = expected
        .iter()
        .filter(|r| r["event"] == "attempt")
        .collect();
    assert_eq!(attempts.len(), 51, "{expected:#?}");
    assert_eq!(sent, 51);
    let phases: Vec<&str> = attempts
        .iter()
        .map(|r| r["phase"].as_str().unwrap())
        .collect();
    let mut want = vec!["initial"];
    want.extend(["immediate"; 3]);
    want.extend(["pre-backoff"; 2]);
    want.extend(["backoff"; 10]);
    want.extend(["post-backoff"; 35]);
    assert_eq!(phases, want);
    assert!(
        attempts.iter().all(|r| r["outcome"] == "retryable"),
        "{expected:#?}"
    );

    for stop in [Stop::Term, Stop::Kill, Stop::KillInFlight] {
        let (got, sent) = retry_run(seed, stop).await;
        assert_eq!(
            got, expected,
            "{stop:?} (seed {seed}): the log differs from the run that never stopped"
        );
        // Each attempt reached the endpoint once; the one in flight at the kill twice.
        let again = usize::from(stop == Stop::KillInFlight);
        assert_eq!(sent, 51 + again, "{stop:?} (seed {seed})");
    }
}
