//! `GET /_switchyard/deliveries/timeline`, the delivery log summed up in lanes and bins (the
//! console draws its timeline from it): SNS's AWS-managed schedule of an SQS subscription, 100,016
//! attempts over 23 virtual days, summed up whole, then refined down to single attempts by a
//! narrower window; a schedule whose start fell out of the bounded log; bad input.

use crate::harness::Harness;
use crate::sns_retries::{redrive, topic_and_dlq};
use serde_json::{Value, json};
use switchyard::Config;
use switchyard::engine::time::{format_rfc3339, parse_rfc3339};
use switchyard::services::sns::delivery_policy::{Schedule, simulate};

const TARGET: &str = "arn:aws:sqs:us-east-1:000000000000:target";

/// A topic whose SQS subscription meets a fault on its queue, and a DLQ; publishes one message.
/// Returns the subscription ARN and the message id.
async fn failing_sqs_subscription(h: &Harness) -> (String, String) {
    let (topic, _) = topic_and_dlq(h).await;
    h.sqs()
        .create_queue()
        .queue_name("target")
        .send()
        .await
        .unwrap();
    let sub = h
        .sns()
        .subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(TARGET)
        .attributes("RedrivePolicy", redrive())
        .return_subscription_arn(true)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    let fault = h
        .control_post("faults", json!({"target": TARGET, "status": 500}))
        .await;
    assert_eq!(fault.status, 201);
    let id = h
        .sns()
        .publish()
        .topic_arn(&topic)
        .message("long haul")
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    (sub, id)
}

async fn timeline(h: &Harness, query: &str) -> Value {
    h.control_get(&format!("deliveries/timeline?{query}")).await
}

fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn millis(v: &Value) -> i64 {
    parse_rfc3339(v.as_str().unwrap()).unwrap()
}

/// The records of each phase (or ending event) over every bin of the lane.
fn counts_by_phase(lane: &Value) -> Vec<(String, u64)> {
    let mut counts: Vec<(String, u64)> = Vec::new();
    for kind in lane["bins"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["kinds"].as_array().unwrap())
    {
        let name = match kind["event"].as_str().unwrap() {
            "attempt" => kind["phase"].as_str().unwrap(),
            other => other,
        };
        match counts.iter_mut().find(|(n, _)| n == name) {
            Some((_, c)) => *c += kind["count"].as_u64().unwrap(),
            None => counts.push((name.to_string(), kind["count"].as_u64().unwrap())),
        }
    }
    counts
}

