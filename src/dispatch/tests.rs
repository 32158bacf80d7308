//! The queue of operations targets start (Scheduler's universal targets): run after the settle
//! that started them, never inside it.

use super::Dispatch;
use crate::engine::delivery::{Delivery, NoRetries, Publisher, Target};
use crate::services::{Context, ServiceId};
use crate::state::{State, Step};
use serde_json::{Value, json};

const ACCOUNT: &str = "000000000000";
const TARGET: &str = "arn:aws:scheduler:::aws-sdk:sqs:sendMessage";

fn cx() -> Context {
    Context::for_tests()
}

fn call(state: &mut State, operation: &str, input: Value) -> Value {
    state.call(&cx(), ServiceId::Sqs, operation, input).unwrap()
}

/// A queue's URL, made.
fn queue(state: &mut State) -> String {
    let made = call(state, "CreateQueue", json!({"QueueName": "q"}));
    made["QueueUrl"].as_str().unwrap().to_string()
}

fn messages(state: &mut State, url: &str) -> String {
    let input = json!({"QueueUrl": url, "AttributeNames": ["ApproximateNumberOfMessages"]});
    let got = call(state, "GetQueueAttributes", input);
    got["Attributes"]["ApproximateNumberOfMessages"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A universal target's delivery: SQS SendMessage to `url`.
fn send_message(url: &str) -> Delivery<Step> {
    let target = Target::Call {
        address: TARGET.into(),
        service: "sqs".into(),
        operation: "SendMessage".into(),
        input: json!({"QueueUrl": url, "MessageBody": "from a target"}).to_string(),
        publisher: Publisher {
            account: ACCOUNT.into(),
            host: "localhost".into(),
        },
        region: "us-east-1".into(),
    };
    let source = format!("arn:aws:scheduler:us-east-1:{ACCOUNT}:schedule/default/s");
    Delivery::new(
        "scheduler",
        source,
        "aws-sdk".into(),
        "m".into(),
        target,
        NoRetries,
        None,
    )
}

/// The outcomes the delivery log records for the universal target.
fn outcomes(state: &State) -> Vec<&'static str> {
    let log = state.engine.log.iter();
    log.filter(|r| r.target == TARGET)
        .filter_map(|r| r.outcome)
        .collect()
}

#[test]
fn outside_a_settle_the_operation_has_run_when_the_delivery_returns() {
    let mut state = State::for_tests(0);
    let url = queue(&mut state);
    state.deliver(send_message(&url));
    assert!(state.calls.is_empty());
    assert_eq!(messages(&mut state, &url), "1");
    assert_eq!(outcomes(&state), ["delivered"]);
}

#[test]
fn inside_a_settle_the_delivery_and_its_operation_wait_for_the_outer_settle() {
    let mut state = State::for_tests(0);
    let url = queue(&mut state);
    // As when a hand-over starts the delivery while a settle is under way: the settle inside
    // does nothing; the delivery's hand-over waits for the loop under way, and so does the
    // operation it starts.
    state.settling = true;
    state.deliver(send_message(&url));
    assert!(state.calls.is_empty());
    assert_eq!(messages(&mut state, &url), "0");
    assert_eq!(outcomes(&state), Vec::<&str>::new());
    // The outer settle hands it over, runs the operation, then completes its delivery with how
    // it ended.
    state.settling = false;
    state.settle();
    assert!(state.calls.is_empty());
    assert_eq!(messages(&mut state, &url), "1");
    assert_eq!(outcomes(&state), ["delivered"]);
}

#[test]
fn a_reset_forgets_the_work_waiting() {
    let mut state = State::for_tests(0);
    let url = queue(&mut state);
    state.settling = true;
    state.deliver(send_message(&url));
    state.reset();
    assert!(state.calls.is_empty() && !state.settling);
    // Nothing of the delivery is left to run: a settle now hands nothing over.
    state.settle();
    assert!(state.calls.is_empty());
    assert_eq!(outcomes(&state), Vec::<&str>::new());
}
