//! SQS FIFO queues (issue 3): names and attributes, MessageGroupId, deduplication (explicit and
//! content-based, 5 minutes on the virtual clock, per queue or per group), strict order and
//! group blocking, ReceiveRequestAttemptId, SequenceNumber; JSON and Query.

use crate::harness::{Harness, xml_text, xml_texts};
use crate::sqs_queues::{attributes, counts, create, json_error, query_error, query_ok};
use aws_sdk_sqs::Client;
use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sdk_sqs::types::{
    MessageAttributeValue, MessageSystemAttributeName as N, QueueAttributeName,
    SendMessageBatchRequestEntry,
};
use serde_json::json;
use sha2::{Digest, Sha256};

async fn fifo(sqs: &Client, name: &str, extra: &[(&str, &str)]) -> String {
    let mut attrs = vec![("FifoQueue", "true")];
    attrs.extend_from_slice(extra);
    create(sqs, name, &attrs).await
}

/// Sends `body` to `group` with dedup id `dedup` (None: content-based); (MessageId, SequenceNumber).
async fn send(
    sqs: &Client,
    url: &str,
    group: &str,
    body: &str,
    dedup: Option<&str>,
) -> (String, String) {
    let out = sqs
        .send_message()
        .queue_url(url)
        .message_body(body)
        .message_group_id(group)
        .set_message_deduplication_id(dedup.map(str::to_string))
        .send()
        .await
        .unwrap();
    (out.message_id.unwrap(), out.sequence_number.unwrap())
}

/// Receives up to `max` (visibility 30 s): (body, receipt handle).
async fn receive(sqs: &Client, url: &str, max: i32) -> Vec<(String, String)> {
    sqs.receive_message()
        .queue_url(url)
        .max_number_of_messages(max)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default()
        .into_iter()
        .map(|m| (m.body.unwrap(), m.receipt_handle.unwrap()))
        .collect()
}

fn bodies(got: &[(String, String)]) -> Vec<&str> {
    got.iter().map(|(b, _)| b.as_str()).collect()
}

