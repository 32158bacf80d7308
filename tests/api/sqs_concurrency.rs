//! SQS under concurrent clients (issue 3, item 7): many SDK clients sending and receiving on one
//! queue at once never see a message twice within its visibility timeout, never lose one, and on
//! a FIFO queue never see a group out of order. The manual clock never moves, so no redelivery
//! is legitimate.

use crate::harness::{Harness, no_hang};
use crate::sqs_queues::{counts, create};
use aws_sdk_sqs::types::{DeleteMessageBatchRequestEntry, SendMessageBatchRequestEntry};
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const SENDERS: usize = 8;
const RECEIVERS: usize = 8;
const MESSAGES: usize = 500;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn standard_queue_never_duplicates_or_loses_under_concurrency() {
    let h = Harness::start().await;
    let url = create(&h.sqs(), "busy", &[("VisibilityTimeout", "600")]).await;
    let received: Arc<Mutex<Vec<String>>> = Arc::default();
    let kept_in_flight = Arc::new(AtomicUsize::new(0));
    let mut tasks = vec![];

    for s in 0..SENDERS {
        let (sqs, url) = (h.sqs(), url.clone());
        tasks.push(tokio::spawn(async move {
            let mine: Vec<usize> = (0..MESSAGES).filter(|i| i % SENDERS == s).collect();
            // Half one by one, half in batches.
            let (single, batched) = mine.split_at(mine.len() / 2);
            for i in single {
                sqs.send_message()
                    .queue_url(&url)
                    .message_body(format!("body-{i}"))
                    .send()
                    .await
                    .unwrap();
            }
            for chunk in batched.chunks(10) {
                let entries = chunk
                    .iter()
                    .map(|i| {
                        SendMessageBatchRequestEntry::builder()
                            .id(format!("e{i}"))
                            .message_body(format!("body-{i}"))
                            .build()
                            .unwrap()
                    })
                    .collect();
                let out = sqs
                    .send_message_batch()
                    .queue_url(&url)
                    .set_entries(Some(entries))
                    .send()
                    .await
                    .unwrap();
                assert!(out.failed.is_empty(), "{:?}", out.failed);
            }
        }));
    }
    for r in 0..RECEIVERS {
        let (sqs, url) = (h.sqs(), url.clone());
        let (received, kept) = (received.clone(), kept_in_flight.clone());
        tasks.push(tokio::spawn(async move {
            loop {
                if received.lock().unwrap().len() >= MESSAGES {
                    break;
                }
                let got = sqs
                    .receive_message()
                    .queue_url(&url)
                    .max_number_of_messages(10)
                    .send()
                    .await
                    .unwrap()
                    .messages
                    .unwrap_or_default();
                if got.is_empty() {
                    tokio::task::yield_now().await;
                    continue;
                }
                received
                    .lock()
                    .unwrap()
                    .extend(got.iter().map(|m| m.body.clone().unwrap()));
                // Odd receivers delete what they get (in a batch); even ones keep it in flight,
                // where it must stay hidden for the whole test.
                if r % 2 == 1 {
                    let entries = got
                        .iter()
                        .enumerate()
                        .map(|(i, m)| {
                            DeleteMessageBatchRequestEntry::builder()
                                .id(format!("d{i}"))
                                .receipt_handle(m.receipt_handle.clone().unwrap())
                                .build()
                                .unwrap()
                        })
                        .collect();
                    let out = sqs
                        .delete_message_batch()
                        .queue_url(&url)
                        .set_entries(Some(entries))
                        .send()
                        .await
                        .unwrap();
                    assert!(out.failed.is_empty(), "{:?}", out.failed);
                } else {
                    kept.fetch_add(got.len(), Ordering::SeqCst);
                }
            }
        }));
    }
    for t in tasks {
        no_hang("a sender or receiver", t).await.unwrap();
    }

    let received = received.lock().unwrap().clone();
    let unique: HashSet<&String> = received.iter().collect();
    assert_eq!(
        unique.len(),
        received.len(),
        "a message was delivered twice within its visibility timeout"
    );
    let expected: HashSet<String> = (0..MESSAGES).map(|i| format!("body-{i}")).collect();
    assert_eq!(unique.len(), MESSAGES);
    assert!(
        unique.iter().all(|b| expected.contains(*b)),
        "a message was lost"
    );
    let kept = kept_in_flight.load(Ordering::SeqCst) as u64;
    assert_eq!(counts(&h.sqs(), &url).await, (0, kept, 0));
}

