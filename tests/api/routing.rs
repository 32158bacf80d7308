//! Routing over many rules, subscriptions and subscribers (issue 17, item 4): a bus with 300
//! rules, a topic with 200 filter policies and a custom bus with 100 subscribers, changed the
//! ways users change them (patterns replaced, rules disabled and enabled, policies and scopes
//! set, things deleted), route each event to exactly those that match, in the order they were
//! always delivered in (rule names, subscription and subscriber ARNs). What received is read
//! from the queues and from the delivery log; a small model of the patterns says what should.

use crate::custom_bus::{self, drain};
use crate::harness::Harness;
use aws_sdk_eventbridge::types::{PutEventsRequestEntry, Target};
use aws_sdk_sns::types::MessageAttributeValue;
use serde_json::{Value, json};

const ACCOUNT: &str = "000000000000";

/// The delivery log's attempts since it was last emptied, as their sources, in order.
async fn attempt_sources(h: &Harness) -> Vec<String> {
    let records = h.control_get("deliveries?event=attempt").await["records"].clone();
    let records = records.as_array().unwrap();
    for r in records {
        assert_eq!(r["outcome"], "delivered", "{r}");
    }
    let sources = records.iter().map(|r| r["source"].as_str().unwrap());
    sources.map(str::to_string).collect()
}

async fn clear_log(h: &Harness) {
    let r = h
        .request("DELETE", "/_switchyard/deliveries", &[], "")
        .await;
    assert!(r.status < 300, "{}", r.body);
}

/// The bodies on a queue now (each a JSON string), sorted.
async fn received(h: &Harness, url: &str) -> Vec<String> {
    let mut bodies: Vec<String> = drain(h, url)
        .await
        .iter()
        .map(|m| serde_json::from_str::<String>(m.body().unwrap()).unwrap())
        .collect();
    bodies.sort();
    bodies
}

// --- EventBridge: 300 rules on the default bus --------------------------------------------

/// An event as the rules' model sees it.
struct Ev {
    source: String,
    detail_type: String,
    resources: Vec<String>,
    n: usize,
}

fn ev(source: &str, detail_type: &str, resources: &[&str], n: usize) -> Ev {
    Ev {
        source: source.into(),
        detail_type: detail_type.into(),
        resources: resources.iter().map(|r| r.to_string()).collect(),
        n,
    }
}

/// Rule `i`'s pattern as first put: six shapes, four of them indexable, one (a prefix)
/// tried for every event, one on `resources` (an array in the event).
fn rule_pattern(i: usize) -> Value {
    match i % 6 {
        0 => json!({"source": [format!("src-{i}")]}),
        1 => json!({"source": ["shared"], "detail-type": [format!("type-{i}")]}),
        2 => json!({"detail-type": [format!("type-{i}")], "detail": {"n": [i]}}),
        3 => json!({"source": [{"prefix": format!("pre-{i}-")}]}),
        4 => json!({"source": [format!("src-{i}"), format!("alt-{i}")], "account": [ACCOUNT]}),
        _ => json!({"resources": [format!("res-{i}")]}),
    }
}

/// Rules whose pattern PutRule replaces, which it disables, and which are deleted.
fn moved(i: usize) -> bool {
    i % 10 == 3
}
fn disabled(i: usize) -> bool {
    i % 20 == 15
}
fn deleted(i: usize) -> bool {
    i % 10 == 7
}

fn rule_wants(i: usize, e: &Ev) -> bool {
    if deleted(i) || disabled(i) {
        return false;
    }
    if moved(i) {
        return e.source == format!("moved-{i}");
    }
    match i % 6 {
        0 => e.source == format!("src-{i}"),
        1 => e.source == "shared" && e.detail_type == format!("type-{i}"),
        2 => e.detail_type == format!("type-{i}") && e.n == i,
        3 => e.source.starts_with(&format!("pre-{i}-")),
        4 => e.source == format!("src-{i}") || e.source == format!("alt-{i}"),
        _ => e.resources.contains(&format!("res-{i}")),
    }
}