async fn delete(sqs: &Client, url: &str, handle: &str) {
    sqs.delete_message()
        .queue_url(url)
        .receipt_handle(handle)
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn fifo_names_and_attributes() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = fifo(&sqs, "jobs.fifo", &[]).await;
    assert!(url.ends_with("/000000000000/jobs.fifo"));
    let a = attributes(&sqs, &url).await;
    assert_eq!(a["FifoQueue"], "true");
    assert_eq!(a["ContentBasedDeduplication"], "false");
    assert_eq!(a["DeduplicationScope"], "queue");
    assert_eq!(a["FifoThroughputLimit"], "perQueue");
    assert_eq!(
        a["QueueArn"],
        "arn:aws:sqs:us-east-1:000000000000:jobs.fifo"
    );

    // High throughput: messageGroup scope with a per-group limit.
    let fast = fifo(
        &sqs,
        "fast.fifo",
        &[
            ("DeduplicationScope", "messageGroup"),
            ("FifoThroughputLimit", "perMessageGroupId"),
            ("ContentBasedDeduplication", "true"),
        ],
    )
    .await;
    let a = attributes(&sqs, &fast).await;
    assert_eq!(a["DeduplicationScope"], "messageGroup");
    assert_eq!(a["FifoThroughputLimit"], "perMessageGroupId");
    assert_eq!(a["ContentBasedDeduplication"], "true");
    sqs.set_queue_attributes()
        .queue_url(&fast)
        .attributes(QueueAttributeName::FifoThroughputLimit, "perQueue")
        .attributes(QueueAttributeName::DeduplicationScope, "queue")
        .send()
        .await
        .unwrap();
    let a = attributes(&sqs, &fast).await;
    assert_eq!(a["FifoThroughputLimit"], "perQueue");
    let err = sqs
        .set_queue_attributes()
        .queue_url(&fast)
        .attributes(QueueAttributeName::FifoThroughputLimit, "perMessageGroupId")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidAttributeValue"));
    let err = sqs
        .set_queue_attributes()
        .queue_url(&fast)
        .attributes(QueueAttributeName::DeduplicationScope, "everything")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidAttributeValue"));

    // The name and the attribute go together.
    let err = sqs
        .create_queue()
        .queue_name("nofifo.fifo")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let err = sqs
        .create_queue()
        .queue_name("nosuffix")
        .attributes(QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let (_, code) = query_error(
        &h,
        &[
            ("Action", "CreateQueue"),
            ("QueueName", "plain"),
            ("Attribute.1.Name", "DeduplicationScope"),
            ("Attribute.1.Value", "queue"),
        ],
    )
    .await;
    assert_eq!(code, "InvalidAttributeName");

    // Over Query.
    let xml = query_ok(
        &h,
        &[
            ("Action", "CreateQueue"),
            ("QueueName", "legacy.fifo"),
            ("Attribute.1.Name", "FifoQueue"),
            ("Attribute.1.Value", "true"),
            ("Attribute.2.Name", "ContentBasedDeduplication"),
            ("Attribute.2.Value", "true"),
        ],
    )
    .await;
    let legacy = xml_text(&xml, "QueueUrl").unwrap();
    assert_eq!(
        attributes(&sqs, &legacy).await["ContentBasedDeduplication"],
        "true"
    );
}

#[tokio::test]
async fn fifo_send_rules_in_both_shapes() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = fifo(&sqs, "rules.fifo", &[]).await;
    send(&sqs, &url, "g", "kept", Some("k")).await;

    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .message_deduplication_id("d")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("MissingParameter"));
    assert_eq!(
        err.message(),
        Some("The request must contain the parameter MessageGroupId.")
    );
    let (_, code) = query_error(
        &h,
        &[
            ("Action", "SendMessage"),
            ("QueueUrl", &url),
            ("MessageBody", "x"),
            ("MessageDeduplicationId", "d"),
        ],
    )
    .await;
    assert_eq!(code, "MissingParameter");
    // Neither a deduplication id nor content-based deduplication.
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .message_group_id("g")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    assert_eq!(
        err.message(),
        Some(
            "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"
        )
    );
    let (status, kind, header) = json_error(
        &h,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "x", "MessageGroupId": "g"}),
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
    // No per-message delay on FIFO queues.
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .message_group_id("g")
        .message_deduplication_id("d2")
        .delay_seconds(2)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    assert_eq!(
        err.message(),
        Some(
            "Value 2 for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type."
        )
    );
    // Group and deduplication ids: 1–128 alphanumeric or punctuation characters.
    for (group, dedup) in [
        ("group 123", "d"),
        ("", "d"),
        (&*"g".repeat(129), "d"),
        ("g", "dé"),
    ] {
        let err = sqs
            .send_message()
            .queue_url(&url)
            .message_body("x")
            .message_group_id(group)
            .message_deduplication_id(dedup)
            .send()
            .await
            .unwrap_err();
        assert_eq!(
            err.code(),
            Some("InvalidParameterValue"),
            "{group:?} {dedup:?}"
        );
    }
    send(
        &sqs,
        &url,
        "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
        "punct",
        Some("p"),
    )
    .await;
    // A standard queue takes no deduplication id.
    let std_url = create(&sqs, "standard", &[]).await;
    let err = sqs
        .send_message()
        .queue_url(&std_url)
        .message_body("x")
        .message_deduplication_id("d")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));

    assert_eq!(counts(&sqs, &url).await, (2, 0, 0));
    assert_eq!(counts(&sqs, &std_url).await, (0, 0, 0));
}

