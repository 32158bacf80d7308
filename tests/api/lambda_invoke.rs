//! Lambda's Invoke through the AWS SDK for Rust: the user's handlers run for real, without
//! Docker (Python, Node and a `provided` bootstrap), and answered as AWS answers: the payload,
//! function errors, the log's tail, DryRun and Event, throttling by reserved concurrency, a
//! timeout, and AWS's errors for a payload that is not JSON or is too large.

use crate::harness::Harness;
use crate::lambda::zip_of;
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::{FunctionCode, InvocationType, LogType, Runtime};
use base64::Engine;
use serde_json::{Value, json};

const ROLE: &str = "arn:aws:iam::000000000000:role/lambda";

async fn function(
    h: &Harness,
    name: &str,
    runtime: Runtime,
    handler: &str,
    files: &[(&str, &str)],
    timeout: i32,
) {
    h.lambda()
        .create_function()
        .function_name(name)
        .role(ROLE)
        .runtime(runtime)
        .handler(handler)
        .timeout(timeout)
        .code(
            FunctionCode::builder()
                .zip_file(Blob::new(zip_of(files)))
                .build(),
        )
        .send()
        .await
        .unwrap();
}

async fn invoke(
    h: &Harness,
    name: &str,
    payload: &Value,
) -> aws_sdk_lambda::operation::invoke::InvokeOutput {
    h.lambda()
        .invoke()
        .function_name(name)
        .payload(Blob::new(payload.to_string()))
        .log_type(LogType::Tail)
        .send()
        .await
        .unwrap()
}

fn json_of(out: &aws_sdk_lambda::operation::invoke::InvokeOutput) -> Value {
    serde_json::from_slice(out.payload().unwrap().as_ref()).unwrap()
}

fn log_of(out: &aws_sdk_lambda::operation::invoke::InvokeOutput) -> String {
    let tail = base64::engine::general_purpose::STANDARD
        .decode(out.log_result().unwrap())
        .unwrap();
    String::from_utf8(tail).unwrap()
}

const PYTHON: &str = "import os\n\
def handler(event, context):\n    print('got', event)\n    return {'event': event, 'name': context.function_name, \
'left': context.get_remaining_time_in_millis() > 0, 'endpoint': os.environ.get('AWS_ENDPOINT_URL')}\n\
def fails(event, context):\n    raise ValueError('no good')\n\
def sleeps(event, context):\n    import time\n    time.sleep(5)\n";

#[tokio::test]
async fn a_python_handler_answers_with_its_payload_its_errors_and_its_log() {
    let h = Harness::start().await;
    function(
        &h,
        "py",
        Runtime::Python312,
        "app.handler",
        &[("app.py", PYTHON)],
        3,
    )
    .await;
    let out = invoke(&h, "py", &json!({"a": 1})).await;
    assert_eq!(out.status_code(), 200);
    assert_eq!(out.executed_version(), Some("$LATEST"));
    assert_eq!(out.function_error(), None);
    let answer = json_of(&out);
    assert_eq!(answer["event"], json!({"a": 1}));
    assert_eq!(
        (answer["name"].as_str(), answer["left"].as_bool()),
        (Some("py"), Some(true))
    );
    assert_eq!(answer["endpoint"].as_str(), Some(h.url()));
    let log = log_of(&out);
    assert!(log.starts_with("START RequestId: "), "{log}");
    assert!(
        log.contains("got {'a': 1}") && log.contains("\nREPORT RequestId: "),
        "{log}"
    );

    h.lambda()
        .update_function_configuration()
        .function_name("py")
        .handler("app.fails")
        .send()
        .await
        .unwrap();
    let failed = invoke(&h, "py", &json!({})).await;
    assert_eq!(
        (failed.status_code(), failed.function_error()),
        (200, Some("Unhandled"))
    );
    let error = json_of(&failed);
    assert_eq!(
        (error["errorType"].as_str(), error["errorMessage"].as_str()),
        (Some("ValueError"), Some("no good"))
    );
}

