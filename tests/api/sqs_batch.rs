//! SQS messages (issue 3): attributes of every type with AWS's digests, system attributes,
//! visibility changes, receipt handles and the three batch operations with per-entry failures,
//! through aws-sdk-sqs and raw Query requests. Bad requests never lose or corrupt what was sent.

use crate::harness::{Harness, xml_text, xml_texts};
use crate::sqs_queues::{
    counts, create, json_error, now_ms, peek_bodies, query_error, query_ok, send_all,
};
use aws_sdk_sqs::Client;
use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sdk_sqs::primitives::Blob;
use aws_sdk_sqs::types::{
    ChangeMessageVisibilityBatchRequestEntry, DeleteMessageBatchRequestEntry,
    MessageAttributeValue, MessageSystemAttributeName, MessageSystemAttributeNameForSends,
    MessageSystemAttributeValue, QueueAttributeName, SendMessageBatchRequestEntry,
};
use serde_json::json;
use std::collections::HashMap;

fn string_attr(data_type: &str, value: &str) -> MessageAttributeValue {
    MessageAttributeValue::builder()
        .data_type(data_type)
        .string_value(value)
        .build()
        .unwrap()
}

fn binary_attr(data_type: &str, value: &[u8]) -> MessageAttributeValue {
    MessageAttributeValue::builder()
        .data_type(data_type)
        .binary_value(Blob::new(value))
        .build()
        .unwrap()
}

fn entry(id: &str, body: &str) -> SendMessageBatchRequestEntry {
    SendMessageBatchRequestEntry::builder()
        .id(id)
        .message_body(body)
        .build()
        .unwrap()
}

/// MD5 digests of the SQS developer guide's message-attribute example (AWS's test vectors).
const MD5_STRING: &str = "19e27d4e946b072f3f58da80d94fd778";
const MD5_NUMBER: &str = "9fe1b90bbd9965bdf77bac517c7d2495";
const MD5_BINARY: &str = "31a92b15d92f8db860eda32aceb656c3";
const MD5_ALL_THREE: &str = "c932db14a896c663f83c260297d594ff";
const BIG_NUMBER: &str = "4563442423554324324264524243.32543234";

#[tokio::test]
async fn message_attribute_digests_match_aws_test_vectors() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "digests", &[]).await;
    let cases: [(&str, Vec<(&str, MessageAttributeValue)>); 4] = [
        (
            MD5_STRING,
            vec![("attribName1", string_attr("String", "attribValue 1"))],
        ),
        (
            MD5_NUMBER,
            vec![(
                "customNumberTypeAttrib",
                string_attr("Number.float", BIG_NUMBER),
            )],
        ),
        (
            MD5_BINARY,
            vec![(
                "binaryAttribute",
                binary_attr("Binary", b"Hello binary world!"),
            )],
        ),
        (
            MD5_ALL_THREE,
            vec![
                ("attribName1", string_attr("String", "attribValue 1")),
                (
                    "customNumberTypeAttrib",
                    string_attr("Number.float", BIG_NUMBER),
                ),
                (
                    "binaryAttribute",
                    binary_attr("Binary", b"Hello binary world!"),
                ),
            ],
        ),
    ];
    for (digest, attrs) in cases {
        let mut req = sqs.send_message().queue_url(&url).message_body("body");
        for (name, value) in attrs {
            req = req.message_attributes(name, value);
        }
        let sent = req.send().await.unwrap();
        assert_eq!(sent.md5_of_message_attributes.as_deref(), Some(digest));
        assert_eq!(
            sent.md5_of_message_body.as_deref(),
            Some("841a2d689ad86bd1611447453c22c6fc")
        );
    }
    // Received: each message's digest is of the attributes it comes back with.
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .message_attribute_names("All")
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let digests: Vec<_> = got
        .iter()
        .map(|m| m.md5_of_message_attributes.clone().unwrap())
        .collect();
    assert_eq!(digests, [MD5_STRING, MD5_NUMBER, MD5_BINARY, MD5_ALL_THREE]);
    let all = got[3].message_attributes.as_ref().unwrap();
    assert_eq!(all["customNumberTypeAttrib"].data_type, "Number.float");
    assert_eq!(
        all["customNumberTypeAttrib"].string_value.as_deref(),
        Some(BIG_NUMBER)
    );
    assert_eq!(
        all["binaryAttribute"].binary_value,
        Some(Blob::new(&b"Hello binary world!"[..]))
    );
    // Asking for one attribute returns that one, and its digest.
    h.advance(30.0).await;
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .message_attribute_names("attribName1")
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    assert_eq!(got[3].message_attributes.as_ref().unwrap().len(), 1);
    assert_eq!(
        got[3].md5_of_message_attributes.as_deref(),
        Some(MD5_STRING)
    );
    assert_eq!(got[1].message_attributes, None);
    assert_eq!(got[1].md5_of_message_attributes, None);
}

