//! Lambda's asynchronous invocations through the AWS SDK for Rust, on the manual clock: an
//! `Event` invocation's function errors retried one minute and then two minutes later with the
//! same request id, MaximumRetryAttempts and MaximumEventAgeInSeconds from the event invoke
//! configuration, the invocation records AWS sends to OnSuccess and OnFailure destinations,
//! and the dead-letter queue's message with its RequestID, ErrorCode and ErrorMessage. Then
//! SNS subscriptions and EventBridge rules invoking a real function.

use crate::harness::Harness;
use crate::lambda::zip_of;
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::{
    DeadLetterConfig, DestinationConfig, FunctionCode, InvocationType, OnFailure, OnSuccess,
    Runtime,
};
use serde_json::{Value, json};

const ROLE: &str = "arn:aws:iam::000000000000:role/lambda";

const PYTHON: &str = "import json\n\
def ok(event, context):\n    return {'seen': event, 'id': context.aws_request_id}\n\
def fails(event, context):\n    raise ValueError('no good: ' + json.dumps(event))\n";

pub async fn python_function(h: &Harness, name: &str, handler: &str, source: &str) -> String {
    let out = h
        .lambda()
        .create_function()
        .function_name(name)
        .role(ROLE)
        .runtime(Runtime::Python312)
        .handler(handler)
        .code(
            FunctionCode::builder()
                .zip_file(Blob::new(zip_of(&[("app.py", source)])))
                .build(),
        )
        .send()
        .await
        .unwrap();
    out.function_arn().unwrap().to_string()
}

pub async fn queue(h: &Harness, name: &str) -> (String, String) {
    let url = h
        .sqs()
        .create_queue()
        .queue_name(name)
        .send()
        .await
        .unwrap()
        .queue_url()
        .unwrap()
        .to_string();
    let arn = format!("arn:aws:sqs:us-east-1:000000000000:{name}");
    (url, arn)
}

/// The messages in the queue now (up to ten), deleted, bodies parsed, with their message
/// attributes.
pub async fn drain(h: &Harness, url: &str) -> Vec<(Value, Value)> {
    let out = h
        .sqs()
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .message_attribute_names("All")
        .send()
        .await
        .unwrap();
    for m in out.messages() {
        h.sqs()
            .delete_message()
            .queue_url(url)
            .receipt_handle(m.receipt_handle().unwrap())
            .send()
            .await
            .unwrap();
    }
    out.messages()
        .iter()
        .map(|m| {
            let body = serde_json::from_str(m.body().unwrap()).unwrap_or(json!(m.body()));
            let attributes: serde_json::Map<String, Value> = m
                .message_attributes()
                .map(|a| {
                    a.iter()
                        .map(|(k, v)| (k.clone(), json!(v.string_value())))
                        .collect()
                })
                .unwrap_or_default();
            (body, Value::Object(attributes))
        })
        .collect()
}

async fn invoke_event(h: &Harness, name: &str, payload: Value) {
    let out = h
        .lambda()
        .invoke()
        .function_name(name)
        .invocation_type(InvocationType::Event)
        .payload(Blob::new(payload.to_string()))
        .send()
        .await
        .unwrap();
    assert_eq!(out.status_code(), 202);
}

/// The delivery log's attempts at `target`.
/// Gives function `name` an event invoke config whose only setting is an OnSuccess destination.
async fn on_success(h: &Harness, name: &str, destination: &str) {
    h.lambda()
        .put_function_event_invoke_config()
        .function_name(name)
        .destination_config(
            DestinationConfig::builder()
                .on_success(OnSuccess::builder().destination(destination).build())
                .build(),
        )
        .send()
        .await
        .unwrap();
}

