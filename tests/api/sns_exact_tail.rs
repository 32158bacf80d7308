//! SNS as AWS answers it, the tail (issue 33, item 3): Unsubscribe of a malformed ARN,
//! SetPlatformApplicationAttributes of an invalid ARN, the topic's subscription counts across a
//! confirmation, listing pending HTTP subscriptions and unsubscribing them once confirmed, and
//! how soon an HTTP subscription's dead letters reach their queue.

use crate::harness::Harness;
use crate::sns_http::Subscriber;
use crate::sns_subscriptions::subscribe;
use crate::sns_topics::{create_topic, sdk_error, sns_query_error, topic_attributes};
use serde_json::{Value, json};
use switchyard::Config;

fn pair(code: &str, message: &str) -> (String, String) {
    (code.to_string(), message.to_string())
}

#[tokio::test]
async fn unsubscribe_of_a_malformed_arn_names_subscription_id() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "t", &[]).await;
    // Six elements but no subscription id: AWS names the id (LocalStack's AWS-validated
    // unsubscribe, "Invalid parameter: SubscriptionId").
    for arn in [
        topic.as_str(),
        "arn:aws:sns:us-east-1:000000000000:t:not:a:subscription",
        "arn:aws:sqs:us-east-1:000000000000:q:6f2c7b1e",
    ] {
        assert_eq!(
            sdk_error(sns.unsubscribe().subscription_arn(arn).send().await),
            pair("InvalidParameter", "Invalid parameter: SubscriptionId"),
            "{arn}"
        );
    }
    // Fewer than six elements keep AWS's count of them.
    assert_eq!(
        sdk_error(sns.unsubscribe().subscription_arn("randomarn").send().await),
        pair(
            "InvalidParameter",
            "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 1"
        )
    );
    // A well-formed one of a subscription that does not exist succeeds (Unsubscribe is
    // idempotent).
    sns.unsubscribe()
        .subscription_arn(format!("{topic}:6f2c7b1e-0000-4000-8000-000000000000"))
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn set_platform_application_attributes_checks_the_arn_before_the_attributes() {
    let h = Harness::start().await;
    let sns = h.sns();
    let invalid = pair(
        "InvalidParameter",
        "Invalid parameter: PlatformApplicationArn Reason: An ARN must have at least 6 elements, not 1",
    );
    assert_eq!(
        sdk_error(
            sns.set_platform_application_attributes()
                .platform_application_arn("invalid")
                .attributes("NotAnAttribute", "x")
                .send()
                .await
        ),
        invalid
    );
    // Over Query without any attribute: the ARN still comes first.
    let (status, code, message) = sns_query_error(
        &h,
        &[
            ("Action", "SetPlatformApplicationAttributes"),
            ("PlatformApplicationArn", "invalid"),
        ],
    )
    .await;
    assert_eq!((status, (code, message)), (400, invalid));
}

/// (SubscriptionsConfirmed, SubscriptionsPending, SubscriptionsDeleted) of a topic.
async fn counts(h: &Harness, topic: &str) -> (String, String, String) {
    let a = topic_attributes(&h.sns(), topic).await;
    (
        a["SubscriptionsConfirmed"].clone(),
        a["SubscriptionsPending"].clone(),
        a["SubscriptionsDeleted"].clone(),
    )
}

fn three(c: &str, p: &str, d: &str) -> (String, String, String) {
    (c.into(), p.into(), d.into())
}

