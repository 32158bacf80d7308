//! SQS as AWS recorded it (issue 14, items 3 and 4): queue names as QueueUrl, idempotent
//! CreateQueue, attribute rules, FIFO batches, attribute names and filters, purge and
//! deduplication, dead letters, sequence numbers, permissions, redrive policies and the shape of
//! batch answers.

use crate::harness::Harness;
use crate::sqs_queues::{attributes, counts, create};
use aws_sdk_sqs::Client;
use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sdk_sqs::types::{
    MessageAttributeValue, MessageSystemAttributeName as N, QueueAttributeName,
    SendMessageBatchRequestEntry,
};
use serde_json::{Value, json};

/// `err`'s (code, message).
fn code_message<E: ProvideErrorMetadata>(err: &E) -> (String, String) {
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

fn pair(code: &str, message: &str) -> (String, String) {
    (code.to_string(), message.to_string())
}

async fn set_error(sqs: &Client, url: &str, name: &str, value: &str) -> (String, String) {
    let err = sqs
        .set_queue_attributes()
        .queue_url(url)
        .attributes(QueueAttributeName::from(name), value)
        .send()
        .await
        .unwrap_err();
    code_message(&err)
}

async fn create_error(sqs: &Client, name: &str, attrs: &[(&str, &str)]) -> (String, String) {
    let mut req = sqs.create_queue().queue_name(name);
    for (k, v) in attrs {
        req = req.attributes(QueueAttributeName::from(*k), *v);
    }
    code_message(&req.send().await.unwrap_err())
}

fn entry(id: &str, group: Option<&str>, dedup: Option<&str>) -> SendMessageBatchRequestEntry {
    SendMessageBatchRequestEntry::builder()
        .id(id)
        .message_body(format!("body-{id}"))
        .set_message_group_id(group.map(str::to_string))
        .set_message_deduplication_id(dedup.map(str::to_string))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_bare_queue_name_is_a_queue_of_the_callers_account() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "by-name", &[]).await;
    sqs.send_message()
        .queue_url("by-name")
        .message_body("Using name instead of URL")
        .send()
        .await
        .unwrap();
    let got = sqs
        .receive_message()
        .queue_url("by-name")
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    assert_eq!(got[0].body.as_deref(), Some("Using name instead of URL"));
    assert_eq!(counts(&sqs, &url).await, (0, 1, 0));
    // Another account's caller names its own queue of that name: there is none.
    let other = h.sqs_as("111122223333", "us-east-1");
    let err = other
        .send_message()
        .queue_url("by-name")
        .message_body("x")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_message(&err),
        pair(
            "AWS.SimpleQueueService.NonExistentQueue",
            "The specified queue does not exist."
        )
    );
}

#[tokio::test]
async fn create_queue_compares_only_the_attributes_given() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let attrs = [
        ("ReceiveMessageWaitTimeSeconds", "1"),
        ("DelaySeconds", "1"),
    ];
    let url = create(&sqs, "idem", &attrs).await;
    assert_eq!(create(&sqs, "idem", &[]).await, url);
    assert_eq!(create(&sqs, "idem", &[("DelaySeconds", "1")]).await, url);
    let differs = pair(
        "QueueAlreadyExists",
        "A queue already exists with the same name and a different value for attribute \
         DelaySeconds",
    );
    let changed = [
        ("ReceiveMessageWaitTimeSeconds", "1"),
        ("DelaySeconds", "2"),
    ];
    assert_eq!(create_error(&sqs, "idem", &changed).await, differs);
    sqs.set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::DelaySeconds, "2")
        .send()
        .await
        .unwrap();
    assert_eq!(create(&sqs, "idem", &changed).await, url);
    assert_eq!(create_error(&sqs, "idem", &attrs).await, differs);

    // Attributes given with the value the queue has by default are no difference either.
    let plain = create(&sqs, "plain", &[]).await;
    let defaults = [("DelaySeconds", "0"), ("VisibilityTimeout", "30")];
    assert_eq!(create(&sqs, "plain", &defaults).await, plain);
    let fifo_attrs = [("FifoQueue", "true"), ("ContentBasedDeduplication", "true")];
    let fifo = create(&sqs, "idem.fifo", &fifo_attrs).await;
    assert_eq!(create(&sqs, "idem.fifo", &fifo_attrs).await, fifo);
    assert_eq!(
        create_error(
            &sqs,
            "idem.fifo",
            &[
                ("FifoQueue", "true"),
                ("ContentBasedDeduplication", "false")
            ]
        )
        .await,
        pair(
            "QueueAlreadyExists",
            "A queue already exists with the same name and a different value for attribute \
             ContentBasedDeduplication"
        )
    );
}

