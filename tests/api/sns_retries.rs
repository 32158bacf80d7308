//! SNS delivery policies (issue 5) proven on the manual clock with jitter off: the seed example
//! policy's 51 attempts at their documented times, permanent failures, the AWS-managed SQS
//! schedule over 23 virtual days, the e-mail schedule, and throttling.

use crate::harness::Harness;
use crate::sns_http::Subscriber;
use serde_json::{Value, json};
use switchyard::Config;
use switchyard::services::sns::delivery_policy::{Schedule, schedule_for, simulate};

const EXAMPLE_POLICY: &str = r#"{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":60,"numRetries":50,"numNoDelayRetries":3,"numMinDelayRetries":2,"numMaxDelayRetries":35,"backoffFunction":"exponential"}}"#;

async fn exact() -> Harness {
    Harness::with(Config {
        jitter: false,
        ..Config::for_tests()
    })
    .await
}

/// A topic, a DLQ and its URL.
pub(crate) async fn topic_and_dlq(h: &Harness) -> (String, String) {
    let topic = h
        .sns()
        .create_topic()
        .name("orders")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let dlq = h
        .sqs()
        .create_queue()
        .queue_name("dlq")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    (topic, dlq)
}

pub(crate) fn redrive() -> String {
    json!({"deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:dlq"}).to_string()
}

/// Subscribes the endpoint with `policy` and the DLQ, and confirms it through SubscribeURL.
async fn confirmed_http(h: &Harness, topic: &str, hook: &Subscriber, policy: &str) -> String {
    h.sns()
        .subscribe()
        .topic_arn(topic)
        .protocol("http")
        .endpoint(&hook.url)
        .attributes("DeliveryPolicy", policy)
        .attributes("RedrivePolicy", redrive())
        .send()
        .await
        .unwrap();
    hook.confirm(h).await;
    let subs = h
        .sns()
        .list_subscriptions_by_topic()
        .topic_arn(topic)
        .send()
        .await
        .unwrap();
    subs.subscriptions.unwrap()[0]
        .subscription_arn
        .clone()
        .unwrap()
}

async fn records(h: &Harness, query: &str) -> Vec<Value> {
    h.control_get(&format!("deliveries?{query}")).await["records"]
        .as_array()
        .unwrap()
        .clone()
}

async fn dlq_bodies(h: &Harness, dlq: &str) -> Vec<String> {
    let got = h
        .sqs()
        .receive_message()
        .queue_url(dlq)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    got.messages
        .unwrap_or_default()
        .into_iter()
        .map(|m| m.body.unwrap())
        .collect()
}

fn millis(time: &Value) -> i64 {
    let text = time.as_str().unwrap();
    let t: chrono_free::Instant = text.parse().unwrap();
    t.0
}

/// RFC 3339 with milliseconds, parsed without the server's code.
mod chrono_free {
    pub struct Instant(pub i64);
    impl std::str::FromStr for Instant {
        type Err = ();
        fn from_str(s: &str) -> Result<Self, ()> {
            // 2026-11-30T07:00:00.000Z
            let n =
                |r: std::ops::Range<usize>| s.get(r).and_then(|x| x.parse::<i64>().ok()).ok_or(());
            let (y, mo, d, h, mi, sec, ms) = (
                n(0..4)?,
                n(5..7)?,
                n(8..10)?,
                n(11..13)?,
                n(14..16)?,
                n(17..19)?,
                n(20..23)?,
            );
            let y2 = if mo <= 2 { y - 1 } else { y };
            let era = y2.div_euclid(400);
            let yoe = y2 - era * 400;
            let doy = (153 * (if mo > 2 { mo - 3 } else { mo + 9 }) + 2) / 5 + d - 1;
            let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
            Ok(Instant(
                ((days * 24 + h) * 60 + mi) * 60_000 + sec * 1000 + ms,
            ))
        }
    }
}