async fn attempts(h: &Harness, target: &str) -> Vec<Value> {
    let log = h.control_get("deliveries").await;
    log["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["target"] == target && r["event"] == "attempt")
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_failing_event_is_retried_after_one_then_two_minutes_and_reaches_its_destination_and_dlq()
{
    let h = Harness::start().await;
    let (failures_url, failures_arn) = queue(&h, "failures").await;
    let (dlq_url, dlq_arn) = queue(&h, "dead").await;
    let arn = python_function(&h, "bad", "app.fails", PYTHON).await;
    h.lambda()
        .update_function_configuration()
        .function_name("bad")
        .dead_letter_config(DeadLetterConfig::builder().target_arn(&dlq_arn).build())
        .send()
        .await
        .unwrap();
    h.lambda()
        .put_function_event_invoke_config()
        .function_name("bad")
        .destination_config(
            DestinationConfig::builder()
                .on_failure(OnFailure::builder().destination(&failures_arn).build())
                .build(),
        )
        .send()
        .await
        .unwrap();
    invoke_event(&h, "bad", json!({"n": 1})).await;
    h.advance(0.0).await;
    assert_eq!(attempts(&h, &arn).await.len(), 1);
    assert!(drain(&h, &failures_url).await.is_empty());
    h.advance(59.0).await;
    assert_eq!(
        attempts(&h, &arn).await.len(),
        1,
        "the retry waits a minute"
    );
    h.advance(1.0).await;
    assert_eq!(attempts(&h, &arn).await.len(), 2);
    h.advance(119.0).await;
    assert_eq!(
        attempts(&h, &arn).await.len(),
        2,
        "the second retry waits two minutes"
    );
    h.advance(1.0).await;
    let tries = attempts(&h, &arn).await;
    assert_eq!(tries.len(), 3);
    let ids: Vec<&Value> = tries.iter().map(|t| &t["messageId"]).collect();
    assert!(
        ids.iter().all(|id| *id == ids[0]),
        "one request id: {ids:?}"
    );
    assert!(
        tries.iter().all(|t| t["errorCode"] == "Unhandled"),
        "{tries:?}"
    );

    let records = drain(&h, &failures_url).await;
    assert_eq!(records.len(), 1);
    let record = &records[0].0;
    assert_eq!(record["version"], "1.0");
    assert_eq!(record["requestContext"]["condition"], "RetriesExhausted");
    assert_eq!(record["requestContext"]["approximateInvokeCount"], 3);
    assert_eq!(record["requestContext"]["functionArn"], json!(arn));
    assert_eq!(record["requestContext"]["requestId"], *ids[0]);
    assert_eq!(record["requestPayload"], json!({"n": 1}));
    assert_eq!(record["responseContext"]["statusCode"], 200);
    assert_eq!(record["responseContext"]["executedVersion"], "$LATEST");
    assert_eq!(record["responseContext"]["functionError"], "Unhandled");
    assert_eq!(record["responsePayload"]["errorType"], "ValueError");
    assert_eq!(
        record["responsePayload"]["errorMessage"],
        "no good: {\"n\": 1}"
    );

    let dead = drain(&h, &dlq_url).await;
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].0, json!({"n": 1}));
    assert_eq!(dead[0].1["RequestID"], *ids[0]);
    assert_eq!(dead[0].1["ErrorCode"], "200");
    assert_eq!(dead[0].1["ErrorMessage"], "no good: {\"n\": 1}");
}

#[tokio::test]
async fn a_successful_event_sends_its_record_to_on_success_and_retries_follow_the_config() {
    let h = Harness::start().await;
    let (ok_url, ok_arn) = queue(&h, "successes").await;
    let (fail_url, fail_arn) = queue(&h, "failures").await;
    python_function(&h, "good", "app.ok", PYTHON).await;
    let bad = python_function(&h, "bad", "app.fails", PYTHON).await;
    for name in ["good", "bad"] {
        let out = h
            .lambda()
            .put_function_event_invoke_config()
            .function_name(name)
            .maximum_retry_attempts(0)
            .maximum_event_age_in_seconds(600)
            .destination_config(
                DestinationConfig::builder()
                    .on_success(OnSuccess::builder().destination(&ok_arn).build())
                    .on_failure(OnFailure::builder().destination(&fail_arn).build())
                    .build(),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(out.maximum_retry_attempts(), Some(0));
        assert!(
            out.function_arn()
                .unwrap()
                .ends_with(&format!("{name}:$LATEST"))
        );
    }
    let got = h
        .lambda()
        .get_function_event_invoke_config()
        .function_name("good")
        .send()
        .await
        .unwrap();
    assert_eq!(got.maximum_event_age_in_seconds(), Some(600));
    let listed = h
        .lambda()
        .list_function_event_invoke_configs()
        .function_name("good")
        .send()
        .await
        .unwrap();
    assert_eq!(listed.function_event_invoke_configs().len(), 1);

    invoke_event(&h, "good", json!({"k": "v"})).await;
    invoke_event(&h, "bad", json!({"k": "w"})).await;
    h.advance(0.0).await;
    let successes = drain(&h, &ok_url).await;
    assert_eq!(successes.len(), 1);
    let record = &successes[0].0;
    assert_eq!(record["requestContext"]["condition"], "Success");
    assert_eq!(record["requestContext"]["approximateInvokeCount"], 1);
    assert_eq!(record["responseContext"]["statusCode"], 200);
    assert!(record["responseContext"].get("functionError").is_none());
    assert_eq!(record["responsePayload"]["seen"], json!({"k": "v"}));
    assert_eq!(
        record["responsePayload"]["id"],
        record["requestContext"]["requestId"]
    );
    // No retries: the failure's record at once.
    let failures = drain(&h, &fail_url).await;
    assert_eq!(failures.len(), 1);
    assert_eq!(
        failures[0].0["requestContext"]["condition"],
        "RetriesExhausted"
    );
    assert_eq!(attempts(&h, &bad).await.len(), 1);

    // An update changes only what it names; a delete leaves the defaults.
    let updated = h
        .lambda()
        .update_function_event_invoke_config()
        .function_name("bad")
        .maximum_retry_attempts(1)
        .send()
        .await
        .unwrap();
    assert_eq!(updated.maximum_event_age_in_seconds(), Some(600));
    h.lambda()
        .delete_function_event_invoke_config()
        .function_name("bad")
        .send()
        .await
        .unwrap();
    let err = h
        .lambda()
        .get_function_event_invoke_config()
        .function_name("bad")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.into_service_error().meta().code(),
        Some("ResourceNotFoundException")
    );
}

