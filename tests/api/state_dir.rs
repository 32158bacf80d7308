//! `--state-dir`: the state survives a restart, and a restarted emulator goes on exactly as one
//! that never stopped would (the same message ids, receive counts, order and retry times).

use crate::harness::Harness;
use crate::sns_http::Subscriber;
use aws_sdk_sqs::types::MessageSystemAttributeName;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use switchyard::Config;

/// A fresh state directory for one test.
fn state_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("switchyard-state-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn config(dir: Option<&Path>) -> Config {
    Config {
        state_dir: dir.map(Path::to_path_buf),
        ..Config::for_tests()
    }
}

/// Queues, messages in every state, a topic with a queue subscription.
async fn before(h: &Harness) {
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("orders")
        .attributes(
            aws_sdk_sqs::types::QueueAttributeName::VisibilityTimeout,
            "30",
        )
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let fifo = sqs
        .create_queue()
        .queue_name("orders.fifo")
        .attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true")
        .attributes(
            aws_sdk_sqs::types::QueueAttributeName::ContentBasedDeduplication,
            "true",
        )
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    for body in ["a", "b", "c", "d"] {
        sqs.send_message()
            .queue_url(&url)
            .message_body(body)
            .send()
            .await
            .unwrap();
        sqs.send_message()
            .queue_url(&fifo)
            .message_body(format!("fifo-{body}"))
            .message_group_id("g1")
            .send()
            .await
            .unwrap();
    }
    sqs.send_message()
        .queue_url(&url)
        .message_body("delayed")
        .delay_seconds(60)
        .send()
        .await
        .unwrap();
    // Two received: one deleted, one left in flight.
    let received = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(2)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    assert_eq!(received.len(), 2);
    sqs.delete_message()
        .queue_url(&url)
        .receipt_handle(received[0].receipt_handle().unwrap())
        .send()
        .await
        .unwrap();
    // The first of the FIFO group received and deleted.
    let first = sqs
        .receive_message()
        .queue_url(&fifo)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    assert_eq!(first[0].body(), Some("fifo-a"));
    sqs.delete_message()
        .queue_url(&fifo)
        .receipt_handle(first[0].receipt_handle().unwrap())
        .send()
        .await
        .unwrap();
    let sns = h.sns();
    let topic = sns
        .create_topic()
        .name("news")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    sns.subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint("arn:aws:sqs:us-east-1:000000000000:orders")
        .attributes("RawMessageDelivery", "true")
        .send()
        .await
        .unwrap();
    sns.publish()
        .topic_arn(&topic)
        .message("published")
        .send()
        .await
        .unwrap();
    h.advance(5.0).await;
}

/// What a client sees afterwards: a new message's id, then (once the visibility timeout and the
/// delay have passed) every message of both queues with its id and receive count.
async fn after(h: &Harness) -> Value {
    let sqs = h.sqs();
    let url = sqs
        .get_queue_url()
        .queue_name("orders")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let fifo = sqs
        .get_queue_url()
        .queue_name("orders.fifo")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let sent = sqs
        .send_message()
        .queue_url(&url)
        .message_body("after")
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    h.advance(60.0).await;
    let mut seen = Vec::new();
    for queue in [&url, &fifo] {
        loop {
            let messages = sqs
                .receive_message()
                .queue_url(queue)
                .max_number_of_messages(10)
                .message_system_attribute_names(MessageSystemAttributeName::All)
                .send()
                .await
                .unwrap()
                .messages
                .unwrap_or_default();
            if messages.is_empty() {
                break;
            }
            for m in messages {
                let count = m
                    .attributes()
                    .and_then(|a| a.get(&MessageSystemAttributeName::ApproximateReceiveCount))
                    .cloned();
                seen.push(json!([m.body(), m.message_id(), count]));
                sqs.delete_message()
                    .queue_url(queue)
                    .receipt_handle(m.receipt_handle().unwrap())
                    .send()
                    .await
                    .unwrap();
            }
        }
    }
    json!({"sent": sent, "seen": seen})
}