#[tokio::test]
async fn attribute_types_and_name_filters_over_query() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "typed", &[]).await;
    let xml = query_ok(
        &h,
        &[
            ("Action", "SendMessage"),
            ("QueueUrl", &url),
            ("MessageBody", "body"),
            ("MessageAttribute.1.Name", "attribName1"),
            ("MessageAttribute.1.Value.DataType", "String"),
            ("MessageAttribute.1.Value.StringValue", "attribValue 1"),
            ("MessageAttribute.2.Name", "customNumberTypeAttrib"),
            ("MessageAttribute.2.Value.DataType", "Number.float"),
            ("MessageAttribute.2.Value.StringValue", BIG_NUMBER),
            ("MessageAttribute.3.Name", "binaryAttribute"),
            ("MessageAttribute.3.Value.DataType", "Binary"),
            (
                "MessageAttribute.3.Value.BinaryValue",
                "SGVsbG8gYmluYXJ5IHdvcmxkIQ==",
            ),
        ],
    )
    .await;
    assert_eq!(
        xml_text(&xml, "MD5OfMessageAttributes").as_deref(),
        Some(MD5_ALL_THREE)
    );
    let xml = query_ok(
        &h,
        &[
            ("Action", "ReceiveMessage"),
            ("QueueUrl", &url),
            ("MessageAttributeName.1", "All"),
            ("VisibilityTimeout", "0"),
        ],
    )
    .await;
    assert_eq!(
        xml_text(&xml, "MD5OfMessageAttributes").as_deref(),
        Some(MD5_ALL_THREE)
    );
    // Map entries come in name order.
    assert_eq!(
        xml_texts(&xml, "DataType"),
        ["String", "Binary", "Number.float"]
    );
    assert_eq!(
        xml_text(&xml, "BinaryValue").as_deref(),
        Some("SGVsbG8gYmluYXJ5IHdvcmxkIQ==")
    );

    // Name filters: exact names, `prefix.*`, `.*`.
    let mut req = sqs.send_message().queue_url(&url).message_body("filtered");
    for name in ["order.id", "order.kind", "other"] {
        req = req.message_attributes(name, string_attr("String", name));
    }
    req.send().await.unwrap();
    for (filter, expected) in [
        (vec!["order.*"], vec!["order.id", "order.kind"]),
        (vec!["other", "order.id"], vec!["order.id", "other"]),
        (vec![".*"], vec!["order.id", "order.kind", "other"]),
        (vec!["nothing"], vec![]),
    ] {
        let got = sqs
            .receive_message()
            .queue_url(&url)
            .max_number_of_messages(10)
            .visibility_timeout(0)
            .set_message_attribute_names(Some(filter.iter().map(|s| s.to_string()).collect()))
            .send()
            .await
            .unwrap()
            .messages
            .unwrap();
        let m = got
            .iter()
            .find(|m| m.body.as_deref() == Some("filtered"))
            .unwrap();
        let mut names: Vec<_> = m
            .message_attributes
            .clone()
            .unwrap_or_default()
            .into_keys()
            .collect();
        names.sort();
        assert_eq!(names, expected, "{filter:?}");
    }
}