#[tokio::test]
async fn fifo_only_attributes_and_the_queue_type() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let std = create(&sqs, "standard", &[]).await;
    assert_eq!(
        set_error(&sqs, &std, "FifoQueue", "true").await,
        pair("InvalidAttributeName", "Unknown Attribute FifoQueue.")
    );
    assert_eq!(
        set_error(&sqs, &std, "ContentBasedDeduplication", "true").await,
        pair(
            "InvalidAttributeName",
            "Unknown Attribute ContentBasedDeduplication."
        )
    );
    assert_eq!(
        set_error(&sqs, &std, "DeduplicationScope", "messageGroup").await,
        pair(
            "InvalidAttributeName",
            "You can specify the DeduplicationScope only when FifoQueue is set to true."
        )
    );
    assert_eq!(
        create_error(&sqs, "std2", &[("ContentBasedDeduplication", "true")]).await,
        pair(
            "InvalidAttributeName",
            "Unknown Attribute ContentBasedDeduplication."
        )
    );
    assert_eq!(
        create_error(&sqs, "std3", &[("FifoThroughputLimit", "perQueue")]).await,
        pair(
            "InvalidAttributeName",
            "You can specify the FifoThroughputLimit only when FifoQueue is set to true."
        )
    );
    let fifo = create(&sqs, "typed.fifo", &[("FifoQueue", "true")]).await;
    sqs.set_queue_attributes()
        .queue_url(&fifo)
        .attributes(QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .unwrap();
    assert_eq!(
        set_error(&sqs, &fifo, "FifoQueue", "false").await,
        pair(
            "InvalidAttributeValue",
            "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not \
             supported."
        )
    );
}

#[tokio::test]
async fn delay_seconds_zero_is_accepted_on_fifo_queues() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "delay0.fifo", &[("FifoQueue", "true")]).await;
    let sent = sqs
        .send_message()
        .queue_url(&url)
        .delay_seconds(0)
        .message_body("Hello World!")
        .message_group_id("test")
        .message_deduplication_id("42")
        .send()
        .await
        .unwrap();
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    assert_eq!(got[0].md5_of_body, sent.md5_of_message_body);
    let err = sqs
        .send_message()
        .queue_url(&url)
        .delay_seconds(2)
        .message_body("m")
        .message_group_id("test")
        .message_deduplication_id("43")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_message(&err),
        pair(
            "InvalidParameterValue",
            "Value 2 for parameter DelaySeconds is invalid. Reason: The request include \
             parameter that is not valid for this queue type."
        )
    );
}

#[tokio::test]
async fn a_fifo_batch_missing_group_or_deduplication_fails_whole() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(
        &sqs,
        "batch.fifo",
        &[
            ("FifoQueue", "true"),
            ("ContentBasedDeduplication", "false"),
        ],
    )
    .await;
    let cases = [
        (
            entry("b", None, Some("d2")),
            "MissingParameter",
            "The request must contain the parameter MessageGroupId.",
        ),
        (
            entry("b", Some("g"), None),
            "InvalidParameterValue",
            "The queue should either have ContentBasedDeduplication enabled or \
             MessageDeduplicationId provided explicitly",
        ),
    ];
    for (bad, code, message) in cases {
        let err = sqs
            .send_message_batch()
            .queue_url(&url)
            .entries(entry("a", Some("g"), Some("d1")))
            .entries(bad)
            .send()
            .await
            .unwrap_err();
        let status = err.raw_response().map(|r| r.status().as_u16());
        assert_eq!(status, Some(400));
        assert_eq!(code_message(&err), pair(code, message));
    }
    // Nothing of either batch was taken.
    assert_eq!(counts(&sqs, &url).await, (0, 0, 0));
}