#[tokio::test]
async fn deduplication_lasts_five_virtual_minutes() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = fifo(&sqs, "dedup.fifo", &[]).await;
    let (id, seq) = send(&sqs, &url, "g", "original", Some("d1")).await;
    // A duplicate is accepted, answers the original id and sequence number, is not enqueued.
    h.advance(100.0).await;
    let (dup_id, dup_seq) = send(&sqs, &url, "g", "different body", Some("d1")).await;
    assert_eq!(
        (dup_id.as_str(), dup_seq.as_str()),
        (id.as_str(), seq.as_str())
    );
    assert_eq!(counts(&sqs, &url).await, (1, 0, 0));
    // Still a duplicate after the original was received and deleted.
    let got = receive(&sqs, &url, 10).await;
    assert_eq!(bodies(&got), ["original"]);
    delete(&sqs, &url, &got[0].1).await;
    h.advance(199.999).await;
    let (again, _) = send(&sqs, &url, "other-group", "x", Some("d1")).await;
    assert_eq!(again, id, "scope queue: any group");
    assert_eq!(counts(&sqs, &url).await, (0, 0, 0));
    // 300 s after the first send, the id is free again.
    h.advance(0.001).await;
    let (new_id, new_seq) = send(&sqs, &url, "g", "again", Some("d1")).await;
    assert_ne!(new_id, id);
    assert!(new_seq.parse::<u128>().unwrap() > seq.parse::<u128>().unwrap());
    assert_eq!(counts(&sqs, &url).await, (1, 0, 0));

    // Over Query: the duplicate's answer is the original's.
    let xml = query_ok(
        &h,
        &[
            ("Action", "SendMessage"),
            ("QueueUrl", &url),
            ("MessageBody", "q"),
            ("MessageGroupId", "g"),
            ("MessageDeduplicationId", "d1"),
        ],
    )
    .await;
    assert_eq!(xml_text(&xml, "MessageId"), Some(new_id));
    assert_eq!(xml_text(&xml, "SequenceNumber"), Some(new_seq));
}

#[tokio::test]
async fn content_based_deduplication_hashes_the_body() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = fifo(
        &sqs,
        "content.fifo",
        &[("ContentBasedDeduplication", "true")],
    )
    .await;
    let (id, _) = send(&sqs, &url, "g", "same body", None).await;
    // The attributes are not part of the hash.
    let dup = sqs
        .send_message()
        .queue_url(&url)
        .message_body("same body")
        .message_group_id("g2")
        .message_attributes(
            "a",
            MessageAttributeValue::builder()
                .data_type("String")
                .string_value("v")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(dup.message_id.as_deref(), Some(id.as_str()));
    // An explicit id overrides the hash.
    let (explicit, _) = send(&sqs, &url, "g", "same body", Some("mine")).await;
    assert_ne!(explicit, id);
    send(&sqs, &url, "g", "other body", None).await;
    assert_eq!(counts(&sqs, &url).await, (3, 0, 0));

    let got = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .message_system_attribute_names(N::MessageDeduplicationId)
        .message_system_attribute_names(N::MessageGroupId)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let sha: String = Sha256::digest(b"same body")
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let dedup: Vec<_> = got
        .iter()
        .map(|m| m.attributes.as_ref().unwrap()[&N::MessageDeduplicationId].clone())
        .collect();
    assert_eq!(dedup[0], sha);
    assert_eq!(dedup[1], "mine");
    assert_eq!(got[0].attributes.as_ref().unwrap()[&N::MessageGroupId], "g");
}

#[tokio::test]
async fn deduplication_scope_message_group() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = fifo(
        &sqs,
        "scoped.fifo",
        &[
            ("DeduplicationScope", "messageGroup"),
            ("FifoThroughputLimit", "perMessageGroupId"),
        ],
    )
    .await;
    let (a, _) = send(&sqs, &url, "g1", "x", Some("d")).await;
    let (b, _) = send(&sqs, &url, "g2", "x", Some("d")).await;
    assert_ne!(a, b, "the same id in another group is another message");
    let (c, _) = send(&sqs, &url, "g1", "y", Some("d")).await;
    assert_eq!(c, a, "a duplicate within its group");
    assert_eq!(counts(&sqs, &url).await, (2, 0, 0));
}

