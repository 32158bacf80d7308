//! Snapshots over the state: a world written and read back writes the same file and goes on
//! exactly as the original does; bad files are refused with their cause. The control API and
//! the CLI are tested through real clients in tests/api/snapshot.rs and tests/cli.rs.
//! Tests only.

use super::*;
use crate::dispatch::Dispatch;
use crate::services::{Context, ServiceId};
use serde_json::{Value, json};

const ACCOUNT: &str = "000000000000";

fn cx() -> Context {
    Context::for_tests()
}

fn call(e: &mut State, service: ServiceId, op: &str, input: Value) -> Value {
    e.call(&cx(), service, op, input)
        .unwrap_or_else(|err| panic!("{op}: {err:?}"))
}

fn read(bytes: &[u8]) -> Result<State, SnapshotError> {
    crate::dispatch::read_snapshot(bytes, HashMap::new(), false)
}

/// A world with queues (standard and FIFO, messages visible, in flight and delayed, a
/// deduplication id), a topic with a filtered queue subscription and an HTTP one retrying, a
/// rule routing to a queue, a custom bus and a fault.
fn world() -> State {
    let mut e = State::for_tests(1_800_000_000_000);
    let q = |e: &mut State, name: &str, attrs: Value| {
        let out = call(
            e,
            ServiceId::Sqs,
            "CreateQueue",
            json!({"QueueName": name, "Attributes": attrs}),
        );
        out["QueueUrl"].as_str().unwrap().to_string()
    };
    let std = q(&mut e, "std", json!({}));
    let fifo = q(&mut e, "f.fifo", json!({"FifoQueue": "true"}));
    let routed = q(&mut e, "routed", json!({}));
    for i in 0..5 {
        let input =
            json!({"QueueUrl": std, "MessageBody": format!("m{i}"), "DelaySeconds": i * 10});
        call(&mut e, ServiceId::Sqs, "SendMessage", input);
    }
    call(
        &mut e,
        ServiceId::Sqs,
        "ReceiveMessage",
        json!({"QueueUrl": std, "VisibilityTimeout": 60}),
    );
    let input = json!({"QueueUrl": fifo, "MessageBody": "f", "MessageGroupId": "g", "MessageDeduplicationId": "d1"});
    call(&mut e, ServiceId::Sqs, "SendMessage", input);
    let topic = call(&mut e, ServiceId::Sns, "CreateTopic", json!({"Name": "t"}))["TopicArn"]
        .as_str()
        .unwrap()
        .to_string();
    let input = json!({"TopicArn": topic, "Protocol": "sqs", "Endpoint": format!("arn:aws:sqs:us-east-1:{ACCOUNT}:routed"),
        "Attributes": {"FilterPolicy": "{\"kind\":[\"a\"]}", "FilterPolicyScope": "MessageBody"}});
    call(&mut e, ServiceId::Sns, "Subscribe", input);
    let input = json!({"TopicArn": topic, "Protocol": "email", "Endpoint": "a@example.com"});
    call(&mut e, ServiceId::Sns, "Subscribe", input);
    let input = json!({"Name": "r", "EventPattern": "{\"source\":[\"shop\"]}"});
    call(&mut e, ServiceId::Events, "PutRule", input);
    let input = json!({"Rule": "r", "Targets": [{"Id": "1", "Arn": format!("arn:aws:sqs:us-east-1:{ACCOUNT}:routed")}]});
    call(&mut e, ServiceId::Events, "PutTargets", input);
    let _ = routed;
    e.engine.faults.add(crate::engine::faults::Fault {
        id: "f1".into(),
        target: "a@example.com".into(),
        status: 500,
        error_code: None,
        count: Some(2),
    });
    call(
        &mut e,
        ServiceId::Sns,
        "Publish",
        json!({"TopicArn": topic, "Message": "{\"kind\":\"a\"}"}),
    );
    let to = e.now() + 5_000;
    e.run_until(to);
    e
}

/// What the world does next: messages sent and received (ids from the generator), events put,
/// publishes fanned out, retries fired; then the whole state, written.
fn go_on(e: &mut State) -> (Vec<Value>, Vec<u8>) {
    let mut answers = Vec::new();
    let url = format!("http://localhost/{ACCOUNT}/std");
    for i in 0..3 {
        let input = json!({"QueueUrl": url, "MessageBody": format!("later{i}")});
        answers.push(call(e, ServiceId::Sqs, "SendMessage", input));
    }
    let input = json!({"Entries": [{"Source": "shop", "DetailType": "d", "Detail": "{}"}]});
    answers.push(call(e, ServiceId::Events, "PutEvents", input));
    let topic = format!("arn:aws:sns:us-east-1:{ACCOUNT}:t");
    answers.push(call(
        e,
        ServiceId::Sns,
        "Publish",
        json!({"TopicArn": topic, "Message": "{\"kind\":\"a\"}"}),
    ));
    let to = e.now() + 3_600_000;
    e.run_until(to);
    let input = json!({"QueueUrl": url, "MaxNumberOfMessages": 10, "AttributeNames": ["All"]});
    answers.push(call(e, ServiceId::Sqs, "ReceiveMessage", input));
    let routed = format!("http://localhost/{ACCOUNT}/routed");
    let input = json!({"QueueUrl": routed, "MaxNumberOfMessages": 10});
    answers.push(call(e, ServiceId::Sqs, "ReceiveMessage", input));
    (answers, e.snapshot())
}

