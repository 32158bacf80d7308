//! SQS queue operations (issue 3): create/find/list/delete, attributes computed and stored,
//! purge, tags and permissions, through aws-sdk-sqs (AWS JSON 1.0) and raw AWS Query requests,
//! with every error in both shapes. Also the small helpers the other `sqs_*` files share.

use crate::harness::{Harness, xml_text, xml_texts};
use aws_sdk_sqs::Client;
use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sdk_sqs::types::QueueAttributeName;
use serde_json::{Value, json};
use std::collections::HashMap;

/// Creates a queue with `attrs` and answers its URL.
pub async fn create(sqs: &Client, name: &str, attrs: &[(&str, &str)]) -> String {
    let mut req = sqs.create_queue().queue_name(name);
    for (k, v) in attrs {
        req = req.attributes(QueueAttributeName::from(*k), *v);
    }
    req.send()
        .await
        .unwrap_or_else(|e| panic!("create {name}: {e:?}"))
        .queue_url
        .unwrap()
}

/// Every attribute of the queue (`All`), by name.
pub async fn attributes(sqs: &Client, url: &str) -> HashMap<String, String> {
    sqs.get_queue_attributes()
        .queue_url(url)
        .attribute_names(QueueAttributeName::All)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k.as_str().to_string(), v))
        .collect()
}

/// (visible, not visible, delayed) as GetQueueAttributes computes them.
pub async fn counts(sqs: &Client, url: &str) -> (u64, u64, u64) {
    let a = attributes(sqs, url).await;
    let n = |k: &str| a[k].parse::<u64>().unwrap();
    (
        n("ApproximateNumberOfMessages"),
        n("ApproximateNumberOfMessagesNotVisible"),
        n("ApproximateNumberOfMessagesDelayed"),
    )
}

/// A Query request that must succeed; answers the XML.
pub async fn query_ok(h: &Harness, params: &[(&str, &str)]) -> String {
    let r = h.query(params).await;
    assert_eq!(r.status, 200, "{params:?}: {}", r.body);
    assert!(
        r.body.contains(&format!("<{}Response", params[0].1)),
        "{}",
        r.body
    );
    r.body
}

/// A Query request that must fail: (HTTP status, `<Code>`), after checking the ErrorResponse shape.
pub async fn query_error(h: &Harness, params: &[(&str, &str)]) -> (u16, String) {
    let r = h.query(params).await;
    assert!(r.status >= 400, "{params:?} succeeded: {}", r.body);
    assert!(r.body.contains("<ErrorResponse"), "{}", r.body);
    assert_eq!(xml_text(&r.body, "Type").as_deref(), Some("Sender"));
    assert!(xml_text(&r.body, "RequestId").is_some(), "{}", r.body);
    (r.status, xml_text(&r.body, "Code").unwrap())
}

/// A raw JSON 1.0 request that must fail: (status, `__type`, `x-amzn-query-error`).
pub async fn json_error(h: &Harness, operation: &str, body: Value) -> (u16, String, String) {
    let r = h
        .json("1.0", &format!("AmazonSQS.{operation}"), &body.to_string())
        .await;
    assert!(r.status >= 400, "{operation} succeeded: {}", r.body);
    let kind = r.json()["__type"].as_str().unwrap().to_string();
    (
        r.status,
        kind,
        r.header("x-amzn-query-error")
            .unwrap_or_default()
            .to_string(),
    )
}

/// Sends `bodies` one by one.
pub async fn send_all(sqs: &Client, url: &str, bodies: &[&str]) {
    for b in bodies {
        sqs.send_message()
            .queue_url(url)
            .message_body(*b)
            .send()
            .await
            .unwrap();
    }
}

/// Receives (visibility 0, so nothing changes) every body now visible, in queue order.
pub async fn peek_bodies(sqs: &Client, url: &str) -> Vec<String> {
    let got = sqs
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .visibility_timeout(0)
        .send()
        .await
        .unwrap();
    got.messages
        .unwrap_or_default()
        .into_iter()
        .map(|m| m.body.unwrap())
        .collect()
}

