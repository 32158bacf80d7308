//! SNS topics (issue 4): CreateTopic idempotence and name rules, DeleteTopic, every topic
//! attribute AWS returns (computed ones included), ListTopics paging, tags, permissions in the
//! Policy, the data protection policy; through aws-sdk-sns and raw AWS Query requests. Also the
//! small helpers the other `sns_*` files share.

use crate::harness::{Harness, xml_text, xml_texts};
use aws_sdk_sns::Client;
use aws_sdk_sns::error::ProvideErrorMetadata;
use aws_sdk_sns::types::Tag;
use serde_json::{Value, json};
use std::collections::HashMap;

pub const ACCOUNT: &str = "000000000000";

pub fn topic_arn(name: &str) -> String {
    format!("arn:aws:sns:us-east-1:{ACCOUNT}:{name}")
}

/// Creates a topic with `attrs` and answers its ARN.
pub async fn create_topic(sns: &Client, name: &str, attrs: &[(&str, &str)]) -> String {
    let mut req = sns.create_topic().name(name);
    for (k, v) in attrs {
        req = req.attributes(*k, *v);
    }
    req.send()
        .await
        .unwrap_or_else(|e| panic!("create topic {name}: {e:?}"))
        .topic_arn
        .unwrap()
}

/// Every attribute of the topic, by name.
pub async fn topic_attributes(sns: &Client, arn: &str) -> HashMap<String, String> {
    sns.get_topic_attributes()
        .topic_arn(arn)
        .send()
        .await
        .unwrap_or_else(|e| panic!("get topic attributes {arn}: {e:?}"))
        .attributes
        .unwrap_or_default()
}

/// (code, message) of a failed SDK call.
pub fn sdk_error<T: std::fmt::Debug, E: ProvideErrorMetadata + std::fmt::Debug>(
    r: Result<T, E>,
) -> (String, String) {
    let e = r.expect_err("the call fails");
    (
        e.code().unwrap_or_default().to_string(),
        e.message().unwrap_or_default().to_string(),
    )
}

/// A raw SNS Query request (form-encoded POST, `Version=2010-03-31`).
pub async fn sns_query(h: &Harness, params: &[(&str, &str)]) -> crate::harness::Reply {
    let mut all = params.to_vec();
    all.push(("Version", "2010-03-31"));
    h.query(&all).await
}

/// A raw SNS Query request that must fail: (status, Code, Message), after checking the
/// `ErrorResponse` shape (docs/sns.md, "Errors"), which has no Detail element (SQS's has one).
pub async fn sns_query_error(h: &Harness, params: &[(&str, &str)]) -> (u16, String, String) {
    let r = sns_query(h, params).await;
    assert!(r.status >= 400, "{params:?} succeeded: {}", r.body);
    assert!(r.body.contains("<ErrorResponse"), "{}", r.body);
    assert!(!r.body.contains("Detail"), "{}", r.body);
    assert_eq!(xml_text(&r.body, "Type").as_deref(), Some("Sender"));
    assert!(xml_text(&r.body, "RequestId").is_some(), "{}", r.body);
    (
        r.status,
        xml_text(&r.body, "Code").unwrap(),
        xml_text(&r.body, "Message").unwrap(),
    )
}

fn default_policy(arn: &str) -> Value {
    json!({
        "Version": "2008-10-17",
        "Id": "__default_policy_ID",
        "Statement": [{
            "Sid": "__default_statement_ID",
            "Effect": "Allow",
            "Principal": {"AWS": "*"},
            "Action": ["SNS:GetTopicAttributes", "SNS:SetTopicAttributes", "SNS:AddPermission",
                "SNS:RemovePermission", "SNS:DeleteTopic", "SNS:Subscribe",
                "SNS:ListSubscriptionsByTopic", "SNS:Publish"],
            "Resource": arn,
            "Condition": {"StringEquals": {"AWS:SourceOwner": ACCOUNT}}
        }]
    })
}

const DEFAULT_EFFECTIVE_DELIVERY_POLICY: &str = r#"{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":20,"maxDelayTarget":20,"numRetries":3,"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},"disableSubscriptionOverrides":false,"defaultRequestPolicy":{"headerContentType":"text/plain; charset=UTF-8"}}}"#;

