//! SNS message archiving and replay for FIFO topics (issue 4, item 5): ArchivePolicy and
//! BeginningArchiveTime on the topic, ReplayPolicy and ReplayStatus on the subscription, replays
//! into SQS FIFO queues in group order with the original ids, EndingPoint, filter policies,
//! retention on the manual clock, and the validation errors.

use crate::harness::Harness;
use crate::sns_publish::{queue, receive, string_attr};
use crate::sns_subscriptions::{set_sub_attribute, sub_attributes, subscribe};
use crate::sns_topics::{create_topic, sdk_error, topic_attributes};
use aws_sdk_sns::Client;
use aws_sdk_sqs::types::MessageSystemAttributeName;
use serde_json::Value;
use switchyard::engine::time::{format_rfc3339, parse_rfc3339};

/// One message as a FIFO queue received it.
#[derive(Debug)]
struct Received {
    group: String,
    dedup: String,
    body: String,
    doc: Value,
}

impl Received {
    fn text(&self) -> &str {
        self.doc["Message"].as_str().unwrap()
    }
}

/// Receives and deletes everything in a queue, in the order SQS hands it out.
async fn drain(h: &Harness, url: &str) -> Vec<Received> {
    let mut got = Vec::new();
    loop {
        let batch = receive(h, url).await;
        if batch.is_empty() {
            return got;
        }
        for m in batch {
            h.sqs()
                .delete_message()
                .queue_url(url)
                .receipt_handle(m.receipt_handle.clone().unwrap())
                .send()
                .await
                .unwrap();
            let attrs = m.attributes.clone().unwrap_or_default();
            got.push(Received {
                group: attrs
                    .get(&MessageSystemAttributeName::MessageGroupId)
                    .cloned()
                    .unwrap_or_default(),
                dedup: attrs
                    .get(&MessageSystemAttributeName::MessageDeduplicationId)
                    .cloned()
                    .unwrap_or_default(),
                body: m.body.clone().unwrap(),
                doc: serde_json::from_str(m.body.as_deref().unwrap()).unwrap(),
            });
        }
    }
}

/// The texts of one group, in the order received.
fn group(got: &[Received], name: &str) -> Vec<String> {
    got.iter()
        .filter(|r| r.group == name)
        .map(|r| r.text().to_string())
        .collect()
}