/// The emulator's virtual time in milliseconds.
pub async fn now_ms(h: &Harness) -> i64 {
    h.control_get("clock").await["epochMillis"]
        .as_i64()
        .unwrap()
}

#[tokio::test]
async fn create_queue_stores_attributes_and_tags_and_is_idempotent() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("jobs")
        .attributes(QueueAttributeName::VisibilityTimeout, "45")
        .attributes(QueueAttributeName::DelaySeconds, "5")
        .attributes(QueueAttributeName::MaximumMessageSize, "2048")
        .attributes(QueueAttributeName::MessageRetentionPeriod, "600")
        .attributes(QueueAttributeName::ReceiveMessageWaitTimeSeconds, "3")
        .tags("team", "core")
        .tags("env", "test")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let a = attributes(&sqs, &url).await;
    for (k, v) in [
        ("VisibilityTimeout", "45"),
        ("DelaySeconds", "5"),
        ("MaximumMessageSize", "2048"),
        ("MessageRetentionPeriod", "600"),
        ("ReceiveMessageWaitTimeSeconds", "3"),
        ("SqsManagedSseEnabled", "true"),
        ("QueueArn", "arn:aws:sqs:us-east-1:000000000000:jobs"),
    ] {
        assert_eq!(a.get(k).map(String::as_str), Some(v), "{k}: {a:?}");
    }
    for absent in ["FifoQueue", "RedrivePolicy", "Policy", "KmsMasterKeyId"] {
        assert!(!a.contains_key(absent), "{absent} on a plain queue: {a:?}");
    }
    let tags = sqs
        .list_queue_tags()
        .queue_url(&url)
        .send()
        .await
        .unwrap()
        .tags
        .unwrap();
    assert_eq!(tags.len(), 2);
    assert_eq!(tags["team"], "core");

    // The same name and the same attributes (all of them: spec D2): the same URL.
    let same = [
        ("VisibilityTimeout", "45"),
        ("DelaySeconds", "5"),
        ("MaximumMessageSize", "2048"),
        ("MessageRetentionPeriod", "600"),
        ("ReceiveMessageWaitTimeSeconds", "3"),
    ];
    let again = create(&sqs, "jobs", &same).await;
    assert_eq!(again, url);
    // A different value: QueueAlreadyExists (shape QueueNameExists), JSON and Query.
    let mut req = sqs.create_queue().queue_name("jobs");
    for (k, v) in same {
        let v = if k == "VisibilityTimeout" { "46" } else { v };
        req = req.attributes(QueueAttributeName::from(k), v);
    }
    let err = req.send().await.unwrap_err();
    assert_eq!(err.code(), Some("QueueAlreadyExists"));
    assert!(
        err.message().unwrap().contains("VisibilityTimeout"),
        "{err:?}"
    );
    let (status, kind, header) = json_error(
        &h,
        "CreateQueue",
        json!({"QueueName": "jobs", "Attributes": {"DelaySeconds": "6"}}),
    )
    .await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            400,
            "com.amazonaws.sqs#QueueNameExists",
            "QueueAlreadyExists;Sender"
        )
    );
    let (status, code) = query_error(
        &h,
        &[
            ("Action", "CreateQueue"),
            ("QueueName", "jobs"),
            ("Attribute.1.Name", "VisibilityTimeout"),
            ("Attribute.1.Value", "1"),
        ],
    )
    .await;
    assert_eq!((status, code.as_str()), (400, "QueueAlreadyExists"));
    assert_eq!(attributes(&sqs, &url).await["VisibilityTimeout"], "45");
}