fn sorted_keys(a: &HashMap<String, String>) -> Vec<&str> {
    let mut keys: Vec<&str> = a.keys().map(String::as_str).collect();
    keys.sort();
    keys
}

#[tokio::test]
async fn create_topic_is_idempotent_for_equal_attributes_and_tags_and_fails_for_different_ones() {
    let h = Harness::start().await;
    let sns = h.sns();
    let tag = |k: &str, v: &str| Tag::builder().key(k).value(v).build().unwrap();
    let first = sns
        .create_topic()
        .name("orders")
        .attributes("DisplayName", "Orders")
        .tags(tag("team", "a"))
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    assert_eq!(first, topic_arn("orders"));
    let again = sns
        .create_topic()
        .name("orders")
        .attributes("DisplayName", "Orders")
        .tags(tag("team", "a"))
        .send()
        .await
        .unwrap();
    assert_eq!(again.topic_arn.unwrap(), first);

    let (code, message) = sdk_error(
        sns.create_topic()
            .name("orders")
            .attributes("DisplayName", "Other")
            .send()
            .await,
    );
    assert_eq!(code, "InvalidParameter");
    assert_eq!(
        message,
        "Invalid parameter: Attributes Reason: Topic already exists with different attributes"
    );
    let (code, message) = sdk_error(
        sns.create_topic()
            .name("orders")
            .attributes("DisplayName", "Orders")
            .tags(tag("team", "b"))
            .send()
            .await,
    );
    assert_eq!(code, "InvalidParameter");
    assert_eq!(
        message,
        "Invalid parameter: Tags Reason: Topic already exists with different tags"
    );
    // One topic in the end, with its first attributes and tags.
    let topics = sns.list_topics().send().await.unwrap().topics.unwrap();
    assert_eq!(topics.len(), 1);
    assert_eq!(
        topic_attributes(&sns, &first).await["DisplayName"],
        "Orders"
    );
}

#[tokio::test]
async fn topic_names_follow_aws_rules_for_standard_and_fifo_topics() {
    let h = Harness::start().await;
    let sns = h.sns();
    let long = "a".repeat(256);
    assert_eq!(create_topic(&sns, &long, &[]).await, topic_arn(&long));
    let long_fifo = format!("{}.fifo", "b".repeat(251));
    create_topic(&sns, &long_fifo, &[("FifoTopic", "true")]).await;
    create_topic(&sns, "A-z_0-9", &[]).await;

    let too_long = "a".repeat(257);
    let bad: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (&too_long, vec![]),
        ("plain.fifo", vec![]),
        ("plain.fifo", vec![("FifoTopic", "false")]),
        ("plain", vec![("FifoTopic", "true")]),
        ("with space", vec![]),
        ("colon:name", vec![]),
        ("semi;colon", vec![]),
        ("bang!", vec![]),
        ("at@", vec![]),
        ("pipe|", vec![]),
        ("caret^", vec![]),
        ("percent%", vec![]),
        ("dot.name", vec![]),
    ];
    for (name, attrs) in bad {
        let mut req = sns.create_topic().name(name);
        for (k, v) in &attrs {
            req = req.attributes(*k, *v);
        }
        let (code, message) = sdk_error(req.send().await);
        assert_eq!(code, "InvalidParameter", "{name} {attrs:?}");
        assert_eq!(message, "Invalid parameter: Topic Name", "{name} {attrs:?}");
    }
    // An empty name, as a raw request (the SDK would send it the same way).
    let (status, code, message) =
        sns_query_error(&h, &[("Action", "CreateTopic"), ("Name", "")]).await;
    assert_eq!((status, code.as_str()), (400, "InvalidParameter"));
    assert_eq!(message, "Invalid parameter: Topic Name");
}