fn rule_name(i: usize) -> String {
    format!("r{i:03}")
}

#[tokio::test]
async fn a_bus_with_300_rules_sends_each_event_to_exactly_the_rules_it_matches_in_name_order() {
    let h = Harness::start().await;
    let events = h.events();
    let url = h
        .sqs()
        .create_queue()
        .queue_name("routed")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let queue_arn = format!("arn:aws:sqs:us-east-1:{ACCOUNT}:routed");
    for i in 0..300 {
        let name = rule_name(i);
        let pattern = rule_pattern(i).to_string();
        events
            .put_rule()
            .name(&name)
            .event_pattern(pattern)
            .send()
            .await
            .unwrap();
        let target = Target::builder()
            .id("t")
            .arn(&queue_arn)
            .input(json!(name).to_string())
            .build()
            .unwrap();
        events
            .put_targets()
            .rule(&name)
            .targets(target)
            .send()
            .await
            .unwrap();
    }
    for i in 0..300 {
        let name = rule_name(i);
        if moved(i) {
            let pattern = json!({"source": [format!("moved-{i}")]}).to_string();
            events
                .put_rule()
                .name(&name)
                .event_pattern(pattern)
                .send()
                .await
                .unwrap();
        }
        if i % 20 == 5 || disabled(i) {
            events.disable_rule().name(&name).send().await.unwrap();
        }
        if i % 20 == 5 {
            events.enable_rule().name(&name).send().await.unwrap();
        }
        if deleted(i) {
            events
                .remove_targets()
                .rule(&name)
                .ids("t")
                .send()
                .await
                .unwrap();
            events.delete_rule().name(&name).send().await.unwrap();
        }
    }
    let cases = [
        ev("src-0", "x", &[], 0),
        ev("shared", "type-7", &[], 0),
        ev("shared", "type-8", &[], 8),
        ev("pre-9-a", "x", &[], 0),
        ev("alt-10", "x", &[], 0),
        ev("src-12", "x", &["res-11", "res-17", "res-299", "res-41"], 0),
        ev("moved-13", "type-13", &[], 13),
        ev("src-3", "x", &["res-35"], 0),
        ev("alt-25", "type-25", &["res-5", "res-65"], 0),
        ev("src-27", "type-27", &["res-47"], 0),
        ev("pre-45-", "type-1", &[], 0),
        ev("nothing", "x", &["res-0"], 0),
    ];
    let mut hits = 0;
    for case in &cases {
        clear_log(&h).await;
        let entry = PutEventsRequestEntry::builder()
            .source(&case.source)
            .detail_type(&case.detail_type)
            .set_resources(Some(case.resources.clone()))
            .detail(json!({"n": case.n}).to_string())
            .build();
        let out = events.put_events().entries(entry).send().await.unwrap();
        assert_eq!(out.failed_entry_count, 0);
        let wanted: Vec<usize> = (0..300).filter(|&i| rule_wants(i, case)).collect();
        let names: Vec<String> = wanted.iter().map(|&i| rule_name(i)).collect();
        assert_eq!(received(&h, &url).await, names, "{}", case.source);
        let sources: Vec<String> = names
            .iter()
            .map(|n| format!("arn:aws:events:us-east-1:{ACCOUNT}:rule/{n}#t"))
            .collect();
        assert_eq!(attempt_sources(&h).await, sources, "{}", case.source);
        hits += wanted.len();
    }
    assert!(hits >= 10, "the cases reach rules ({hits})");
}

// --- SNS: 200 filter policies on one topic ------------------------------------------------

/// Subscription `i`'s first policy and whether it reads the body.
fn policy(i: usize) -> (Value, bool) {
    match i % 5 {
        0 => (json!({"store": [format!("s{i}")]}), false),
        1 => (
            json!({"store": ["shared"], "event": [format!("e{i}")]}),
            false,
        ),
        2 => (
            json!({"$or": [{"store": [format!("s{i}")]}, {"event": [format!("e{i}")]}]}),
            false,
        ),
        3 => (json!({"store": [{"prefix": format!("p{i}-")}]}), false),
        _ => (json!({"order": {"kind": [format!("k{i}")]}}), true),
    }
}

