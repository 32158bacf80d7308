//! SQS as AWS recorded it (issue 14, items 1 and 2): which messages of a FIFO group are served
//! while others are in flight, the order of groups after a visibility change, long polls woken
//! when a group is freed, and what receipt handles do once outdated.

use crate::harness::{Harness, no_hang};
use crate::sqs_queues::{counts, create};
use aws_sdk_sqs::Client;
use aws_sdk_sqs::error::ProvideErrorMetadata;

async fn fifo(sqs: &Client, name: &str, visibility: &str) -> String {
    let attrs = [
        ("FifoQueue", "true"),
        ("ContentBasedDeduplication", "true"),
        ("VisibilityTimeout", visibility),
    ];
    create(sqs, name, &attrs).await
}

/// Sends `g<group>-m<n>` bodies: each `(group, body)` to its group.
async fn send(sqs: &Client, url: &str, messages: &[(&str, &str)]) {
    for (group, body) in messages {
        sqs.send_message()
            .queue_url(url)
            .message_body(*body)
            .message_group_id(*group)
            .send()
            .await
            .unwrap();
    }
}

/// Receives up to `max` with `visibility` (None: the queue's): (body, receipt handle).
async fn receive(
    sqs: &Client,
    url: &str,
    max: i32,
    visibility: Option<i32>,
) -> Vec<(String, String)> {
    sqs.receive_message()
        .queue_url(url)
        .max_number_of_messages(max)
        .set_visibility_timeout(visibility)
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

async fn change(sqs: &Client, url: &str, handle: &str, timeout: i32) {
    sqs.change_message_visibility()
        .queue_url(url)
        .receipt_handle(handle)
        .visibility_timeout(timeout)
        .send()
        .await
        .unwrap();
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
async fn an_earlier_message_made_visible_is_served_while_a_later_one_is_in_flight() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    // Visibility 0 by ChangeMessageVisibility: AWS serves g2-m1, then g1-m1, and holds g1-m2.
    let url = fifo(&sqs, "terminate.fifo", "30").await;
    send(
        &sqs,
        &url,
        &[("1", "g1-m1"), ("1", "g1-m2"), ("2", "g2-m1")],
    )
    .await;
    let got = receive(&sqs, &url, 2, None).await;
    assert_eq!(bodies(&got), ["g1-m1", "g1-m2"]);
    change(&sqs, &url, &got[0].1, 0).await;
    assert_eq!(
        bodies(&receive(&sqs, &url, 3, None).await),
        ["g2-m1", "g1-m1"]
    );

    // A shorter timeout running out does the same, while g1-m2 keeps its 30 s.
    let url = fifo(&sqs, "shorter.fifo", "30").await;
    send(
        &sqs,
        &url,
        &[("1", "g1-m1"), ("1", "g1-m2"), ("2", "g2-m1")],
    )
    .await;
    let got = receive(&sqs, &url, 2, None).await;
    change(&sqs, &url, &got[0].1, 1).await;
    h.advance(2.0).await;
    assert_eq!(
        bodies(&receive(&sqs, &url, 3, None).await),
        ["g2-m1", "g1-m1"]
    );
    // g1-m2 is still in flight: nothing of group 1 after it either.
    send(&sqs, &url, &[("1", "g1-m3")]).await;
    assert!(receive(&sqs, &url, 10, None).await.is_empty());
}

#[tokio::test]
async fn groups_come_back_in_the_order_aws_serves_them() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    // Two of group 1, then one of group 2, go in flight; when their timeout runs out, group 3
    // (never received) comes first, then group 1, then group 2.
    let url = fifo(&sqs, "shared.fifo", "1").await;
    send(
        &sqs,
        &url,
        &[
            ("1", "g1-m1"),
            ("1", "g1-m2"),
            ("1", "g1-m3"),
            ("1", "g1-m4"),
            ("2", "g2-m1"),
            ("3", "g3-m1"),
        ],
    )
    .await;
    assert_eq!(
        bodies(&receive(&sqs, &url, 2, None).await),
        ["g1-m1", "g1-m2"]
    );
    assert_eq!(bodies(&receive(&sqs, &url, 1, None).await), ["g2-m1"]);
    h.advance(2.0).await;
    assert_eq!(
        bodies(&receive(&sqs, &url, 10, Some(0)).await),
        ["g3-m1", "g1-m1", "g1-m2", "g1-m3", "g1-m4", "g2-m1"]
    );

    // Received with visibility 0: the groups received queue behind the one that was not.
    let url = fifo(&sqs, "zero.fifo", "30").await;
    send(
        &sqs,
        &url,
        &[
            ("1", "g1-m1"),
            ("2", "g2-m1"),
            ("2", "g2-m2"),
            ("3", "g3-m1"),
            ("1", "g1-m2"),
        ],
    )
    .await;
    assert_eq!(
        bodies(&receive(&sqs, &url, 3, Some(0)).await),
        ["g1-m1", "g1-m2", "g2-m1"]
    );
    assert_eq!(
        bodies(&receive(&sqs, &url, 10, Some(0)).await),
        ["g3-m1", "g1-m1", "g1-m2", "g2-m1", "g2-m2"]
    );

    // In order after a timeout, every time.
    let url = fifo(&sqs, "order.fifo", "1").await;
    send(&sqs, &url, &[("1", "m0"), ("1", "m1"), ("1", "m2")]).await;
    for _ in 0..2 {
        assert_eq!(
            bodies(&receive(&sqs, &url, 10, None).await),
            ["m0", "m1", "m2"]
        );
        h.advance(2.0).await;
    }
}