#[tokio::test]
async fn delete_topic_is_idempotent_and_removes_its_subscriptions() {
    let h = Harness::start().await;
    let sns = h.sns();
    let arn = create_topic(&sns, "gone", &[]).await;
    sns.subscribe()
        .topic_arn(&arn)
        .protocol("sqs")
        .endpoint("arn:aws:sqs:us-east-1:000000000000:q")
        .send()
        .await
        .unwrap();
    sns.delete_topic().topic_arn(&arn).send().await.unwrap();
    sns.delete_topic().topic_arn(&arn).send().await.unwrap();
    sns.delete_topic()
        .topic_arn(topic_arn("never-was"))
        .send()
        .await
        .unwrap();
    assert!(
        sns.list_topics()
            .send()
            .await
            .unwrap()
            .topics
            .unwrap_or_default()
            .is_empty()
    );
    let subs = sns.list_subscriptions().send().await.unwrap();
    assert!(subs.subscriptions.unwrap_or_default().is_empty());

    let (code, message) = sdk_error(sns.get_topic_attributes().topic_arn(&arn).send().await);
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("NotFound", "Topic does not exist")
    );
    // The wire: 404, an ErrorResponse with Type Sender.
    let (status, code, message) =
        sns_query_error(&h, &[("Action", "GetTopicAttributes"), ("TopicArn", &arn)]).await;
    assert_eq!(
        (status, code.as_str(), message.as_str()),
        (404, "NotFound", "Topic does not exist")
    );
    // Malformed and foreign-region ARNs.
    let (status, code, message) = sns_query_error(
        &h,
        &[("Action", "GetTopicAttributes"), ("TopicArn", "nope")],
    )
    .await;
    assert_eq!((status, code.as_str()), (400, "InvalidParameter"));
    assert_eq!(
        message,
        "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1"
    );
    let (code, message) = sdk_error(
        sns.get_topic_attributes()
            .topic_arn("arn:aws:sns:eu-west-1:000000000000:gone")
            .send()
            .await,
    );
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("InvalidParameter", "Invalid parameter: TopicArn")
    );
}

