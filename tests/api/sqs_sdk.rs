//! SQS through the official AWS SDK for Rust (AWS JSON 1.0).

use crate::harness::{Harness, no_hang};
use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sdk_sqs::types::{MessageAttributeValue, MessageSystemAttributeName, QueueAttributeName};

fn md5_hex(data: &[u8]) -> String {
    // Independent of the server's code: the SDK-visible digest of "hello" and friends.
    use md5::{Digest, Md5};
    Md5::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[tokio::test]
async fn queue_lifecycle_create_find_list_delete() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("orders")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    assert_eq!(url, format!("{}/000000000000/orders", h.url()));
    // CreateQueue is idempotent with equal attributes.
    let again = sqs
        .create_queue()
        .queue_name("orders")
        .send()
        .await
        .unwrap();
    assert_eq!(again.queue_url.as_deref(), Some(url.as_str()));
    sqs.create_queue()
        .queue_name("payments")
        .send()
        .await
        .unwrap();

    let found = sqs
        .get_queue_url()
        .queue_name("orders")
        .send()
        .await
        .unwrap();
    assert_eq!(found.queue_url.as_deref(), Some(url.as_str()));

    let all = sqs
        .list_queues()
        .send()
        .await
        .unwrap()
        .queue_urls
        .unwrap_or_default();
    assert_eq!(all.len(), 2);
    let some = sqs
        .list_queues()
        .queue_name_prefix("ord")
        .send()
        .await
        .unwrap();
    assert_eq!(
        some.queue_urls.unwrap_or_default(),
        std::slice::from_ref(&url)
    );

    sqs.delete_queue().queue_url(&url).send().await.unwrap();
    let err = sqs
        .get_queue_url()
        .queue_name("orders")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_queue_does_not_exist());
}

#[tokio::test]
async fn list_queues_pages_with_next_token() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    for i in 0..5 {
        sqs.create_queue()
            .queue_name(format!("q{i}"))
            .send()
            .await
            .unwrap();
    }
    let mut seen = vec![];
    let mut token = None;
    loop {
        let page = sqs
            .list_queues()
            .max_results(2)
            .set_next_token(token)
            .send()
            .await
            .unwrap();
        let urls = page.queue_urls.unwrap_or_default();
        assert!(urls.len() <= 2);
        seen.extend(urls);
        token = page.next_token;
        if token.is_none() {
            break;
        }
    }
    let names: Vec<_> = seen
        .iter()
        .map(|u| u.rsplit('/').next().unwrap().to_string())
        .collect();
    assert_eq!(names, ["q0", "q1", "q2", "q3", "q4"]);
}

#[tokio::test]
async fn send_receive_delete_round_trip_with_digests() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("q")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let body = "héllo wörld ✓ <xml> & \"json\"";
    let sent = sqs
        .send_message()
        .queue_url(&url)
        .message_body(body)
        .message_attributes(
            "color",
            MessageAttributeValue::builder()
                .data_type("String")
                .string_value("blue")
                .build()
                .unwrap(),
        )
        .message_attributes(
            "n",
            MessageAttributeValue::builder()
                .data_type("Number")
                .string_value("42")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(
        sent.md5_of_message_body.as_deref(),
        Some(md5_hex(body.as_bytes()).as_str())
    );
    assert!(sent.md5_of_message_attributes.is_some());

    let got = sqs
        .receive_message()
        .queue_url(&url)
        .message_attribute_names("All")
        .message_system_attribute_names(MessageSystemAttributeName::All)
        .send()
        .await
        .unwrap();
    let messages = got.messages.unwrap();
    assert_eq!(messages.len(), 1);
    let m = &messages[0];
    assert_eq!(m.body.as_deref(), Some(body));
    assert_eq!(m.message_id, sent.message_id);
    assert_eq!(m.md5_of_body, sent.md5_of_message_body);
    assert_eq!(m.md5_of_message_attributes, sent.md5_of_message_attributes);
    let attrs = m.message_attributes.as_ref().unwrap();
    assert_eq!(attrs["color"].string_value.as_deref(), Some("blue"));
    let system = m.attributes.as_ref().unwrap();
    assert_eq!(
        system[&MessageSystemAttributeName::ApproximateReceiveCount],
        "1"
    );
    assert!(system.contains_key(&MessageSystemAttributeName::SentTimestamp));

    sqs.delete_message()
        .queue_url(&url)
        .receipt_handle(m.receipt_handle.clone().unwrap())
        .send()
        .await
        .unwrap();
    // Deleted: not even after the visibility timeout.
    h.advance(31.0).await;
    let again = sqs.receive_message().queue_url(&url).send().await.unwrap();
    assert!(again.messages.unwrap_or_default().is_empty());
}

