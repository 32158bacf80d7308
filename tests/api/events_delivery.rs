//! EventBridge delivery (issue 6) through aws-sdk-eventbridge and aws-sdk-sqs on the manual
//! clock: the envelope as an SQS target receives it, target input, the RetryPolicy proofs
//! (attempt limit, age limit, the default 24-hour course) with the DLQ's message attributes,
//! scheduled rules, and SNS, bus and Lambda targets.

use crate::harness::Harness;
use aws_sdk_eventbridge::types::builders::PutEventsRequestEntryBuilder;
use aws_sdk_eventbridge::types::{
    DeadLetterConfig, InputTransformer, PutEventsRequestEntry, RetryPolicy, SqsParameters, Target,
};
use aws_sdk_sqs::types::QueueAttributeName;
use serde_json::{Value, json};
use switchyard::Config;

const ACCOUNT: &str = "000000000000";

fn queue_arn(name: &str) -> String {
    format!("arn:aws:sqs:us-east-1:{ACCOUNT}:{name}")
}

async fn exact() -> Harness {
    Harness::with(Config {
        jitter: false,
        ..Config::for_tests()
    })
    .await
}

async fn queue(h: &Harness, name: &str) -> String {
    let mut create = h.sqs().create_queue().queue_name(name);
    if name.ends_with(".fifo") {
        create = create
            .attributes(QueueAttributeName::FifoQueue, "true")
            .attributes(QueueAttributeName::ContentBasedDeduplication, "true");
    }
    create.send().await.unwrap().queue_url.unwrap()
}

/// All messages on a queue now (visibility 0 so that a later look sees them again), with their
/// message attributes.
async fn messages(h: &Harness, url: &str) -> Vec<aws_sdk_sqs::types::Message> {
    let mut all = Vec::new();
    loop {
        let got = h
            .sqs()
            .receive_message()
            .queue_url(url)
            .max_number_of_messages(10)
            .message_attribute_names("All")
            .send()
            .await
            .unwrap()
            .messages
            .unwrap_or_default();
        if got.is_empty() {
            return all;
        }
        for m in &got {
            h.sqs()
                .delete_message()
                .queue_url(url)
                .receipt_handle(m.receipt_handle().unwrap())
                .send()
                .await
                .unwrap();
        }
        all.extend(got);
    }
}

fn body(m: &aws_sdk_sqs::types::Message) -> Value {
    serde_json::from_str(m.body().unwrap()).unwrap()
}

fn attribute(m: &aws_sdk_sqs::types::Message, name: &str) -> Option<String> {
    let a = m.message_attributes()?.get(name)?;
    assert_eq!(a.data_type(), "String", "{name}");
    a.string_value().map(str::to_string)
}

async fn rule(h: &Harness, name: &str, pattern: Value) -> String {
    h.events()
        .put_rule()
        .name(name)
        .event_pattern(pattern.to_string())
        .send()
        .await
        .unwrap()
        .rule_arn
        .unwrap()
}

async fn put_target(h: &Harness, rule: &str, target: Target) {
    let out = h
        .events()
        .put_targets()
        .rule(rule)
        .targets(target)
        .send()
        .await
        .unwrap();
    assert_eq!(out.failed_entry_count, 0, "{:?}", out.failed_entries);
}

fn entry(source: &str, detail: Value) -> PutEventsRequestEntryBuilder {
    PutEventsRequestEntry::builder()
        .source(source)
        .detail_type("OrderPlaced")
        .detail(detail.to_string())
}

async fn put(h: &Harness, entry: PutEventsRequestEntryBuilder) -> String {
    let out = h
        .events()
        .put_events()
        .entries(entry.build())
        .send()
        .await
        .unwrap();
    assert_eq!(out.failed_entry_count, 0, "{:?}", out.entries);
    out.entries.unwrap()[0].event_id.clone().unwrap()
}

async fn records(h: &Harness, source: &str) -> Vec<Value> {
    let q = format!(
        "deliveries?source={}",
        source
            .replace(':', "%3A")
            .replace('/', "%2F")
            .replace('#', "%23")
    );
    h.control_get(&q).await["records"]
        .as_array()
        .unwrap()
        .clone()
}

