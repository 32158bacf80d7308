//! PutEvents without HTTP, for profilers: ten events a request put straight into the state (the
//! call the runtime makes under its lock), on a bus with ten rules of which two match, each with
//! an SQS target. Prints the wall time a request; run it under `valgrind --tool=callgrind` or
//! `perf record` to see where a PutEvents goes. See docs/benchmarks.md.
//!
//! ```text
//! cargo build --release --example put_events_profile
//! valgrind --tool=callgrind target/release/examples/put_events_profile 300
//! ```

use serde_json::json;
use switchyard::dispatch::Dispatch;
use switchyard::services::{Context, ServiceId};

#[tokio::main]
async fn main() {
    let requests: usize = match std::env::args().nth(1) {
        Some(n) => n.parse().expect("the number of requests"),
        None => 20_000,
    };
    let emulator = switchyard::Emulator::start(switchyard::Config::for_tests())
        .await
        .expect("the emulator starts");
    let runtime = emulator.app().clone();
    let cx = Context {
        request_id: "profile".into(),
        account: "000000000000".into(),
        region: "us-east-1".into(),
        access_key: None,
        host: "localhost".into(),
        queue_url_style: Default::default(),
        trace_header: None,
    };
    let call = |service, operation: &str, input: serde_json::Value| {
        let answer = runtime.state().call(&cx, service, operation, input);
        answer.unwrap_or_else(|e| panic!("{operation}: {e:?}"))
    };
    call(
        ServiceId::Sqs,
        "CreateQueue",
        json!({"QueueName": "events"}),
    );
    for i in 0..10 {
        let source = if i < 2 { "bench" } else { "other" };
        let pattern = json!({"source": [source], "detail": {"n": [{"numeric": [">=", 0]}]}});
        let rule = format!("r{i}");
        call(
            ServiceId::Events,
            "PutRule",
            json!({"Name": rule, "EventPattern": pattern.to_string()}),
        );
        let target = json!({"Id": "q", "Arn": "arn:aws:sqs:us-east-1:000000000000:events"});
        call(
            ServiceId::Events,
            "PutTargets",
            json!({"Rule": rule, "Targets": [target]}),
        );
    }
    let entry = json!({"Source": "bench", "DetailType": "tick", "Detail": r#"{"n":1}"#});
    let input = json!({ "Entries": vec![entry; 10] });
    #[allow(clippy::disallowed_methods)] // wall time is what this example measures
    let started = std::time::Instant::now();
    for _ in 0..requests {
        call(ServiceId::Events, "PutEvents", input.clone());
    }
    let per_request = started.elapsed().as_secs_f64() * 1e6 / requests as f64;
    println!("{per_request:.1} µs a PutEvents of 10 events (20 deliveries)");
}
