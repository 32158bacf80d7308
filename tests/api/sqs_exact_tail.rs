//! SQS as AWS answers it, the tail (issue 33, items 2 and 5): FifoQueue given to a standard
//! queue, characters of message attribute values, bare queue names on both protocols,
//! deduplication after a scope change, sequence numbers, CancelMessageMoveTask of a source that
//! does not exist, and FIFO batches lacking a MessageGroupId.

use crate::harness::{Harness, xml_text};
use crate::sqs_queues::create;
use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sdk_sqs::types::{MessageAttributeValue, QueueAttributeName, SendMessageBatchRequestEntry};

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

#[tokio::test]
async fn attribute_values_outside_the_character_set_are_invalid_parameter_values() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "chars", &[]).await;
    let value = |s: &str| {
        MessageAttributeValue::builder()
            .data_type("String")
            .string_value(s)
            .build()
            .unwrap()
    };
    let attribute = "Invalid binary character '#x8' was found in the message attribute 'attr1' \
                     value, the set of allowed characters is #x9 | #xA | #xD | #x20 to #xD7FF | \
                     #xE000 to #xFFFD | #x10000 to #x10FFFF";
    // AWS answers InvalidParameterValue for a value (LocalStack's AWS-validated
    // test_send_message_with_invalid_string_attributes), InvalidMessageContents for a body.
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("fine")
        .message_attributes("attr1", value("Invalid-\u{8},\u{b}"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err), pair("InvalidParameterValue", attribute));
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("body \u{8}")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidMessageContents"));
    // In a batch, the entry fails with the same code.
    let entry = SendMessageBatchRequestEntry::builder()
        .id("a")
        .message_body("fine")
        .message_attributes("attr1", value("x\u{8}"))
        .build()
        .unwrap();
    let out = sqs
        .send_message_batch()
        .queue_url(&url)
        .entries(entry)
        .send()
        .await
        .unwrap();
    let failed = out.failed();
    assert_eq!(failed.len(), 1, "{out:?}");
    assert_eq!(failed[0].code(), "InvalidParameterValue");
    // Over the Query protocol too.
    let (status, code, message) = query_failure(
        &h,
        &[
            ("Action", "SendMessage"),
            ("Version", "2012-11-05"),
            ("QueueUrl", &url),
            ("MessageBody", "fine"),
            ("MessageAttribute.1.Name", "attr1"),
            ("MessageAttribute.1.Value.DataType", "String"),
            ("MessageAttribute.1.Value.StringValue", "Invalid-\u{8}"),
        ],
    )
    .await;
    assert_eq!(
        (status, code.as_str(), message.as_str()),
        (400, "InvalidParameterValue", attribute)
    );
    assert_eq!(crate::sqs_queues::counts(&sqs, &url).await, (0, 0, 0));
}

/// Bodies that JSON, XML and form encoding each escape.
const ESCAPED: [&str; 6] = [
    "{\"order\": \"a\\\"b\"}",
    "line\nbreak\ttab\r",
    "<xml attr='1'>&amp;</xml>",
    "unicode é ✓ 😀",
    "back\\slash/slash",
    "plus+percent%20",
];

#[tokio::test]
async fn a_bare_queue_name_is_the_callers_queue_on_both_protocols_whatever_the_body() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(&sqs, "bare", &[]).await;
    // AWS JSON 1.0 through the SDK, then raw JSON whose strings are escaped (`\u0061` is `a`).
    for body in ESCAPED {
        sqs.send_message()
            .queue_url("bare")
            .message_body(body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{body:?}: {e:?}"));
    }
    let raw = r#"{"QueueUrl":"b\u0061re","MessageBody":"raw \"json\" \u00e9 \/"}"#;
    let r = h.json("1.0", "AmazonSQS.SendMessage", raw).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let batch = serde_json::json!({"QueueUrl": "bare", "Entries": [
        {"Id": "a", "MessageBody": "batch \"a\""}, {"Id": "b", "MessageBody": "batch\n<b>"}]});
    let r = h
        .json("1.0", "AmazonSQS.SendMessageBatch", &batch.to_string())
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["Successful"].as_array().unwrap().len(), 2);
    // AWS Query, form-encoded.
    for body in ESCAPED {
        let r = h
            .query(&[
                ("Action", "SendMessage"),
                ("Version", "2012-11-05"),
                ("QueueUrl", "bare"),
                ("MessageBody", body),
            ])
            .await;
        assert_eq!(r.status, 200, "{body:?}: {}", r.body);
    }
    // Every message is in the caller's queue, body for body; received by name, deleted by name.
    let mut bodies = Vec::new();
    loop {
        let got = sqs
            .receive_message()
            .queue_url("bare")
            .max_number_of_messages(10)
            .send()
            .await
            .unwrap();
        let messages = got.messages();
        if messages.is_empty() {
            break;
        }
        for m in messages {
            bodies.push(m.body().unwrap().to_string());
            sqs.delete_message()
                .queue_url("bare")
                .receipt_handle(m.receipt_handle().unwrap())
                .send()
                .await
                .unwrap();
        }
    }
    let mut expected: Vec<String> = ESCAPED.iter().map(|b| b.to_string()).collect();
    expected.push("raw \"json\" é /".into());
    expected.extend(["batch \"a\"".to_string(), "batch\n<b>".to_string()]);
    expected.extend(ESCAPED.iter().map(|b| b.to_string()));
    bodies.sort();
    expected.sort();
    assert_eq!(bodies, expected);
    assert_eq!(crate::sqs_queues::counts(&sqs, &url).await, (0, 0, 0));
    // Over Query, a bare name of a queue the caller does not have is AWS's NonExistentQueue.
    let (status, code, _) = query_failure(
        &h,
        &[
            ("Action", "SendMessage"),
            ("Version", "2012-11-05"),
            ("QueueUrl", "missing"),
            ("MessageBody", "x"),
        ],
    )
    .await;
    assert_eq!(
        (status, code.as_str()),
        (400, "AWS.SimpleQueueService.NonExistentQueue")
    );
}