#[tokio::test]
async fn node_and_provided_handlers_run_too() {
    let h = Harness::start().await;
    let node = "exports.handler = async (event, context) => ({ twice: event.n * 2, id: context.awsRequestId.length > 0 });\n";
    function(
        &h,
        "node",
        Runtime::Nodejs20x,
        "index.handler",
        &[("index.js", node)],
        3,
    )
    .await;
    let out = invoke(&h, "node", &json!({"n": 21})).await;
    assert_eq!(json_of(&out), json!({"twice": 42, "id": true}));
    // A bootstrap in Python (curl may be missing): the Runtime API by hand.
    let bootstrap = r#"#!/usr/bin/env python3
import json, os, urllib.request
api = 'http://' + os.environ['AWS_LAMBDA_RUNTIME_API'] + '/2018-06-01/runtime/invocation/'
while True:
    with urllib.request.urlopen(api + 'next') as r:
        rid = r.headers['Lambda-Runtime-Aws-Request-Id']
        event = json.loads(r.read())
    body = json.dumps({'handler': os.environ['_HANDLER'], 'echo': event}).encode()
    urllib.request.urlopen(urllib.request.Request(api + rid + '/response', data=body, method='POST')).read()
"#;
    function(
        &h,
        "custom",
        Runtime::Providedal2023,
        "my.handler",
        &[("bootstrap", bootstrap)],
        3,
    )
    .await;
    let out = invoke(&h, "custom", &json!({"k": "v"})).await;
    assert_eq!(
        json_of(&out),
        json!({"handler": "my.handler", "echo": {"k": "v"}})
    );
}

#[tokio::test]
async fn dry_run_event_throttling_timeouts_and_bad_payloads() {
    let h = Harness::start().await;
    function(
        &h,
        "py",
        Runtime::Python312,
        "app.handler",
        &[("app.py", PYTHON)],
        1,
    )
    .await;
    let dry = h
        .lambda()
        .invoke()
        .function_name("py")
        .invocation_type(InvocationType::DryRun)
        .send()
        .await
        .unwrap();
    assert_eq!(dry.status_code(), 204);
    let event = h
        .lambda()
        .invoke()
        .function_name("py")
        .invocation_type(InvocationType::Event)
        .payload(Blob::new("{}"))
        .send()
        .await
        .unwrap();
    assert_eq!(event.status_code(), 202);
    // A clock advance waits for the invocation in flight.
    h.advance(0.0).await;

    let not_json = h
        .lambda()
        .invoke()
        .function_name("py")
        .payload(Blob::new("{not json"))
        .send()
        .await
        .unwrap_err();
    let err = not_json.into_service_error();
    assert!(err.is_invalid_request_content_exception(), "{err:?}");
    assert!(
        err.meta()
            .message()
            .unwrap()
            .starts_with("Could not parse request body into json"),
        "{err:?}"
    );
    let big = format!("\"{}\"", "x".repeat(6 * 1024 * 1024));
    let too_large = h
        .lambda()
        .invoke()
        .function_name("py")
        .payload(Blob::new(big))
        .send()
        .await
        .unwrap_err();
    assert!(
        too_large
            .into_service_error()
            .is_request_too_large_exception()
    );
    let missing = h
        .lambda()
        .invoke()
        .function_name("nope")
        .send()
        .await
        .unwrap_err();
    assert!(
        missing
            .into_service_error()
            .is_resource_not_found_exception()
    );

    h.lambda()
        .put_function_concurrency()
        .function_name("py")
        .reserved_concurrent_executions(0)
        .send()
        .await
        .unwrap();
    let throttled = h
        .lambda()
        .invoke()
        .function_name("py")
        .send()
        .await
        .unwrap_err();
    let err = throttled.into_service_error();
    assert!(err.is_too_many_requests_exception(), "{err:?}");
    let aws_sdk_lambda::operation::invoke::InvokeError::TooManyRequestsException(t) = err else {
        unreachable!()
    };
    assert_eq!(
        t.reason().map(|r| r.as_str()),
        Some("ReservedFunctionConcurrentInvocationLimitExceeded")
    );
    h.lambda()
        .delete_function_concurrency()
        .function_name("py")
        .send()
        .await
        .unwrap();

    h.lambda()
        .update_function_configuration()
        .function_name("py")
        .handler("app.sleeps")
        .send()
        .await
        .unwrap();
    let slow = invoke(&h, "py", &json!({})).await;
    assert_eq!(slow.function_error(), Some("Unhandled"));
    let message = json_of(&slow)["errorMessage"].as_str().unwrap().to_string();
    assert!(
        message.ends_with("Task timed out after 1.00 seconds"),
        "{message}"
    );
}