/// Seconds since the epoch of an RFC 3339 time.
fn epoch(text: &str) -> f64 {
    switchyard::engine::time::parse_rfc3339(text).unwrap() as f64 / 1000.0
}

#[tokio::test]
async fn an_sqs_target_receives_the_event_envelope_in_aws_order() {
    let h = Harness::start().await;
    let url = queue(&h, "orders").await;
    let arn = rule(&h, "placed", json!({"source": ["shop"]})).await;
    assert_eq!(
        arn,
        format!("arn:aws:events:us-east-1:{ACCOUNT}:rule/placed")
    );
    put_target(
        &h,
        "placed",
        Target::builder()
            .id("q")
            .arn(queue_arn("orders"))
            .build()
            .unwrap(),
    )
    .await;
    let detail = json!({"orderId": 7, "items": [{"sku": "b"}, {"sku": "a"}], "z": null, "a": true});
    let id = put(
        &h,
        entry("shop", detail.clone()).resources("arn:aws:s3:::bucket"),
    )
    .await;
    let other = put(&h, entry("other", json!({}))).await;
    assert_ne!(id, other);
    let got = messages(&h, &url).await;
    assert_eq!(got.len(), 1, "only the matching event");
    let text = got[0].body().unwrap();
    let keys: Vec<String> = body(&got[0]).as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "version",
            "id",
            "detail-type",
            "source",
            "account",
            "time",
            "region",
            "resources",
            "detail"
        ]
    );
    let event = body(&got[0]);
    assert_eq!(event["version"], "0");
    assert_eq!(event["id"], id.as_str());
    assert_eq!(event["detail-type"], "OrderPlaced");
    assert_eq!(event["source"], "shop");
    assert_eq!(event["account"], ACCOUNT);
    assert_eq!(event["region"], "us-east-1");
    assert_eq!(event["resources"], json!(["arn:aws:s3:::bucket"]));
    assert_eq!(event["detail"], detail);
    // The detail keeps its own key order; `time` is whole seconds.
    assert!(
        text.contains(
            r#""detail":{"orderId":7,"items":[{"sku":"b"},{"sku":"a"}],"z":null,"a":true}"#
        ),
        "{text}"
    );
    let time = event["time"].as_str().unwrap();
    assert_eq!(time.len(), 20, "{time}");
    assert!(time.ends_with('Z'));
}

