//! The EventBridge API surface (issue 6) through aws-sdk-eventbridge: buses, policies, tags,
//! rules and targets, TestEventPattern, and bad input answered with AWS's codes and messages.

use crate::harness::Harness;
use aws_sdk_eventbridge::error::ProvideErrorMetadata;
use aws_sdk_eventbridge::types::{PutEventsRequestEntry, RetryPolicy, Tag, Target};
use serde_json::{Value, json};

const ACCOUNT: &str = "000000000000";

/// The code and message of a failed SDK call.
fn error<O: std::fmt::Debug, E, R>(
    result: Result<O, aws_sdk_eventbridge::error::SdkError<E, R>>,
) -> (String, String)
where
    aws_sdk_eventbridge::error::SdkError<E, R>: ProvideErrorMetadata,
{
    let err = result.expect_err("the call should fail");
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

fn target(id: &str, arn: &str) -> Target {
    Target::builder().id(id).arn(arn).build().unwrap()
}

#[tokio::test]
async fn buses_are_created_described_listed_and_deleted() {
    let h = Harness::start().await;
    let eb = h.events();
    let default = eb.describe_event_bus().send().await.unwrap();
    assert_eq!(default.name(), Some("default"));
    assert_eq!(
        default.arn(),
        Some(format!("arn:aws:events:us-east-1:{ACCOUNT}:event-bus/default").as_str())
    );
    let created = eb
        .create_event_bus()
        .name("orders")
        .description("order events")
        .tags(Tag::builder().key("team").value("shop").build().unwrap())
        .send()
        .await
        .unwrap();
    let arn = created.event_bus_arn().unwrap().to_string();
    assert_eq!(created.description(), Some("order events"));
    let by_arn = eb.describe_event_bus().name(&arn).send().await.unwrap();
    assert_eq!(by_arn.name(), Some("orders"));
    assert!(by_arn.creation_time().is_some());
    assert_eq!(
        error(eb.create_event_bus().name("orders").send().await),
        (
            "ResourceAlreadyExistsException".into(),
            "Event bus orders already exists.".into()
        )
    );
    eb.update_event_bus()
        .name("orders")
        .description("changed")
        .send()
        .await
        .unwrap();
    assert_eq!(
        eb.describe_event_bus()
            .name("orders")
            .send()
            .await
            .unwrap()
            .description(),
        Some("changed")
    );
    for name in ["a1", "a2", "a3"] {
        eb.create_event_bus().name(name).send().await.unwrap();
    }
    let first = eb.list_event_buses().limit(2).send().await.unwrap();
    let names: Vec<&str> = first
        .event_buses()
        .iter()
        .filter_map(|b| b.name())
        .collect();
    assert_eq!(names, ["a1", "a2"]);
    let rest = eb
        .list_event_buses()
        .limit(10)
        .next_token(first.next_token().unwrap())
        .send()
        .await
        .unwrap();
    let names: Vec<&str> = rest.event_buses().iter().filter_map(|b| b.name()).collect();
    assert_eq!(names, ["a3", "default", "orders"]);
    assert_eq!(rest.next_token(), None);
    let prefixed = eb.list_event_buses().name_prefix("a").send().await.unwrap();
    assert_eq!(prefixed.event_buses().len(), 3);

    let tags = eb
        .list_tags_for_resource()
        .resource_arn(&arn)
        .send()
        .await
        .unwrap();
    assert_eq!(tags.tags()[0].key(), "team");
    eb.untag_resource()
        .resource_arn(&arn)
        .tag_keys("team")
        .send()
        .await
        .unwrap();
    assert!(
        eb.list_tags_for_resource()
            .resource_arn(&arn)
            .send()
            .await
            .unwrap()
            .tags()
            .is_empty()
    );

    assert_eq!(
        error(eb.delete_event_bus().name("default").send().await),
        (
            "ValidationException".into(),
            "Cannot delete event bus default.".into()
        )
    );
    eb.put_rule()
        .name("r")
        .event_bus_name("orders")
        .event_pattern(json!({"source": ["a"]}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        error(eb.delete_event_bus().name("orders").send().await),
        (
            "ValidationException".into(),
            "EventBus can't be deleted since it has rules.".into()
        )
    );
    eb.delete_rule()
        .name("r")
        .event_bus_name("orders")
        .send()
        .await
        .unwrap();
    eb.delete_event_bus().name("orders").send().await.unwrap();
    assert_eq!(
        error(eb.describe_event_bus().name("orders").send().await),
        (
            "ResourceNotFoundException".into(),
            "Event bus orders does not exist.".into()
        )
    );
    let (code, message) = error(eb.create_event_bus().name("bad name").send().await);
    assert_eq!(code, "ValidationException");
    assert!(
        message.starts_with("1 validation error detected: Value 'bad name' at 'name'"),
        "{message}"
    );
}

#[tokio::test]
async fn rules_and_targets_are_managed_like_aws() {
    let h = Harness::start().await;
    let eb = h.events();
    let pattern = json!({"source": ["shop"]}).to_string();
    for i in 0..3 {
        eb.put_rule()
            .name(format!("rule-{i}"))
            .event_pattern(&pattern)
            .description(format!("rule {i}"))
            .send()
            .await
            .unwrap();
    }
    let d = eb.describe_rule().name("rule-1").send().await.unwrap();
    assert_eq!(d.event_pattern(), Some(pattern.as_str()));
    assert_eq!(d.state().map(|s| s.as_str()), Some("ENABLED"));
    assert_eq!(d.event_bus_name(), Some("default"));
    assert_eq!(d.created_by(), Some(ACCOUNT));
    eb.disable_rule().name("rule-1").send().await.unwrap();
    let d = eb.describe_rule().name("rule-1").send().await.unwrap();
    assert_eq!(d.state().map(|s| s.as_str()), Some("DISABLED"));

    // PutRule replaces what it is not given.
    eb.put_rule()
        .name("rule-1")
        .event_pattern(&pattern)
        .send()
        .await
        .unwrap();
    let d = eb.describe_rule().name("rule-1").send().await.unwrap();
    assert_eq!(d.description(), None);
    assert_eq!(d.state().map(|s| s.as_str()), Some("ENABLED"));

    let page = eb
        .list_rules()
        .name_prefix("rule")
        .limit(2)
        .send()
        .await
        .unwrap();
    let names: Vec<&str> = page.rules().iter().filter_map(|r| r.name()).collect();
    assert_eq!(names, ["rule-0", "rule-1"]);
    let next = eb
        .list_rules()
        .next_token(page.next_token().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(next.rules()[0].name(), Some("rule-2"));

    let queue = format!("arn:aws:sqs:us-east-1:{ACCOUNT}:q");
    let out = eb
        .put_targets()
        .rule("rule-0")
        .targets(
            Target::builder()
                .id("t1")
                .arn(&queue)
                .retry_policy(
                    RetryPolicy::builder()
                        .maximum_retry_attempts(2)
                        .maximum_event_age_in_seconds(120)
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .targets(target(
            "t2",
            "arn:aws:lambda:us-east-1:000000000000:function:f",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(out.failed_entry_count(), 0);
    let listed = eb
        .list_targets_by_rule()
        .rule("rule-0")
        .send()
        .await
        .unwrap();
    let t1 = &listed.targets()[0];
    assert_eq!(t1.id(), "t1");
    assert_eq!(
        t1.retry_policy().and_then(|p| p.maximum_retry_attempts()),
        Some(2)
    );
    let by_target = eb
        .list_rule_names_by_target()
        .target_arn(&queue)
        .send()
        .await
        .unwrap();
    assert_eq!(by_target.rule_names(), ["rule-0"]);

    assert_eq!(
        error(eb.delete_rule().name("rule-0").send().await),
        (
            "ValidationException".into(),
            "Rule can't be deleted since it has targets.".into()
        )
    );
    eb.remove_targets()
        .rule("rule-0")
        .ids("t1")
        .ids("t2")
        .ids("never-there")
        .send()
        .await
        .unwrap();
    eb.delete_rule().name("rule-0").send().await.unwrap();
    assert_eq!(
        error(eb.describe_rule().name("rule-0").send().await),
        (
            "ResourceNotFoundException".into(),
            "Rule rule-0 does not exist on EventBus default.".into()
        )
    );

    // Six targets are one too many.
    let too_many = (0..6).fold(eb.put_targets().rule("rule-2"), |req, i| {
        req.targets(target(&format!("t{i}"), &queue))
    });
    assert_eq!(error(too_many.send().await).0, "LimitExceededException");
}

#[tokio::test]
async fn rules_refuse_bad_patterns_and_schedules() {
    let h = Harness::start().await;
    let eb = h.events();
    let cases = [
        (
            json!({"source": []}).to_string(),
            "Event pattern is not valid. Reason: Empty arrays are not allowed",
        ),
        (
            json!({"source": "shop"}).to_string(),
            "Event pattern is not valid. Reason: \"source\" must be an object or an array",
        ),
        (
            json!({"n": [{"numeric": [">", "x"]}]}).to_string(),
            "Event pattern is not valid. Reason: Value of > must be numeric",
        ),
    ];
    for (pattern, message) in cases {
        assert_eq!(
            error(eb.put_rule().name("r").event_pattern(&pattern).send().await),
            ("InvalidEventPatternException".into(), message.into()),
            "{pattern}"
        );
    }
    for bad in [
        "rate(1 hours)",
        "rate(0 minutes)",
        "cron(0 12 * * * *)",
        "every day",
    ] {
        assert_eq!(
            error(
                eb.put_rule()
                    .name("r")
                    .schedule_expression(bad)
                    .send()
                    .await
            ),
            (
                "ValidationException".into(),
                "Parameter ScheduleExpression is not valid.".into()
            ),
            "{bad}"
        );
    }
    assert_eq!(
        error(eb.put_rule().name("r").send().await),
        (
            "ValidationException".into(),
            "Parameter(s) EventPattern or ScheduleExpression must be specified.".into()
        )
    );
    eb.create_event_bus().name("custom").send().await.unwrap();
    assert_eq!(
        error(
            eb.put_rule()
                .name("r")
                .event_bus_name("custom")
                .schedule_expression("rate(5 minutes)")
                .send()
                .await
        ),
        (
            "ValidationException".into(),
            "ScheduleExpression is supported only on the default event bus.".into()
        )
    );
    assert_eq!(
        error(
            eb.put_rule()
                .name("r")
                .event_bus_name("nope")
                .event_pattern(json!({"source": ["a"]}).to_string())
                .send()
                .await
        ),
        (
            "ResourceNotFoundException".into(),
            "Event bus nope does not exist.".into()
        )
    );
    eb.put_rule()
        .name("ok")
        .event_pattern(json!({"source": ["a"]}).to_string())
        .send()
        .await
        .unwrap();
    let (code, message) = error(
        eb.put_targets()
            .rule("ok")
            .targets(
                Target::builder()
                    .id("t")
                    .arn("arn:aws:sqs:us-east-1:000000000000:q")
                    .retry_policy(RetryPolicy::builder().maximum_retry_attempts(186).build())
                    .build()
                    .unwrap(),
            )
            .send()
            .await,
    );
    assert_eq!(code, "ValidationException");
    assert!(
        message.contains("Member must have value less than or equal to 185"),
        "{message}"
    );
    let (code, message) = error(
        eb.put_targets()
            .rule("ok")
            .targets(
                Target::builder()
                    .id("t")
                    .arn("arn:aws:sqs:us-east-1:000000000000:q")
                    .input("{}")
                    .input_path("$.detail")
                    .build()
                    .unwrap(),
            )
            .send()
            .await,
    );
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "ValidationException",
            "Only one of Input, InputPath, or InputTransformer must be provided for target t."
        )
    );
    // A FIFO queue target needs its message group: that entry fails, the others are put.
    let out = eb
        .put_targets()
        .rule("ok")
        .targets(target("fifo", "arn:aws:sqs:us-east-1:000000000000:q.fifo"))
        .targets(target("plain", "arn:aws:sqs:us-east-1:000000000000:q"))
        .send()
        .await
        .unwrap();
    assert_eq!(out.failed_entry_count(), 1);
    let failed = &out.failed_entries()[0];
    assert_eq!(failed.target_id(), Some("fifo"));
    assert_eq!(failed.error_code(), Some("ValidationException"));
    let listed = eb.list_targets_by_rule().rule("ok").send().await.unwrap();
    assert_eq!(listed.targets().len(), 1);
}

#[tokio::test]
async fn test_event_pattern_answers_with_the_shared_matcher() {
    let h = Harness::start().await;
    let eb = h.events();
    let event = json!({
        "id": "1", "account": ACCOUNT, "source": "shop", "time": "2026-11-30T07:00:00Z",
        "region": "us-east-1", "detail-type": "t", "resources": [],
        "detail": {"price": 15, "ip": "10.0.0.7", "tags": ["a", "b"], "name": "Alice"}
    });
    let cases = [
        (
            json!({"detail": {"price": [{"numeric": [">", 10, "<=", 15]}]}}),
            true,
        ),
        (
            json!({"detail": {"price": [{"numeric": [">", 15]}]}}),
            false,
        ),
        (json!({"detail": {"ip": [{"cidr": "10.0.0.0/24"}]}}), true),
        (json!({"detail": {"tags": ["b", "z"]}}), true),
        (
            json!({"detail": {"name": [{"equals-ignore-case": "alice"}]}}),
            true,
        ),
        (
            json!({"detail": {"name": [{"anything-but": {"prefix": "Al"}}]}}),
            false,
        ),
        (json!({"detail": {"missing": [{"exists": false}]}}), true),
        (
            json!({"$or": [{"source": ["x"]}, {"detail": {"name": [{"wildcard": "A*e"}]}}]}),
            true,
        ),
    ];
    for (pattern, expected) in cases {
        let out = eb
            .test_event_pattern()
            .event_pattern(pattern.to_string())
            .event(event.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(out.result(), expected, "{pattern}");
    }
    let (code, _) = error(
        eb.test_event_pattern()
            .event_pattern(json!({"source": ["shop"]}).to_string())
            .event(json!({"source": "shop"}).to_string())
            .send()
            .await,
    );
    assert_eq!(code, "ValidationException");
}

#[tokio::test]
async fn put_events_answers_entry_by_entry() {
    let h = Harness::start().await;
    let eb = h.events();
    let good = PutEventsRequestEntry::builder()
        .source("shop")
        .detail_type("t")
        .detail("{}")
        .build();
    let entries = vec![
        good.clone(),
        PutEventsRequestEntry::builder()
            .detail_type("t")
            .detail("{}")
            .build(),
        PutEventsRequestEntry::builder()
            .source("shop")
            .detail("{}")
            .build(),
        PutEventsRequestEntry::builder()
            .source("shop")
            .detail_type("t")
            .build(),
        PutEventsRequestEntry::builder()
            .source("shop")
            .detail_type("t")
            .detail("[1]")
            .build(),
        PutEventsRequestEntry::builder()
            .source("aws.ec2")
            .detail_type("t")
            .detail("{}")
            .build(),
        PutEventsRequestEntry::builder()
            .source("shop")
            .detail_type("t")
            .detail("{}")
            .event_bus_name("nope")
            .build(),
    ];
    let out = eb
        .put_events()
        .set_entries(Some(entries))
        .send()
        .await
        .unwrap();
    assert_eq!(out.failed_entry_count(), 5);
    let results: Vec<(Option<&str>, Option<&str>)> = out
        .entries()
        .iter()
        .map(|e| (e.error_code(), e.error_message()))
        .collect();
    assert!(out.entries()[0].event_id().is_some());
    assert_eq!(
        results[1..],
        [
            (
                Some("InvalidArgument"),
                Some("Parameter Source is not valid. Reason: Source is a required argument.")
            ),
            (
                Some("InvalidArgument"),
                Some(
                    "Parameter DetailType is not valid. Reason: DetailType is a required argument."
                )
            ),
            (
                Some("InvalidArgument"),
                Some("Parameter Detail is not valid. Reason: Detail is a required argument.")
            ),
            (Some("MalformedDetail"), Some("Detail is malformed.")),
            (
                Some("NotAuthorizedForSourceException"),
                Some("Not authorized for the source.")
            ),
            // AWS accepts an event for a bus that does not exist, and drops it.
            (None, None),
        ]
    );
    assert!(out.entries()[6].event_id().is_some());
    let eleven = vec![good.clone(); 11];
    let (code, message) = error(eb.put_events().set_entries(Some(eleven)).send().await);
    assert_eq!(code, "ValidationException");
    assert!(
        message.starts_with("1 validation error detected: Value '[PutEventsRequestEntry(time=null, source=shop, resources=null, detailType=t, detail={}, eventBusName=null, traceHeader=null, kmsKeyIdentifier=null, internalMetadata=null), "),
        "{message}"
    );
    assert!(
        message.ends_with(
            "at 'entries' failed to satisfy constraint: Member must have length less than or equal to 10"
        ),
        "{message}"
    );
    let big = PutEventsRequestEntry::builder()
        .source("shop")
        .detail_type("t")
        .detail(json!({"pad": "x".repeat(1024 * 1024)}).to_string())
        .build();
    assert_eq!(
        error(eb.put_events().entries(big).send().await),
        (
            "ValidationException".into(),
            "Total size of the entries in the request is over the limit.".into()
        )
    );
}

#[tokio::test]
async fn malformed_json_requests_get_json_errors() {
    let h = Harness::start().await;
    let r = h.json("1.1", "AWSEvents.PutRule", "{not json").await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["__type"], "SerializationException");
    let r = h.json("1.1", "AWSEvents.PutRule", "{}").await;
    assert_eq!(r.status, 400);
    let doc: Value = r.json();
    assert_eq!(doc["__type"], "ValidationException", "{doc}");
    assert_eq!(
        doc["message"],
        "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null"
    );
    let r = h.json("1.1", "AWSEvents.Nope", "{}").await;
    assert_eq!(r.json()["__type"], "UnknownOperationException");
    let r = h
        .json(
            "1.1",
            "AWSEvents.PutRule",
            r#"{"Name": 5, "EventPattern": "{}"}"#,
        )
        .await;
    assert_eq!(r.json()["__type"], "SerializationException");
    h.assert_alive().await;
}
