//! EventBridge as AWS answers it, the tail (issue 33, items 4 and 5): objects inside string
//! templates and the templates PutTargets refuses, CreateArchive on another account's bus that
//! does not exist, CreateConnection's validation and OAuth connections, and event buses made
//! from partner event sources.

use crate::events_exact::{bodies, error, failure, put_shop_event, transformed_to_queue};
use crate::harness::Harness;
use aws_sdk_eventbridge::types::{InputTransformer, Target};
use serde_json::json;

const ACCOUNT: &str = "000000000000";

#[tokio::test]
async fn objects_inside_string_templates_are_inserted_without_quotes() {
    let h = Harness::start().await;
    let transformer = InputTransformer::builder()
        .input_paths_map("payload", "$.detail.payload")
        .input_template(r#"{"text": "payload <payload>", "whole": <payload>}"#)
        .build()
        .unwrap();
    let url = transformed_to_queue(&h, transformer).await;
    put_shop_event(
        &h,
        json!({"command": "update-account", "payload": {"acc_id": "0a78", "sf_id": "baz"}}),
    )
    .await;
    // AWS inserts an object in a string as it inserts an array there: keys and values without
    // their quotes (issue 33).
    assert_eq!(
        bodies(&h, &url).await,
        [r#"{"text":"payload {acc_id:0a78,sf_id:baz}","whole":{"acc_id":"0a78","sf_id":"baz"}}"#]
    );
}

#[tokio::test]
async fn a_text_template_inserts_nested_objects_the_same_way() {
    let h = Harness::start().await;
    let transformer = InputTransformer::builder()
        .input_paths_map("payload", "$.detail.payload")
        .input_template("\"Payload: <payload>\"")
        .build()
        .unwrap();
    let url = transformed_to_queue(&h, transformer).await;
    put_shop_event(
        &h,
        json!({"payload": {"acc_id": "0a78", "ids": [1, "two"], "more": {"ok": true, "n": null}}}),
    )
    .await;
    assert_eq!(
        bodies(&h, &url).await,
        ["\"Payload: {acc_id:0a78,ids:[1,two],more:{ok:true,n:null}}\""]
    );
}

#[tokio::test]
async fn put_targets_refuses_the_templates_aws_refuses() {
    let h = Harness::start().await;
    let eb = h.events();
    eb.put_rule()
        .name("r")
        .event_pattern(r#"{"source":["shop"]}"#)
        .send()
        .await
        .unwrap();
    let put = |template: &str| {
        let transformer = InputTransformer::builder()
            .input_paths_map("a", "$.detail.a")
            .input_template(template)
            .build()
            .unwrap();
        let target = Target::builder()
            .id("t1")
            .arn(format!("arn:aws:sqs:us-east-1:{ACCOUNT}:q"))
            .input_transformer(transformer)
            .build()
            .unwrap();
        eb.put_targets().rule("r").targets(target).send()
    };
    // Measured at PutTargets: the whole event outside a JSON object template.
    for template in [
        "[<aws.events.event.json>]",
        "\"event <aws.events.event.json>\"",
    ] {
        assert_eq!(
            error(put(template).await),
            failure(
                "ValidationException",
                "InputTemplate for target t1 contains placeholder aws.events.event.json valid \
                 only for JSON template."
            ),
            "{template}"
        );
    }
    // A template that looks like JSON and is none once its placeholders are filled.
    for template in [r#"{"name": "testing_at_"<a>}"#, r#"{"a": <a>"#] {
        assert_eq!(
            error(put(template).await),
            failure(
                "ValidationException",
                "InputTemplate for target t1 is not a valid JSON text."
            ),
            "{template}"
        );
    }
    // Nothing was put; what AWS takes is taken.
    for template in [
        r#"{"e": <aws.events.event.json>}"#,
        "\"event was <a> today\"",
        "<a> is plain text",
    ] {
        let out = put(template).await.unwrap();
        assert_eq!(out.failed_entry_count(), 0, "{template}");
    }
}

#[tokio::test]
async fn create_archive_on_another_accounts_missing_bus_is_not_found_before_denied() {
    let h = Harness::start().await;
    let eb = h.events();
    let other = "111122223333";
    assert_eq!(
        error(
            eb.create_archive()
                .archive_name("copy")
                .event_source_arn(format!("arn:aws:events:us-east-1:{other}:event-bus/nope"))
                .send()
                .await
        ),
        failure(
            "ResourceNotFoundException",
            "Event bus nope does not exist."
        )
    );
    // The bus made, the owner's alone: denied.
    h.events_as(other, "us-east-1")
        .create_event_bus()
        .name("theirs")
        .send()
        .await
        .unwrap();
    let (code, message) = error(
        eb.create_archive()
            .archive_name("copy")
            .event_source_arn(format!("arn:aws:events:us-east-1:{other}:event-bus/theirs"))
            .send()
            .await,
    );
    assert_eq!(code, "AccessDeniedException", "{message}");
}