#[tokio::test]
async fn put_events_honours_time_bus_names_and_arns() {
    let h = Harness::start().await;
    let url = queue(&h, "q").await;
    let bus_arn = h
        .events()
        .create_event_bus()
        .name("orders")
        .send()
        .await
        .unwrap()
        .event_bus_arn
        .unwrap();
    h.events()
        .put_rule()
        .name("all")
        .event_bus_name("orders")
        .event_pattern(json!({"source": [{"prefix": ""}]}).to_string())
        .send()
        .await
        .unwrap();
    h.events()
        .put_targets()
        .rule("all")
        .event_bus_name(&bus_arn)
        .targets(
            Target::builder()
                .id("q")
                .arn(queue_arn("q"))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let at = aws_sdk_eventbridge::primitives::DateTime::from_secs(1_700_000_000);
    for bus in ["orders", bus_arn.as_str()] {
        put(
            &h,
            entry("shop", json!({"bus": bus}))
                .event_bus_name(bus)
                .time(at),
        )
        .await;
    }
    let got = messages(&h, &url).await;
    assert_eq!(got.len(), 2);
    for m in &got {
        assert_eq!(body(m)["time"], "2023-11-14T22:13:20Z");
    }
}

#[tokio::test]
async fn target_input_is_rendered_as_aws_renders_it() {
    let h = Harness::start().await;
    let url = queue(&h, "q").await;
    let arn = rule(&h, "r", json!({"source": ["shop"]})).await;
    let targets = [
        Target::builder().id("constant").input(r#"{"fixed":true}"#),
        Target::builder().id("path").input_path("$.detail.order"),
        Target::builder().id("transformed").input_transformer(
            InputTransformer::builder()
                .input_paths_map("id", "$.detail.order.id")
                .input_paths_map("state", "$.detail.state")
                .input_template(
                    r#"{"order": <id>, "text": "order <id> is <state>", "rule": "<aws.events.rule-name>", "arn": <aws.events.rule-arn>}"#,
                )
                .build()
                .unwrap(),
        ),
        Target::builder().id("text").input_transformer(
            InputTransformer::builder()
                .input_paths_map("state", "$.detail.state")
                .input_template("\"Order is <state>\"")
                .build()
                .unwrap(),
        ),
    ];
    for t in targets {
        put_target(&h, "r", t.arn(queue_arn("q")).build().unwrap()).await;
    }
    put(
        &h,
        entry("shop", json!({"order": {"id": 42}, "state": "shipped"})),
    )
    .await;
    let mut bodies: Vec<String> = messages(&h, &url)
        .await
        .iter()
        .map(|m| m.body().unwrap().to_string())
        .collect();
    bodies.sort();
    assert_eq!(
        bodies,
        [
            "\"Order is shipped\"".to_string(),
            r#"{"fixed":true}"#.to_string(),
            r#"{"id":42}"#.to_string(),
            format!(r#"{{"order":42,"text":"order 42 is shipped","rule":"r","arn":"{arn}"}}"#),
        ]
    );
}

/// Attempt records of a rule target's delivery log.
async fn attempts(h: &Harness, source: &str) -> Vec<Value> {
    records(h, source)
        .await
        .into_iter()
        .filter(|r| r["event"] == "attempt")
        .collect()
}

async fn faulted_target(h: &Harness, policy: RetryPolicy) -> (String, String) {
    queue(h, "target").await;
    let dlq = queue(h, "dlq").await;
    let rule_arn = rule(h, "r", json!({"source": ["shop"]})).await;
    put_target(
        h,
        "r",
        Target::builder()
            .id("t")
            .arn(queue_arn("target"))
            .retry_policy(policy)
            .dead_letter_config(DeadLetterConfig::builder().arn(queue_arn("dlq")).build())
            .build()
            .unwrap(),
    )
    .await;
    let fault = h
        .control_post(
            "faults",
            json!({"target": queue_arn("target"), "status": 500}),
        )
        .await;
    assert_eq!(fault.status, 201);
    (format!("{rule_arn}#t"), dlq)
}

#[tokio::test]
async fn a_failing_target_retries_three_times_then_lands_in_the_dlq() {
    let h = exact().await;
    let (source, dlq) =
        faulted_target(&h, RetryPolicy::builder().maximum_retry_attempts(3).build()).await;
    let id = put(&h, entry("shop", json!({"n": 1}))).await;
    h.advance(600.0).await;
    let tries = attempts(&h, &source).await;
    let times: Vec<f64> = tries
        .iter()
        .map(|r| epoch(r["at"].as_str().unwrap()))
        .collect();
    assert_eq!(tries.len(), 4, "{tries:?}");
    assert_eq!(
        times.iter().map(|t| t - times[0]).collect::<Vec<_>>(),
        [0.0, 1.0, 3.0, 7.0]
    );
    assert!(
        tries
            .iter()
            .all(|r| r["outcome"] == "retryable" && r["status"] == 500)
    );
    assert_eq!(tries[3]["nextAttemptAt"], Value::Null);
    let last = records(&h, &source).await.pop().unwrap();
    assert_eq!(last["event"], "dead-lettered");
    assert_eq!(last["target"], queue_arn("dlq"));

    let dead = messages(&h, &dlq).await;
    assert_eq!(dead.len(), 1);
    let m = &dead[0];
    assert_eq!(body(m)["id"], id.as_str(), "the DLQ body is the event");
    let rule_arn = source.trim_end_matches("#t");
    assert_eq!(attribute(m, "RULE_ARN").as_deref(), Some(rule_arn));
    assert_eq!(
        attribute(m, "TARGET_ARN").as_deref(),
        Some(queue_arn("target").as_str())
    );
    assert_eq!(
        attribute(m, "ERROR_CODE").as_deref(),
        Some("SDK_CLIENT_ERROR")
    );
    assert!(attribute(m, "ERROR_MESSAGE").unwrap().contains("500"));
    assert_eq!(
        attribute(m, "EXHAUSTED_RETRY_CONDITION").as_deref(),
        Some("MaximumRetryAttempts")
    );
    assert_eq!(attribute(m, "RETRY_ATTEMPTS").as_deref(), Some("3"));

    let metrics = h.request("GET", "/_switchyard/metrics", &[], "").await.body;
    let line = format!(
        "switchyard_aws_metric_total{{namespace=\"AWS/Events\",metric=\"InvocationsSentToDLQ\",resource=\"{rule_arn}\"}} 1"
    );
    assert!(metrics.contains(&line), "{metrics}");
}

#[tokio::test]
async fn the_event_age_limit_stops_the_attempts_at_sixty_seconds() {
    let h = Harness::start().await; // jitter on: the limit holds whatever the delays
    let (source, dlq) = faulted_target(
        &h,
        RetryPolicy::builder()
            .maximum_event_age_in_seconds(60)
            .build(),
    )
    .await;
    put(&h, entry("shop", json!({}))).await;
    h.advance(3600.0).await;
    let tries = attempts(&h, &source).await;
    let first = epoch(tries[0]["at"].as_str().unwrap());
    let offsets: Vec<f64> = tries
        .iter()
        .map(|r| epoch(r["at"].as_str().unwrap()) - first)
        .collect();
    assert!(offsets.len() >= 5, "{offsets:?}");
    assert!(offsets.iter().all(|&t| t <= 60.0), "{offsets:?}");
    let dead = messages(&h, &dlq).await;
    assert_eq!(
        attribute(&dead[0], "EXHAUSTED_RETRY_CONDITION").as_deref(),
        Some("MaximumEventAgeInSeconds")
    );
    assert_eq!(
        attribute(&dead[0], "RETRY_ATTEMPTS"),
        Some((offsets.len() - 1).to_string())
    );
}

#[tokio::test]
async fn the_default_policy_runs_its_whole_day() {
    let h = exact().await;
    let (source, dlq) = faulted_target(&h, RetryPolicy::builder().build()).await;
    put(&h, entry("shop", json!({}))).await;
    h.advance(25.0 * 3600.0).await;
    let tries = attempts(&h, &source).await;
    let first = epoch(tries[0]["at"].as_str().unwrap());
    let last = epoch(tries.last().unwrap()["at"].as_str().unwrap());
    // 1, 2, 4, ... 256 s, then 512 s each: 176 retries, the last at 86,015 s.
    assert_eq!(tries.len(), 177);
    assert_eq!(last - first, 86_015.0);
    let dead = messages(&h, &dlq).await;
    assert_eq!(
        attribute(&dead[0], "EXHAUSTED_RETRY_CONDITION").as_deref(),
        Some("MaximumEventAgeInSeconds")
    );
    assert_eq!(
        attribute(&dead[0], "RETRY_ATTEMPTS").as_deref(),
        Some("176")
    );
}

#[tokio::test]
async fn failures_that_retrying_cannot_fix_go_to_the_dlq_at_once() {
    let h = Harness::start().await;
    let dlq = queue(&h, "dlq").await;
    let rule_arn = rule(&h, "r", json!({"source": ["shop"]})).await;
    put_target(
        &h,
        "r",
        Target::builder()
            .id("gone")
            .arn(queue_arn("missing"))
            .dead_letter_config(DeadLetterConfig::builder().arn(queue_arn("dlq")).build())
            .build()
            .unwrap(),
    )
    .await;
    put(&h, entry("shop", json!({}))).await;
    let tries = attempts(&h, &format!("{rule_arn}#gone")).await;
    assert_eq!(tries.len(), 1);
    assert_eq!(tries[0]["outcome"], "permanent");
    let dead = messages(&h, &dlq).await;
    assert_eq!(
        attribute(&dead[0], "ERROR_CODE").as_deref(),
        Some("NO_RESOURCE")
    );
    assert_eq!(attribute(&dead[0], "RETRY_ATTEMPTS").as_deref(), Some("0"));
    assert_eq!(attribute(&dead[0], "EXHAUSTED_RETRY_CONDITION"), None);
}

#[tokio::test]
async fn a_dlq_that_cannot_be_written_is_counted_and_logged() {
    let h = Harness::start().await;
    let rule_arn = rule(&h, "r", json!({"source": ["shop"]})).await;
    put_target(
        &h,
        "r",
        Target::builder()
            .id("t")
            .arn(queue_arn("missing"))
            .dead_letter_config(DeadLetterConfig::builder().arn(queue_arn("nodlq")).build())
            .build()
            .unwrap(),
    )
    .await;
    put(&h, entry("shop", json!({}))).await;
    let last = records(&h, &format!("{rule_arn}#t")).await.pop().unwrap();
    assert_eq!(last["event"], "dlq-failed");
    let metrics = h.request("GET", "/_switchyard/metrics", &[], "").await.body;
    assert!(metrics.contains("metric=\"InvocationsFailedToBeSentToDLQ\""));
}

#[tokio::test]
async fn a_fifo_queue_target_gets_the_message_group() {
    let h = Harness::start().await;
    let url = queue(&h, "orders.fifo").await;
    rule(&h, "r", json!({"source": ["shop"]})).await;
    put_target(
        &h,
        "r",
        Target::builder()
            .id("f")
            .arn(queue_arn("orders.fifo"))
            .sqs_parameters(SqsParameters::builder().message_group_id("g1").build())
            .build()
            .unwrap(),
    )
    .await;
    for n in 0..3 {
        put(&h, entry("shop", json!({"n": n}))).await;
    }
    let got = h
        .sqs()
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .message_system_attribute_names(
            aws_sdk_sqs::types::MessageSystemAttributeName::MessageGroupId,
        )
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let ns: Vec<Value> = got.iter().map(|m| body(m)["detail"]["n"].clone()).collect();
    assert_eq!(ns, [json!(0), json!(1), json!(2)]);
    let group = got[0].attributes().unwrap()
        [&aws_sdk_sqs::types::MessageSystemAttributeName::MessageGroupId]
        .clone();
    assert_eq!(group, "g1");
}

#[tokio::test]
async fn a_rate_rule_fires_once_an_hour_on_the_virtual_clock() {
    let h = Harness::start().await;
    let url = queue(&h, "ticks").await;
    let arn = h
        .events()
        .put_rule()
        .name("hourly")
        .schedule_expression("rate(1 hour)")
        .send()
        .await
        .unwrap()
        .rule_arn
        .unwrap();
    put_target(
        &h,
        "hourly",
        Target::builder()
            .id("q")
            .arn(queue_arn("ticks"))
            .build()
            .unwrap(),
    )
    .await;
    let start = epoch(h.control_get("clock").await["now"].as_str().unwrap());
    h.advance(86_400.0).await;
    let got = messages(&h, &url).await;
    assert_eq!(got.len(), 24);
    let mut times: Vec<f64> = got
        .iter()
        .map(|m| {
            let e = body(m);
            assert_eq!(e["detail-type"], "Scheduled Event");
            assert_eq!(e["source"], "aws.events");
            assert_eq!(e["resources"], json!([arn]));
            assert_eq!(e["detail"], json!({}));
            epoch(e["time"].as_str().unwrap())
        })
        .collect();
    times.sort_by(f64::total_cmp);
    for (k, t) in times.iter().enumerate() {
        let due = (start + 3600.0 * (k + 1) as f64).floor();
        assert_eq!(*t, due, "firing {k}");
    }
    // Disabled, it stays quiet; enabled again, it fires an hour later.
    h.events()
        .disable_rule()
        .name("hourly")
        .send()
        .await
        .unwrap();
    h.advance(7200.0).await;
    assert!(messages(&h, &url).await.is_empty());
    h.events()
        .enable_rule()
        .name("hourly")
        .send()
        .await
        .unwrap();
    h.advance(3600.0).await;
    assert_eq!(messages(&h, &url).await.len(), 1);
}

#[tokio::test]
async fn a_cron_rule_fires_at_its_minutes() {
    let h = Harness::start().await;
    let url = queue(&h, "ticks").await;
    h.events()
        .put_rule()
        .name("quarter")
        .schedule_expression("cron(0/15 * * * ? *)")
        .send()
        .await
        .unwrap();
    put_target(
        &h,
        "quarter",
        Target::builder()
            .id("q")
            .arn(queue_arn("ticks"))
            .build()
            .unwrap(),
    )
    .await;
    h.advance(3600.0).await;
    let got = messages(&h, &url).await;
    assert_eq!(got.len(), 4);
    for m in &got {
        let time = body(m)["time"].as_str().unwrap().to_string();
        let minute = &time[14..16];
        assert!(["00", "15", "30", "45"].contains(&minute), "{time}");
        assert!(time.ends_with(":00Z"), "{time}");
    }
}

#[tokio::test]
async fn sns_bus_and_lambda_targets() {
    let h = Harness::start().await;
    let url = queue(&h, "fromsns").await;
    let topic = h
        .sns()
        .create_topic()
        .name("t")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    h.sns()
        .subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(queue_arn("fromsns"))
        .attributes("RawMessageDelivery", "true")
        .send()
        .await
        .unwrap();
    let bus = h
        .events()
        .create_event_bus()
        .name("downstream")
        .send()
        .await
        .unwrap()
        .event_bus_arn
        .unwrap();
    let downstream_url = queue(&h, "downstream").await;
    h.events()
        .put_rule()
        .name("d")
        .event_bus_name("downstream")
        .event_pattern(json!({"source": ["shop"]}).to_string())
        .send()
        .await
        .unwrap();
    h.events()
        .put_targets()
        .rule("d")
        .event_bus_name("downstream")
        .targets(
            Target::builder()
                .id("q")
                .arn(queue_arn("downstream"))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    rule(&h, "fan", json!({"source": ["shop"]})).await;
    let function = format!("arn:aws:lambda:us-east-1:{ACCOUNT}:function:handler");
    for (id, arn) in [("sns", topic.as_str()), ("bus", &bus), ("fn", &function)] {
        put_target(
            &h,
            "fan",
            Target::builder().id(id).arn(arn).build().unwrap(),
        )
        .await;
    }
    let id = put(&h, entry("shop", json!({"k": "v"}))).await;
    let via_sns = messages(&h, &url).await;
    assert_eq!(via_sns.len(), 1);
    assert_eq!(body(&via_sns[0])["id"], id.as_str());
    let via_bus = messages(&h, &downstream_url).await;
    assert_eq!(via_bus.len(), 1);
    assert_eq!(
        body(&via_bus[0])["id"],
        id.as_str(),
        "the same event, forwarded"
    );
    let outbox = h.control_get("outbox?protocol=lambda").await;
    let sent = &outbox["messages"][0];
    assert_eq!(sent["target"], function.as_str());
    let event: Value = serde_json::from_str(sent["body"].as_str().unwrap()).unwrap();
    assert_eq!(event["id"], id.as_str());
}

#[tokio::test]
async fn cross_account_events_need_the_bus_policy() {
    let h = Harness::start().await;
    let owner = h.events_as("111111111111", "us-east-1");
    let other = h.events_as("222222222222", "us-east-1");
    let bus = owner
        .create_event_bus()
        .name("shared")
        .send()
        .await
        .unwrap()
        .event_bus_arn
        .unwrap();
    let attempt = || async {
        other
            .put_events()
            .entries(entry("partner", json!({})).event_bus_name(&bus).build())
            .send()
            .await
            .unwrap()
    };
    let denied = attempt().await;
    assert_eq!(denied.failed_entry_count, 1);
    let e = &denied.entries.unwrap()[0];
    assert_eq!(e.error_code(), Some("AccessDeniedException"));
    owner
        .put_permission()
        .event_bus_name("shared")
        .action("events:PutEvents")
        .principal("222222222222")
        .statement_id("partner")
        .send()
        .await
        .unwrap();
    let policy: Value = serde_json::from_str(
        &owner
            .describe_event_bus()
            .name("shared")
            .send()
            .await
            .unwrap()
            .policy
            .unwrap(),
    )
    .unwrap();
    assert_eq!(policy["Statement"][0]["Sid"], "partner");
    assert_eq!(
        policy["Statement"][0]["Principal"]["AWS"],
        "arn:aws:iam::222222222222:root"
    );
    assert_eq!(attempt().await.failed_entry_count, 0);
    owner
        .remove_permission()
        .event_bus_name("shared")
        .statement_id("partner")
        .send()
        .await
        .unwrap();
    assert_eq!(attempt().await.failed_entry_count, 1);
}