/// A message as the policies' model sees it.
struct Msg {
    store: &'static str,
    event: &'static str,
    kind: &'static str,
}

fn subscription_wants(i: usize, m: &Msg) -> bool {
    match i % 10 {
        7 => return false,                           // unsubscribed
        6 => return true,                            // its policy removed
        3 => return m.store == format!("moved-{i}"), // its policy replaced
        9 => return m.store == format!("flip-{i}"),  // a flat policy, scope set to attributes
        _ => {}
    }
    let (store, event, kind) = (m.store, m.event, m.kind);
    match i % 5 {
        0 => store == format!("s{i}"),
        1 => store == "shared" && event == format!("e{i}"),
        2 => store == format!("s{i}") || event == format!("e{i}"),
        3 => store.starts_with(&format!("p{i}-")),
        _ => kind == format!("k{i}"),
    }
}

#[tokio::test]
async fn a_topic_with_200_filter_policies_delivers_to_exactly_the_subscriptions_that_pass() {
    let h = Harness::start().await;
    let (sns, sqs) = (h.sns(), h.sqs());
    let topic = sns.create_topic().name("orders").send().await.unwrap();
    let topic = topic.topic_arn.unwrap();
    let mut subscriptions = Vec::new();
    let mut urls = Vec::new();
    for i in 0..200 {
        let name = format!("q{i:03}");
        let url = sqs.create_queue().queue_name(&name).send().await.unwrap();
        urls.push(url.queue_url.unwrap());
        let (policy, body) = policy(i);
        let scope = if body {
            "MessageBody"
        } else {
            "MessageAttributes"
        };
        let out = sns
            .subscribe()
            .topic_arn(&topic)
            .protocol("sqs")
            .endpoint(format!("arn:aws:sqs:us-east-1:{ACCOUNT}:{name}"))
            .attributes("FilterPolicy", policy.to_string())
            .attributes("FilterPolicyScope", scope)
            .attributes("RawMessageDelivery", "true")
            .send()
            .await
            .unwrap();
        subscriptions.push(out.subscription_arn.unwrap());
    }
    for (i, arn) in subscriptions.iter().enumerate() {
        let set = |name: &str, value: Value| {
            let value = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_string);
            let call = sns.set_subscription_attributes().subscription_arn(arn);
            call.attribute_name(name).attribute_value(value).send()
        };
        match i % 10 {
            3 => set("FilterPolicy", json!({"store": [format!("moved-{i}")]})).await,
            6 => set("FilterPolicy", json!("{}")).await,
            9 => {
                set("FilterPolicy", json!({"store": [format!("flip-{i}")]}))
                    .await
                    .unwrap();
                set("FilterPolicyScope", json!("MessageAttributes")).await
            }
            _ => continue,
        }
        .unwrap();
    }
    for arn in subscriptions.iter().skip(7).step_by(10) {
        sns.unsubscribe()
            .subscription_arn(arn)
            .send()
            .await
            .unwrap();
    }
    let cases = [
        Msg {
            store: "s0",
            event: "-",
            kind: "-",
        },
        Msg {
            store: "shared",
            event: "e11",
            kind: "-",
        },
        Msg {
            store: "s12",
            event: "e22",
            kind: "k14",
        },
        Msg {
            store: "p18-x",
            event: "-",
            kind: "k24",
        },
        Msg {
            store: "moved-13",
            event: "e1",
            kind: "-",
        },
        Msg {
            store: "flip-19",
            event: "-",
            kind: "k19",
        },
        Msg {
            store: "s10",
            event: "e17",
            kind: "k17",
        },
        Msg {
            store: "none",
            event: "none",
            kind: "none",
        },
    ];
    let attribute = |v: &str| {
        let value = MessageAttributeValue::builder()
            .data_type("String")
            .string_value(v);
        value.build().unwrap()
    };
    for m in &cases {
        clear_log(&h).await;
        sns.publish()
            .topic_arn(&topic)
            .message(json!({"order": {"kind": m.kind}}).to_string())
            .message_attributes("store", attribute(m.store))
            .message_attributes("event", attribute(m.event))
            .send()
            .await
            .unwrap();
        let wanted: Vec<usize> = (0..200).filter(|&i| subscription_wants(i, m)).collect();
        let mut sources: Vec<String> = wanted.iter().map(|&i| subscriptions[i].clone()).collect();
        sources.sort();
        assert_eq!(attempt_sources(&h).await, sources, "{}", m.store);
        for i in (0..200).filter(|i| i % 10 != 7) {
            let got = drain(&h, &urls[i]).await.len();
            assert_eq!(
                got,
                usize::from(wanted.contains(&i)),
                "queue {i}, {}",
                m.store
            );
        }
    }
}