#[tokio::test]
async fn messages_keep_the_deduplication_scope_they_were_sent_under_until_their_window_ends() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let send = |url: String, group: &'static str| {
        let sqs = sqs.clone();
        async move {
            sqs.send_message()
                .queue_url(url)
                .message_body(format!("to {group}"))
                .message_group_id(group)
                .message_deduplication_id("d1")
                .send()
                .await
                .unwrap()
                .message_id
                .unwrap()
        }
    };
    let set = |url: String, name: QueueAttributeName, value: &'static str| {
        let sqs = sqs.clone();
        async move {
            sqs.set_queue_attributes()
                .queue_url(url)
                .attributes(name, value)
                .send()
                .await
                .unwrap();
        }
    };
    // Sent per group, then the queue deduplicates per queue: the earlier send still
    // deduplicates in its own group only; the next send is deduplicated queue-wide.
    let url = create(
        &sqs,
        "scope1.fifo",
        &[
            ("FifoQueue", "true"),
            ("DeduplicationScope", "messageGroup"),
            ("FifoThroughputLimit", "perMessageGroupId"),
        ],
    )
    .await;
    let first = send(url.clone(), "g1").await;
    set(
        url.clone(),
        QueueAttributeName::FifoThroughputLimit,
        "perQueue",
    )
    .await;
    set(url.clone(), QueueAttributeName::DeduplicationScope, "queue").await;
    assert_eq!(send(url.clone(), "g1").await, first);
    let third = send(url.clone(), "g3").await;
    assert_ne!(third, first);
    assert_eq!(send(url.clone(), "g4").await, third);
    assert_eq!(crate::sqs_queues::counts(&sqs, &url).await, (2, 0, 0));

    // Sent per queue, then per group: the earlier send still deduplicates every group until
    // its five minutes are up; then each group's own sends count.
    let url = create(&sqs, "scope2.fifo", &[("FifoQueue", "true")]).await;
    let first = send(url.clone(), "g1").await;
    set(
        url.clone(),
        QueueAttributeName::DeduplicationScope,
        "messageGroup",
    )
    .await;
    assert_eq!(send(url.clone(), "g2").await, first);
    assert_eq!(send(url.clone(), "g1").await, first);
    h.advance(301.0).await;
    let g2 = send(url.clone(), "g2").await;
    assert_ne!(g2, first);
    let g1 = send(url.clone(), "g1").await;
    assert_ne!(g1, g2);
    assert_eq!(send(url.clone(), "g2").await, g2);
    assert_eq!(crate::sqs_queues::counts(&sqs, &url).await, (3, 0, 0));
}