#[tokio::test]
async fn get_topic_attributes_answers_every_attribute_aws_returns() {
    let h = Harness::start().await;
    let sns = h.sns();
    let arn = create_topic(&sns, "orders", &[]).await;
    let a = topic_attributes(&sns, &arn).await;
    assert_eq!(
        sorted_keys(&a),
        [
            "DisplayName",
            "EffectiveDeliveryPolicy",
            "Owner",
            "Policy",
            "SubscriptionsConfirmed",
            "SubscriptionsDeleted",
            "SubscriptionsPending",
            "TopicArn"
        ]
    );
    assert_eq!(a["TopicArn"], arn);
    assert_eq!(a["Owner"], ACCOUNT);
    assert_eq!(a["DisplayName"], "");
    assert_eq!(
        serde_json::from_str::<Value>(&a["Policy"]).unwrap(),
        default_policy(&arn)
    );
    // AWS's key order, compact.
    assert!(
        a["Policy"].starts_with(r#"{"Version":"2008-10-17","Id":"__default_policy_ID","Statement":[{"Sid":"__default_statement_ID","Effect":"Allow","Principal":{"AWS":"*"},"Action":["SNS:GetTopicAttributes","#),
        "{}",
        a["Policy"]
    );
    assert!(
        a["Policy"].ends_with(&format!(
            r#""Resource":"{arn}","Condition":{{"StringEquals":{{"AWS:SourceOwner":"{ACCOUNT}"}}}}}}]}}"#
        )),
        "{}",
        a["Policy"]
    );
    assert_eq!(
        a["EffectiveDeliveryPolicy"],
        DEFAULT_EFFECTIVE_DELIVERY_POLICY
    );
    assert_eq!(
        (
            a["SubscriptionsConfirmed"].as_str(),
            a["SubscriptionsPending"].as_str(),
            a["SubscriptionsDeleted"].as_str()
        ),
        ("0", "0", "0")
    );

    // Counts are computed: two SQS subscriptions (confirmed at once), one e-mail (pending), one
    // SQS unsubscribed again.
    let mut sqs_arns = Vec::new();
    for q in ["q1", "q2", "q3"] {
        let sub = sns
            .subscribe()
            .topic_arn(&arn)
            .protocol("sqs")
            .endpoint(format!("arn:aws:sqs:us-east-1:000000000000:{q}"))
            .send()
            .await
            .unwrap();
        sqs_arns.push(sub.subscription_arn.unwrap());
    }
    sns.subscribe()
        .topic_arn(&arn)
        .protocol("email")
        .endpoint("ops@example.com")
        .send()
        .await
        .unwrap();
    sns.unsubscribe()
        .subscription_arn(&sqs_arns[2])
        .send()
        .await
        .unwrap();
    let a = topic_attributes(&sns, &arn).await;
    assert_eq!(
        (
            a["SubscriptionsConfirmed"].as_str(),
            a["SubscriptionsPending"].as_str(),
            a["SubscriptionsDeleted"].as_str()
        ),
        ("2", "1", "1")
    );

    // A FIFO topic adds FifoTopic and ContentBasedDeduplication; FifoTopic=false adds neither.
    let fifo = create_topic(&sns, "t.fifo", &[("FifoTopic", "true")]).await;
    let a = topic_attributes(&sns, &fifo).await;
    assert_eq!(a["FifoTopic"], "true");
    assert_eq!(a["ContentBasedDeduplication"], "false");
    assert_eq!(
        a["EffectiveDeliveryPolicy"],
        DEFAULT_EFFECTIVE_DELIVERY_POLICY
    );
    let cbd = create_topic(
        &sns,
        "c.fifo",
        &[("FifoTopic", "true"), ("ContentBasedDeduplication", "true")],
    )
    .await;
    assert_eq!(
        topic_attributes(&sns, &cbd).await["ContentBasedDeduplication"],
        "true"
    );
    let plain = create_topic(&sns, "plain", &[("FifoTopic", "false")]).await;
    let a = topic_attributes(&sns, &plain).await;
    assert!(!a.contains_key("FifoTopic") && !a.contains_key("ContentBasedDeduplication"));

    // The raw XML: an entry/key/value map.
    let r = sns_query(&h, &[("Action", "GetTopicAttributes"), ("TopicArn", &arn)]).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body.contains(
            "<GetTopicAttributesResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\">"
        ),
        "{}",
        r.body
    );
    let keys = xml_texts(&r.body, "key");
    assert!(
        keys.contains(&"SubscriptionsConfirmed".to_string()),
        "{keys:?}"
    );
}

#[tokio::test]
async fn set_topic_attributes_stores_what_aws_lets_you_set() {
    let h = Harness::start().await;
    let sns = h.sns();
    let arn = create_topic(&sns, "orders", &[]).await;
    let set = |name: &'static str, value: &str| {
        sns.set_topic_attributes()
            .topic_arn(&arn)
            .attribute_name(name)
            .attribute_value(value)
            .send()
    };
    set("DisplayName", "Orders!").await.unwrap();
    set("SignatureVersion", "2").await.unwrap();
    set("TracingConfig", "Active").await.unwrap();
    let delivery = r#"{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":5,"maxDelayTarget":6,"numRetries":1}}}"#;
    set("DeliveryPolicy", delivery).await.unwrap();
    let a = topic_attributes(&sns, &arn).await;
    assert_eq!(a["DisplayName"], "Orders!");
    assert_eq!(a["SignatureVersion"], "2");
    assert_eq!(a["TracingConfig"], "Active");
    // The effective policy holds the values set and the defaults for the rest (docs/sns.md,
    // "Effective delivery policy").
    assert_eq!(
        serde_json::from_str::<Value>(&a["EffectiveDeliveryPolicy"]).unwrap(),
        json!({"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":5,"maxDelayTarget":6,"numRetries":1,
            "numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},
            "disableSubscriptionOverrides":false,
            "defaultRequestPolicy":{"headerContentType":"text/plain; charset=UTF-8"}}})
    );

    let policy = json!({"Version":"2012-10-17","Statement":[{"Sid":"only","Effect":"Allow",
        "Principal":{"AWS":"*"},"Action":"SNS:Publish","Resource":arn}]});
    set("Policy", &policy.to_string()).await.unwrap();
    let a = topic_attributes(&sns, &arn).await;
    assert_eq!(serde_json::from_str::<Value>(&a["Policy"]).unwrap(), policy);

    for (name, value, message) in [
        ("FifoTopic", "true", "Invalid parameter: AttributeName"),
        ("NoSuchAttribute", "x", "Invalid parameter: AttributeName"),
        (
            "SignatureVersion",
            "3",
            "Invalid parameter: SignatureVersion",
        ),
    ] {
        let (code, got) = sdk_error(set(name, value).await);
        assert_eq!(
            (code.as_str(), got.as_str()),
            ("InvalidParameter", message),
            "{name}"
        );
    }
    let (code, _) = sdk_error(
        sns.set_topic_attributes()
            .topic_arn(topic_arn("missing"))
            .attribute_name("DisplayName")
            .attribute_value("x")
            .send()
            .await,
    );
    assert_eq!(code, "NotFound");
}

