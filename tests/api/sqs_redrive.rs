//! SQS dead-letter queues (issue 3): RedrivePolicy on the virtual clock, RedriveAllowPolicy,
//! ListDeadLetterSourceQueues and message move tasks paced on the virtual clock; JSON and Query.

use crate::harness::{Harness, xml_text, xml_texts};
use crate::sqs_queues::{
    attributes, counts, create, json_error, peek_bodies, query_error, query_ok, send_all,
};
use aws_sdk_sqs::Client;
use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sdk_sqs::types::{
    MessageAttributeValue, MessageSystemAttributeName as N, QueueAttributeName,
};
use serde_json::json;

fn arn(name: &str) -> String {
    format!("arn:aws:sqs:us-east-1:000000000000:{name}")
}

fn redrive(dlq: &str, max: u32) -> String {
    json!({"deadLetterTargetArn": arn(dlq), "maxReceiveCount": max}).to_string()
}

/// Receives with visibility `vis` and answers the bodies.
async fn receive_bodies(sqs: &Client, url: &str, vis: i32) -> Vec<String> {
    sqs.receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .visibility_timeout(vis)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default()
        .into_iter()
        .map(|m| m.body.unwrap())
        .collect()
}

#[tokio::test]
async fn messages_move_to_the_dlq_when_a_receive_would_exceed_max_receive_count() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let dlq = create(&sqs, "dlq", &[]).await;
    let policy = redrive("dlq", 2);
    let src = create(
        &sqs,
        "work",
        &[("RedrivePolicy", &policy), ("VisibilityTimeout", "10")],
    )
    .await;
    assert_eq!(attributes(&sqs, &src).await["RedrivePolicy"], policy);
    let sent = sqs
        .send_message()
        .queue_url(&src)
        .message_body("poison")
        .message_attributes(
            "attribName1",
            MessageAttributeValue::builder()
                .data_type("String")
                .string_value("attribValue 1")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let sent_at = crate::sqs_queues::now_ms(&h).await;
    for _ in 0..2 {
        assert_eq!(receive_bodies(&sqs, &src, 10).await, ["poison"]);
        h.advance(10.0).await;
    }
    assert_eq!(
        counts(&sqs, &src).await,
        (1, 0, 0),
        "visible until the next receive"
    );
    assert!(
        receive_bodies(&sqs, &src, 10).await.is_empty(),
        "the third receive moves it"
    );
    assert_eq!(counts(&sqs, &src).await, (0, 0, 0));
    assert_eq!(counts(&sqs, &dlq).await, (1, 0, 0));

    let got = sqs
        .receive_message()
        .queue_url(&dlq)
        .message_attribute_names("All")
        .message_system_attribute_names(N::All)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let m = &got[0];
    assert_eq!(m.message_id, sent.message_id);
    assert_eq!(m.body.as_deref(), Some("poison"));
    assert_eq!(m.md5_of_body, sent.md5_of_message_body);
    assert_eq!(m.md5_of_message_attributes, sent.md5_of_message_attributes);
    assert_eq!(
        m.message_attributes.as_ref().unwrap()["attribName1"]
            .string_value
            .as_deref(),
        Some("attribValue 1")
    );
    let a = m.attributes.as_ref().unwrap();
    assert_eq!(a[&N::DeadLetterQueueSourceArn], arn("work"));
    assert_eq!(
        a[&N::SentTimestamp],
        sent_at.to_string(),
        "the original send time"
    );

    // ListDeadLetterSourceQueues, JSON and Query.
    let other = create(
        &sqs,
        "other-source",
        &[("RedrivePolicy", &redrive("dlq", 5))],
    )
    .await;
    create(&sqs, "unrelated", &[]).await;
    let sources = sqs
        .list_dead_letter_source_queues()
        .queue_url(&dlq)
        .send()
        .await
        .unwrap()
        .queue_urls;
    assert_eq!(sources, [other.clone(), src.clone()]);
    let page = sqs
        .list_dead_letter_source_queues()
        .queue_url(&dlq)
        .max_results(1)
        .send()
        .await
        .unwrap();
    assert_eq!(page.queue_urls, [other]);
    let xml = query_ok(
        &h,
        &[
            ("Action", "ListDeadLetterSourceQueues"),
            ("QueueUrl", &dlq),
            ("MaxResults", "1"),
            ("NextToken", page.next_token.as_deref().unwrap()),
        ],
    )
    .await;
    assert_eq!(xml_texts(&xml, "QueueUrl"), [src]);
    let none = sqs
        .list_dead_letter_source_queues()
        .queue_url(other_url(&h, "unrelated"))
        .send()
        .await
        .unwrap();
    assert!(none.queue_urls.is_empty());
    let (_, code) = query_error(
        &h,
        &[
            ("Action", "ListDeadLetterSourceQueues"),
            ("QueueUrl", &other_url(&h, "missing")),
        ],
    )
    .await;
    assert_eq!(code, "AWS.SimpleQueueService.NonExistentQueue");
}

