//! State snapshots (issue 13, item 6): `GET /_switchyard/state` answers the whole state as one
//! file and `POST /_switchyard/state` puts it back. A world of queues, a topic delivering to an
//! HTTP endpoint in the middle of its retries, rules, a custom bus, a schedule and a pipe is
//! exported, reset and imported: every resource answers as before, and what follows (retries,
//! schedule runs, the pipe, new message ids from the seeded generator) happens exactly as in the
//! run without the export and import. Bad files are refused with `400 InvalidState` and leave
//! the running state as it was.

use crate::custom_bus::{bus, subscriber, v2};
use crate::harness::{Harness, Reply};
use crate::sns_http::Subscriber;
use aws_sdk_sqs::types::{MessageSystemAttributeName, QueueAttributeName};
use serde_json::{Value, json};
use switchyard::Config;

const ACCOUNT: &str = "000000000000";

fn arn(service: &str, name: &str) -> String {
    format!("arn:aws:{service}:us-east-1:{ACCOUNT}:{name}")
}

fn pipes(h: &Harness) -> aws_sdk_pipes::Client {
    let config = aws_sdk_pipes::Config::builder()
        .behavior_version(aws_sdk_pipes::config::BehaviorVersion::latest())
        .endpoint_url(h.url())
        .region(aws_sdk_pipes::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_pipes::config::Credentials::new(
            "test", "test", None, None, "test",
        ))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .build();
    aws_sdk_pipes::Client::from_conf(config)
}

async fn queue(h: &Harness, name: &str) -> String {
    let mut create = h.sqs().create_queue().queue_name(name);
    if name.ends_with(".fifo") {
        create = create.attributes(QueueAttributeName::FifoQueue, "true");
    }
    create.send().await.unwrap().queue_url.unwrap()
}