const GROUPS: usize = 4;

/// Per group, the (index, SequenceNumber) of each message in the order receivers saw them.
type GroupLog = Arc<Mutex<BTreeMap<String, Vec<(usize, u128)>>>>;
const PER_GROUP: usize = 50;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifo_groups_stay_in_order_under_concurrent_receivers() {
    let h = Harness::start().await;
    let url = create(
        &h.sqs(),
        "busy.fifo",
        &[
            ("FifoQueue", "true"),
            ("ContentBasedDeduplication", "true"),
            ("VisibilityTimeout", "600"),
        ],
    )
    .await;
    // What receivers saw, per group, in the order they saw it (logged before deleting, and a
    // group's next message is only handed out once the previous ones are deleted).
    let log: GroupLog = Arc::default();
    let done = Arc::new(AtomicUsize::new(0));
    let mut tasks = vec![];
    for g in 0..GROUPS {
        let (sqs, url) = (h.sqs(), url.clone());
        tasks.push(tokio::spawn(async move {
            for i in 0..PER_GROUP {
                sqs.send_message()
                    .queue_url(&url)
                    .message_body(format!("g{g}-{i}"))
                    .message_group_id(format!("g{g}"))
                    .send()
                    .await
                    .unwrap();
            }
        }));
    }
    for _ in 0..RECEIVERS {
        let (sqs, url) = (h.sqs(), url.clone());
        let (log, done) = (log.clone(), done.clone());
        tasks.push(tokio::spawn(async move {
            while done.load(Ordering::SeqCst) < GROUPS * PER_GROUP {
                let got = sqs
                    .receive_message()
                    .queue_url(&url)
                    .max_number_of_messages(3)
                    .message_system_attribute_names(
                        aws_sdk_sqs::types::MessageSystemAttributeName::SequenceNumber,
                    )
                    .send()
                    .await
                    .unwrap()
                    .messages
                    .unwrap_or_default();
                if got.is_empty() {
                    tokio::task::yield_now().await;
                    continue;
                }
                {
                    let mut log = log.lock().unwrap();
                    for m in &got {
                        let body = m.body.as_deref().unwrap();
                        let (group, index) = body.split_once('-').unwrap();
                        let seq = m.attributes.as_ref().unwrap()
                            [&aws_sdk_sqs::types::MessageSystemAttributeName::SequenceNumber]
                            .parse()
                            .unwrap();
                        log.entry(group.to_string())
                            .or_default()
                            .push((index.parse().unwrap(), seq));
                    }
                }
                for m in &got {
                    sqs.delete_message()
                        .queue_url(&url)
                        .receipt_handle(m.receipt_handle.clone().unwrap())
                        .send()
                        .await
                        .unwrap();
                    done.fetch_add(1, Ordering::SeqCst);
                }
            }
        }));
    }
    for t in tasks {
        no_hang("a FIFO sender or receiver", t).await.unwrap();
    }
    let log = log.lock().unwrap().clone();
    assert_eq!(log.len(), GROUPS);
    for (group, seen) in log.iter() {
        let indices: Vec<usize> = seen.iter().map(|(i, _)| *i).collect();
        assert_eq!(
            indices,
            (0..PER_GROUP).collect::<Vec<_>>(),
            "group {group} out of order or duplicated"
        );
        assert!(
            seen.windows(2).all(|w| w[0].1 < w[1].1),
            "sequence numbers increase within {group}"
        );
    }
    assert_eq!(counts(&h.sqs(), &url).await, (0, 0, 0));
}
