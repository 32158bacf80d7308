//! Tests of pipes over the state: states on the clock, batching, filters, failures left on the
//! queue, partial batch failures and templates. The wire is tested through the SDKs in
//! tests/api/pipes.rs.
//! Tests only.

use super::store::PipeState;
use crate::dispatch::Dispatch;
use crate::services::sqs::consume;
use crate::services::{Context, ServiceId};
use crate::state::State;
use serde_json::{Value, json};

const ACCOUNT: &str = "000000000000";

fn cx() -> Context {
    Context::for_tests()
}

fn arn(name: &str) -> String {
    format!("arn:aws:sqs:us-east-1:{ACCOUNT}:{name}")
}

fn queue(e: &mut State, name: &str, attributes: Value) -> String {
    let input = json!({"QueueName": name, "Attributes": attributes});
    let out = e.call(&cx(), ServiceId::Sqs, "CreateQueue", input).unwrap();
    out["QueueUrl"].as_str().unwrap().to_string()
}

/// Sends a message, then fires what is due now, as the server does at its next request.
fn send(e: &mut State, url: &str, body: &str) {
    let input = json!({"QueueUrl": url, "MessageBody": body});
    e.call(&cx(), ServiceId::Sqs, "SendMessage", input).unwrap();
    advance(e, 0);
}

fn pipes(e: &mut State, op: &str, input: Value) -> Result<Value, crate::error::AwsError> {
    let out = super::call(e, &cx(), op, input);
    e.settle();
    out
}

fn create(e: &mut State, name: &str, extra: Value) -> Value {
    let mut input = json!({
        "Name": name,
        "Source": arn("src"),
        "Target": arn("dst"),
        "RoleArn": format!("arn:aws:iam::{ACCOUNT}:role/pipe"),
    });
    for (k, v) in extra.as_object().unwrap() {
        input[k] = v.clone();
    }
    pipes(e, "CreatePipe", input).unwrap()
}

fn state(e: &mut State, name: &str) -> (String, Option<String>) {
    let out = pipes(e, "DescribePipe", json!({"Name": name})).unwrap();
    let reason = out["StateReason"].as_str().map(str::to_string);
    (out["CurrentState"].as_str().unwrap().to_string(), reason)
}

/// Advances the clock by `ms`, firing what is due.
fn advance(e: &mut State, ms: i64) {
    let to = e.now() + ms;
    e.run_until(to);
}

/// Every message of queue `name` now, received and deleted: their bodies.
fn drain(e: &mut State, name: &str) -> Vec<String> {
    let taken = consume::take_batch(e, &arn(name), 1000).unwrap();
    taken
        .into_iter()
        .map(|(held, _)| {
            consume::delete(e, &arn(name), &held);
            held.message.body.into()
        })
        .collect()
}

/// (visible, in flight) messages of queue `name`.
fn counts(e: &State, name: &str) -> (usize, usize) {
    let (visible, in_flight, _) = e.sqs.by_arn(&arn(name)).unwrap().counts(e.now());
    (visible, in_flight)
}

fn started(extra: Value, queue_attributes: Value) -> (State, String) {
    let mut e = State::for_tests(1_700_000_000_000);
    let url = queue(&mut e, "src", queue_attributes);
    queue(&mut e, "dst", json!({}));
    create(&mut e, "p", extra);
    advance(&mut e, 1_000);
    assert_eq!(state(&mut e, "p").0, "RUNNING");
    (e, url)
}

