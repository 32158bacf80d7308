//! Custom-bus delivery (issue 7) on the manual clock through raw AWSEventsV2 requests and
//! aws-sdk-sqs: the delivered envelope, FIFO event groups, publish-time dedup, the retry policy
//! and its dead-letter records, error codes, batches, targets, and redrive by replay.

use crate::custom_bus::{
    ACCOUNT, ROLE, body, bus, drain, entry, put, queue, raw, subscriber, v2, v2_as,
};
use crate::harness::Harness;
use serde_json::{Value, json};
use switchyard::Config;

async fn exact() -> Harness {
    Harness::with(Config {
        jitter: false,
        ..Config::for_tests()
    })
    .await
}

async fn fault(h: &Harness, target: &str, status: u16, extra: Value) -> String {
    let mut spec = json!({"target": target, "status": status});
    for (k, v) in extra.as_object().unwrap() {
        spec[k] = v.clone();
    }
    let r = h.control_post("faults", spec).await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_string()
}

async fn clear_faults(h: &Harness) {
    let r = h.request("DELETE", "/_switchyard/faults", &[], "").await;
    assert!(r.status < 300, "{}", r.body);
}

fn attr(m: &aws_sdk_sqs::types::Message, name: &str) -> String {
    let a = &m.message_attributes().unwrap()[name];
    assert_eq!(a.data_type(), "String", "{name}");
    a.string_value().unwrap().to_string()
}

fn group_of(m: &aws_sdk_sqs::types::Message) -> String {
    use aws_sdk_sqs::types::MessageSystemAttributeName;
    m.attributes().unwrap()[&MessageSystemAttributeName::MessageGroupId].clone()
}

/// The delivery log records of `source`, as (seconds since `t0`, event, outcome, errorCode).
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

#[tokio::test]
async fn a_delivered_event_is_the_envelope_with_system_metadata_after_detail() {
    let h = Harness::start().await;
    let bus = bus(&h, "orders").await;
    let (url, q) = queue(&h, "orders-q", &[]).await;
    subscriber(
        &h,
        "grouped",
        &bus,
        &q,
        json!({"FilterConfiguration": {"Filters": [
            {"Scope": "EVENT", "Pattern": "{\"detail\":{\"total\":[{\"numeric\":[\">\",100]}]}}"},
            {"Scope": "SYSTEM_METADATA", "Pattern": "{\"aws:EventGroupId\":[{\"prefix\":\"order-\"}],\"aws:DeliveryType\":[\"LIVE\"]}"}
        ]}}),
    )
    .await;
    let mut big = entry(json!({"total": 250}), Some("order-1"));
    big["SystemMetadata"]["DeduplicationId"] = json!("idem-1");
    big["Resources"] = json!(["arn:aws:s3:::b"]);
    let ids = put(
        &h,
        &bus,
        json!([
            big,
            entry(json!({"total": 5}), Some("order-2")),
            entry(json!({"total": 500}), None)
        ]),
    )
    .await;
    let got = drain(&h, &url).await;
    assert_eq!(
        got.len(),
        1,
        "only the big grouped order passes both filters"
    );
    let event = body(&got[0]);
    let keys: Vec<&String> = event.as_object().unwrap().keys().collect();
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
            "detail",
            "system-metadata"
        ]
    );
    assert_eq!(event["id"], ids[0].as_str());
    assert_eq!(event["account"], ACCOUNT);
    assert_eq!(event["resources"], json!(["arn:aws:s3:::b"]));
    assert_eq!(
        event["system-metadata"],
        json!({"aws:EventId": ids[0], "aws:EventGroupId": "order-1", "aws:DeduplicationId": "idem-1", "aws:DeliveryType": "LIVE"})
    );
}