#[tokio::test]
async fn system_attributes_are_selectable() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "system", &[]).await;
    let sent_at = now_ms(&h).await;
    let trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1";
    let sent = sqs
        .send_message()
        .queue_url(&url)
        .message_body("traced")
        .message_system_attributes(
            MessageSystemAttributeNameForSends::AwsTraceHeader,
            MessageSystemAttributeValue::builder()
                .data_type("String")
                .string_value(trace)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    // The system attribute digest uses the same encoding as message attributes.
    let mut buf = vec![];
    for part in [&b"AWSTraceHeader"[..], b"String"] {
        buf.extend_from_slice(&(part.len() as u32).to_be_bytes());
        buf.extend_from_slice(part);
    }
    buf.push(1);
    buf.extend_from_slice(&(trace.len() as u32).to_be_bytes());
    buf.extend_from_slice(trace.as_bytes());
    let expected: String = {
        use md5::{Digest, Md5};
        Md5::digest(&buf)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    assert_eq!(
        sent.md5_of_message_system_attributes.as_deref(),
        Some(expected.as_str())
    );
    assert_eq!(sent.sequence_number, None, "standard queues have none");

    h.advance(5.0).await;
    let first_receive = now_ms(&h).await;
    #[allow(deprecated)]
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .attribute_names(QueueAttributeName::All)
        .visibility_timeout(10)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let a = got[0].attributes.clone().unwrap();
    use MessageSystemAttributeName as N;
    assert_eq!(a[&N::SentTimestamp], sent_at.to_string());
    assert_eq!(a[&N::ApproximateReceiveCount], "1");
    assert_eq!(
        a[&N::ApproximateFirstReceiveTimestamp],
        first_receive.to_string()
    );
    assert_eq!(a[&N::SenderId], "000000000000");
    assert_eq!(a[&N::AwsTraceHeader], trace);
    for absent in [
        N::MessageGroupId,
        N::MessageDeduplicationId,
        N::SequenceNumber,
        N::DeadLetterQueueSourceArn,
    ] {
        assert!(!a.contains_key(&absent), "{absent:?} on a standard queue");
    }

    // Only what is asked for; the first receive time stays.
    h.advance(10.0).await;
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .message_system_attribute_names(N::ApproximateReceiveCount)
        .message_system_attribute_names(N::ApproximateFirstReceiveTimestamp)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let a = got[0].attributes.clone().unwrap();
    assert_eq!(a.len(), 2, "{a:?}");
    assert_eq!(a[&N::ApproximateReceiveCount], "2");
    assert_eq!(
        a[&N::ApproximateFirstReceiveTimestamp],
        first_receive.to_string()
    );
    let got = sqs.receive_message().queue_url(&url).send().await.unwrap();
    assert!(got.messages.is_none(), "hidden by the last receive");

    // Query: AttributeName.N, as old SDKs send it; AWSTraceHeader sent as a system attribute.
    let q = create(&sqs, "system-query", &[]).await;
    query_ok(
        &h,
        &[
            ("Action", "SendMessage"),
            ("QueueUrl", &q),
            ("MessageBody", "q"),
            ("MessageSystemAttribute.1.Name", "AWSTraceHeader"),
            ("MessageSystemAttribute.1.Value.DataType", "String"),
            ("MessageSystemAttribute.1.Value.StringValue", trace),
        ],
    )
    .await;
    let xml = query_ok(
        &h,
        &[
            ("Action", "ReceiveMessage"),
            ("QueueUrl", &q),
            ("AttributeName.1", "SentTimestamp"),
            ("AttributeName.2", "AWSTraceHeader"),
        ],
    )
    .await;
    assert_eq!(xml_texts(&xml, "Name"), ["AWSTraceHeader", "SentTimestamp"]);
    assert_eq!(xml_texts(&xml, "Value")[0], trace);
    // Only AWSTraceHeader may be sent.
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .message_system_attributes(
            MessageSystemAttributeNameForSends::from("SenderId"),
            MessageSystemAttributeValue::builder()
                .data_type("String")
                .string_value("me")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
}

#[tokio::test]
async fn invalid_messages_are_refused_and_nothing_accepted_is_lost() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "strict", &[("MaximumMessageSize", "1024")]).await;
    send_all(&sqs, &url, &["kept-1"]).await;

    // Characters outside the allowed set: InvalidMessageContents, JSON and Query.
    for body in ["bad \u{1} char", "\u{FFFE}", "nul\u{0}"] {
        let err = sqs
            .send_message()
            .queue_url(&url)
            .message_body(body)
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some("InvalidMessageContents"), "{body:?}");
    }
    let (status, kind, header) = json_error(
        &h,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "a\u{8}b"}),
    )
    .await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            400,
            "com.amazonaws.sqs#InvalidMessageContents",
            "InvalidMessageContents;Sender"
        )
    );
    let (status, code) = query_error(
        &h,
        &[
            ("Action", "SendMessage"),
            ("QueueUrl", &url),
            ("MessageBody", "x\u{1F}y"),
        ],
    )
    .await;
    assert_eq!((status, code.as_str()), (400, "InvalidMessageContents"));
    // Allowed edge characters pass.
    let edge = "\t\n\r \u{D7FF}\u{E000}\u{FFFD}\u{10000}\u{10FFFF}";
    sqs.send_message()
        .queue_url(&url)
        .message_body(edge)
        .send()
        .await
        .unwrap();

    // Size: MaximumMessageSize counts the body and the attributes.
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("x".repeat(1025))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("x".repeat(1000))
        .message_attributes("pad", string_attr("String", &"y".repeat(100)))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    sqs.send_message()
        .queue_url(&url)
        .message_body("x".repeat(1024))
        .send()
        .await
        .unwrap();

    // Attributes: empty values, unknown types, bad names, more than ten, bad numbers.
    let too_many = (0..11)
        .map(|i| (format!("a{i}"), string_attr("String", "v")))
        .collect::<HashMap<_, _>>();
    let bad: Vec<HashMap<String, MessageAttributeValue>> = vec![
        HashMap::from([("e".into(), string_attr("String", ""))]),
        HashMap::from([("t".into(), string_attr("Blob", "x"))]),
        HashMap::from([("AWS.reserved".into(), string_attr("String", "x"))]),
        HashMap::from([("n".into(), string_attr("Number", "twelve"))]),
        HashMap::from([("s".into(), string_attr("String", "bad\u{1}"))]),
        too_many,
    ];
    for attrs in bad {
        let err = sqs
            .send_message()
            .queue_url(&url)
            .message_body("x")
            .set_message_attributes(Some(attrs.clone()))
            .send()
            .await
            .unwrap_err();
        assert!(
            matches!(
                err.code(),
                Some("InvalidParameterValue" | "InvalidMessageContents")
            ),
            "{attrs:?}: {err:?}"
        );
    }
    let (_, code) = query_error(
        &h,
        &[
            ("Action", "SendMessage"),
            ("QueueUrl", &url),
            ("MessageBody", "x"),
            ("MessageAttribute.1.Name", "e"),
            ("MessageAttribute.1.Value.DataType", "String"),
        ],
    )
    .await;
    assert_eq!(code, "InvalidParameterValue");

    // Missing and empty bodies; bad delays.
    let (status, kind, header) = json_error(&h, "SendMessage", json!({"QueueUrl": url})).await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            400,
            "com.amazon.coral.service#MissingRequiredParameterException",
            "MissingParameter;Sender"
        )
    );
    let (_, code) = query_error(&h, &[("Action", "SendMessage"), ("QueueUrl", &url)]).await;
    assert_eq!(code, "MissingParameter");
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("MissingParameter"));
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .delay_seconds(901)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let (status, kind, header) = json_error(
        &h,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "x", "DelaySeconds": -1}),
    )
    .await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            400,
            "com.amazon.coral.service#InvalidParameterValueException",
            "InvalidParameterValue;Sender"
        )
    );

    // ReceiveMessage parameters.
    for (max, wait, vis) in [
        (Some(0), None, None),
        (None, Some(21), None),
        (None, None, Some(43_201)),
    ] {
        let err = sqs
            .receive_message()
            .queue_url(&url)
            .set_max_number_of_messages(max)
            .set_wait_time_seconds(wait)
            .set_visibility_timeout(vis)
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some("InvalidParameterValue"));
    }
    let (_, code) = query_error(
        &h,
        &[
            ("Action", "ReceiveMessage"),
            ("QueueUrl", &url),
            ("WaitTimeSeconds", "-1"),
        ],
    )
    .await;
    assert_eq!(code, "InvalidParameterValue");

    // Everything accepted is there, intact.
    let bodies = peek_bodies(&sqs, &url).await;
    assert_eq!(
        bodies,
        ["kept-1".to_string(), edge.into(), "x".repeat(1024)]
    );
}

