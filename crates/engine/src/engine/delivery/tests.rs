//! The delivery path's own tests: retries, permanent failures, faults, lanes, throttles.
//! They drive the engine alone, as the layer above would: no service, no state.
//! They drive the engine alone, as the layer above would: no service, no state.

use super::*;
use crate::engine::faults::Fault;
use crate::engine::log::DeliveryFilter;
use crate::engine::rng::Rng;
use crate::engine::{Engine, Fired, Settings};
use std::collections::BTreeMap;

/// Service steps of these tests: a number.
type Step = u32;

fn engine() -> Engine<Step> {
    Engine::new(Settings {
        start: 0,
        seed: 1,
        jitter: false,
        delivery_log_size: 1000,
    })
}

/// Fires every timer due by `limit`, as the layer above would (these tests schedule no service
/// steps and hand nothing over), then moves to `limit`.
fn run_until(e: &mut Engine<Step>, limit: Millis) {
    while let Some(fired) = e.fire_one(limit) {
        assert!(matches!(fired, Fired::Engine), "{fired:?}");
    }
    e.move_to(limit);
}

/// Retries every 10 s, three times.
#[derive(Debug)]
struct Every10s;

impl RetryPolicy for Every10s {
    fn next(&self, attempts: u32, _: &mut Rng, _: bool) -> Option<Retry> {
        (attempts <= 3).then_some(Retry {
            delay_ms: 10_000,
            phase: "retry",
        })
    }
}

fn outbox(address: &str, policy: Box<dyn RetryPolicy>) -> Delivery<Step> {
    let target = Target::Outbox {
        address: address.into(),
        body: "b".into(),
        attributes: BTreeMap::new(),
    };
    Delivery::new(
        "sns",
        "arn:aws:sns:us-east-1:0:t:s".into(),
        "email".into(),
        "m".into(),
        target,
        policy,
        None,
    )
}

fn events(e: &Engine<Step>) -> Vec<(Millis, &'static str, Option<&'static str>)> {
    let all = DeliveryFilter {
        limit: 1000,
        ..Default::default()
    };
    e.log
        .query(&all)
        .iter()
        .map(|r| (r.at, r.event, r.outcome))
        .collect()
}

#[test]
fn retryable_failures_follow_the_policy_then_give_up() {
    let mut e = engine();
    e.faults.add(Fault {
        id: "f".into(),
        target: "a@b.c".into(),
        status: 503,
        error_code: None,
        count: None,
    });
    e.deliver(outbox("a@b.c", Box::new(Every10s)));
    run_until(&mut e, 60_000);
    let attempts: Vec<_> = events(&e)
        .into_iter()
        .filter(|(_, ev, _)| *ev == "attempt")
        .map(|(at, _, _)| at)
        .collect();
    assert_eq!(attempts, [0, 10_000, 20_000, 30_000]);
    assert_eq!(events(&e).last(), Some(&(30_000, "discarded", None)));
    assert_eq!(e.deliveries_in_progress(), 0);
    assert!(e.outbox.is_empty());
}

#[test]
fn permanent_failures_are_not_retried() {
    let mut e = engine();
    e.faults.add(Fault {
        id: "f".into(),
        target: "a@b.c".into(),
        status: 400,
        error_code: None,
        count: None,
    });
    e.deliver(outbox("a@b.c", Box::new(Every10s)));
    assert_eq!(
        events(&e),
        [(0, "attempt", Some("permanent")), (0, "discarded", None)]
    );
}

#[test]
fn a_fault_with_a_count_clears_and_the_retry_succeeds() {
    let mut e = engine();
    e.faults.add(Fault {
        id: "f".into(),
        target: "a@b.c".into(),
        status: 500,
        error_code: None,
        count: Some(2),
    });
    e.deliver(outbox("a@b.c", Box::new(Every10s)));
    run_until(&mut e, 60_000);
    let outcomes: Vec<_> = events(&e).into_iter().map(|(at, _, o)| (at, o)).collect();
    assert_eq!(
        outcomes,
        [
            (0, Some("retryable")),
            (10_000, Some("retryable")),
            (20_000, Some("delivered"))
        ]
    );
    assert_eq!(e.outbox.len(), 1);
}