#[tokio::test]
async fn the_example_policy_makes_51_attempts_at_the_documented_times_then_dead_letters() {
    let h = exact().await;
    let (topic, dlq) = topic_and_dlq(&h).await;
    let hook = Subscriber::start().await;
    let sub = confirmed_http(&h, &topic, &hook, EXAMPLE_POLICY).await;
    hook.answer(503);
    let id = h
        .sns()
        .publish()
        .topic_arn(&topic)
        .message("order 1")
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    h.advance(3600.0).await;

    assert_eq!(hook.take().len(), 51, "the first attempt and 50 retries");
    let attempts = records(&h, &format!("source={sub}&event=attempt&messageId={id}")).await;
    assert_eq!(attempts.len(), 51);
    let expected = simulate(&schedule_for("http", Some(EXAMPLE_POLICY)).unwrap());
    let first = millis(&attempts[0]["at"]);
    for (record, want) in attempts.iter().zip(&expected) {
        assert_eq!(record["attempt"], want.attempt);
        assert_eq!(record["phase"], want.phase);
        assert_eq!(record["outcome"], "retryable");
        assert_eq!(record["status"], 503);
        let since = (millis(&record["at"]) - first) as f64 / 1000.0;
        assert!(
            (since - want.since_first_seconds).abs() < 0.0015,
            "attempt {}: {since} vs {}",
            want.attempt,
            want.since_first_seconds
        );
        assert!((record["delaySeconds"].as_f64().unwrap() - want.delay_seconds).abs() < 0.0015);
    }
    assert_eq!(attempts[50]["nextAttemptAt"], Value::Null);
    let dead = records(&h, &format!("source={sub}&event=dead-lettered")).await;
    assert_eq!(dead.len(), 1);
    let bodies = dlq_bodies(&h, &dlq).await;
    assert_eq!(bodies.len(), 1);
    let envelope: Value = serde_json::from_str(&bodies[0]).unwrap();
    assert_eq!(envelope["Message"], "order 1");
}

#[tokio::test]
async fn a_permanent_failure_is_tried_once_and_dead_lettered() {
    let h = exact().await;
    let (topic, dlq) = topic_and_dlq(&h).await;
    let hook = Subscriber::start().await;
    let sub = confirmed_http(&h, &topic, &hook, EXAMPLE_POLICY).await;
    hook.answer(400);
    let id = h
        .sns()
        .publish()
        .topic_arn(&topic)
        .message("bad request")
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    h.advance(3600.0).await;
    assert_eq!(hook.take().len(), 1);
    let attempts = records(&h, &format!("source={sub}&event=attempt&messageId={id}")).await;
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0]["outcome"], "permanent");
    assert_eq!(dlq_bodies(&h, &dlq).await.len(), 1);
}

#[tokio::test]
async fn an_sqs_subscription_runs_the_whole_aws_managed_schedule() {
    let h = exact().await;
    let (topic, dlq) = topic_and_dlq(&h).await;
    h.sqs()
        .create_queue()
        .queue_name("target")
        .send()
        .await
        .unwrap();
    let target = "arn:aws:sqs:us-east-1:000000000000:target";
    h.sns()
        .subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(target)
        .attributes("RedrivePolicy", redrive())
        .send()
        .await
        .unwrap();
    let fault = h
        .control_post("faults", json!({"target": target, "status": 500}))
        .await;
    assert_eq!(fault.status, 201);
    h.sns()
        .publish()
        .topic_arn(&topic)
        .message("long haul")
        .send()
        .await
        .unwrap();
    h.advance(24.0 * 86_400.0).await;

    let metrics = h.request("GET", "/_switchyard/metrics", &[], "").await.body;
    let want = Schedule::AWS_MANAGED.num_retries + 1;
    assert!(
        metrics.contains(&format!("switchyard_deliveries_total{{service=\"sns\",event=\"attempt\",outcome=\"retryable\"}} {want}\n")),
        "{metrics}"
    );
    let dead = records(&h, "event=dead-lettered").await;
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0]["attempt"], want);
    let started = Schedule::AWS_MANAGED.total_ms() as f64 / 86_400_000.0;
    assert!((23.0..23.2).contains(&started));
    assert_eq!(dlq_bodies(&h, &dlq).await.len(), 1);
}