/// Receives up to 10 with `visibility` and answers (body, receipt handle).
async fn take(sqs: &Client, url: &str, visibility: i32) -> Vec<(String, String)> {
    sqs.receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .visibility_timeout(visibility)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default()
        .into_iter()
        .map(|m| (m.body.unwrap(), m.receipt_handle.unwrap()))
        .collect()
}

#[tokio::test]
async fn receipt_handles_and_visibility_changes() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "handles", &[]).await;
    send_all(&sqs, &url, &["m"]).await;
    let (_, first) = take(&sqs, &url, 30).await.remove(0);

    // Extend, then the message stays hidden until the new timeout from the call.
    h.advance(20.0).await;
    sqs.change_message_visibility()
        .queue_url(&url)
        .receipt_handle(&first)
        .visibility_timeout(60)
        .send()
        .await
        .unwrap();
    h.advance(59.0).await;
    assert!(take(&sqs, &url, 30).await.is_empty());
    h.advance(1.0).await;
    let (_, second) = take(&sqs, &url, 30).await.remove(0);
    assert_ne!(first, second);
    // The old handle still changes the visibility on a standard queue, as in SQS (issue 14);
    // visibility 0 makes it visible at once (over Query).
    sqs.change_message_visibility()
        .queue_url(&url)
        .receipt_handle(&first)
        .visibility_timeout(10)
        .send()
        .await
        .unwrap();
    assert_eq!(counts(&sqs, &url).await, (0, 1, 0));
    query_ok(
        &h,
        &[
            ("Action", "ChangeMessageVisibility"),
            ("QueueUrl", &url),
            ("ReceiptHandle", &second),
            ("VisibilityTimeout", "0"),
        ],
    )
    .await;
    assert_eq!(counts(&sqs, &url).await, (1, 0, 0));
    // Not in flight any more: accepted on a standard queue (the message is hidden again);
    // MessageNotInflight on a FIFO queue, JSON and Query.
    sqs.change_message_visibility()
        .queue_url(&url)
        .receipt_handle(&second)
        .visibility_timeout(0)
        .send()
        .await
        .unwrap();
    let fifo = create(
        &sqs,
        "handles.fifo",
        &[("FifoQueue", "true"), ("ContentBasedDeduplication", "true")],
    )
    .await;
    sqs.send_message()
        .queue_url(&fifo)
        .message_body("f")
        .message_group_id("g")
        .send()
        .await
        .unwrap();
    let (_, fifo_handle) = take(&sqs, &fifo, 0).await.remove(0);
    let err = sqs
        .change_message_visibility()
        .queue_url(&fifo)
        .receipt_handle(&fifo_handle)
        .visibility_timeout(10)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some("AWS.SimpleQueueService.MessageNotInflight")
    );
    assert!(err.into_service_error().is_message_not_inflight());
    let (status, code) = query_error(
        &h,
        &[
            ("Action", "ChangeMessageVisibility"),
            ("QueueUrl", &fifo),
            ("ReceiptHandle", &fifo_handle),
            ("VisibilityTimeout", "10"),
        ],
    )
    .await;
    assert_eq!(
        (status, code.as_str()),
        (400, "AWS.SimpleQueueService.MessageNotInflight")
    );

    // No more than 12 hours from the receive in total.
    let (_, third) = take(&sqs, &url, 43_000).await.remove(0);
    h.advance(100.0).await;
    let err = sqs
        .change_message_visibility()
        .queue_url(&url)
        .receipt_handle(&third)
        .visibility_timeout(43_200)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    sqs.change_message_visibility()
        .queue_url(&url)
        .receipt_handle(&third)
        .visibility_timeout(43_100)
        .send()
        .await
        .unwrap();

    // Malformed handles: ReceiptHandleIsInvalid (404), JSON and Query, for each operation.
    for bad in ["garbage", "", "AAAA"] {
        let err = sqs
            .delete_message()
            .queue_url(&url)
            .receipt_handle(bad)
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some("ReceiptHandleIsInvalid"), "{bad:?}");
    }
    let (status, kind, header) = json_error(
        &h,
        "ChangeMessageVisibility",
        json!({"QueueUrl": url, "ReceiptHandle": "garbage", "VisibilityTimeout": 1}),
    )
    .await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            404,
            "com.amazonaws.sqs#ReceiptHandleIsInvalid",
            "ReceiptHandleIsInvalid;Sender"
        )
    );
    let (status, code) = query_error(
        &h,
        &[
            ("Action", "DeleteMessage"),
            ("QueueUrl", &url),
            ("ReceiptHandle", "garbage"),
        ],
    )
    .await;
    assert_eq!((status, code.as_str()), (404, "ReceiptHandleIsInvalid"));
    // A handle of another queue is not valid here.
    let other = create(&sqs, "other", &[]).await;
    let err = sqs
        .delete_message()
        .queue_url(&other)
        .receipt_handle(&third)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ReceiptHandleIsInvalid"));

    // The message survived all of it, and the current handle deletes it.
    assert_eq!(counts(&sqs, &url).await, (0, 1, 0));
    sqs.delete_message()
        .queue_url(&url)
        .receipt_handle(&third)
        .send()
        .await
        .unwrap();
    assert_eq!(counts(&sqs, &url).await, (0, 0, 0));
}