/// `GET /_switchyard/state`: the file.
async fn export(h: &Harness) -> String {
    let r = h.request("GET", "/_switchyard/state", &[], "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("application/json"));
    r.body
}

/// `POST /_switchyard/state` with `file`.
async fn import(h: &Harness, file: impl Into<bytes::Bytes>) -> Reply {
    let ct = [("content-type", "application/json")];
    h.request("POST", "/_switchyard/state", &ct, file).await
}

/// Every message of every queue, invisible and delayed ones too, as LocalStack's peek shows
/// them (receive counts and all), without receiving them.
async fn peek(h: &Harness, names: &[&str]) -> Vec<Value> {
    let mut all = Vec::new();
    for name in names {
        let path = format!(
            "/_aws/sqs/messages/us-east-1/{ACCOUNT}/{name}?ShowInvisible=true&ShowDelayed=true"
        );
        let r = h
            .request("GET", &path, &[("accept", "application/json")], "")
            .await;
        all.push(json!([r.status, r.json()]));
    }
    all
}

/// What a user sees of the world: every resource, every queued message, the clock, the
/// delivery log, the outbox and the faults.
async fn looks(h: &Harness) -> Value {
    let queues = [
        "std", "f.fifo", "ruled", "bused", "sched", "pipe-src", "pipe-dst",
    ];
    json!({
        "resources": h.control_get("resources").await,
        "messages": peek(h, &queues).await,
        "clock": h.control_get("clock").await,
        "deliveries": h.control_get("deliveries").await,
        "outbox": h.control_get("outbox").await,
        "faults": h.control_get("faults").await,
        "pipe": format!("{:?}", pipes(h).describe_pipe().name("p").send().await.map(|p| p.current_state)),
    })
}

/// The world: queues standard and FIFO (messages visible, in flight, delayed; a deduplication
/// id), a topic whose HTTP subscriber answers 500 under a delivery policy of several retries,
/// a rule routing to a queue, a custom bus with a subscriber, a schedule every minute and a pipe.
/// The topic's first publish is left in the middle of its retries.
async fn world(h: &Harness, hook: &Subscriber) -> (String, String, String) {
    let std = queue(h, "std").await;
    let fifo = queue(h, "f.fifo").await;
    for name in ["ruled", "bused", "sched", "pipe-src", "pipe-dst"] {
        queue(h, name).await;
    }
    for (i, delay) in [0, 0, 90].into_iter().enumerate() {
        h.sqs()
            .send_message()
            .queue_url(&std)
            .message_body(format!("m{i}"))
            .delay_seconds(delay)
            .send()
            .await
            .unwrap();
    }
    let got = h
        .sqs()
        .receive_message()
        .queue_url(&std)
        .visibility_timeout(100)
        .send()
        .await
        .unwrap();
    assert_eq!(got.messages.unwrap().len(), 1);
    h.sqs()
        .send_message()
        .queue_url(&fifo)
        .message_body("f1")
        .message_group_id("g")
        .message_deduplication_id("d1")
        .send()
        .await
        .unwrap();

    let topic = h
        .sns()
        .create_topic()
        .name("orders")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let policy = json!({"healthyRetryPolicy": {"minDelayTarget": 2, "maxDelayTarget": 40,
        "numRetries": 8, "numNoDelayRetries": 1, "numMinDelayRetries": 1,
        "numMaxDelayRetries": 2, "backoffFunction": "exponential"}});
    h.sns()
        .subscribe()
        .topic_arn(&topic)
        .protocol("http")
        .endpoint(&hook.url)
        .attributes("DeliveryPolicy", policy.to_string())
        .send()
        .await
        .unwrap();
    hook.confirm(h).await;

    h.events()
        .put_rule()
        .name("shop")
        .event_pattern(r#"{"source":["shop"]}"#)
        .send()
        .await
        .unwrap();
    let target = aws_sdk_eventbridge::types::Target::builder()
        .id("q")
        .arn(arn("sqs", "ruled"))
        .build()
        .unwrap();
    h.events()
        .put_targets()
        .rule("shop")
        .targets(target)
        .send()
        .await
        .unwrap();
    let custom = bus(h, "custom").await;
    subscriber(h, "to-queue", &custom, &arn("sqs", "bused"), json!({})).await;

    let window = aws_sdk_scheduler::types::FlexibleTimeWindow::builder()
        .mode(aws_sdk_scheduler::types::FlexibleTimeWindowMode::Off)
        .build()
        .unwrap();
    let target = aws_sdk_scheduler::types::Target::builder()
        .arn(arn("sqs", "sched"))
        .role_arn(format!("arn:aws:iam::{ACCOUNT}:role/scheduler"))
        .input("tick")
        .build()
        .unwrap();
    h.scheduler()
        .create_schedule()
        .name("every-minute")
        .schedule_expression("rate(1 minute)")
        .flexible_time_window(window)
        .target(target)
        .send()
        .await
        .unwrap();
    pipes(h)
        .create_pipe()
        .name("p")
        .source(arn("sqs", "pipe-src"))
        .target(arn("sqs", "pipe-dst"))
        .role_arn(format!("arn:aws:iam::{ACCOUNT}:role/pipe"))
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;

    hook.answer(500);
    let first = h
        .sns()
        .publish()
        .topic_arn(&topic)
        .message("first")
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    // The first attempt, the immediate retry and the pre-backoff one have failed; the backoff
    // retries are to come.
    h.advance(3.0).await;
    (topic, first, custom)
}

/// What follows, the same in both runs: time moves through the rest of the retries, the
/// schedule runs, events go through the rule and the custom bus, the pipe moves a message, new
/// messages get ids from the generator. Answers what a user sees on the way.
async fn go_on(h: &Harness, topic: &str, custom: &str) -> Value {
    let mut seen = Vec::new();
    let std = format!("{}/{ACCOUNT}/std", h.url());
    for i in 0..3 {
        let sent = h
            .sqs()
            .send_message()
            .queue_url(&std)
            .message_body(format!("later{i}"))
            .send()
            .await
            .unwrap();
        seen.push(json!(sent.message_id));
    }
    let fifo = format!("{}/{ACCOUNT}/f.fifo", h.url());
    let again = h
        .sqs()
        .send_message()
        .queue_url(&fifo)
        .message_body("f1 again")
        .message_group_id("g")
        .message_deduplication_id("d1")
        .send()
        .await
        .unwrap();
    seen.push(json!([again.message_id, again.sequence_number]));
    let put = h
        .events()
        .put_events()
        .entries(
            aws_sdk_eventbridge::types::PutEventsRequestEntry::builder()
                .source("shop")
                .detail_type("order")
                .detail("{}")
                .build(),
        )
        .send()
        .await
        .unwrap();
    seen.push(json!(put.entries.unwrap()[0].event_id));
    let entry = json!({"Source": "shop", "DetailType": "order", "Detail": "{}"});
    let out = v2(
        h,
        "PutEvents",
        json!({"EventBusArn": custom, "Entries": [entry]}),
    )
    .await;
    seen.push(out["Entries"][0]["EventId"].clone());
    let src = format!("{}/{ACCOUNT}/pipe-src", h.url());
    h.sqs()
        .send_message()
        .queue_url(&src)
        .message_body("piped")
        .send()
        .await
        .unwrap();
    let published = h
        .sns()
        .publish()
        .topic_arn(topic)
        .message("second")
        .send()
        .await
        .unwrap();
    seen.push(json!(published.message_id));
    for seconds in [1.0, 10.0, 30.0, 60.0, 120.0, 300.0] {
        h.advance(seconds).await;
        seen.push(looks(h).await);
    }
    let got = h
        .sqs()
        .receive_message()
        .queue_url(&std)
        .max_number_of_messages(10)
        .message_system_attribute_names(MessageSystemAttributeName::All)
        .send()
        .await
        .unwrap();
    let got: Vec<Value> = (got.messages.unwrap_or_default().iter())
        .map(|m| {
            let attributes: std::collections::BTreeMap<String, String> = (m.attributes.iter())
                .flatten()
                .map(|(k, v)| (k.as_str().to_string(), v.clone()))
                .collect();
            json!([m.message_id, m.body, m.receipt_handle, attributes])
        })
        .collect();
    seen.push(json!(got));
    json!(seen)
}

/// Where `a` and `b` first differ (a path and both values), for a failure one can read.
fn difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => (x.iter().zip(y).enumerate())
            .find_map(|(i, (x, y))| difference(x, y, &format!("{path}[{i}]"))),
        (Value::Object(x), Value::Object(y)) if x.keys().eq(y.keys()) => (x.iter().zip(y.values()))
            .find_map(|((k, x), y)| difference(x, y, &format!("{path}.{k}"))),
        _ if a == b => None,
        _ => Some(format!("{path}: {a} != {b}")),
    }
}

