//! The counts a queue keeps (issue 17): GetQueueAttributes and the console's resources view
//! agree with what happened to each message through every transition — sends with and without
//! delay, receives, visibility changes, timeouts and delays running out, deletes, redrive to a
//! dead-letter queue, a move task back, retention and purge. The console reads first, before
//! GetQueueAttributes brings the queue's counts up to date, so both ways of counting are seen.

use crate::harness::Harness;
use crate::sqs_queues::{counts, create};
use aws_sdk_sqs::Client;
use serde_json::json;

/// (visible, in flight, delayed) of queue `name` in the console's view, then as
/// GetQueueAttributes answers; both must be `expected`.
async fn assert_counts(h: &Harness, sqs: &Client, name: &str, expected: (u64, u64, u64)) {
    let view = h.control_get("resources").await;
    let queues = view["regions"][0]["queues"].as_array().unwrap();
    let q = queues.iter().find(|q| q["name"] == name).unwrap();
    let console = (
        q["visible"].clone(),
        q["inFlight"].clone(),
        q["delayed"].clone(),
    );
    let (v, f, d) = expected;
    assert_eq!(console, (json!(v), json!(f), json!(d)), "console, {name}");
    let url = format!("{}/000000000000/{name}", h.url());
    assert_eq!(
        counts(sqs, &url).await,
        expected,
        "GetQueueAttributes, {name}"
    );
}

async fn receive(sqs: &Client, url: &str, max: i32, visibility: i32) -> Vec<String> {
    let got = sqs
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(max)
        .visibility_timeout(visibility)
        .send()
        .await
        .unwrap();
    let messages = got.messages.unwrap_or_default();
    messages
        .into_iter()
        .map(|m| m.receipt_handle.unwrap())
        .collect()
}

#[tokio::test]
async fn counts_follow_every_transition() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let dlq = create(&sqs, "depth-dlq", &[]).await;
    let redrive = json!({
        "deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:depth-dlq",
        "maxReceiveCount": 2
    });
    let url = create(
        &sqs,
        "depth",
        &[
            ("MessageRetentionPeriod", "60"),
            ("RedrivePolicy", &redrive.to_string()),
        ],
    )
    .await;
    for body in ["a", "b", "c"] {
        sqs.send_message()
            .queue_url(&url)
            .message_body(body)
            .send()
            .await
            .unwrap();
    }
    for body in ["d", "e"] {
        let send = sqs.send_message().queue_url(&url).message_body(body);
        send.delay_seconds(10).send().await.unwrap();
    }
    assert_counts(&h, &sqs, "depth", (3, 0, 2)).await;
    let handles = receive(&sqs, &url, 2, 30).await;
    assert_counts(&h, &sqs, "depth", (1, 2, 2)).await;
    h.advance(10.0).await;
    assert_counts(&h, &sqs, "depth", (3, 2, 0)).await;
    let change = sqs.change_message_visibility().queue_url(&url);
    change
        .receipt_handle(&handles[0])
        .visibility_timeout(0)
        .send()
        .await
        .unwrap();
    assert_counts(&h, &sqs, "depth", (4, 1, 0)).await;
    let delete = sqs.delete_message().queue_url(&url);
    delete.receipt_handle(&handles[1]).send().await.unwrap();
    assert_counts(&h, &sqs, "depth", (4, 0, 0)).await;
    assert_eq!(receive(&sqs, &url, 10, 5).await.len(), 4);
    assert_counts(&h, &sqs, "depth", (0, 4, 0)).await;
    h.advance(5.0).await;
    assert_counts(&h, &sqs, "depth", (4, 0, 0)).await;
    // The first message is past maxReceiveCount: the dead-letter queue takes it.
    assert_eq!(receive(&sqs, &url, 10, 5).await.len(), 3);
    assert_counts(&h, &sqs, "depth", (0, 3, 0)).await;
    assert_counts(&h, &sqs, "depth-dlq", (1, 0, 0)).await;
    let arn = "arn:aws:sqs:us-east-1:000000000000:depth-dlq";
    sqs.start_message_move_task()
        .source_arn(arn)
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    assert_counts(&h, &sqs, "depth-dlq", (0, 0, 0)).await;
    assert_counts(&h, &sqs, "depth", (1, 3, 0)).await;
    // Sent at 0 s, the others expire at 60 s; the one moved back was sent again at 15 s.
    h.advance(44.0).await;
    assert_counts(&h, &sqs, "depth", (1, 0, 0)).await;
    sqs.purge_queue().queue_url(&url).send().await.unwrap();
    assert_counts(&h, &sqs, "depth", (0, 0, 0)).await;
    assert_counts(&h, &sqs, "depth-dlq", (0, 0, 0)).await;
    assert!(dlq.ends_with("/depth-dlq"));
}