#[tokio::test]
async fn event_invoke_configs_refuse_what_aws_refuses() {
    let h = Harness::start().await;
    python_function(&h, "f", "app.ok", PYTHON).await;
    let code = |e: aws_sdk_lambda::error::SdkError<_, _>| {
        let e: aws_sdk_lambda::operation::put_function_event_invoke_config::PutFunctionEventInvokeConfigError = e.into_service_error();
        e.meta().code().map(str::to_string)
    };
    let e = h
        .lambda()
        .put_function_event_invoke_config()
        .function_name("f")
        .maximum_retry_attempts(3)
        .send()
        .await
        .unwrap_err();
    assert_eq!(code(e).as_deref(), Some("ValidationException"));
    let e = h
        .lambda()
        .put_function_event_invoke_config()
        .function_name("f")
        .maximum_event_age_in_seconds(59)
        .send()
        .await
        .unwrap_err();
    assert_eq!(code(e).as_deref(), Some("ValidationException"));
    let e = h
        .lambda()
        .put_function_event_invoke_config()
        .function_name("f")
        .destination_config(
            DestinationConfig::builder()
                .on_success(
                    OnSuccess::builder()
                        .destination("arn:aws:s3:::bucket")
                        .build(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(code(e).as_deref(), Some("InvalidParameterValueException"));
    let e = h
        .lambda()
        .put_function_event_invoke_config()
        .function_name("missing")
        .maximum_retry_attempts(1)
        .send()
        .await
        .unwrap_err();
    assert_eq!(code(e).as_deref(), Some("ResourceNotFoundException"));
    // An event for a function that does not exist is refused at once.
    let e = h
        .lambda()
        .invoke()
        .function_name("missing")
        .invocation_type(InvocationType::Event)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        e.into_service_error().meta().code(),
        Some("ResourceNotFoundException")
    );
}

#[tokio::test]
async fn sns_subscriptions_and_rule_targets_invoke_the_function() {
    let h = Harness::start().await;
    let (ok_url, ok_arn) = queue(&h, "seen").await;
    let arn = python_function(&h, "sink", "app.ok", PYTHON).await;
    on_success(&h, "sink", &ok_arn).await;
    let topic = h
        .sns()
        .create_topic()
        .name("news")
        .send()
        .await
        .unwrap()
        .topic_arn()
        .unwrap()
        .to_string();
    h.sns()
        .subscribe()
        .topic_arn(&topic)
        .protocol("lambda")
        .endpoint(&arn)
        .send()
        .await
        .unwrap();
    h.sns()
        .publish()
        .topic_arn(&topic)
        .message("hello")
        .subject("greeting")
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    let seen = drain(&h, &ok_url).await;
    assert_eq!(seen.len(), 1);
    let event = &seen[0].0["responsePayload"]["seen"];
    let record = &event["Records"][0];
    assert_eq!(record["EventSource"], "aws:sns");
    assert_eq!(record["Sns"]["Message"], "hello");
    assert_eq!(record["Sns"]["Subject"], "greeting");
    assert_eq!(record["Sns"]["TopicArn"], json!(topic));
    // Nothing went to the outbox: a function ran.
    let outbox = h.control_get("outbox").await;
    assert_eq!(
        outbox["messages"].as_array().map(Vec::len),
        Some(0),
        "{outbox}"
    );

    h.events()
        .put_rule()
        .name("all")
        .event_pattern(r#"{"source":["app"]}"#)
        .send()
        .await
        .unwrap();
    h.events()
        .put_targets()
        .rule("all")
        .targets(
            aws_sdk_eventbridge::types::Target::builder()
                .id("fn")
                .arn(&arn)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    h.events()
        .put_events()
        .entries(
            aws_sdk_eventbridge::types::PutEventsRequestEntry::builder()
                .source("app")
                .detail_type("thing")
                .detail(r#"{"size": 3}"#)
                .build(),
        )
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    let seen = drain(&h, &ok_url).await;
    assert_eq!(seen.len(), 1);
    let event = &seen[0].0["responsePayload"]["seen"];
    assert_eq!(event["source"], "app");
    assert_eq!(event["detail"], json!({"size": 3}));
}

#[tokio::test]
async fn pipes_enrich_with_a_function_and_schedules_invoke_one() {
    let h = Harness::start().await;
    let (src_url, src_arn) = queue(&h, "src").await;
    let (dst_url, dst_arn) = queue(&h, "dst").await;
    let (ok_url, ok_arn) = queue(&h, "ok").await;
    let source = "import json\n\
def enrich(event, context):\n    return [{'upper': json.loads(r['body'])['name'].upper()} for r in event]\n\
def ok(event, context):\n    return {'seen': event}\n";
    let enricher = python_function(&h, "enricher", "app.enrich", source).await;
    let pipes = crate::pipes::pipes(&h);
    pipes
        .create_pipe()
        .name("p")
        .source(&src_arn)
        .enrichment(&enricher)
        .target(&dst_arn)
        .role_arn(ROLE)
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    h.sqs()
        .send_message()
        .queue_url(&src_url)
        .message_body(r#"{"name": "ada"}"#)
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    let got = drain(&h, &dst_url).await;
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, json!({"upper": "ADA"}));

    python_function(&h, "scheduled", "app.ok", source).await;
    on_success(&h, "scheduled", &ok_arn).await;
    let now = h.control_get("clock").await["now"]
        .as_str()
        .unwrap()
        .to_string();
    let at = chrono_like_plus_minute(&now);
    h.scheduler()
        .create_schedule()
        .name("tick")
        .schedule_expression(format!("at({at})"))
        .flexible_time_window(
            aws_sdk_scheduler::types::FlexibleTimeWindow::builder()
                .mode(aws_sdk_scheduler::types::FlexibleTimeWindowMode::Off)
                .build()
                .unwrap(),
        )
        .target(
            aws_sdk_scheduler::types::Target::builder()
                .arn("arn:aws:lambda:us-east-1:000000000000:function:scheduled")
                .role_arn(ROLE)
                .input(r#"{"from": "scheduler"}"#)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    h.advance(120.0).await;
    let got = drain(&h, &ok_url).await;
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0].0["responsePayload"]["seen"],
        json!({"from": "scheduler"})
    );
}

/// `2027-01-01T10:00:00.000Z` → `2027-01-01T10:01:00`, a Scheduler `at()` a minute later.
fn chrono_like_plus_minute(now: &str) -> String {
    let (date, time) = now.split_once('T').unwrap();
    let h: u32 = time[0..2].parse().unwrap();
    let m: u32 = time[3..5].parse().unwrap();
    assert!(
        h < 23 || m < 58,
        "the test assumes the start is not at midnight: {now}"
    );
    let (h, m) = if m == 59 { (h + 1, 0) } else { (h, m + 1) };
    format!("{date}T{h:02}:{m:02}:00")
}

#[tokio::test]
async fn with_enforced_policies_a_topic_invokes_only_a_function_that_permits_it() {
    let h = Harness::with(switchyard::Config {
        enforce_policies: true,
        ..switchyard::Config::for_tests()
    })
    .await;
    let (ok_url, ok_arn) = queue(&h, "seen").await;
    let arn = python_function(&h, "sink", "app.ok", PYTHON).await;
    on_success(&h, "sink", &ok_arn).await;
    let topic = h
        .sns()
        .create_topic()
        .name("news")
        .send()
        .await
        .unwrap()
        .topic_arn()
        .unwrap()
        .to_string();
    h.sns()
        .subscribe()
        .topic_arn(&topic)
        .protocol("lambda")
        .endpoint(&arn)
        .send()
        .await
        .unwrap();
    let publish = || h.sns().publish().topic_arn(&topic).message("hi").send();
    publish().await.unwrap();
    h.advance(0.0).await;
    assert!(drain(&h, &ok_url).await.is_empty());
    let refused = attempts(&h, &arn).await;
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0]["errorCode"], "AccessDeniedException");

    h.lambda()
        .add_permission()
        .function_name("sink")
        .statement_id("from-news")
        .action("lambda:InvokeFunction")
        .principal("sns.amazonaws.com")
        .source_arn(&topic)
        .send()
        .await
        .unwrap();
    publish().await.unwrap();
    h.advance(0.0).await;
    let seen = drain(&h, &ok_url).await;
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].0["responsePayload"]["seen"]["Records"][0]["Sns"]["Message"],
        "hi"
    );
}

#[tokio::test]
async fn custom_bus_subscribers_and_event_streams_invoke_the_function() {
    let h = Harness::start().await;
    let (ok_url, ok_arn) = queue(&h, "seen").await;
    let arn = python_function(&h, "sink", "app.ok", PYTHON).await;
    on_success(&h, "sink", &ok_arn).await;
    let bus = crate::custom_bus::bus(&h, "orders").await;
    crate::custom_bus::subscriber(&h, "fn", &bus, &arn, json!({})).await;
    crate::custom_bus::put(
        &h,
        &bus,
        json!([crate::custom_bus::entry(json!({"n": 1}), None)]),
    )
    .await;
    h.advance(0.0).await;
    let seen = drain(&h, &ok_url).await;
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(
        seen[0].0["responsePayload"]["seen"]["detail"],
        json!({"n": 1})
    );

    let (src_url, src_arn) = queue(&h, "src").await;
    crate::event_streams::stream(&h, "s", &src_arn, &arn, json!({})).await;
    h.advance(1.0).await;
    h.sqs()
        .send_message()
        .queue_url(&src_url)
        .message_body("streamed")
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    let seen = drain(&h, &ok_url).await;
    assert_eq!(seen.len(), 1, "{seen:?}");
    // The message's body, not JSON, is handed to the function as a JSON string.
    assert_eq!(seen[0].0["responsePayload"]["seen"], "streamed");
}

#[tokio::test]
async fn a_throttled_event_backs_off_until_its_maximum_age_then_fails_with_event_age_exceeded() {
    let h = Harness::start().await;
    let (fail_url, fail_arn) = queue(&h, "failures").await;
    let arn = python_function(&h, "held", "app.ok", PYTHON).await;
    h.lambda()
        .put_function_concurrency()
        .function_name("held")
        .reserved_concurrent_executions(0)
        .send()
        .await
        .unwrap();
    h.lambda()
        .put_function_event_invoke_config()
        .function_name("held")
        .maximum_event_age_in_seconds(60)
        .destination_config(
            DestinationConfig::builder()
                .on_failure(OnFailure::builder().destination(&fail_arn).build())
                .build(),
        )
        .send()
        .await
        .unwrap();
    invoke_event(&h, "held", json!({"late": true})).await;
    h.advance(60.0).await;
    let tries = attempts(&h, &arn).await;
    // 0, 1, 3, 7, 15, 31 s: the next wait (32 s) would pass the event's 60 s.
    assert_eq!(tries.len(), 6, "{tries:?}");
    assert!(
        tries.iter().all(|t| t["outcome"] == "retryable"),
        "{tries:?}"
    );
    let failures = drain(&h, &fail_url).await;
    assert_eq!(failures.len(), 1);
    let record = &failures[0].0;
    assert_eq!(record["requestContext"]["condition"], "EventAgeExceeded");
    assert_eq!(record["requestContext"]["approximateInvokeCount"], 6);
    assert_eq!(record["responseContext"]["statusCode"], 429);
    assert!(record["responseContext"].get("functionError").is_none());
}
