//! EventBridge Scheduler through the AWS SDK for Rust, on the manual clock: schedules in a time
//! zone across a daylight-saving change, one-time schedules that delete themselves, retries and
//! the dead-letter queue of a failing target, targets beyond SQS, and AWS's errors for bad input.

use crate::custom_bus::drain;
use crate::harness::Harness;
use aws_sdk_scheduler::types::{
    ActionAfterCompletion, DeadLetterConfig, EventBridgeParameters, FlexibleTimeWindow,
    FlexibleTimeWindowMode, RetryPolicy, ScheduleGroupState, ScheduleState, SqsParameters, Tag,
    Target,
};
use serde_json::{Value, json};

const ROLE: &str = "arn:aws:iam::000000000000:role/scheduler";

/// A queue: its URL and ARN.
async fn queue(h: &Harness, name: &str) -> (String, String) {
    let url = h
        .sqs()
        .create_queue()
        .queue_name(name)
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let arn = format!("arn:aws:sqs:us-east-1:000000000000:{name}");
    (url, arn)
}

fn off() -> FlexibleTimeWindow {
    FlexibleTimeWindow::builder()
        .mode(FlexibleTimeWindowMode::Off)
        .build()
        .unwrap()
}

fn target(arn: &str, input: &str) -> aws_sdk_scheduler::types::builders::TargetBuilder {
    Target::builder().arn(arn).role_arn(ROLE).input(input)
}

async fn until(h: &Harness, time: &str) {
    let r = h
        .control_post("clock/advance", json!({ "until": time }))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
}

fn bodies(messages: &[aws_sdk_sqs::types::Message]) -> Vec<Value> {
    messages
        .iter()
        .map(|m| serde_json::from_str(m.body().unwrap()).unwrap())
        .collect()
}

#[tokio::test]
async fn a_cron_schedule_runs_at_its_local_time_across_the_spring_forward() {
    let h = Harness::start().await;
    let (url, arn) = queue(&h, "daily").await;
    until(&h, "2027-03-01T00:00:00Z").await;
    let input = r#"{"at":"<aws.scheduler.scheduled-time>","arn":"<aws.scheduler.schedule-arn>"}"#;
    h.scheduler()
        .create_schedule()
        .name("nine-am")
        .schedule_expression("cron(0 9 * * ? *)")
        .schedule_expression_timezone("America/New_York")
        .flexible_time_window(off())
        .target(target(&arn, input).build().unwrap())
        .send()
        .await
        .unwrap();
    // A month, looked at each week (the queue keeps messages 14 days).
    h.sqs()
        .set_queue_attributes()
        .queue_url(&url)
        .attributes(
            aws_sdk_sqs::types::QueueAttributeName::MessageRetentionPeriod,
            "1209600",
        )
        .send()
        .await
        .unwrap();
    let mut runs: Vec<String> = Vec::new();
    for week_end in ["08", "15", "22", "29"] {
        until(&h, &format!("2027-03-{week_end}T00:00:00Z")).await;
        let week = bodies(&drain(&h, &url).await);
        runs.extend(week.iter().map(|b| b["at"].as_str().unwrap().to_string()));
    }
    until(&h, "2027-04-01T00:00:00Z").await;
    let last = bodies(&drain(&h, &url).await);
    runs.extend(last.iter().map(|b| b["at"].as_str().unwrap().to_string()));
    runs.sort();
    assert_eq!(runs.len(), 31, "{runs:?}");
    // 09:00 EST is 14:00Z until clocks go forward on 14 March 2027; 09:00 EDT is 13:00Z after.
    assert_eq!(runs[0], "2027-03-01T14:00:00Z");
    assert_eq!(runs[12], "2027-03-13T14:00:00Z");
    assert_eq!(runs[13], "2027-03-14T13:00:00Z");
    assert_eq!(runs[30], "2027-03-31T13:00:00Z");
    let got = h.scheduler().get_schedule().name("nine-am").send().await;
    let got = got.unwrap();
    assert_eq!(got.schedule_expression_timezone(), Some("America/New_York"));
    assert_eq!(got.state(), Some(&ScheduleState::Enabled));
}