/// The FIFO proof: group A's target call fails; B's later events go while A waits; A's
/// events follow in order once the fault is over. Also: a FIFO queue gets MessageGroupId =
/// EventGroupId, and the same EventGroupId from another account is another group.
#[tokio::test]
async fn a_failing_fifo_group_holds_back_only_its_own_later_events() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let (url, q) = queue(&h, "orders.fifo", &[]).await;
    let sub = subscriber(&h, "fifo", &bus, &q, json!({"Type": "FIFO"})).await;
    // The next attempt fails (A1's); the fault is then over.
    fault(&h, &q, 500, json!({"count": 1})).await;
    let a1 = put(&h, &bus, json!([entry(json!({"n": "A1"}), Some("A"))])).await;
    let rest = put(
        &h,
        &bus,
        json!([
            entry(json!({"n": "B1"}), Some("B")),
            entry(json!({"n": "A2"}), Some("A")),
            entry(json!({"n": "B2"}), Some("B")),
        ]),
    )
    .await;
    // Another account publishing group "A" to the shared bus is its own group: not held.
    let theirs = v2_as(
        &h,
        "111122223333",
        "PutEvents",
        json!({"EventBusArn": bus, "Entries": [entry(json!({"n": "X1"}), Some("A"))]}),
    )
    .await;
    assert_eq!(theirs["Entries"][0]["SuccessCode"], "PUBLISHED");
    h.advance(5.0).await;
    let mut early: Vec<(String, String)> = drain(&h, &url)
        .await
        .iter()
        .map(|m| {
            (
                body(m)["detail"]["n"].as_str().unwrap().to_string(),
                group_of(m),
            )
        })
        .collect();
    early.sort();
    assert_eq!(
        early,
        [
            ("B1".into(), "B".into()),
            ("B2".into(), "B".into()),
            ("X1".into(), "A".into())
        ]
    );
    // A1's retry (10 s) succeeds, then A2 follows.
    h.advance(10.0).await;
    let late: Vec<String> = drain(&h, &url)
        .await
        .iter()
        .map(|m| body(m)["detail"]["n"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(late, ["A1", "A2"]);
    let a2 = &rest[1];
    let records = log(&h, &sub).await;
    let at = |id: &str| {
        records
            .iter()
            .find(|r| r["messageId"] == id && r["outcome"] == "delivered")
            .map(|r| r["at"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert!(at(&a1[0]) <= at(a2), "A2 after A1");
    let failed: Vec<&Value> = records
        .iter()
        .filter(|r| r["outcome"] == "retryable" || r["outcome"] == "permanent")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["messageId"], a1[0].as_str());
}

#[tokio::test]
async fn unordered_subscribers_do_not_hold_anything_back() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let (url, q) = queue(&h, "orders-q", &[]).await;
    subscriber(&h, "any", &bus, &q, json!({})).await;
    fault(&h, &q, 500, json!({"count": 1})).await;
    put(&h, &bus, json!([entry(json!({"n": 1}), Some("A"))])).await;
    put(&h, &bus, json!([entry(json!({"n": 2}), Some("A"))])).await;
    let now: Vec<i64> = drain(&h, &url)
        .await
        .iter()
        .map(|m| body(m)["detail"]["n"].as_i64().unwrap())
        .collect();
    assert_eq!(now, [2]);
    h.advance(10.0).await;
    assert_eq!(drain(&h, &url).await.len(), 1);
}

/// The retry proof: the default policy (5 retries, 300 s) against a target that answers
/// 500 ends with a record whose exhaustedRetryCondition names the limit hit first. With
/// switchyard's schedule (10, 20, 40, 80 s) that is the age: attempts at 0, 10, 30, 70, 150 s, and
/// the fifth retry (310 s) would be past 300 s.
#[tokio::test]
async fn the_default_policy_ends_with_a_record_naming_the_limit_hit_first() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let (_, q) = queue(&h, "large-orders", &[]).await;
    let (dlq_url, dlq) = queue(&h, "large-orders-dlq", &[]).await;
    let sub = subscriber(
        &h,
        "large-orders",
        &bus,
        &q,
        json!({"OnFailureConfiguration": {"Arn": dlq}}),
    )
    .await;
    fault(&h, &q, 500, json!({})).await;
    let mut e = entry(json!({"orderId": 1001}), Some("order-1001"));
    e["Time"] = json!(1_789_584_012);
    let ids = put(&h, &bus, json!([e])).await;
    h.advance(149.0).await;
    assert!(drain(&h, &dlq_url).await.is_empty(), "still retrying");
    h.advance(300.0).await;
    let records = log(&h, &sub).await;
    let attempts: Vec<(u64, f64)> = records
        .iter()
        .filter(|r| r["event"] == "attempt")
        .map(|r| {
            (
                r["attempt"].as_u64().unwrap(),
                r["delaySeconds"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        attempts,
        [(1, 0.0), (2, 10.0), (3, 20.0), (4, 40.0), (5, 80.0)]
    );
    assert!(
        records
            .iter()
            .all(|r| r["event"] != "attempt" || r["status"] == 500)
    );
    assert_eq!(records.last().unwrap()["event"], "dead-lettered");

    let got = drain(&h, &dlq_url).await;
    assert_eq!(got.len(), 1);
    let record = body(&got[0]);
    let request_id = record["failedMessages"][0]["targetRequestId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(request_id.len(), 36, "the last attempt's request id");
    assert_eq!(
        record,
        json!({
            "version": "1.0",
            "busArn": bus,
            "subscriberArn": sub,
            "targetArn": q,
            "errorCode": "INVOCATION_DEPENDENCY_INTERNAL",
            "errorMessage": "Delivery failed. Use this record's error code and request ID when investigating, and contact AWS Support if the failure persists.",
            "exhaustedRetryCondition": "MaximumEventAgeInSeconds",
            "retryAttempts": 4,
            "failedMessages": [{
                "eventId": ids[0],
                "eventGroupId": "order-1001",
                "deduplicationId": null,
                "timestamp": "2026-09-16T18:40:12.000Z",
                "targetRequestId": request_id,
            }]
        })
    );
    let keys: Vec<&String> = record.as_object().unwrap().keys().collect();
    assert_eq!(
        keys[..4],
        ["version", "busArn", "subscriberArn", "targetArn"]
    );
    assert_eq!(
        attr(&got[0], "ERROR_CODE"),
        "INVOCATION_DEPENDENCY_INTERNAL"
    );
    assert_eq!(
        attr(&got[0], "EXHAUSTED_RETRY_CONDITION"),
        "MaximumEventAgeInSeconds"
    );
    assert_eq!(attr(&got[0], "RETRY_ATTEMPTS"), "4");
    assert_eq!(attr(&got[0], "BUS_ARN"), bus);
    assert_eq!(attr(&got[0], "SUBSCRIBER_ARN"), sub);
    assert_eq!(attr(&got[0], "TARGET_ARN"), q);
    assert!(attr(&got[0], "ERROR_MESSAGE").starts_with("Delivery failed."));
    assert_eq!(got[0].message_attributes().unwrap().len(), 7);
}

#[tokio::test]
async fn the_attempt_limit_is_named_when_it_is_hit_first_and_zero_means_at_once() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let (_, q) = queue(&h, "q", &[]).await;
    let (dlq_url, dlq) = queue(&h, "dlq", &[]).await;
    let on_failure = json!({"Arn": dlq});
    subscriber(
        &h,
        "two",
        &bus,
        &q,
        json!({"RetryPolicy": {"MaxRetryAttempts": 2}, "OnFailureConfiguration": on_failure}),
    )
    .await;
    fault(&h, &q, 400, json!({})).await;
    put(&h, &bus, json!([entry(json!({}), None)])).await;
    assert!(drain(&h, &dlq_url).await.is_empty(), "a 4xx is retried too");
    h.advance(30.0).await;
    let record = body(&drain(&h, &dlq_url).await[0]);
    assert_eq!(record["exhaustedRetryCondition"], "MaximumRetryAttempts");
    assert_eq!(record["retryAttempts"], 2);
    assert_eq!(record["errorCode"], "CUSTOMER_VALIDATION");
    assert_eq!(record["failedMessages"][0]["eventGroupId"], Value::Null);

    let (_, q0) = queue(&h, "q0", &[]).await;
    subscriber(
        &h,
        "zero",
        &bus,
        &q0,
        json!({"RetryPolicy": {"MaxRetryAttempts": 0}, "OnFailureConfiguration": on_failure}),
    )
    .await;
    fault(&h, &q0, 429, json!({})).await;
    put(&h, &bus, json!([entry(json!({}), None)])).await;
    let got = drain(&h, &dlq_url).await;
    let zero: Vec<Value> = got
        .iter()
        .map(body)
        .filter(|r| r["targetArn"] == q0.as_str())
        .collect();
    assert_eq!(zero.len(), 1, "{got:?}");
    assert_eq!(zero[0]["exhaustedRetryCondition"], "MaximumRetryAttempts");
    assert_eq!(zero[0]["retryAttempts"], 0);
    assert_eq!(zero[0]["errorCode"], "THROTTLING");
}

#[tokio::test]
async fn without_a_dlq_events_are_dropped_and_a_failed_dlq_write_is_counted() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let (_, q) = queue(&h, "q", &[]).await;
    let (dlq_url, dlq) = queue(&h, "dlq", &[]).await;
    let dropping = subscriber(
        &h,
        "dropping",
        &bus,
        &q,
        json!({"RetryPolicy": {"MaxRetryAttempts": 0}, "InvokeConfiguration": {"MaxBatchSize": 2}}),
    )
    .await;
    let failing = subscriber(
        &h,
        "failing",
        &bus,
        &q,
        json!({"RetryPolicy": {"MaxRetryAttempts": 0}, "OnFailureConfiguration": {"Arn": dlq}}),
    )
    .await;
    fault(&h, &q, 503, json!({})).await;
    fault(&h, &dlq, 500, json!({})).await;
    put(
        &h,
        &bus,
        json!([entry(json!({"n": 1}), None), entry(json!({"n": 2}), None)]),
    )
    .await;
    assert_eq!(metric(&h, "EventsDropped", &dropping).await, Some(2));
    assert_eq!(
        metric(&h, "OnFailureDestinationFailed", &failing).await,
        Some(2)
    );
    assert_eq!(metric(&h, "EventsDropped", &failing).await, None);
    let dropped = log(&h, &dropping).await;
    assert_eq!(dropped.last().unwrap()["event"], "discarded");
    let failed = log(&h, &failing).await;
    assert_eq!(
        failed.iter().filter(|r| r["event"] == "dlq-failed").count(),
        2
    );
    assert!(drain(&h, &dlq_url).await.is_empty());
}

/// The dedup proof: CONTENT_BASED suppresses the duplicate at 299 s (answered
/// DEDUPLICATED, logged `deduplicated`) and accepts it at 301 s; another account or group is new.
#[tokio::test]
async fn content_based_dedup_suppresses_within_300_seconds_only() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let (url, q) = queue(&h, "q", &[]).await;
    let sub = subscriber(&h, "s", &bus, &q, json!({})).await;
    let publish = |key: &'static str, e: Value| {
        let body = json!({"EventBusArn": bus, "Entries": [e],
            "DeduplicationConfiguration": {"DeduplicationType": "CONTENT_BASED"}});
        let h = &h;
        async move {
            let r = h
                .json_as(key, "1.1", "AWSEventsV2.PutEvents", &body.to_string())
                .await;
            assert_eq!(r.status, 200, "{}", r.body);
            r.json()["Entries"][0].clone()
        }
    };
    let order = entry(json!({"orderId": 7}), Some("order-7"));
    let first = publish("test", order.clone()).await;
    assert_eq!(first["SuccessCode"], "PUBLISHED");
    h.advance(299.0).await;
    let again = publish("test", order.clone()).await;
    assert_eq!(again["SuccessCode"], "DEDUPLICATED");
    assert_eq!(again["EventId"], first["EventId"], "the event it repeats");
    assert!(again.get("ErrorCode").is_none());
    // Another account, or another group, is another event.
    assert_eq!(
        publish("111122223333", order.clone()).await["SuccessCode"],
        "PUBLISHED"
    );
    let other_group = entry(json!({"orderId": 7}), Some("order-8"));
    assert_eq!(
        publish("test", other_group).await["SuccessCode"],
        "PUBLISHED"
    );
    let suppressed: Vec<Value> = log(&h, &sub)
        .await
        .into_iter()
        .filter(|r| r["event"] == "deduplicated")
        .collect();
    assert_eq!(suppressed.len(), 1);
    assert_eq!(suppressed[0]["messageId"], first["EventId"]);
    assert_eq!(suppressed[0]["target"], q.as_str());
    h.advance(2.0).await;
    let later = publish("test", order).await;
    assert_eq!(later["SuccessCode"], "PUBLISHED", "301 s after the first");
    assert_ne!(later["EventId"], first["EventId"]);
    assert_eq!(drain(&h, &url).await.len(), 4);
}

#[tokio::test]
async fn deduplication_ids_are_scoped_to_account_and_group_and_ungrouped_entries_share_one_scope() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let with_id = |id: &str, group: Option<&str>| {
        let mut e = entry(json!({"n": id}), group);
        e["SystemMetadata"]["DeduplicationId"] = json!(id);
        e
    };
    let out = v2(
        &h,
        "PutEvents",
        json!({"EventBusArn": bus, "Entries": [
            with_id("k1", None), with_id("k1", None), with_id("k1", Some("g")), with_id("k2", None)
        ]}),
    )
    .await;
    let codes: Vec<&str> = out["Entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["SuccessCode"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        ["PUBLISHED", "DEDUPLICATED", "PUBLISHED", "PUBLISHED"]
    );
    assert_eq!(out["FailedEntryCount"], 0);
    // No subscriber would have received it: the bus logs it.
    let records = log(&h, &bus).await;
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["event"], "deduplicated");
}