fn replay_policy(from: i64, to: Option<i64>) -> String {
    let end = to.map_or(String::new(), |t| {
        format!(r#","EndingPoint":"{}""#, format_rfc3339(t))
    });
    format!(
        r#"{{"PointType":"Timestamp","StartingPoint":"{}"{end}}}"#,
        format_rfc3339(from)
    )
}

async fn beginning(sns: &Client, topic: &str) -> i64 {
    let attrs = topic_attributes(sns, topic).await;
    parse_rfc3339(&attrs["BeginningArchiveTime"]).unwrap()
}

/// What a publish answered.
struct Published {
    id: String,
    sequence: String,
}

async fn publish(sns: &Client, topic: &str, text: &str, group: &str) -> Published {
    let r = sns
        .publish()
        .topic_arn(topic)
        .message(text)
        .message_group_id(group)
        .message_deduplication_id(format!("dedup-{text}"))
        .message_attributes("group", string_attr(group))
        .send()
        .await
        .unwrap();
    Published {
        id: r.message_id.unwrap(),
        sequence: r.sequence_number.unwrap(),
    }
}

#[tokio::test]
async fn a_replay_delivers_the_archived_messages_since_a_timestamp_in_group_order() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "ledger.fifo", &[("FifoTopic", "true")]).await;
    let attrs = topic_attributes(&sns, &topic).await;
    assert!(!attrs.contains_key("ArchivePolicy"), "{attrs:?}");
    assert!(!attrs.contains_key("BeginningArchiveTime"), "{attrs:?}");

    let policy = r#"{"MessageRetentionPeriod":2}"#;
    sns.set_topic_attributes()
        .topic_arn(&topic)
        .attribute_name("ArchivePolicy")
        .attribute_value(policy)
        .send()
        .await
        .unwrap();
    let attrs = topic_attributes(&sns, &topic).await;
    assert_eq!(attrs["ArchivePolicy"], policy);
    let t0 = beginning(&sns, &topic).await;

    // A live subscriber sees every message once, without the Replayed field.
    let (live_url, live_arn) = queue(&h, "live.fifo").await;
    subscribe(&sns, &topic, "sqs", &live_arn, &[]).await;

    let mut published = std::collections::BTreeMap::new();
    for (text, group) in [("a0", "a"), ("b0", "b")] {
        published.insert(text, publish(&sns, &topic, text, group).await);
    }
    h.advance(100.0).await;
    for (text, group) in [("a1", "a"), ("b1", "b"), ("a2", "a")] {
        published.insert(text, publish(&sns, &topic, text, group).await);
    }
    h.advance(100.0).await;
    published.insert("b2", publish(&sns, &topic, "b2", "b").await);
    h.advance(100.0).await;
    let live = drain(&h, &live_url).await;
    assert_eq!(live.len(), 6);
    assert!(live.iter().all(|r| r.doc.get("Replayed").is_none()));

    // A new queue subscribed with a ReplayPolicy from t0+50s gets what was published since.
    let (url, arn) = queue(&h, "replica.fifo").await;
    let sub = subscribe(
        &sns,
        &topic,
        "sqs",
        &arn,
        &[("ReplayPolicy", &replay_policy(t0 + 50_000, None))],
    )
    .await;
    let got = drain(&h, &url).await;
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(group(&got, "a"), ["a1", "a2"]);
    assert_eq!(group(&got, "b"), ["b1", "b2"]);
    for r in &got {
        let original = &published[r.text()];
        // The original MessageId, SequenceNumber and Timestamp, FIFO ids passed on, and the
        // Replayed marker last.
        assert_eq!(r.doc["MessageId"], original.id.as_str());
        assert_eq!(r.doc["SequenceNumber"], original.sequence.as_str());
        assert_eq!(r.dedup, format!("dedup-{}", r.text()));
        let expected_ts = live
            .iter()
            .find(|l| l.text() == r.text())
            .map(|l| l.doc["Timestamp"].clone())
            .unwrap();
        assert_eq!(r.doc["Timestamp"], expected_ts);
        assert_eq!(r.doc["Replayed"], true);
        assert_eq!(
            r.doc["MessageAttributes"]["group"]["Value"],
            r.group.as_str()
        );
        assert!(r.body.ends_with(r#"}},"Replayed":true}"#), "{}", r.body);
    }
    let sub_attrs = sub_attributes(&sns, &sub).await;
    assert_eq!(sub_attrs["ReplayStatus"], "Completed");
    assert_eq!(sub_attrs["ReplayPolicy"], replay_policy(t0 + 50_000, None));

    // After the replay the subscription receives new messages as usual.
    publish(&sns, &topic, "a3", "a").await;
    let got = drain(&h, &url).await;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].text(), "a3");
    assert!(got[0].doc.get("Replayed").is_none());

    // Replaying again on an existing subscription (SetSubscriptionAttributes), from t0.
    set_sub_attribute(&sns, &sub, "ReplayPolicy", &replay_policy(t0, None))
        .await
        .unwrap();
    let got = drain(&h, &url).await;
    // All seven go out again; the FIFO queue itself drops the five whose deduplication ids it
    // saw within its own 5-minute window, so only a0 and b0 are new to it.
    assert_eq!(group(&got, "a"), ["a0"]);
    assert_eq!(group(&got, "b"), ["b0"]);
    assert!(got.iter().all(|r| r.doc["Replayed"] == true));

    // No ReplayStatus without a ReplayPolicy; an empty policy removes both.
    set_sub_attribute(&sns, &sub, "ReplayPolicy", "")
        .await
        .unwrap();
    let sub_attrs = sub_attributes(&sns, &sub).await;
    assert!(!sub_attrs.contains_key("ReplayPolicy"), "{sub_attrs:?}");
    assert!(!sub_attrs.contains_key("ReplayStatus"), "{sub_attrs:?}");
}