#[tokio::test]
async fn attribute_names_of_any_script_and_wildcard_filters() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "names", &[("VisibilityTimeout", "0")]).await;
    let value = |s: &str| {
        MessageAttributeValue::builder()
            .data_type("String")
            .string_value(s)
            .build()
            .unwrap()
    };
    sqs.send_message()
        .queue_url(&url)
        .message_body("m")
        .message_attributes("attr.1øßä", value("Valida"))
        .message_attributes("Hello", value("There"))
        .send()
        .await
        .unwrap();
    for filter in ["*", ".*", "All"] {
        let got = sqs
            .receive_message()
            .queue_url(&url)
            .message_attribute_names(filter)
            .send()
            .await
            .unwrap()
            .messages
            .unwrap();
        let names: Vec<_> = got[0]
            .message_attributes
            .as_ref()
            .map(|a| {
                let mut k: Vec<_> = a.keys().cloned().collect();
                k.sort();
                k
            })
            .unwrap_or_default();
        assert_eq!(names, ["Hello", "attr.1øßä"], "{filter}");
    }
    for bad in ["Invalid-§-attr", "Invalid-!-attr", "aWs.x"] {
        let err = sqs
            .send_message()
            .queue_url(&url)
            .message_body("m")
            .message_attributes(bad, value("Valid"))
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some("InvalidParameterValue"), "{bad}");
    }
}

#[tokio::test]
async fn purge_clears_the_deduplication_history() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "purged.fifo", &[("FifoQueue", "true")]).await;
    for body in ["message-1", "message-2"] {
        sqs.send_message()
            .queue_url(&url)
            .message_body(body)
            .message_group_id("g")
            .message_deduplication_id("same")
            .send()
            .await
            .unwrap();
        if body == "message-1" {
            sqs.purge_queue().queue_url(&url).send().await.unwrap();
        }
    }
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body.as_deref(), Some("message-2"));
}

#[tokio::test]
async fn a_dead_letter_keeps_its_receive_count() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let dlq = create(&sqs, "dead", &[]).await;
    let dlq_arn = attributes(&sqs, &dlq).await["QueueArn"].clone();
    let policy = json!({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "2"}).to_string();
    let url = create(&sqs, "source", &[("RedrivePolicy", &policy)]).await;
    // maxReceiveCount given as a string comes back as a number.
    let stored: Value =
        serde_json::from_str(&attributes(&sqs, &url).await["RedrivePolicy"]).unwrap();
    assert_eq!(
        stored,
        json!({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 2})
    );
    sqs.send_message()
        .queue_url(&url)
        .message_body("poison")
        .send()
        .await
        .unwrap();
    for _ in 0..3 {
        sqs.receive_message()
            .queue_url(&url)
            .visibility_timeout(0)
            .send()
            .await
            .unwrap();
    }
    let got = sqs
        .receive_message()
        .queue_url(&dlq)
        .message_system_attribute_names(N::All)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let attrs = got[0].attributes.as_ref().unwrap();
    assert_eq!(attrs[&N::ApproximateReceiveCount], "3");
    assert_eq!(
        attrs[&N::DeadLetterQueueSourceArn],
        attributes(&sqs, &url).await["QueueArn"]
    );
}

