//! `Emulator::advance` and `Emulator::advance_until`, the Rust handle's way to move the manual
//! clock: the same work, answers and refusals as `POST /_switchyard/clock/advance`.

use crate::harness::Harness;
use aws_sdk_eventbridge::types::Target;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use switchyard::{AdvanceError, ClockMode, Config};

/// The virtual time `GET /_switchyard/clock` answers, in epoch milliseconds.
async fn epoch_millis(h: &Harness) -> i64 {
    h.control_get("clock").await["epochMillis"]
        .as_i64()
        .unwrap()
}

fn system_time(epoch_millis: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(epoch_millis as u64)
}

/// An hourly scheduled rule whose events land in queue `ticks`.
async fn hourly_rule_into_a_queue(h: &Harness) {
    h.sqs()
        .create_queue()
        .queue_name("ticks")
        .send()
        .await
        .unwrap();
    let events = h.events();
    events
        .put_rule()
        .name("hourly")
        .schedule_expression("rate(1 hour)")
        .send()
        .await
        .unwrap();
    let target = Target::builder()
        .id("q")
        .arn("arn:aws:sqs:us-east-1:000000000000:ticks")
        .build()
        .unwrap();
    events
        .put_targets()
        .rule("hourly")
        .targets(target)
        .send()
        .await
        .unwrap();
}

async fn ticks_queued(h: &Harness) -> String {
    let attributes = h
        .sqs()
        .get_queue_attributes()
        .queue_url(format!("{}/000000000000/ticks", h.url()))
        .attribute_names(aws_sdk_sqs::types::QueueAttributeName::ApproximateNumberOfMessages)
        .send()
        .await
        .unwrap();
    attributes.attributes().unwrap()
        [&aws_sdk_sqs::types::QueueAttributeName::ApproximateNumberOfMessages]
        .clone()
}

/// Two emulators set up alike, one advanced a day through the control API and one through
/// `Emulator::advance`: the same timers fire, the same events arrive, the clocks say the same.
#[tokio::test]
async fn advance_does_what_the_control_api_does() {
    let (by_api, by_handle) = (Harness::start().await, Harness::start().await);
    hourly_rule_into_a_queue(&by_api).await;
    hourly_rule_into_a_queue(&by_handle).await;
    let (api_start, handle_start) = (epoch_millis(&by_api).await, epoch_millis(&by_handle).await);

    let answer = by_api.advance(86_400.0).await;
    let advanced = by_handle
        .emulator
        .advance(Duration::from_secs(86_400))
        .await
        .unwrap();

    assert_eq!(advanced.fired, 24, "one firing an hour");
    assert_eq!(answer["fired"].as_u64(), Some(advanced.fired as u64));
    assert_eq!(advanced.now, handle_start + 86_400_000);
    assert_eq!(advanced.now, epoch_millis(&by_handle).await);
    assert_eq!(epoch_millis(&by_api).await, api_start + 86_400_000);
    assert_eq!(ticks_queued(&by_api).await, "24");
    assert_eq!(ticks_queued(&by_handle).await, "24");
}

#[tokio::test]
async fn advance_until_moves_to_that_time_and_refuses_the_past() {
    let h = Harness::start().await;
    let start = epoch_millis(&h).await;
    let advanced = h
        .emulator
        .advance_until(system_time(start + 3_600_000))
        .await
        .unwrap();
    assert_eq!((advanced.now, advanced.fired), (start + 3_600_000, 0));

    let refused = h.emulator.advance_until(system_time(start)).await;
    let Err(err) = refused else {
        panic!("went back in time: {refused:?}")
    };
    assert_eq!(
        err,
        AdvanceError::InPast {
            now: start + 3_600_000,
            target: start
        }
    );
    assert_eq!(err.code(), "TimeInPast", "the control API's code");
    assert!(
        err.to_string()
            .contains("is before the current virtual time")
    );
    assert_eq!(epoch_millis(&h).await, start + 3_600_000);
}

