//! SQS event source mappings through the AWS SDK for Rust, on the manual clock: a queue drained
//! by a real Python function in batches, partial batch failures coming back after the queue's
//! visibility timeout and dead-lettered after maxReceiveCount, filters deleting what they do
//! not match, the batching window, FIFO groups held back while others go on, the mapping's
//! states, and the checks Lambda makes.

use crate::harness::Harness;
use crate::lambda_async::{drain, python_function, queue};
use aws_sdk_lambda::types::{FilterCriteria, FunctionResponseType};
use aws_sdk_sqs::types::QueueAttributeName;
use serde_json::{Value, json};

/// A handler that sends each record's body to the queue `SEEN` (through the emulator's SQS
/// JSON API, with the standard library) and reports the bodies starting with "bad" as failed.
const HANDLER: &str = r#"
import json, os, urllib.request

def send(body):
    request = urllib.request.Request(
        os.environ['AWS_ENDPOINT_URL'] + '/',
        data=json.dumps({'QueueUrl': os.environ['SEEN'], 'MessageBody': body}).encode(),
        headers={'X-Amz-Target': 'AmazonSQS.SendMessage',
                 'Content-Type': 'application/x-amz-json-1.0'})
    urllib.request.urlopen(request).read()

def handler(event, context):
    failures = []
    for record in event['Records']:
        send(json.dumps({'body': record['body'], 'count': record['attributes']['ApproximateReceiveCount'],
                         'group': record['attributes'].get('MessageGroupId'),
                         'source': record['eventSource'], 'arn': record['eventSourceARN'],
                         'attrs': record['messageAttributes']}))
        if record['body'].startswith('bad'):
            failures.append({'itemIdentifier': record['messageId']})
    return {'batchItemFailures': failures}
"#;

async fn function_seeing(h: &Harness, name: &str, seen_url: &str) {
    python_function(h, name, "app.handler", HANDLER).await;
    h.lambda()
        .update_function_configuration()
        .function_name(name)
        .environment(
            aws_sdk_lambda::types::Environment::builder()
                .variables("SEEN", seen_url)
                .build(),
        )
        .send()
        .await
        .unwrap();
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

async fn counts(h: &Harness, url: &str) -> (String, String) {
    let out = h
        .sqs()
        .get_queue_attributes()
        .queue_url(url)
        .attribute_names(QueueAttributeName::All)
        .send()
        .await
        .unwrap();
    let a = out.attributes().unwrap();
    (
        a[&QueueAttributeName::ApproximateNumberOfMessages].clone(),
        a[&QueueAttributeName::ApproximateNumberOfMessagesNotVisible].clone(),
    )
}

/// Every body the function saw so far, in order.
async fn seen(h: &Harness, url: &str) -> Vec<Value> {
    let mut all = Vec::new();
    loop {
        let got = drain(h, url).await;
        if got.is_empty() {
            return all;
        }
        all.extend(got.into_iter().map(|(body, _)| body));
    }
}

#[tokio::test]
async fn a_queue_is_drained_in_batches_and_failed_items_come_back_until_dead_lettered() {
    let h = Harness::start().await;
    let (seen_url, _) = queue(&h, "seen").await;
    let (dlq_url, dlq_arn) = queue(&h, "work-dlq").await;
    let (work_url, work_arn) = queue(&h, "work").await;
    h.sqs()
        .set_queue_attributes()
        .queue_url(&work_url)
        .attributes(
            QueueAttributeName::RedrivePolicy,
            json!({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 2}).to_string(),
        )
        .send()
        .await
        .unwrap();
    function_seeing(&h, "worker", &seen_url).await;
    let mapping = h
        .lambda()
        .create_event_source_mapping()
        .function_name("worker")
        .event_source_arn(&work_arn)
        .batch_size(5)
        .function_response_types(FunctionResponseType::ReportBatchItemFailures)
        .send()
        .await
        .unwrap();
    assert_eq!(mapping.state(), Some("Creating"));
    assert_eq!(mapping.batch_size(), Some(5));
    let uuid = mapping.uuid().unwrap().to_string();
    for body in ["one", "bad two", "three"] {
        send(&h, &work_url, body).await;
    }
    // Nothing runs until the mapping is enabled, a second later.
    h.advance(0.0).await;
    assert!(seen(&h, &seen_url).await.is_empty());
    h.advance(1.0).await;
    let got = h
        .lambda()
        .get_event_source_mapping()
        .uuid(&uuid)
        .send()
        .await
        .unwrap();
    assert_eq!(got.state(), Some("Enabled"));
    let first = seen(&h, &seen_url).await;
    let bodies: Vec<&str> = first.iter().map(|s| s["body"].as_str().unwrap()).collect();
    assert_eq!(bodies, ["one", "bad two", "three"]);
    assert!(
        first
            .iter()
            .all(|s| s["count"] == "1" && s["source"] == "aws:sqs")
    );
    assert_eq!(first[0]["arn"], json!(work_arn));
    // The two that worked are deleted; the failed one is in flight until its visibility
    // timeout (30 s) ends, then comes back, and after its second failure goes to the DLQ.
    assert_eq!(counts(&h, &work_url).await, ("0".into(), "1".into()));
    h.advance(29.0).await;
    assert!(seen(&h, &seen_url).await.is_empty());
    h.advance(1.0).await;
    let second = seen(&h, &seen_url).await;
    assert_eq!(second.len(), 1);
    assert_eq!(second[0]["body"], "bad two");
    assert_eq!(second[0]["count"], "2");
    h.advance(30.0).await;
    assert!(
        seen(&h, &seen_url).await.is_empty(),
        "maxReceiveCount reached"
    );
    let dead = drain(&h, &dlq_url).await;
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].0, json!("bad two"));
    assert_eq!(counts(&h, &work_url).await, ("0".into(), "0".into()));
}