/// The hook's requests, their bodies (the topic's message ids and signatures) in order.
fn bodies(hook: &Subscriber) -> Vec<String> {
    hook.take().into_iter().map(|r| r.body).collect()
}

#[tokio::test]
async fn a_world_exported_reset_and_imported_goes_on_as_if_nothing_happened() {
    let h = Harness::with(Config {
        seed: Some(42),
        ..Config::for_tests()
    })
    .await;
    let hook = Subscriber::start().await;
    let (topic, first_id, custom) = world(&h, &hook).await;
    let before = looks(&h).await;
    let file = export(&h).await;
    let _ = bodies(&hook);

    // The run without export and import.
    let reference = go_on(&h, &topic, &custom).await;
    let reference_hook = bodies(&hook);

    let r = h.control_post("reset", json!({})).await;
    assert_eq!(r.status, 200);
    assert_ne!(looks(&h).await, before, "the reset emptied the world");
    let r = import(&h, file.clone()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json(), json!({}));
    let after = looks(&h).await;
    assert_eq!(
        difference(&after, &before, ""),
        None,
        "every resource and message is back"
    );
    assert_eq!(
        export(&h).await,
        file,
        "the state written again is the same file"
    );

    let again = go_on(&h, &topic, &custom).await;
    assert_eq!(
        bodies(&hook),
        reference_hook,
        "the endpoint got the same requests"
    );
    assert_eq!(
        difference(&again, &reference, ""),
        None,
        "went on as without the import"
    );

    // The retries of the first publish went on from where they were, in their phases.
    let path = format!("deliveries?event=attempt&limit=1000&messageId={first_id}");
    let records = h.control_get(&path).await;
    let first: Vec<(String, String, u64)> = (records["records"].as_array().unwrap().iter())
        .filter(|r| r["target"] == hook.url.as_str())
        .map(|r| {
            let at = r["at"].as_str().unwrap().to_string();
            let phase = r["phase"].as_str().unwrap().to_string();
            (at, phase, r["attempt"].as_u64().unwrap())
        })
        .collect();
    let phases: Vec<&str> = first.iter().map(|(_, p, _)| p.as_str()).collect();
    assert_eq!(first.len(), 9, "{first:?}");
    assert!(
        phases.contains(&"backoff") && phases.contains(&"post-backoff"),
        "{phases:?}"
    );
}

#[tokio::test]
async fn the_same_seed_gives_the_same_ids_after_an_import_as_without() {
    let h = Harness::start().await;
    let url = queue(&h, "q").await;
    let file = export(&h).await;
    let send = || async {
        let mut ids = Vec::new();
        for _ in 0..3 {
            let out = h
                .sqs()
                .send_message()
                .queue_url(&url)
                .message_body("x")
                .send()
                .await;
            ids.push(out.unwrap().message_id.unwrap());
        }
        ids
    };
    let first = send().await;
    let r = import(&h, file).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(send().await, first);
}

#[tokio::test]
async fn a_manual_clock_moves_to_the_time_of_the_file_even_back() {
    let h = Harness::start().await;
    let file = export(&h).await;
    let then = h.control_get("clock").await["now"].clone();
    h.advance(3600.0).await;
    assert_ne!(h.control_get("clock").await["now"], then);
    let r = import(&h, file).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(h.control_get("clock").await["now"], then);
}