#[tokio::test]
async fn order_within_a_group_and_blocking_while_in_flight() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = fifo(&sqs, "order.fifo", &[("ContentBasedDeduplication", "true")]).await;
    let mut seqs = vec![];
    for (group, body) in [
        ("a", "a1"),
        ("b", "b1"),
        ("a", "a2"),
        ("b", "b2"),
        ("a", "a3"),
    ] {
        seqs.push(send(&sqs, &url, group, body, None).await.1);
    }
    // Sequence numbers increase per queue (large, as strings of digits).
    let numbers: Vec<u128> = seqs.iter().map(|s| s.parse().unwrap()).collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    assert!(seqs[0].len() >= 20);

    let first = receive(&sqs, &url, 2).await;
    assert_eq!(bodies(&first), ["a1", "a2"]);
    // Group a is blocked while a1 and a2 are in flight, though a3 is visible.
    let second = receive(&sqs, &url, 10).await;
    assert_eq!(bodies(&second), ["b1", "b2"]);
    assert!(receive(&sqs, &url, 10).await.is_empty());
    assert_eq!(counts(&sqs, &url).await, (1, 4, 0));
    // Deleting a1 is not enough: a2 is still in flight.
    delete(&sqs, &url, &first[0].1).await;
    assert!(receive(&sqs, &url, 10).await.is_empty());
    delete(&sqs, &url, &first[1].1).await;
    let third = receive(&sqs, &url, 10).await;
    assert_eq!(bodies(&third), ["a3"]);
    // b's messages come back in order after their timeout; a3 stays in flight.
    h.advance(30.0).await;
    let again = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .message_system_attribute_names(N::All)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let got: Vec<_> = again.iter().map(|m| m.body.as_deref().unwrap()).collect();
    assert_eq!(
        got,
        ["b1", "b2", "a3"],
        "all visible again, each group in order"
    );
    let attrs = again[0].attributes.as_ref().unwrap();
    assert_eq!(attrs[&N::SequenceNumber], seqs[1]);
    assert_eq!(attrs[&N::MessageGroupId], "b");
    assert_eq!(attrs[&N::ApproximateReceiveCount], "2");
    // An expired handle on a FIFO queue: "The receipt handle has expired."
    let err = sqs
        .delete_message()
        .queue_url(&url)
        .receipt_handle(&second[0].1)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    assert!(
        err.message()
            .unwrap()
            .ends_with("The receipt handle has expired.")
    );
    // Making a message visible again unblocks its group at once, from that message.
    sqs.change_message_visibility()
        .queue_url(&url)
        .receipt_handle(again[2].receipt_handle.as_deref().unwrap())
        .visibility_timeout(0)
        .send()
        .await
        .unwrap();
    assert_eq!(bodies(&receive(&sqs, &url, 10).await), ["a3"]);
}

#[tokio::test]
async fn queue_delay_on_a_fifo_queue_keeps_order_without_blocking_earlier_messages() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = fifo(
        &sqs,
        "delayed.fifo",
        &[
            ("DelaySeconds", "10"),
            ("ContentBasedDeduplication", "true"),
        ],
    )
    .await;
    send(&sqs, &url, "g", "m1", None).await;
    h.advance(5.0).await;
    send(&sqs, &url, "g", "m2", None).await;
    assert_eq!(counts(&sqs, &url).await, (0, 0, 2));
    h.advance(5.0).await;
    // m1's delay is over; m2's is not. m1 is delivered, m2 is not overtaken or leaked.
    let got = receive(&sqs, &url, 10).await;
    assert_eq!(bodies(&got), ["m1"]);
    delete(&sqs, &url, &got[0].1).await;
    assert!(receive(&sqs, &url, 10).await.is_empty());
    h.advance(5.0).await;
    assert_eq!(bodies(&receive(&sqs, &url, 10).await), ["m2"]);
}