#[tokio::test]
async fn an_ending_point_bounds_the_replay_and_stops_new_messages() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(
        &sns,
        "bounded.fifo",
        &[
            ("FifoTopic", "true"),
            ("ArchivePolicy", r#"{"MessageRetentionPeriod":"7"}"#),
        ],
    )
    .await;
    let t0 = beginning(&sns, &topic).await;
    for (i, text) in ["x0", "y0", "x1", "y1", "x2"].iter().enumerate() {
        let group = &text[..1];
        publish(&sns, &topic, text, group).await;
        if i % 2 == 1 {
            h.advance(60.0).await;
        }
    }
    // Published at t0 (x0, y0), t0+60 (x1, y1), t0+120 (x2); now t0+120.
    let (url, arn) = queue(&h, "window.fifo").await;
    let sub = subscribe(
        &sns,
        &topic,
        "sqs",
        &arn,
        &[("ReplayPolicy", &replay_policy(t0, Some(t0 + 60_000)))],
    )
    .await;
    let got = drain(&h, &url).await;
    assert_eq!(group(&got, "x"), ["x0", "x1"]);
    assert_eq!(group(&got, "y"), ["y0", "y1"]);
    assert_eq!(
        sub_attributes(&sns, &sub).await["ReplayStatus"],
        "Completed"
    );
    // With an ending point the subscription no longer receives newly published messages.
    publish(&sns, &topic, "x3", "x").await;
    assert!(drain(&h, &url).await.is_empty());

    // An ending point still ahead: the replay is in progress until the clock passes it, and
    // messages published until then still arrive.
    let now = t0 + 120_000;
    let (url2, arn2) = queue(&h, "ahead.fifo").await;
    let sub2 = subscribe(
        &sns,
        &topic,
        "sqs",
        &arn2,
        &[(
            "ReplayPolicy",
            &replay_policy(t0 + 60_000, Some(now + 30_000)),
        )],
    )
    .await;
    assert_eq!(
        sub_attributes(&sns, &sub2).await["ReplayStatus"],
        "In progress"
    );
    let got = drain(&h, &url2).await;
    assert_eq!(group(&got, "x"), ["x1", "x2", "x3"]);
    assert_eq!(group(&got, "y"), ["y1"]);
    publish(&sns, &topic, "y2", "y").await;
    h.advance(31.0).await;
    publish(&sns, &topic, "y3", "y").await;
    let texts: Vec<String> = drain(&h, &url2)
        .await
        .iter()
        .map(|r| r.text().to_string())
        .collect();
    assert_eq!(texts, ["y2"]);
    assert_eq!(
        sub_attributes(&sns, &sub2).await["ReplayStatus"],
        "Completed"
    );
}