#[tokio::test]
async fn events_failed_together_in_a_batch_share_one_record_and_a_partial_failure_lists_only_the_refused()
 {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let (dlq_url, dlq) = queue(&h, "dlq", &[]).await;
    let (_, q) = queue(&h, "q", &[]).await;
    subscriber(&h, "together", &bus, &q, json!({"InvokeConfiguration": {"MaxBatchSize": 2}, "RetryPolicy": {"MaxRetryAttempts": 0}, "OnFailureConfiguration": {"Arn": dlq}})).await;
    fault(&h, &q, 500, json!({})).await;
    let ids = put(
        &h,
        &bus,
        json!([
            entry(json!({"n": 1}), Some("order-1001")),
            entry(json!({"n": 2}), Some("order-1001"))
        ]),
    )
    .await;
    let got = drain(&h, &dlq_url).await;
    assert_eq!(got.len(), 1, "one record for the batch");
    let record = body(&got[0]);
    let listed: Vec<&str> = record["failedMessages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["eventId"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [ids[0].as_str(), ids[1].as_str()]);
    clear_faults(&h).await;

    // A queue taking messages of at most 1024 bytes takes two of the three events.
    let (small_url, small) = queue(&h, "small", &[("MaximumMessageSize", "1024")]).await;
    subscriber(&h, "partial", &bus, &small, json!({"InvokeConfiguration": {"MaxBatchSize": 3}, "RetryPolicy": {"MaxRetryAttempts": 1}, "OnFailureConfiguration": {"Arn": dlq}})).await;
    let ids = put(
        &h,
        &bus,
        json!([
            entry(json!({"n": 1}), None),
            entry(json!({"big": "x".repeat(2000)}), None),
            entry(json!({"n": 3}), None),
        ]),
    )
    .await;
    h.advance(20.0).await;
    let delivered: Vec<String> = drain(&h, &small_url)
        .await
        .iter()
        .map(|m| body(m)["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        delivered,
        [ids[0].clone(), ids[2].clone()],
        "each once, the retry sent only the refused one"
    );
    let records: Vec<Value> = drain(&h, &dlq_url).await.iter().map(body).collect();
    let partial: Vec<&Value> = records
        .iter()
        .filter(|r| r["targetArn"] == small.as_str())
        .collect();
    assert_eq!(partial.len(), 1, "{records:?}");
    assert_eq!(partial[0]["errorCode"], "PARTIAL_BATCH_FAILURE");
    assert_eq!(partial[0]["retryAttempts"], 1);
    assert_eq!(partial[0]["failedMessages"].as_array().unwrap().len(), 1);
    assert_eq!(partial[0]["failedMessages"][0]["eventId"], ids[1].as_str());

    // One event over the limit alone: REQUEST_TOO_LARGE.
    put(
        &h,
        &bus,
        json!([entry(json!({"big": "y".repeat(2000)}), None)]),
    )
    .await;
    h.advance(20.0).await;
    let records: Vec<Value> = drain(&h, &dlq_url).await.iter().map(body).collect();
    assert!(
        records
            .iter()
            .any(|r| r["errorCode"] == "REQUEST_TOO_LARGE"),
        "{records:?}"
    );
}

#[tokio::test]
async fn fifo_subscribers_write_to_a_fifo_dlq_with_the_event_group() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let (dlq_url, dlq) = queue(&h, "dlq.fifo", &[]).await;
    let (q_url, q) = queue(&h, "missing-later", &[]).await;
    subscriber(&h, "fifo", &bus, &q, json!({"Type": "FIFO", "RetryPolicy": {"MaxRetryAttempts": 0}, "OnFailureConfiguration": {"Arn": dlq}})).await;
    h.sqs()
        .delete_queue()
        .queue_url(q_url)
        .send()
        .await
        .unwrap();
    put(
        &h,
        &bus,
        json!([
            entry(json!({"n": 1}), Some("g-1")),
            entry(json!({"n": 2}), Some("g-2")),
            entry(json!({"n": 3}), Some("g-1"))
        ]),
    )
    .await;
    let got = drain(&h, &dlq_url).await;
    let groups: Vec<String> = got.iter().map(group_of).collect();
    assert_eq!(groups.len(), 3);
    assert_eq!(groups.iter().filter(|g| *g == "g-1").count(), 2);
    let record = body(&got[0]);
    assert_eq!(record["errorCode"], "RESOURCE_NOT_FOUND");
    assert_eq!(
        record["errorMessage"],
        format!(
            "EventBridge can't access {q}. Check that it exists and that the subscriber's delivery role is allowed to access it."
        )
    );
}

#[tokio::test]
async fn transformer_failures_faults_error_codes_and_long_messages() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let (dlq_url, dlq) = queue(&h, "dlq", &[]).await;
    let (url, q) = queue(&h, "q", &[]).await;
    let once =
        json!({"RetryPolicy": {"MaxRetryAttempts": 0}, "OnFailureConfiguration": {"Arn": dlq}});
    // A template made invalid JSON by the value (a `"` put raw in a string): the error, cut.
    let (mut broken, long) = (once.clone(), format!("{}\"", "z".repeat(1500)));
    broken["InvokeConfiguration"] = json!({"Transformer": {"InputPathsMap": {"v": "$.detail.v"}, "InputTemplate": "{\"v\": <v>, \"w\": \"<v>\"}"}});
    subscriber(&h, "broken", &bus, &q, broken).await;
    let mut working = once.clone();
    working["InvokeConfiguration"] = json!({"Transformer": {"InputPathsMap": {"v": "$.detail.v", "g": "$.system-metadata.aws:EventGroupId"}, "InputTemplate": "{\"value\": <v>}"}});
    subscriber(&h, "working", &bus, &q, working).await;
    put(&h, &bus, json!([entry(json!({"v": long}), None)])).await;
    let records: Vec<Value> = drain(&h, &dlq_url).await.iter().map(body).collect();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["errorCode"], "INPUT_TRANSFORMATION_FAILURE");
    let message = records[0]["errorMessage"].as_str().unwrap();
    assert_eq!(message.chars().count(), 1024);
    assert!(
        message.starts_with("Transformed input is not valid JSON"),
        "{message}"
    );
    assert_eq!(
        records[0]["failedMessages"][0]["targetRequestId"], "",
        "no wire call"
    );
    let delivered = drain(&h, &url).await;
    assert_eq!(body(&delivered[0]), json!({"value": long}));

    // A fault's own errorCode is passed on.
    let (_, q2) = queue(&h, "q2", &[]).await;
    subscriber(&h, "kms", &bus, &q2, once.clone()).await;
    fault(&h, &q2, 400, json!({"errorCode": "KMS_INVALID_STATE"})).await;
    put(&h, &bus, json!([entry(json!({}), None)])).await;
    let codes: Vec<Value> = drain(&h, &dlq_url)
        .await
        .iter()
        .map(|m| body(m)["errorCode"].clone())
        .collect();
    assert!(codes.contains(&json!("KMS_INVALID_STATE")), "{codes:?}");
}

