//! SQS's Query wire at its edges as AWS recorded it (issue 14, item 5): GET requests to a queue
//! URL, answers in JSON for `Accept: application/json`, actions not valid at a queue URL, a
//! request without an action, Query's own wording for a missing queue, and the empty receive.

use crate::harness::{Harness, Reply, xml_text};
use crate::sqs_queues::create;
use serde_json::json;

/// The path of a queue URL (`/<account>/<name>`).
fn path_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest[rest.find('/').unwrap()..].to_string()
}

async fn get(h: &Harness, url: &str, params: &[(&str, &str)], accept: Option<&str>) -> Reply {
    let query = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish();
    let path = if query.is_empty() {
        path_of(url)
    } else {
        format!("{}?{query}", path_of(url))
    };
    let headers: Vec<(&str, &str)> = accept.map(|a| ("accept", a)).into_iter().collect();
    h.request("GET", &path, &headers, "").await
}

fn xml_error(r: &Reply) -> (u16, String, String, String) {
    assert!(r.body.contains("<ErrorResponse"), "{}", r.body);
    (
        r.status,
        xml_text(&r.body, "Type").unwrap_or_default(),
        xml_text(&r.body, "Code").unwrap_or_default(),
        xml_text(&r.body, "Message").unwrap_or_default(),
    )
}

#[tokio::test]
async fn a_get_with_accept_json_is_answered_in_json() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "json-get", &[]).await;
    let r = get(
        &h,
        &url,
        &[("Action", "GetQueueAttributes"), ("AttributeName.1", "All")],
        Some("application/json"),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let doc = r.json();
    let attributes = doc["GetQueueAttributesResponse"]["GetQueueAttributesResult"]["Attributes"]
        .as_array()
        .unwrap_or_else(|| panic!("{doc}"));
    let arn = attributes
        .iter()
        .find(|a| a["Name"] == "QueueArn")
        .map(|a| a["Value"].clone());
    assert_eq!(
        arn,
        Some(json!("arn:aws:sqs:us-east-1:000000000000:json-get"))
    );
    assert!(
        doc["GetQueueAttributesResponse"]["ResponseMetadata"]["RequestId"].is_string(),
        "{doc}"
    );

    // An error in JSON too.
    let r = get(
        &h,
        &url,
        &[("Action", "ListQueues")],
        Some("application/json"),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    let doc = r.json();
    assert_eq!(doc["Error"]["Code"], "InvalidAction");
    assert_eq!(
        doc["Error"]["Message"],
        "The action ListQueues is not valid for this endpoint."
    );
    assert_eq!(doc["Error"]["Type"], "Sender");

    // Without Accept: XML, as before.
    let r = get(
        &h,
        &url,
        &[
            ("Action", "GetQueueAttributes"),
            ("AttributeName.1", "QueueArn"),
        ],
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body
            .contains("<Attribute><Name>QueueArn</Name><Value>arn:aws:sqs:"),
        "{}",
        r.body
    );
}

#[tokio::test]
async fn actions_not_valid_at_a_queue_url() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "endpoint", &[]).await;
    for action in ["CreateQueue", "ListQueues", "FooBar"] {
        let r = get(
            &h,
            &url,
            &[
                ("Action", action),
                ("QueueName", "other"),
                ("Version", "2012-11-05"),
            ],
            None,
        )
        .await;
        assert_eq!(
            xml_error(&r),
            (
                400,
                "Sender".to_string(),
                "InvalidAction".to_string(),
                format!("The action {action} is not valid for this endpoint.")
            )
        );
    }
    // GetQueueUrl is, for this queue or another.
    let other = create(&sqs, "other", &[]).await;
    let r = get(
        &h,
        &url,
        &[("Action", "GetQueueUrl"), ("QueueName", "other")],
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(xml_text(&r.body, "QueueUrl"), Some(other.clone()));
    // A missing parameter is still named.
    let r = get(&h, &url, &[("Action", "SendMessage")], None).await;
    assert_eq!(
        xml_error(&r),
        (
            400,
            "Sender".to_string(),
            "MissingParameter".to_string(),
            "The request must contain the parameter MessageBody.".to_string()
        )
    );
}

#[tokio::test]
async fn no_action_is_an_unknown_operation() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "no-action", &[]).await;
    for accept in [None, Some("application/json")] {
        let r = get(&h, &url, &[], accept).await;
        assert_eq!(r.status, 404, "{}", r.body);
        assert!(r.body.contains("<UnknownOperationException"), "{}", r.body);
    }
}

#[tokio::test]
async fn query_says_wsdl_version_for_a_missing_queue_and_writes_the_empty_receive() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "gone", &[]).await;
    let empty = create(&sqs, "empty", &[]).await;
    sqs.delete_queue().queue_url(&url).send().await.unwrap();
    let r = get(
        &h,
        &url,
        &[
            ("Action", "GetQueueAttributes"),
            ("AttributeName.1", "QueueArn"),
        ],
        None,
    )
    .await;
    assert_eq!(
        xml_error(&r),
        (
            400,
            "Sender".to_string(),
            "AWS.SimpleQueueService.NonExistentQueue".to_string(),
            "The specified queue does not exist for this wsdl version.".to_string()
        )
    );
    // JSON keeps its own wording.
    let err = sqs
        .get_queue_attributes()
        .queue_url(&url)
        .send()
        .await
        .unwrap_err();
    use aws_sdk_sqs::error::ProvideErrorMetadata;
    assert_eq!(err.message(), Some("The specified queue does not exist."));

    let r = get(&h, &empty, &[("Action", "ReceiveMessage")], None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("<ReceiveMessageResult/>"), "{}", r.body);
    assert!(!r.body.contains("</ReceiveMessageResult>"), "{}", r.body);
    // The SDK over Query-era JSON still reads an empty receive as no messages.
    let out = sqs
        .receive_message()
        .queue_url(&empty)
        .send()
        .await
        .unwrap();
    assert!(out.messages.is_none_or(|m| m.is_empty()));
}