#[test]
fn a_pipe_settles_on_the_clock_and_stops_and_starts() {
    let mut e = State::for_tests(1_700_000_000_000);
    queue(&mut e, "src", json!({}));
    queue(&mut e, "dst", json!({}));
    let out = create(&mut e, "p", json!({}));
    assert_eq!(out["CurrentState"], "CREATING");
    assert_eq!(out["DesiredState"], "RUNNING");
    advance(&mut e, 999);
    assert_eq!(state(&mut e, "p").0, "CREATING");
    advance(&mut e, 1);
    assert_eq!(state(&mut e, "p").0, "RUNNING");
    let out = pipes(&mut e, "StopPipe", json!({"Name": "p"})).unwrap();
    assert_eq!(
        (out["CurrentState"].as_str(), out["DesiredState"].as_str()),
        (Some("STOPPING"), Some("STOPPED"))
    );
    let busy = pipes(&mut e, "StartPipe", json!({"Name": "p"})).unwrap_err();
    assert_eq!(busy.code, "ConflictException");
    advance(&mut e, 1_000);
    assert_eq!(state(&mut e, "p").0, "STOPPED");
    let again = pipes(&mut e, "StopPipe", json!({"Name": "p"})).unwrap_err();
    assert_eq!((again.code, again.status), ("ConflictException", 409));
    pipes(&mut e, "StartPipe", json!({"Name": "p"})).unwrap();
    assert_eq!(state(&mut e, "p").0, "STARTING");
    advance(&mut e, 1_000);
    assert_eq!(state(&mut e, "p").0, "RUNNING");
    pipes(&mut e, "DeletePipe", json!({"Name": "p"})).unwrap();
    assert_eq!(state(&mut e, "p").0, "DELETING");
    advance(&mut e, 1_000);
    let gone = pipes(&mut e, "DescribePipe", json!({"Name": "p"})).unwrap_err();
    assert_eq!((gone.code, gone.status), ("NotFoundException", 404));
}

#[test]
fn a_missing_source_or_target_fails_the_create_with_a_reason() {
    let mut e = State::for_tests(0);
    queue(&mut e, "src", json!({}));
    create(&mut e, "p", json!({}));
    advance(&mut e, 1_000);
    let (s, reason) = state(&mut e, "p");
    assert_eq!(s, "CREATE_FAILED");
    assert!(reason.unwrap().contains(&format!("Target {}", arn("dst"))));
    let refused = pipes(&mut e, "StartPipe", json!({"Name": "p"})).unwrap_err();
    assert_eq!(refused.code, "ConflictException");
    // Fixing the target and updating the pipe brings it up.
    queue(&mut e, "dst", json!({}));
    let role = format!("arn:aws:iam::{ACCOUNT}:role/pipe");
    let out = pipes(&mut e, "UpdatePipe", json!({"Name": "p", "RoleArn": role})).unwrap();
    assert_eq!(out["CurrentState"], "UPDATING");
    advance(&mut e, 1_000);
    assert_eq!(state(&mut e, "p").0, "RUNNING");
}

#[test]
fn messages_move_in_batches_when_full_or_when_the_window_closes() {
    let params = json!({"SourceParameters": {"SqsQueueParameters": {
        "BatchSize": 3, "MaximumBatchingWindowInSeconds": 20}}});
    let (mut e, url) = started(params, json!({}));
    send(&mut e, &url, "a");
    send(&mut e, &url, "b");
    advance(&mut e, 19_000);
    assert!(drain(&mut e, "dst").is_empty(), "the window is still open");
    assert_eq!(counts(&e, "src"), (2, 0));
    advance(&mut e, 1_000);
    let bodies: Vec<Value> = drain(&mut e, "dst")
        .iter()
        .map(|b| serde_json::from_str(b).unwrap())
        .collect();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["body"], "a");
    assert_eq!(bodies[0]["eventSource"], "aws:sqs");
    assert_eq!(bodies[0]["eventSourceARN"], arn("src").as_str());
    assert_eq!(bodies[0]["attributes"]["ApproximateReceiveCount"], "1");
    assert_eq!(counts(&e, "src"), (0, 0), "delivered messages are deleted");
    // A full batch goes at once.
    for body in ["c", "d", "e"] {
        send(&mut e, &url, body);
    }
    assert_eq!(drain(&mut e, "dst").len(), 3);
    assert_eq!(counts(&e, "src"), (0, 0));
}