#[tokio::test]
async fn a_one_time_schedule_with_delete_runs_once_and_is_gone() {
    let h = Harness::start().await;
    let (url, arn) = queue(&h, "once").await;
    until(&h, "2027-05-01T10:00:00Z").await;
    let s = h.scheduler();
    s.create_schedule()
        .name("reminder")
        .schedule_expression("at(2027-05-01T12:30:00)")
        .schedule_expression_timezone("Europe/Paris")
        .action_after_completion(ActionAfterCompletion::Delete)
        .flexible_time_window(off())
        .target(
            target(&arn, r#"{"id":"<aws.scheduler.execution-id>"}"#)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    // 12:30 in Paris (CEST) is 10:30Z: nothing before.
    until(&h, "2027-05-01T10:29:00Z").await;
    assert!(drain(&h, &url).await.is_empty());
    until(&h, "2027-05-02T00:00:00Z").await;
    let runs = bodies(&drain(&h, &url).await);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["id"].as_str().unwrap().len(), 36);
    let err = s
        .get_schedule()
        .name("reminder")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
}

#[tokio::test]
async fn a_failing_target_is_retried_within_the_age_limit_then_dead_lettered_once() {
    let h = Harness::start().await;
    let (_, arn) = queue(&h, "broken").await;
    let (dlq_url, dlq_arn) = queue(&h, "schedule-dlq").await;
    until(&h, "2027-06-01T00:00:00Z").await;
    let fault = h
        .control_post("faults", json!({ "target": arn, "status": 500 }))
        .await;
    assert_eq!(fault.status, 201, "{}", fault.body);
    let retry = RetryPolicy::builder()
        .maximum_retry_attempts(10)
        .maximum_event_age_in_seconds(60)
        .build();
    let dlq = DeadLetterConfig::builder().arn(&dlq_arn).build();
    let created = h
        .scheduler()
        .create_schedule()
        .name("fails")
        .schedule_expression("at(2027-06-01T00:05:00)")
        .flexible_time_window(off())
        .target(
            target(&arn, r#"{"job":1}"#)
                .retry_policy(retry)
                .dead_letter_config(dlq)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    until(&h, "2027-06-02T00:00:00Z").await;
    let source = created.schedule_arn();
    let log = h.control_get(&format!("deliveries?source={source}")).await;
    let attempts: Vec<&Value> = log["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["event"] == "attempt")
        .collect();
    // Backoff of 1, 2, 4, 8, 16 s: the sixth attempt is at 31 s, a seventh would be past 60 s.
    assert_eq!(attempts.len(), 6, "{log}");
    let letters = drain(&h, &dlq_url).await;
    assert_eq!(letters.len(), 1);
    assert_eq!(letters[0].body(), Some(r#"{"job":1}"#));
    let attrs = letters[0].message_attributes().unwrap();
    let attr = |k: &str| attrs[k].string_value().unwrap().to_string();
    assert_eq!(attr("SCHEDULE_ARN"), source);
    assert_eq!(attr("TARGET_ARN"), arn);
    assert_eq!(attr("RETRY_ATTEMPTS"), "5");
    // The seventh attempt would have come after the 60 seconds the run may live.
    assert_eq!(
        attr("EXHAUSTED_RETRY_CONDITION"),
        "MaximumEventAgeInSeconds"
    );
    assert_eq!(attr("SCHEDULED_TIME"), "2027-06-01T00:05:00Z");
    assert!(!attr("ERROR_CODE").is_empty());
    assert!(!attr("ERROR_MESSAGE").is_empty());
    assert_eq!(attr("EXECUTION_ID").len(), 36);
}

#[tokio::test]
async fn fifo_groups_event_buses_and_universal_targets_are_delivered() {
    let h = Harness::start().await;
    let fifo_url = h
        .sqs()
        .create_queue()
        .queue_name("jobs.fifo")
        .attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let fifo_arn = "arn:aws:sqs:us-east-1:000000000000:jobs.fifo";
    let (plain_url, _) = queue(&h, "plain").await;
    let (bus_url, bus_queue) = queue(&h, "from-bus").await;
    let events = h.events();
    events
        .put_rule()
        .name("scheduled")
        .event_pattern(r#"{"source":["my.scheduler"]}"#)
        .send()
        .await
        .unwrap();
    events
        .put_targets()
        .rule("scheduled")
        .targets(
            aws_sdk_eventbridge::types::Target::builder()
                .id("q")
                .arn(&bus_queue)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    until(&h, "2027-07-01T00:00:00Z").await;
    let s = h.scheduler();
    let at = "at(2027-07-01T00:01:00)";
    let create = |name: &str, target: Target| {
        s.create_schedule()
            .name(name)
            .schedule_expression(at)
            .flexible_time_window(off())
            .target(target)
            .send()
    };
    let sqs = SqsParameters::builder().message_group_id("g1").build();
    create(
        "fifo",
        target(fifo_arn, "fifo!")
            .sqs_parameters(sqs)
            .build()
            .unwrap(),
    )
    .await
    .unwrap();
    let bus = "arn:aws:events:us-east-1:000000000000:event-bus/default";
    let params = EventBridgeParameters::builder()
        .detail_type("Reminder")
        .source("my.scheduler")
        .build()
        .unwrap();
    create(
        "bus",
        target(bus, r#"{"n":1}"#)
            .event_bridge_parameters(params)
            .build()
            .unwrap(),
    )
    .await
    .unwrap();
    let send = json!({ "QueueUrl": plain_url, "MessageBody": "via the SDK" }).to_string();
    create(
        "universal",
        target("arn:aws:scheduler:::aws-sdk:sqs:sendMessage", &send)
            .build()
            .unwrap(),
    )
    .await
    .unwrap();
    until(&h, "2027-07-01T00:02:00Z").await;

    let fifo = drain(&h, &fifo_url).await;
    assert_eq!(fifo.len(), 1);
    assert_eq!(fifo[0].body(), Some("fifo!"));
    let group = fifo[0].attributes().unwrap();
    let group = &group[&aws_sdk_sqs::types::MessageSystemAttributeName::MessageGroupId];
    assert_eq!(group, "g1");
    let from_bus = bodies(&drain(&h, &bus_url).await);
    assert_eq!(from_bus.len(), 1);
    assert_eq!(from_bus[0]["detail-type"], "Reminder");
    assert_eq!(from_bus[0]["detail"], json!({"n": 1}));
    let plain = drain(&h, &plain_url).await;
    assert_eq!(plain.len(), 1);
    assert_eq!(plain[0].body(), Some("via the SDK"));
}

#[tokio::test]
async fn schedules_list_filter_page_and_go_with_their_group() {
    let h = Harness::start().await;
    let s = h.scheduler();
    s.create_schedule_group().name("team").send().await.unwrap();
    for (name, group, state) in [
        ("a1", "default", ScheduleState::Enabled),
        ("a2", "default", ScheduleState::Disabled),
        ("b1", "team", ScheduleState::Enabled),
    ] {
        s.create_schedule()
            .name(name)
            .group_name(group)
            .state(state)
            .schedule_expression("rate(5 minutes)")
            .flexible_time_window(off())
            .target(
                target("arn:aws:sqs:us-east-1:000000000000:q", "x")
                    .build()
                    .unwrap(),
            )
            .send()
            .await
            .unwrap();
    }
    let names = |out: &aws_sdk_scheduler::operation::list_schedules::ListSchedulesOutput| {
        out.schedules()
            .iter()
            .map(|s| s.name().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let all = s.list_schedules().send().await.unwrap();
    assert_eq!(names(&all), ["a1", "a2", "b1"]);
    let team = s.list_schedules().group_name("team").send().await.unwrap();
    assert_eq!(names(&team), ["b1"]);
    let enabled = s
        .list_schedules()
        .state(ScheduleState::Enabled)
        .send()
        .await;
    assert_eq!(names(&enabled.unwrap()), ["a1", "b1"]);
    let prefixed = s.list_schedules().name_prefix("a").send().await.unwrap();
    assert_eq!(names(&prefixed), ["a1", "a2"]);
    let first = s.list_schedules().max_results(2).send().await.unwrap();
    assert_eq!(names(&first), ["a1", "a2"]);
    let token = first.next_token().unwrap();
    let rest = s
        .list_schedules()
        .max_results(2)
        .next_token(token)
        .send()
        .await;
    assert_eq!(names(&rest.unwrap()), ["b1"]);

    s.delete_schedule_group().name("team").send().await.unwrap();
    h.advance(1.0).await;
    let err = s
        .get_schedule()
        .name("b1")
        .group_name("team")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
    assert_eq!(
        names(&s.list_schedules().send().await.unwrap()),
        ["a1", "a2"]
    );
}

#[tokio::test]
async fn bad_input_gets_aws_errors_naming_the_member() {
    let h = Harness::start().await;
    let s = h.scheduler();
    let create = |name: &str, expression: &str, target: Target| {
        s.create_schedule()
            .name(name)
            .schedule_expression(expression)
            .flexible_time_window(off())
            .target(target)
            .send()
    };
    let q = "arn:aws:sqs:us-east-1:000000000000:q";
    let err = create("bad", "rate(0 minutes)", target(q, "x").build().unwrap())
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_validation_exception(), "{err:?}");
    assert!(err.meta().message().unwrap().contains("rate(0 minutes)"));
    let retry = RetryPolicy::builder().maximum_retry_attempts(186).build();
    let err = create(
        "bad",
        "rate(1 minute)",
        target(q, "x").retry_policy(retry).build().unwrap(),
    )
    .await
    .unwrap_err()
    .into_service_error();
    assert!(err.is_validation_exception(), "{err:?}");
    let message = err.meta().message().unwrap();
    assert!(
        message.contains("target.retryPolicy.maximumRetryAttempts"),
        "{message}"
    );
    let err = s
        .create_schedule()
        .name("bad")
        .schedule_expression("rate(1 minute)")
        .schedule_expression_timezone("Mars/Olympus_Mons")
        .flexible_time_window(off())
        .target(target(q, "x").build().unwrap())
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_validation_exception(), "{err:?}");

    create("dup", "rate(1 minute)", target(q, "x").build().unwrap())
        .await
        .unwrap();
    let err = create("dup", "rate(1 minute)", target(q, "x").build().unwrap())
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_conflict_exception(), "{err:?}");
    let err = s
        .create_schedule()
        .name("elsewhere")
        .group_name("nope")
        .schedule_expression("rate(1 minute)")
        .flexible_time_window(off())
        .target(target(q, "x").build().unwrap())
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
    let err = s.delete_schedule().name("ghost").send().await.unwrap_err();
    assert!(err.into_service_error().is_resource_not_found_exception());
    let err = s
        .update_schedule()
        .name("ghost")
        .schedule_expression("rate(1 minute)")
        .flexible_time_window(off())
        .target(target(q, "x").build().unwrap())
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
    let err = s
        .list_tags_for_resource()
        .resource_arn("arn:aws:scheduler:us-east-1:000000000000:schedule-group/ghost")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");

    // Each of these is a ValidationException, the member named where AWS names it.
    let refused = |expression: &str, window: FlexibleTimeWindow, target: Target| {
        s.create_schedule()
            .name("refused")
            .schedule_expression(expression)
            .flexible_time_window(window)
            .target(target)
            .send()
    };
    let flexible_without_window = FlexibleTimeWindow::builder()
        .mode(FlexibleTimeWindowMode::Flexible)
        .build()
        .unwrap();
    let too_wide = FlexibleTimeWindow::builder()
        .mode(FlexibleTimeWindowMode::Flexible)
        .maximum_window_in_minutes(1441)
        .build()
        .unwrap();
    let not_sqs = DeadLetterConfig::builder()
        .arn("arn:aws:sns:us-east-1:000000000000:t")
        .build();
    let bus = "arn:aws:events:us-east-1:000000000000:event-bus/default";
    let cases = [
        (
            "at(2027-01-01 10:00)",
            off(),
            target(q, "x"),
            "at(2027-01-01 10:00)",
        ),
        (
            "rate(1 minute)",
            flexible_without_window,
            target(q, "x"),
            "MaximumWindowInMinutes",
        ),
        (
            "rate(1 minute)",
            too_wide,
            target(q, "x"),
            "flexibleTimeWindow.maximumWindowInMinutes",
        ),
        (
            "rate(1 minute)",
            off(),
            target(q, "x").dead_letter_config(not_sqs),
            "target.deadLetterConfig.arn",
        ),
        (
            "rate(1 minute)",
            off(),
            target("arn:aws:scheduler:::aws-sdk:dynamodb:putItem", "{}"),
            "dynamodb",
        ),
        (
            "rate(1 minute)",
            off(),
            target(bus, "{}"),
            "EventBridgeParameters",
        ),
    ];
    for (expression, window, target, named) in cases {
        let err = refused(expression, window, target.build().unwrap())
            .await
            .unwrap_err()
            .into_service_error();
        assert!(err.is_validation_exception(), "{named}: {err:?}");
        let message = err.meta().message().unwrap();
        assert!(message.contains(named), "{named}: {message}");
    }
    let start = aws_sdk_scheduler::primitives::DateTime::from_secs(1_900_000_000);
    let err = s
        .create_schedule()
        .name("refused")
        .schedule_expression("rate(1 minute)")
        .start_date(start)
        .end_date(start)
        .flexible_time_window(off())
        .target(target(q, "x").build().unwrap())
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_validation_exception(), "{err:?}");
    assert!(err.meta().message().unwrap().contains("EndDate"));

    // 500 schedule groups per account and region, `default` included.
    for n in 1..500 {
        s.create_schedule_group()
            .name(format!("g{n}"))
            .send()
            .await
            .unwrap();
    }
    let err = s
        .create_schedule_group()
        .name("one-too-many")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.raw_response().unwrap().status().as_u16(), 402);
    assert!(
        err.into_service_error()
            .is_service_quota_exceeded_exception()
    );
}

#[tokio::test]
async fn the_attempt_number_counts_the_attempts_of_a_run() {
    let h = Harness::start().await;
    let (url, arn) = queue(&h, "flaky").await;
    let (dlq_url, dlq_arn) = queue(&h, "flaky-dlq").await;
    until(&h, "2027-08-01T00:00:00Z").await;
    // The queue refuses the first two attempts of the first run.
    let fault = h
        .control_post(
            "faults",
            json!({ "target": arn, "status": 500, "count": 2 }),
        )
        .await;
    assert_eq!(fault.status, 201, "{}", fault.body);
    let input = r#"{"try":"<aws.scheduler.attempt-number>","id":"<aws.scheduler.execution-id>"}"#;
    h.scheduler()
        .create_schedule()
        .name("flaky")
        .schedule_expression("at(2027-08-01T00:01:00)")
        .flexible_time_window(off())
        .target(target(&arn, input).build().unwrap())
        .send()
        .await
        .unwrap();
    until(&h, "2027-08-01T00:02:00Z").await;
    let runs = bodies(&drain(&h, &url).await);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["try"], "3");

    // A run that is dead-lettered carries the number of its last attempt.
    let fault = h
        .control_post("faults", json!({ "target": arn, "status": 500 }))
        .await;
    assert_eq!(fault.status, 201, "{}", fault.body);
    let retry = RetryPolicy::builder().maximum_retry_attempts(1).build();
    let dlq = DeadLetterConfig::builder().arn(&dlq_arn).build();
    h.scheduler()
        .create_schedule()
        .name("doomed")
        .schedule_expression("at(2027-08-01T00:03:00)")
        .flexible_time_window(off())
        .target(
            target(&arn, input)
                .retry_policy(retry)
                .dead_letter_config(dlq)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    until(&h, "2027-08-01T00:10:00Z").await;
    let letters = drain(&h, &dlq_url).await;
    assert_eq!(letters.len(), 1);
    let body: Value = serde_json::from_str(letters[0].body().unwrap()).unwrap();
    assert_eq!(body["try"], "2");
    let attrs = letters[0].message_attributes().unwrap();
    let condition = attrs["EXHAUSTED_RETRY_CONDITION"].string_value();
    assert_eq!(condition, Some("MaximumRetryAttempts"));
    assert_eq!(attrs["RETRY_ATTEMPTS"].string_value(), Some("1"));
}

#[tokio::test]
async fn a_request_repeated_with_its_client_token_gets_the_same_answer() {
    let h = Harness::start().await;
    let s = h.scheduler();
    let q = "arn:aws:sqs:us-east-1:000000000000:q";
    let create = |token: &str, expression: &str| {
        s.create_schedule()
            .name("once-only")
            .client_token(token)
            .schedule_expression(expression)
            .flexible_time_window(off())
            .target(target(q, "x").build().unwrap())
            .send()
    };
    let first = create("token-1", "rate(1 hour)").await.unwrap();
    let again = create("token-1", "rate(1 hour)").await.unwrap();
    assert_eq!(first.schedule_arn(), again.schedule_arn());
    // The same token with other members is another request: the schedule exists.
    let err = create("token-1", "rate(2 hours)")
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_conflict_exception(), "{err:?}");
    let err = create("token-2", "rate(1 hour)")
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_conflict_exception(), "{err:?}");
    let err = create("not a token!", "rate(1 hour)")
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_validation_exception(), "{err:?}");
    assert!(err.meta().message().unwrap().contains("'clientToken'"));

    let group = || {
        s.create_schedule_group()
            .name("g")
            .client_token("group-1")
            .send()
    };
    let arn = group().await.unwrap().schedule_group_arn;
    assert_eq!(group().await.unwrap().schedule_group_arn, arn);
    let err = s
        .create_schedule_group()
        .name("g")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_conflict_exception(), "{err:?}");
    let listed = s.list_schedule_groups().send().await.unwrap();
    assert_eq!(listed.schedule_groups().len(), 2);

    // Deleting: a repeat with the token succeeds again, one without it finds nothing.
    let delete = || {
        s.delete_schedule()
            .name("once-only")
            .client_token("delete-1")
            .send()
    };
    delete().await.unwrap();
    delete().await.unwrap();
    let err = s
        .delete_schedule()
        .name("once-only")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
    let delete_group = || {
        s.delete_schedule_group()
            .name("g")
            .client_token("delete-g")
            .send()
    };
    delete_group().await.unwrap();
    delete_group().await.unwrap();
    let err = s
        .delete_schedule_group()
        .name("g")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_conflict_exception(), "DELETING");

    // A token lasts an hour: then the same request is carried out again.
    h.advance(3601.0).await;
    create("token-1", "rate(1 hour)").await.unwrap();
    let again = s.get_schedule().name("once-only").send().await.unwrap();
    assert_eq!(again.schedule_expression(), Some("rate(1 hour)"));
}

#[tokio::test]
async fn a_deleted_group_is_deleting_until_it_and_its_schedules_are_gone() {
    let h = Harness::start().await;
    let (url, arn) = queue(&h, "from-team").await;
    until(&h, "2027-09-01T00:00:00Z").await;
    let s = h.scheduler();
    let group_arn = s
        .create_schedule_group()
        .name("team")
        .send()
        .await
        .unwrap()
        .schedule_group_arn;
    let schedule = |name: &str| {
        s.create_schedule()
            .name(name)
            .group_name("team")
            .schedule_expression("rate(1 minute)")
            .flexible_time_window(off())
            .target(target(&arn, "tick").build().unwrap())
            .send()
    };
    schedule("ticks").await.unwrap();
    s.delete_schedule_group().name("team").send().await.unwrap();
    let got = s.get_schedule_group().name("team").send().await.unwrap();
    assert_eq!(got.state(), Some(&ScheduleGroupState::Deleting));
    let listed = s.list_schedule_groups().name_prefix("te").send().await;
    let listed = listed.unwrap();
    assert_eq!(
        listed.schedule_groups()[0].state(),
        Some(&ScheduleGroupState::Deleting)
    );
    // Until it is gone, the group takes no change.
    let err = schedule("more").await.unwrap_err().into_service_error();
    assert!(err.is_conflict_exception(), "{err:?}");
    let err = s.delete_schedule_group().name("team").send().await;
    assert!(
        err.unwrap_err()
            .into_service_error()
            .is_conflict_exception()
    );
    let err = s
        .tag_resource()
        .resource_arn(&group_arn)
        .tags(Tag::builder().key("k").value("v").build().unwrap())
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_conflict_exception(), "{err:?}");
    let err = s.create_schedule_group().name("team").send().await;
    assert!(
        err.unwrap_err()
            .into_service_error()
            .is_conflict_exception()
    );
    assert!(
        s.get_schedule()
            .name("ticks")
            .group_name("team")
            .send()
            .await
            .is_ok()
    );

    h.advance(1.0).await;
    let err = s.get_schedule_group().name("team").send().await;
    assert!(
        err.unwrap_err()
            .into_service_error()
            .is_resource_not_found_exception()
    );
    let err = s
        .get_schedule()
        .name("ticks")
        .group_name("team")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
    // Gone, it runs no more, and its name is free again.
    drain(&h, &url).await;
    h.advance(300.0).await;
    assert!(drain(&h, &url).await.is_empty());
    s.create_schedule_group().name("team").send().await.unwrap();
}

