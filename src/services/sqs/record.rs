//! The record of an SQS message as the emulator's own consumers of a queue hand it on: the
//! shape of Lambda's SQS event (<https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html>),
//! which EventBridge Pipes and event streams use too, and Lambda event-source mappings will. One
//! function, so the consumers cannot drift apart.
//! A leaf: it imports the store's message and the digests, no operation.

use super::digest::md5_of_attributes;
use super::store::Message;
use serde_json::{Map, Value, json};

/// The record of `message`, received from `queue_arn` in `region` with `receipt_handle`, keys in
/// AWS's order. Its `body` is the text as sent; [`with_parsed_body`] gives what patterns and
/// transformers see.
pub fn lambda_record(
    message: &Message,
    queue_arn: &str,
    receipt_handle: &str,
    region: &str,
) -> Value {
    let m = message;
    let mut attributes = Map::new();
    let mut put = |name: &str, value: String| {
        attributes.insert(name.to_string(), Value::String(value));
    };
    put("ApproximateReceiveCount", m.receive_count.to_string());
    put("SentTimestamp", m.sent_at.to_string());
    // FIFO messages carry their sequence number, and their deduplication id, as ReceiveMessage
    // gives them; a group id goes along whenever the message has one (fair queues too).
    if let Some(sequence) = m.sequence_number() {
        put("SequenceNumber", sequence.to_string());
    }
    if let Some(group) = m.group_id() {
        put("MessageGroupId", group.to_string());
    }
    put("SenderId", m.sender_id.to_string());
    if let Some(dedup) = m.dedup_id().filter(|_| m.sequence_number().is_some()) {
        put("MessageDeduplicationId", dedup.to_string());
    }
    if let Some(trace) = m.trace_header() {
        put("AWSTraceHeader", trace.to_string());
    }
    let first_received = m.first_received_at().unwrap_or(m.sent_at);
    put(
        "ApproximateFirstReceiveTimestamp",
        first_received.to_string(),
    );
    let message_attributes: Map<String, Value> = m
        .attributes()
        .iter()
        .map(|(name, v)| {
            let mut a = Map::new();
            if let Some(text) = &v.string_value {
                a.insert("stringValue".into(), json!(text));
            }
            if let Some(blob) = &v.binary_value {
                a.insert("binaryValue".into(), json!(blob));
            }
            // Lambda always sends the list values, empty (SQS has never filled them).
            a.insert("stringListValues".into(), json!([]));
            a.insert("binaryListValues".into(), json!([]));
            a.insert("dataType".into(), json!(v.data_type));
            (name.clone(), Value::Object(a))
        })
        .collect();
    let mut record = Map::new();
    record.insert("messageId".into(), json!(m.id));
    record.insert("receiptHandle".into(), json!(receipt_handle));
    record.insert("body".into(), json!(m.body));
    record.insert("attributes".into(), Value::Object(attributes));
    record.insert(
        "messageAttributes".into(),
        Value::Object(message_attributes),
    );
    record.insert("md5OfBody".into(), json!(m.md5_of_body()));
    if let Some(md5) = md5_of_attributes(m.attributes()) {
        record.insert("md5OfMessageAttributes".into(), json!(md5));
    }
    record.insert("eventSource".into(), json!("aws:sqs"));
    record.insert("eventSourceARN".into(), json!(queue_arn));
    record.insert("awsRegion".into(), json!(region));
    Value::Object(record)
}

/// `record` with its string `body` parsed when it is JSON: what filter patterns, input paths and
/// transformers see.
pub fn with_parsed_body(record: &Value) -> Value {
    let mut view = record.clone();
    if let Some(parsed) = record
        .get("body")
        .and_then(Value::as_str)
        .and_then(|b| serde_json::from_str::<Value>(b).ok())
        && let Some(members) = view.as_object_mut()
    {
        members.insert("body".into(), parsed);
    }
    view
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::delivery::{MessageAttributeValue, SqsMessage};
    use crate::services::sqs::attributes::QueueAttributes;
    use crate::services::sqs::consume;
    use crate::services::sqs::store::{Queue, QueueKey};
    use crate::state::State;

    const QUEUE: &str = "arn:aws:sqs:us-east-1:000000000000:src";

    fn one_record(attributes: Vec<(&str, MessageAttributeValue)>) -> Value {
        let mut e = State::for_tests(0);
        let key = QueueKey::from_arn(QUEUE).unwrap();
        let queue = Queue::new(key.clone(), 0, QueueAttributes::default());
        e.sqs.queues.insert(key, queue);
        let m = SqsMessage {
            body: r#"{"n":1}"#.into(),
            attributes: attributes
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            group_id: None,
            dedup_id: None,
            trace_header: None,
        };
        crate::services::sqs::enqueue(&mut e, QUEUE, m).unwrap();
        let held = consume::take_one(&mut e, QUEUE).unwrap().unwrap();
        let handle = consume::receipt_handle(QUEUE, &held);
        assert!(!handle.is_empty());
        lambda_record(&held.message, QUEUE, &handle, "us-east-1")
    }

    /// The keys of a JSON object, in their order.
    fn keys_of(object: &Value) -> Vec<&str> {
        object
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect()
    }

    #[test]
    fn a_record_has_lambdas_keys_in_order() {
        let record = one_record(Vec::new());
        let keys = keys_of(&record);
        assert_eq!(
            keys,
            [
                "messageId",
                "receiptHandle",
                "body",
                "attributes",
                "messageAttributes",
                "md5OfBody",
                "eventSource",
                "eventSourceARN",
                "awsRegion"
            ],
            "no md5OfMessageAttributes without attributes"
        );
        let attributes = keys_of(&record["attributes"]);
        assert_eq!(
            attributes,
            [
                "ApproximateReceiveCount",
                "SentTimestamp",
                "SenderId",
                "ApproximateFirstReceiveTimestamp"
            ]
        );
        assert_eq!(record["attributes"]["ApproximateReceiveCount"], "1");
        assert_eq!(record["body"], r#"{"n":1}"#);
        assert_eq!(record["eventSource"], "aws:sqs");
        assert_eq!(record["eventSourceARN"], QUEUE);
        assert_eq!(with_parsed_body(&record)["body"], json!({"n": 1}));
    }

    #[test]
    fn attributes_keep_binary_values_and_their_digest() {
        let binary = MessageAttributeValue {
            data_type: "Binary".into(),
            string_value: None,
            binary_value: Some("AAE=".into()),
        };
        let attributes = vec![
            ("b", binary.clone()),
            ("s", MessageAttributeValue::string("x")),
        ];
        let expected_md5 = md5_of_attributes(
            &attributes
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
        .unwrap();
        let record = one_record(attributes);
        assert_eq!(
            record["messageAttributes"]["b"],
            json!({"binaryValue": "AAE=", "stringListValues": [], "binaryListValues": [], "dataType": "Binary"})
        );
        assert_eq!(
            record["messageAttributes"]["s"],
            json!({"stringValue": "x", "stringListValues": [], "binaryListValues": [], "dataType": "String"})
        );
        assert_eq!(record["md5OfMessageAttributes"], expected_md5.as_str());
    }
}