#[tokio::test]
async fn receive_request_attempt_id_repeats_the_same_receive() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = fifo(
        &sqs,
        "attempt.fifo",
        &[("ContentBasedDeduplication", "true")],
    )
    .await;
    for body in ["a1", "a2", "a3"] {
        send(&sqs, &url, "a", body, None).await;
    }
    send(&sqs, &url, "b", "b1", None).await;
    let attempt = |id: &'static str| {
        let (sqs, url) = (sqs.clone(), url.clone());
        async move {
            sqs.receive_message()
                .queue_url(url)
                .max_number_of_messages(2)
                .receive_request_attempt_id(id)
                .send()
                .await
                .unwrap()
                .messages
                .unwrap_or_default()
                .into_iter()
                .map(|m| (m.body.unwrap(), m.receipt_handle.unwrap()))
                .collect::<Vec<_>>()
        }
    };
    let first = attempt("try-1").await;
    assert_eq!(bodies(&first), ["a1", "a2"]);
    // A retry (say the response was lost) gets the same messages and receipt handles.
    h.advance(20.0).await;
    let retry = attempt("try-1").await;
    assert_eq!(retry, first);
    // ...and restarts their visibility timeout: still hidden 29 s after the retry.
    h.advance(29.0).await;
    assert_eq!(bodies(&receive(&sqs, &url, 10).await), ["b1"]);
    // A new attempt id is a new receive.
    h.advance(1.0).await;
    let other = attempt("try-2").await;
    assert_eq!(bodies(&other), ["a1", "a2"]);
    assert_ne!(other, first, "new receipt handles");
    // Once a message of the attempt was deleted, the retry is a fresh receive.
    delete(&sqs, &url, &other[0].1).await;
    let after = attempt("try-2").await;
    assert!(
        after.is_empty(),
        "a2 is still in flight, so group a is blocked: {after:?}"
    );

    // Over Query.
    let q = fifo(
        &sqs,
        "attempt-q.fifo",
        &[("ContentBasedDeduplication", "true")],
    )
    .await;
    send(&sqs, &q, "g", "only", None).await;
    let params = [
        ("Action", "ReceiveMessage"),
        ("QueueUrl", q.as_str()),
        ("ReceiveRequestAttemptId", "r"),
        ("AttributeName.1", "All"),
    ];
    let one = query_ok(&h, &params).await;
    let two = query_ok(&h, &params).await;
    assert_eq!(
        xml_text(&one, "ReceiptHandle"),
        xml_text(&two, "ReceiptHandle")
    );
    assert!(xml_texts(&one, "Name").contains(&"SequenceNumber".to_string()));
    let err = sqs
        .receive_message()
        .queue_url(&q)
        .receive_request_attempt_id("bad id é")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
}

#[tokio::test]
async fn fifo_batches_keep_entry_order() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = fifo(&sqs, "batch.fifo", &[]).await;
    let e = |id: &str, group: Option<&str>| {
        SendMessageBatchRequestEntry::builder()
            .id(id)
            .message_body(id)
            .set_message_group_id(group.map(str::to_string))
            .message_deduplication_id(id)
            .build()
            .unwrap()
    };
    // An entry without MessageGroupId fails the whole batch (as in SQS, issue 14), with
    // SendMessage's MissingParameter (issue 33).
    let err = sqs
        .send_message_batch()
        .queue_url(&url)
        .entries(e("m1", Some("g")))
        .entries(e("no-group", None))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("MissingParameter"));
    let out = sqs
        .send_message_batch()
        .queue_url(&url)
        .entries(e("m1", Some("g")))
        .entries(e("m2", Some("g")))
        .entries(e("m3", Some("g")))
        .send()
        .await
        .unwrap();
    let ids: Vec<_> = out.successful.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["m1", "m2", "m3"]);
    let seqs: Vec<u128> = out
        .successful
        .iter()
        .map(|s| s.sequence_number.as_deref().unwrap().parse().unwrap())
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]));
    assert!(out.failed.is_empty());
    let xml = query_ok(
        &h,
        &[
            ("Action", "SendMessageBatch"),
            ("QueueUrl", &url),
            ("SendMessageBatchRequestEntry.1.Id", "m4"),
            ("SendMessageBatchRequestEntry.1.MessageBody", "m4"),
            ("SendMessageBatchRequestEntry.1.MessageGroupId", "g"),
            (
                "SendMessageBatchRequestEntry.1.MessageDeduplicationId",
                "m4",
            ),
            ("SendMessageBatchRequestEntry.2.Id", "dup"),
            ("SendMessageBatchRequestEntry.2.MessageBody", "dup"),
            ("SendMessageBatchRequestEntry.2.MessageGroupId", "g"),
            (
                "SendMessageBatchRequestEntry.2.MessageDeduplicationId",
                "m1",
            ),
        ],
    )
    .await;
    assert_eq!(xml_texts(&xml, "Id"), ["m4", "dup"]);
    assert_eq!(
        xml_texts(&xml, "MessageId")[1],
        out.successful[0].message_id
    );
    assert_eq!(
        bodies(&receive(&sqs, &url, 10).await),
        ["m1", "m2", "m3", "m4"]
    );
}
