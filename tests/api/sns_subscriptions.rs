//! SNS subscriptions (issue 4): Subscribe with Attributes and ReturnSubscriptionArn, pending
//! confirmation, idempotent re-subscribe, ConfirmSubscription and its token errors, Unsubscribe,
//! Get/SetSubscriptionAttributes with AWS's validation messages, the two listings and their
//! paging, protocol and endpoint rules (FIFO topics take SQS only).

use crate::harness::Harness;
use crate::sns_topics::{create_topic, sdk_error, sns_query, sns_query_error, topic_arn};
use aws_sdk_sns::Client;
use serde_json::{Value, json};
use std::collections::HashMap;

pub fn queue_arn(name: &str) -> String {
    format!("arn:aws:sqs:us-east-1:000000000000:{name}")
}

/// Subscribes and answers the SubscriptionArn the call returns.
pub async fn subscribe(
    sns: &Client,
    topic: &str,
    protocol: &str,
    endpoint: &str,
    attrs: &[(&str, &str)],
) -> String {
    let mut req = sns
        .subscribe()
        .topic_arn(topic)
        .protocol(protocol)
        .endpoint(endpoint);
    for (k, v) in attrs {
        req = req.attributes(*k, *v);
    }
    req.send()
        .await
        .unwrap_or_else(|e| panic!("subscribe {protocol} {endpoint}: {e:?}"))
        .subscription_arn
        .unwrap()
}

pub async fn sub_attributes(sns: &Client, arn: &str) -> HashMap<String, String> {
    sns.get_subscription_attributes()
        .subscription_arn(arn)
        .send()
        .await
        .unwrap_or_else(|e| panic!("get subscription attributes {arn}: {e:?}"))
        .attributes
        .unwrap_or_default()
}

pub async fn set_sub_attribute(
    sns: &Client,
    arn: &str,
    name: &str,
    value: &str,
) -> Result<(), (String, String)> {
    sns.set_subscription_attributes()
        .subscription_arn(arn)
        .attribute_name(name)
        .attribute_value(value)
        .send()
        .await
        .map(|_| ())
        .map_err(|e| {
            use aws_sdk_sns::error::ProvideErrorMetadata;
            (
                e.code().unwrap_or_default().to_string(),
                e.message().unwrap_or_default().to_string(),
            )
        })
}

fn sorted_keys(a: &HashMap<String, String>) -> Vec<&str> {
    let mut keys: Vec<&str> = a.keys().map(String::as_str).collect();
    keys.sort();
    keys
}

/// The outbox entries, optionally for one protocol.
pub async fn outbox(h: &Harness, protocol: &str) -> Vec<Value> {
    h.control_get(&format!("outbox?protocol={protocol}")).await["messages"]
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test]
async fn an_sqs_subscription_is_confirmed_at_once_and_answers_every_attribute() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "orders", &[]).await;
    let arn = subscribe(&sns, &topic, "sqs", &queue_arn("q"), &[]).await;
    assert!(arn.starts_with(&format!("{topic}:")), "{arn}");
    assert_eq!(arn.split(':').count(), 7);
    let a = sub_attributes(&sns, &arn).await;
    assert_eq!(
        sorted_keys(&a),
        [
            "ConfirmationWasAuthenticated",
            "Endpoint",
            "Owner",
            "PendingConfirmation",
            "Protocol",
            "RawMessageDelivery",
            "SubscriptionArn",
            "SubscriptionPrincipal",
            "TopicArn"
        ]
    );
    assert_eq!(a["SubscriptionArn"], arn);
    assert_eq!(a["TopicArn"], topic);
    assert_eq!(a["Owner"], "000000000000");
    assert_eq!(a["Protocol"], "sqs");
    assert_eq!(a["Endpoint"], queue_arn("q"));
    assert_eq!(a["PendingConfirmation"], "false");
    assert_eq!(a["ConfirmationWasAuthenticated"], "true");
    assert_eq!(a["RawMessageDelivery"], "false");
    assert_eq!(a["SubscriptionPrincipal"], "arn:aws:iam::000000000000:root");

    // Attributes given at Subscribe are stored and answered as given.
    let filter = r#"{"kind":["a","b"]}"#;
    let redrive = json!({"deadLetterTargetArn": queue_arn("dlq")}).to_string();
    let arn = subscribe(
        &sns,
        &topic,
        "sqs",
        &queue_arn("q2"),
        &[
            ("RawMessageDelivery", "true"),
            ("FilterPolicy", filter),
            ("FilterPolicyScope", "MessageBody"),
            ("RedrivePolicy", &redrive),
        ],
    )
    .await;
    let a = sub_attributes(&sns, &arn).await;
    assert_eq!(a["RawMessageDelivery"], "true");
    assert_eq!(a["FilterPolicy"], filter);
    assert_eq!(a["FilterPolicyScope"], "MessageBody");
    assert_eq!(a["RedrivePolicy"], redrive);
    assert!(!a.contains_key("EffectiveDeliveryPolicy"));
}