#[tokio::test]
async fn sequence_numbers_permissions_and_batch_answers_have_aws_shapes() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    // SequenceNumber: a plain 20-digit decimal, increasing.
    let fifo = create(&sqs, "seq.fifo", &[("FifoQueue", "true")]).await;
    let mut last = 0u128;
    for i in 0..3 {
        let n = sqs
            .send_message()
            .queue_url(&fifo)
            .message_body("m")
            .message_group_id("g")
            .message_deduplication_id(format!("m{i}"))
            .send()
            .await
            .unwrap()
            .sequence_number
            .unwrap();
        assert!(n.len() == 20 && !n.starts_with('0'), "{n}");
        let n: u128 = n.parse().unwrap();
        assert!(n > last);
        last = n;
    }

    // AddPermission writes a 2008-10-17 policy; RemovePermission of an unknown label.
    let url = create(&sqs, "perm", &[]).await;
    sqs.add_permission()
        .queue_url(&url)
        .label("crossaccountpermission")
        .aws_account_ids("000000000000")
        .actions("ReceiveMessage")
        .send()
        .await
        .unwrap();
    let policy: Value = serde_json::from_str(&attributes(&sqs, &url).await["Policy"]).unwrap();
    let arn = attributes(&sqs, &url).await["QueueArn"].clone();
    assert_eq!(
        policy,
        json!({
            "Version": "2008-10-17",
            "Id": format!("{arn}/SQSDefaultPolicy"),
            "Statement": [{
                "Sid": "crossaccountpermission",
                "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam::000000000000:root"},
                "Action": "SQS:ReceiveMessage",
                "Resource": arn,
            }]
        })
    );
    sqs.remove_permission()
        .queue_url(&url)
        .label("crossaccountpermission")
        .send()
        .await
        .unwrap();
    let err = sqs
        .remove_permission()
        .queue_url(&url)
        .label("crossaccountpermission")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_message(&err),
        pair(
            "InvalidParameterValue",
            "Value crossaccountpermission for parameter Label is invalid. Reason: can't find \
             label."
        )
    );

    // JSON batch answers leave an empty list out.
    let r = h
        .json(
            "1.0",
            "AmazonSQS.SendMessageBatch",
            &json!({"QueueUrl": url, "Entries": [{"Id": "a", "MessageBody": "x"}]}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let body = r.json();
    assert!(body.get("Failed").is_none(), "{body}");
    assert_eq!(body["Successful"][0]["Id"], "a");
    let r = h
        .json(
            "1.0",
            "AmazonSQS.DeleteMessageBatch",
            &json!({"QueueUrl": url, "Entries": [{"Id": "a", "ReceiptHandle": "garbage"}]})
                .to_string(),
        )
        .await;
    let body = r.json();
    assert!(body.get("Successful").is_none(), "{body}");
    assert_eq!(body["Failed"][0]["Code"], "ReceiptHandleIsInvalid");
    // The SDK reads both shapes.
    let out = sqs
        .send_message_batch()
        .queue_url(&url)
        .entries(entry("x", None, None))
        .send()
        .await
        .unwrap();
    assert!(out.failed.is_empty() && out.successful.len() == 1);
}

#[tokio::test]
async fn the_x_amzn_trace_id_header_sets_aws_trace_header() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "traced", &[]).await;
    let trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1";
    let send = |body: Value| {
        let body = body.to_string();
        let h = &h;
        async move {
            let headers = [
                ("content-type", "application/x-amz-json-1.0"),
                ("x-amz-target", "AmazonSQS.SendMessage"),
                ("x-amzn-trace-id", trace),
            ];
            let r = h.request("POST", "/", &headers, body).await;
            assert_eq!(r.status, 200, "{}", r.body);
            r.json()
        }
    };
    let out = send(json!({"QueueUrl": url, "MessageBody": "a"})).await;
    // Not a system attribute the caller sent: no digest of one.
    assert!(out.get("MD5OfMessageSystemAttributes").is_none(), "{out}");
    // A system attribute given in the message wins over the header.
    let own = "Root=1-00000000-000000000000000000000001";
    send(
        json!({"QueueUrl": url, "MessageBody": "b", "MessageSystemAttributes": {
        "AWSTraceHeader": {"DataType": "String", "StringValue": own}}}),
    )
    .await;
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .message_system_attribute_names(N::AwsTraceHeader)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let traces: Vec<_> = got
        .iter()
        .map(|m| m.attributes.as_ref().unwrap()[&N::AwsTraceHeader].as_str())
        .collect();
    assert_eq!(traces, [trace, own]);
}