#[tokio::test]
async fn deleting_in_flight_messages_frees_their_group_in_place() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let messages = [
        ("1", "g1-m1"),
        ("2", "g2-m1"),
        ("1", "g1-m2"),
        ("2", "g2-m2"),
        ("1", "g1-m2"), // a duplicate body: deduplicated
        ("1", "g1-m3"),
        ("1", "g1-m4"),
        ("3", "g3-m1"),
    ];
    let url = fifo(&sqs, "delete.fifo", "30").await;
    send(&sqs, &url, &messages).await;
    let got = receive(&sqs, &url, 2, None).await;
    assert_eq!(bodies(&got), ["g1-m1", "g1-m2"]);
    delete(&sqs, &url, &got[0].1).await;
    delete(&sqs, &url, &got[1].1).await;
    // AWS: group 1's next message was sent before group 3's, so it comes first.
    assert_eq!(
        bodies(&receive(&sqs, &url, 10, None).await),
        ["g2-m1", "g2-m2", "g1-m3", "g1-m4", "g3-m1"]
    );

    // Only one of the two deleted: group 1 stays held.
    let url = fifo(&sqs, "partial.fifo", "30").await;
    send(&sqs, &url, &messages).await;
    let got = receive(&sqs, &url, 2, None).await;
    delete(&sqs, &url, &got[0].1).await;
    assert_eq!(
        bodies(&receive(&sqs, &url, 10, None).await),
        ["g2-m1", "g2-m2", "g3-m1"]
    );
}

#[tokio::test]
async fn freeing_a_group_wakes_a_waiting_long_poll_at_once() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    for (i, free) in ["delete", "change"].into_iter().enumerate() {
        let url = fifo(&sqs, &format!("wake{i}.fifo"), "300").await;
        send(&sqs, &url, &[("1", "first"), ("1", "second")]).await;
        let got = receive(&sqs, &url, 1, None).await;
        assert_eq!(bodies(&got), ["first"]);
        let app = h.emulator.app().clone();
        let timers_before = app.engine().pending_timers();
        let poll = {
            let (sqs, url) = (sqs.clone(), url.clone());
            tokio::spawn(async move {
                sqs.receive_message()
                    .queue_url(url)
                    .wait_time_seconds(20)
                    .send()
                    .await
                    .unwrap()
                    .messages
                    .unwrap_or_default()
            })
        };
        // The poll is waiting once the engine holds its deadline (wall-clock bounded); then
        // free the group without moving the clock.
        for _ in 0..10_000 {
            if app.engine().pending_timers() > timers_before {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert!(
            app.engine().pending_timers() > timers_before,
            "{free}: poll waits"
        );
        match free {
            "delete" => delete(&sqs, &url, &got[0].1).await,
            _ => change(&sqs, &url, &got[0].1, 0).await,
        }
        let woken = no_hang("long poll", poll).await.unwrap();
        let expected = if free == "delete" { "second" } else { "first" };
        assert_eq!(woken[0].body.as_deref(), Some(expected), "{free}");
    }
}

#[tokio::test]
async fn an_older_receipt_handle_still_deletes_the_message() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "old-handle", &[]).await;
    sqs.send_message()
        .queue_url(&url)
        .message_body("m")
        .send()
        .await
        .unwrap();
    let first = receive(&sqs, &url, 1, Some(1)).await.remove(0).1;
    h.advance(2.0).await;
    let second = receive(&sqs, &url, 1, Some(30)).await.remove(0).1;
    assert_ne!(first, second);
    // AWS deletes the message by the handle of the earlier receive.
    delete(&sqs, &url, &first).await;
    assert_eq!(counts(&sqs, &url).await, (0, 0, 0));
    h.advance(60.0).await;
    assert!(receive(&sqs, &url, 10, None).await.is_empty());
    // Deleting again, by either handle, succeeds and changes nothing.
    delete(&sqs, &url, &first).await;
    delete(&sqs, &url, &second).await;

    // With a visibility timeout that ran out (nobody received it again) too.
    sqs.send_message()
        .queue_url(&url)
        .message_body("n")
        .send()
        .await
        .unwrap();
    let handle = receive(&sqs, &url, 1, Some(1)).await.remove(0).1;
    h.advance(2.0).await;
    delete(&sqs, &url, &handle).await;
    assert_eq!(counts(&sqs, &url).await, (0, 0, 0));
}

