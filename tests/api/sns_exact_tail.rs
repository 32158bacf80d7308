//! SNS as AWS answers it, the tail (issue 33, item 3): Unsubscribe of a malformed ARN,
//! SetPlatformApplicationAttributes of an invalid ARN, the topic's subscription counts across a
//! confirmation, listing pending HTTP subscriptions and unsubscribing them once confirmed, and
//! how soon an HTTP subscription's dead letters reach their queue.

use crate::harness::Harness;
use crate::sns_topics::{create_topic, sdk_error, sns_query_error};

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