#[tokio::test]
async fn attribute_digest_matches_what_the_sdk_computes_for_binary() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("bin")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let blob = aws_sdk_sqs::primitives::Blob::new(vec![0u8, 1, 2, 255]);
    let sent = sqs
        .send_message()
        .queue_url(&url)
        .message_body("b")
        .message_attributes(
            "raw",
            MessageAttributeValue::builder()
                .data_type("Binary")
                .binary_value(blob.clone())
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    // AWS's encoding: name, type, transport 2, value, each length-prefixed (4 bytes, big endian).
    let mut buf = vec![];
    for part in [&b"raw"[..], b"Binary"] {
        buf.extend_from_slice(&(part.len() as u32).to_be_bytes());
        buf.extend_from_slice(part);
    }
    buf.push(2);
    buf.extend_from_slice(&4u32.to_be_bytes());
    buf.extend_from_slice(&[0, 1, 2, 255]);
    assert_eq!(
        sent.md5_of_message_attributes.as_deref(),
        Some(md5_hex(&buf).as_str())
    );
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .message_attribute_names("raw")
        .send()
        .await
        .unwrap();
    let m = &got.messages.unwrap()[0];
    assert_eq!(
        m.message_attributes.as_ref().unwrap()["raw"].binary_value,
        Some(blob)
    );
}

#[tokio::test]
async fn visibility_timeout_runs_on_the_virtual_clock() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("vis")
        .attributes(QueueAttributeName::VisibilityTimeout, "30")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    sqs.send_message()
        .queue_url(&url)
        .message_body("once")
        .send()
        .await
        .unwrap();
    let first = sqs
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    assert_eq!(first.len(), 1);
    assert!(
        sqs.receive_message()
            .queue_url(&url)
            .send()
            .await
            .unwrap()
            .messages
            .is_none()
    );
    h.advance(29.999).await;
    assert!(
        sqs.receive_message()
            .queue_url(&url)
            .send()
            .await
            .unwrap()
            .messages
            .is_none()
    );
    h.advance(0.001).await;
    let second = sqs
        .receive_message()
        .queue_url(&url)
        .message_system_attribute_names(MessageSystemAttributeName::ApproximateReceiveCount)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    assert_eq!(second[0].message_id, first[0].message_id);
    assert_eq!(
        second[0].attributes.as_ref().unwrap()
            [&MessageSystemAttributeName::ApproximateReceiveCount],
        "2"
    );
    assert_ne!(second[0].receipt_handle, first[0].receipt_handle);
    // The earlier receipt handle deletes the message received again, as in SQS (issue 14).
    sqs.delete_message()
        .queue_url(&url)
        .receipt_handle(first[0].receipt_handle.clone().unwrap())
        .send()
        .await
        .unwrap();
    h.advance(30.0).await;
    assert!(
        sqs.receive_message()
            .queue_url(&url)
            .send()
            .await
            .unwrap()
            .messages
            .is_none()
    );
}

#[tokio::test]
async fn long_poll_wakes_on_send_and_on_the_virtual_deadline() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("lp")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();

    let poll = {
        let (sqs, url) = (sqs.clone(), url.clone());
        tokio::spawn(async move {
            sqs.receive_message()
                .queue_url(url)
                .wait_time_seconds(20)
                .send()
                .await
        })
    };
    sqs.send_message()
        .queue_url(&url)
        .message_body("wake")
        .send()
        .await
        .unwrap();
    let got = poll.await.unwrap().unwrap();
    // Either the poll was waiting and woke, or the send came first: the message arrives both ways.
    assert_eq!(got.messages.unwrap()[0].body.as_deref(), Some("wake"));

    let empty = sqs
        .create_queue()
        .queue_name("empty")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let app = h.emulator.app().clone();
    let timers_before = app.engine().pending_timers();
    let poll = {
        let sqs = sqs.clone();
        tokio::spawn(async move {
            sqs.receive_message()
                .queue_url(empty)
                .wait_time_seconds(20)
                .send()
                .await
        })
    };
    // Make sure the poll is registered before time moves: wait (wall-clock bounded) until the
    // engine holds its deadline timer.
    for _ in 0..10_000 {
        if app.engine().pending_timers() > timers_before {
            break;
        }
        tokio::task::yield_now().await;
    }
    h.advance(20.0).await;
    let got = no_hang("a long poll past its virtual deadline", poll)
        .await
        .unwrap()
        .unwrap();
    assert!(got.messages.is_none());
}