#[tokio::test]
async fn failures_inside_the_emulator_are_retried_without_limit_and_never_recorded() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let (url, q) = queue(&h, "q", &[]).await;
    let (dlq_url, dlq) = queue(&h, "dlq", &[]).await;
    let sub = subscriber(&h, "s", &bus, &q, json!({"RetryPolicy": {"MaxRetryAttempts": 0, "MaxEventAgeInSeconds": 60}, "OnFailureConfiguration": {"Arn": dlq}})).await;
    let id = fault(&h, &sub, 500, json!({})).await;
    put(&h, &bus, json!([entry(json!({"n": 1}), None)])).await;
    h.advance(3600.0).await;
    assert!(drain(&h, &url).await.is_empty());
    assert!(drain(&h, &dlq_url).await.is_empty());
    let records = log(&h, &sub).await;
    assert!(records.len() > 10, "{}", records.len());
    assert!(
        records
            .iter()
            .all(|r| r["phase"] == "internal" && r["attempt"] == 1)
    );
    h.request("DELETE", &format!("/_switchyard/faults/{id}"), &[], "")
        .await;
    h.advance(300.0).await;
    assert_eq!(drain(&h, &url).await.len(), 1);
    assert!(drain(&h, &dlq_url).await.is_empty());
}

#[tokio::test]
async fn bus_targets_forward_events_and_a_loop_is_detected() {
    let h = exact().await;
    let a = bus(&h, "a").await;
    let b = bus(&h, "b").await;
    let (url, q) = queue(&h, "q", &[]).await;
    let (dlq_url, dlq) = queue(&h, "dlq", &[]).await;
    let once =
        json!({"RetryPolicy": {"MaxRetryAttempts": 0}, "OnFailureConfiguration": {"Arn": dlq}});
    subscriber(&h, "a-to-b", &a, &b, once.clone()).await;
    subscriber(&h, "b-to-q", &b, &q, json!({})).await;
    subscriber(&h, "b-to-a", &b, &a, once.clone()).await;
    let ids = put(&h, &a, json!([entry(json!({"n": 1}), Some("g"))])).await;
    let got = drain(&h, &url).await;
    assert_eq!(got.len(), 1);
    let event = body(&got[0]);
    assert_eq!(event["detail"], json!({"n": 1}));
    assert_ne!(event["id"], ids[0].as_str(), "a new event on bus b");
    assert_eq!(event["system-metadata"]["aws:EventGroupId"], "g");
    let records: Vec<Value> = drain(&h, &dlq_url).await.iter().map(body).collect();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["errorCode"], "LOOP_DETECTED");
    assert_eq!(records[0]["targetArn"], a.as_str());
}