/// `NumberOfNotificationsFilteredOut` of `topic` so far.
async fn filtered_out(h: &Harness, topic: &str) -> u64 {
    let r = h.request("GET", "/_switchyard/metrics", &[], "").await;
    let prefix = format!(
        "switchyard_aws_metric_total{{namespace=\"AWS/SNS\",\
         metric=\"NumberOfNotificationsFilteredOut\",resource=\"{topic}\"}} "
    );
    r.body
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map_or(0, |n| n.trim().parse().unwrap())
}

/// Every confirmed subscription a message skips is counted as filtered out, whether or not the
/// publish looked at it: one pending confirmation is not, until it is confirmed; one
/// unsubscribed is not any more.
#[tokio::test]
async fn every_confirmed_subscription_a_message_skips_is_counted_as_filtered_out() {
    let h = Harness::start().await;
    let (sns, sqs) = (h.sns(), h.sqs());
    let topic = sns.create_topic().name("counted").send().await.unwrap();
    let topic = topic.topic_arn.unwrap();
    let (mut urls, mut subscriptions) = (Vec::new(), Vec::new());
    for i in 0..20 {
        let name = format!("c{i:02}");
        let url = sqs.create_queue().queue_name(&name).send().await.unwrap();
        urls.push(url.queue_url.unwrap());
        let out = sns
            .subscribe()
            .topic_arn(&topic)
            .protocol("sqs")
            .endpoint(format!("arn:aws:sqs:us-east-1:{ACCOUNT}:{name}"))
            .attributes(
                "FilterPolicy",
                json!({"store": [format!("s{i}")]}).to_string(),
            )
            .attributes("RawMessageDelivery", "true")
            .send()
            .await
            .unwrap();
        subscriptions.push(out.subscription_arn.unwrap());
    }
    // An e-mail subscription waits for its confirmation.
    let pending = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("email")
        .endpoint("ops@example.com")
        .attributes("FilterPolicy", json!({"store": ["mail"]}).to_string())
        .return_subscription_arn(true)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    let publish = |store: &'static str| {
        let value = MessageAttributeValue::builder()
            .data_type("String")
            .string_value(store)
            .build()
            .unwrap();
        let call = sns.publish().topic_arn(&topic).message(store);
        call.message_attributes("store", value).send()
    };
    let received = |i: usize| drain(&h, &urls[i]);

    publish("s0").await.unwrap();
    assert_eq!(received(0).await.len(), 1);
    assert_eq!(filtered_out(&h, &topic).await, 19);
    publish("mail").await.unwrap();
    assert_eq!(filtered_out(&h, &topic).await, 39);

    let token = h
        .request(
            "GET",
            &format!("/_aws/sns/subscription-tokens/{pending}"),
            &[],
            "",
        )
        .await
        .json()["subscription_token"]
        .as_str()
        .unwrap()
        .to_string();
    let confirm = sns.confirm_subscription().topic_arn(&topic).token(token);
    confirm.send().await.unwrap();
    publish("s1").await.unwrap();
    assert_eq!(received(1).await.len(), 1);
    assert_eq!(filtered_out(&h, &topic).await, 39 + 20);
    clear_log(&h).await;
    publish("mail").await.unwrap();
    assert_eq!(attempt_sources(&h).await, [pending]);
    assert_eq!(filtered_out(&h, &topic).await, 59 + 20);

    sns.unsubscribe()
        .subscription_arn(&subscriptions[5])
        .send()
        .await
        .unwrap();
    clear_log(&h).await;
    publish("s5").await.unwrap();
    assert!(attempt_sources(&h).await.is_empty());
    assert_eq!(filtered_out(&h, &topic).await, 79 + 20);
    for i in 0..20 {
        assert!(received(i).await.is_empty(), "queue {i}");
    }
}