#[tokio::test]
async fn delayed_messages_appear_when_their_delay_has_passed() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("d")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    sqs.send_message()
        .queue_url(&url)
        .message_body("later")
        .delay_seconds(900)
        .send()
        .await
        .unwrap();
    h.advance(899.0).await;
    assert!(
        sqs.receive_message()
            .queue_url(&url)
            .send()
            .await
            .unwrap()
            .messages
            .is_none()
    );
    h.advance(1.0).await;
    assert_eq!(
        sqs.receive_message()
            .queue_url(&url)
            .send()
            .await
            .unwrap()
            .messages
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn errors_carry_aws_codes() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let missing = format!("{}/000000000000/missing", h.url());
    let err = sqs
        .send_message()
        .queue_url(&missing)
        .message_body("x")
        .send()
        .await
        .unwrap_err();
    let err = err.into_service_error();
    assert!(err.is_queue_does_not_exist(), "{err:?}");
    assert_eq!(err.code(), Some("AWS.SimpleQueueService.NonExistentQueue"));

    let err = sqs
        .create_queue()
        .queue_name("bad name")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));

    sqs.create_queue()
        .queue_name("v")
        .attributes(QueueAttributeName::VisibilityTimeout, "10")
        .send()
        .await
        .unwrap();
    let err = sqs
        .create_queue()
        .queue_name("v")
        .attributes(QueueAttributeName::VisibilityTimeout, "20")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("QueueAlreadyExists"));

    let err = sqs
        .create_queue()
        .queue_name("t")
        .attributes(QueueAttributeName::DelaySeconds, "901")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidAttributeValue"));

    let url = sqs
        .create_queue()
        .queue_name("ok")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let err = sqs
        .delete_message()
        .queue_url(&url)
        .receipt_handle("garbage")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ReceiptHandleIsInvalid"));
    let err = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(11)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
}

#[tokio::test]
async fn accounts_and_regions_come_from_the_signature() {
    let h = Harness::start().await;
    let other = h.sqs_as("111122223333", "us-east-1");
    let url = other
        .create_queue()
        .queue_name("mine")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    assert_eq!(url, format!("{}/111122223333/mine", h.url()));
    // The default account does not see it by name...
    let err = h
        .sqs()
        .get_queue_url()
        .queue_name("mine")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_queue_does_not_exist());
    // ...unless it names the owner, whose queue policy lets it.
    other
        .add_permission()
        .queue_url(&url)
        .label("find-me")
        .aws_account_ids("000000000000")
        .actions("GetQueueUrl")
        .send()
        .await
        .unwrap();
    let found = h
        .sqs()
        .get_queue_url()
        .queue_name("mine")
        .queue_owner_aws_account_id("111122223333")
        .send()
        .await
        .unwrap();
    assert_eq!(found.queue_url.as_deref(), Some(url.as_str()));
    // Another region is another place.
    let west = h.sqs_as("111122223333", "eu-west-1");
    assert!(
        west.list_queues()
            .send()
            .await
            .unwrap()
            .queue_urls
            .unwrap_or_default()
            .is_empty()
    );
}

#[tokio::test]
async fn sts_get_caller_identity_answers_the_account() {
    let h = Harness::start().await;
    let me = h.sts_as("test").get_caller_identity().send().await.unwrap();
    assert_eq!(me.account.as_deref(), Some("000000000000"));
    assert_eq!(me.arn.as_deref(), Some("arn:aws:iam::000000000000:root"));
    let other = h
        .sts_as("123456789012")
        .get_caller_identity()
        .send()
        .await
        .unwrap();
    assert_eq!(other.account.as_deref(), Some("123456789012"));
}