#[tokio::test]
async fn subscribing_the_same_endpoint_again_answers_the_same_subscription() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "orders", &[]).await;
    let q = queue_arn("q");
    let arn = subscribe(&sns, &topic, "sqs", &q, &[("RawMessageDelivery", "true")]).await;
    // Same attributes, defaults named explicitly, no attributes at all: the same subscription
    // (AWS observed: test_subscribe_idempotency).
    for attrs in [
        vec![("RawMessageDelivery", "true")],
        vec![
            ("RawMessageDelivery", "true"),
            ("FilterPolicyScope", "MessageAttributes"),
        ],
        vec![],
        vec![("FilterPolicyScope", "MessageAttributes")],
    ] {
        assert_eq!(
            subscribe(&sns, &topic, "sqs", &q, &attrs).await,
            arn,
            "{attrs:?}"
        );
    }
    let (code, message) = sdk_error(
        sns.subscribe()
            .topic_arn(&topic)
            .protocol("sqs")
            .endpoint(&q)
            .attributes("RawMessageDelivery", "false")
            .attributes("FilterPolicyScope", "MessageBody")
            .send()
            .await,
    );
    assert_eq!(code, "InvalidParameter");
    assert_eq!(
        message,
        "Invalid parameter: Attributes Reason: Subscription already exists with different attributes"
    );
    let subs = sns
        .list_subscriptions_by_topic()
        .topic_arn(&topic)
        .send()
        .await
        .unwrap()
        .subscriptions
        .unwrap();
    assert_eq!(subs.len(), 1);
}

#[tokio::test]
async fn an_email_subscription_waits_for_the_token_sent_to_the_outbox() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "orders", &[]).await;
    let shown = subscribe(&sns, &topic, "email", "ops@example.com", &[]).await;
    assert_eq!(shown, "pending confirmation");
    // ReturnSubscriptionArn gives the real ARN of the (still pending) subscription.
    let arn = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("email")
        .endpoint("ops@example.com")
        .return_subscription_arn(true)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    assert!(arn.starts_with(&format!("{topic}:")), "{arn}");
    let a = sub_attributes(&sns, &arn).await;
    assert_eq!(a["PendingConfirmation"], "true");
    assert_eq!(a["ConfirmationWasAuthenticated"], "false");
    let listed = sns.list_subscriptions().send().await.unwrap();
    let listed = listed.subscriptions.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0].subscription_arn.as_deref(),
        Some("PendingConfirmation")
    );
    // Pending subscriptions get no notifications.
    sns.publish()
        .topic_arn(&topic)
        .message("too early")
        .send()
        .await
        .unwrap();

    let sent = outbox(&h, "email").await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    let confirmation = &sent[0];
    assert_eq!(confirmation["target"], "ops@example.com");
    assert_eq!(confirmation["source"], arn.as_str());
    let token = confirmation["attributes"]["Token"].as_str().unwrap();
    let subscribe_url = confirmation["attributes"]["SubscribeURL"].as_str().unwrap();
    assert!(
        confirmation["body"]
            .as_str()
            .unwrap()
            .contains(subscribe_url),
        "{confirmation}"
    );
    assert!(
        subscribe_url.contains(&format!("Token={token}")),
        "{subscribe_url}"
    );

    let confirmed = sns
        .confirm_subscription()
        .topic_arn(&topic)
        .token(token)
        .send()
        .await
        .unwrap();
    assert_eq!(confirmed.subscription_arn.as_deref(), Some(arn.as_str()));
    let a = sub_attributes(&sns, &arn).await;
    assert_eq!(a["PendingConfirmation"], "false");
    assert_eq!(a["ConfirmationWasAuthenticated"], "true");
    let listed = sns.list_subscriptions().send().await.unwrap();
    assert_eq!(
        listed.subscriptions.unwrap()[0].subscription_arn.as_deref(),
        Some(arn.as_str())
    );
    // Now the address gets what is published.
    sns.publish()
        .topic_arn(&topic)
        .message("hello")
        .send()
        .await
        .unwrap();
    let sent = outbox(&h, "email").await;
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1]["body"], "hello");
    // A subscribe again after confirmation answers the real ARN.
    assert_eq!(
        subscribe(&sns, &topic, "email", "ops@example.com", &[]).await,
        arn
    );
}