#[tokio::test]
async fn a_long_poll_looks_again_when_the_state_is_replaced() {
    let h = Harness::start().await;
    let url = queue(&h, "q").await;
    h.sqs()
        .send_message()
        .queue_url(&url)
        .message_body("waiting")
        .send()
        .await
        .unwrap();
    let with_message = export(&h).await;
    h.sqs().purge_queue().queue_url(&url).send().await.unwrap();
    let sqs = h.sqs();
    let poll = sqs
        .receive_message()
        .queue_url(&url)
        .wait_time_seconds(20)
        .send();
    let (got, r) = crate::harness::no_hang("the long poll", async {
        tokio::join!(poll, async {
            tokio::task::yield_now().await;
            import(&h, with_message.clone()).await
        })
    })
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let messages = got.unwrap().messages.unwrap_or_default();
    assert_eq!(
        messages.len(),
        1,
        "the long poll found the message of the new state"
    );
    assert_eq!(messages[0].body.as_deref(), Some("waiting"));
}

#[tokio::test]
async fn bad_files_are_refused_and_the_running_state_stays() {
    let h = Harness::start().await;
    queue(&h, "kept").await;
    let good = export(&h).await;
    let mut other_version: Value = serde_json::from_str(&good).unwrap();
    other_version["version"] = json!(2);
    let mut wrong_format: Value = serde_json::from_str(&good).unwrap();
    wrong_format["format"] = json!("localstack");
    let mut bad_field: Value = serde_json::from_str(&good).unwrap();
    bad_field["state"]["engine"]["now"] = json!("yesterday");
    let cases = [
        ("not json".to_string(), "not a JSON document"),
        (good[..good.len() - 40].to_string(), "ends early"),
        (
            wrong_format.to_string(),
            "not a switchyard state: \"format\" is \"localstack\"",
        ),
        (other_version.to_string(), "version 2 is not supported"),
        ("[]".to_string(), "not a switchyard state"),
        (
            bad_field.to_string(),
            "the value at state.engine.now is invalid",
        ),
    ];
    for (file, cause) in cases {
        let r = import(&h, file).await;
        assert_eq!(r.status, 400, "{}", r.body);
        let body = r.json();
        assert_eq!(body["error"], "InvalidState", "{body}");
        let message = body["message"].as_str().unwrap();
        assert!(message.contains(cause), "{message} should name {cause}");
        let queues = h
            .sqs()
            .list_queues()
            .send()
            .await
            .unwrap()
            .queue_urls
            .unwrap();
        assert_eq!(queues.len(), 1, "the running state is untouched");
    }
    assert_eq!(export(&h).await, good);
}

#[tokio::test]
async fn an_emulator_starts_from_a_state_file() {
    let h = Harness::start().await;
    let url = queue(&h, "from-file").await;
    h.sqs()
        .send_message()
        .queue_url(&url)
        .message_body("kept")
        .send()
        .await
        .unwrap();
    let dir = std::env::temp_dir().join(format!("switchyard-snapshot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("world.json");
    std::fs::write(&path, h.emulator.state_snapshot()).unwrap();
    let started = Harness::with(Config {
        state_file: Some(path.clone()),
        ..Config::for_tests()
    })
    .await;
    let url = format!("{}/{ACCOUNT}/from-file", started.url());
    let got = started
        .sqs()
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    assert_eq!(got.messages.unwrap()[0].body.as_deref(), Some("kept"));

    std::fs::write(
        &path,
        "{\"format\":\"switchyard-state\",\"version\":7,\"state\":{}}",
    )
    .unwrap();
    let err = match switchyard::Emulator::start(Config {
        state_file: Some(path.clone()),
        ..Config::for_tests()
    })
    .await
    {
        Ok(_) => panic!("a bad state file should stop the start"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("version 7 is not supported"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A state file over the bound is refused from its declared length, before its body is read:
/// `413 InvalidState`, and the running state stays.
#[tokio::test]
async fn a_state_file_over_the_bound_is_refused_before_it_is_read() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let h = Harness::start().await;
    let url = queue(&h, "stays").await;
    let mut stream = tokio::net::TcpStream::connect(h.emulator.addr())
        .await
        .unwrap();
    let head = format!(
        "POST /_switchyard/state HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{{",
        600u64 << 20
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("\"error\":\"InvalidState\""), "{answer}");
    assert!(answer.contains("512 MiB"), "{answer}");
    let listed = h.sqs().list_queues().send().await.unwrap();
    assert_eq!(listed.queue_urls(), [url]);
}