fn other_url(h: &Harness, name: &str) -> String {
    format!("{}/000000000000/{name}", h.url())
}

#[tokio::test]
async fn redrive_policies_are_checked() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    create(&sqs, "std-dlq", &[]).await;
    create(&sqs, "fifo-dlq.fifo", &[("FifoQueue", "true")]).await;
    let src = create(&sqs, "src", &[]).await;

    let cases = [
        redrive("missing", 3),
        redrive("fifo-dlq.fifo", 3),
        redrive("std-dlq", 0),
        redrive("std-dlq", 1001),
        json!({"maxReceiveCount": 3}).to_string(),
        json!({"deadLetterTargetArn": arn("std-dlq")}).to_string(),
        "not json".to_string(),
    ];
    for policy in &cases {
        let err = sqs
            .set_queue_attributes()
            .queue_url(&src)
            .attributes(QueueAttributeName::RedrivePolicy, policy)
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some("InvalidParameterValue"), "{policy}");
    }
    let (status, kind, header) = json_error(
        &h,
        "CreateQueue",
        json!({"QueueName": "fifo-src.fifo", "Attributes": {"FifoQueue": "true",
            "RedrivePolicy": redrive("std-dlq", 3)}}),
    )
    .await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            400,
            "com.amazon.coral.service#InvalidParameterValueException",
            "InvalidParameterValue;Sender"
        )
    );
    let (_, code) = query_error(
        &h,
        &[
            ("Action", "SetQueueAttributes"),
            ("QueueUrl", &src),
            ("Attribute.1.Name", "RedrivePolicy"),
            ("Attribute.1.Value", &redrive("missing", 3)),
        ],
    )
    .await;
    assert_eq!(code, "InvalidParameterValue");
    assert!(!attributes(&sqs, &src).await.contains_key("RedrivePolicy"));

    // Valid ones, over Query too; an empty value removes the policy.
    query_ok(
        &h,
        &[
            ("Action", "SetQueueAttributes"),
            ("QueueUrl", &src),
            ("Attribute.1.Name", "RedrivePolicy"),
            ("Attribute.1.Value", &redrive("std-dlq", 4)),
        ],
    )
    .await;
    assert_eq!(
        attributes(&sqs, &src).await["RedrivePolicy"],
        redrive("std-dlq", 4)
    );
    sqs.set_queue_attributes()
        .queue_url(&src)
        .attributes(QueueAttributeName::RedrivePolicy, "")
        .send()
        .await
        .unwrap();
    assert!(!attributes(&sqs, &src).await.contains_key("RedrivePolicy"));
    create(
        &sqs,
        "fifo-src.fifo",
        &[
            ("FifoQueue", "true"),
            ("RedrivePolicy", &redrive("fifo-dlq.fifo", 3)),
        ],
    )
    .await;
}

