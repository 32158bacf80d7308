//! Init resource files (`Config::init_resources`, docs/localstack.md): what the file creates is
//! there when `Emulator::start` returns and works as if the APIs had made it: SNS fans out to its
//! queue, the rule's target gets the event, the custom bus's subscriber and the event stream
//! deliver. A failing entry fails the start with an `InitError` that names it.

use crate::custom_bus::{drain, put, v2};
use crate::harness::Harness;
use serde_json::{Value, json};
use std::path::PathBuf;
use switchyard::runtime::init_status::{ScriptState, Stage};
use switchyard::server::init::InitError;
use switchyard::{Config, Emulator};

/// `text` written to a file of this name in a directory of its own, removed when dropped (the
/// emulator reads the file when it starts).
struct File {
    path: PathBuf,
}

impl File {
    fn new(name: &str, text: &str) -> File {
        let dir =
            std::env::temp_dir().join(format!("switchyard-init-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        File { path }
    }
}

impl Drop for File {
    fn drop(&mut self) {
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn queue_url(h: &Harness, name: &str) -> String {
    format!("{}/000000000000/{name}", h.url())
}

const RESOURCES: &str = r#"
resources:
  - queue: {QueueName: fanout}
  - queue: {QueueName: matched}
  - queue: {QueueName: custom}
  - queue: {QueueName: stream-in}
  - queue: {QueueName: stream-out}
  - topic: {Name: orders}
  - subscription:
      TopicArn: arn:aws:sns:us-east-1:000000000000:orders
      Protocol: sqs
      Endpoint: arn:aws:sqs:us-east-1:000000000000:fanout
      Attributes: {RawMessageDelivery: true}
  - bus: {Name: shop}
  - rule:
      Name: big
      EventBusName: shop
      EventPattern: {source: [shop], detail: {total: [{numeric: [">=", 100]}]}}
  - targets:
      Rule: big
      EventBusName: shop
      Targets: [{Id: q, Arn: "arn:aws:sqs:us-east-1:000000000000:matched"}]
  - custom-bus:
      Name: payments
      Tags: [{Key: "switchyard:id", Value: payments1}]
  - subscriber:
      Name: audit
      EventBusArn: arn:aws:events:us-east-1:000000000000:event-busv2/payments/payments1
      InvokeConfiguration: {TargetArn: "arn:aws:sqs:us-east-1:000000000000:custom", RoleArn: "arn:aws:iam::000000000000:role/r"}
  - stream:
      Name: pipe
      Source: arn:aws:sqs:us-east-1:000000000000:stream-in
      Target: {TargetArn: "arn:aws:sqs:us-east-1:000000000000:stream-out", RoleArn: "arn:aws:iam::000000000000:role/r"}
  - call:
      service: sqs
      operation: TagQueue
      input: {QueueUrl: "http://localhost:4566/000000000000/fanout", Tags: {team: payments}}
"#;

#[tokio::test]
async fn an_init_file_wires_topics_rules_custom_buses_and_streams_to_queues() {
    let file = File::new("wired.yaml", RESOURCES);
    let h = Harness::with(Config {
        init_resources: Some(file.path.clone()),
        ..Config::for_tests()
    })
    .await;
    let progress = h.emulator.app().init.read();
    assert!(progress.is_completed(Stage::Ready));
    let scripts: Vec<_> = progress
        .scripts_of(Stage::Ready)
        .map(|s| (s.name.as_str(), s.state))
        .collect();
    assert_eq!(scripts, [("wired.yaml", ScriptState::Successful)]);

    // SNS: the raw subscription the file made.
    h.sns()
        .publish()
        .topic_arn("arn:aws:sns:us-east-1:000000000000:orders")
        .message("hello")
        .send()
        .await
        .unwrap();
    let fanned = drain(&h, &queue_url(&h, "fanout")).await;
    assert_eq!(fanned.len(), 1);
    assert_eq!(fanned[0].body(), Some("hello"));

    // EventBridge: the rule on the custom bus `shop` and its target.
    let entry = aws_sdk_eventbridge::types::PutEventsRequestEntry::builder()
        .event_bus_name("shop")
        .source("shop")
        .detail_type("OrderPlaced")
        .detail(r#"{"total": 250}"#)
        .build();
    h.events().put_events().entries(entry).send().await.unwrap();
    let matched = drain(&h, &queue_url(&h, "matched")).await;
    assert_eq!(matched.len(), 1);
    let event: Value = serde_json::from_str(matched[0].body().unwrap()).unwrap();
    assert_eq!(event["detail"], json!({"total": 250}));

    // The custom bus, its ARN pinned by the tag, and its subscriber.
    let bus = "arn:aws:events:us-east-1:000000000000:event-busv2/payments/payments1";
    let details = v2(&h, "GetEventBus", json!({"EventBusArn": bus})).await;
    assert_eq!(details["Name"], "payments");
    put(
        &h,
        bus,
        json!([{"Source": "pay", "DetailType": "Paid", "Detail": "{}"}]),
    )
    .await;
    assert_eq!(drain(&h, &queue_url(&h, "custom")).await.len(), 1);

    // The event stream: it runs from the next step of virtual time.
    h.sqs()
        .send_message()
        .queue_url(queue_url(&h, "stream-in"))
        .message_body("through")
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    let piped = drain(&h, &queue_url(&h, "stream-out")).await;
    assert_eq!(piped.len(), 1, "{piped:?}");

    // The `call` entry: any operation.
    let tags = h
        .sqs()
        .list_queue_tags()
        .queue_url(queue_url(&h, "fanout"))
        .send()
        .await
        .unwrap();
    assert_eq!(tags.tags().unwrap()["team"], "payments");
}

#[tokio::test]
async fn entries_go_to_the_files_region_and_account_unless_they_name_their_own() {
    let text = r#"{"region": "eu-west-1", "account": "111122223333", "resources": [
        {"queue": {"QueueName": "here"}},
        {"queue": {"QueueName": "there"}, "region": "ap-south-1", "account": "444455556666"}]}"#;
    let file = File::new("places.json", text);
    let h = Harness::with(Config {
        init_resources: Some(file.path.clone()),
        ..Config::for_tests()
    })
    .await;
    let names = |out: aws_sdk_sqs::operation::list_queues::ListQueuesOutput| {
        let urls = out.queue_urls.unwrap_or_default();
        urls.iter()
            .map(|u| u.rsplit('/').next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let eu = h.sqs_as("111122223333", "eu-west-1");
    assert_eq!(names(eu.list_queues().send().await.unwrap()), ["here"]);
    let ap = h.sqs_as("444455556666", "ap-south-1");
    assert_eq!(names(ap.list_queues().send().await.unwrap()), ["there"]);
    assert!(names(h.sqs().list_queues().send().await.unwrap()).is_empty());
}

#[tokio::test]
async fn a_failing_entry_fails_the_start_with_an_init_error_naming_it() {
    let file = File::new(
        "failing.json",
        r#"{"resources": [{"topic": {"Name": "ok"}}, {"topic": {"Name": "not ok"}}]}"#,
    );
    let err = match Emulator::start(Config {
        init_resources: Some(file.path.clone()),
        ..Config::for_tests()
    })
    .await
    {
        Ok(_) => panic!("the start should fail"),
        Err(err) => err,
    };
    assert!(
        err.get_ref().is_some_and(|e| e.is::<InitError>()),
        "{err:?}"
    );
    let expected = format!(
        "init file {}: entry 2 (topic \"not ok\"): InvalidParameterException: ",
        file.path.display()
    );
    assert!(err.to_string().starts_with(&expected), "{err}");
}