#[tokio::test]
async fn advance_refuses_a_real_clock_and_time_past_year_9999() {
    let real = Harness::with(Config {
        clock: ClockMode::Real,
        ..Config::for_tests()
    })
    .await;
    let err = real
        .emulator
        .advance(Duration::from_secs(10))
        .await
        .unwrap_err();
    assert_eq!(err, AdvanceError::NotAdjustable);
    assert_eq!(err.code(), "ClockNotAdjustable");
    let err = real
        .emulator
        .advance_until(SystemTime::UNIX_EPOCH + Duration::from_secs(4_000_000_000))
        .await
        .unwrap_err();
    assert_eq!(err, AdvanceError::NotAdjustable);

    let h = Harness::start().await;
    let start = epoch_millis(&h).await;
    for by in [Duration::MAX, Duration::from_secs(300_000_000_000)] {
        let err = h.emulator.advance(by).await.unwrap_err();
        assert_eq!(err, AdvanceError::OutOfRange, "{by:?}");
        assert_eq!(err.code(), "InvalidArgument");
    }
    let year_10000 = SystemTime::UNIX_EPOCH + Duration::from_millis(253_402_300_800_000);
    let err = h.emulator.advance_until(year_10000).await.unwrap_err();
    assert_eq!(err, AdvanceError::OutOfRange);
    assert_eq!(
        epoch_millis(&h).await,
        start,
        "a refused advance moves nothing"
    );
}

/// `Emulator::now` is the time `GET /_switchyard/clock` answers, before and after an advance.
#[tokio::test]
async fn now_is_the_clock_the_control_api_answers() {
    let h = Harness::start().await;
    assert_eq!(h.emulator.now(), system_time(epoch_millis(&h).await));
    h.emulator
        .advance(Duration::from_millis(2500))
        .await
        .unwrap();
    assert_eq!(h.emulator.now(), system_time(epoch_millis(&h).await));
}

/// `Emulator::settle` fires what is due now without moving the clock, as an advance of zero
/// does: a message sent with no delay is there, the time is the same.
#[tokio::test]
async fn settle_runs_what_is_due_and_keeps_the_time() {
    let h = Harness::start().await;
    let before = h.emulator.now();
    let settled = h.emulator.settle().await.unwrap();
    assert_eq!(system_time(settled.now), before);
    assert_eq!(h.emulator.now(), before);
    let real = Harness::with(Config {
        clock: ClockMode::Real,
        ..Config::for_tests()
    })
    .await;
    assert_eq!(
        real.emulator.settle().await.unwrap_err(),
        AdvanceError::NotAdjustable
    );
}

/// `Emulator::reset` empties the emulator as `POST /_switchyard/reset` does and keeps the time:
/// the queue is gone, and a visibility timeout is proved on a fresh one without sleeping.
#[tokio::test]
async fn reset_empties_and_keeps_the_time() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    sqs.create_queue().queue_name("old").send().await.unwrap();
    h.emulator.advance(Duration::from_secs(60)).await.unwrap();
    let now = h.emulator.now();
    h.emulator.reset().await.unwrap();
    assert_eq!(h.emulator.now(), now);
    let queues = sqs.list_queues().send().await.unwrap();
    assert!(queues.queue_urls().is_empty(), "{queues:?}");

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
    sqs.send_message()
        .queue_url(&url)
        .message_body("order 1")
        .send()
        .await
        .unwrap();
    let receive = || sqs.receive_message().queue_url(&url).send();
    assert_eq!(receive().await.unwrap().messages().len(), 1);
    h.emulator.advance(Duration::from_secs(29)).await.unwrap();
    assert!(receive().await.unwrap().messages().is_empty());
    h.emulator.advance(Duration::from_secs(1)).await.unwrap();
    assert_eq!(
        receive().await.unwrap().messages()[0].body(),
        Some("order 1")
    );
}
