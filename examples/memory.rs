//! Resident memory of the release binary through a queue's life at depth: idle, after a fill of
//! N messages of 1 KiB (SendMessageBatch), after PurgeQueue, after a second fill, and after a
//! drain (ReceiveMessage and DeleteMessageBatch until empty); with GetQueueAttributes' time at
//! full depth. See docs/benchmarks.md ("Memory at depth").
//!
//! ```text
//! cargo build --release && cargo run --release --example memory -- --messages 1000000
//! ```
//! Options: --messages N (1000000), --connections N (4), --binary PATH
//! (target/release/switchyard).

// A measurement reads wall time, which clippy.toml's virtual-clock rule forbids elsewhere.
#![allow(clippy::disallowed_methods)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `--name VALUE`, else `default`.
fn option<T: std::str::FromStr>(name: &str, default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| *a == format!("--{name}"));
    at.and_then(|i| args.get(i + 1)).map_or(default, |v| {
        v.parse().unwrap_or_else(|_| panic!("--{name} {v}?"))
    })
}

/// One keep-alive connection speaking SQS's JSON protocol.
struct Client {
    stream: BufReader<TcpStream>,
    addr: SocketAddr,
}

impl Client {
    fn open(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        Client {
            stream: BufReader::new(stream),
            addr,
        }
    }

    /// Calls `operation`; answers its JSON output, panicking on an error status.
    fn call(&mut self, operation: &str, input: &Value) -> Value {
        let body = input.to_string();
        let head = format!(
            "POST / HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-amz-json-1.0\r\n\
             X-Amz-Target: AmazonSQS.{operation}\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        let stream = self.stream.get_mut();
        stream.write_all(head.as_bytes()).expect("write");
        stream.write_all(body.as_bytes()).expect("write");
        let (mut status, mut length) = (String::new(), 0usize);
        self.stream.read_line(&mut status).expect("status line");
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).expect("header");
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().expect("content-length");
            }
        }
        let mut answer = vec![0; length];
        self.stream.read_exact(&mut answer).expect("body");
        assert!(status.contains(" 200 "), "{operation}: {status}");
        serde_json::from_slice(&answer).unwrap_or(Value::Null)
    }
}

/// Resident memory of `pid` in KiB.
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("VmRSS");
    line.split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("VmRSS in KiB")
}

/// Runs `work(client, share)` on `connections` threads, splitting `n` between them.
fn spread(addr: SocketAddr, connections: usize, n: usize, work: fn(&mut Client, usize)) {
    std::thread::scope(|s| {
        for i in 0..connections {
            let share = n / connections + usize::from(i < n % connections);
            s.spawn(move || work(&mut Client::open(addr), share));
        }
    });
}

static QUEUE_URL: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn url() -> &'static str {
    QUEUE_URL.get().expect("queue made")
}

/// Sends `batches` batches of ten 1 KiB messages.
fn fill(c: &mut Client, batches: usize) {
    let body = "x".repeat(1024);
    let entries: Vec<Value> = (0..10)
        .map(|i| json!({"Id": format!("e{i}"), "MessageBody": body}))
        .collect();
    let input = json!({"QueueUrl": url(), "Entries": entries});
    for _ in 0..batches {
        c.call("SendMessageBatch", &input);
    }
}

/// Receives and deletes until a receive comes back empty.
fn drain(c: &mut Client, _: usize) {
    let receive = json!({"QueueUrl": url(), "MaxNumberOfMessages": 10, "VisibilityTimeout": 600});
    loop {
        let got = c.call("ReceiveMessage", &receive);
        let Some(messages) = got["Messages"].as_array().filter(|m| !m.is_empty()) else {
            return;
        };
        let entries: Vec<Value> = messages
            .iter()
            .enumerate()
            .map(|(i, m)| json!({"Id": format!("e{i}"), "ReceiptHandle": m["ReceiptHandle"]}))
            .collect();
        c.call(
            "DeleteMessageBatch",
            &json!({"QueueUrl": url(), "Entries": entries}),
        );
    }
}

fn main() {
    let messages: usize = option("messages", 1_000_000);
    let connections: usize = option("connections", 4);
    let binary: String = option("binary", "target/release/switchyard".to_string());
    let mut child = Command::new(&binary)
        .args(["--port", "0"])
        .env("RUST_LOG", "off")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{binary}: {e}; run `cargo build --release` first"));
    let mut ready = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut ready)
        .expect("ready line");
    let addr: SocketAddr = ready
        .trim()
        .rsplit("http://")
        .next()
        .and_then(|a| a.parse().ok())
        .expect("ready line names the address");
    let pid = child.id();
    let mut c = Client::open(addr);
    let made = c.call("CreateQueue", &json!({"QueueName": "depth"}));
    QUEUE_URL
        .set(made["QueueUrl"].as_str().expect("QueueUrl").to_string())
        .expect("once");
    let mut rows = vec![("idle", resident_kib(pid), Duration::ZERO)];
    let mut stage = |name: &'static str, work: &dyn Fn()| {
        let started = Instant::now();
        work();
        // Let the allocator's own background work (if any) settle before reading.
        std::thread::sleep(Duration::from_secs(1));
        rows.push((name, resident_kib(pid), started.elapsed()));
    };
    let batches = messages / 10;
    stage("fill", &|| spread(addr, connections, batches, fill));
    let attributes = json!({"QueueUrl": url(), "AttributeNames": ["All"]});
    let mut times: Vec<Duration> = (0..21)
        .map(|_| {
            let started = Instant::now();
            c.call("GetQueueAttributes", &attributes);
            started.elapsed()
        })
        .collect();
    times.sort();
    let counted = c.call("GetQueueAttributes", &attributes);
    let purge = json!({"QueueUrl": url()});
    stage("purge", &|| {
        Client::open(addr).call("PurgeQueue", &purge);
    });
    stage("refill", &|| spread(addr, connections, batches, fill));
    stage("drain", &|| spread(addr, connections, connections, drain));
    child.kill().expect("kill");
    child.wait().expect("wait");
    println!("| stage | resident | took |");
    println!("|---|---|---|");
    for (name, kib, took) in &rows {
        println!(
            "| {name} | {:.1} MiB | {:.1} s |",
            *kib as f64 / 1024.0,
            took.as_secs_f64()
        );
    }
    let (idle, full) = (rows[0].1, rows[1].1);
    println!(
        "\n{messages} messages of 1 KiB: {} B resident a message; GetQueueAttributes at that \
         depth: median {:.2} ms of 21 (ApproximateNumberOfMessages {})",
        (full - idle) * 1024 / messages as u64,
        times[10].as_secs_f64() * 1000.0,
        counted["Attributes"]["ApproximateNumberOfMessages"]
    );
}
