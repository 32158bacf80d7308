//! The custom event bus API (issue 7, `AWSEventsV2.<Op>`, AWS JSON 1.1) through raw requests as
//! boto3 and the AWS CLI send them (there is no Rust SDK for it): buses, subscribers with their
//! defaults, validation errors, tags, PutEvents results. Also the helpers the delivery tests share.

use crate::harness::{Harness, Reply};
use serde_json::{Value, json};

pub const ACCOUNT: &str = "000000000000";
pub const ROLE: &str = "arn:aws:iam::000000000000:role/EventBusDeliveryRole";

/// Calls `op` as the default account; the raw reply.
pub async fn raw(h: &Harness, op: &str, body: Value) -> Reply {
    h.json("1.1", &format!("AWSEventsV2.{op}"), &body.to_string())
        .await
}

/// Calls `op` as the account of `access_key`, expecting success.
pub async fn v2_as(h: &Harness, access_key: &str, op: &str, body: Value) -> Value {
    let r = h
        .json_as(
            access_key,
            "1.1",
            &format!("AWSEventsV2.{op}"),
            &body.to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{op}: {}", r.body);
    r.json()
}

/// Calls `op`, expecting success.
pub async fn v2(h: &Harness, op: &str, body: Value) -> Value {
    let r = raw(h, op, body).await;
    assert_eq!(r.status, 200, "{op}: {}", r.body);
    assert_eq!(r.header("content-type"), Some("application/x-amz-json-1.1"));
    r.json()
}

/// Calls `op`, expecting an error: (status, `__type`, message).
pub async fn v2_err(h: &Harness, op: &str, body: Value) -> (u16, String, String) {
    let r = raw(h, op, body).await;
    assert_ne!(r.status, 200, "{op} should fail: {}", r.body);
    let j = r.json();
    (
        r.status,
        j["__type"].as_str().unwrap_or_default().to_string(),
        j["message"].as_str().unwrap_or_default().to_string(),
    )
}

pub async fn bus(h: &Harness, name: &str) -> String {
    let out = v2(h, "CreateEventBus", json!({ "Name": name })).await;
    out["EventBusArn"].as_str().unwrap().to_string()
}

/// A queue (FIFO with content-based dedup when the name ends in `.fifo`): (URL, ARN).
pub async fn queue(h: &Harness, name: &str, attributes: &[(&str, &str)]) -> (String, String) {
    use aws_sdk_sqs::types::QueueAttributeName;
    let mut create = h.sqs().create_queue().queue_name(name);
    if name.ends_with(".fifo") {
        create = create.attributes(QueueAttributeName::FifoQueue, "true");
    }
    for (k, v) in attributes {
        create = create.attributes(QueueAttributeName::from(*k), *v);
    }
    let url = create.send().await.unwrap().queue_url.unwrap();
    (url, format!("arn:aws:sqs:us-east-1:{ACCOUNT}:{name}"))
}

/// A subscriber on `bus` to `target` with `extra` settings merged in.
pub async fn subscriber(h: &Harness, name: &str, bus: &str, target: &str, extra: Value) -> String {
    let mut body = json!({
        "Name": name,
        "EventBusArn": bus,
        "InvokeConfiguration": { "TargetArn": target, "RoleArn": ROLE },
    });
    for (k, v) in extra.as_object().unwrap() {
        if k == "InvokeConfiguration" {
            for (ik, iv) in v.as_object().unwrap() {
                body[k][ik] = iv.clone();
            }
        } else {
            body[k] = v.clone();
        }
    }
    let out = v2(h, "CreateSubscriber", body).await;
    out["SubscriberArn"].as_str().unwrap().to_string()
}

/// An entry of PutEvents.
pub fn entry(detail: Value, group: Option<&str>) -> Value {
    let mut e = json!({
        "Source": "com.example.orders",
        "DetailType": "OrderPlaced",
        "Detail": detail.to_string(),
    });
    if let Some(g) = group {
        e["SystemMetadata"] = json!({ "EventGroupId": g });
    }
    e
}

/// Publishes `entries` and answers the event ids, all of them PUBLISHED.
pub async fn put(h: &Harness, bus: &str, entries: Value) -> Vec<String> {
    let out = v2(
        h,
        "PutEvents",
        json!({ "EventBusArn": bus, "Entries": entries }),
    )
    .await;
    assert_eq!(out["FailedEntryCount"], 0, "{out}");
    out["Entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e["SuccessCode"], "PUBLISHED", "{e}");
            e["EventId"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Every message on a queue now (received and deleted), with attributes.
pub async fn drain(h: &Harness, url: &str) -> Vec<aws_sdk_sqs::types::Message> {
    let mut all = Vec::new();
    loop {
        let got = h
            .sqs()
            .receive_message()
            .queue_url(url)
            .max_number_of_messages(10)
            .message_attribute_names("All")
            .message_system_attribute_names(aws_sdk_sqs::types::MessageSystemAttributeName::All)
            .send()
            .await
            .unwrap()
            .messages
            .unwrap_or_default();
        if got.is_empty() {
            return all;
        }
        for m in &got {
            h.sqs()
                .delete_message()
                .queue_url(url)
                .receipt_handle(m.receipt_handle().unwrap())
                .send()
                .await
                .unwrap();
        }
        all.extend(got);
    }
}

pub fn body(m: &aws_sdk_sqs::types::Message) -> Value {
    serde_json::from_str(m.body().unwrap()).unwrap()
}

#[tokio::test]
async fn health_lists_the_custom_bus_and_its_own_target_prefix_routes_to_it() {
    let h = Harness::start().await;
    let services = h.control_get("health").await["services"].clone();
    assert!(
        services.as_array().unwrap().contains(&json!("eventsv2")),
        "{services}"
    );
    // AWSEvents (classic) has no GetEventBus; AWSEventsV2 does.
    let r = h.json("1.1", "AWSEvents.GetEventBus", "{}").await;
    assert_eq!(r.status, 400);
    let (status, kind, _) = v2_err(&h, "GetEventBus", json!({"EventBusArn": "arn:x"})).await;
    assert_eq!((status, kind.as_str()), (400, "ResourceNotFoundException"));
    let (_, kind, message) = v2_err(&h, "CreateEventStream", json!({})).await;
    assert!(
        kind == "InvalidAction" || kind == "ValidationException",
        "{kind}: {message}"
    );
}

#[tokio::test]
async fn buses_are_created_got_listed_and_deleted() {
    let h = Harness::start().await;
    let arn = bus(&h, "orders").await;
    let prefix = format!("arn:aws:events:us-east-1:{ACCOUNT}:event-busv2/orders/");
    let id = arn.strip_prefix(&prefix).expect(&arn);
    assert_eq!(id.len(), 25);
    assert!(id.bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");

    let got = v2(&h, "GetEventBus", json!({"EventBusArn": arn})).await;
    assert_eq!(got["Name"], "orders");
    assert_eq!(got["EventBusArn"], arn.as_str());
    assert_eq!(got["RetentionPeriodInDays"], 7, "the default");
    assert_eq!(got["State"], "ACTIVE");
    assert!(got["CreationTime"].is_number());

    let (_, kind, message) = v2_err(&h, "CreateEventBus", json!({"Name": "orders"})).await;
    assert_eq!(kind, "ResourceAlreadyExistsException");
    assert_eq!(message, "Event bus orders already exists.");

    let other = v2(
        &h,
        "CreateEventBus",
        json!({"Name": "audit", "RetentionPeriodInDays": 30, "Description": "d"}),
    )
    .await["EventBusArn"]
        .as_str()
        .unwrap()
        .to_string();
    let list = v2(&h, "ListEventBuses", json!({})).await;
    let names: Vec<&str> = list["EventBuses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["Name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    let page = v2(&h, "ListEventBuses", json!({"MaxResults": 1})).await;
    assert_eq!(page["EventBuses"].as_array().unwrap().len(), 1);
    let token = page["NextToken"].as_str().unwrap();
    let rest = v2(
        &h,
        "ListEventBuses",
        json!({"MaxResults": 1, "NextToken": token}),
    )
    .await;
    assert_eq!(rest["EventBuses"].as_array().unwrap().len(), 1);
    assert!(rest.get("NextToken").is_none());
    let prefixed = v2(&h, "ListEventBuses", json!({"NamePrefix": "aud"})).await;
    assert_eq!(prefixed["EventBuses"][0]["RetentionPeriodInDays"], 30);

    // Another account sees neither.
    let theirs = v2_as(&h, "111122223333", "ListEventBuses", json!({})).await;
    assert_eq!(theirs["EventBuses"], json!([]));

    // A bus with subscribers cannot go.
    subscriber(
        &h,
        "s",
        &other,
        "arn:aws:sqs:us-east-1:000000000000:q",
        json!({}),
    )
    .await;
    let (_, kind, _) = v2_err(&h, "DeleteEventBus", json!({"EventBusArn": other})).await;
    assert_eq!(kind, "ResourceInUseException");
    v2(&h, "DeleteEventBus", json!({"EventBusArn": arn})).await;
    let (_, kind, message) = v2_err(&h, "GetEventBus", json!({"EventBusArn": arn})).await;
    assert_eq!(kind, "ResourceNotFoundException");
    assert_eq!(message, format!("Event bus {arn} does not exist."));
}

#[tokio::test]
async fn bus_requests_are_validated_as_aws_words_it() {
    let h = Harness::start().await;
    let cases = [
        (
            json!({"Name": "bad name"}),
            "1 validation error detected: Value 'bad name' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+",
        ),
        (
            json!({"Name": "b", "RetentionPeriodInDays": 366}),
            "1 validation error detected: Value '366' at 'retentionPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 365",
        ),
        (
            json!({}),
            "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null",
        ),
    ];
    for (body, want) in cases {
        let (status, kind, message) = v2_err(&h, "CreateEventBus", body).await;
        assert_eq!((status, kind.as_str()), (400, "ValidationException"));
        assert_eq!(message, want);
    }
}

#[tokio::test]
async fn get_subscriber_answers_every_setting_with_the_defaults_filled_in() {
    let h = Harness::start().await;
    let bus = bus(&h, "orders").await;
    let target = "arn:aws:sqs:us-east-1:000000000000:large-orders";
    let arn = subscriber(&h, "large-orders", &bus, target, json!({})).await;
    let prefix = format!("arn:aws:events:us-east-1:{ACCOUNT}:subscriber/large-orders/");
    assert_eq!(arn.strip_prefix(&prefix).expect(&arn).len(), 25);
    let mut got = v2(&h, "GetSubscriber", json!({"SubscriberArn": arn})).await;
    assert!(got["CreationTime"].is_number() && got["LastModifiedTime"].is_number());
    got.as_object_mut().unwrap().remove("CreationTime");
    got.as_object_mut().unwrap().remove("LastModifiedTime");
    assert_eq!(
        got,
        json!({
            "SubscriberArn": arn,
            "Name": "large-orders",
            "EventBusArn": bus,
            "Type": "UNORDERED",
            "StartingPosition": "LATEST",
            "FilterConfiguration": {"Filters": []},
            "InvokeConfiguration": {
                "TargetArn": target,
                "RoleArn": ROLE,
                "InvocationType": "FIRE_AND_FORGET",
                "MaxBatchSize": 1
            },
            "RetryPolicy": {"MaxRetryAttempts": 5, "MaxEventAgeInSeconds": 300, "RetryStrategy": "ALL"},
            "State": "RUNNING"
        })
    );

    // Every setting given comes back as given.
    let full = subscriber(
        &h,
        "fifo-orders",
        &bus,
        "arn:aws:sqs:us-east-1:000000000000:q.fifo",
        json!({
            "Type": "FIFO",
            "StartingPosition": "POINT_IN_TIME",
            "PointInTimeConfiguration": {"PointType": "TIMESTAMP", "StartingPoint": 1_790_000_000, "EndPoint": 1_790_000_060},
            "FilterConfiguration": {"Filters": [
                {"Scope": "EVENT", "Pattern": "{\"source\":[\"shop\"]}"},
                {"Scope": "SYSTEM_METADATA", "Pattern": "{\"aws:EventGroupId\":[{\"prefix\":\"order-\"}]}"}
            ]},
            "InvokeConfiguration": {"InvocationTimeoutSeconds": 30, "MaxBatchSize": 10,
                "Transformer": {"InputPathsMap": {"id": "$.id"}, "InputTemplate": "{\"id\": <id>}"}},
            "RetryPolicy": {"MaxRetryAttempts": 0, "MaxEventAgeInSeconds": 86400},
            "OnFailureConfiguration": {"Arn": "arn:aws:sqs:us-east-1:000000000000:dlq.fifo"},
            "Description": "all of it"
        }),
    )
    .await;
    let got = v2(&h, "GetSubscriber", json!({"SubscriberArn": full})).await;
    assert_eq!(got["Type"], "FIFO");
    assert_eq!(got["StartingPosition"], "POINT_IN_TIME");
    assert_eq!(got["PointInTimeConfiguration"]["EndPoint"], 1_790_000_060.0);
    assert_eq!(
        got["FilterConfiguration"]["Filters"][1]["Scope"],
        "SYSTEM_METADATA"
    );
    assert_eq!(got["InvokeConfiguration"]["MaxBatchSize"], 10);
    assert_eq!(
        got["InvokeConfiguration"]["Transformer"]["InputPathsMap"]["id"],
        "$.id"
    );
    assert_eq!(got["RetryPolicy"]["MaxRetryAttempts"], 0);
    assert_eq!(
        got["OnFailureConfiguration"]["Arn"],
        "arn:aws:sqs:us-east-1:000000000000:dlq.fifo"
    );
    assert_eq!(got["Description"], "all of it");

    let list = v2(&h, "ListSubscribers", json!({"EventBusArn": bus})).await;
    let summaries = list["Subscribers"].as_array().unwrap();
    assert_eq!(summaries.len(), 2);
    assert_eq!(
        summaries
            .iter()
            .filter(|s| s["TargetArn"] == target)
            .count(),
        1
    );

    let (_, kind, message) = v2_err(
        &h,
        "CreateSubscriber",
        json!({"Name": "large-orders", "EventBusArn": bus,
               "InvokeConfiguration": {"TargetArn": target, "RoleArn": ROLE}}),
    )
    .await;
    assert_eq!(kind, "ResourceAlreadyExistsException");
    assert_eq!(message, "Subscriber large-orders already exists.");

    v2(
        &h,
        "UpdateSubscriber",
        json!({"SubscriberArn": arn, "RetryPolicy": {"MaxRetryAttempts": 2}, "Description": "updated"}),
    )
    .await;
    let got = v2(&h, "GetSubscriber", json!({"SubscriberArn": arn})).await;
    assert_eq!(
        got["RetryPolicy"],
        json!({"MaxRetryAttempts": 2, "MaxEventAgeInSeconds": 300, "RetryStrategy": "ALL"})
    );
    assert_eq!(got["Description"], "updated");
    assert_eq!(got["InvokeConfiguration"]["TargetArn"], target, "unchanged");

    v2(&h, "DeleteSubscriber", json!({"SubscriberArn": arn})).await;
    let (_, kind, message) = v2_err(&h, "GetSubscriber", json!({"SubscriberArn": arn})).await;
    assert_eq!(kind, "ResourceNotFoundException");
    assert_eq!(message, format!("Subscriber {arn} does not exist."));
}

#[tokio::test]
async fn subscriber_settings_are_validated() {
    let h = Harness::start().await;
    let bus = bus(&h, "orders").await;
    let invoke = json!({"TargetArn": "arn:aws:sqs:us-east-1:000000000000:q", "RoleArn": ROLE});
    let with = |extra: Value| {
        let mut body = json!({"Name": "s", "EventBusArn": bus, "InvokeConfiguration": invoke});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let coral = |value: &str, member: &str, rule: &str| {
        format!(
            "1 validation error detected: Value '{value}' at '{member}' failed to satisfy constraint: {rule}"
        )
    };
    let cases = [
        (
            with(json!({"RetryPolicy": {"MaxRetryAttempts": 186}})),
            coral("186", "retryPolicy.maxRetryAttempts", "Member must have value less than or equal to 185"),
        ),
        (
            with(json!({"RetryPolicy": {"MaxEventAgeInSeconds": 59}})),
            coral("59", "retryPolicy.maxEventAgeInSeconds", "Member must have value greater than or equal to 60"),
        ),
        (
            with(json!({"Type": "ORDERED"})),
            coral("ORDERED", "type", "Member must satisfy enum value set: [UNORDERED, FIFO]"),
        ),
        (
            with(json!({"InvokeConfiguration": {"TargetArn": "arn:aws:sqs:us-east-1:000000000000:q", "RoleArn": ROLE, "MaxBatchSize": 11}})),
            coral("11", "invokeConfiguration.maxBatchSize", "Member must have value less than or equal to 10"),
        ),
        (
            with(json!({"StartingPosition": "POINT_IN_TIME"})),
            "PointInTimeConfiguration is required when StartingPosition is POINT_IN_TIME.".into(),
        ),
        (
            with(json!({"FilterConfiguration": {"Filters": [{"Scope": "EVENT", "Pattern": "{\"source\": \"x\"}"}]}})),
            "Event pattern is not valid. Reason: \"source\" must be an object or an array".into(),
        ),
        (
            with(json!({"OnFailureConfiguration": {"Arn": "arn:aws:sns:us-east-1:000000000000:t"}})),
            "Parameter OnFailureConfiguration.Arn is not valid. Reason: Provided Arn is not an SQS queue ARN. arn:aws:sns:us-east-1:000000000000:t".into(),
        ),
        (
            with(json!({"InvokeConfiguration": {"TargetArn": "queue", "RoleArn": ROLE}})),
            "Parameter TargetArn is not valid. Reason: Provided Arn is not in correct format. queue".into(),
        ),
        (
            with(json!({"InvokeConfiguration": {"TargetArn": "arn:aws:sqs:us-east-1:000000000000:q", "RoleArn": ROLE,
                "Input": "{}", "Transformer": {"InputTemplate": "{}"}}})),
            "Only one of Input or Transformer may be provided in InvokeConfiguration.".into(),
        ),
        (
            json!({"Name": "s", "EventBusArn": bus}),
            "1 validation error detected: Value null at 'invokeConfiguration' failed to satisfy constraint: Member must not be null".into(),
        ),
    ];
    for (body, want) in cases {
        let (status, kind, message) = v2_err(&h, "CreateSubscriber", body.clone()).await;
        assert_eq!(
            (status, kind.as_str()),
            (400, "ValidationException"),
            "{body}"
        );
        assert_eq!(message, want, "{body}");
    }
    let missing = with(json!({"EventBusArn": format!("{bus}x")}));
    let (_, kind, _) = v2_err(&h, "CreateSubscriber", missing).await;
    assert_eq!(kind, "ResourceNotFoundException");
}

#[tokio::test]
async fn tags_round_trip_and_a_switchyard_id_tag_pins_the_generated_id() {
    let h = Harness::start().await;
    let out = v2(
        &h,
        "CreateEventBus",
        json!({"Name": "orders", "Tags": [{"Key": "switchyard:id", "Value": "EXAMPLE1234567890abcdef"}, {"Key": "team", "Value": "a"}]}),
    )
    .await;
    let arn = out["EventBusArn"].as_str().unwrap();
    assert_eq!(
        arn,
        "arn:aws:events:us-east-1:000000000000:event-busv2/orders/EXAMPLE1234567890abcdef"
    );
    v2(
        &h,
        "TagResource",
        json!({"ResourceArn": arn, "Tags": [{"Key": "env", "Value": "dev"}]}),
    )
    .await;
    v2(
        &h,
        "UntagResource",
        json!({"ResourceArn": arn, "TagKeys": ["team"]}),
    )
    .await;
    let tags = v2(&h, "ListTagsForResource", json!({"ResourceArn": arn})).await;
    assert_eq!(
        tags["Tags"],
        json!([{"Key": "env", "Value": "dev"}, {"Key": "switchyard:id", "Value": "EXAMPLE1234567890abcdef"}])
    );
    let (_, kind, _) = v2_err(
        &h,
        "ListTagsForResource",
        json!({"ResourceArn": "arn:aws:events:us-east-1:000000000000:event-busv2/x/y"}),
    )
    .await;
    assert_eq!(kind, "ResourceNotFoundException");
}

#[tokio::test]
async fn put_events_answers_one_result_per_entry() {
    let h = Harness::start().await;
    let bus = bus(&h, "orders").await;
    let out = v2(
        &h,
        "PutEvents",
        json!({"EventBusArn": bus, "Entries": [
            entry(json!({"n": 1}), Some("order-1")),
            {"Source": "s", "DetailType": "t", "Detail": "[1]"},
            {"Source": "aws.s3", "DetailType": "t", "Detail": "{}"},
            entry(json!({"n": 2}), None),
        ]}),
    )
    .await;
    assert_eq!(out["FailedEntryCount"], 2);
    let entries = out["Entries"].as_array().unwrap();
    assert_eq!(entries[0]["SuccessCode"], "PUBLISHED");
    assert_eq!(entries[0]["EventId"].as_str().unwrap().len(), 36);
    assert_eq!(entries[0]["SequenceNumber"], "00000000000000000001");
    assert_eq!(
        entries[1],
        json!({"ErrorCode": "MalformedDetail", "ErrorMessage": "Detail is malformed."})
    );
    assert_eq!(entries[2]["ErrorCode"], "NotAuthorizedForSourceException");
    assert_eq!(entries[3]["SequenceNumber"], "00000000000000000002");

    let eleven: Vec<Value> = (0..11).map(|n| entry(json!({"n": n}), None)).collect();
    let (_, kind, message) = v2_err(
        &h,
        "PutEvents",
        json!({"EventBusArn": bus, "Entries": eleven}),
    )
    .await;
    assert_eq!(kind, "ValidationException");
    assert!(message.ends_with("at 'entries' failed to satisfy constraint: Member must have length less than or equal to 10"), "{message}");
    let long = "g".repeat(129);
    let (_, _, message) = v2_err(
        &h,
        "PutEvents",
        json!({"EventBusArn": bus, "Entries": [entry(json!({}), Some(&long))]}),
    )
    .await;
    assert!(
        message.contains("at 'entries.1.member.systemMetadata.eventGroupId'"),
        "{message}"
    );
    let (_, kind, _) = v2_err(
        &h,
        "PutEvents",
        json!({"EventBusArn": bus, "Entries": [entry(json!({}), None)], "DeduplicationConfiguration": {"DeduplicationType": "HASH"}}),
    )
    .await;
    assert_eq!(kind, "ValidationException");
    let (_, kind, _) = v2_err(
        &h,
        "PutEvents",
        json!({"EventBusArn": format!("{bus}0"), "Entries": [entry(json!({}), None)]}),
    )
    .await;
    assert_eq!(kind, "ResourceNotFoundException");
}