#[tokio::test]
async fn create_queue_over_query_with_attributes_and_tags() {
    let h = Harness::start().await;
    let xml = query_ok(
        &h,
        &[
            ("Action", "CreateQueue"),
            ("Version", "2012-11-05"),
            ("QueueName", "legacy"),
            ("Attribute.1.Name", "DelaySeconds"),
            ("Attribute.1.Value", "7"),
            ("Attribute.2.Name", "VisibilityTimeout"),
            ("Attribute.2.Value", "90"),
            ("Tag.1.Key", "owner"),
            ("Tag.1.Value", "ops"),
            ("Tag.2.Key", "cost"),
            ("Tag.2.Value", "42"),
        ],
    )
    .await;
    let url = xml_text(&xml, "QueueUrl").unwrap();
    let xml = query_ok(
        &h,
        &[
            ("Action", "GetQueueAttributes"),
            ("QueueUrl", &url),
            ("AttributeName.1", "All"),
        ],
    )
    .await;
    let names = xml_texts(&xml, "Name");
    let values = xml_texts(&xml, "Value");
    let got: HashMap<_, _> = names.into_iter().zip(values).collect();
    assert_eq!(got["DelaySeconds"], "7");
    assert_eq!(got["VisibilityTimeout"], "90");
    assert_eq!(got["QueueArn"], "arn:aws:sqs:us-east-1:000000000000:legacy");
    assert_eq!(got["ApproximateNumberOfMessages"], "0");
    // Only the names asked for.
    let xml = query_ok(
        &h,
        &[
            ("Action", "GetQueueAttributes"),
            ("QueueUrl", &url),
            ("AttributeName.1", "DelaySeconds"),
            ("AttributeName.2", "QueueArn"),
        ],
    )
    .await;
    assert_eq!(xml_texts(&xml, "Name"), ["DelaySeconds", "QueueArn"]);

    let xml = query_ok(&h, &[("Action", "ListQueueTags"), ("QueueUrl", &url)]).await;
    let keys = xml_texts(&xml, "Key");
    let values = xml_texts(&xml, "Value");
    let tags: HashMap<_, _> = keys.into_iter().zip(values).collect();
    assert_eq!(tags.len(), 2, "{xml}");
    assert_eq!(tags["owner"], "ops");
    assert_eq!(tags["cost"], "42");

    // The SDK sees the same.
    let sqs = h.sqs();
    assert_eq!(attributes(&sqs, &url).await["DelaySeconds"], "7");
}

#[tokio::test]
async fn attribute_errors_in_both_shapes() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "q", &[]).await;

    // Unknown attribute names.
    let err = sqs
        .create_queue()
        .queue_name("other")
        .attributes(QueueAttributeName::from("Colour"), "blue")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidAttributeName"));
    let err = sqs
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(QueueAttributeName::from("Colour"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidAttributeName"));
    let (status, kind, header) = json_error(
        &h,
        "SetQueueAttributes",
        json!({"QueueUrl": url, "Attributes": {"Colour": "1"}}),
    )
    .await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            400,
            "com.amazonaws.sqs#InvalidAttributeName",
            "InvalidAttributeName;Sender"
        )
    );
    let (_, code) = query_error(
        &h,
        &[
            ("Action", "GetQueueAttributes"),
            ("QueueUrl", &url),
            ("AttributeName.1", "Colour"),
        ],
    )
    .await;
    assert_eq!(code, "InvalidAttributeName");
    // FIFO-only attributes on a standard queue.
    let err = sqs
        .set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::ContentBasedDeduplication, "true")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidAttributeName"));
    assert_eq!(
        err.message(),
        Some("Unknown Attribute ContentBasedDeduplication.")
    );

    // Values out of range.
    for (name, value) in [
        ("VisibilityTimeout", "43201"),
        ("DelaySeconds", "901"),
        ("MessageRetentionPeriod", "59"),
        ("MessageRetentionPeriod", "1209601"),
        ("MaximumMessageSize", "1023"),
        ("ReceiveMessageWaitTimeSeconds", "21"),
        ("KmsDataKeyReusePeriodSeconds", "59"),
        ("VisibilityTimeout", "ten"),
    ] {
        let err = sqs
            .set_queue_attributes()
            .queue_url(&url)
            .attributes(QueueAttributeName::from(name), value)
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some("InvalidAttributeValue"), "{name}={value}");
    }
    let (status, code) = query_error(
        &h,
        &[
            ("Action", "SetQueueAttributes"),
            ("QueueUrl", &url),
            ("Attribute.1.Name", "DelaySeconds"),
            ("Attribute.1.Value", "-1"),
        ],
    )
    .await;
    assert_eq!((status, code.as_str()), (400, "InvalidAttributeValue"));
    // The queue type cannot change: a standard queue does not know FifoQueue (AWS).
    let err = sqs
        .set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidAttributeName"));
    // Nothing was changed by the failed requests.
    let a = attributes(&sqs, &url).await;
    assert_eq!(
        (a["VisibilityTimeout"].as_str(), a["DelaySeconds"].as_str()),
        ("30", "0")
    );

    // Names and missing parameters.
    let err = sqs
        .create_queue()
        .queue_name("a".repeat(81))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let err = sqs
        .create_queue()
        .queue_name("plain.fifo")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let (status, kind, header) = json_error(&h, "CreateQueue", json!({})).await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            400,
            "com.amazon.coral.service#MissingRequiredParameterException",
            "MissingParameter;Sender"
        )
    );
    let (_, code) = query_error(&h, &[("Action", "GetQueueUrl")]).await;
    assert_eq!(code, "MissingParameter");
}