#[tokio::test]
async fn confirm_subscription_rejects_bad_and_unknown_tokens() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "orders", &[]).await;
    let unknown_hex = "2336412f37fb687f5d51e6e241d09c805a5a57b30d712f794cc5f6a988666d92768dd60a747ba6f3beb71854e285d6ad02428b09ceece29417f1f02d609c582afbacc99c583a916b9981dd2728f4ae6fdb82efd087cc3b7849e05798d2d2785c03b0879594eeac82c01f235d0e717736";
    for (topic_param, token, message) in [
        (topic.as_str(), "randomtoken", "Invalid token"),
        (topic.as_str(), unknown_hex, "Invalid parameter: Token"),
        (
            "arn:aws:sns:us-east-1:000000000000:no-such-topic",
            unknown_hex,
            "Invalid parameter: Token",
        ),
        ("not-an-arn", unknown_hex, "Invalid parameter: Topic"),
        (
            "arn:aws:sns:eu-west-1:000000000000:orders",
            unknown_hex,
            "Invalid parameter: Topic",
        ),
    ] {
        let (code, got) = sdk_error(
            sns.confirm_subscription()
                .topic_arn(topic_param)
                .token(token)
                .send()
                .await,
        );
        assert_eq!(
            (code.as_str(), got.as_str()),
            ("InvalidParameter", message),
            "{topic_param} {token}"
        );
    }
    // The wire shape.
    let (status, code, message) = sns_query_error(
        &h,
        &[
            ("Action", "ConfirmSubscription"),
            ("TopicArn", &topic),
            ("Token", "abc123"),
        ],
    )
    .await;
    assert_eq!(
        (status, code.as_str(), message.as_str()),
        (400, "InvalidParameter", "Invalid parameter: Token")
    );
}

#[tokio::test]
async fn unsubscribe_deletes_the_subscription_and_is_idempotent() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "orders", &[]).await;
    let arn = subscribe(&sns, &topic, "sqs", &queue_arn("q"), &[]).await;
    sns.unsubscribe()
        .subscription_arn(&arn)
        .send()
        .await
        .unwrap();
    sns.unsubscribe()
        .subscription_arn(&arn)
        .send()
        .await
        .unwrap();
    let (code, message) = sdk_error(
        sns.get_subscription_attributes()
            .subscription_arn(&arn)
            .send()
            .await,
    );
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("NotFound", "Subscription does not exist")
    );
    let (status, code, _) = sns_query_error(
        &h,
        &[
            ("Action", "GetSubscriptionAttributes"),
            ("SubscriptionArn", &arn),
        ],
    )
    .await;
    assert_eq!((status, code.as_str()), (404, "NotFound"));
    for bad in [
        "randomstring",
        "arn:aws:sns:us-east-1:random",
        "arn:aws:sns:us-east-1:111111111111:random",
    ] {
        let (code, _) = sdk_error(sns.unsubscribe().subscription_arn(bad).send().await);
        assert_eq!(code, "InvalidParameter", "{bad}");
    }
    // Unsubscribe answers only ResponseMetadata.
    let arn = subscribe(&sns, &topic, "sqs", &queue_arn("q"), &[]).await;
    let r = sns_query(&h, &[("Action", "Unsubscribe"), ("SubscriptionArn", &arn)]).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("<UnsubscribeResponse"), "{}", r.body);
    assert!(!r.body.contains("<UnsubscribeResult"), "{}", r.body);
    assert!(r.body.contains("<RequestId>"), "{}", r.body);
}