#[test]
fn a_lane_keeps_order_through_retries() {
    let mut e = engine();
    e.faults.add(Fault {
        id: "f".into(),
        target: "a@b.c".into(),
        status: 500,
        error_code: None,
        count: Some(2),
    });
    for (body, lane) in [("a1", "g1"), ("b1", "g2"), ("a2", "g1")] {
        let target = Target::Outbox {
            address: if lane == "g1" { "a@b.c" } else { "x@y.z" }.into(),
            body: body.into(),
            attributes: BTreeMap::new(),
        };
        let d = Delivery::new(
            "sns",
            "s".into(),
            "email".into(),
            body.into(),
            target,
            Box::new(Every10s) as Box<dyn RetryPolicy>,
            None,
        );
        e.deliver(d.in_lane(lane.into()));
    }
    // b1 (another group) goes at once; a2 waits behind a1's two retries.
    run_until(&mut e, 60_000);
    let order: Vec<(Millis, &str)> = e.outbox.iter().map(|m| (m.at, m.body.as_str())).collect();
    assert_eq!(order, [(0, "b1"), (20_000, "a1"), (20_000, "a2")]);
    assert!(e.lanes.is_empty());
}

#[test]
fn throttled_deliveries_wait_for_their_slot_without_counting_as_attempts() {
    let mut e = engine();
    for _ in 0..30 {
        e.deliver(outbox("a@b.c", Box::new(NoRetries)).throttled("sub".into(), 10));
    }
    run_until(&mut e, 10_000);
    let delivered: Vec<Millis> = e.outbox.iter().map(|m| m.at).collect();
    assert_eq!(delivered.len(), 30);
    assert_eq!(delivered[..3], [0, 100, 200]);
    assert_eq!(*delivered.last().unwrap(), 2_900);
    let log = e.log.query(&DeliveryFilter {
        limit: 1000,
        ..Default::default()
    });
    assert!(
        log.iter()
            .filter(|r| r.event == "attempt")
            .all(|r| r.attempt == 1),
        "throttling is not a retry"
    );
    assert_eq!(log.iter().filter(|r| r.event == "throttled").count(), 29);
}

fn http(policy: Box<dyn RetryPolicy>) -> Delivery<Step> {
    let target = Target::Http {
        method: "POST".into(),
        url: "http://127.0.0.1:9/hook".into(),
        headers: Vec::new(),
        body: "b".into(),
    };
    Delivery::new(
        "events",
        "rule#t".into(),
        "api-destination".into(),
        "m".into(),
        target,
        policy,
        None,
    )
}

#[test]
fn retry_after_lengthens_the_wait_and_a_negative_one_ends_the_retries() {
    let failed = || Outcome::Retryable(Failure::Status(503));
    let mut e = engine();
    let id = e.deliver(http(Box::new(Every10s)).honouring_retry_after());
    assert_eq!(e.take_effects().len(), 1);
    e.complete_after(id, failed(), Some(30_000));
    assert_eq!(
        e.next_due(),
        Some(30_000),
        "the longer of 10 s and Retry-After"
    );
    run_until(&mut e, 30_000);
    e.complete_after(id, failed(), Some(2_000));
    assert_eq!(
        e.next_due(),
        Some(40_000),
        "a shorter Retry-After changes nothing"
    );
    run_until(&mut e, 40_000);
    e.complete_after(id, failed(), Some(-1));
    assert_eq!(
        e.deliveries_in_progress(),
        0,
        "a negative Retry-After stops the retries"
    );

    // A delivery that does not honour it ignores it.
    let id = e.deliver(http(Box::new(Every10s)));
    e.complete_after(id, failed(), Some(-1));
    assert_eq!(e.next_due(), Some(50_000));
}