#[tokio::test]
async fn a_restarted_emulator_goes_on_as_one_that_never_stopped() {
    // The run without a stop.
    let h = Harness::with(config(None)).await;
    before(&h).await;
    let expected = after(&h).await;
    drop(h);

    let dir = state_dir("restart");
    let mut h = Harness::with(config(Some(&dir))).await;
    before(&h).await;
    h.stop().await;
    let mut h = Harness::with(config(Some(&dir))).await;
    let got = after(&h).await;
    assert_eq!(got, expected);
    // Every message, in flight, delayed, published or sent after, came back once; the deleted
    // one did not; the FIFO group kept its order.
    let bodies: Vec<&str> = got["seen"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m[0].as_str().unwrap())
        .collect();
    assert_eq!(bodies.len(), 9, "{bodies:?}");
    assert!(
        bodies.ends_with(&["fifo-b", "fifo-c", "fifo-d"]),
        "{bodies:?}"
    );
    assert!(!bodies.contains(&"fifo-a"));
    h.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_manual_clock_resumes_at_its_stored_time() {
    let dir = state_dir("clock");
    let mut h = Harness::with(config(Some(&dir))).await;
    h.advance(3600.0).await;
    let before = h.control_get("clock").await["epochMillis"].clone();
    h.stop().await;
    let mut h = Harness::with(config(Some(&dir))).await;
    assert_eq!(h.control_get("clock").await["epochMillis"], before);
    h.stop().await;
    // Started without --clock, it runs with the mode the directory was last run with.
    let without_clock = Config {
        clock: switchyard::ClockMode::Real,
        clock_from_state_dir: true,
        ..config(Some(&dir))
    };
    let mut h = Harness::with(without_clock).await;
    let clock = h.control_get("clock").await;
    assert_eq!(
        (&clock["mode"], &clock["epochMillis"]),
        (&json!("manual"), &before)
    );
    h.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// An SNS HTTP subscription whose endpoint fails: the retries after a restart happen at the same
/// virtual times, in the same phases, as without one.
#[tokio::test]
async fn a_retry_schedule_goes_on_after_a_restart() {
    async fn schedule(dir: Option<&Path>, stop_after: Option<f64>) -> Vec<Value> {
        let hook = Subscriber::start().await;
        let mut h = Harness::with(config(dir)).await;
        let sns = h.sns();
        let topic = sns
            .create_topic()
            .name("alerts")
            .send()
            .await
            .unwrap()
            .topic_arn
            .unwrap();
        let policy = json!({"healthyRetryPolicy": {
            "minDelayTarget": 1, "maxDelayTarget": 60, "numRetries": 20,
            "numNoDelayRetries": 2, "numMinDelayRetries": 3, "numMaxDelayRetries": 5,
            "backoffFunction": "exponential"}});
        sns.subscribe()
            .topic_arn(&topic)
            .protocol("http")
            .endpoint(&hook.url)
            .attributes("DeliveryPolicy", policy.to_string())
            .send()
            .await
            .unwrap();
        hook.confirm(&h).await;
        // From now on the endpoint fails.
        hook.answer(503);
        sns.publish()
            .topic_arn(&topic)
            .message("hello")
            .send()
            .await
            .unwrap();
        let mut advanced = 0.0;
        if let Some(at) = stop_after {
            h.advance(at).await;
            advanced = at;
            h.stop().await;
            h = Harness::with(config(dir)).await;
        }
        h.advance(600.0 - advanced).await;
        let log = h.control_get("deliveries?limit=100").await;
        h.stop().await;
        log["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["protocol"] == "http")
            .map(|r| {
                json!([
                    r["event"],
                    r["attempt"],
                    r["phase"],
                    r["outcome"],
                    r["delaySeconds"]
                ])
            })
            .collect()
    }
    let expected = schedule(None, None).await;
    assert!(expected.len() > 10, "{expected:?}");
    let dir = state_dir("retries");
    let got = schedule(Some(&dir), Some(7.5)).await;
    assert_eq!(got, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_directory_that_cannot_be_used_is_refused_with_its_path_and_cause() {
    // Not a directory.
    let file = state_dir("file");
    std::fs::write(&file, "not a directory").unwrap();
    let err = switchyard::Emulator::start(config(Some(&file)))
        .await
        .err()
        .expect("refused");
    let text = err.to_string();
    assert!(text.contains(&file.display().to_string()), "{text}");
    let _ = std::fs::remove_file(&file);

    // A place nobody may write, not even root (sysfs).
    let unwritable = Path::new("/sys/switchyard-state");
    if Path::new("/sys").is_dir() && std::fs::create_dir(unwritable).is_err() {
        let err = switchyard::Emulator::start(config(Some(unwritable)))
            .await
            .err()
            .expect("refused");
        let text = err.to_string();
        assert!(
            text.contains("/sys/switchyard-state") && text.contains("cannot create it"),
            "{text}"
        );
    }

    // A damaged store.
    let dir = state_dir("damaged");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("switchyard.redb"), vec![0x5a; 8192]).unwrap();
    let err = switchyard::Emulator::start(config(Some(&dir)))
        .await
        .err()
        .expect("refused");
    let text = err.to_string();
    assert!(text.contains("switchyard.redb"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);

    // A store that is no file.
    let dir = state_dir("store-is-a-directory");
    std::fs::create_dir_all(dir.join("switchyard.redb")).unwrap();
    let err = switchyard::Emulator::start(config(Some(&dir)))
        .await
        .err()
        .expect("refused");
    let text = err.to_string();
    assert!(
        text.contains("switchyard.redb cannot be opened") && text.contains("directory"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);

    // A directory of another version.
    let dir = state_dir("version");
    let mut h = Harness::with(config(Some(&dir))).await;
    h.stop().await;
    {
        use redb::ReadableTable;
        let db = redb::Database::create(dir.join("switchyard.redb")).unwrap();
        let meta: redb::TableDefinition<&str, &[u8]> = redb::TableDefinition::new("meta");
        let write = db.begin_write().unwrap();
        {
            let mut table = write.open_table(meta).unwrap();
            let genesis: Value =
                serde_json::from_slice(table.get("genesis").unwrap().unwrap().value()).unwrap();
            let mut genesis = genesis;
            genesis["version"] = json!(99);
            table
                .insert("genesis", serde_json::to_vec(&genesis).unwrap().as_slice())
                .unwrap();
        }
        write.commit().unwrap();
    }
    let err = switchyard::Emulator::start(config(Some(&dir)))
        .await
        .err()
        .expect("refused");
    let text = err.to_string();
    assert!(text.contains("version 99"), "{text}");
    assert!(text.contains(&dir.display().to_string()), "{text}");
    let _ = std::fs::remove_dir_all(&dir);

    // A directory in use.
    let dir = state_dir("in-use");
    let mut h = Harness::with(config(Some(&dir))).await;
    let err = switchyard::Emulator::start(config(Some(&dir)))
        .await
        .err()
        .expect("refused");
    let text = err.to_string();
    assert!(text.contains("in use by another switchyard"), "{text}");
    h.assert_alive().await;
    h.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reset clears what the directory kept, and a snapshot loaded into a kept state is what a
/// restart finds.
#[tokio::test]
async fn a_reset_clears_the_kept_state_and_a_loaded_snapshot_is_kept() {
    let dir = state_dir("reset");
    let mut h = Harness::with(config(Some(&dir))).await;
    let sqs = h.sqs();
    sqs.create_queue().queue_name("gone").send().await.unwrap();
    let world = h.emulator.state_snapshot();
    let reset = h.control_post("reset", json!({})).await;
    assert_eq!(reset.status, 200, "{}", reset.body);
    sqs.create_queue().queue_name("after").send().await.unwrap();
    h.stop().await;
    let mut h = Harness::with(config(Some(&dir))).await;
    let names = |h: &Harness| {
        let sqs = h.sqs();
        async move {
            let listed = sqs.list_queues().send().await.unwrap();
            let mut urls = listed.queue_urls.unwrap_or_default();
            urls.sort();
            urls.iter()
                .map(|u| u.rsplit('/').next().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(names(&h).await, ["after"]);
    // Load the world saved before the reset: a restart finds it, not what was there.
    let loaded = h
        .request(
            "POST",
            "/_switchyard/state",
            &[("content-type", "application/json")],
            String::from_utf8(world).unwrap(),
        )
        .await;
    assert_eq!(loaded.status, 200, "{}", loaded.body);
    h.stop().await;
    let mut h = Harness::with(config(Some(&dir))).await;
    assert_eq!(names(&h).await, ["gone"]);
    h.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