#[tokio::test]
async fn set_subscription_attributes_validates_as_aws_does() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "orders", &[]).await;
    let arn = subscribe(&sns, &topic, "sqs", &queue_arn("q"), &[]).await;

    set_sub_attribute(&sns, &arn, "RawMessageDelivery", "true")
        .await
        .unwrap();
    let filter = r#"{"price":[{"numeric":[">",10]}]}"#;
    set_sub_attribute(&sns, &arn, "FilterPolicy", filter)
        .await
        .unwrap();
    let redrive = json!({"deadLetterTargetArn": queue_arn("dlq")}).to_string();
    set_sub_attribute(&sns, &arn, "RedrivePolicy", &redrive)
        .await
        .unwrap();
    let a = sub_attributes(&sns, &arn).await;
    assert_eq!(a["RawMessageDelivery"], "true");
    assert_eq!(a["FilterPolicy"], filter);
    assert_eq!(a["FilterPolicyScope"], "MessageAttributes");
    assert_eq!(a["RedrivePolicy"], redrive);
    // Empty values remove the policies.
    set_sub_attribute(&sns, &arn, "FilterPolicy", "")
        .await
        .unwrap();
    set_sub_attribute(&sns, &arn, "RedrivePolicy", "")
        .await
        .unwrap();
    let a = sub_attributes(&sns, &arn).await;
    assert!(
        !a.contains_key("FilterPolicy") && !a.contains_key("RedrivePolicy"),
        "{a:?}"
    );

    for (name, value, message) in [
        (
            "RawMessageDelivery",
            "yes",
            "Invalid parameter: RawMessageDelivery: Invalid value [yes]. Must be true or false.",
        ),
        (
            "FilterPolicyScope",
            "Everything",
            "Invalid parameter: FilterPolicyScope: Invalid value [Everything]. Please use either MessageBody or MessageAttributes",
        ),
        ("NoSuchAttribute", "x", "Invalid parameter: AttributeName"),
        (
            "RedrivePolicy",
            r#"{"deadLetterTargetArn":"not-an-arn"}"#,
            "Invalid parameter: RedrivePolicy: deadLetterTargetArn is an invalid arn",
        ),
        (
            "FilterPolicy",
            r#"{"a":[{"wrong-operator":1}]}"#,
            "Invalid parameter: FilterPolicy: Unrecognized match type wrong-operator",
        ),
    ] {
        let (code, got) = set_sub_attribute(&sns, &arn, name, value)
            .await
            .unwrap_err();
        assert_eq!(code, "InvalidParameter", "{name}");
        assert!(got.starts_with(message), "{name}: {got}");
    }
    let (code, got) = set_sub_attribute(&sns, &arn, "RedrivePolicy", "{invalid}")
        .await
        .unwrap_err();
    assert_eq!(code, "InvalidParameter");
    assert!(
        got.starts_with("Invalid parameter: RedrivePolicy: failed to parse JSON. "),
        "{got}"
    );
    // Inside Subscribe the messages carry "Attributes Reason: ".
    let (code, got) = sdk_error(
        sns.subscribe()
            .topic_arn(&topic)
            .protocol("sqs")
            .endpoint(queue_arn("other"))
            .attributes("RawMessageDelivery", "yes")
            .send()
            .await,
    );
    assert_eq!(code, "InvalidParameter");
    assert_eq!(
        got,
        "Invalid parameter: Attributes Reason: RawMessageDelivery: Invalid value [yes]. Must be true or false."
    );

    // FIFO: a FIFO queue subscription to a FIFO topic needs a FIFO DLQ.
    let fifo = create_topic(&sns, "t.fifo", &[("FifoTopic", "true")]).await;
    let fifo_sub = subscribe(&sns, &fifo, "sqs", &queue_arn("q.fifo"), &[]).await;
    let (code, got) = set_sub_attribute(
        &sns,
        &fifo_sub,
        "RedrivePolicy",
        &json!({"deadLetterTargetArn": queue_arn("dlq")}).to_string(),
    )
    .await
    .unwrap_err();
    assert_eq!(code, "InvalidParameter");
    assert_eq!(
        got,
        "Invalid parameter: RedrivePolicy: must use a FIFO queue as DLQ for a FIFO Subscription to a FIFO Topic."
    );
    set_sub_attribute(
        &sns,
        &fifo_sub,
        "RedrivePolicy",
        &json!({"deadLetterTargetArn": queue_arn("dlq.fifo")}).to_string(),
    )
    .await
    .unwrap();

    let (code, _) = set_sub_attribute(
        &sns,
        &format!("{topic}:no-such-id"),
        "RawMessageDelivery",
        "true",
    )
    .await
    .unwrap_err();
    assert_eq!(code, "NotFound");
}