#[tokio::test]
async fn send_message_batch_reports_each_entry() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "batch", &[]).await;
    let out = sqs
        .send_message_batch()
        .queue_url(&url)
        .entries(entry("a", "first"))
        .entries(entry("bad-chars", "x\u{1}"))
        .entries(
            SendMessageBatchRequestEntry::builder()
                .id("with_attrs")
                .message_body("second")
                .message_attributes("attribName1", string_attr("String", "attribValue 1"))
                .build()
                .unwrap(),
        )
        .entries(
            SendMessageBatchRequestEntry::builder()
                .id("too-late")
                .message_body("never")
                .delay_seconds(901)
                .build()
                .unwrap(),
        )
        .entries(
            SendMessageBatchRequestEntry::builder()
                .id("delayed")
                .message_body("third")
                .delay_seconds(5)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let ok: Vec<_> = out.successful.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ok, ["a", "with_attrs", "delayed"]);
    let with_attrs = &out.successful[1];
    assert_eq!(
        with_attrs.md5_of_message_attributes.as_deref(),
        Some(MD5_STRING)
    );
    assert_eq!(
        out.successful[0].md5_of_message_body,
        "8b04d5e3775d298e78455efc5ca404d5"
    );
    let failed: HashMap<_, _> = out
        .failed
        .iter()
        .map(|f| (f.id.as_str(), (f.sender_fault, f.code.as_str())))
        .collect();
    assert_eq!(
        failed,
        HashMap::from([
            ("bad-chars", (true, "InvalidMessageContents")),
            ("too-late", (true, "InvalidParameterValue")),
        ])
    );
    assert!(out.failed.iter().all(|f| f.message.is_some()));
    assert_eq!(counts(&sqs, &url).await, (2, 0, 1));

    // Over Query, as old SDKs send it.
    let xml = query_ok(
        &h,
        &[
            ("Action", "SendMessageBatch"),
            ("QueueUrl", &url),
            ("SendMessageBatchRequestEntry.1.Id", "q1"),
            ("SendMessageBatchRequestEntry.1.MessageBody", "fourth"),
            ("SendMessageBatchRequestEntry.2.Id", "q2"),
            ("SendMessageBatchRequestEntry.2.MessageBody", "fifth"),
            (
                "SendMessageBatchRequestEntry.2.MessageAttribute.1.Name",
                "binaryAttribute",
            ),
            (
                "SendMessageBatchRequestEntry.2.MessageAttribute.1.Value.DataType",
                "Binary",
            ),
            (
                "SendMessageBatchRequestEntry.2.MessageAttribute.1.Value.BinaryValue",
                "SGVsbG8gYmluYXJ5IHdvcmxkIQ==",
            ),
            ("SendMessageBatchRequestEntry.3.Id", "q3"),
            ("SendMessageBatchRequestEntry.3.MessageBody", "bad\u{2}"),
        ],
    )
    .await;
    assert!(xml.contains("<SendMessageBatchResultEntry>"), "{xml}");
    let mut ids = xml_texts(&xml, "Id");
    ids.sort();
    assert_eq!(ids, ["q1", "q2", "q3"]);
    assert_eq!(
        xml_text(&xml, "MD5OfMessageAttributes").as_deref(),
        Some(MD5_BINARY)
    );
    assert_eq!(xml_text(&xml, "SenderFault").as_deref(), Some("true"));
    assert_eq!(
        xml_text(&xml, "Code").as_deref(),
        Some("InvalidMessageContents")
    );
    h.advance(5.0).await;
    assert_eq!(
        peek_bodies(&sqs, &url).await,
        ["first", "second", "third", "fourth", "fifth"]
    );
}

