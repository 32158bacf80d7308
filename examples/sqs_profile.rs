//! The SQS round trip without sockets, for profilers: SendMessage, ReceiveMessage and
//! DeleteMessage in AWS JSON 1.0, each handed to the AWS front-end as the server hands it a
//! request (`protocol::handle`: detection, decoding, the model's checks, the runtime, the answer
//! and the request log). With `--log` the request log is written as the binary writes it (info,
//! logfmt, to stderr: send it to /dev/null), so the two runs compare what the log costs. Prints the wall time a round
//! trip; run it under `valgrind --tool=callgrind` or `perf record`. See docs/benchmarks.md,
//! "Profile of the SQS request path".
//!
//! ```text
//! cargo build --release --example sqs_profile
//! valgrind --tool=callgrind target/release/examples/sqs_profile 2000
//! valgrind --tool=callgrind target/release/examples/sqs_profile 2000 --log 2>/dev/null
//! valgrind --tool=callgrind target/release/examples/sqs_profile 2000 --log-off
//! ```

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use std::sync::Arc;
use switchyard::protocol;
use switchyard::runtime::Runtime;

/// One AWS JSON 1.0 SQS call as a client sends it; answers the JSON it got back.
async fn call(app: &Arc<Runtime>, operation: &str, input: &Value) -> Value {
    let request = Request::builder()
        .method("POST")
        .uri("/")
        .header("host", "127.0.0.1:4566")
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", format!("AmazonSQS.{operation}"))
        .header(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=test/20261201/us-east-1/sqs/aws4_request, \
             SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0",
        )
        .header("x-amz-date", "20261201T000000Z")
        .body(Body::from(input.to_string()))
        .expect("a valid request");
    let (parts, body) = request.into_parts();
    let response = protocol::handle(app.clone(), parts, body).await;
    assert_eq!(response.status(), 200, "{operation}");
    let bytes = response.into_body().collect().await.expect("a body");
    serde_json::from_slice(&bytes.to_bytes()).expect("JSON")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let round_trips: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(20_000);
    // `--log-off`: the same subscriber at `warn`, which writes no request line: the run to
    // compare `--log` with when the heap's layout (which moves malloc's counts by a few
    // thousand instructions a round trip) should be the same in both.
    let level = if args.iter().any(|a| a == "--log") {
        Some("info")
    } else if args.iter().any(|a| a == "--log-off") {
        Some("warn")
    } else {
        None
    };
    if let Some(level) = level {
        // As the binary installs it (src/main.rs).
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::util::SubscriberInitExt;
        tracing_subscriber::registry()
            .with(tracing_subscriber::EnvFilter::new(level))
            .with(switchyard::logfmt::LogfmtLayer::new(std::io::stderr()))
            .init();
    }
    let app = Runtime::new(switchyard::Config::for_tests());
    let created = call(&app, "CreateQueue", &json!({"QueueName": "bench"})).await;
    let url = created["QueueUrl"].as_str().expect("QueueUrl").to_string();
    let send = json!({"QueueUrl": url, "MessageBody": "hello"});
    let receive = json!({"QueueUrl": url, "MaxNumberOfMessages": 1});
    #[allow(clippy::disallowed_methods)] // wall time is what this example measures
    let started = std::time::Instant::now();
    for _ in 0..round_trips {
        call(&app, "SendMessage", &send).await;
        let received = call(&app, "ReceiveMessage", &receive).await;
        let handle = received["Messages"][0]["ReceiptHandle"]
            .as_str()
            .expect("a message");
        let delete = json!({"QueueUrl": url, "ReceiptHandle": handle});
        call(&app, "DeleteMessage", &delete).await;
    }
    let each = started.elapsed() / u32::try_from(round_trips.max(1)).unwrap_or(u32::MAX);
    println!("{round_trips} round trips, {each:?} each");
}