#[tokio::test]
async fn http_subscriptions_answer_their_effective_delivery_policy() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "orders", &[]).await;
    // Nobody listens there; the subscription stays pending.
    let arn = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("http")
        .endpoint("http://127.0.0.1:9/hook")
        .return_subscription_arn(true)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    h.advance(0.0).await;
    let a = sub_attributes(&sns, &arn).await;
    assert_eq!(a["PendingConfirmation"], "true");
    assert_eq!(a["RawMessageDelivery"], "false");
    assert_eq!(
        a["EffectiveDeliveryPolicy"],
        r#"{"healthyRetryPolicy":{"minDelayTarget":20,"maxDelayTarget":20,"numRetries":3,"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},"sicklyRetryPolicy":null,"throttlePolicy":null,"requestPolicy":{"headerContentType":"text/plain; charset=UTF-8"},"guaranteed":false}"#
    );
    // Email and SQS subscriptions have none.
    let email = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("email")
        .endpoint("a@example.com")
        .return_subscription_arn(true)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    assert!(
        !sub_attributes(&sns, &email)
            .await
            .contains_key("EffectiveDeliveryPolicy")
    );
}

#[tokio::test]
async fn protocols_and_endpoints_are_checked() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "orders", &[]).await;
    let (code, message) = sdk_error(
        sns.subscribe()
            .topic_arn(&topic)
            .protocol("carrier-pigeon")
            .endpoint("x")
            .send()
            .await,
    );
    assert_eq!(code, "InvalidParameter");
    assert_eq!(
        message,
        "Invalid parameter: Amazon SNS does not support this protocol string: carrier-pigeon"
    );
    let (code, message) = sdk_error(
        sns.subscribe()
            .topic_arn(&topic)
            .protocol("sqs")
            .endpoint("http://localhost:4566/000000000000/q")
            .send()
            .await,
    );
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("InvalidParameter", "Invalid parameter: SQS endpoint ARN")
    );
    let (code, message) = sdk_error(
        sns.subscribe()
            .topic_arn(&topic)
            .protocol("sqs")
            .endpoint(queue_arn("q.fifo"))
            .send()
            .await,
    );
    assert_eq!(code, "InvalidParameter");
    assert_eq!(
        message,
        "Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics"
    );
    for (protocol, endpoint) in [
        ("http", "https://example.com/hook"),
        ("https", "http://example.com/hook"),
        ("email", "not-an-address"),
        ("sms", "call me"),
        ("lambda", "function-name"),
    ] {
        let (code, _) = sdk_error(
            sns.subscribe()
                .topic_arn(&topic)
                .protocol(protocol)
                .endpoint(endpoint)
                .send()
                .await,
        );
        assert_eq!(code, "InvalidParameter", "{protocol} {endpoint}");
    }
    let (code, message) = sdk_error(
        sns.subscribe()
            .topic_arn(topic_arn("missing"))
            .protocol("sqs")
            .endpoint(queue_arn("q"))
            .send()
            .await,
    );
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("NotFound", "Topic does not exist")
    );

    // A FIFO topic takes SQS subscriptions (FIFO and standard queues) and nothing else.
    let fifo = create_topic(&sns, "t.fifo", &[("FifoTopic", "true")]).await;
    subscribe(&sns, &fifo, "sqs", &queue_arn("q.fifo"), &[]).await;
    subscribe(&sns, &fifo, "sqs", &queue_arn("standard"), &[]).await;
    for (protocol, endpoint) in [
        ("http", "http://127.0.0.1:9/hook"),
        ("email", "a@example.com"),
        ("sms", "+15550100"),
        ("lambda", "arn:aws:lambda:us-east-1:000000000000:function:f"),
    ] {
        let (code, _) = sdk_error(
            sns.subscribe()
                .topic_arn(&fifo)
                .protocol(protocol)
                .endpoint(endpoint)
                .send()
                .await,
        );
        assert_eq!(code, "InvalidParameter", "{protocol}");
    }
}

