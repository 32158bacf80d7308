//! EventBridge archives and replays through the official SDK: what archives keep (patterns,
//! counts, sizes, retention on the manual clock), their managed rule, replays that re-send the
//! archived events of a window to the rules of the bus (FilterArns, `replay-name`, event-time
//! order, one-minute slices per virtual second), the replay states, cancelling, listing, and
//! the errors of bad input.

use crate::harness::Harness;
use crate::sns_publish::queue;
use aws_sdk_eventbridge::Client;
use aws_sdk_eventbridge::primitives::DateTime;
use aws_sdk_eventbridge::types::{
    ArchiveState, PutEventsRequestEntry, ReplayDestination, ReplayState, Target,
};
use serde_json::Value;

const ACCOUNT: &str = "000000000000";
const MINUTE: i64 = 60_000;

/// The code and message of a failed call, read from the service error's metadata.
macro_rules! aws_error {
    ($result:expr) => {{
        let err = $result.expect_err("the call fails").into_service_error();
        let meta = err.meta();
        (
            meta.code().unwrap_or_default().to_string(),
            meta.message().unwrap_or_default().to_string(),
        )
    }};
}

fn error(code: &str, message: &str) -> (String, String) {
    (code.to_string(), message.to_string())
}

/// The virtual now, in milliseconds.
async fn now(h: &Harness) -> i64 {
    h.control_get("clock").await["epochMillis"]
        .as_i64()
        .expect("epochMillis")
}

fn seconds(ms: i64) -> DateTime {
    DateTime::from_millis(ms)
}

/// A timestamp of a response in milliseconds (they travel as fractional epoch seconds).
fn at(t: Option<DateTime>) -> Option<i64> {
    t.map(|t| (t.as_secs_f64() * 1000.0).round() as i64)
}

fn bus_arn(name: &str) -> String {
    format!("arn:aws:events:us-east-1:{ACCOUNT}:event-bus/{name}")
}

fn archive_arn(name: &str) -> String {
    format!("arn:aws:events:us-east-1:{ACCOUNT}:archive/{name}")
}

async fn create_bus(events: &Client, name: &str) -> String {
    events
        .create_event_bus()
        .name(name)
        .send()
        .await
        .unwrap()
        .event_bus_arn
        .unwrap()
}

/// A rule on `bus` with `pattern` whose one target is a new SQS queue: (queue URL, rule ARN).
async fn rule_to_queue(h: &Harness, bus: &str, rule: &str, pattern: &str) -> (String, String) {
    let events = h.events();
    let rule_arn = events
        .put_rule()
        .name(rule)
        .event_bus_name(bus)
        .event_pattern(pattern)
        .send()
        .await
        .unwrap()
        .rule_arn
        .unwrap();
    let (url, queue_arn) = queue(h, &format!("{rule}-q")).await;
    let target = Target::builder().id("q").arn(queue_arn).build().unwrap();
    let put = events
        .put_targets()
        .rule(rule)
        .event_bus_name(bus)
        .targets(target)
        .send()
        .await
        .unwrap();
    assert_eq!(put.failed_entry_count, 0);
    (url, rule_arn)
}