#[tokio::test]
async fn list_topics_pages_100_at_a_time_with_next_token() {
    let h = Harness::start().await;
    let sns = h.sns();
    for i in 0..150 {
        create_topic(&sns, &format!("t{i:03}"), &[]).await;
    }
    let first = sns.list_topics().send().await.unwrap();
    let page1 = first.topics.unwrap();
    assert_eq!(page1.len(), 100);
    let token = first.next_token.expect("a second page");
    let second = sns.list_topics().next_token(token).send().await.unwrap();
    let page2 = second.topics.unwrap();
    assert_eq!(page2.len(), 50);
    assert!(second.next_token.is_none());
    let mut all: Vec<String> = page1
        .into_iter()
        .chain(page2)
        .map(|t| t.topic_arn.unwrap())
        .collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 150);

    // The SDK's paginator walks the same pages.
    let pages: Vec<_> = sns
        .list_topics()
        .into_paginator()
        .send()
        .collect::<Vec<_>>()
        .await;
    assert_eq!(pages.len(), 2);

    // Topics of another account or region are not listed.
    let other = h.sns_as("111122223333", "us-east-1");
    create_topic(&other, "theirs", &[]).await;
    let west = h.sns_as("test", "eu-west-1");
    create_topic(&west, "west", &[]).await;
    let first = sns.list_topics().send().await.unwrap();
    let second = sns
        .list_topics()
        .next_token(first.next_token.unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(second.topics.unwrap().len(), 50);

    let (code, _) = sdk_error(sns.list_topics().next_token("!!garbage").send().await);
    assert_eq!(code, "InvalidParameter");
}

#[tokio::test]
async fn tags_are_added_replaced_removed_and_listed() {
    let h = Harness::start().await;
    let sns = h.sns();
    let tag = |k: &str, v: &str| Tag::builder().key(k).value(v).build().unwrap();
    let arn = sns
        .create_topic()
        .name("tagged")
        .tags(tag("b", "2"))
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    sns.tag_resource()
        .resource_arn(&arn)
        .tags(tag("a", "1"))
        .tags(tag("b", "3"))
        .send()
        .await
        .unwrap();
    let list = |arn: String| {
        let sns = sns.clone();
        async move {
            sns.list_tags_for_resource()
                .resource_arn(arn)
                .send()
                .await
                .unwrap()
                .tags
                .unwrap_or_default()
                .into_iter()
                .map(|t| (t.key, t.value))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        list(arn.clone()).await,
        [("a".into(), "1".into()), ("b".into(), "3".into())]
    );
    sns.untag_resource()
        .resource_arn(&arn)
        .tag_keys("a")
        .tag_keys("nope")
        .send()
        .await
        .unwrap();
    assert_eq!(list(arn.clone()).await, [("b".into(), "3".into())]);

    // At most 50 tags per resource.
    let mut req = sns.tag_resource().resource_arn(&arn);
    for i in 0..50 {
        req = req.tags(tag(&format!("k{i}"), "v"));
    }
    let (code, _) = sdk_error(req.send().await);
    assert_eq!(code, "TagLimitExceeded");

    let missing = topic_arn("missing");
    let (code, message) = sdk_error(
        sns.list_tags_for_resource()
            .resource_arn(&missing)
            .send()
            .await,
    );
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("ResourceNotFound", "Resource does not exist")
    );
    let (code, _) = sdk_error(
        sns.tag_resource()
            .resource_arn(&missing)
            .tags(tag("a", "1"))
            .send()
            .await,
    );
    assert_eq!(code, "ResourceNotFound");
}