// --- The custom bus: 100 subscribers ------------------------------------------------------

fn subscriber_filters(i: usize) -> Value {
    let event = |p: Value| json!({"Scope": "EVENT", "Pattern": p.to_string()});
    match i % 4 {
        0 => json!([event(json!({"source": [format!("src-{i}")]}))]),
        1 => json!([
            event(json!({"source": ["shared"], "detail-type": [format!("type-{i}")]})),
            {"Scope": "SYSTEM_METADATA", "Pattern": r#"{"aws:DeliveryType":["LIVE"]}"#},
        ]),
        2 => json!([event(json!({"detail": {"n": [i]}}))]),
        _ => json!([]),
    }
}

fn subscriber_wants(i: usize, source: &str, detail_type: &str, n: usize) -> bool {
    match i % 10 {
        7 => return false,
        5 => return source == format!("moved-{i}"),
        _ => {}
    }
    match i % 4 {
        0 => source == format!("src-{i}"),
        1 => source == "shared" && detail_type == format!("type-{i}"),
        2 => n == i,
        _ => true,
    }
}

#[tokio::test]
async fn a_custom_bus_with_100_subscribers_delivers_to_exactly_those_whose_filters_match() {
    let h = Harness::start().await;
    let bus = custom_bus::bus(&h, "many").await;
    let (url, queue) = custom_bus::queue(&h, "many-q", &[]).await;
    let mut arns = Vec::new();
    for i in 0..100 {
        let name = format!("s{i:03}");
        let mut settings = json!({"InvokeConfiguration": {"Input": json!(name).to_string()}});
        let filters = subscriber_filters(i);
        if filters != json!([]) {
            settings["FilterConfiguration"] = json!({ "Filters": filters });
        }
        arns.push(custom_bus::subscriber(&h, &name, &bus, &queue, settings).await);
    }
    for (i, arn) in arns.iter().enumerate() {
        if i % 10 == 5 {
            let pattern = json!({"source": [format!("moved-{i}")]}).to_string();
            let filters = json!({"Filters": [{"Scope": "EVENT", "Pattern": pattern}]});
            let update = json!({"SubscriberArn": arn, "FilterConfiguration": filters});
            custom_bus::v2(&h, "UpdateSubscriber", update).await;
        }
        if i % 10 == 7 {
            custom_bus::v2(&h, "DeleteSubscriber", json!({"SubscriberArn": arn})).await;
        }
    }
    let cases = [
        ("src-0", "x", 0),
        ("shared", "type-9", 9),
        ("shared", "type-13", 6),
        ("moved-15", "type-21", 10),
        ("src-17", "x", 17),
        ("none", "none", 1000),
    ];
    for (source, detail_type, n) in cases {
        clear_log(&h).await;
        let entry = json!({
            "Source": source,
            "DetailType": detail_type,
            "Detail": json!({"n": n}).to_string(),
        });
        custom_bus::put(&h, &bus, json!([entry])).await;
        let wanted: Vec<usize> = (0..100)
            .filter(|&i| subscriber_wants(i, source, detail_type, n))
            .collect();
        let names: Vec<String> = wanted.iter().map(|i| format!("s{i:03}")).collect();
        assert_eq!(received(&h, &url).await, names, "{source}");
        let sources: Vec<String> = wanted.iter().map(|&i| arns[i].clone()).collect();
        assert_eq!(attempt_sources(&h).await, sources, "{source}");
    }
}