#[tokio::test]
async fn batch_request_errors_in_both_shapes_leave_the_queue_alone() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "guarded", &[]).await;
    send_all(&sqs, &url, &["one", "two"]).await;
    let handles = take(&sqs, &url, 30).await;
    assert_eq!(handles.len(), 2);

    // Send: too many, none, repeated ids, bad ids, too long.
    let eleven: Vec<_> = (0..11).map(|i| entry(&format!("e{i}"), "x")).collect();
    let err = sqs
        .send_message_batch()
        .queue_url(&url)
        .set_entries(Some(eleven))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some("AWS.SimpleQueueService.TooManyEntriesInBatchRequest")
    );
    assert!(
        err.into_service_error()
            .is_too_many_entries_in_batch_request()
    );
    let err = sqs
        .send_message_batch()
        .queue_url(&url)
        .set_entries(Some(vec![]))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("AWS.SimpleQueueService.EmptyBatchRequest"));
    let err = sqs
        .send_message_batch()
        .queue_url(&url)
        .entries(entry("same", "x"))
        .entries(entry("same", "y"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some("AWS.SimpleQueueService.BatchEntryIdsNotDistinct")
    );
    for bad in ["has space", "dot.ted", &"i".repeat(81), ""] {
        let err = sqs
            .send_message_batch()
            .queue_url(&url)
            .entries(entry(bad, "x"))
            .send()
            .await
            .unwrap_err();
        assert_eq!(
            err.code(),
            Some("AWS.SimpleQueueService.InvalidBatchEntryId"),
            "{bad:?}"
        );
    }
    let big = "b".repeat(600_000);
    let err = sqs
        .send_message_batch()
        .queue_url(&url)
        .entries(entry("b1", &big))
        .entries(entry("b2", &big))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some("AWS.SimpleQueueService.BatchRequestTooLong")
    );
    assert!(err.into_service_error().is_batch_request_too_long());

    // The JSON shape of one, the Query shapes of all.
    let (status, kind, header) = json_error(
        &h,
        "SendMessageBatch",
        json!({"QueueUrl": url, "Entries": []}),
    )
    .await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            400,
            "com.amazonaws.sqs#EmptyBatchRequest",
            "AWS.SimpleQueueService.EmptyBatchRequest;Sender"
        )
    );
    let eleven_keys: Vec<(String, String)> = (1..=11)
        .flat_map(|i| {
            [
                (
                    format!("SendMessageBatchRequestEntry.{i}.Id"),
                    format!("e{i}"),
                ),
                (
                    format!("SendMessageBatchRequestEntry.{i}.MessageBody"),
                    "x".to_string(),
                ),
            ]
        })
        .collect();
    let mut params = vec![("Action", "SendMessageBatch"), ("QueueUrl", url.as_str())];
    params.extend(eleven_keys.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let (status, code) = query_error(&h, &params).await;
    assert_eq!(
        (status, code.as_str()),
        (400, "AWS.SimpleQueueService.TooManyEntriesInBatchRequest")
    );
    for (entries, expected) in [
        (
            vec![("SendMessageBatchRequestEntry.1.Id", "x y")],
            "AWS.SimpleQueueService.InvalidBatchEntryId",
        ),
        (
            vec![
                ("SendMessageBatchRequestEntry.1.Id", "d"),
                ("SendMessageBatchRequestEntry.2.Id", "d"),
            ],
            "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
        ),
        (
            vec![
                ("SendMessageBatchRequestEntry.1.Id", "l1"),
                ("SendMessageBatchRequestEntry.1.MessageBody", big.as_str()),
                ("SendMessageBatchRequestEntry.2.Id", "l2"),
                ("SendMessageBatchRequestEntry.2.MessageBody", big.as_str()),
            ],
            "AWS.SimpleQueueService.BatchRequestTooLong",
        ),
    ] {
        let mut params = vec![("Action", "SendMessageBatch"), ("QueueUrl", url.as_str())];
        params.extend(entries);
        for (i, body) in [
            ("1", "SendMessageBatchRequestEntry.1.MessageBody"),
            ("2", "SendMessageBatchRequestEntry.2.MessageBody"),
        ] {
            let id = format!("SendMessageBatchRequestEntry.{i}.Id");
            if params.iter().any(|(k, _)| *k == id) && !params.iter().any(|(k, _)| *k == body) {
                params.push((body, "x"));
            }
        }
        let (status, code) = query_error(&h, &params).await;
        assert_eq!((status, code.as_str()), (400, expected));
    }

    // Delete and ChangeMessageVisibility batches check the same things.
    let del = |id: &str, rh: &str| {
        DeleteMessageBatchRequestEntry::builder()
            .id(id)
            .receipt_handle(rh)
            .build()
            .unwrap()
    };
    let err = sqs
        .delete_message_batch()
        .queue_url(&url)
        .set_entries(Some(vec![]))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("AWS.SimpleQueueService.EmptyBatchRequest"));
    let err = sqs
        .delete_message_batch()
        .queue_url(&url)
        .set_entries(Some(
            (0..11)
                .map(|i| del(&format!("d{i}"), &handles[0].1))
                .collect(),
        ))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some("AWS.SimpleQueueService.TooManyEntriesInBatchRequest")
    );
    let err = sqs
        .delete_message_batch()
        .queue_url(&url)
        .entries(del("same", &handles[0].1))
        .entries(del("same", &handles[1].1))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some("AWS.SimpleQueueService.BatchEntryIdsNotDistinct")
    );
    let (status, code) = query_error(
        &h,
        &[
            ("Action", "DeleteMessageBatch"),
            ("QueueUrl", &url),
            ("DeleteMessageBatchRequestEntry.1.Id", "bad id"),
            (
                "DeleteMessageBatchRequestEntry.1.ReceiptHandle",
                &handles[0].1,
            ),
        ],
    )
    .await;
    assert_eq!(
        (status, code.as_str()),
        (400, "AWS.SimpleQueueService.InvalidBatchEntryId")
    );
    let err = sqs
        .change_message_visibility_batch()
        .queue_url(&url)
        .set_entries(Some(vec![]))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("AWS.SimpleQueueService.EmptyBatchRequest"));
    let (status, code) = query_error(
        &h,
        &[
            ("Action", "ChangeMessageVisibilityBatch"),
            ("QueueUrl", &url),
            ("ChangeMessageVisibilityBatchRequestEntry.1.Id", "c"),
            (
                "ChangeMessageVisibilityBatchRequestEntry.1.ReceiptHandle",
                &handles[0].1,
            ),
            (
                "ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout",
                "0",
            ),
            ("ChangeMessageVisibilityBatchRequestEntry.2.Id", "c"),
            (
                "ChangeMessageVisibilityBatchRequestEntry.2.ReceiptHandle",
                &handles[1].1,
            ),
            (
                "ChangeMessageVisibilityBatchRequestEntry.2.VisibilityTimeout",
                "0",
            ),
        ],
    )
    .await;
    assert_eq!(
        (status, code.as_str()),
        (400, "AWS.SimpleQueueService.BatchEntryIdsNotDistinct")
    );
    let missing = format!("{}/000000000000/missing", h.url());
    let err = sqs
        .send_message_batch()
        .queue_url(&missing)
        .entries(entry("a", "x"))
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_queue_does_not_exist());

    // Nothing was sent, deleted or made visible by any of it.
    assert_eq!(counts(&sqs, &url).await, (0, 2, 0));
    h.advance(30.0).await;
    assert_eq!(peek_bodies(&sqs, &url).await, ["one", "two"]);
}