#[tokio::test]
async fn redrive_allow_policy_is_enforced() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let closed = create(
        &sqs,
        "closed",
        &[("RedriveAllowPolicy", r#"{"redrivePermission":"denyAll"}"#)],
    )
    .await;
    let allow =
        json!({"redrivePermission": "byQueue", "sourceQueueArns": [arn("chosen")]}).to_string();
    let picky = create(&sqs, "picky", &[("RedriveAllowPolicy", &allow)]).await;
    create(
        &sqs,
        "open",
        &[("RedriveAllowPolicy", r#"{"redrivePermission":"allowAll"}"#)],
    )
    .await;
    assert_eq!(attributes(&sqs, &picky).await["RedriveAllowPolicy"], allow);

    let chosen = create(&sqs, "chosen", &[]).await;
    let stranger = create(&sqs, "stranger", &[]).await;
    for (url, dlq, ok) in [
        (&chosen, "closed", false),
        (&chosen, "picky", true),
        (&stranger, "picky", false),
        (&stranger, "open", true),
    ] {
        let res = sqs
            .set_queue_attributes()
            .queue_url(url)
            .attributes(QueueAttributeName::RedrivePolicy, redrive(dlq, 2))
            .send()
            .await;
        match res {
            Ok(_) => assert!(ok, "{url} → {dlq} allowed"),
            Err(err) => {
                assert!(!ok, "{url} → {dlq} refused: {err:?}");
                assert_eq!(err.code(), Some("InvalidParameterValue"));
            }
        }
    }
    let (_, code) = query_error(
        &h,
        &[
            ("Action", "CreateQueue"),
            ("QueueName", "newcomer"),
            ("Attribute.1.Name", "RedrivePolicy"),
            ("Attribute.1.Value", &redrive("closed", 2)),
        ],
    )
    .await;
    assert_eq!(code, "InvalidParameterValue");

    // Malformed allow policies.
    let many: Vec<String> = (0..11).map(|i| arn(&format!("q{i}"))).collect();
    for bad in [
        json!({"redrivePermission": "sometimes"}).to_string(),
        json!({"redrivePermission": "byQueue"}).to_string(),
        json!({"redrivePermission": "byQueue", "sourceQueueArns": many}).to_string(),
        json!({"redrivePermission": "denyAll", "sourceQueueArns": [arn("x")]}).to_string(),
        "{".to_string(),
    ] {
        let err = sqs
            .set_queue_attributes()
            .queue_url(&closed)
            .attributes(QueueAttributeName::RedriveAllowPolicy, &bad)
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some("InvalidAttributeValue"), "{bad}");
    }
    let (_, code) = query_error(
        &h,
        &[
            ("Action", "SetQueueAttributes"),
            ("QueueUrl", &closed),
            ("Attribute.1.Name", "RedriveAllowPolicy"),
            ("Attribute.1.Value", "{}"),
        ],
    )
    .await;
    assert_eq!(code, "InvalidAttributeValue");
}

#[tokio::test]
async fn fifo_redrive_keeps_the_group_and_unblocks_it() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let dlq = create(&sqs, "dead.fifo", &[("FifoQueue", "true")]).await;
    let src = create(
        &sqs,
        "live.fifo",
        &[
            ("FifoQueue", "true"),
            ("ContentBasedDeduplication", "true"),
            ("RedrivePolicy", &redrive("dead.fifo", 1)),
        ],
    )
    .await;
    for body in ["a1", "a2"] {
        sqs.send_message()
            .queue_url(&src)
            .message_body(body)
            .message_group_id("a")
            .send()
            .await
            .unwrap();
    }
    let got = sqs
        .receive_message()
        .queue_url(&src)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let poisoned_id = got[0].message_id.clone().unwrap();
    h.advance(30.0).await;
    // a1 goes to the DLQ; a2 is next in its group.
    assert_eq!(receive_bodies(&sqs, &src, 30).await, ["a2"]);
    let dead = sqs
        .receive_message()
        .queue_url(&dlq)
        .message_system_attribute_names(N::All)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    assert_eq!(dead[0].body.as_deref(), Some("a1"));
    let a = dead[0].attributes.as_ref().unwrap();
    assert_eq!(a[&N::MessageGroupId], "a");
    assert_eq!(a[&N::DeadLetterQueueSourceArn], arn("live.fifo"));
    assert_eq!(
        a[&N::MessageDeduplicationId],
        poisoned_id,
        "a FIFO DLQ replaces the deduplication id with the message id"
    );
    assert!(a.contains_key(&N::SequenceNumber));
}

/// A DLQ `dlq` fed by `src` (maxReceiveCount 1) holding `bodies`, moved there by receives.
async fn dead_letters(
    h: &Harness,
    sqs: &Client,
    src: &str,
    dlq: &str,
    bodies: &[&str],
) -> (String, String) {
    let dlq_url = create(sqs, dlq, &[]).await;
    let src_url = create(
        sqs,
        src,
        &[
            ("RedrivePolicy", &redrive(dlq, 1)),
            ("VisibilityTimeout", "1"),
        ],
    )
    .await;
    send_all(sqs, &src_url, bodies).await;
    while !receive_bodies(sqs, &src_url, 1).await.is_empty() {}
    h.advance(1.0).await;
    assert!(receive_bodies(sqs, &src_url, 1).await.is_empty());
    assert_eq!(counts(sqs, &dlq_url).await, (bodies.len() as u64, 0, 0));
    (src_url, dlq_url)
}

#[tokio::test]
async fn move_tasks_are_paced_on_the_virtual_clock() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let bodies = ["m1", "m2", "m3", "m4", "m5"];
    let (src, dlq) = dead_letters(&h, &sqs, "source", "dlq", &bodies).await;
    let before: Vec<String> = sqs
        .receive_message()
        .queue_url(&dlq)
        .max_number_of_messages(10)
        .visibility_timeout(0)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap()
        .into_iter()
        .map(|m| m.message_id.unwrap())
        .collect();

    let handle = sqs
        .start_message_move_task()
        .source_arn(arn("dlq"))
        .max_number_of_messages_per_second(2)
        .send()
        .await
        .unwrap()
        .task_handle
        .unwrap();
    let status = |sqs: Client| async move {
        let tasks = sqs
            .list_message_move_tasks()
            .source_arn(arn("dlq"))
            .send()
            .await
            .unwrap()
            .results
            .unwrap();
        assert_eq!(tasks.len(), 1, "MaxResults defaults to the most recent");
        tasks.into_iter().next().unwrap()
    };
    h.advance(0.0).await;
    let t = status(sqs.clone()).await;
    assert_eq!(t.status.as_deref(), Some("RUNNING"));
    assert_eq!(t.task_handle.as_deref(), Some(handle.as_str()));
    assert_eq!(t.approximate_number_of_messages_moved, 2);
    assert_eq!(t.approximate_number_of_messages_to_move, Some(5));
    assert_eq!(t.max_number_of_messages_per_second, Some(2));
    assert_eq!(t.source_arn.as_deref(), Some(arn("dlq").as_str()));
    assert_eq!(t.destination_arn, None);
    assert!(t.started_timestamp > 0);
    assert_eq!(counts(&sqs, &src).await.0, 2);
    h.advance(1.0).await;
    assert_eq!(
        status(sqs.clone())
            .await
            .approximate_number_of_messages_moved,
        4
    );
    assert_eq!(counts(&sqs, &dlq).await.0, 1);
    h.advance(1.0).await;
    let t = status(sqs.clone()).await;
    assert_eq!(t.approximate_number_of_messages_moved, 5);
    assert_eq!(t.status.as_deref(), Some("COMPLETED"));
    assert_eq!(t.task_handle, None, "a handle only while RUNNING");
    // Back in the source queue, in order, as new messages (one receive: the source's
    // maxReceiveCount is 1, so a second one would dead-letter them again).
    assert_eq!(counts(&sqs, &dlq).await, (0, 0, 0));
    let moved = sqs
        .receive_message()
        .queue_url(&src)
        .max_number_of_messages(10)
        .message_system_attribute_names(N::All)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let got: Vec<_> = moved.iter().map(|m| m.body.as_deref().unwrap()).collect();
    assert_eq!(got, bodies);
    for m in &moved {
        assert!(
            !before.contains(m.message_id.as_ref().unwrap()),
            "a new message id"
        );
        let a = m.attributes.as_ref().unwrap();
        assert!(!a.contains_key(&N::DeadLetterQueueSourceArn));
        assert_eq!(a[&N::ApproximateReceiveCount], "1");
    }
    // Cancelling a finished task: ResourceNotFoundException.
    let err = sqs
        .cancel_message_move_task()
        .task_handle(&handle)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ResourceNotFoundException"));
}