#[tokio::test]
async fn computed_attributes_follow_sends_receives_and_the_clock() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let created_ms = now_ms(&h).await;
    let url = create(&sqs, "counted", &[("VisibilityTimeout", "30")]).await;
    let a = attributes(&sqs, &url).await;
    assert_eq!(a["CreatedTimestamp"], (created_ms / 1000).to_string());
    assert_eq!(a["LastModifiedTimestamp"], (created_ms / 1000).to_string());
    assert_eq!(counts(&sqs, &url).await, (0, 0, 0));

    send_all(&sqs, &url, &["a", "b"]).await;
    sqs.send_message()
        .queue_url(&url)
        .message_body("late")
        .delay_seconds(10)
        .send()
        .await
        .unwrap();
    assert_eq!(counts(&sqs, &url).await, (2, 0, 1));
    let got = sqs.receive_message().queue_url(&url).send().await.unwrap();
    assert_eq!(got.messages.unwrap().len(), 1);
    assert_eq!(counts(&sqs, &url).await, (1, 1, 1));
    h.advance(10.0).await;
    assert_eq!(counts(&sqs, &url).await, (2, 1, 0), "the delay has passed");
    h.advance(20.0).await;
    assert_eq!(
        counts(&sqs, &url).await,
        (3, 0, 0),
        "the visibility timeout has passed"
    );

    // SetQueueAttributes changes LastModifiedTimestamp (seconds), not CreatedTimestamp.
    h.advance(100.0).await;
    let modified_ms = now_ms(&h).await;
    sqs.set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::VisibilityTimeout, "60")
        .attributes(QueueAttributeName::DelaySeconds, "2")
        .send()
        .await
        .unwrap();
    let a = attributes(&sqs, &url).await;
    assert_eq!(a["CreatedTimestamp"], (created_ms / 1000).to_string());
    assert_eq!(a["LastModifiedTimestamp"], (modified_ms / 1000).to_string());
    assert_eq!(a["VisibilityTimeout"], "60");
    assert_eq!(a["DelaySeconds"], "2");
    // Over Query.
    query_ok(
        &h,
        &[
            ("Action", "SetQueueAttributes"),
            ("QueueUrl", &url),
            ("Attribute.1.Name", "ReceiveMessageWaitTimeSeconds"),
            ("Attribute.1.Value", "0"),
            ("Attribute.2.Name", "MaximumMessageSize"),
            ("Attribute.2.Value", "4096"),
        ],
    )
    .await;
    let a = attributes(&sqs, &url).await;
    assert_eq!(a["MaximumMessageSize"], "4096");
    // The new queue delay applies to new messages only.
    send_all(&sqs, &url, &["delayed by the queue"]).await;
    assert_eq!(counts(&sqs, &url).await, (3, 0, 1));
    h.advance(2.0).await;
    assert_eq!(counts(&sqs, &url).await, (4, 0, 0));
}