#[tokio::test]
async fn sns_and_lambda_targets() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let topic = h
        .sns()
        .create_topic()
        .name("t")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let (url, q) = queue(&h, "q", &[]).await;
    h.sns()
        .subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(&q)
        .attributes("RawMessageDelivery", "true")
        .send()
        .await
        .unwrap();
    subscriber(&h, "to-sns", &bus, &topic, json!({})).await;
    let lambda = "arn:aws:lambda:us-east-1:000000000000:function:f";
    subscriber(
        &h,
        "to-lambda",
        &bus,
        lambda,
        json!({"InvokeConfiguration": {"InvocationType": "REQUEST_RESPONSE"}}),
    )
    .await;
    let ids = put(&h, &bus, json!([entry(json!({"n": 1}), None)])).await;
    let got = drain(&h, &url).await;
    assert_eq!(body(&got[0])["id"], ids[0].as_str());
    let outbox = h.control_get("outbox?protocol=lambda").await;
    let messages = outbox["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["target"], lambda);
    let sent: Value = serde_json::from_str(messages[0]["body"].as_str().unwrap()).unwrap();
    assert_eq!(sent["system-metadata"]["aws:EventId"], ids[0].as_str());
}

/// A Lambda function mapped to a local URL that never answers: EXECUTION_TIMEOUT after
/// InvocationTimeoutSeconds (wall-clock time, see docs/custom-bus.md).
#[tokio::test]
async fn an_http_target_that_does_not_answer_in_time_is_an_execution_timeout() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hold = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let lambda = "arn:aws:lambda:us-east-1:000000000000:function:slow";
    let h = Harness::with(Config {
        jitter: false,
        lambda_endpoints: vec![(lambda.into(), format!("http://{addr}/invoke"))],
        ..Config::for_tests()
    })
    .await;
    let bus = bus(&h, "orders").await;
    let (dlq_url, dlq) = queue(&h, "dlq", &[]).await;
    subscriber(&h, "slow", &bus, lambda, json!({"InvokeConfiguration": {"InvocationTimeoutSeconds": 1}, "RetryPolicy": {"MaxRetryAttempts": 0}, "OnFailureConfiguration": {"Arn": dlq}})).await;
    put(&h, &bus, json!([entry(json!({}), None)])).await;
    crate::harness::no_hang("advance", h.advance(0.0)).await;
    let records: Vec<Value> = drain(&h, &dlq_url).await.iter().map(body).collect();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["errorCode"], "EXECUTION_TIMEOUT");
    assert_eq!(
        records[0]["failedMessages"][0]["targetRequestId"]
            .as_str()
            .unwrap()
            .len(),
        36
    );
    hold.abort();
}