#[test]
fn a_state_read_back_writes_the_same_file() {
    let e = world();
    let bytes = e.snapshot();
    let back = read(&bytes).unwrap();
    assert_eq!(
        String::from_utf8(back.snapshot()).unwrap(),
        String::from_utf8(bytes).unwrap()
    );
}

#[test]
fn a_state_read_back_goes_on_exactly_as_the_original() {
    let mut original = world();
    let mut back = read(&original.snapshot()).unwrap();
    let (a, file_a) = go_on(&mut original);
    let (b, file_b) = go_on(&mut back);
    assert_eq!(a, b);
    assert!(file_a == file_b, "the states differ after going on");
    assert!(!original.engine.outbox.is_empty());
}

#[test]
fn the_file_says_what_it_is() {
    let e = world();
    let file: Value = serde_json::from_slice(&e.snapshot()).unwrap();
    assert_eq!(file["format"], "switchyard-state");
    assert_eq!(file["version"], 1);
    assert_eq!(
        file["savedAt"],
        crate::engine::time::format_rfc3339(e.now())
    );
    assert!(file["state"]["sqs"].is_object());
}

#[test]
fn bad_files_are_refused_with_their_cause() {
    let good = world().snapshot();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"hello".to_vec(), "not a JSON document"),
        (good[..good.len() / 2].to_vec(), "ends early"),
        (b"[1, 2]".to_vec(), "not a switchyard state"),
        (
            br#"{"format":"other","version":1,"state":{}}"#.to_vec(),
            "\"format\" is \"other\"",
        ),
        (br#"{"version":1,"state":{}}"#.to_vec(), "no \"format\""),
        (
            br#"{"format":"switchyard-state","version":2,"state":{}}"#.to_vec(),
            "version 2 is not supported",
        ),
        (
            br#"{"format":"switchyard-state","version":1}"#.to_vec(),
            "no \"state\"",
        ),
    ];
    for (bytes, want) in cases {
        let err = read(&bytes).err().expect("refused").to_string();
        assert!(err.contains(want), "{err} should say {want}");
    }
}

#[test]
fn an_invalid_value_is_named_by_its_path() {
    let mut file: Value = serde_json::from_slice(&world().snapshot()).unwrap();
    file["state"]["engine"]["now"] = json!("soon");
    let err = read(file.to_string().as_bytes()).err().unwrap();
    let SnapshotError::Invalid { path, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(path, "state.engine.now", "{err}");
    file["state"]["engine"]["now"] = json!(i64::MAX);
    let err = read(file.to_string().as_bytes()).err().unwrap().to_string();
    assert!(err.contains("state.engine.now is invalid"), "{err}");
    let mut file: Value = serde_json::from_slice(&world().snapshot()).unwrap();
    let rule = file["state"]["events"]["rules"]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .next()
        .unwrap();
    rule["event_pattern"] = json!("{\"source\": 5}");
    let err = read(file.to_string().as_bytes()).err().unwrap().to_string();
    assert!(err.contains("invalid event pattern"), "{err}");
    assert!(err.contains("state.events.rules.arn:aws:events"), "{err}");
}

#[test]
fn message_places_out_of_order_or_too_far_apart_are_refused_not_allocated() {
    let mut file: Value = serde_json::from_slice(&world().snapshot()).unwrap();
    let messages = std_messages(&mut file);
    assert!(messages.len() >= 2, "{messages:?}");
    messages[1][0] = json!(u64::MAX - 1);
    let err = read(file.to_string().as_bytes()).err().unwrap().to_string();
    assert!(err.contains("span more than"), "{err}");
    messages_swapped(&mut file);
}

/// The messages of queue `std` in a snapshot file.
fn std_messages(file: &mut Value) -> &mut Vec<Value> {
    let queues = file["state"]["sqs"]["queues"].as_array_mut().unwrap();
    let std = queues.iter_mut().find(|q| q[0]["name"] == "std").unwrap();
    std[1]["messages"].as_array_mut().unwrap()
}

/// Two messages of a queue in the wrong order are refused too.
fn messages_swapped(file: &mut Value) {
    let messages = std_messages(file);
    messages[1][0] = json!(0);
    let err = read(file.to_string().as_bytes()).err().unwrap().to_string();
    assert!(err.contains("is not after the one before"), "{err}");
}