#[tokio::test]
async fn retention_expires_messages_on_the_virtual_clock() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "brief", &[("MessageRetentionPeriod", "60")]).await;
    send_all(&sqs, &url, &["old"]).await;
    h.advance(30.0).await;
    send_all(&sqs, &url, &["young"]).await;
    // Received messages expire too.
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .visibility_timeout(600)
        .send()
        .await
        .unwrap();
    assert_eq!(got.messages.unwrap()[0].body.as_deref(), Some("old"));
    h.advance(29.999).await;
    assert_eq!(counts(&sqs, &url).await, (1, 1, 0));
    h.advance(0.001).await;
    assert_eq!(counts(&sqs, &url).await, (1, 0, 0), "old is gone");
    assert_eq!(peek_bodies(&sqs, &url).await, ["young"]);
    h.advance(30.0).await;
    assert_eq!(counts(&sqs, &url).await, (0, 0, 0));
    assert!(peek_bodies(&sqs, &url).await.is_empty());
}

#[tokio::test]
async fn get_queue_url_and_list_queues_over_both_protocols() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    for name in ["alpha", "beta", "alpine", "gamma"] {
        create(&sqs, name, &[]).await;
    }
    let owner = h.sqs_as("111122223333", "us-east-1");
    let theirs = create(&owner, "shared", &[]).await;
    owner
        .add_permission()
        .queue_url(&theirs)
        .label("find-me")
        .aws_account_ids("000000000000")
        .actions("GetQueueUrl")
        .send()
        .await
        .unwrap();

    // QueueOwnerAWSAccountId (the owner's policy lets this account find it), JSON and Query.
    let found = sqs
        .get_queue_url()
        .queue_name("shared")
        .queue_owner_aws_account_id("111122223333")
        .send()
        .await
        .unwrap();
    assert_eq!(found.queue_url.as_deref(), Some(theirs.as_str()));
    let xml = query_ok(
        &h,
        &[
            ("Action", "GetQueueUrl"),
            ("QueueName", "shared"),
            ("QueueOwnerAWSAccountId", "111122223333"),
        ],
    )
    .await;
    assert_eq!(xml_text(&xml, "QueueUrl"), Some(theirs));
    let (status, code) =
        query_error(&h, &[("Action", "GetQueueUrl"), ("QueueName", "shared")]).await;
    assert_eq!(
        (status, code.as_str()),
        (400, "AWS.SimpleQueueService.NonExistentQueue")
    );
    let (status, kind, header) = json_error(&h, "GetQueueUrl", json!({"QueueName": "nope"})).await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            400,
            "com.amazonaws.sqs#QueueDoesNotExist",
            "AWS.SimpleQueueService.NonExistentQueue;Sender"
        )
    );

    // ListQueues: prefix, MaxResults and NextToken over Query.
    let xml = query_ok(&h, &[("Action", "ListQueues"), ("QueueNamePrefix", "al")]).await;
    let names: Vec<String> = xml_texts(&xml, "QueueUrl")
        .iter()
        .map(|u| u.rsplit('/').next().unwrap().to_string())
        .collect();
    assert_eq!(names, ["alpha", "alpine"]);
    let xml = query_ok(&h, &[("Action", "ListQueues"), ("MaxResults", "3")]).await;
    assert_eq!(xml_texts(&xml, "QueueUrl").len(), 3);
    let token = xml_text(&xml, "NextToken").expect("a next page");
    let xml = query_ok(
        &h,
        &[
            ("Action", "ListQueues"),
            ("MaxResults", "3"),
            ("NextToken", &token),
        ],
    )
    .await;
    let rest: Vec<String> = xml_texts(&xml, "QueueUrl")
        .iter()
        .map(|u| u.rsplit('/').next().unwrap().to_string())
        .collect();
    assert_eq!(rest, ["gamma"]);
    assert_eq!(xml_text(&xml, "NextToken"), None);
    let err = sqs.list_queues().max_results(0).send().await.unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    // An empty list: no QueueUrl at all.
    let listed = sqs
        .list_queues()
        .queue_name_prefix("zzz")
        .send()
        .await
        .unwrap();
    assert!(listed.queue_urls.unwrap_or_default().is_empty());
}