#[test]
fn filtered_out_messages_are_deleted_undelivered() {
    let params = json!({"SourceParameters": {"FilterCriteria": {"Filters": [
        {"Pattern": "{\"body\": {\"kind\": [\"order\"]}}"}]}}});
    let (mut e, url) = started(params, json!({}));
    send(&mut e, &url, r#"{"kind": "order", "id": 1}"#);
    send(&mut e, &url, r#"{"kind": "noise"}"#);
    send(&mut e, &url, "not json");
    let bodies = drain(&mut e, "dst");
    assert_eq!(bodies.len(), 1);
    let record: Value = serde_json::from_str(&bodies[0]).unwrap();
    assert_eq!(record["body"], r#"{"kind": "order", "id": 1}"#);
    assert_eq!(counts(&e, "src"), (0, 0));
}

#[test]
fn a_failing_target_leaves_messages_until_redrive_dead_letters_them() {
    let mut e = State::for_tests(0);
    queue(&mut e, "dlq", json!({}));
    let redrive = json!({"deadLetterTargetArn": arn("dlq"), "maxReceiveCount": 2}).to_string();
    let url = queue(
        &mut e,
        "src",
        json!({"VisibilityTimeout": "30", "RedrivePolicy": redrive}),
    );
    // The target is an SNS topic that does not exist: every delivery fails.
    let topic = format!("arn:aws:sns:us-east-1:{ACCOUNT}:t");
    e.call(&cx(), ServiceId::Sns, "CreateTopic", json!({"Name": "t"}))
        .unwrap();
    create(&mut e, "p", json!({"Target": topic}));
    advance(&mut e, 1_000);
    assert_eq!(state(&mut e, "p").0, "RUNNING");
    e.call(
        &cx(),
        ServiceId::Sns,
        "DeleteTopic",
        json!({"TopicArn": topic}),
    )
    .unwrap();
    send(&mut e, &url, "m");
    assert_eq!(counts(&e, "src"), (0, 1), "received, hidden, not deleted");
    advance(&mut e, 29_000);
    assert_eq!(counts(&e, "src"), (0, 1));
    advance(&mut e, 1_000);
    assert_eq!(counts(&e, "src"), (0, 1), "received a second time");
    advance(&mut e, 30_000);
    assert_eq!(
        counts(&e, "src"),
        (0, 0),
        "the third receive dead-letters it"
    );
    let dead = drain(&mut e, "dlq");
    assert_eq!(dead, vec!["m".to_string()]);
    let failures = e
        .engine
        .log
        .iter()
        .filter(|r| r.source.ends_with(":pipe/p") && r.outcome == Some("permanent"))
        .count();
    assert_eq!(failures, 2);
}

#[test]
fn input_templates_and_fifo_ids_shape_what_the_target_gets() {
    let mut e = State::for_tests(0);
    let url = queue(&mut e, "src", json!({}));
    queue(
        &mut e,
        "dst.fifo",
        json!({"FifoQueue": "true", "ContentBasedDeduplication": "true"}),
    );
    create(
        &mut e,
        "p",
        json!({"Target": arn("dst.fifo"), "TargetParameters": {
            "InputTemplate": "{\"id\": <$.body.id>, \"who\": \"<$.body.name> via <aws.pipes.pipe-name>\"}",
            "SqsQueueParameters": {"MessageGroupId": "$.body.group"}}}),
    );
    advance(&mut e, 1_000);
    send(&mut e, &url, r#"{"id": 7, "name": "ann", "group": "g1"}"#);
    let taken = consume::take_batch(&mut e, &arn("dst.fifo"), 10).unwrap();
    assert_eq!(taken.len(), 1);
    let m = &taken[0].0.message;
    assert_eq!(m.body, r#"{"id":7,"who":"ann via p"}"#);
    assert_eq!(m.group_id(), Some("g1"));
}

#[test]
fn a_lambda_target_in_the_outbox_gets_the_batch_as_one_array() {
    let lambda = format!("arn:aws:lambda:us-east-1:{ACCOUNT}:function:f");
    let params = json!({"Target": lambda,
        "SourceParameters": {"SqsQueueParameters": {"BatchSize": 2, "MaximumBatchingWindowInSeconds": 5}}});
    let (mut e, url) = started(params, json!({}));
    send(&mut e, &url, "x");
    send(&mut e, &url, "y");
    advance(&mut e, 5_000);
    let out: Vec<_> = e
        .engine
        .outbox
        .iter()
        .filter(|m| m.target == lambda)
        .collect();
    assert_eq!(out.len(), 1);
    let batch: Value = serde_json::from_str(&out[0].body).unwrap();
    assert_eq!(batch.as_array().unwrap().len(), 2);
    assert_eq!(batch[1]["body"], "y");
    assert_eq!(counts(&e, "src"), (0, 0));
}

#[test]
fn partial_batch_failures_leave_only_the_named_messages() {
    use super::store::Batch;
    let mut e = State::for_tests(0);
    let url = queue(&mut e, "src", json!({}));
    for body in ["a", "b", "c"] {
        send(&mut e, &url, body);
    }
    let taken = consume::take_batch(&mut e, &arn("src"), 10).unwrap();
    let second = taken[1].0.message.id.clone();
    let mut b = Batch {
        token: 1,
        messages: taken.into_iter().map(|(h, _)| h).collect(),
        pending: 1,
        failed: Default::default(),
        all_failed: false,
        items: Vec::new(),
    };
    let answer = json!({"batchItemFailures": [{"itemIdentifier": second}]}).to_string();
    super::run::partial_failures(&mut b, Some(&answer));
    assert_eq!(b.failed.iter().copied().collect::<Vec<_>>(), vec![1]);
    assert!(!b.all_failed);
    let unknown = json!({"batchItemFailures": [{"itemIdentifier": "nope"}]}).to_string();
    super::run::partial_failures(&mut b, Some(&unknown));
    assert!(b.all_failed, "an unknown identifier fails the batch");
}

#[test]
fn bad_input_names_the_member() {
    let mut e = State::for_tests(0);
    let role = format!("arn:aws:iam::{ACCOUNT}:role/pipe");
    let base = json!({"Name": "p", "Source": arn("src"), "Target": arn("dst"), "RoleArn": role});
    let cases = [
        (json!({"Name": "bad name"}), "'name'"),
        (json!({"Source": "nope"}), "'source'"),
        (json!({"RoleArn": "arn:aws:iam::1:user/x"}), "'roleArn'"),
        (
            json!({"SourceParameters": {"SqsQueueParameters": {"BatchSize": 0}}}),
            "'sourceParameters.sqsQueueParameters.batchSize'",
        ),
        (
            json!({"SourceParameters": {"SqsQueueParameters": {"MaximumBatchingWindowInSeconds": 301}}}),
            "'sourceParameters.sqsQueueParameters.maximumBatchingWindowInSeconds'",
        ),
        (
            json!({"SourceParameters": {"FilterCriteria": {"Filters": [{"Pattern": "{"}]}}}),
            "'sourceParameters.filterCriteria.filters.1.pattern'",
        ),
        (json!({"DesiredState": "PAUSED"}), "'desiredState'"),
    ];
    for (change, member) in cases {
        let mut input = base.clone();
        for (k, v) in change.as_object().unwrap() {
            input[k] = v.clone();
        }
        let err = pipes(&mut e, "CreatePipe", input).unwrap_err();
        assert_eq!(err.code, "ValidationException", "{change}");
        assert!(err.message.contains(member), "{change}: {}", err.message);
    }
    pipes(&mut e, "CreatePipe", base.clone()).unwrap();
    let dup = pipes(&mut e, "CreatePipe", base).unwrap_err();
    assert_eq!((dup.code, dup.status), ("ConflictException", 409));
}

#[test]
fn list_pipes_filters_and_pages() {
    let mut e = State::for_tests(0);
    queue(&mut e, "src", json!({}));
    queue(&mut e, "dst", json!({}));
    for name in ["a1", "a2", "b1"] {
        create(&mut e, name, json!({}));
    }
    advance(&mut e, 1_000);
    pipes(&mut e, "StopPipe", json!({"Name": "a2"})).unwrap();
    let names = |out: &Value| -> Vec<String> {
        out["Pipes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["Name"].as_str().unwrap().to_string())
            .collect()
    };
    let out = pipes(&mut e, "ListPipes", json!({"NamePrefix": "a"})).unwrap();
    assert_eq!(names(&out), ["a1", "a2"]);
    let out = pipes(&mut e, "ListPipes", json!({"CurrentState": "STOPPING"})).unwrap();
    assert_eq!(names(&out), ["a2"]);
    let out = pipes(&mut e, "ListPipes", json!({"DesiredState": "RUNNING"})).unwrap();
    assert_eq!(names(&out), ["a1", "b1"]);
    let out = pipes(&mut e, "ListPipes", json!({"Limit": 2})).unwrap();
    assert_eq!(names(&out), ["a1", "a2"]);
    let token = out["NextToken"].clone();
    let out = pipes(&mut e, "ListPipes", json!({"Limit": 2, "NextToken": token})).unwrap();
    assert_eq!(names(&out), ["b1"]);
    assert!(out.get("NextToken").is_none());
    let out = pipes(&mut e, "ListPipes", json!({"TargetPrefix": "arn:aws:sns"})).unwrap();
    assert!(names(&out).is_empty());
    assert_eq!(
        PipeState::Stopping.name(),
        "STOPPING",
        "the state names are AWS's"
    );
}
