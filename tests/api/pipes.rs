//! EventBridge Pipes through the AWS SDK for Rust (restJson1): a queue read in batches on the
//! manual clock, filters, a failing target left to the queue's redrive policy, Lambda partial
//! batch failures and enrichment through a local invoke URL, templates, states, and bad input.

use crate::harness::Harness;
use aws_sdk_pipes::error::ProvideErrorMetadata;
use aws_sdk_pipes::operation::create_pipe::CreatePipeError;
use aws_sdk_pipes::types::{
    Filter, FilterCriteria, PipeEnrichmentParameters, PipeSourceParameters,
    PipeSourceSqsQueueParameters, PipeState, PipeTargetParameters, RequestedPipeState,
};
use aws_sdk_sqs::types::QueueAttributeName;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use switchyard::Config;

const ROLE: &str = "arn:aws:iam::000000000000:role/pipe";

pub fn pipes(h: &Harness) -> aws_sdk_pipes::Client {
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

fn arn(name: &str) -> String {
    format!("arn:aws:sqs:us-east-1:000000000000:{name}")
}

/// Creates queue `name` with `attributes`: its URL.
async fn queue(h: &Harness, name: &str, attributes: &[(QueueAttributeName, String)]) -> String {
    let mut req = h.sqs().create_queue().queue_name(name);
    for (k, v) in attributes {
        req = req.attributes(k.clone(), v.clone());
    }
    req.send().await.unwrap().queue_url.unwrap()
}

async fn send(h: &Harness, url: &str, body: &str) {
    h.sqs()
        .send_message()
        .queue_url(url)
        .message_body(body)
        .send()
        .await
        .unwrap();
}

/// Every message of the queue now (received and deleted), bodies in order received.
async fn drain(h: &Harness, url: &str) -> Vec<String> {
    let out = h
        .sqs()
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    let mut bodies = Vec::new();
    for m in out.messages.unwrap_or_default() {
        h.sqs()
            .delete_message()
            .queue_url(url)
            .receipt_handle(m.receipt_handle.unwrap())
            .send()
            .await
            .unwrap();
        bodies.push(m.body.unwrap());
    }
    bodies
}

/// (visible, not visible) messages of the queue.
async fn counts(h: &Harness, url: &str) -> (String, String) {
    let out = h
        .sqs()
        .get_queue_attributes()
        .queue_url(url)
        .attribute_names(QueueAttributeName::All)
        .send()
        .await
        .unwrap();
    let attrs = out.attributes.unwrap();
    let get = |k: QueueAttributeName| attrs[&k].clone();
    (
        get(QueueAttributeName::ApproximateNumberOfMessages),
        get(QueueAttributeName::ApproximateNumberOfMessagesNotVisible),
    )
}

async fn current(h: &Harness, name: &str) -> PipeState {
    let out = pipes(h).describe_pipe().name(name).send().await.unwrap();
    out.current_state.unwrap()
}

fn sqs_source(batch: i32, window: i32) -> PipeSourceParameters {
    PipeSourceParameters::builder()
        .sqs_queue_parameters(
            PipeSourceSqsQueueParameters::builder()
                .batch_size(batch)
                .maximum_batching_window_in_seconds(window)
                .build(),
        )
        .build()
}

#[tokio::test]
async fn a_queue_feeds_a_queue_in_batches_on_the_manual_clock() {
    let h = Harness::start().await;
    let src = queue(&h, "src", &[]).await;
    let dst = queue(&h, "dst", &[]).await;
    let out = pipes(&h)
        .create_pipe()
        .name("p")
        .source(arn("src"))
        .target(arn("dst"))
        .role_arn(ROLE)
        .source_parameters(sqs_source(3, 20))
        .send()
        .await
        .unwrap();
    assert_eq!(out.current_state, Some(PipeState::Creating));
    assert_eq!(
        out.arn.as_deref(),
        Some("arn:aws:pipes:us-east-1:000000000000:pipe/p")
    );
    h.advance(1.0).await;
    assert_eq!(current(&h, "p").await, PipeState::Running);
    send(&h, &src, "a").await;
    send(&h, &src, r#"{"n": 2}"#).await;
    h.advance(19.0).await;
    assert!(
        drain(&h, &dst).await.is_empty(),
        "the batching window is open"
    );
    assert_eq!(counts(&h, &src).await, ("2".into(), "0".into()));
    h.advance(1.0).await;
    let records: Vec<Value> = drain(&h, &dst)
        .await
        .iter()
        .map(|b| serde_json::from_str(b).unwrap())
        .collect();
    assert_eq!(records.len(), 2);
    let r = &records[1];
    assert_eq!(r["body"], r#"{"n": 2}"#, "the body as sent, a string");
    assert_eq!(r["eventSource"], "aws:sqs");
    assert_eq!(r["eventSourceARN"], arn("src").as_str());
    assert_eq!(r["awsRegion"], "us-east-1");
    assert_eq!(r["attributes"]["ApproximateReceiveCount"], "1");
    for key in ["messageId", "receiptHandle", "md5OfBody"] {
        assert!(r[key].as_str().is_some_and(|v| !v.is_empty()), "{key}");
    }
    assert_eq!(
        counts(&h, &src).await,
        ("0".into(), "0".into()),
        "deleted once delivered"
    );
    let log = h
        .control_get("deliveries?source=arn:aws:pipes:us-east-1:000000000000:pipe/p")
        .await;
    let delivered = log["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["outcome"] == "delivered")
        .count();
    assert_eq!(delivered, 2);
}

#[tokio::test]
async fn filtered_out_messages_are_deleted_and_templates_shape_the_rest() {
    let h = Harness::start().await;
    let src = queue(&h, "src", &[]).await;
    let dst = queue(&h, "dst", &[]).await;
    let filter = Filter::builder()
        .pattern(r#"{"body": {"kind": ["order"]}}"#)
        .build();
    let source = PipeSourceParameters::builder()
        .filter_criteria(FilterCriteria::builder().filters(filter).build())
        .build();
    pipes(&h)
        .create_pipe()
        .name("orders")
        .source(arn("src"))
        .target(arn("dst"))
        .role_arn(ROLE)
        .source_parameters(source)
        .target_parameters(
            PipeTargetParameters::builder()
                .input_template(r#"{"order": <$.body.id>, "by": "<aws.pipes.pipe-name>", "raw": "<$.body.id>"}"#)
                .build(),
        )
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    send(&h, &src, r#"{"kind": "order", "id": 7}"#).await;
    send(&h, &src, r#"{"kind": "noise", "id": 8}"#).await;
    send(&h, &src, "plain text").await;
    assert_eq!(
        drain(&h, &dst).await,
        [r#"{"order":7,"by":"orders","raw":"7"}"#]
    );
    assert_eq!(counts(&h, &src).await, ("0".into(), "0".into()));
}

#[tokio::test]
async fn a_failing_target_leaves_the_message_to_the_queues_redrive_policy() {
    let h = Harness::start().await;
    let dlq = queue(&h, "dlq", &[]).await;
    let redrive = json!({"deadLetterTargetArn": arn("dlq"), "maxReceiveCount": "2"}).to_string();
    let src = queue(
        &h,
        "src",
        &[
            (QueueAttributeName::VisibilityTimeout, "30".into()),
            (QueueAttributeName::RedrivePolicy, redrive),
        ],
    )
    .await;
    queue(&h, "dst", &[]).await;
    pipes(&h)
        .create_pipe()
        .name("p")
        .source(arn("src"))
        .target(arn("dst"))
        .role_arn(ROLE)
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    let fault = json!({"target": arn("dst"), "status": 500});
    assert_eq!(h.control_post("faults", fault).await.status, 201);
    send(&h, &src, "m").await;
    assert_eq!(
        counts(&h, &src).await,
        ("0".into(), "1".into()),
        "held, not deleted"
    );
    h.advance(29.0).await;
    assert_eq!(counts(&h, &src).await, ("0".into(), "1".into()));
    h.advance(1.0).await;
    assert_eq!(
        counts(&h, &src).await,
        ("0".into(), "1".into()),
        "the second receive"
    );
    assert!(drain(&h, &dlq).await.is_empty());
    h.advance(30.0).await;
    assert_eq!(counts(&h, &src).await, ("0".into(), "0".into()));
    assert_eq!(drain(&h, &dlq).await, ["m"], "the third receive moved it");
    let log = h
        .control_get("deliveries?source=arn:aws:pipes:us-east-1:000000000000:pipe/p")
        .await;
    let failed: Vec<&Value> = log["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["outcome"] == "retryable")
        .collect();
    assert_eq!(failed.len(), 2, "{log}");
    assert_eq!(failed[0]["status"], 500);
}

/// An HTTP answer of JSON text.
fn json_answer(v: Value) -> ([(&'static str, &'static str); 1], String) {
    ([("content-type", "application/json")], v.to_string())
}

/// A local Lambda endpoint: `/enrich` answers each record as `{"id": <body>}`; `/target` fails
/// the records whose body is `bad` (batchItemFailures). Every request body is kept.
async fn lambda() -> (String, Arc<Mutex<Vec<Value>>>, tokio::task::JoinHandle<()>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (enrich_seen, target_seen) = (seen.clone(), seen.clone());
    let app = axum::Router::new()
        .route(
            "/enrich",
            axum::routing::post(move |body: String| async move {
                let batch: Value = serde_json::from_str(&body).unwrap();
                enrich_seen.lock().unwrap().push(batch.clone());
                let out: Vec<Value> = batch
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| json!({"id": r["body"], "messageId": r["messageId"]}))
                    .collect();
                json_answer(Value::Array(out))
            }),
        )
        .route(
            "/target",
            axum::routing::post(move |body: String| async move {
                let batch: Value = serde_json::from_str(&body).unwrap();
                target_seen.lock().unwrap().push(batch.clone());
                let failures: Vec<Value> = batch
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|r| r["body"] == "bad" || r["id"] == "bad")
                    .map(|r| json!({"itemIdentifier": r["messageId"]}))
                    .collect();
                json_answer(json!({"batchItemFailures": failures}))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (format!("http://{addr}"), seen, task)
}

#[tokio::test]
async fn a_lambda_enrichment_and_target_with_partial_batch_failures() {
    let (url, seen, task) = lambda().await;
    let enrich = "arn:aws:lambda:us-east-1:000000000000:function:enrich";
    let target = "arn:aws:lambda:us-east-1:000000000000:function:target";
    let h = Harness::with(Config {
        lambda_endpoints: vec![
            (enrich.into(), format!("{url}/enrich")),
            (target.into(), format!("{url}/target")),
        ],
        ..Config::for_tests()
    })
    .await;
    let src = queue(
        &h,
        "src",
        &[(QueueAttributeName::VisibilityTimeout, "60".into())],
    )
    .await;
    pipes(&h)
        .create_pipe()
        .name("p")
        .source(arn("src"))
        .enrichment(enrich)
        .enrichment_parameters(
            PipeEnrichmentParameters::builder()
                .input_template(r#"{"body": <$.body>, "messageId": <$.messageId>}"#)
                .build(),
        )
        .target(target)
        .role_arn(ROLE)
        .source_parameters(sqs_source(3, 5))
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    for body in ["ok", "bad", "fine"] {
        send(&h, &src, body).await;
    }
    h.advance(0.0).await;
    let calls = seen.lock().unwrap().clone();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(
        calls[0][1]["body"], "bad",
        "the enrichment got the templated records"
    );
    assert_eq!(
        calls[1][1],
        json!({"id": "bad", "messageId": calls[0][1]["messageId"]})
    );
    // Only the message the function named stays, hidden until its visibility timeout ends.
    assert_eq!(counts(&h, &src).await, ("0".into(), "1".into()));
    // Visible again at 60 s, it opens a batching window of 5 s.
    h.advance(60.0).await;
    assert_eq!(seen.lock().unwrap().len(), 2);
    h.advance(5.0).await;
    let calls = seen.lock().unwrap().clone();
    assert_eq!(calls.len(), 4, "the failed message came back alone");
    assert_eq!(calls[3].as_array().unwrap().len(), 1);
    assert_eq!(calls[3][0]["id"], "bad");
    task.abort();
}

#[tokio::test]
async fn states_stop_start_list_and_tags() {
    let h = Harness::start().await;
    let src = queue(&h, "src", &[]).await;
    let dst = queue(&h, "dst", &[]).await;
    let client = pipes(&h);
    for name in ["a1", "a2", "b1"] {
        client
            .create_pipe()
            .name(name)
            .source(arn("src"))
            .target(arn("dst"))
            .role_arn(ROLE)
            .desired_state(if name == "b1" {
                RequestedPipeState::Stopped
            } else {
                RequestedPipeState::Running
            })
            .tags("team", "blue")
            .send()
            .await
            .unwrap();
    }
    h.advance(1.0).await;
    assert_eq!(current(&h, "b1").await, PipeState::Stopped);
    let out = client.stop_pipe().name("a2").send().await.unwrap();
    assert_eq!(out.current_state, Some(PipeState::Stopping));
    let names = |out: aws_sdk_pipes::operation::list_pipes::ListPipesOutput| -> Vec<String> {
        out.pipes
            .unwrap_or_default()
            .into_iter()
            .map(|p| p.name.unwrap())
            .collect()
    };
    let listed = client.list_pipes().name_prefix("a").send().await.unwrap();
    assert_eq!(names(listed), ["a1", "a2"]);
    let listed = client
        .list_pipes()
        .current_state(PipeState::Stopping)
        .send()
        .await
        .unwrap();
    assert_eq!(names(listed), ["a2"]);
    let page = client.list_pipes().limit(2).send().await.unwrap();
    let token = page.next_token.clone().unwrap();
    assert_eq!(names(page), ["a1", "a2"]);
    let rest = client
        .list_pipes()
        .limit(2)
        .next_token(token)
        .send()
        .await
        .unwrap();
    assert_eq!(names(rest), ["b1"]);
    h.advance(1.0).await;
    assert_eq!(current(&h, "a2").await, PipeState::Stopped);
    // A stopped pipe leaves the queue alone; started again, it moves what waited.
    client.stop_pipe().name("a1").send().await.unwrap();
    h.advance(1.0).await;
    send(&h, &src, "waiting").await;
    assert!(drain(&h, &dst).await.is_empty());
    client.start_pipe().name("a1").send().await.unwrap();
    assert_eq!(current(&h, "a1").await, PipeState::Starting);
    h.advance(1.0).await;
    assert_eq!(drain(&h, &dst).await.len(), 1);
    let pipe_arn = "arn:aws:pipes:us-east-1:000000000000:pipe/a1";
    client
        .tag_resource()
        .resource_arn(pipe_arn)
        .tags("env", "test")
        .send()
        .await
        .unwrap();
    client
        .untag_resource()
        .resource_arn(pipe_arn)
        .tag_keys("team")
        .send()
        .await
        .unwrap();
    let tags = client
        .list_tags_for_resource()
        .resource_arn(pipe_arn)
        .send()
        .await
        .unwrap()
        .tags
        .unwrap();
    assert_eq!(tags.len(), 1);
    assert_eq!(tags["env"], "test");
    client.delete_pipe().name("a1").send().await.unwrap();
    assert_eq!(current(&h, "a1").await, PipeState::Deleting);
    h.advance(1.0).await;
    let gone = client.describe_pipe().name("a1").send().await.unwrap_err();
    assert_eq!(gone.code(), Some("NotFoundException"));
}

#[tokio::test]
async fn a_missing_target_fails_the_pipe_with_a_reason() {
    let h = Harness::start().await;
    queue(&h, "src", &[]).await;
    pipes(&h)
        .create_pipe()
        .name("p")
        .source(arn("src"))
        .target(arn("nowhere"))
        .role_arn(ROLE)
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    let out = pipes(&h).describe_pipe().name("p").send().await.unwrap();
    assert_eq!(out.current_state, Some(PipeState::CreateFailed));
    assert!(out.state_reason.unwrap().contains(&arn("nowhere")));
}

#[tokio::test]
async fn bad_input_gets_pipes_errors() {
    let h = Harness::start().await;
    queue(&h, "src", &[]).await;
    queue(&h, "dst", &[]).await;
    let client = pipes(&h);
    let create = || {
        client
            .create_pipe()
            .name("p")
            .source(arn("src"))
            .target(arn("dst"))
            .role_arn(ROLE)
    };
    let err = create()
        .source_parameters(sqs_source(0, 0))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"));
    assert!(
        err.message()
            .unwrap()
            .contains("'sourceParameters.sqsQueueParameters.batchSize'"),
        "{err:?}"
    );
    // The model's fieldList names the member too.
    let CreatePipeError::ValidationException(invalid) = err.into_service_error() else {
        panic!("not a ValidationException");
    };
    let fields = invalid.field_list();
    assert_eq!(fields.len(), 1, "{invalid:?}");
    assert_eq!(
        fields[0].name(),
        "sourceParameters.sqsQueueParameters.batchSize"
    );
    assert!(fields[0].message().contains("greater than or equal to 1"));
    let err = create()
        .source_parameters(sqs_source(100, 0))
        .send()
        .await
        .unwrap_err();
    assert!(
        err.message()
            .unwrap()
            .contains("maximumBatchingWindowInSeconds")
    );
    let err = create().role_arn("not-a-role").send().await.unwrap_err();
    assert!(err.message().unwrap().contains("'roleArn'"), "{err:?}");
    let err = create()
        .source("arn:aws:kinesis:us-east-1:000000000000:stream/s")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"));
    create().send().await.unwrap();
    let err = create().send().await.unwrap_err();
    assert_eq!(err.code(), Some("ConflictException"));
    let CreatePipeError::ConflictException(conflict) = err.into_service_error() else {
        panic!("not a ConflictException");
    };
    assert_eq!(conflict.resource_id(), "p");
    assert_eq!(conflict.resource_type(), "pipe");
    let err = client.start_pipe().name("p").send().await.unwrap_err();
    assert_eq!(err.code(), Some("ConflictException"), "still CREATING");
    let err = client
        .update_pipe()
        .name("p")
        .role_arn(ROLE)
        .description("changed while CREATING")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ConflictException"), "still CREATING");
    assert!(err.message().unwrap().contains("CREATING"), "{err:?}");
    let err = client.delete_pipe().name("p").send().await.unwrap_err();
    assert_eq!(err.code(), Some("ConflictException"), "still CREATING");
    h.advance(1.0).await;
    let err = client.start_pipe().name("p").send().await.unwrap_err();
    assert_eq!(err.code(), Some("ConflictException"), "already RUNNING");
    let err = client.stop_pipe().name("none").send().await.unwrap_err();
    assert_eq!(err.code(), Some("NotFoundException"));
    let err = client
        .update_pipe()
        .name("none")
        .role_arn(ROLE)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("NotFoundException"));
    let err = client
        .describe_pipe()
        .name("none")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("NotFoundException"));
    let err = client
        .list_tags_for_resource()
        .resource_arn("arn:aws:pipes:us-east-1:000000000000:pipe/none")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("NotFoundException"));
    h.assert_alive().await;
}

#[tokio::test]
async fn an_account_holds_at_most_a_thousand_pipes() {
    let h = Harness::start().await;
    queue(&h, "src", &[]).await;
    queue(&h, "dst", &[]).await;
    let client = pipes(&h);
    let create = |name: String| {
        client
            .create_pipe()
            .name(name)
            .source(arn("src"))
            .target(arn("dst"))
            .role_arn(ROLE)
            .desired_state(RequestedPipeState::Stopped)
            .send()
    };
    for n in 0..1000 {
        create(format!("p{n}")).await.unwrap();
    }
    let err = create("one-too-many".into()).await.unwrap_err();
    assert_eq!(err.raw_response().unwrap().status().as_u16(), 402);
    let CreatePipeError::ServiceQuotaExceededException(quota) = err.into_service_error() else {
        panic!("not a ServiceQuotaExceededException");
    };
    assert_eq!(quota.resource_id(), "one-too-many");
    assert_eq!(quota.resource_type(), "pipe");
    assert_eq!(quota.service_code(), "pipes");
    assert!(!quota.quota_code().is_empty());
    h.assert_alive().await;
}

#[tokio::test]
async fn updates_settle_or_fail_with_a_reason_and_a_lost_source_fails_the_pipe() {
    let h = Harness::start().await;
    let src = queue(&h, "src", &[]).await;
    let dst = queue(&h, "dst", &[]).await;
    let client = pipes(&h);
    client
        .create_pipe()
        .name("p")
        .source(arn("src"))
        .target(arn("dst"))
        .role_arn(ROLE)
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    assert_eq!(current(&h, "p").await, PipeState::Running);
    let update = |target: String| {
        client
            .update_pipe()
            .name("p")
            .role_arn(ROLE)
            .target(target)
            .send()
    };
    let out = update(arn("nowhere")).await.unwrap();
    assert_eq!(out.current_state, Some(PipeState::Updating));
    h.advance(1.0).await;
    let out = client.describe_pipe().name("p").send().await.unwrap();
    assert_eq!(out.current_state, Some(PipeState::UpdateFailed));
    let why = out.state_reason.unwrap();
    assert!(why.contains(&arn("nowhere")), "{why}");
    // Updated again to a target that exists, it runs and moves messages.
    update(arn("dst")).await.unwrap();
    h.advance(1.0).await;
    let out = client.describe_pipe().name("p").send().await.unwrap();
    assert_eq!(out.current_state, Some(PipeState::Running));
    assert_eq!(out.state_reason, None);
    send(&h, &src, "after the update").await;
    let moved = drain(&h, &dst).await;
    assert_eq!(moved.len(), 1);
    let record: Value = serde_json::from_str(&moved[0]).unwrap();
    assert_eq!(record["body"], "after the update");
    // Its source deleted, the pipe can no longer run.
    h.sqs().delete_queue().queue_url(&src).send().await.unwrap();
    h.advance(1.0).await;
    let out = client.describe_pipe().name("p").send().await.unwrap();
    assert_eq!(out.current_state, Some(PipeState::StartFailed));
    let why = out.state_reason.unwrap();
    assert!(why.contains(&arn("src")), "{why}");
}

/// A local HTTP endpoint for API destinations: `/enrich` answers each record as
/// `{"enriched": <body>}`, `/target` keeps what it gets. Every request body is kept.
async fn api_endpoint() -> (String, Arc<Mutex<Vec<(String, Value)>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (enrich_seen, target_seen) = (seen.clone(), seen.clone());
    let app = axum::Router::new()
        .route(
            "/enrich",
            axum::routing::post(move |body: String| async move {
                let batch: Value = serde_json::from_str(&body).unwrap();
                enrich_seen
                    .lock()
                    .unwrap()
                    .push(("enrich".to_string(), batch.clone()));
                let out: Vec<Value> = batch
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| json!({"enriched": r["body"]}))
                    .collect();
                json_answer(Value::Array(out))
            }),
        )
        .route(
            "/target",
            axum::routing::post(move |body: String| async move {
                let got: Value = serde_json::from_str(&body).unwrap();
                target_seen
                    .lock()
                    .unwrap()
                    .push(("target".to_string(), got));
                json_answer(json!({}))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (format!("http://{addr}"), seen)
}

async fn api_destination(h: &Harness, name: &str, endpoint: &str) -> String {
    use aws_sdk_eventbridge::types::{
        ApiDestinationHttpMethod, ConnectionAuthorizationType,
        CreateConnectionApiKeyAuthRequestParameters, CreateConnectionAuthRequestParameters,
    };
    let auth = CreateConnectionAuthRequestParameters::builder()
        .api_key_auth_parameters(
            CreateConnectionApiKeyAuthRequestParameters::builder()
                .api_key_name("x-api-key")
                .api_key_value("secret")
                .build()
                .unwrap(),
        )
        .build();
    let connection = h
        .events()
        .create_connection()
        .name(format!("{name}-connection"))
        .authorization_type(ConnectionAuthorizationType::ApiKey)
        .auth_parameters(auth)
        .send()
        .await
        .unwrap()
        .connection_arn
        .unwrap();
    h.events()
        .create_api_destination()
        .name(name)
        .connection_arn(connection)
        .invocation_endpoint(endpoint)
        .http_method(ApiDestinationHttpMethod::Post)
        .send()
        .await
        .unwrap()
        .api_destination_arn
        .unwrap()
}

#[tokio::test]
async fn topics_custom_buses_and_api_destinations_are_targets_and_enrichments() {
    let (endpoint, seen) = api_endpoint().await;
    let h = Harness::start().await;
    let src_topic = queue(&h, "src-topic", &[]).await;
    let src_bus = queue(&h, "src-bus", &[]).await;
    let src_api = queue(&h, "src-api", &[]).await;
    let from_topic = queue(&h, "from-topic", &[]).await;
    let from_bus = queue(&h, "from-bus", &[]).await;
    let topic = h
        .sns()
        .create_topic()
        .name("pipe-topic")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    h.sns()
        .subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(arn("from-topic"))
        .attributes("RawMessageDelivery", "true")
        .send()
        .await
        .unwrap();
    let bus = crate::custom_bus::bus(&h, "pipe-bus").await;
    crate::custom_bus::subscriber(&h, "to-queue", &bus, &arn("from-bus"), json!({})).await;
    let enrich = api_destination(&h, "enrich", &format!("{endpoint}/enrich")).await;
    let deliver = api_destination(&h, "deliver", &format!("{endpoint}/target")).await;
    let client = pipes(&h);
    let create = |name: &str, source: String, target: &str| {
        client
            .create_pipe()
            .name(name)
            .source(source)
            .target(target)
            .role_arn(ROLE)
    };
    create("to-topic", arn("src-topic"), &topic)
        .send()
        .await
        .unwrap();
    create("to-bus", arn("src-bus"), &bus).send().await.unwrap();
    create("to-api", arn("src-api"), &deliver)
        .enrichment(&enrich)
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    for name in ["to-topic", "to-bus", "to-api"] {
        assert_eq!(current(&h, name).await, PipeState::Running, "{name}");
    }
    send(&h, &src_topic, "for the topic").await;
    send(&h, &src_bus, r#"{"n": 1}"#).await;
    send(&h, &src_api, "for the API").await;
    h.advance(1.0).await;

    // The topic publishes the record, as a raw subscription receives it.
    let published = drain(&h, &from_topic).await;
    assert_eq!(published.len(), 1);
    let record: Value = serde_json::from_str(&published[0]).unwrap();
    assert_eq!(record["body"], "for the topic");
    assert_eq!(record["eventSource"], "aws:sqs");
    // The custom bus gets an event whose detail is the record.
    let events = drain(&h, &from_bus).await;
    assert_eq!(events.len(), 1);
    let event: Value = serde_json::from_str(&events[0]).unwrap();
    assert_eq!(event["source"], "Pipe to-bus", "{event}");
    assert_eq!(event["detail-type"], "Event from aws:sqs");
    assert_eq!(event["detail"]["body"], r#"{"n": 1}"#);
    // The API destination enriches the batch, and another delivers what it answered.
    let calls = seen.lock().unwrap().clone();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0].0, "enrich");
    assert_eq!(calls[0].1[0]["body"], "for the API");
    assert_eq!(
        calls[1],
        ("target".to_string(), json!({"enriched": "for the API"}))
    );
    // Every source was emptied: each message was delivered.
    for url in [&src_topic, &src_bus, &src_api] {
        assert_eq!(counts(&h, url).await, ("0".to_string(), "0".to_string()));
    }
}

#[tokio::test]
async fn a_lambda_enrichment_without_a_url_is_in_the_outbox_and_passes_the_batch_on() {
    let h = Harness::start().await;
    let src = queue(&h, "src", &[]).await;
    let dst = queue(&h, "dst", &[]).await;
    let enrich = "arn:aws:lambda:us-east-1:000000000000:function:enrich";
    pipes(&h)
        .create_pipe()
        .name("p")
        .source(arn("src"))
        .enrichment(enrich)
        .target(arn("dst"))
        .role_arn(ROLE)
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    send(&h, &src, "unchanged").await;
    h.advance(1.0).await;
    let outbox = h.control_get("outbox?protocol=lambda").await;
    let invoked = outbox["messages"].as_array().unwrap();
    assert_eq!(invoked.len(), 1, "{outbox}");
    assert_eq!(invoked[0]["target"], enrich);
    let batch: Value = serde_json::from_str(invoked[0]["body"].as_str().unwrap()).unwrap();
    assert_eq!(batch[0]["body"], "unchanged");
    let moved = drain(&h, &dst).await;
    assert_eq!(moved.len(), 1);
    let record: Value = serde_json::from_str(&moved[0]).unwrap();
    assert_eq!(record["body"], "unchanged");
    assert_eq!(counts(&h, &src).await, ("0".to_string(), "0".to_string()));
}