#[tokio::test]
async fn deleted_queue_names_are_reserved_for_60_seconds() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "short-lived", &[]).await;
    send_all(&sqs, &url, &["x"]).await;
    query_ok(&h, &[("Action", "DeleteQueue"), ("QueueUrl", &url)]).await;
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("y")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_queue_does_not_exist());
    let err = sqs.delete_queue().queue_url(&url).send().await.unwrap_err();
    assert!(err.into_service_error().is_queue_does_not_exist());

    let err = sqs
        .create_queue()
        .queue_name("short-lived")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some("AWS.SimpleQueueService.QueueDeletedRecently")
    );
    assert!(err.into_service_error().is_queue_deleted_recently());
    h.advance(30.0).await;
    let (status, code) = query_error(
        &h,
        &[("Action", "CreateQueue"), ("QueueName", "short-lived")],
    )
    .await;
    assert_eq!(
        (status, code.as_str()),
        (400, "AWS.SimpleQueueService.QueueDeletedRecently")
    );
    h.advance(30.0).await;
    let again = create(&sqs, "short-lived", &[]).await;
    assert_eq!(again, url);
    assert_eq!(
        counts(&sqs, &again).await,
        (0, 0, 0),
        "a new queue, not the old messages"
    );
}

#[tokio::test]
async fn purge_empties_the_queue_once_a_minute() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "purged", &[]).await;
    send_all(&sqs, &url, &["a", "b", "c"]).await;
    sqs.send_message()
        .queue_url(&url)
        .message_body("delayed")
        .delay_seconds(60)
        .send()
        .await
        .unwrap();
    sqs.receive_message().queue_url(&url).send().await.unwrap();
    assert_eq!(counts(&sqs, &url).await, (2, 1, 1));
    sqs.purge_queue().queue_url(&url).send().await.unwrap();
    assert_eq!(counts(&sqs, &url).await, (0, 0, 0));

    let err = sqs.purge_queue().queue_url(&url).send().await.unwrap_err();
    assert_eq!(
        err.code(),
        Some("AWS.SimpleQueueService.PurgeQueueInProgress")
    );
    assert!(err.into_service_error().is_purge_queue_in_progress());
    let (status, kind, header) = json_error(&h, "PurgeQueue", json!({"QueueUrl": url})).await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            403,
            "com.amazonaws.sqs#PurgeQueueInProgress",
            "AWS.SimpleQueueService.PurgeQueueInProgress;Sender"
        )
    );
    // Sends after a purge are kept.
    send_all(&sqs, &url, &["after"]).await;
    h.advance(59.999).await;
    let (status, code) = query_error(&h, &[("Action", "PurgeQueue"), ("QueueUrl", &url)]).await;
    assert_eq!(
        (status, code.as_str()),
        (403, "AWS.SimpleQueueService.PurgeQueueInProgress")
    );
    assert_eq!(peek_bodies(&sqs, &url).await, ["after"]);
    h.advance(0.001).await;
    query_ok(&h, &[("Action", "PurgeQueue"), ("QueueUrl", &url)]).await;
    assert_eq!(counts(&sqs, &url).await, (0, 0, 0));
}

