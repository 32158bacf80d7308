//! Event streams (issue 8) on the manual clock through raw AWSEventsV2 requests and aws-sdk-sqs:
//! the two retry strategies, ErrorsTolerance ALL (DLQ or discard) and NONE (blocked, nothing
//! lost, restart in order), START_FAILED, SQS-source consumption and bus sources.

use crate::custom_bus::{ROLE, bus, drain, entry, put, queue, raw, subscriber, v2, v2_err};
use crate::harness::{Harness, no_hang};
use serde_json::{Value, json};
use switchyard::Config;

async fn exact() -> Harness {
    Harness::with(Config {
        jitter: false,
        ..Config::for_tests()
    })
    .await
}

pub async fn stream(h: &Harness, name: &str, source: &str, target: &str, extra: Value) -> String {
    let mut body = json!({
        "Name": name,
        "Source": source,
        "Target": { "TargetArn": target, "RoleArn": ROLE },
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let out = v2(h, "CreateEventStream", body).await;
    out["EventStreamArn"].as_str().unwrap().to_string()
}

async fn get(h: &Harness, arn: &str) -> Value {
    v2(h, "GetEventStream", json!({ "EventStreamArn": arn })).await
}

async fn fault(h: &Harness, target: &str, status: u16) -> String {
    let r = h
        .control_post("faults", json!({"target": target, "status": status}))
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_string()
}

async fn send(h: &Harness, url: &str, body: &str) {
    h.sqs()
        .send_message()
        .queue_url(url)
        .message_body(body)
        .send()
        .await
        .unwrap();
}

async fn bodies(h: &Harness, url: &str) -> Vec<String> {
    drain(h, url)
        .await
        .iter()
        .map(|m| m.body().unwrap().to_string())
        .collect()
}

/// (visible, not visible) messages of a queue.
async fn counts(h: &Harness, url: &str) -> (String, String) {
    use aws_sdk_sqs::types::QueueAttributeName as A;
    let out = h
        .sqs()
        .get_queue_attributes()
        .queue_url(url)
        .attribute_names(A::All)
        .send()
        .await
        .unwrap();
    let attrs = out.attributes().unwrap();
    (
        attrs[&A::ApproximateNumberOfMessages].clone(),
        attrs[&A::ApproximateNumberOfMessagesNotVisible].clone(),
    )
}

async fn log(h: &Harness, source: &str) -> Vec<Value> {
    let path = format!(
        "deliveries?source={}",
        source.replace(':', "%3A").replace('/', "%2F")
    );
    h.control_get(&path).await["records"]
        .as_array()
        .unwrap()
        .clone()
}

async fn metric(h: &Harness, name: &str, resource: &str) -> Option<u64> {
    let r = h.request("GET", "/_switchyard/metrics", &[], "").await;
    let want = format!(
        "switchyard_aws_metric_total{{namespace=\"AWS/Events\",metric=\"{name}\",resource=\"{resource}\"}} "
    );
    r.body
        .lines()
        .find_map(|l| l.strip_prefix(&want))
        .map(|n| n.parse().unwrap())
}

fn attempts(records: &[Value]) -> Vec<f64> {
    records
        .iter()
        .filter(|r| r["event"] == "attempt")
        .map(|r| r["delaySeconds"].as_f64().unwrap())
        .collect()
}

#[tokio::test]
async fn backoff_retry_makes_four_attempts_ten_to_twenty_seconds_apart_then_dead_letters() {
    let h = Harness::start().await;
    let (src_url, src) = queue(&h, "orders-in", &[]).await;
    let (_, target) = queue(&h, "orders-out", &[]).await;
    let (dlq_url, dlq) = queue(&h, "orders-dlq", &[]).await;
    fault(&h, &target, 500).await;
    let arn = stream(
        &h,
        "orders",
        &src,
        &target,
        json!({"RunOptions": {
            "RetryStrategy": {"PushRetryStrategy": "BACKOFF_RETRY"},
            "ErrorsTolerance": "ALL",
            "DeadLetterQueue": {"Arn": dlq},
        }}),
    )
    .await;
    assert_eq!(
        arn,
        "arn:aws:events:us-east-1:000000000000:event-stream/orders"
    );
    send(&h, &src_url, r#"{"order":1}"#).await;
    assert_eq!(get(&h, &arn).await["State"], "RUNNING");
    // While the stream retries, it holds the message past the queue's 30 s visibility timeout.
    h.advance(35.0).await;
    assert_eq!(counts(&h, &src_url).await, ("0".into(), "1".into()));
    assert!(drain(&h, &src_url).await.is_empty());
    h.advance(60.0).await;

    let records = log(&h, &arn).await;
    let delays = attempts(&records);
    assert_eq!(delays.len(), 4, "{records:?}");
    assert_eq!(delays[0], 0.0);
    for d in &delays[1..] {
        assert!((10.0..=20.0).contains(d), "{delays:?}");
    }
    let last = records.last().unwrap();
    assert_eq!(last["event"], "dead-lettered");
    assert_eq!(last["target"], dlq.as_str());
    assert_eq!(records[0]["protocol"], "sqs");
    assert_eq!(records[3]["nextAttemptAt"], Value::Null);
    // The DLQ gets the raw message body; the source message is consumed; the stream goes on.
    assert_eq!(bodies(&h, &dlq_url).await, [r#"{"order":1}"#]);
    assert_eq!(counts(&h, &src_url).await, ("0".into(), "0".into()));
    assert_eq!(get(&h, &arn).await["State"], "RUNNING");
    assert_eq!(metric(&h, "Invocations", &arn).await, Some(4));
    assert_eq!(metric(&h, "RetryInvocationAttempts", &arn).await, Some(3));
    assert_eq!(metric(&h, "InvocationsSentToDLQ", &arn).await, Some(1));
    assert_eq!(metric(&h, "FailedInvocations", &arn).await, Some(1));
}

#[tokio::test]
async fn exponential_decay_runs_its_whole_day_with_the_documented_intervals() {
    let h = Harness::start().await;
    let (src_url, src) = queue(&h, "decay-in", &[]).await;
    let (_, target) = queue(&h, "decay-out", &[]).await;
    fault(&h, &target, 503).await;
    let arn = stream(
        &h,
        "decay",
        &src,
        &target,
        json!({"RunOptions": {
            "RetryStrategy": {"PushRetryStrategy": "EXPONENTIAL_DECAY_RETRY"},
            "ErrorsTolerance": "ALL",
        }}),
    )
    .await;
    send(&h, &src_url, "tick").await;
    // A day of virtual time; no_hang fails the test if it takes 10 s of wall time.
    crate::harness::no_hang("a day of retries", h.advance(86_400.0)).await;

    let records = log(&h, &arn).await;
    let delays = attempts(&records);
    assert_eq!(delays.len(), 177, "1 attempt and 176 retries");
    let mut want = vec![0.0];
    want.extend((0..9).map(|n| f64::from(1u32 << n)));
    want.extend(std::iter::repeat_n(512.0, 167));
    assert_eq!(delays, want);
    assert_eq!(delays.iter().sum::<f64>(), 86_015.0);
    assert_eq!(records.last().unwrap()["event"], "discarded");
    assert_eq!(metric(&h, "EventsDropped", &arn).await, Some(1));
    assert_eq!(counts(&h, &src_url).await, ("0".into(), "0".into()));
}

#[tokio::test]
async fn errors_tolerance_none_blocks_the_stream_and_a_restart_delivers_everything_in_order() {
    let h = exact().await;
    let (src_url, src) = queue(&h, "ledger-in", &[]).await;
    let (out_url, target) = queue(&h, "ledger-out", &[]).await;
    let (dlq_url, dlq) = queue(&h, "ledger-dlq", &[]).await;
    let f = fault(&h, &target, 500).await;
    // NONE is the default; a DLQ is ignored under NONE.
    let arn = stream(
        &h,
        "ledger",
        &src,
        &target,
        json!({"RunOptions": {"DeadLetterQueue": {"Arn": dlq}}}),
    )
    .await;
    let got = get(&h, &arn).await;
    assert_eq!(
        got["RunOptions"],
        json!({"RetryStrategy": {"PushRetryStrategy": "BACKOFF_RETRY"}, "ErrorsTolerance": "NONE", "DeadLetterQueue": {"Arn": dlq}})
    );
    for n in 1..=3 {
        send(&h, &src_url, &format!("m{n}")).await;
    }
    // 4 attempts 15 s apart (jitter off), then the stream stops.
    h.advance(60.0).await;
    let got = get(&h, &arn).await;
    assert_eq!(got["State"], "READY", "{got}");
    let reason = got["StateReason"].as_str().unwrap();
    assert!(reason.contains("ErrorsTolerance is NONE"), "{reason}");
    let records = log(&h, &arn).await;
    assert_eq!(attempts(&records), [0.0, 15.0, 15.0, 15.0]);
    assert_eq!(records.last().unwrap()["event"], "blocked");
    // Nothing lost: all three messages are back in the source, the DLQ untouched.
    assert_eq!(counts(&h, &src_url).await, ("3".into(), "0".into()));
    assert!(drain(&h, &dlq_url).await.is_empty());
    // Stopped streams take nothing more.
    h.advance(600.0).await;
    assert_eq!(counts(&h, &src_url).await, ("3".into(), "0".into()));

    let r = h
        .request("DELETE", &format!("/_switchyard/faults/{f}"), &[], "")
        .await;
    assert!(r.status < 300, "{}", r.body);
    let started = v2(&h, "StartEventStream", json!({ "EventStreamArn": arn })).await;
    assert_eq!(started["State"], "STARTING");
    let got = get(&h, &arn).await;
    assert_eq!(got["State"], "RUNNING");
    assert!(got.get("StateReason").is_none());
    assert_eq!(bodies(&h, &out_url).await, ["m1", "m2", "m3"]);
    assert_eq!(counts(&h, &src_url).await, ("0".into(), "0".into()));
}

#[tokio::test]
async fn a_missing_target_gives_start_failed_whatever_the_policies() {
    let h = exact().await;
    let (src_url, src) = queue(&h, "in", &[]).await;
    let missing = "arn:aws:sqs:us-east-1:000000000000:not-there";
    let arn = stream(
        &h,
        "broken",
        &src,
        missing,
        json!({"RunOptions": {"ErrorsTolerance": "ALL"}}),
    )
    .await;
    let got = get(&h, &arn).await;
    assert_eq!(got["State"], "START_FAILED");
    assert!(
        got["StateReason"].as_str().unwrap().contains(missing),
        "{got}"
    );
    send(&h, &src_url, "kept").await;
    assert_eq!(counts(&h, &src_url).await, ("1".into(), "0".into()));

    // Once the target exists, a start goes on from the source as it is.
    let (out_url, _) = queue(&h, "not-there", &[]).await;
    v2(&h, "StartEventStream", json!({ "EventStreamArn": arn })).await;
    assert_eq!(get(&h, &arn).await["State"], "RUNNING");
    assert_eq!(bodies(&h, &out_url).await, ["kept"]);

    // A target deleted while running: not retried, the event stays in the source.
    h.sqs()
        .delete_queue()
        .queue_url(&out_url)
        .send()
        .await
        .unwrap();
    send(&h, &src_url, "again").await;
    let got = get(&h, &arn).await;
    assert_eq!(got["State"], "START_FAILED", "{got}");
    assert!(
        got["StateReason"]
            .as_str()
            .unwrap()
            .contains("retrying cannot fix")
    );
    let records = log(&h, &arn).await;
    let last: Vec<&Value> = records.iter().rev().take(2).collect();
    assert_eq!(last[0]["event"], "blocked");
    assert_eq!(last[1]["outcome"], "permanent");
    assert_eq!(counts(&h, &src_url).await, ("1".into(), "0".into()));
    // A missing dead-letter queue fails the start too.
    let (_, t2) = queue(&h, "t2", &[]).await;
    let arn2 = stream(
        &h,
        "no-dlq",
        &src,
        &t2,
        json!({"RunOptions": {"ErrorsTolerance": "ALL", "DeadLetterQueue": {"Arn": "arn:aws:sqs:us-east-1:000000000000:gone"}}}),
    )
    .await;
    let got = get(&h, &arn2).await;
    assert_eq!(got["State"], "START_FAILED");
    assert!(got["StateReason"].as_str().unwrap().contains("Dead-letter"));
}

#[tokio::test]
async fn bad_input_gets_aws_style_errors() {
    let h = Harness::start().await;
    let (_, src) = queue(&h, "src", &[]).await;
    let (_, target) = queue(&h, "dst", &[]).await;
    let body = |name: &str, source: &str, target: &str| json!({"Name": name, "Source": source, "Target": {"TargetArn": target, "RoleArn": ROLE}});
    let missing = "arn:aws:sqs:us-east-1:000000000000:nope";
    let (status, code, message) =
        v2_err(&h, "CreateEventStream", body("a", missing, &target)).await;
    assert_eq!((status, code.as_str()), (400, "ResourceNotFoundException"));
    assert!(message.contains(missing), "{message}");
    let (_, code, message) = v2_err(
        &h,
        "CreateEventStream",
        body("a", "arn:aws:s3:::bucket", &target),
    )
    .await;
    assert_eq!(code, "ValidationException");
    assert!(
        message.contains("Parameter Source is not valid"),
        "{message}"
    );
    let (_, code, message) = v2_err(&h, "CreateEventStream", body("a b", &src, &target)).await;
    assert_eq!(code, "ValidationException");
    assert!(
        message.starts_with("1 validation error detected: Value 'a b' at 'name'"),
        "{message}"
    );
    let (_, code, _) = v2_err(&h, "CreateEventStream", body("a", &src, &src)).await;
    assert_eq!(code, "ValidationException");
    let mut bad = body("a", &src, &target);
    bad["RunOptions"] = json!({"RetryStrategy": {"PushRetryStrategy": "BACKOFFRETRY"}});
    let (_, code, message) = v2_err(&h, "CreateEventStream", bad).await;
    assert_eq!(code, "ValidationException");
    assert!(
        message.contains("'runOptions.retryStrategy.pushRetryStrategy'")
            && message.contains("[BACKOFF_RETRY, EXPONENTIAL_DECAY_RETRY]"),
        "{message}"
    );
    let mut bad = body("a", &src, &target);
    bad["RunOptions"] = json!({"ErrorsTolerance": "SOME"});
    assert_eq!(
        v2_err(&h, "CreateEventStream", bad).await.1,
        "ValidationException"
    );
    let mut bad = body("a", &src, &target);
    bad["FilterPattern"] = json!("{\"detail\": 5}");
    assert_eq!(
        v2_err(&h, "CreateEventStream", bad).await.1,
        "ValidationException"
    );
    let mut bad = body("a", &src, &target);
    bad["RunOptions"] = json!({"DeadLetterQueue": {"Arn": "arn:aws:sns:us-east-1:000000000000:t"}});
    assert_eq!(
        v2_err(&h, "CreateEventStream", bad).await.1,
        "ValidationException"
    );
    let no_target = json!({"Name": "a", "Source": src});
    assert_eq!(
        v2_err(&h, "CreateEventStream", no_target).await.1,
        "ValidationException"
    );

    v2(&h, "CreateEventStream", body("a", &src, &target)).await;
    let (_, code, _) = v2_err(&h, "CreateEventStream", body("a", &src, &target)).await;
    assert_eq!(code, "ResourceAlreadyExistsException");
    let ghost =
        json!({"EventStreamArn": "arn:aws:events:us-east-1:000000000000:event-stream/ghost"});
    for op in [
        "GetEventStream",
        "StartEventStream",
        "StopEventStream",
        "DeleteEventStream",
        "UpdateEventStream",
    ] {
        let (_, code, _) = v2_err(&h, op, ghost.clone()).await;
        assert_eq!(code, "ResourceNotFoundException", "{op}");
    }
    let (_, code, _) = v2_err(&h, "ListEventStreams", json!({"MaxResults": 0})).await;
    assert_eq!(code, "ValidationException");
}

#[tokio::test]
async fn a_bus_source_is_filtered_and_dead_letters_raw_events_to_another_bus() {
    let h = exact().await;
    let source = bus(&h, "shop").await;
    let dlq_bus = bus(&h, "failures").await;
    let (out_url, target) = queue(&h, "big-orders", &[]).await;
    let (dead_url, dead_q) = queue(&h, "failures-q", &[]).await;
    subscriber(&h, "collect", &dlq_bus, &dead_q, json!({})).await;
    put(&h, &source, json!([entry(json!({"total": 500}), None)])).await;
    let arn = stream(
        &h,
        "big",
        &source,
        &target,
        json!({
            "FilterPattern": "{\"detail\":{\"total\":[{\"numeric\":[\">\",100]}]}}",
            "Description": "large orders",
        }),
    )
    .await;
    put(
        &h,
        &source,
        json!([
            entry(json!({"total": 5}), None),
            entry(json!({"total": 150}), None)
        ]),
    )
    .await;
    // Only the event put after the stream started and matching its pattern.
    let got = drain(&h, &out_url).await;
    assert_eq!(got.len(), 1);
    let event: Value = serde_json::from_str(got[0].body().unwrap()).unwrap();
    assert_eq!(event["detail"], json!({"total": 150}));
    assert_eq!(event["source"], "com.example.orders");

    // ALL with an event-bus DLQ: the raw event is put on that bus.
    v2(
        &h,
        "UpdateEventStream",
        json!({"EventStreamArn": arn, "RunOptions": {"ErrorsTolerance": "ALL", "DeadLetterQueue": {"Arn": dlq_bus}}}),
    )
    .await;
    fault(&h, &target, 500).await;
    put(&h, &source, json!([entry(json!({"total": 999}), None)])).await;
    h.advance(60.0).await;
    let records = log(&h, &arn).await;
    assert_eq!(records.last().unwrap()["event"], "dead-lettered");
    let dead = drain(&h, &dead_url).await;
    assert_eq!(dead.len(), 1);
    let event: Value = serde_json::from_str(dead[0].body().unwrap()).unwrap();
    assert_eq!(event["detail"], json!({"total": 999}));

    let listed = v2(&h, "ListEventStreams", json!({"NamePrefix": "bi"})).await;
    let list = listed["EventStreams"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["TargetArn"], target.as_str());
    assert_eq!(list[0]["Description"], "large orders");
    assert_eq!(list[0]["State"], "RUNNING");
    let (_, code, _) = v2_err(&h, "DeleteEventBus", json!({"EventBusArn": source})).await;
    assert_eq!(code, "ResourceInUseException");
}

#[tokio::test]
async fn stop_hands_the_message_back_and_start_resumes_with_it() {
    let h = exact().await;
    let (src_url, src) = queue(&h, "s-in", &[]).await;
    let (out_url, target) = queue(&h, "s-out", &[]).await;
    let f = fault(&h, &target, 500).await;
    let arn = stream(&h, "stoppable", &src, &target, json!({})).await;
    send(&h, &src_url, "one").await;
    h.advance(20.0).await;
    assert_eq!(counts(&h, &src_url).await, ("0".into(), "1".into()));
    let stopped = v2(&h, "StopEventStream", json!({ "EventStreamArn": arn })).await;
    assert_eq!(stopped["State"], "READY");
    assert_eq!(counts(&h, &src_url).await, ("1".into(), "0".into()));
    h.advance(100.0).await;
    let n = attempts(&log(&h, &arn).await).len();
    assert_eq!(n, 2, "no attempt after the stop");
    h.request("DELETE", &format!("/_switchyard/faults/{f}"), &[], "")
        .await;
    v2(&h, "StartEventStream", json!({ "EventStreamArn": arn })).await;
    h.advance(0.0).await;
    assert_eq!(bodies(&h, &out_url).await, ["one"]);
    v2(&h, "DeleteEventStream", json!({ "EventStreamArn": arn })).await;
    let listed = v2(&h, "ListEventStreams", json!({})).await;
    assert_eq!(listed["EventStreams"], json!([]));
    let r = raw(&h, "GetEventStream", json!({ "EventStreamArn": arn })).await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn delayed_and_later_messages_are_picked_up_when_they_become_visible() {
    let h = exact().await;
    let (src_url, src) = queue(&h, "late-in", &[("DelaySeconds", "30")]).await;
    let (out_url, target) = queue(&h, "late-out", &[]).await;
    stream(&h, "late", &src, &target, json!({})).await;
    send(&h, &src_url, "delayed").await;
    h.advance(29.0).await;
    assert!(drain(&h, &out_url).await.is_empty());
    h.advance(1.0).await;
    assert_eq!(bodies(&h, &out_url).await, ["delayed"]);
}

#[tokio::test]
async fn a_stream_that_feeds_its_own_source_stops_instead_of_hanging() {
    let h = exact().await;
    let (src_url, src) = queue(&h, "looped", &[]).await;
    let topic = h
        .sns()
        .create_topic()
        .name("back")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    h.sns()
        .subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(&src)
        .attributes("RawMessageDelivery", "true")
        .send()
        .await
        .unwrap();
    let arn = stream(&h, "loop", &src, &topic, json!({})).await;
    assert_eq!(get(&h, &arn).await["State"], "RUNNING");
    no_hang("a looping stream", send(&h, &src_url, "round and round")).await;
    no_hang("advancing past it", h.advance(1.0)).await;
    let got = get(&h, &arn).await;
    assert_eq!(got["State"], "READY", "{got}");
    assert!(
        got["StateReason"].as_str().unwrap().contains("(a loop)"),
        "{got}"
    );
    // Nothing is lost: the message is still in its queue.
    let (visible, in_flight) = counts(&h, &src_url).await;
    assert_eq!((visible.as_str(), in_flight.as_str()), ("1", "0"));
}
