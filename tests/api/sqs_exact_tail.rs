//! SQS as AWS answers it, the tail (issue 33, items 2 and 5): FifoQueue given to a standard
//! queue, characters of message attribute values, bare queue names on both protocols,
//! deduplication after a scope change, sequence numbers, CancelMessageMoveTask of a source that
//! does not exist, and FIFO batches lacking a MessageGroupId.

use crate::harness::{Harness, xml_text};
use crate::sqs_queues::create;
use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sdk_sqs::types::QueueAttributeName;

/// `err`'s (code, message).
fn code_message<E: ProvideErrorMetadata>(err: &E) -> (String, String) {
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

fn pair(code: &str, message: &str) -> (String, String) {
    (code.to_string(), message.to_string())
}

/// A Query request's (HTTP status, Code, Message).
async fn query_failure(h: &Harness, params: &[(&str, &str)]) -> (u16, String, String) {
    let r = h.query(params).await;
    let text = |tag| xml_text(&r.body, tag).unwrap_or_else(|| panic!("{}", r.body));
    (r.status, text("Code"), text("Message"))
}

#[tokio::test]
async fn fifo_queue_given_to_a_standard_queue_is_an_unknown_attribute_on_both_protocols() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    // Recorded from AWS (aws/aws-sdk-php#1331): a name without .fifo and FifoQueue, even false.
    for value in ["false", "true"] {
        let err = sqs
            .create_queue()
            .queue_name(format!("standard-{value}"))
            .attributes(QueueAttributeName::FifoQueue, value)
            .send()
            .await
            .unwrap_err();
        let expected = if value == "false" {
            pair("InvalidAttributeName", "Unknown Attribute FifoQueue.")
        } else {
            // FifoQueue=true names a FIFO queue, whose name must end with .fifo (recorded
            // through CloudFormation).
            pair(
                "InvalidParameterValue",
                "The name of a FIFO queue can only include alphanumeric characters, hyphens, or \
                 underscores, must end with .fifo suffix and be 1 to 80 in length.",
            )
        };
        assert_eq!(code_message(&err), expected, "FifoQueue={value}");
    }
    let (status, code, message) = query_failure(
        &h,
        &[
            ("Action", "CreateQueue"),
            ("Version", "2012-11-05"),
            ("QueueName", "standard"),
            ("Attribute.1.Name", "FifoQueue"),
            ("Attribute.1.Value", "false"),
        ],
    )
    .await;
    assert_eq!(
        (status, code.as_str(), message.as_str()),
        (400, "InvalidAttributeName", "Unknown Attribute FifoQueue.")
    );
    // A .fifo name without FifoQueue is a standard queue's name, refused as one (recorded:
    // boto/botocore#3058).
    let err = sqs
        .create_queue()
        .queue_name("messages.fifo")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_message(&err),
        pair(
            "InvalidParameterValue",
            "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
        )
    );
    // Nothing was made; the same names without the attribute are fine.
    assert!(
        sqs.list_queues()
            .send()
            .await
            .unwrap()
            .queue_urls()
            .is_empty()
    );
    create(&sqs, "standard", &[]).await;
    create(&sqs, "messages.fifo", &[("FifoQueue", "true")]).await;
}