#[tokio::test]
async fn tags_over_both_protocols() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "tagged", &[]).await;
    sqs.tag_queue()
        .queue_url(&url)
        .tags("a", "1")
        .tags("b", "2")
        .send()
        .await
        .unwrap();
    query_ok(
        &h,
        &[
            ("Action", "TagQueue"),
            ("QueueUrl", &url),
            ("Tag.1.Key", "c"),
            ("Tag.1.Value", "3"),
            ("Tag.2.Key", "a"),
            ("Tag.2.Value", "one"),
        ],
    )
    .await;
    let tags = sqs
        .list_queue_tags()
        .queue_url(&url)
        .send()
        .await
        .unwrap()
        .tags
        .unwrap();
    assert_eq!(
        tags,
        HashMap::from([
            ("a".to_string(), "one".to_string()),
            ("b".into(), "2".into()),
            ("c".into(), "3".into())
        ])
    );
    query_ok(
        &h,
        &[
            ("Action", "UntagQueue"),
            ("QueueUrl", &url),
            ("TagKey.1", "a"),
            ("TagKey.2", "c"),
        ],
    )
    .await;
    sqs.untag_queue()
        .queue_url(&url)
        .tag_keys("missing")
        .send()
        .await
        .unwrap();
    let xml = query_ok(&h, &[("Action", "ListQueueTags"), ("QueueUrl", &url)]).await;
    assert_eq!(xml_texts(&xml, "Key"), ["b"]);
    assert_eq!(xml_texts(&xml, "Value"), ["2"]);
    sqs.untag_queue()
        .queue_url(&url)
        .tag_keys("b")
        .send()
        .await
        .unwrap();
    let tags = sqs.list_queue_tags().queue_url(&url).send().await.unwrap();
    assert!(tags.tags.unwrap_or_default().is_empty());
    // At most 50 tags.
    let mut req = sqs.tag_queue().queue_url(&url);
    for i in 0..51 {
        req = req.tags(format!("k{i}"), "v");
    }
    let err = req.send().await.unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let missing = format!("{}/000000000000/nope", h.url());
    let (_, code) = query_error(&h, &[("Action", "ListQueueTags"), ("QueueUrl", &missing)]).await;
    assert_eq!(code, "AWS.SimpleQueueService.NonExistentQueue");
}

#[tokio::test]
async fn permissions_edit_the_policy_attribute() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "shared", &[]).await;
    h.advance(5.0).await;
    let before = attributes(&sqs, &url).await;
    sqs.add_permission()
        .queue_url(&url)
        .label("senders")
        .aws_account_ids("111122223333")
        .actions("SendMessage")
        .send()
        .await
        .unwrap();
    query_ok(
        &h,
        &[
            ("Action", "AddPermission"),
            ("QueueUrl", &url),
            ("Label", "readers"),
            ("AWSAccountId.1", "111122223333"),
            ("AWSAccountId.2", "444455556666"),
            ("ActionName.1", "ReceiveMessage"),
            ("ActionName.2", "DeleteMessage"),
        ],
    )
    .await;
    let a = attributes(&sqs, &url).await;
    assert_ne!(a["LastModifiedTimestamp"], before["LastModifiedTimestamp"]);
    let policy: Value = serde_json::from_str(&a["Policy"]).unwrap();
    let statements = policy["Statement"].as_array().unwrap();
    assert_eq!(statements.len(), 2, "{policy}");
    assert_eq!(statements[0]["Sid"], "senders");
    assert_eq!(statements[0]["Effect"], "Allow");
    assert_eq!(statements[0]["Action"], "SQS:SendMessage");
    assert_eq!(
        statements[0]["Principal"]["AWS"],
        "arn:aws:iam::111122223333:root"
    );
    assert_eq!(
        statements[0]["Resource"],
        "arn:aws:sqs:us-east-1:000000000000:shared"
    );
    assert_eq!(
        statements[1]["Action"],
        json!(["SQS:ReceiveMessage", "SQS:DeleteMessage"])
    );
    assert_eq!(
        statements[1]["Principal"]["AWS"],
        json!([
            "arn:aws:iam::111122223333:root",
            "arn:aws:iam::444455556666:root"
        ])
    );

    // A label may be used once.
    let err = sqs
        .add_permission()
        .queue_url(&url)
        .label("senders")
        .aws_account_ids("111122223333")
        .actions("SendMessage")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    // More than 7 actions: OverLimit (403), JSON and Query.
    let many = [
        "SendMessage",
        "ReceiveMessage",
        "DeleteMessage",
        "ChangeMessageVisibility",
        "GetQueueAttributes",
        "GetQueueUrl",
        "ListDeadLetterSourceQueues",
        "PurgeQueue",
    ];
    let mut req = sqs
        .add_permission()
        .queue_url(&url)
        .label("everything")
        .aws_account_ids("111122223333");
    for a in many {
        req = req.actions(a);
    }
    let err = req.send().await.unwrap_err();
    assert_eq!(err.code(), Some("OverLimit"));
    assert!(err.into_service_error().is_over_limit());
    let mut params = vec![
        ("Action", "AddPermission"),
        ("QueueUrl", url.as_str()),
        ("Label", "everything"),
        ("AWSAccountId.1", "111122223333"),
    ];
    let keys: Vec<String> = (1..=many.len())
        .map(|i| format!("ActionName.{i}"))
        .collect();
    params.extend(keys.iter().map(String::as_str).zip(many));
    let (status, code) = query_error(&h, &params).await;
    assert_eq!((status, code.as_str()), (403, "OverLimit"));
    let err = sqs
        .add_permission()
        .queue_url(&url)
        .label("bad")
        .aws_account_ids("111122223333")
        .actions("Frobnicate")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));

    // RemovePermission, JSON and Query.
    h.advance(5.0).await;
    let before = attributes(&sqs, &url).await;
    sqs.remove_permission()
        .queue_url(&url)
        .label("senders")
        .send()
        .await
        .unwrap();
    let after = attributes(&sqs, &url).await;
    assert_ne!(
        after["LastModifiedTimestamp"],
        before["LastModifiedTimestamp"]
    );
    let policy: Value = serde_json::from_str(&after["Policy"]).unwrap();
    assert_eq!(policy["Statement"].as_array().unwrap().len(), 1);
    assert_eq!(policy["Statement"][0]["Sid"], "readers");
    query_ok(
        &h,
        &[
            ("Action", "RemovePermission"),
            ("QueueUrl", &url),
            ("Label", "readers"),
        ],
    )
    .await;
    assert!(!attributes(&sqs, &url).await.contains_key("Policy"));
    let (_, code) = query_error(
        &h,
        &[
            ("Action", "RemovePermission"),
            ("QueueUrl", &url),
            ("Label", "readers"),
        ],
    )
    .await;
    assert_eq!(code, "InvalidParameterValue");

    // A Policy set as an attribute is returned as given (semantically).
    let doc = json!({"Version": "2012-10-17", "Statement": [{"Sid": "x", "Effect": "Deny",
        "Principal": "*", "Action": "sqs:*", "Resource": "*"}]});
    sqs.set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::Policy, doc.to_string())
        .send()
        .await
        .unwrap();
    let stored: Value = serde_json::from_str(&attributes(&sqs, &url).await["Policy"]).unwrap();
    assert_eq!(stored, doc);
    let err = sqs
        .set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::Policy, "{not json")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidAttributeValue"));
}