#[tokio::test]
async fn delete_and_visibility_batches_report_each_entry() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "rh", &[]).await;
    send_all(&sqs, &url, &["a", "b", "c", "d", "e"]).await;
    let got = take(&sqs, &url, 30).await;
    let rh: HashMap<_, _> = got.into_iter().collect();

    let out = sqs
        .delete_message_batch()
        .queue_url(&url)
        .entries(
            DeleteMessageBatchRequestEntry::builder()
                .id("a")
                .receipt_handle(&rh["a"])
                .build()
                .unwrap(),
        )
        .entries(
            DeleteMessageBatchRequestEntry::builder()
                .id("junk")
                .receipt_handle("junk")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(out.successful.len(), 1);
    assert_eq!(out.successful[0].id, "a");
    assert_eq!(out.failed.len(), 1);
    assert_eq!(
        (
            out.failed[0].id.as_str(),
            out.failed[0].sender_fault,
            out.failed[0].code.as_str()
        ),
        ("junk", true, "ReceiptHandleIsInvalid")
    );

    let xml = query_ok(
        &h,
        &[
            ("Action", "DeleteMessageBatch"),
            ("QueueUrl", &url),
            ("DeleteMessageBatchRequestEntry.1.Id", "b"),
            ("DeleteMessageBatchRequestEntry.1.ReceiptHandle", &rh["b"]),
            ("DeleteMessageBatchRequestEntry.2.Id", "bad"),
            ("DeleteMessageBatchRequestEntry.2.ReceiptHandle", "nope"),
        ],
    )
    .await;
    assert!(
        xml.contains("<DeleteMessageBatchResultEntry><Id>b</Id>"),
        "{xml}"
    );
    assert!(xml.contains("<BatchResultErrorEntry>"), "{xml}");
    assert_eq!(
        xml_text(&xml, "Code").as_deref(),
        Some("ReceiptHandleIsInvalid")
    );

    let out = sqs
        .change_message_visibility_batch()
        .queue_url(&url)
        .entries(
            ChangeMessageVisibilityBatchRequestEntry::builder()
                .id("c")
                .receipt_handle(&rh["c"])
                .visibility_timeout(0)
                .build()
                .unwrap(),
        )
        .entries(
            ChangeMessageVisibilityBatchRequestEntry::builder()
                .id("d")
                .receipt_handle(&rh["d"])
                .visibility_timeout(100)
                .build()
                .unwrap(),
        )
        .entries(
            ChangeMessageVisibilityBatchRequestEntry::builder()
                .id("too_long")
                .receipt_handle(&rh["e"])
                .visibility_timeout(43_201)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let ok: Vec<_> = out.successful.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ok, ["c", "d"]);
    assert_eq!(out.failed[0].id, "too_long");
    assert_eq!(out.failed[0].code, "InvalidParameterValue");
    assert_eq!(
        counts(&sqs, &url).await,
        (1, 2, 0),
        "c visible; d, e hidden"
    );

    let xml = query_ok(
        &h,
        &[
            ("Action", "ChangeMessageVisibilityBatch"),
            ("QueueUrl", &url),
            ("ChangeMessageVisibilityBatchRequestEntry.1.Id", "e"),
            (
                "ChangeMessageVisibilityBatchRequestEntry.1.ReceiptHandle",
                &rh["e"],
            ),
            (
                "ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout",
                "0",
            ),
            ("ChangeMessageVisibilityBatchRequestEntry.2.Id", "x"),
            (
                "ChangeMessageVisibilityBatchRequestEntry.2.ReceiptHandle",
                "bad",
            ),
            (
                "ChangeMessageVisibilityBatchRequestEntry.2.VisibilityTimeout",
                "0",
            ),
        ],
    )
    .await;
    assert!(
        xml.contains("<ChangeMessageVisibilityBatchResultEntry><Id>e</Id>"),
        "{xml}"
    );
    assert_eq!(
        xml_text(&xml, "Code").as_deref(),
        Some("ReceiptHandleIsInvalid")
    );
    assert_eq!(peek_bodies(&sqs, &url).await, ["c", "e"]);
    h.advance(100.0).await;
    assert_eq!(peek_bodies(&sqs, &url).await, ["c", "d", "e"]);
}

#[tokio::test]
async fn a_batch_entry_without_its_required_members_is_a_missing_parameter() {
    let h = Harness::start().await;
    let url = create(&h.sqs(), "entries", &[]).await;
    let body = json!({"QueueUrl": url, "Entries": [{"MessageBody": "no id"}]});
    let (status, _, query_error_header) = json_error(&h, "SendMessageBatch", body).await;
    assert_eq!(
        (status, query_error_header.as_str()),
        (400, "MissingParameter;Sender")
    );
    let (status, code) = query_error(
        &h,
        &[
            ("Action", "DeleteMessageBatch"),
            ("QueueUrl", &url),
            ("DeleteMessageBatchRequestEntry.1.Id", "a"),
        ],
    )
    .await;
    assert_eq!((status, code.as_str()), (400, "MissingParameter"));
    assert!(
        peek_bodies(&h.sqs(), &url).await.is_empty(),
        "nothing was sent"
    );
}