#[tokio::test]
async fn filters_delete_what_they_do_not_match_and_a_window_gathers_a_batch() {
    let h = Harness::start().await;
    let (seen_url, _) = queue(&h, "seen").await;
    let (work_url, work_arn) = queue(&h, "work").await;
    function_seeing(&h, "worker", &seen_url).await;
    h.lambda()
        .create_event_source_mapping()
        .function_name("worker")
        .event_source_arn(&work_arn)
        .batch_size(20)
        .maximum_batching_window_in_seconds(10)
        .filter_criteria(
            FilterCriteria::builder()
                .filters(
                    aws_sdk_lambda::types::Filter::builder()
                        .pattern(r#"{"body": {"kind": ["order"]}}"#)
                        .build(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    send(&h, &work_url, r#"{"kind": "order", "n": 1}"#).await;
    send(&h, &work_url, r#"{"kind": "noise"}"#).await;
    send(&h, &work_url, "plain text").await;
    h.advance(5.0).await;
    assert!(seen(&h, &seen_url).await.is_empty(), "the window is open");
    send(&h, &work_url, r#"{"kind": "order", "n": 2}"#).await;
    h.advance(5.0).await;
    let got = seen(&h, &seen_url).await;
    let bodies: Vec<Value> = got
        .iter()
        .map(|s| serde_json::from_str(s["body"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(
        bodies,
        [
            json!({"kind": "order", "n": 1}),
            json!({"kind": "order", "n": 2})
        ]
    );
    // What matched no filter was deleted, not left to come back.
    assert_eq!(counts(&h, &work_url).await, ("0".into(), "0".into()));
}

#[tokio::test]
async fn a_fifo_queue_keeps_each_group_in_order_and_holds_back_a_failing_group() {
    let h = Harness::start().await;
    let (seen_url, _) = queue(&h, "seen").await;
    let work_url = h
        .sqs()
        .create_queue()
        .queue_name("work.fifo")
        .attributes(QueueAttributeName::FifoQueue, "true")
        .attributes(QueueAttributeName::ContentBasedDeduplication, "true")
        .send()
        .await
        .unwrap()
        .queue_url()
        .unwrap()
        .to_string();
    let work_arn = "arn:aws:sqs:us-east-1:000000000000:work.fifo";
    function_seeing(&h, "worker", &seen_url).await;
    for (group, body) in [("a", "bad a1"), ("a", "a2"), ("b", "b1"), ("b", "b2")] {
        h.sqs()
            .send_message()
            .queue_url(&work_url)
            .message_group_id(group)
            .message_body(body)
            .send()
            .await
            .unwrap();
    }
    h.lambda()
        .create_event_source_mapping()
        .function_name("worker")
        .event_source_arn(work_arn)
        .batch_size(1)
        .function_response_types(FunctionResponseType::ReportBatchItemFailures)
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    let got = seen(&h, &seen_url).await;
    let group = |g: &str| -> Vec<String> {
        got.iter()
            .filter(|s| s["group"] == g)
            .map(|s| s["body"].as_str().unwrap().to_string())
            .collect()
    };
    // Groups run side by side: group b goes on in order, group a is held behind its failed
    // first message.
    assert_eq!(group("b"), ["b1", "b2"]);
    assert_eq!(group("a"), ["bad a1"]);
    h.advance(30.0).await;
    let got = seen(&h, &seen_url).await;
    let bodies: Vec<&str> = got.iter().map(|s| s["body"].as_str().unwrap()).collect();
    assert_eq!(bodies, ["bad a1"], "a2 waits behind a1: {got:?}");
}

#[tokio::test]
async fn mappings_are_listed_updated_disabled_deleted_and_checked_as_aws_checks_them() {
    let h = Harness::start().await;
    let (seen_url, _) = queue(&h, "seen").await;
    let (work_url, work_arn) = queue(&h, "work").await;
    function_seeing(&h, "worker", &seen_url).await;
    let code = |e: aws_sdk_lambda::error::SdkError<_, _>| {
        let e: aws_sdk_lambda::operation::create_event_source_mapping::CreateEventSourceMappingError = e.into_service_error();
        (
            e.meta().code().map(str::to_string),
            e.meta().message().map(str::to_string),
        )
    };
    let create = || {
        h.lambda()
            .create_event_source_mapping()
            .function_name("worker")
            .event_source_arn(&work_arn)
    };
    let (c, m) = code(create().batch_size(11).send().await.unwrap_err());
    assert_eq!(c.as_deref(), Some("InvalidParameterValueException"));
    assert!(m.unwrap().contains("greater than 0"));
    let (c, _) = code(
        create()
            .batch_size(10_001)
            .maximum_batching_window_in_seconds(1)
            .send()
            .await
            .unwrap_err(),
    );
    assert_eq!(c.as_deref(), Some("ValidationException"));
    let (c, _) = code(
        h.lambda()
            .create_event_source_mapping()
            .function_name("worker")
            .event_source_arn("arn:aws:sqs:us-east-1:000000000000:nope")
            .send()
            .await
            .unwrap_err(),
    );
    assert_eq!(c.as_deref(), Some("InvalidParameterValueException"));
    let (c, _) = code(
        h.lambda()
            .create_event_source_mapping()
            .function_name("nobody")
            .event_source_arn(&work_arn)
            .send()
            .await
            .unwrap_err(),
    );
    assert_eq!(c.as_deref(), Some("ResourceNotFoundException"));
    h.lambda()
        .update_function_configuration()
        .function_name("worker")
        .timeout(60)
        .send()
        .await
        .unwrap();
    let (c, m) = code(create().send().await.unwrap_err());
    assert_eq!(c.as_deref(), Some("InvalidParameterValueException"));
    assert_eq!(
        m.as_deref(),
        Some("Queue visibility timeout: 30 seconds is less than Function timeout: 60 seconds")
    );
    h.lambda()
        .update_function_configuration()
        .function_name("worker")
        .timeout(3)
        .send()
        .await
        .unwrap();
    let uuid = create()
        .enabled(false)
        .send()
        .await
        .unwrap()
        .uuid()
        .unwrap()
        .to_string();
    let (c, _) = code(create().send().await.unwrap_err());
    assert_eq!(c.as_deref(), Some("ResourceConflictException"));
    h.advance(1.0).await;
    let listed = h
        .lambda()
        .list_event_source_mappings()
        .function_name("worker")
        .send()
        .await
        .unwrap();
    assert_eq!(listed.event_source_mappings().len(), 1);
    assert_eq!(listed.event_source_mappings()[0].state(), Some("Disabled"));
    send(&h, &work_url, "waiting").await;
    h.advance(5.0).await;
    assert!(
        seen(&h, &seen_url).await.is_empty(),
        "a disabled mapping reads nothing"
    );
    let updated = h
        .lambda()
        .update_event_source_mapping()
        .uuid(&uuid)
        .enabled(true)
        .batch_size(3)
        .send()
        .await
        .unwrap();
    assert_eq!(updated.state(), Some("Enabling"));
    assert_eq!(updated.batch_size(), Some(3));
    h.advance(1.0).await;
    assert_eq!(seen(&h, &seen_url).await.len(), 1);
    let deleted = h
        .lambda()
        .delete_event_source_mapping()
        .uuid(&uuid)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.state(), Some("Deleting"));
    h.advance(1.0).await;
    let e = h
        .lambda()
        .get_event_source_mapping()
        .uuid(&uuid)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        e.into_service_error().meta().code(),
        Some("ResourceNotFoundException")
    );
}

#[tokio::test]
async fn a_node_function_drains_a_queue_and_a_provided_one_takes_events_through_a_fault() {
    use aws_sdk_lambda::primitives::Blob;
    use aws_sdk_lambda::types::{DestinationConfig, FunctionCode, OnSuccess, Runtime};
    let h = Harness::start().await;
    let (seen_url, seen_arn) = queue(&h, "seen").await;
    let (work_url, work_arn) = queue(&h, "work").await;
    let create = |name: &'static str,
                  runtime: Runtime,
                  handler: &'static str,
                  files: Vec<(&'static str, &'static str)>| {
        let h = &h;
        async move {
            h.lambda()
                .create_function()
                .function_name(name)
                .role("arn:aws:iam::000000000000:role/lambda")
                .runtime(runtime)
                .handler(handler)
                .code(
                    FunctionCode::builder()
                        .zip_file(Blob::new(crate::lambda::zip_of(&files)))
                        .build(),
                )
                .send()
                .await
                .unwrap()
                .function_arn()
                .unwrap()
                .to_string()
        }
    };
    // Node: an ES module whose answer fails the records whose body is "bad".
    let node = "export const handler = async (event) => ({ batchItemFailures: event.Records\
        .filter((r) => r.body === 'bad').map((r) => ({ itemIdentifier: r.messageId })) });\n";
    create(
        "node",
        Runtime::Nodejs20x,
        "index.handler",
        vec![("index.mjs", node)],
    )
    .await;
    h.lambda()
        .create_event_source_mapping()
        .function_name("node")
        .event_source_arn(&work_arn)
        .function_response_types(FunctionResponseType::ReportBatchItemFailures)
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    send(&h, &work_url, "fine").await;
    send(&h, &work_url, "bad").await;
    h.advance(0.0).await;
    assert_eq!(counts(&h, &work_url).await, ("0".into(), "1".into()));

    // provided: a bootstrap talking to the Runtime API by hand; its event's first attempt hits a
    // fault (a throttle), the retry a second later runs it, and its record reaches OnSuccess.
    let bootstrap = r#"#!/usr/bin/env python3
import json, os, urllib.request
api = 'http://' + os.environ['AWS_LAMBDA_RUNTIME_API'] + '/2018-06-01/runtime/invocation/'
while True:
    with urllib.request.urlopen(api + 'next') as r:
        rid = r.headers['Lambda-Runtime-Aws-Request-Id']
        event = json.loads(r.read())
    body = json.dumps({'echo': event, 'id': rid}).encode()
    urllib.request.urlopen(urllib.request.Request(api + rid + '/response', data=body, method='POST')).read()
"#;
    let custom = create(
        "custom",
        Runtime::Providedal2023,
        "x",
        vec![("bootstrap", bootstrap)],
    )
    .await;
    h.lambda()
        .put_function_event_invoke_config()
        .function_name("custom")
        .destination_config(
            DestinationConfig::builder()
                .on_success(OnSuccess::builder().destination(&seen_arn).build())
                .build(),
        )
        .send()
        .await
        .unwrap();
    let fault = h
        .control_post(
            "faults",
            json!({"target": custom, "status": 429, "errorCode": "TooManyRequestsException", "count": 1}),
        )
        .await;
    assert_eq!(fault.status, 201, "{}", fault.body);
    h.lambda()
        .invoke()
        .function_name("custom")
        .invocation_type(aws_sdk_lambda::types::InvocationType::Event)
        .payload(Blob::new(r#"{"k": 1}"#))
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    assert!(
        drain(&h, &seen_url).await.is_empty(),
        "throttled by the fault"
    );
    h.advance(1.0).await;
    let got = drain(&h, &seen_url).await;
    assert_eq!(got.len(), 1);
    let record = &got[0].0;
    assert_eq!(record["requestContext"]["approximateInvokeCount"], 2);
    assert_eq!(record["responsePayload"]["echo"], json!({"k": 1}));
    assert_eq!(
        record["responsePayload"]["id"],
        record["requestContext"]["requestId"]
    );
}