#[tokio::test]
async fn pending_http_subscriptions_are_listed_counted_confirmed_and_unsubscribed() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = create_topic(&sns, "hooks", &[]).await;
    let hooks = [Subscriber::start().await, Subscriber::start().await];
    for hook in &hooks {
        let answered = subscribe(&sns, &topic, "http", &hook.url, &[]).await;
        assert_eq!(answered, "pending confirmation");
    }
    // Pending: listed with SubscriptionArn "PendingConfirmation", counted as pending.
    let listed = sns
        .list_subscriptions_by_topic()
        .topic_arn(&topic)
        .send()
        .await
        .unwrap();
    let arns: Vec<&str> = listed
        .subscriptions()
        .iter()
        .map(|s| s.subscription_arn().unwrap())
        .collect();
    assert_eq!(arns, ["PendingConfirmation", "PendingConfirmation"]);
    assert_eq!(counts(&h, &topic).await, three("0", "2", "0"));

    // ConfirmSubscription with each token: pending drops, confirmed rises.
    h.advance(0.0).await;
    let mut confirmed = Vec::new();
    for (i, hook) in hooks.iter().enumerate() {
        let [confirmation] = hook.take().try_into().unwrap();
        let token = confirmation.json()["Token"].as_str().unwrap().to_string();
        let out = sns
            .confirm_subscription()
            .topic_arn(&topic)
            .token(token)
            .send()
            .await
            .unwrap();
        confirmed.push(out.subscription_arn().unwrap().to_string());
        let n = (i + 1).to_string();
        let pending = (1 - i).to_string();
        assert_eq!(counts(&h, &topic).await, three(&n, &pending, "0"));
    }
    let listed = sns
        .list_subscriptions_by_topic()
        .topic_arn(&topic)
        .send()
        .await
        .unwrap();
    let mut arns: Vec<String> = listed
        .subscriptions()
        .iter()
        .map(|s| s.subscription_arn().unwrap().to_string())
        .collect();
    arns.sort();
    confirmed.sort();
    assert_eq!(arns, confirmed);

    // Each can be unsubscribed by its ARN once confirmed.
    for (i, arn) in confirmed.iter().enumerate() {
        sns.unsubscribe()
            .subscription_arn(arn)
            .send()
            .await
            .unwrap();
        let left = (1 - i).to_string();
        let deleted = (i + 1).to_string();
        assert_eq!(counts(&h, &topic).await, three(&left, "0", &deleted));
    }
    let listed = sns
        .list_subscriptions_by_topic()
        .topic_arn(&topic)
        .send()
        .await
        .unwrap();
    assert!(listed.subscriptions().is_empty(), "{listed:?}");
}

async fn dlq_bodies(h: &Harness, url: &str) -> Vec<Value> {
    let got = h
        .sqs()
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    got.messages()
        .iter()
        .map(|m| serde_json::from_str(m.body().unwrap()).unwrap())
        .collect()
}

#[tokio::test]
async fn an_http_subscription_dead_letters_as_soon_as_aws_gives_up() {
    let h = Harness::with(Config {
        jitter: false,
        ..Config::for_tests()
    })
    .await;
    let sns = h.sns();
    let topic = create_topic(&sns, "hooks", &[]).await;
    let dlq = h
        .sqs()
        .create_queue()
        .queue_name("dlq")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let redrive = json!({"deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:dlq"});
    let hook = Subscriber::start().await;
    subscribe(
        &sns,
        &topic,
        "http",
        &hook.url,
        &[("RedrivePolicy", &redrive.to_string())],
    )
    .await;
    hook.confirm(&h).await;

    // A client error (4xx but 429) is not retried ("Amazon SNS doesn't retry the message
    // delivery that fails as a result of a client-side error", AWS's dead-letter queue page):
    // the message is in the DLQ without any virtual time passing.
    hook.answer(403);
    sns.publish()
        .topic_arn(&topic)
        .message("forbidden")
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    assert_eq!(hook.take().len(), 1);
    let dead = dlq_bodies(&h, &dlq).await;
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert_eq!(dead[0]["Message"], "forbidden");

    // An endpoint that cannot be reached is a server-side error: retried by the HTTP default
    // policy (three retries 20 s apart, AWS's "Step 4" page), dead-lettered after 60 s.
    let dlq2 = h
        .sqs()
        .create_queue()
        .queue_name("dlq2")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let redrive = json!({"deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:dlq2"});
    let hook2 = Subscriber::start().await;
    let topic2 = create_topic(&sns, "unreachable", &[]).await;
    let sub = subscribe(
        &sns,
        &topic2,
        "http",
        &hook2.url,
        &[("RedrivePolicy", &redrive.to_string())],
    )
    .await;
    assert_eq!(sub, "pending confirmation");
    hook2.confirm(&h).await;
    let listed = sns
        .list_subscriptions_by_topic()
        .topic_arn(&topic2)
        .send()
        .await
        .unwrap();
    let sub = listed.subscriptions()[0].subscription_arn().unwrap();
    // The endpoint goes away: nothing listens on its port, every attempt is refused.
    drop(hook2);
    let id = sns
        .publish()
        .topic_arn(&topic2)
        .message("unreachable")
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    h.advance(59.0).await;
    assert!(dlq_bodies(&h, &dlq2).await.is_empty());
    h.advance(1.0).await;
    let dead = dlq_bodies(&h, &dlq2).await;
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert_eq!(dead[0]["Message"], "unreachable");
    let attempts = h
        .control_get(&format!(
            "deliveries?source={sub}&event=attempt&messageId={id}"
        ))
        .await;
    assert_eq!(attempts["records"].as_array().unwrap().len(), 4);
}
