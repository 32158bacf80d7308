//! Lambda beside the rest of the emulator: `--state-dir` keeps functions, event invoke
//! configurations, mappings and the asynchronous events still to be retried across a restart;
//! the control API lists invocations and the resources view shows functions and mappings; a
//! reset stops every execution environment.

use crate::harness::Harness;
use crate::lambda_async::{drain, python_function, queue};
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::{DestinationConfig, InvocationType, OnFailure};
use serde_json::json;
use std::path::Path;
use switchyard::Config;

const PYTHON: &str = "def ok(event, context):\n    return event\n\
def fails(event, context):\n    raise RuntimeError('down')\n";

fn config(dir: &Path) -> Config {
    Config {
        state_dir: Some(dir.to_path_buf()),
        ..Config::for_tests()
    }
}

#[tokio::test]
async fn functions_mappings_and_events_awaiting_their_retries_survive_a_restart() {
    let dir = std::env::temp_dir().join(format!("switchyard-lambda-state-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut h = Harness::with(config(&dir)).await;
    let (failed_url, failed_arn) = queue(&h, "failed").await;
    let (work_url, work_arn) = queue(&h, "work").await;
    python_function(&h, "bad", "app.fails", PYTHON).await;
    python_function(&h, "good", "app.ok", PYTHON).await;
    h.lambda()
        .put_function_event_invoke_config()
        .function_name("bad")
        .destination_config(
            DestinationConfig::builder()
                .on_failure(OnFailure::builder().destination(&failed_arn).build())
                .build(),
        )
        .send()
        .await
        .unwrap();
    h.lambda()
        .create_event_source_mapping()
        .function_name("good")
        .event_source_arn(&work_arn)
        .send()
        .await
        .unwrap();
    h.lambda()
        .invoke()
        .function_name("bad")
        .invocation_type(InvocationType::Event)
        .payload(Blob::new(r#"{"n": 7}"#))
        .send()
        .await
        .unwrap();
    h.advance(1.0).await;
    h.stop().await;

    let mut h = Harness::with(config(&dir)).await;
    // The first attempt was made before the stop; the two retries come after it.
    h.advance(180.0).await;
    let failed = drain(&h, &failed_url).await;
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0["requestContext"]["approximateInvokeCount"], 3);
    assert_eq!(failed[0].0["requestPayload"], json!({"n": 7}));
    // The mapping kept reading its queue.
    h.sqs()
        .send_message()
        .queue_url(&work_url)
        .message_body("after the restart")
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    let invocations = h.control_get("lambda/invocations?function=good").await;
    let list = invocations["invocations"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{invocations}");
    assert_eq!(list[0]["invocationType"], "EventSourceMapping");
    assert_eq!(list[0]["result"], "Success");
    let bad = h.control_get("lambda/invocations?function=bad").await;
    let bad = bad["invocations"].as_array().unwrap();
    assert_eq!(bad.len(), 3);
    assert!(bad.iter().all(|r| r["requestId"] == bad[0]["requestId"]));
    assert_eq!(bad[2]["errorType"], "RuntimeError");
    assert!(
        bad[2]["logTail"]
            .as_str()
            .unwrap()
            .contains("REPORT RequestId")
    );
    h.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn resources_show_functions_and_mappings_and_a_reset_stops_their_environments() {
    let h = Harness::start().await;
    let (_, work_arn) = queue(&h, "work").await;
    python_function(&h, "good", "app.ok", PYTHON).await;
    h.lambda()
        .create_event_source_mapping()
        .function_name("good")
        .event_source_arn(&work_arn)
        .send()
        .await
        .unwrap();
    let out = h
        .lambda()
        .invoke()
        .function_name("good")
        .payload(Blob::new("{}"))
        .send()
        .await
        .unwrap();
    assert_eq!(out.status_code(), 200);
    let view = h.control_get("resources").await;
    let region = &view["regions"][0];
    assert_eq!(region["functions"][0]["name"], "good");
    assert_eq!(
        region["functions"][0]["invocations"][0]["result"],
        "Success"
    );
    assert_eq!(
        region["functions"][0]["invocations"][0]["invocationType"],
        "RequestResponse"
    );
    assert_eq!(region["eventSourceMappings"][0]["source"], json!(work_arn));
    assert_eq!(h.emulator.app().environments().running(), 1);
    let r = h.control_post("reset", json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(h.emulator.app().environments().running(), 0);
    let view = h.control_get("resources").await;
    assert_eq!(view["regions"].as_array().map(Vec::len), Some(0), "{view}");
}