#[tokio::test]
async fn a_replay_respects_the_filter_policy() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(
        &sns,
        "filtered.fifo",
        &[
            ("FifoTopic", "true"),
            ("ArchivePolicy", r#"{"MessageRetentionPeriod":1}"#),
        ],
    )
    .await;
    let t0 = beginning(&sns, &topic).await;
    for text in ["a0", "b0", "a1", "b1"] {
        publish(&sns, &topic, text, &text[..1]).await;
    }
    let (url, arn) = queue(&h, "only-b.fifo").await;
    subscribe(
        &sns,
        &topic,
        "sqs",
        &arn,
        &[
            ("FilterPolicy", r#"{"group":["b"]}"#),
            ("ReplayPolicy", &replay_policy(t0, None)),
        ],
    )
    .await;
    let got = drain(&h, &url).await;
    assert_eq!(group(&got, "b"), ["b0", "b1"]);
    assert!(group(&got, "a").is_empty());
}

#[tokio::test]
async fn archived_messages_expire_after_the_retention_period() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(
        &sns,
        "short.fifo",
        &[
            ("FifoTopic", "true"),
            ("ArchivePolicy", r#"{"MessageRetentionPeriod":1}"#),
        ],
    )
    .await;
    let t0 = beginning(&sns, &topic).await;
    publish(&sns, &topic, "old", "g").await;
    h.advance(12.0 * 3600.0).await;
    publish(&sns, &topic, "new", "g").await;
    h.advance(12.0 * 3600.0 + 1.0).await;

    // A day and a second later: the archive begins a day ago, "old" is gone.
    let begins = beginning(&sns, &topic).await;
    assert_eq!(begins, t0 + 1_000);
    let (url, arn) = queue(&h, "late.fifo").await;
    let sub = subscribe(&sns, &topic, "sqs", &arn, &[]).await;
    let (code, message) = set_sub_attribute(&sns, &sub, "ReplayPolicy", &replay_policy(t0, None))
        .await
        .unwrap_err();
    assert_eq!(code, "InvalidParameter");
    assert_eq!(
        message,
        format!(
            "Invalid parameter: ReplayPolicy: StartingPoint must not be earlier than the topic's BeginningArchiveTime {}",
            format_rfc3339(begins)
        )
    );
    set_sub_attribute(&sns, &sub, "ReplayPolicy", &replay_policy(begins, None))
        .await
        .unwrap();
    let texts: Vec<String> = drain(&h, &url)
        .await
        .iter()
        .map(|r| r.text().to_string())
        .collect();
    assert_eq!(texts, ["new"]);

    // Turning archiving off with `{}` purges the archive; turning it on again starts afresh.
    sns.set_topic_attributes()
        .topic_arn(&topic)
        .attribute_name("ArchivePolicy")
        .attribute_value("{}")
        .send()
        .await
        .unwrap();
    let attrs = topic_attributes(&sns, &topic).await;
    assert!(!attrs.contains_key("ArchivePolicy"), "{attrs:?}");
    assert!(!attrs.contains_key("BeginningArchiveTime"), "{attrs:?}");
    let (code, message) =
        set_sub_attribute(&sns, &sub, "ReplayPolicy", &replay_policy(begins, None))
            .await
            .unwrap_err();
    assert_eq!(code, "InvalidParameter");
    assert_eq!(
        message,
        "Invalid parameter: ReplayPolicy: the topic has no ArchivePolicy to replay messages from"
    );
    h.advance(10.0).await;
    sns.set_topic_attributes()
        .topic_arn(&topic)
        .attribute_name("ArchivePolicy")
        .attribute_value(r#"{"MessageRetentionPeriod":3}"#)
        .send()
        .await
        .unwrap();
    let again = beginning(&sns, &topic).await;
    assert_eq!(again, begins + 86_400_000 + 10_000);
    set_sub_attribute(&sns, &sub, "ReplayPolicy", &replay_policy(again, None))
        .await
        .unwrap();
    assert!(drain(&h, &url).await.is_empty());
}

#[tokio::test]
async fn archive_and_replay_policies_are_validated() {
    let h = Harness::start().await;
    let sns = h.sns();
    let standard = create_topic(&sns, "plain", &[]).await;
    let set_topic = |arn: String, value: &'static str| {
        let sns = sns.clone();
        async move {
            sdk_error(
                sns.set_topic_attributes()
                    .topic_arn(arn)
                    .attribute_name("ArchivePolicy")
                    .attribute_value(value)
                    .send()
                    .await,
            )
        }
    };
    assert_eq!(
        set_topic(standard.clone(), r#"{"MessageRetentionPeriod":1}"#).await,
        (
            "InvalidParameter".to_string(),
            "Invalid parameter: ArchivePolicy: Invalid parameter: The attribute ArchivePolicy can only be set for FIFO topics".to_string()
        )
    );
    let (code, message) = sdk_error(
        sns.create_topic()
            .name("plain2")
            .attributes("ArchivePolicy", r#"{"MessageRetentionPeriod":1}"#)
            .send()
            .await,
    );
    assert_eq!(code, "InvalidParameter");
    assert!(
        message.starts_with("Invalid parameter: Attributes Reason: ArchivePolicy:"),
        "{message}"
    );

    let fifo = create_topic(&sns, "checked.fifo", &[("FifoTopic", "true")]).await;
    let range = "Invalid parameter: ArchivePolicy: MessageRetentionPeriod must be an integer number of days from 1 to 365";
    for (value, want) in [
        (r#"{"MessageRetentionPeriod":0}"#, range),
        (r#"{"MessageRetentionPeriod":366}"#, range),
        (r#"{"MessageRetentionPeriod":"ten"}"#, range),
        (r#"{"MessageRetentionPeriod":1.5}"#, range),
        (
            r#"{"Days":3}"#,
            "Invalid parameter: ArchivePolicy: MessageRetentionPeriod is required",
        ),
        (
            "not json",
            "Invalid parameter: ArchivePolicy: failed to parse JSON.",
        ),
    ] {
        assert_eq!(
            set_topic(fifo.clone(), value).await,
            ("InvalidParameter".to_string(), want.to_string()),
            "{value}"
        );
    }

    // ReplayPolicy: on a standard topic's subscription, and on a FIFO topic without archive.
    let (_, std_queue) = queue(&h, "std-q").await;
    let std_sub = subscribe(&sns, &standard, "sqs", &std_queue, &[]).await;
    let any = replay_policy(0, None);
    assert_eq!(
        set_sub_attribute(&sns, &std_sub, "ReplayPolicy", &any)
            .await
            .unwrap_err(),
        (
            "InvalidParameter".to_string(),
            "Invalid parameter: ReplayPolicy: ReplayPolicy can only be set for subscriptions to FIFO topics".to_string()
        )
    );
    let (_, fifo_queue) = queue(&h, "fifo-q.fifo").await;
    let (code, message) = sdk_error(
        sns.subscribe()
            .topic_arn(&fifo)
            .protocol("sqs")
            .endpoint(&fifo_queue)
            .attributes("ReplayPolicy", &any)
            .send()
            .await,
    );
    assert_eq!(code, "InvalidParameter");
    assert_eq!(
        message,
        "Invalid parameter: Attributes Reason: ReplayPolicy: the topic has no ArchivePolicy to replay messages from"
    );

    // With an archive: the policy document itself.
    sns.set_topic_attributes()
        .topic_arn(&fifo)
        .attribute_name("ArchivePolicy")
        .attribute_value(r#"{"MessageRetentionPeriod":30}"#)
        .send()
        .await
        .unwrap();
    let begins = beginning(&sns, &fifo).await;
    let sub = subscribe(&sns, &fifo, "sqs", &fifo_queue, &[]).await;
    let start = format_rfc3339(begins);
    let cases = [
        ("{".to_string(), "failed to parse JSON."),
        (
            format!(r#"{{"PointType":"Sequence","StartingPoint":"{start}"}}"#),
            "PointType must be Timestamp",
        ),
        (
            r#"{"PointType":"Timestamp"}"#.to_string(),
            "StartingPoint is required",
        ),
        (
            r#"{"PointType":"Timestamp","StartingPoint":"last tuesday"}"#.to_string(),
            r#"StartingPoint must be an ISO 8601 timestamp, not "last tuesday""#,
        ),
        (
            format!(
                r#"{{"PointType":"Timestamp","StartingPoint":"{start}","EndingPoint":"2020-13-01T00:00:00Z"}}"#
            ),
            r#"EndingPoint must be an ISO 8601 timestamp, not "2020-13-01T00:00:00Z""#,
        ),
        (
            replay_policy(begins + 60_000, Some(begins)),
            "EndingPoint must not be earlier than StartingPoint",
        ),
    ];
    for (value, want) in cases {
        assert_eq!(
            set_sub_attribute(&sns, &sub, "ReplayPolicy", &value)
                .await
                .unwrap_err(),
            (
                "InvalidParameter".to_string(),
                format!("Invalid parameter: ReplayPolicy: {want}")
            ),
            "{value}"
        );
    }
    // Nothing was stored by the failed attempts.
    let attrs = sub_attributes(&sns, &sub).await;
    assert!(!attrs.contains_key("ReplayPolicy"), "{attrs:?}");
    assert!(!attrs.contains_key("ReplayStatus"), "{attrs:?}");
}