#[tokio::test]
async fn listings_show_every_field_and_page_at_100() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "orders", &[]).await;
    let other = create_topic(&sns, "other", &[]).await;
    for n in 0..101 {
        subscribe(&sns, &topic, "sms", &format!("+12312312{n:03}"), &[]).await;
    }
    let sqs_sub = subscribe(&sns, &other, "sqs", &queue_arn("q"), &[]).await;

    let first = sns
        .list_subscriptions_by_topic()
        .topic_arn(&topic)
        .send()
        .await
        .unwrap();
    assert_eq!(first.subscriptions.as_ref().unwrap().len(), 100);
    let token = first.next_token.clone().expect("a second page");
    let second = sns
        .list_subscriptions_by_topic()
        .topic_arn(&topic)
        .next_token(token)
        .send()
        .await
        .unwrap();
    let page2 = second.subscriptions.unwrap();
    assert_eq!(page2.len(), 1);
    assert!(second.next_token.is_none());
    let page1_arns: Vec<_> = first
        .subscriptions
        .unwrap()
        .into_iter()
        .map(|s| s.subscription_arn.unwrap())
        .collect();
    assert!(!page1_arns.contains(page2[0].subscription_arn.as_ref().unwrap()));

    // ListSubscriptions: every subscription of the account, 100 a page.
    let all: Vec<_> = sns
        .list_subscriptions()
        .into_paginator()
        .items()
        .send()
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(all.len(), 102);
    let entry = all
        .iter()
        .find(|s| s.subscription_arn.as_deref() == Some(sqs_sub.as_str()))
        .unwrap();
    assert_eq!(entry.owner.as_deref(), Some("000000000000"));
    assert_eq!(entry.protocol.as_deref(), Some("sqs"));
    assert_eq!(entry.endpoint.as_deref(), Some(queue_arn("q").as_str()));
    assert_eq!(entry.topic_arn.as_deref(), Some(other.as_str()));

    let (code, _) = sdk_error(
        sns.list_subscriptions_by_topic()
            .topic_arn(topic_arn("missing"))
            .send()
            .await,
    );
    assert_eq!(code, "NotFound");
}

/// Issue 14: the principal is GetCallerIdentity's ARN for the same credentials; SMS endpoints
/// take AWS's punctuation and refuse bad numbers in AWS's words; a malformed subscription ARN
/// gets AWS's ARN-shape reason.
#[tokio::test]
async fn principal_sms_endpoints_and_malformed_subscription_arns_as_aws_answers() {
    let h = Harness::start().await;
    for key in ["test", "111122223333"] {
        let sns = h.sns_as(key, "us-east-1");
        let me = h.sts_as(key).get_caller_identity().send().await.unwrap();
        let topic = sns
            .create_topic()
            .name("principal")
            .send()
            .await
            .unwrap()
            .topic_arn
            .unwrap();
        let sub = subscribe(&sns, &topic, "sms", "+12/34-567.890", &[]).await;
        let a = sub_attributes(&sns, &sub).await;
        assert_eq!(Some(a["SubscriptionPrincipal"].as_str()), me.arn());
        assert_eq!(a["Endpoint"], "+12/34-567.890");
    }

    let sns = h.sns();
    let topic = create_topic(&sns, "texts", &[]).await;
    for bad in [
        "invalid-number",
        "+15--551234567",
        "+15551234567.",
        "/+15551234567",
    ] {
        let (code, message) = sdk_error(
            sns.subscribe()
                .topic_arn(&topic)
                .protocol("sms")
                .endpoint(bad)
                .send()
                .await,
        );
        assert_eq!(
            (code.as_str(), message.as_str()),
            (
                "InvalidParameter",
                format!("Invalid SMS endpoint: {bad}").as_str()
            )
        );
    }

    for (arn, elements) in [("randomarn", 1), ("arn:aws:sns:us-east-1", 4)] {
        let (code, message) = sdk_error(sns.unsubscribe().subscription_arn(arn).send().await);
        assert_eq!(code, "InvalidParameter");
        assert_eq!(
            message,
            format!(
                "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not {elements}"
            )
        );
    }
}