fn to_queue(dead_letter: Option<DeadLetter<NoFinish>>) -> Delivery<Step> {
    let message = SqsMessage {
        body: "b".into(),
        attributes: BTreeMap::new(),
        group_id: None,
        dedup_id: None,
        trace_header: None,
    };
    let target = Target::Sqs {
        queue_arn: "arn:aws:sqs:us-east-1:000000000000:q".into(),
        message,
    };
    Delivery::new(
        "events",
        "rule#t".into(),
        "sqs".into(),
        "m".into(),
        target,
        Box::new(NoRetries) as Box<dyn RetryPolicy>,
        dead_letter,
    )
}

#[test]
fn an_in_process_target_is_handed_over_and_its_answer_completes_the_attempt() {
    let mut e = engine();
    let id = e.deliver(to_queue(None));
    let work: Vec<_> = e.take_work().into_iter().collect();
    assert!(
        matches!(&work[..], [Work::HandOver { delivery, target: Target::Sqs { .. } }] if *delivery == id),
        "{work:?}"
    );
    assert!(
        events(&e).is_empty(),
        "nothing is decided before the answer"
    );
    e.complete(id, Outcome::Delivered { status: None });
    assert_eq!(events(&e), [(0, "attempt", Some("delivered"))]);
    assert_eq!(e.deliveries_in_progress(), 0);
}

#[test]
fn a_dead_letter_is_written_by_the_layer_above_and_its_answer_is_logged() {
    let dlq = || {
        let message = SqsMessage {
            body: "dead".into(),
            attributes: BTreeMap::new(),
            group_id: None,
            dedup_id: None,
            trace_header: None,
        };
        DeadLetter::new("arn:aws:sqs:us-east-1:000000000000:dlq".into(), message)
    };
    let counters = Counters {
        namespace: "AWS/Events",
        resource: "rule".into(),
        failed: Some("FailedInvocations"),
        dead_lettered: Some("InvocationsSentToDLQ"),
        dlq_failed: Some("InvocationsFailedToBeSentToDLQ"),
        ..Counters::default()
    };
    let mut e = engine();
    for written in [true, false] {
        let id = e.deliver(to_queue(Some(dlq())).counted(counters.clone()));
        e.take_work();
        let refused = Outcome::Permanent(Failure::NotFound("NO_QUEUE"));
        e.complete(id, refused);
        let work: Vec<_> = e.take_work().into_iter().collect();
        assert!(
            matches!(&work[..], [Work::DeadLetter { delivery, message, .. }] if *delivery == id && message.body == "dead"),
            "{work:?}"
        );
        assert_eq!(e.deliveries_in_progress(), 1, "under way until written");
        e.dead_letter_written(id, written);
        assert_eq!(e.deliveries_in_progress(), 0);
    }
    let ends: Vec<_> = events(&e).into_iter().map(|(_, ev, _)| ev).collect();
    assert_eq!(ends, ["attempt", "dead-lettered", "attempt", "dlq-failed"]);
    let text = e.metrics.render();
    for metric in [
        "FailedInvocations\",resource=\"rule\"} 2",
        "InvocationsSentToDLQ\",resource=\"rule\"} 1",
        "InvocationsFailedToBeSentToDLQ\",resource=\"rule\"} 1",
    ] {
        assert!(text.contains(metric), "{metric} in {text}");
    }
}

#[test]
fn a_followed_delivery_reports_its_end_and_may_stay_with_its_source() {
    let mut e = engine();
    for (keep, ending) in [
        (Keep::Always, Ending::Kept),
        (Keep::WhenExhaustedBy("never"), Ending::Discarded),
    ] {
        let refused = Outcome::Permanent(Failure::Status(400));
        let d = outbox("a@b.c", Box::new(NoRetries)).doomed(refused);
        e.deliver(d.followed_by(Follow { keep, then: 7 }));
        let work: Vec<_> = e.take_work().into_iter().collect();
        assert!(
            matches!(&work[..], [Work::Ended { then: 7, ending: end, last: Some(_), .. }] if *end == ending),
            "{work:?}"
        );
    }
}
