//! SNS's default quotas: 200 filter policies per topic, 1,000 FIFO topics per account.

use crate::harness::Harness;
use aws_sdk_sns::error::ProvideErrorMetadata;

#[tokio::test]
async fn a_topic_holds_at_most_200_filter_policies() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = sns
        .create_topic()
        .name("t")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let subscribe = |i: usize, filter: bool| {
        let mut req = sns
            .subscribe()
            .topic_arn(&topic)
            .protocol("sqs")
            .endpoint(format!("arn:aws:sqs:us-east-1:000000000000:q{i}"));
        if filter {
            req = req.attributes("FilterPolicy", r#"{"kind":["a"]}"#);
        }
        req.send()
    };
    for i in 0..200 {
        subscribe(i, true).await.unwrap();
    }
    let err = subscribe(200, true).await.unwrap_err();
    assert_eq!(err.code(), Some("FilterPolicyLimitExceeded"));
    // Without a filter policy the subscription is fine; adding one later is refused.
    let arn = subscribe(201, false)
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    let err = sns
        .set_subscription_attributes()
        .subscription_arn(&arn)
        .attribute_name("FilterPolicy")
        .attribute_value(r#"{"kind":["b"]}"#)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("FilterPolicyLimitExceeded"));
}

#[tokio::test]
async fn an_account_holds_at_most_1000_fifo_topics() {
    let h = Harness::start().await;
    let sns = h.sns();
    let create = |i: usize| {
        sns.create_topic()
            .name(format!("t{i}.fifo"))
            .attributes("FifoTopic", "true")
            .send()
    };
    for i in 0..1000 {
        create(i).await.unwrap();
    }
    let err = create(1000).await.unwrap_err();
    assert_eq!(err.code(), Some("TopicLimitExceeded"));
    // Standard topics have their own, larger quota.
    sns.create_topic().name("standard").send().await.unwrap();
}