#[tokio::test]
async fn move_tasks_to_a_destination_cancel_and_errors() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let (src, _dlq) = dead_letters(&h, &sqs, "source", "dlq", &["a", "b", "c", "d"]).await;
    let elsewhere = create(&sqs, "elsewhere", &[]).await;

    // No rate: everything in one go, to the destination.
    sqs.start_message_move_task()
        .source_arn(arn("dlq"))
        .destination_arn(arn("elsewhere"))
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    assert_eq!(peek_bodies(&sqs, &elsewhere).await, ["a", "b", "c", "d"]);
    assert!(peek_bodies(&sqs, &src).await.is_empty());
    let tasks = sqs
        .list_message_move_tasks()
        .source_arn(arn("dlq"))
        .send()
        .await
        .unwrap()
        .results
        .unwrap();
    assert_eq!(tasks[0].status.as_deref(), Some("COMPLETED"));
    assert_eq!(
        tasks[0].destination_arn.as_deref(),
        Some(arn("elsewhere").as_str())
    );
    assert_eq!(tasks[0].approximate_number_of_messages_moved, 4);

    // Cancel a slow one over Query, after the first step.
    let (_, dlq2) = dead_letters(&h, &sqs, "source2", "dlq2", &["1", "2", "3"]).await;
    let xml = query_ok(
        &h,
        &[
            ("Action", "StartMessageMoveTask"),
            ("SourceArn", &arn("dlq2")),
            ("MaxNumberOfMessagesPerSecond", "1"),
        ],
    )
    .await;
    let handle = xml_text(&xml, "TaskHandle").unwrap();
    h.advance(0.0).await;
    // Only one active task per source.
    let err = sqs
        .start_message_move_task()
        .source_arn(arn("dlq2"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let xml = query_ok(
        &h,
        &[
            ("Action", "ListMessageMoveTasks"),
            ("SourceArn", &arn("dlq2")),
        ],
    )
    .await;
    assert!(xml.contains("<ListMessageMoveTasksResultEntry>"), "{xml}");
    assert_eq!(xml_text(&xml, "Status").as_deref(), Some("RUNNING"));
    assert_eq!(xml_text(&xml, "TaskHandle"), Some(handle.clone()));
    assert_eq!(
        xml_text(&xml, "ApproximateNumberOfMessagesMoved").as_deref(),
        Some("1")
    );
    let xml = query_ok(
        &h,
        &[("Action", "CancelMessageMoveTask"), ("TaskHandle", &handle)],
    )
    .await;
    assert_eq!(
        xml_text(&xml, "ApproximateNumberOfMessagesMoved").as_deref(),
        Some("1")
    );
    h.advance(10.0).await;
    let tasks = sqs
        .list_message_move_tasks()
        .source_arn(arn("dlq2"))
        .max_results(10)
        .send()
        .await
        .unwrap()
        .results
        .unwrap();
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0].status.as_deref(), Some("CANCELLED"));
    assert_eq!(tasks[0].approximate_number_of_messages_moved, 1);
    assert_eq!(counts(&sqs, &dlq2).await.0, 2, "moves stop when cancelled");
    let err = sqs
        .cancel_message_move_task()
        .task_handle(&handle)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ResourceNotFoundException"));
    // Two tasks on dlq2 now: MaxResults picks the most recent first.
    sqs.start_message_move_task()
        .source_arn(arn("dlq2"))
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    let tasks = sqs
        .list_message_move_tasks()
        .source_arn(arn("dlq2"))
        .max_results(10)
        .send()
        .await
        .unwrap()
        .results
        .unwrap();
    let statuses: Vec<_> = tasks.iter().map(|t| t.status.clone().unwrap()).collect();
    assert_eq!(statuses, ["COMPLETED", "CANCELLED"]);

    // Errors.
    let err = sqs
        .start_message_move_task()
        .source_arn(arn("elsewhere"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    assert_eq!(
        err.message(),
        Some("Source queue must be configured as a Dead Letter Queue.")
    );
    let (status, kind, header) = json_error(
        &h,
        "StartMessageMoveTask",
        json!({"SourceArn": arn("nowhere")}),
    )
    .await;
    assert_eq!(
        (status, kind.as_str(), header.as_str()),
        (
            404,
            "com.amazonaws.sqs#ResourceNotFoundException",
            "ResourceNotFoundException;Sender"
        )
    );
    let (status, code) = query_error(
        &h,
        &[
            ("Action", "StartMessageMoveTask"),
            ("SourceArn", &arn("dlq")),
            ("DestinationArn", &arn("nowhere")),
        ],
    )
    .await;
    assert_eq!((status, code.as_str()), (404, "ResourceNotFoundException"));
    let err = sqs
        .start_message_move_task()
        .source_arn(arn("dlq"))
        .max_number_of_messages_per_second(501)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let err = sqs
        .cancel_message_move_task()
        .task_handle("not-a-handle")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let (status, code) = query_error(
        &h,
        &[
            ("Action", "CancelMessageMoveTask"),
            ("TaskHandle", "eyJ0YXNrSWQiOiJub3BlIn0="),
        ],
    )
    .await;
    assert_eq!((status, code.as_str()), (404, "ResourceNotFoundException"));
    let err = sqs
        .list_message_move_tasks()
        .source_arn(arn("dlq"))
        .max_results(11)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let (_, code) = query_error(
        &h,
        &[
            ("Action", "ListMessageMoveTasks"),
            ("SourceArn", &arn("nowhere")),
        ],
    )
    .await;
    assert_eq!(code, "ResourceNotFoundException");
}

#[tokio::test]
async fn a_move_task_waits_for_messages_in_flight_to_become_visible() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let (src, dlq) = dead_letters(&h, &sqs, "src", "held", &["held-1"]).await;
    // Someone is looking at the dead letter when the task starts.
    assert_eq!(receive_bodies(&sqs, &dlq, 30).await, ["held-1"]);
    sqs.start_message_move_task()
        .source_arn(arn("held"))
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    let task = |sqs: Client| async move {
        let list = sqs
            .list_message_move_tasks()
            .source_arn(arn("held"))
            .send()
            .await
            .unwrap();
        list.results.unwrap().into_iter().next().unwrap()
    };
    let t = task(sqs.clone()).await;
    assert_eq!(t.status.as_deref(), Some("RUNNING"));
    assert_eq!(
        (
            t.approximate_number_of_messages_to_move,
            t.approximate_number_of_messages_moved
        ),
        (Some(1), 0)
    );
    h.advance(30.0).await;
    let t = task(sqs.clone()).await;
    assert_eq!(
        (t.status.as_deref(), t.approximate_number_of_messages_moved),
        (Some("COMPLETED"), 1)
    );
    assert_eq!(peek_bodies(&sqs, &src).await, ["held-1"]);
}