async fn scheduler_metric(h: &Harness, name: &str, schedule: &str) -> Option<u64> {
    let r = h.request("GET", "/_switchyard/metrics", &[], "").await;
    let want = format!(
        "switchyard_aws_metric_total{{namespace=\"AWS/Scheduler\",metric=\"{name}\",resource=\"{schedule}\"}} "
    );
    r.body
        .lines()
        .find_map(|l| l.strip_prefix(&want))
        .map(|n| n.parse().unwrap())
}

/// The hours and minutes each run of schedule `name` was due at, from the bodies it sent.
fn runs(got: &[Value], name: &str) -> Vec<String> {
    got.iter()
        .filter(|b| b["name"] == name)
        .map(|b| b["at"].as_str().unwrap()[11..16].to_string())
        .collect()
}

fn at_millis(time: &str) -> i64 {
    let at: jiff::Timestamp = time.parse().unwrap();
    at.as_millisecond()
}

#[tokio::test]
async fn rates_start_and_end_dates_states_updates_and_flexible_windows() {
    let h = Harness::start().await;
    let (url, arn) = queue(&h, "ticks").await;
    until(&h, "2027-10-01T00:00:00Z").await;
    let s = h.scheduler();
    let input = r#"{"name":"NAME","at":"<aws.scheduler.scheduled-time>"}"#;
    let date = |t: &str| aws_sdk_scheduler::primitives::DateTime::from_millis(at_millis(t));
    // Every 10 minutes from 01:00 until 01:55: 01:00 ... 01:50.
    let bounded = s
        .create_schedule()
        .name("bounded")
        .schedule_expression("rate(10 minutes)")
        .start_date(date("2027-10-01T01:00:00Z"))
        .end_date(date("2027-10-01T01:55:00Z"))
        .flexible_time_window(off())
        .target(
            target(&arn, &input.replace("NAME", "bounded"))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    // Disabled: nothing until it is updated to ENABLED.
    s.create_schedule()
        .name("paused")
        .state(ScheduleState::Disabled)
        .schedule_expression("cron(30 * * * ? *)")
        .flexible_time_window(off())
        .target(
            target(&arn, &input.replace("NAME", "paused"))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    // Flexible: delayed by a seeded draw inside its 15 minutes.
    let window = FlexibleTimeWindow::builder()
        .mode(FlexibleTimeWindowMode::Flexible)
        .maximum_window_in_minutes(15)
        .build()
        .unwrap();
    s.create_schedule()
        .name("flexible")
        .schedule_expression("at(2027-10-01T03:00:00)")
        .flexible_time_window(window)
        .target(
            target(&arn, &input.replace("NAME", "flexible"))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    until(&h, "2027-10-01T02:40:00Z").await;
    let got = bodies(&drain(&h, &url).await);
    assert_eq!(
        runs(&got, "bounded"),
        ["01:00", "01:10", "01:20", "01:30", "01:40", "01:50"]
    );
    assert!(runs(&got, "paused").is_empty());
    let schedule_arn = bounded.schedule_arn();
    assert_eq!(
        scheduler_metric(&h, "InvocationAttemptCount", schedule_arn).await,
        Some(6)
    );

    s.update_schedule()
        .name("paused")
        .state(ScheduleState::Enabled)
        .schedule_expression("cron(30 * * * ? *)")
        .flexible_time_window(off())
        .target(
            target(&arn, &input.replace("NAME", "paused"))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let updated = s.get_schedule().name("paused").send().await.unwrap();
    assert_eq!(updated.state(), Some(&ScheduleState::Enabled));
    until(&h, "2027-10-01T03:40:00Z").await;
    let messages = drain(&h, &url).await;
    let got = bodies(&messages);
    assert_eq!(runs(&got, "paused"), ["03:30"]);
    assert_eq!(runs(&got, "flexible"), ["03:00"]);
    assert!(runs(&got, "bounded").is_empty());
    // The flexible run's message was sent inside its window, after the time it was due.
    let flexible = messages
        .iter()
        .find(|m| m.body().unwrap().contains("flexible"))
        .unwrap();
    let sent = flexible.attributes().unwrap()
        [&aws_sdk_sqs::types::MessageSystemAttributeName::SentTimestamp]
        .parse::<i64>()
        .unwrap();
    let due = at_millis("2027-10-01T03:00:00Z");
    assert!((due..due + 15 * 60_000).contains(&sent), "{sent}");
}

#[tokio::test]
async fn topics_and_lambda_functions_are_targets_too() {
    let h = Harness::start().await;
    let (url, queue_arn) = queue(&h, "from-topic").await;
    let topic = h
        .sns()
        .create_topic()
        .name("alerts")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    h.sns()
        .subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(&queue_arn)
        .attributes("RawMessageDelivery", "true")
        .send()
        .await
        .unwrap();
    until(&h, "2027-11-01T00:00:00Z").await;
    let lambda = "arn:aws:lambda:us-east-1:000000000000:function:nightly";
    let s = h.scheduler();
    for (name, arn) in [("to-topic", topic.as_str()), ("to-lambda", lambda)] {
        s.create_schedule()
            .name(name)
            .schedule_expression("at(2027-11-01T00:05:00)")
            .flexible_time_window(off())
            .target(
                target(arn, r#"{"job":"<aws.scheduler.schedule-arn>"}"#)
                    .build()
                    .unwrap(),
            )
            .send()
            .await
            .unwrap();
    }
    until(&h, "2027-11-01T00:06:00Z").await;
    let published = bodies(&drain(&h, &url).await);
    let schedule = "arn:aws:scheduler:us-east-1:000000000000:schedule/default";
    assert_eq!(published, [json!({"job": format!("{schedule}/to-topic")})]);
    let outbox = h.control_get("outbox").await;
    let sent: Vec<&Value> = outbox["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["target"] == lambda)
        .collect();
    assert_eq!(sent.len(), 1, "{outbox}");
    let body: Value = serde_json::from_str(sent[0]["body"].as_str().unwrap()).unwrap();
    assert_eq!(body, json!({"job": format!("{schedule}/to-lambda")}));
}

#[tokio::test]
async fn a_custom_bus_and_a_lambda_function_behind_its_local_url_are_targets() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let kept = seen.clone();
    let app = axum::Router::new().route(
        "/invoke",
        axum::routing::post(move |body: String| async move {
            kept.lock()
                .unwrap()
                .push(serde_json::from_str(&body).unwrap());
            "{}"
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    let lambda = "arn:aws:lambda:us-east-1:000000000000:function:report";
    let h = Harness::with(switchyard::Config {
        lambda_endpoints: vec![(lambda.into(), format!("http://{addr}/invoke"))],
        ..switchyard::Config::for_tests()
    })
    .await;
    let (url, queue_arn) = queue(&h, "from-custom-bus").await;
    let bus = crate::custom_bus::bus(&h, "scheduled").await;
    crate::custom_bus::subscriber(&h, "to-queue", &bus, &queue_arn, json!({})).await;
    until(&h, "2027-12-01T00:00:00Z").await;
    let s = h.scheduler();
    let params = EventBridgeParameters::builder()
        .detail_type("Tick")
        .source("my.scheduler")
        .build()
        .unwrap();
    // Outside a string, the attempt number is a number.
    let input = r#"{"try": <aws.scheduler.attempt-number>}"#;
    s.create_schedule()
        .name("to-custom-bus")
        .schedule_expression("at(2027-12-01T00:01:00)")
        .flexible_time_window(off())
        .target(
            target(&bus, input)
                .event_bridge_parameters(params)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    s.create_schedule()
        .name("to-lambda")
        .schedule_expression("at(2027-12-01T00:01:00)")
        .flexible_time_window(off())
        .target(target(lambda, input).build().unwrap())
        .send()
        .await
        .unwrap();
    until(&h, "2027-12-01T00:02:00Z").await;
    let events = bodies(&drain(&h, &url).await);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["detail-type"], "Tick");
    assert_eq!(events[0]["source"], "my.scheduler");
    assert_eq!(events[0]["detail"], json!({"try": 1}));
    let schedule = "arn:aws:scheduler:us-east-1:000000000000:schedule/default/to-custom-bus";
    assert_eq!(events[0]["resources"], json!([schedule]));
    assert_eq!(seen.lock().unwrap().clone(), [json!({"try": 1})]);
}

/// When the run of a FLEXIBLE schedule due at 06:00 was delivered, on an emulator seeded `seed`.
async fn flexible_run_with_seed(seed: u64) -> Value {
    let h = Harness::with(switchyard::Config {
        seed: Some(seed),
        ..switchyard::Config::for_tests()
    })
    .await;
    let (_, arn) = queue(&h, "seeded").await;
    until(&h, "2028-01-01T00:00:00Z").await;
    let window = FlexibleTimeWindow::builder()
        .mode(FlexibleTimeWindowMode::Flexible)
        .maximum_window_in_minutes(60)
        .build()
        .unwrap();
    let created = h
        .scheduler()
        .create_schedule()
        .name("seeded")
        .schedule_expression("at(2028-01-01T06:00:00)")
        .flexible_time_window(window)
        .target(target(&arn, "x").build().unwrap())
        .send()
        .await
        .unwrap();
    until(&h, "2028-01-01T08:00:00Z").await;
    let source = created.schedule_arn();
    let log = h.control_get(&format!("deliveries?source={source}")).await;
    log["records"][0]["at"].clone()
}

#[tokio::test]
async fn a_flexible_window_draws_the_same_delay_from_the_same_seed() {
    let first = flexible_run_with_seed(7).await;
    assert_eq!(flexible_run_with_seed(7).await, first);
    assert!(first.as_str().unwrap() > "2028-01-01T06:00:00", "{first}");
    assert!(first.as_str().unwrap() < "2028-01-01T07:00:00", "{first}");
}

/// AWS (re:Post, "adjust for Daylight Saving Time"): a cron time the spring-forward skips does not
/// run that day; one the fall-back repeats runs once.
#[tokio::test]
async fn a_skipped_local_time_does_not_run_and_a_repeated_one_runs_once() {
    let h = Harness::start().await;
    let (url, arn) = queue(&h, "dst-edges").await;
    until(&h, "2027-03-12T00:00:00Z").await;
    let input = r#"{"at":"<aws.scheduler.scheduled-time>"}"#;
    let create = |name: &str, expression: &str| {
        h.scheduler()
            .create_schedule()
            .name(name)
            .schedule_expression(expression)
            .schedule_expression_timezone("America/New_York")
            .flexible_time_window(off())
            .target(target(&arn, input).build().unwrap())
            .send()
    };
    create("half-past-two", "cron(30 2 * * ? *)").await.unwrap();
    until(&h, "2027-03-16T00:00:00Z").await;
    let mut runs: Vec<String> = bodies(&drain(&h, &url).await)
        .iter()
        .map(|b| b["at"].as_str().unwrap().to_string())
        .collect();
    runs.sort();
    // 02:30 EST is 07:30Z; on 14 March 02:30 does not exist; 02:30 EDT is 06:30Z.
    assert_eq!(
        runs,
        [
            "2027-03-12T07:30:00Z",
            "2027-03-13T07:30:00Z",
            "2027-03-15T06:30:00Z"
        ]
    );
    h.scheduler()
        .delete_schedule()
        .name("half-past-two")
        .send()
        .await
        .unwrap();

    until(&h, "2027-11-06T00:00:00Z").await;
    create("half-past-one", "cron(30 1 * * ? *)").await.unwrap();
    until(&h, "2027-11-09T00:00:00Z").await;
    let mut runs: Vec<String> = bodies(&drain(&h, &url).await)
        .iter()
        .map(|b| b["at"].as_str().unwrap().to_string())
        .collect();
    runs.sort();
    // On 7 November 01:30 comes twice (05:30Z in EDT, 06:30Z in EST): one run, the first.
    assert_eq!(
        runs,
        [
            "2027-11-06T05:30:00Z",
            "2027-11-07T05:30:00Z",
            "2027-11-08T06:30:00Z"
        ]
    );
}
