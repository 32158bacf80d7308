//! The restJson1 front-end as clients use it: the Scheduler SDK (method + path routing, URI
//! labels, query string, body, status codes, REST-JSON errors), raw unsigned requests routed by
//! path alone, and Pipes answering cleanly before it serves anything.

use crate::harness::Harness;
use aws_sdk_scheduler::types::Tag;

#[tokio::test]
async fn schedule_groups_round_trip_through_the_sdk() {
    let h = Harness::start().await;
    let s = h.scheduler();
    let created = s
        .create_schedule_group()
        .name("nightly")
        .tags(Tag::builder().key("team").value("ops").build().unwrap())
        .send()
        .await
        .unwrap();
    let arn = created.schedule_group_arn();
    assert_eq!(
        arn,
        "arn:aws:scheduler:us-east-1:000000000000:schedule-group/nightly"
    );
    let got = s.get_schedule_group().name("nightly").send().await.unwrap();
    assert_eq!(got.name(), Some("nightly"));
    assert_eq!(got.state().map(|s| s.as_str()), Some("ACTIVE"));
    assert!(got.creation_date().is_some());

    // The ARN travels percent-encoded in the path; TagKeys repeat in the query string.
    let tags = s.list_tags_for_resource().resource_arn(arn).send().await;
    let tags = tags.unwrap();
    assert_eq!(tags.tags()[0].key(), "team");
    s.untag_resource()
        .resource_arn(arn)
        .tag_keys("team")
        .tag_keys("absent")
        .send()
        .await
        .unwrap();
    let tags = s.list_tags_for_resource().resource_arn(arn).send().await;
    assert!(tags.unwrap().tags().is_empty());

    // `default` is always there; the prefix and page size come from the query string.
    let all = s.list_schedule_groups().send().await.unwrap();
    let names: Vec<_> = all
        .schedule_groups()
        .iter()
        .filter_map(|g| g.name())
        .collect();
    assert_eq!(names, ["default", "nightly"]);
    let page = s
        .list_schedule_groups()
        .max_results(1)
        .send()
        .await
        .unwrap();
    assert_eq!(page.schedule_groups().len(), 1);
    let rest = s
        .list_schedule_groups()
        .max_results(1)
        .next_token(page.next_token().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(rest.schedule_groups()[0].name(), Some("nightly"));
    assert!(rest.next_token().is_none());
    let prefixed = s.list_schedule_groups().name_prefix("ni").send().await;
    assert_eq!(prefixed.unwrap().schedule_groups().len(), 1);

    s.delete_schedule_group()
        .name("nightly")
        .send()
        .await
        .unwrap();
    // Deleted asynchronously: DELETING for a second of virtual time, then gone.
    let deleting = s.get_schedule_group().name("nightly").send().await.unwrap();
    assert_eq!(
        deleting.state(),
        Some(&aws_sdk_scheduler::types::ScheduleGroupState::Deleting)
    );
    h.advance(1.0).await;
    let err = s
        .get_schedule_group()
        .name("nightly")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
    assert_eq!(
        err.meta().message(),
        Some("Schedule group nightly does not exist.")
    );
}

#[tokio::test]
async fn errors_carry_the_type_header_the_status_and_the_message() {
    let h = Harness::start().await;
    let s = h.scheduler();
    s.create_schedule_group().name("g").send().await.unwrap();
    let err = s
        .create_schedule_group()
        .name("g")
        .send()
        .await
        .unwrap_err();
    let raw = err.raw_response().expect("an HTTP answer");
    assert_eq!(raw.status().as_u16(), 409);
    assert_eq!(
        raw.headers().get("x-amzn-errortype"),
        Some("ConflictException")
    );
    assert!(err.into_service_error().is_conflict_exception());

    let err = s
        .list_schedule_groups()
        .max_results(101)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_validation_exception(), "{err:?}");
    assert!(err.meta().message().unwrap().contains("maxResults"));

    // Unsigned requests are routed by path; a bad body is a SerializationException.
    let reply = h
        .request("POST", "/schedule-groups/raw", &[], "not json")
        .await;
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.header("x-amzn-errortype"),
        Some("SerializationException")
    );
    assert!(reply.json()["message"].as_str().unwrap().contains("JSON"));
    let reply = h.request("GET", "/schedule-groups/default", &[], "").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.json()["Name"], "default");
    let reply = h
        .request("PATCH", "/schedule-groups/default", &[], "")
        .await;
    assert_eq!(reply.status, 404);
    assert_eq!(
        reply.header("x-amzn-errortype"),
        Some("UnknownOperationException")
    );
}

#[tokio::test]
async fn pipes_is_told_apart_by_its_path_unsigned() {
    let h = Harness::start().await;
    let reply = h.request("GET", "/v1/pipes", &[], "").await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["Pipes"], serde_json::json!([]));
    h.assert_alive().await;
}