#[tokio::test]
async fn encryption_attributes_are_stored_and_returned() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(
        &sqs,
        "secret",
        &[
            ("KmsMasterKeyId", "alias/aws/sqs"),
            ("KmsDataKeyReusePeriodSeconds", "600"),
        ],
    )
    .await;
    let a = attributes(&sqs, &url).await;
    assert_eq!(a["KmsMasterKeyId"], "alias/aws/sqs");
    assert_eq!(a["KmsDataKeyReusePeriodSeconds"], "600");
    assert_eq!(a["SqsManagedSseEnabled"], "false");
    // Switching to SQS-managed SSE drops the KMS key.
    sqs.set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::SqsManagedSseEnabled, "true")
        .send()
        .await
        .unwrap();
    let a = attributes(&sqs, &url).await;
    assert_eq!(a["SqsManagedSseEnabled"], "true");
    assert!(!a.contains_key("KmsMasterKeyId"), "{a:?}");
    // Both at once is refused.
    let err = sqs
        .set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::SqsManagedSseEnabled, "true")
        .attributes(QueueAttributeName::KmsMasterKeyId, "alias/mine")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidAttributeValue"));
    // Disabling SSE altogether.
    query_ok(
        &h,
        &[
            ("Action", "SetQueueAttributes"),
            ("QueueUrl", &url),
            ("Attribute.1.Name", "SqsManagedSseEnabled"),
            ("Attribute.1.Value", "false"),
        ],
    )
    .await;
    let xml = query_ok(
        &h,
        &[
            ("Action", "GetQueueAttributes"),
            ("QueueUrl", &url),
            ("AttributeName.1", "SqsManagedSseEnabled"),
        ],
    )
    .await;
    assert_eq!(xml_text(&xml, "Value").as_deref(), Some("false"));
}