/// The redrive proof, the spec's four steps: records in the DLQ; the cause fixed; a
/// POINT_IN_TIME subscriber with the same target and role, filtered on aws:EventId, over the
/// records' timestamps; exactly the failed events delivered, marked REPLAY; then cleanup.
#[tokio::test]
async fn redrive_by_replay_delivers_exactly_the_failed_events_marked_replay() {
    let h = exact().await;
    let bus = bus(&h, "orders").await;
    let (url, q) = queue(&h, "large-orders", &[]).await;
    let (dlq_url, dlq) = queue(&h, "large-orders-dlq", &[]).await;
    subscriber(
        &h,
        "large-orders",
        &bus,
        &q,
        json!({"InvokeConfiguration": {"MaxBatchSize": 2}, "OnFailureConfiguration": {"Arn": dlq}}),
    )
    .await;
    // Before the outage: delivered.
    let ok = put(
        &h,
        &bus,
        json!([entry(json!({"n": 0}), Some("order-1000"))]),
    )
    .await;
    assert_eq!(drain(&h, &url).await.len(), 1);
    // The outage: two events fail together and end in one record.
    let fault_id = fault(&h, &q, 403, json!({"errorCode": "ACCESS_DENIED"})).await;
    h.advance(12.0).await;
    let failed = put(
        &h,
        &bus,
        json!([
            entry(json!({"n": 1}), Some("order-1001")),
            entry(json!({"n": 2}), Some("order-1001"))
        ]),
    )
    .await;
    h.advance(400.0).await;
    // 1. Read the records: the event ids and the earliest and latest timestamps.
    let records: Vec<Value> = drain(&h, &dlq_url).await.iter().map(body).collect();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["errorCode"], "ACCESS_DENIED");
    let messages = records[0]["failedMessages"].as_array().unwrap();
    let ids: Vec<&str> = messages
        .iter()
        .map(|m| m["eventId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [failed[0].as_str(), failed[1].as_str()]);
    let times: Vec<&str> = messages
        .iter()
        .map(|m| m["timestamp"].as_str().unwrap())
        .collect();
    let start = times.iter().min().unwrap().to_string();
    let end = times.iter().max().unwrap().to_string();
    // Events after the outage are delivered live and must not be replayed.
    clear_faults(&h).await; // 2. Fix the cause.
    let _ = fault_id;
    let after = put(
        &h,
        &bus,
        json!([entry(json!({"n": 3}), Some("order-1001"))]),
    )
    .await;
    assert_eq!(drain(&h, &url).await.len(), 1);
    // 3. The replay subscriber.
    let epoch = |t: &str| switchyard::engine::time::parse_rfc3339(t).unwrap() as f64 / 1000.0;
    let pattern = json!({"aws:EventId": ids}).to_string();
    let redrive = subscriber(
        &h,
        "redrive-2026-09-16",
        &bus,
        &q,
        json!({
            "StartingPosition": "POINT_IN_TIME",
            "PointInTimeConfiguration": {"PointType": "TIMESTAMP", "StartingPoint": epoch(&start).floor(), "EndPoint": epoch(&end).ceil() + 60.0},
            "FilterConfiguration": {"Filters": [{"Scope": "SYSTEM_METADATA", "Pattern": pattern}]}
        }),
    )
    .await;
    h.advance(0.0).await;
    let replayed = drain(&h, &url).await;
    let got: Vec<(String, String)> = replayed
        .iter()
        .map(|m| {
            let e = body(m);
            (
                e["id"].as_str().unwrap().to_string(),
                e["system-metadata"]["aws:DeliveryType"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (failed[0].clone(), "REPLAY".into()),
            (failed[1].clone(), "REPLAY".into())
        ]
    );
    assert!(!got.iter().any(|(id, _)| *id == ok[0] || *id == after[0]));
    // A bounded replay takes no live traffic.
    put(
        &h,
        &bus,
        json!([entry(json!({"n": 4}), Some("order-1001"))]),
    )
    .await;
    assert_eq!(
        drain(&h, &url).await.len(),
        1,
        "only the live subscriber's copy"
    );
    // 4. Delete the replay subscriber (the records were deleted when read).
    v2(&h, "DeleteSubscriber", json!({"SubscriberArn": redrive})).await;
    assert!(drain(&h, &dlq_url).await.is_empty());
}

#[tokio::test]
async fn retention_bounds_what_a_point_in_time_subscriber_can_replay() {
    let h = exact().await;
    let out = v2(
        &h,
        "CreateEventBus",
        json!({"Name": "short", "RetentionPeriodInDays": 1}),
    )
    .await;
    let bus = out["EventBusArn"].as_str().unwrap().to_string();
    let (url, q) = queue(&h, "q", &[]).await;
    put(&h, &bus, json!([entry(json!({"n": "old"}), None)])).await;
    h.advance(86_400.0 + 1.0).await;
    put(&h, &bus, json!([entry(json!({"n": "new"}), None)])).await;
    // From the beginning of time, no end: the retained event, then live traffic.
    subscriber(&h, "from-start", &bus, &q, json!({"StartingPosition": "POINT_IN_TIME", "PointInTimeConfiguration": {"PointType": "TIMESTAMP", "StartingPoint": 0}})).await;
    put(&h, &bus, json!([entry(json!({"n": "live"}), None)])).await;
    let got: Vec<(String, String)> = drain(&h, &url)
        .await
        .iter()
        .map(|m| {
            let e = body(m);
            (
                e["detail"]["n"].as_str().unwrap().to_string(),
                e["system-metadata"]["aws:DeliveryType"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("new".into(), "REPLAY".into()),
            ("live".into(), "LIVE".into())
        ]
    );
    let r = raw(&h, "GetEventBus", json!({"EventBusArn": bus})).await;
    assert_eq!(r.json()["RetentionPeriodInDays"], 1);
    let _ = ROLE;
}