#[tokio::test]
async fn fifo_sequence_numbers_are_opaque_growing_20_digit_numbers() {
    let h = Harness::start().await;
    let mut firsts = Vec::new();
    for (account, key) in [("000000000000", "test"), ("111122223333", "111122223333")] {
        let sqs = h.sqs_as(key, "us-east-1");
        let url = create(&sqs, "seq.fifo", &[("FifoQueue", "true")]).await;
        let mut sent = Vec::new();
        for i in 0..20 {
            let n = sqs
                .send_message()
                .queue_url(&url)
                .message_body(format!("m{i}"))
                .message_group_id(format!("g{}", i % 3))
                .message_deduplication_id(format!("d{i}"))
                .send()
                .await
                .unwrap()
                .sequence_number
                .unwrap();
            // As AWS's `18849496460467696128`: 20 digits, no account id inside.
            assert!(
                n.len() == 20 && n.bytes().all(|b| b.is_ascii_digit()),
                "{n}"
            );
            assert!(!n.contains(account), "{n} holds the account id {account}");
            sent.push(n);
        }
        let numbers: Vec<u128> = sent.iter().map(|n| n.parse().unwrap()).collect();
        assert!(
            numbers.windows(2).all(|w| w[0] < w[1]),
            "not strictly increasing: {sent:?}"
        );
        assert!(
            numbers.windows(2).any(|w| w[1] - w[0] > 1),
            "consecutive: {sent:?}"
        );
        // ReceiveMessage gives each message the number its send answered.
        let got = sqs
            .receive_message()
            .queue_url(&url)
            .max_number_of_messages(10)
            .message_system_attribute_names(
                aws_sdk_sqs::types::MessageSystemAttributeName::SequenceNumber,
            )
            .send()
            .await
            .unwrap();
        for m in got.messages() {
            let i: usize = m.body().unwrap()[1..].parse().unwrap();
            let attrs = m.attributes().unwrap();
            assert_eq!(
                attrs[&aws_sdk_sqs::types::MessageSystemAttributeName::SequenceNumber],
                sent[i]
            );
        }
        firsts.push(sent[0].clone());
    }
    // Each queue counts from a place of its own.
    assert_ne!(firsts[0], firsts[1]);
}

#[tokio::test]
async fn cancelling_a_move_task_whose_source_does_not_exist_names_source_arn() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let not_found = pair(
        "ResourceNotFoundException",
        "The resource that you specified for the SourceArn parameter doesn't exist.",
    );
    // A handle of AWS's shape naming a queue that was never made.
    let made_up =
        base64_json(r#"{"taskId":"a1b2","sourceArn":"arn:aws:sqs:us-east-1:000000000000:nope"}"#);
    let err = sqs
        .cancel_message_move_task()
        .task_handle(made_up)
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err), not_found);

    // A running task whose source queue is deleted meanwhile.
    let dlq = create(&sqs, "dlq", &[]).await;
    let policy = serde_json::json!({
        "deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:dlq",
        "maxReceiveCount": 1
    })
    .to_string();
    create(&sqs, "source", &[("RedrivePolicy", &policy)]).await;
    for body in ["a", "b", "c"] {
        sqs.send_message()
            .queue_url(&dlq)
            .message_body(body)
            .send()
            .await
            .unwrap();
    }
    let handle = sqs
        .start_message_move_task()
        .source_arn("arn:aws:sqs:us-east-1:000000000000:dlq")
        .destination_arn("arn:aws:sqs:us-east-1:000000000000:source")
        .max_number_of_messages_per_second(1)
        .send()
        .await
        .unwrap()
        .task_handle
        .unwrap();
    sqs.delete_queue().queue_url(&dlq).send().await.unwrap();
    let err = sqs
        .cancel_message_move_task()
        .task_handle(&handle)
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err), not_found);
    // Not a handle at all: the parameter is invalid, as before.
    let err = sqs
        .cancel_message_move_task()
        .task_handle("not-a-handle")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
}

fn base64_json(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

#[tokio::test]
async fn a_fifo_batch_entry_without_message_group_id_fails_the_request_with_missing_parameter() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = create(
        &sqs,
        "batch.fifo",
        &[("FifoQueue", "true"), ("ContentBasedDeduplication", "true")],
    )
    .await;
    let entry = |id: &str, group: Option<&str>| {
        SendMessageBatchRequestEntry::builder()
            .id(id)
            .message_body(format!("body {id}"))
            .set_message_group_id(group.map(str::to_string))
            .build()
            .unwrap()
    };
    // moto's suite (test_send_message_batch_with_fifo_queue... against AWS): the whole request
    // fails, 400 MissingParameter, with SendMessage's text.
    let err = sqs
        .send_message_batch()
        .queue_url(&url)
        .entries(entry("a", Some("g")))
        .entries(entry("b", None))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.raw_response().map(|r| r.status().as_u16()), Some(400));
    assert_eq!(
        code_message(&err),
        pair(
            "MissingParameter",
            "The request must contain the parameter MessageGroupId."
        )
    );
    let (status, code, message) = query_failure(
        &h,
        &[
            ("Action", "SendMessageBatch"),
            ("Version", "2012-11-05"),
            ("QueueUrl", &url),
            ("SendMessageBatchRequestEntry.1.Id", "a"),
            ("SendMessageBatchRequestEntry.1.MessageBody", "x"),
        ],
    )
    .await;
    assert_eq!(
        (status, code.as_str(), message.as_str()),
        (
            400,
            "MissingParameter",
            "The request must contain the parameter MessageGroupId."
        )
    );
    assert_eq!(crate::sqs_queues::counts(&sqs, &url).await, (0, 0, 0));
}