#[tokio::test]
async fn visibility_changes_by_expired_or_superseded_handles_on_standard_queues() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "expired-handle", &[]).await;
    sqs.send_message()
        .queue_url(&url)
        .message_body("m")
        .send()
        .await
        .unwrap();
    // The timeout ran out: AWS accepts the change, and the message is hidden again.
    let first = receive(&sqs, &url, 1, Some(1)).await.remove(0).1;
    h.advance(2.0).await;
    change(&sqs, &url, &first, 30).await;
    assert_eq!(counts(&sqs, &url).await, (0, 1, 0));
    h.advance(31.0).await;
    // Received again: the first handle still changes its visibility.
    let second = receive(&sqs, &url, 1, Some(30)).await.remove(0).1;
    change(&sqs, &url, &first, 0).await;
    assert_eq!(counts(&sqs, &url).await, (1, 0, 0));
    change(&sqs, &url, &second, 10).await;
    assert_eq!(counts(&sqs, &url).await, (0, 1, 0));

    // Deleted: AWS's wording, for every handle it had, and in a batch.
    delete(&sqs, &url, &second).await;
    for handle in [&first, &second] {
        let err = sqs
            .change_message_visibility()
            .queue_url(&url)
            .receipt_handle(handle.as_str())
            .visibility_timeout(42)
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some("InvalidParameterValue"));
        assert_eq!(
            err.message(),
            Some(
                format!(
                    "Value {handle} for parameter ReceiptHandle is invalid. Reason: Message does \
                     not exist or is not available for visibility timeout change."
                )
                .as_str()
            )
        );
    }
    let out = sqs
        .change_message_visibility_batch()
        .queue_url(&url)
        .entries(
            aws_sdk_sqs::types::ChangeMessageVisibilityBatchRequestEntry::builder()
                .id("a")
                .receipt_handle(&first)
                .visibility_timeout(5)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert!(out.successful.is_empty());
    assert_eq!(out.failed[0].code, "InvalidParameterValue");
    assert!(out.failed[0].sender_fault);
}

#[tokio::test]
async fn fifo_queues_keep_refusing_outdated_handles() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = fifo(&sqs, "strict.fifo", "1").await;
    send(&sqs, &url, &[("1", "m")]).await;
    let handle = receive(&sqs, &url, 1, None).await.remove(0).1;
    h.advance(2.0).await;
    let expired = format!(
        "Value {handle} for parameter ReceiptHandle is invalid. Reason: The receipt handle has \
         expired."
    );
    let err = sqs
        .delete_message()
        .queue_url(&url)
        .receipt_handle(&handle)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        (err.code(), err.message()),
        (Some("InvalidParameterValue"), Some(expired.as_str()))
    );
    let err = sqs
        .change_message_visibility()
        .queue_url(&url)
        .receipt_handle(&handle)
        .visibility_timeout(10)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some("AWS.SimpleQueueService.MessageNotInflight")
    );
    assert_eq!(counts(&sqs, &url).await, (1, 0, 0));
}