#[tokio::test]
async fn the_23_day_schedule_is_summed_up_whole_and_refines_when_zoomed() {
    // A log large enough for the whole schedule (100,016 attempts and the dead letter).
    let h = Harness::with(Config {
        jitter: false,
        delivery_log_size: 200_000,
        ..Config::for_tests()
    })
    .await;
    let (sub, id) = failing_sqs_subscription(&h).await;
    let published = h.control_get("clock").await["epochMillis"]
        .as_i64()
        .unwrap();
    h.advance(24.0 * 86_400.0).await;

    let whole = timeline(&h, &format!("source={}&bins=100", enc(&sub))).await;
    assert_eq!(whole["lanesTotal"], 1, "{}", whole["lanes"]);
    let lane = &whole["lanes"][0];
    assert_eq!(lane["messageId"], id.as_str());
    assert_eq!(lane["target"], TARGET);
    assert_eq!(lane["attempts"], 100_016);
    assert_eq!(lane["records"], 100_017);
    assert_eq!(lane["droppedAttempts"], 0);
    assert_eq!(
        (whole["evicted"].as_u64(), whole["capacity"].as_u64()),
        (Some(0), Some(200_000))
    );
    assert_eq!(
        counts_by_phase(lane),
        [
            ("initial".to_string(), 1),
            ("immediate".to_string(), 3),
            ("pre-backoff".to_string(), 2),
            ("backoff".to_string(), 10),
            ("post-backoff".to_string(), 100_000),
            ("dead-lettered".to_string(), 1),
        ]
    );
    // The ends: the first attempt when the message was published, the last 23 days later, then
    // the dead-letter write.
    let (first, last) = (&lane["firstAttempt"], &lane["lastAttempt"]);
    assert_eq!(
        (first["attempt"].as_u64(), first["phase"].as_str()),
        (Some(1), Some("initial"))
    );
    assert_eq!(millis(&first["at"]), published);
    let total = Schedule::AWS_MANAGED.total_ms();
    assert!((23 * 86_400_000..24 * 86_400_000).contains(&total));
    assert_eq!(millis(&last["at"]) - published, total);
    assert_eq!(
        (last["attempt"].as_u64(), last["phase"].as_str()),
        (Some(100_016), Some("post-backoff"))
    );
    assert_eq!(last["nextAttemptAt"], Value::Null);
    let ending = &lane["ending"];
    assert_eq!(
        (ending["event"].as_str(), ending["attempt"].as_u64()),
        (Some("dead-lettered"), Some(100_016))
    );
    assert_eq!(ending["at"], last["at"]);
    // The window is the schedule's: 100 bins of about 5.6 hours, every one holding retries every
    // 20 s, far too many to list.
    assert_eq!(
        (millis(&whole["from"]), millis(&whole["to"])),
        (published, published + total)
    );
    assert_eq!(
        (whole["inWindow"].as_u64(), whole["exact"].as_bool()),
        (Some(100_017), Some(false))
    );
    let bins = lane["bins"].as_array().unwrap();
    assert_eq!(bins.len(), 100);
    assert!(
        bins.iter()
            .all(|b| b["count"].as_u64().unwrap() > 900 && b["records"] == json!([]))
    );
    assert_eq!(bins[0]["first"], first["at"]);
    assert_eq!(bins[99]["last"], ending["at"]);

    // Zoomed into the first 10 seconds: bins of 100 ms, every attempt listed at its time.
    let to = format_rfc3339(published + 10_000);
    let zoom = timeline(
        &h,
        &format!(
            "source={}&bins=100&from={}&to={to}",
            enc(&sub),
            enc(first["at"].as_str().unwrap())
        ),
    )
    .await;
    let lane = &zoom["lanes"][0];
    let expected: Vec<(f64, &str)> = simulate(&Schedule::AWS_MANAGED)
        .into_iter()
        .take_while(|a| a.since_first_seconds <= 10.0)
        .map(|a| (a.since_first_seconds, a.phase))
        .collect();
    assert!(expected.len() > 6 && expected.len() < 16, "{expected:?}");
    assert_eq!(zoom["exact"], true);
    assert_eq!(zoom["inWindow"].as_u64(), Some(expected.len() as u64));
    assert_eq!(
        lane["after"].as_u64(),
        Some(100_017 - expected.len() as u64)
    );
    let listed: Vec<(f64, String)> = lane["bins"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["records"].as_array().unwrap().clone())
        .map(|r| {
            (
                (millis(&r["at"]) - published) as f64 / 1000.0,
                r["phase"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(f64, String)> = expected
        .into_iter()
        .map(|(s, p)| (s, p.to_string()))
        .collect();
    assert_eq!(listed, expected);
    // The first attempt and its three immediate retries share the first bin; each later attempt
    // has one of its own.
    let bins = lane["bins"].as_array().unwrap();
    assert_eq!(bins[0]["index"], 0);
    assert_eq!(bins[0]["count"], 4);
    assert!(bins[1..].iter().all(|b| b["count"] == 1));

    // A logarithmic axis over the whole schedule: the first milliseconds and the last days in
    // one answer, the early attempts in bins of their own.
    let log = timeline(&h, &format!("source={}&bins=200&scale=log", enc(&sub))).await;
    let bins = log["lanes"][0]["bins"].as_array().unwrap();
    assert_eq!(log["scale"], "log");
    assert_eq!(
        bins.iter()
            .map(|b| b["count"].as_u64().unwrap())
            .sum::<u64>(),
        100_017
    );
    assert_eq!(bins.last().unwrap()["index"], 199);
    let singles = bins
        .iter()
        .filter(|b| b["count"] == 1 && b["records"].as_array().unwrap().len() == 1);
    assert!(singles.count() >= 10, "{bins:?}");

    // The documented log stays as it was: the newest 1000 records.
    let records = h
        .control_get(&format!("deliveries?source={}", enc(&sub)))
        .await;
    assert_eq!(records["records"].as_array().unwrap().len(), 1000);
}

#[tokio::test]
async fn a_schedule_whose_start_left_the_log_says_how_many_attempts_went() {
    let h = Harness::with(Config {
        jitter: false,
        delivery_log_size: 50,
        ..Config::for_tests()
    })
    .await;
    let (sub, _) = failing_sqs_subscription(&h).await;
    h.advance(3600.0).await;
    let t = timeline(&h, &format!("source={}", enc(&sub))).await;
    let lane = &t["lanes"][0];
    let (kept, dropped) = (
        lane["attempts"].as_u64().unwrap(),
        lane["droppedAttempts"].as_u64().unwrap(),
    );
    assert_eq!(kept, 50);
    // Those an SQS subscription makes in its first hour.
    let made = simulate(&Schedule::AWS_MANAGED)
        .iter()
        .filter(|a| a.since_first_seconds <= 3600.0)
        .count() as u64;
    assert_eq!(kept + dropped, made);
    assert_eq!(lane["firstAttempt"]["attempt"].as_u64(), Some(dropped + 1));
    assert_eq!(t["evicted"].as_u64(), Some(dropped));
    assert_eq!(t["capacity"], 50);
}

#[tokio::test]
async fn bad_timeline_queries_are_refused_and_an_empty_log_is_an_empty_timeline() {
    let h = Harness::start().await;
    for (query, word) in [
        ("bins=0", "bins"),
        ("bins=2001", "bins"),
        ("bins=many", "bins"),
        ("scale=cubic", "scale"),
        ("from=yesterday", "from"),
        ("to=2026-13-01T00:00:00Z", "to"),
        ("detail=-1", "detail"),
        ("lanes=0", "lanes"),
        ("from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "after"),
    ] {
        let r = h
            .request(
                "GET",
                &format!("/_switchyard/deliveries/timeline?{query}"),
                &[],
                "",
            )
            .await;
        assert_eq!(r.status, 400, "{query}: {}", r.body);
        let body = r.json();
        assert_eq!(body["error"], "InvalidArgument", "{query}");
        assert!(
            body["message"].as_str().unwrap().contains(word),
            "{query}: {body}"
        );
    }
    let empty = timeline(&h, "source=nothing").await;
    assert_eq!(empty["lanes"], json!([]));
    assert_eq!(
        (empty["from"].clone(), empty["to"].clone()),
        (Value::Null, Value::Null)
    );
    assert_eq!(empty["records"], 0);
    let r = h
        .request("POST", "/_switchyard/deliveries/timeline", &[], "")
        .await;
    assert_eq!(r.status, 405);
    h.assert_alive().await;
}