/// Puts one event from `shop` on `bus`, at `time` (ms) or now; answers its id.
async fn put(events: &Client, bus: &str, detail_type: &str, n: u32, time: Option<i64>) -> String {
    let entry = PutEventsRequestEntry::builder()
        .event_bus_name(bus)
        .source("shop")
        .detail_type(detail_type)
        .detail(format!(r#"{{"n":{n}}}"#))
        .set_time(time.map(seconds))
        .build();
    let out = events.put_events().entries(entry).send().await.unwrap();
    assert_eq!(out.failed_entry_count, 0, "{out:?}");
    out.entries.unwrap()[0].event_id.clone().unwrap()
}

/// Receives and deletes everything in a queue: the bodies, as text, in the order received.
async fn drain(h: &Harness, url: &str) -> Vec<String> {
    let sqs = h.sqs();
    let mut bodies = Vec::new();
    loop {
        let got = sqs
            .receive_message()
            .queue_url(url)
            .max_number_of_messages(10)
            .send()
            .await
            .unwrap()
            .messages
            .unwrap_or_default();
        if got.is_empty() {
            return bodies;
        }
        for m in got {
            sqs.delete_message()
                .queue_url(url)
                .receipt_handle(m.receipt_handle.unwrap())
                .send()
                .await
                .unwrap();
            bodies.push(m.body.unwrap());
        }
    }
}

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap()
}

fn detail_numbers(bodies: &[String]) -> Vec<i64> {
    bodies
        .iter()
        .map(|b| json(b)["detail"]["n"].as_i64().unwrap())
        .collect()
}

async fn counts(events: &Client, archive: &str) -> (i64, i64) {
    let a = events
        .describe_archive()
        .archive_name(archive)
        .send()
        .await
        .unwrap();
    (a.event_count, a.size_bytes)
}

async fn replay_state(events: &Client, name: &str) -> ReplayState {
    events
        .describe_replay()
        .replay_name(name)
        .send()
        .await
        .unwrap()
        .state
        .unwrap()
}

fn destination(bus: &str, filters: &[&str]) -> ReplayDestination {
    let mut d = ReplayDestination::builder().arn(bus_arn(bus));
    for f in filters {
        d = d.filter_arns(*f);
    }
    d.build().unwrap()
}

async fn start_replay(
    events: &Client,
    name: &str,
    archive: &str,
    from: i64,
    to: i64,
    dest: ReplayDestination,
) {
    let out = events
        .start_replay()
        .replay_name(name)
        .event_source_arn(archive_arn(archive))
        .event_start_time(seconds(from))
        .event_end_time(seconds(to))
        .destination(dest)
        .send()
        .await
        .unwrap();
    assert_eq!(
        out.replay_arn.as_deref(),
        Some(format!("arn:aws:events:us-east-1:{ACCOUNT}:replay/{name}").as_str())
    );
    assert_eq!(out.state, Some(ReplayState::Starting));
}

#[tokio::test]
async fn archives_keep_every_event_of_their_bus_or_those_their_pattern_matches() {
    let h = Harness::start().await;
    let events = h.events();
    create_bus(&events, "shop").await;
    let (url, _) = rule_to_queue(&h, "shop", "all", r#"{"source":["shop"]}"#).await;
    let created_at = now(&h).await;
    let everything = events
        .create_archive()
        .archive_name("everything")
        .event_source_arn(bus_arn("shop"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        everything.archive_arn.as_deref(),
        Some(archive_arn("everything").as_str())
    );
    assert_eq!(everything.state, Some(ArchiveState::Enabled));
    assert_eq!(at(everything.creation_time), Some(created_at));
    events
        .create_archive()
        .archive_name("orders")
        .event_source_arn(bus_arn("shop"))
        .event_pattern(r#"{"detail-type": ["OrderPlaced"]}"#)
        .retention_days(7)
        .description("placed orders")
        .send()
        .await
        .unwrap();

    put(&events, "shop", "OrderPlaced", 1, None).await;
    put(&events, "shop", "OrderShipped", 2, None).await;
    put(&events, "shop", "OrderPlaced", 3, None).await;
    put(&events, "default", "OrderPlaced", 4, None).await;

    // SizeBytes adds up the events' JSON, as the queue received it.
    let bodies = drain(&h, &url).await;
    assert_eq!(detail_numbers(&bodies), [1, 2, 3]);
    let size = |pick: &[usize]| pick.iter().map(|i| bodies[*i].len() as i64).sum::<i64>();
    assert_eq!(counts(&events, "everything").await, (3, size(&[0, 1, 2])));
    assert_eq!(counts(&events, "orders").await, (2, size(&[0, 2])));

    let orders = events
        .describe_archive()
        .archive_name("orders")
        .send()
        .await
        .unwrap();
    assert_eq!(
        orders.archive_arn.as_deref(),
        Some(archive_arn("orders").as_str())
    );
    assert_eq!(orders.archive_name.as_deref(), Some("orders"));
    assert_eq!(
        orders.event_source_arn.as_deref(),
        Some(bus_arn("shop").as_str())
    );
    assert_eq!(orders.description.as_deref(), Some("placed orders"));
    assert_eq!(
        orders.event_pattern.as_deref(),
        Some(r#"{"detail-type": ["OrderPlaced"]}"#)
    );
    assert_eq!(orders.retention_days, Some(7));
    assert_eq!(orders.state, Some(ArchiveState::Enabled));
    assert_eq!(at(orders.creation_time), Some(created_at));
    let plain = events
        .describe_archive()
        .archive_name("everything")
        .send()
        .await
        .unwrap();
    assert_eq!(plain.retention_days, Some(0));
    assert_eq!(plain.event_pattern, None);

    // ListArchives, whole and filtered, in name order, a page at a time.
    let list = |prefix: Option<&str>, source: Option<String>, state: Option<ArchiveState>| {
        let events = events.clone();
        let prefix = prefix.map(str::to_string);
        async move {
            let out = events
                .list_archives()
                .set_name_prefix(prefix)
                .set_event_source_arn(source)
                .set_state(state)
                .send()
                .await
                .unwrap();
            out.archives
                .unwrap_or_default()
                .iter()
                .map(|a| a.archive_name.clone().unwrap())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(list(None, None, None).await, ["everything", "orders"]);
    assert_eq!(list(Some("ord"), None, None).await, ["orders"]);
    assert_eq!(
        list(None, Some(bus_arn("shop")), None).await,
        ["everything", "orders"]
    );
    assert!(list(None, Some(bus_arn("default")), None).await.is_empty());
    assert_eq!(
        list(None, None, Some(ArchiveState::Enabled)).await,
        ["everything", "orders"]
    );
    let first = events.list_archives().limit(1).send().await.unwrap();
    let summary = &first.archives.as_ref().unwrap()[0];
    assert_eq!(summary.archive_name.as_deref(), Some("everything"));
    assert_eq!(
        summary.event_source_arn.as_deref(),
        Some(bus_arn("shop").as_str())
    );
    assert_eq!(summary.event_count, 3);
    assert_eq!(summary.size_bytes, size(&[0, 1, 2]));
    assert_eq!(summary.retention_days, Some(0));
    assert_eq!(summary.state, Some(ArchiveState::Enabled));
    assert_eq!(at(summary.creation_time), Some(created_at));
    let token = first.next_token.expect("a second page");
    let second = events
        .list_archives()
        .limit(1)
        .next_token(token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        second.archives.unwrap()[0].archive_name.as_deref(),
        Some("orders")
    );
    assert_eq!(second.next_token, None);
}

#[tokio::test]
async fn archived_events_expire_after_the_retention_days() {
    let h = Harness::start().await;
    let events = h.events();
    events
        .create_archive()
        .archive_name("short")
        .event_source_arn(bus_arn("default"))
        .retention_days(1)
        .send()
        .await
        .unwrap();
    put(&events, "default", "Tick", 1, None).await;
    h.advance(12.0 * 3600.0).await;
    put(&events, "default", "Tick", 2, None).await;
    assert_eq!(counts(&events, "short").await.0, 2);
    // A day after the first arrived it is gone; the second lasts another 12 hours.
    h.advance(12.0 * 3600.0).await;
    assert_eq!(counts(&events, "short").await.0, 1);
    h.advance(12.0 * 3600.0 - 1.0).await;
    assert_eq!(counts(&events, "short").await.0, 1);
    h.advance(1.0).await;
    assert_eq!(counts(&events, "short").await, (0, 0));

    // UpdateArchive: keep for ever, and only what the new pattern matches.
    let updated = events
        .update_archive()
        .archive_name("short")
        .retention_days(0)
        .description("now long")
        .event_pattern(r#"{"detail":{"n":[3]}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(
        updated.archive_arn.as_deref(),
        Some(archive_arn("short").as_str())
    );
    assert_eq!(updated.state, Some(ArchiveState::Enabled));
    put(&events, "default", "Tick", 3, None).await;
    put(&events, "default", "Tick", 4, None).await;
    h.advance(400.0 * 86_400.0).await;
    assert_eq!(counts(&events, "short").await.0, 1);
    let a = events
        .describe_archive()
        .archive_name("short")
        .send()
        .await
        .unwrap();
    assert_eq!(a.retention_days, Some(0));
    assert_eq!(a.description.as_deref(), Some("now long"));
    assert_eq!(a.event_pattern.as_deref(), Some(r#"{"detail":{"n":[3]}}"#));
    let rule = events
        .describe_rule()
        .name("Events-Archive-short")
        .send()
        .await
        .unwrap();
    assert_eq!(
        rule.event_pattern.as_deref(),
        Some(r#"{"detail":{"n":[3]},"replay-name":[{"exists":false}]}"#)
    );
}

#[tokio::test]
async fn an_archive_comes_with_a_managed_rule_only_it_may_change() {
    let h = Harness::start().await;
    let events = h.events();
    create_bus(&events, "shop").await;
    events
        .create_archive()
        .archive_name("orders")
        .event_source_arn(bus_arn("shop"))
        .event_pattern(r#"{"detail-type":["OrderPlaced"]}"#)
        .send()
        .await
        .unwrap();
    events
        .create_archive()
        .archive_name("all")
        .event_source_arn(bus_arn("shop"))
        .send()
        .await
        .unwrap();

    let rules = events
        .list_rules()
        .event_bus_name("shop")
        .send()
        .await
        .unwrap()
        .rules
        .unwrap();
    let listed: Vec<(&str, &str, &str)> = rules
        .iter()
        .map(|r| {
            (
                r.name().unwrap(),
                r.managed_by().unwrap(),
                r.event_pattern().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            (
                "Events-Archive-all",
                "prod.vhs.events.aws.internal",
                r#"{"replay-name":[{"exists":false}]}"#
            ),
            (
                "Events-Archive-orders",
                "prod.vhs.events.aws.internal",
                r#"{"detail-type":["OrderPlaced"],"replay-name":[{"exists":false}]}"#
            ),
        ]
    );
    let rule = events
        .describe_rule()
        .name("Events-Archive-orders")
        .event_bus_name("shop")
        .send()
        .await
        .unwrap();
    assert_eq!(
        rule.arn.as_deref(),
        Some(
            format!("arn:aws:events:us-east-1:{ACCOUNT}:rule/shop/Events-Archive-orders").as_str()
        )
    );
    assert_eq!(
        rule.managed_by.as_deref(),
        Some("prod.vhs.events.aws.internal")
    );
    assert_eq!(rule.state.unwrap().as_str(), "ENABLED");

    let managed = error(
        "ManagedRuleException",
        "Rule Events-Archive-orders is managed by an AWS service and can be modified only by it, or with Force.",
    );
    let name = "Events-Archive-orders";
    assert_eq!(
        aws_error!(
            events
                .delete_rule()
                .name(name)
                .event_bus_name("shop")
                .send()
                .await
        ),
        managed
    );
    assert_eq!(
        aws_error!(
            events
                .put_rule()
                .name(name)
                .event_bus_name("shop")
                .event_pattern(r#"{"source":["x"]}"#)
                .send()
                .await
        ),
        managed
    );
    assert_eq!(
        aws_error!(
            events
                .disable_rule()
                .name(name)
                .event_bus_name("shop")
                .send()
                .await
        ),
        managed
    );
    let target = Target::builder()
        .id("t")
        .arn(format!("arn:aws:sqs:us-east-1:{ACCOUNT}:q"))
        .build()
        .unwrap();
    assert_eq!(
        aws_error!(
            events
                .put_targets()
                .rule(name)
                .event_bus_name("shop")
                .targets(target)
                .send()
                .await
        ),
        managed
    );

    // Deleting the archive deletes its rule.
    events
        .delete_archive()
        .archive_name("orders")
        .send()
        .await
        .unwrap();
    let names: Vec<String> = events
        .list_rules()
        .event_bus_name("shop")
        .send()
        .await
        .unwrap()
        .rules
        .unwrap()
        .iter()
        .map(|r| r.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["Events-Archive-all"]);
    assert_eq!(
        aws_error!(
            events
                .describe_archive()
                .archive_name("orders")
                .send()
                .await
        ),
        error(
            "ResourceNotFoundException",
            "Archive orders does not exist."
        )
    );
}

#[tokio::test]
async fn a_replay_resends_the_archived_events_of_its_window_in_event_time_order() {
    let h = Harness::start().await;
    let events = h.events();
    create_bus(&events, "shop").await;
    let (url, _) = rule_to_queue(&h, "shop", "audit", r#"{"source":["shop"]}"#).await;
    events
        .create_archive()
        .archive_name("history")
        .event_source_arn(bus_arn("shop"))
        .send()
        .await
        .unwrap();
    // A window of five minutes, ending five minutes ago; events put out of time order.
    let start = now(&h).await / MINUTE * MINUTE - 10 * MINUTE;
    let end = start + 5 * MINUTE;
    let mut ids = std::collections::BTreeMap::new();
    for (n, at) in [
        (4, start + 180_000),
        (0, start - 60_000),
        (2, start + 70_000),
        (6, end),
        (5, start + 181_000),
        (1, start + 60_000),
        (3, start + 179_000),
    ] {
        ids.insert(n, put(&events, "shop", "Order", n as u32, Some(at)).await);
    }
    let live = drain(&h, &url).await;
    assert_eq!(live.len(), 7);
    assert!(live.iter().all(|b| json(b).get("replay-name").is_none()));
    assert_eq!(counts(&events, "history").await.0, 7);

    let started = now(&h).await;
    start_replay(
        &events,
        "again",
        "history",
        start,
        end,
        destination("shop", &[]),
    )
    .await;
    let d = events
        .describe_replay()
        .replay_name("again")
        .send()
        .await
        .unwrap();
    assert_eq!(d.state, Some(ReplayState::Starting));
    assert_eq!(at(d.replay_start_time), Some(started));
    assert_eq!(at(d.event_start_time), Some(start));
    assert_eq!(at(d.event_end_time), Some(end));
    assert_eq!(
        d.event_source_arn.as_deref(),
        Some(archive_arn("history").as_str())
    );
    assert_eq!(d.destination.as_ref().unwrap().arn(), bus_arn("shop"));
    assert!(d.destination.as_ref().unwrap().filter_arns().is_empty());
    assert_eq!(d.event_last_replayed_time, None);
    assert_eq!(d.replay_end_time, None);

    // One second later it runs; then each second sends the next minute of event time that has
    // events: [start+1min, start+2min), then [start+2min, start+3min), then [start+3min, ...).
    h.advance(1.0).await;
    assert_eq!(replay_state(&events, "again").await, ReplayState::Running);
    assert!(drain(&h, &url).await.is_empty());
    let mut replayed = Vec::new();
    for (expected, last) in [
        (vec![1, 2], start + 70_000),
        (vec![3], start + 179_000),
        (vec![4, 5], start + 181_000),
    ] {
        h.advance(1.0).await;
        let got = drain(&h, &url).await;
        assert_eq!(detail_numbers(&got), expected);
        let d = events
            .describe_replay()
            .replay_name("again")
            .send()
            .await
            .unwrap();
        assert_eq!(at(d.event_last_replayed_time), Some(last));
        replayed.extend(got);
    }
    let d = events
        .describe_replay()
        .replay_name("again")
        .send()
        .await
        .unwrap();
    assert_eq!(d.state, Some(ReplayState::Completed));
    assert_eq!(at(d.replay_end_time), Some(started + 4_000));

    // The very events archived, with `replay-name` after `region`; not archived again.
    for body in &replayed {
        let event = json(body);
        let n = event["detail"]["n"].as_i64().unwrap();
        assert_eq!(event["id"], ids[&n].as_str());
        assert_eq!(event["replay-name"], "again");
        let keys: Vec<&str> = event
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "version",
                "id",
                "detail-type",
                "source",
                "account",
                "time",
                "region",
                "replay-name",
                "resources",
                "detail"
            ]
        );
        let original = live.iter().find(|b| json(b)["id"] == event["id"]).unwrap();
        let mut stripped = event.clone();
        stripped.as_object_mut().unwrap().remove("replay-name");
        assert_eq!(stripped, json(original));
    }
    assert_eq!(counts(&events, "history").await.0, 7);
    h.advance(60.0).await;
    assert!(drain(&h, &url).await.is_empty());

    let listed = events.list_replays().send().await.unwrap().replays.unwrap();
    assert_eq!(listed.len(), 1);
    let r = &listed[0];
    assert_eq!(r.replay_name.as_deref(), Some("again"));
    assert_eq!(
        r.event_source_arn.as_deref(),
        Some(archive_arn("history").as_str())
    );
    assert_eq!(r.state, Some(ReplayState::Completed));
    assert_eq!(at(r.event_start_time), Some(start));
    assert_eq!(at(r.event_end_time), Some(end));
    assert_eq!(at(r.event_last_replayed_time), Some(start + 181_000));
    assert_eq!(at(r.replay_start_time), Some(started));
    assert_eq!(at(r.replay_end_time), Some(started + 4_000));
}

#[tokio::test]
async fn filter_arns_limit_a_replay_to_the_rules_listed() {
    let h = Harness::start().await;
    let events = h.events();
    let (url1, rule1) = rule_to_queue(&h, "default", "one", r#"{"source":["shop"]}"#).await;
    let (url2, _) = rule_to_queue(&h, "default", "two", r#"{"detail-type":["Order"]}"#).await;
    events
        .create_archive()
        .archive_name("a")
        .event_source_arn(bus_arn("default"))
        .send()
        .await
        .unwrap();
    let t0 = now(&h).await;
    put(&events, "default", "Order", 1, None).await;
    put(&events, "default", "Order", 2, None).await;
    assert_eq!(drain(&h, &url1).await.len(), 2);
    assert_eq!(drain(&h, &url2).await.len(), 2);
    h.advance(60.0).await;

    start_replay(
        &events,
        "only-one",
        "a",
        t0 - MINUTE,
        t0 + 1_000,
        destination("default", &[&rule1]),
    )
    .await;
    h.advance(2.0).await;
    assert_eq!(
        replay_state(&events, "only-one").await,
        ReplayState::Completed
    );
    let got = drain(&h, &url1).await;
    assert_eq!(detail_numbers(&got), [1, 2]);
    assert!(got.iter().all(|b| json(b)["replay-name"] == "only-one"));
    assert!(drain(&h, &url2).await.is_empty());
    let d = events
        .describe_replay()
        .replay_name("only-one")
        .send()
        .await
        .unwrap();
    assert_eq!(d.destination.unwrap().filter_arns(), [rule1]);

    // Without FilterArns every rule of the bus gets them (the managed rule delivers nothing).
    start_replay(
        &events,
        "all",
        "a",
        t0 - MINUTE,
        t0 + 1_000,
        destination("default", &[]),
    )
    .await;
    h.advance(2.0).await;
    assert_eq!(detail_numbers(&drain(&h, &url1).await), [1, 2]);
    assert_eq!(detail_numbers(&drain(&h, &url2).await), [1, 2]);
    assert_eq!(counts(&events, "a").await.0, 2);
}

#[tokio::test]
async fn a_replay_can_be_cancelled_while_it_starts_or_runs() {
    let h = Harness::start().await;
    let events = h.events();
    let (url, _) = rule_to_queue(&h, "default", "r", r#"{"source":["shop"]}"#).await;
    events
        .create_archive()
        .archive_name("a")
        .event_source_arn(bus_arn("default"))
        .send()
        .await
        .unwrap();
    let start = now(&h).await / MINUTE * MINUTE - 10 * MINUTE;
    for n in 0..5 {
        put(
            &events,
            "default",
            "Tick",
            n,
            Some(start + i64::from(n) * MINUTE),
        )
        .await;
    }
    drain(&h, &url).await;
    let end = start + 5 * MINUTE;

    // Cancelled while starting: nothing is sent.
    start_replay(
        &events,
        "early",
        "a",
        start,
        end,
        destination("default", &[]),
    )
    .await;
    let cancelled = events
        .cancel_replay()
        .replay_name("early")
        .send()
        .await
        .unwrap();
    assert_eq!(
        cancelled.replay_arn.as_deref(),
        Some(format!("arn:aws:events:us-east-1:{ACCOUNT}:replay/early").as_str())
    );
    assert_eq!(cancelled.state, Some(ReplayState::Cancelling));
    assert_eq!(
        replay_state(&events, "early").await,
        ReplayState::Cancelling
    );
    h.advance(1.0).await;
    let d = events
        .describe_replay()
        .replay_name("early")
        .send()
        .await
        .unwrap();
    assert_eq!(d.state, Some(ReplayState::Cancelled));
    assert!(d.replay_end_time.is_some());
    h.advance(10.0).await;
    assert!(drain(&h, &url).await.is_empty());

    // Cancelled while running, after its first minute: the rest is not sent.
    start_replay(
        &events,
        "late",
        "a",
        start,
        end,
        destination("default", &[]),
    )
    .await;
    h.advance(2.0).await;
    assert_eq!(detail_numbers(&drain(&h, &url).await), [0]);
    let cancelled = events
        .cancel_replay()
        .replay_name("late")
        .send()
        .await
        .unwrap();
    assert_eq!(cancelled.state, Some(ReplayState::Cancelling));
    h.advance(1.0).await;
    assert_eq!(replay_state(&events, "late").await, ReplayState::Cancelled);
    h.advance(10.0).await;
    assert!(drain(&h, &url).await.is_empty());

    // Only a starting or running replay can be cancelled.
    assert_eq!(
        aws_error!(events.cancel_replay().replay_name("late").send().await),
        error(
            "IllegalStatusException",
            "Replay late can be canceled only when its state is STARTING or RUNNING; it is CANCELLED."
        )
    );
    start_replay(
        &events,
        "done",
        "a",
        start,
        end,
        destination("default", &[]),
    )
    .await;
    h.advance(10.0).await;
    assert_eq!(replay_state(&events, "done").await, ReplayState::Completed);
    assert_eq!(detail_numbers(&drain(&h, &url).await), [0, 1, 2, 3, 4]);
    assert_eq!(
        aws_error!(events.cancel_replay().replay_name("done").send().await),
        error(
            "IllegalStatusException",
            "Replay done can be canceled only when its state is STARTING or RUNNING; it is COMPLETED."
        )
    );
    assert_eq!(
        aws_error!(events.cancel_replay().replay_name("nope").send().await),
        error("ResourceNotFoundException", "Replay nope does not exist.")
    );

    // ListReplays by prefix, state, archive, a page at a time.
    let names = |out: aws_sdk_eventbridge::operation::list_replays::ListReplaysOutput| {
        out.replays
            .unwrap_or_default()
            .iter()
            .map(|r| r.replay_name.clone().unwrap())
            .collect::<Vec<_>>()
    };
    let all = events.list_replays().send().await.unwrap();
    assert_eq!(names(all), ["done", "early", "late"]);
    let cancelled = events
        .list_replays()
        .state(ReplayState::Cancelled)
        .send()
        .await
        .unwrap();
    assert_eq!(names(cancelled), ["early", "late"]);
    let prefixed = events
        .list_replays()
        .name_prefix("la")
        .send()
        .await
        .unwrap();
    assert_eq!(names(prefixed), ["late"]);
    let by_archive = events
        .list_replays()
        .event_source_arn(archive_arn("a"))
        .state(ReplayState::Completed)
        .send()
        .await
        .unwrap();
    assert_eq!(names(by_archive), ["done"]);
    let other = events
        .list_replays()
        .event_source_arn(archive_arn("other"))
        .send()
        .await
        .unwrap();
    assert!(names(other).is_empty());
    let page = events.list_replays().limit(2).send().await.unwrap();
    let token = page.next_token.clone().expect("more");
    assert_eq!(names(page), ["done", "early"]);
    let rest = events
        .list_replays()
        .limit(2)
        .next_token(token)
        .send()
        .await
        .unwrap();
    assert_eq!(rest.next_token, None);
    assert_eq!(names(rest), ["late"]);
}

#[tokio::test]
async fn bad_archive_requests_get_aws_errors() {
    let h = Harness::start().await;
    let events = h.events();
    let create = |name: &str, source: String| {
        events
            .create_archive()
            .archive_name(name)
            .event_source_arn(source)
    };
    assert_eq!(
        aws_error!(create("a", bus_arn("missing")).send().await),
        error(
            "ResourceNotFoundException",
            "Event bus missing does not exist."
        )
    );
    create("a", bus_arn("default")).send().await.unwrap();
    assert_eq!(
        aws_error!(create("a", bus_arn("default")).send().await),
        error(
            "ResourceAlreadyExistsException",
            "Archive a already exists."
        )
    );
    let long = "n".repeat(49);
    assert_eq!(
        aws_error!(create(&long, bus_arn("default")).send().await),
        error(
            "ValidationException",
            &format!(
                "1 validation error detected: Value '{long}' at 'archiveName' failed to satisfy constraint: Member must have length less than or equal to 48"
            )
        )
    );
    assert_eq!(
        aws_error!(create("bad name", bus_arn("default")).send().await),
        error(
            "ValidationException",
            r"1 validation error detected: Value 'bad name' at 'archiveName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\.\-_A-Za-z0-9]+"
        )
    );
    assert_eq!(
        aws_error!(
            create("p", bus_arn("default"))
                .event_pattern(r#"{"source":"shop"}"#)
                .send()
                .await
        ),
        error(
            "InvalidEventPatternException",
            r#"Event pattern is not valid. Reason: "source" must be an object or an array"#
        )
    );
    assert_eq!(
        aws_error!(
            create("r", bus_arn("default"))
                .retention_days(-1)
                .send()
                .await
        ),
        error(
            "ValidationException",
            "1 validation error detected: Value '-1' at 'retentionDays' failed to satisfy constraint: Member must have value greater than or equal to 0"
        )
    );
    let missing = error("ResourceNotFoundException", "Archive nope does not exist.");
    assert_eq!(
        aws_error!(events.describe_archive().archive_name("nope").send().await),
        missing
    );
    assert_eq!(
        aws_error!(events.delete_archive().archive_name("nope").send().await),
        missing
    );
    assert_eq!(
        aws_error!(
            events
                .update_archive()
                .archive_name("nope")
                .retention_days(1)
                .send()
                .await
        ),
        missing
    );
    assert_eq!(
        aws_error!(
            events
                .list_archives()
                .name_prefix("a")
                .event_source_arn(bus_arn("default"))
                .send()
                .await
        ),
        error(
            "ValidationException",
            "At most one filter is allowed for ListArchives. Use either : State, EventSourceArn, or NamePrefix."
        )
    );
    assert_eq!(
        aws_error!(
            events
                .list_archives()
                .event_source_arn(bus_arn("missing"))
                .send()
                .await
        ),
        error(
            "ResourceNotFoundException",
            "Event bus missing does not exist."
        )
    );
    h.assert_alive().await;
}

#[tokio::test]
async fn bad_replay_requests_get_aws_errors() {
    let h = Harness::start().await;
    let events = h.events();
    create_bus(&events, "other").await;
    events
        .create_archive()
        .archive_name("a")
        .event_source_arn(bus_arn("default"))
        .send()
        .await
        .unwrap();
    h.advance(3600.0).await;
    let t = now(&h).await;
    let replay = |name: &str, archive: &str, from: i64, to: i64, dest: ReplayDestination| {
        events
            .start_replay()
            .replay_name(name)
            .event_source_arn(archive_arn(archive))
            .event_start_time(seconds(from))
            .event_end_time(seconds(to))
            .destination(dest)
    };
    let (from, to) = (t - 10 * MINUTE, t - MINUTE);
    assert_eq!(
        aws_error!(
            replay("r", "nope", from, to, destination("default", &[]))
                .send()
                .await
        ),
        error(
            "ValidationException",
            "Parameter EventSourceArn is not valid. Reason: Archive nope does not exist."
        )
    );
    assert_eq!(
        aws_error!(
            replay("r", "a", from, to, destination("missing", &[]))
                .send()
                .await
        ),
        error(
            "ResourceNotFoundException",
            "Event bus missing does not exist."
        )
    );
    assert_eq!(
        aws_error!(
            replay("r", "a", from, to, destination("other", &[]))
                .send()
                .await
        ),
        error(
            "ValidationException",
            "Parameter Destination.Arn is not valid. Reason: Cross event bus replay is not permitted."
        )
    );
    let backwards = error(
        "ValidationException",
        "Parameter EventEndTime is not valid. Reason: EventStartTime must be before EventEndTime.",
    );
    assert_eq!(
        aws_error!(
            replay("r", "a", to, from, destination("default", &[]))
                .send()
                .await
        ),
        backwards
    );
    assert_eq!(
        aws_error!(
            replay("r", "a", to, to, destination("default", &[]))
                .send()
                .await
        ),
        backwards
    );
    let foreign = format!("arn:aws:events:us-east-1:{ACCOUNT}:rule/other/x");
    assert_eq!(
        aws_error!(
            replay("r", "a", from, to, destination("default", &[&foreign]))
                .send()
                .await
        ),
        error(
            "ResourceNotFoundException",
            "Rule x does not exist on EventBus default."
        )
    );
    let long = "r".repeat(65);
    assert_eq!(
        aws_error!(
            replay(&long, "a", from, to, destination("default", &[]))
                .send()
                .await
        ),
        error(
            "ValidationException",
            &format!(
                "1 validation error detected: Value '{long}' at 'replayName' failed to satisfy constraint: Member must have length less than or equal to 64"
            )
        )
    );

    // Ten replays may be under way at once; the eleventh waits until some are done.
    for i in 0..10 {
        start_replay(
            &events,
            &format!("r{i}"),
            "a",
            from,
            to,
            destination("default", &[]),
        )
        .await;
    }
    assert_eq!(
        aws_error!(
            replay("r10", "a", from, to, destination("default", &[]))
                .send()
                .await
        ),
        error(
            "LimitExceededException",
            "The requested resource exceeds the maximum number allowed."
        )
    );
    assert_eq!(
        aws_error!(
            replay("r0", "a", from, to, destination("default", &[]))
                .send()
                .await
        ),
        error(
            "ResourceAlreadyExistsException",
            "Replay r0 already exists."
        )
    );
    h.advance(2.0).await;
    assert_eq!(replay_state(&events, "r9").await, ReplayState::Completed);
    start_replay(&events, "r10", "a", from, to, destination("default", &[])).await;
    assert_eq!(
        aws_error!(events.describe_replay().replay_name("nope").send().await),
        error("ResourceNotFoundException", "Replay nope does not exist.")
    );
    h.assert_alive().await;
}