#[tokio::test]
async fn an_email_subscription_gets_fifty_retries_over_hours() {
    let h = exact().await;
    let (topic, _) = topic_and_dlq(&h).await;
    h.sns()
        .subscribe()
        .topic_arn(&topic)
        .protocol("email")
        .endpoint("ops@example.com")
        .send()
        .await
        .unwrap();
    let outbox = h.control_get("outbox").await;
    let token = outbox["messages"][0]["attributes"]["Token"]
        .as_str()
        .unwrap()
        .to_string();
    h.sns()
        .confirm_subscription()
        .topic_arn(&topic)
        .token(token)
        .send()
        .await
        .unwrap();
    h.request("DELETE", "/_switchyard/outbox", &[], "").await;
    let fault = h
        .control_post(
            "faults",
            json!({"target": "ops@example.com", "status": 500}),
        )
        .await;
    assert_eq!(fault.status, 201);
    let id = h
        .sns()
        .publish()
        .topic_arn(&topic)
        .message("alert")
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    h.advance(8.0 * 3600.0).await;
    let attempts = records(&h, &format!("event=attempt&messageId={id}")).await;
    assert_eq!(attempts.len(), 51);
    let hours = (millis(&attempts[50]["at"]) - millis(&attempts[0]["at"])) as f64 / 3_600_000.0;
    assert!(hours > 6.0, "{hours}");
    assert_eq!(records(&h, "event=discarded").await.len(), 1);
}

#[tokio::test]
async fn throttling_spreads_deliveries_without_counting_retries() {
    let h = exact().await;
    let (topic, _) = topic_and_dlq(&h).await;
    let hook = Subscriber::start().await;
    let policy = r#"{"throttlePolicy":{"maxReceivesPerSecond":10}}"#;
    let sub = confirmed_http(&h, &topic, &hook, policy).await;
    h.request("DELETE", "/_switchyard/deliveries", &[], "")
        .await;
    for i in 0..100 {
        h.sns()
            .publish()
            .topic_arn(&topic)
            .message(format!("m{i}"))
            .send()
            .await
            .unwrap();
    }
    h.advance(20.0).await;
    assert_eq!(hook.take().len(), 100);
    let attempts = records(&h, &format!("source={sub}&event=attempt")).await;
    assert_eq!(attempts.len(), 100);
    assert!(
        attempts
            .iter()
            .all(|r| r["attempt"] == 1 && r["outcome"] == "delivered"),
        "none is a retry"
    );
    let first = millis(&attempts[0]["at"]);
    let spread = (millis(&attempts[99]["at"]) - first) as f64 / 1000.0;
    assert!((9.0..=10.0).contains(&spread), "{spread}");
    assert_eq!(
        records(&h, &format!("source={sub}&event=throttled"))
            .await
            .len(),
        99
    );
}

#[tokio::test]
async fn a_fifo_message_being_retried_holds_back_its_group_only() {
    let h = exact().await;
    let sns = h.sns();
    let topic = sns
        .create_topic()
        .name("jobs.fifo")
        .attributes("FifoTopic", "true")
        .attributes("ContentBasedDeduplication", "true")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let queue = h
        .sqs()
        .create_queue()
        .queue_name("jobs.fifo")
        .attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let arn = "arn:aws:sqs:us-east-1:000000000000:jobs.fifo";
    sns.subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(arn)
        .attributes("RawMessageDelivery", "true")
        .send()
        .await
        .unwrap();
    // Four failures: three immediate retries, then the fourth retry waits 1 s (pre-backoff).
    let fault = h
        .control_post("faults", json!({"target": arn, "status": 500, "count": 4}))
        .await;
    assert_eq!(fault.status, 201);
    for (body, group) in [("a1", "a"), ("b1", "b"), ("a2", "a")] {
        sns.publish()
            .topic_arn(&topic)
            .message(body)
            .message_group_id(group)
            .send()
            .await
            .unwrap();
    }
    let receive = || async {
        let got = h
            .sqs()
            .receive_message()
            .queue_url(&queue)
            .max_number_of_messages(10)
            .send()
            .await
            .unwrap();
        let messages = got.messages.unwrap_or_default();
        for m in &messages {
            h.sqs()
                .delete_message()
                .queue_url(&queue)
                .receipt_handle(m.receipt_handle.clone().unwrap())
                .send()
                .await
                .unwrap();
        }
        messages
            .into_iter()
            .map(|m| m.body.unwrap())
            .collect::<Vec<_>>()
    };
    // a1 is still being retried: a2 waits behind it; group b is not held back.
    assert_eq!(receive().await, ["b1"]);
    h.advance(1.0).await;
    assert_eq!(receive().await, ["a1", "a2"]);
}