#[tokio::test]
async fn add_and_remove_permission_change_the_topic_policy() {
    let h = Harness::start().await;
    let sns = h.sns();
    let arn = create_topic(&sns, "shared", &[]).await;
    let other = h.sns_as("111122223333", "us-east-1");
    // Another account may not publish under the default policy.
    let (code, _) = sdk_error(other.publish().topic_arn(&arn).message("hi").send().await);
    assert_eq!(code, "AuthorizationError");

    sns.add_permission()
        .topic_arn(&arn)
        .label("let-them-publish")
        .aws_account_id("111122223333")
        .action_name("Publish")
        .send()
        .await
        .unwrap();
    let policy: Value =
        serde_json::from_str(&topic_attributes(&sns, &arn).await["Policy"]).unwrap();
    let statements = policy["Statement"].as_array().unwrap();
    assert_eq!(statements.len(), 2);
    assert_eq!(statements[0], default_policy(&arn)["Statement"][0]);
    assert_eq!(
        statements[1],
        json!({"Sid":"let-them-publish","Effect":"Allow",
            "Principal":{"AWS":"arn:aws:iam::111122223333:root"},
            "Action":"SNS:Publish","Resource":arn})
    );
    other
        .publish()
        .topic_arn(&arn)
        .message("now allowed")
        .send()
        .await
        .unwrap();
    // ...but not subscribe.
    let (code, _) = sdk_error(
        other
            .subscribe()
            .topic_arn(&arn)
            .protocol("sqs")
            .endpoint("arn:aws:sqs:us-east-1:111122223333:q")
            .send()
            .await,
    );
    assert_eq!(code, "AuthorizationError");

    let (code, _) = sdk_error(
        sns.add_permission()
            .topic_arn(&arn)
            .label("let-them-publish")
            .aws_account_id("111122223333")
            .action_name("Publish")
            .send()
            .await,
    );
    assert_eq!(code, "InvalidParameter");

    sns.remove_permission()
        .topic_arn(&arn)
        .label("let-them-publish")
        .send()
        .await
        .unwrap();
    let policy: Value =
        serde_json::from_str(&topic_attributes(&sns, &arn).await["Policy"]).unwrap();
    assert_eq!(policy, default_policy(&arn));
    let (code, _) = sdk_error(other.publish().topic_arn(&arn).message("hi").send().await);
    assert_eq!(code, "AuthorizationError");
}

#[tokio::test]
async fn data_protection_policy_is_stored_and_answered() {
    let h = Harness::start().await;
    let sns = h.sns();
    let arn = create_topic(&sns, "protected", &[]).await;
    let got = sns
        .get_data_protection_policy()
        .resource_arn(&arn)
        .send()
        .await
        .unwrap();
    assert_eq!(got.data_protection_policy, None);
    let policy =
        json!({"Name":"p","Description":"","Version":"2021-06-01","Statement":[]}).to_string();
    sns.put_data_protection_policy()
        .resource_arn(&arn)
        .data_protection_policy(&policy)
        .send()
        .await
        .unwrap();
    let got = sns
        .get_data_protection_policy()
        .resource_arn(&arn)
        .send()
        .await
        .unwrap();
    assert_eq!(got.data_protection_policy.as_deref(), Some(policy.as_str()));
    let (code, _) = sdk_error(
        sns.put_data_protection_policy()
            .resource_arn(&arn)
            .data_protection_policy("{not json")
            .send()
            .await,
    );
    assert_eq!(code, "InvalidParameter");
    let (code, _) = sdk_error(
        sns.get_data_protection_policy()
            .resource_arn(topic_arn("missing"))
            .send()
            .await,
    );
    assert_eq!(code, "NotFound");
}
