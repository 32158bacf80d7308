//! Who the caller is (issue 33, item 1; docs/decisions.md, "Who the test credentials are"): STS
//! GetCallerIdentity, SNS's SubscriptionPrincipal and every "User: <arn> is not authorized to
//! perform ..." refusal name the same principal: the account's root for the test credentials,
//! the assumed role for AssumeRole's.

use crate::harness::Harness;
use aws_sdk_sns::error::ProvideErrorMetadata;

const TRUST: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"sts:AssumeRole"}]}"#;
const OTHER: &str = "111122223333";

/// A role `name` in the default account, made over IAM's Query protocol.
async fn create_role(h: &Harness, name: &str) {
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("Action", "CreateRole"),
            ("Version", "2010-05-08"),
            ("RoleName", name),
            ("AssumeRolePolicyDocument", TRUST),
        ])
        .finish();
    let auth = "AWS4-HMAC-SHA256 Credential=test/20261130/us-east-1/iam/aws4_request, \
                SignedHeaders=content-type;host;x-amz-date, Signature=00";
    let headers = [
        (
            "content-type",
            "application/x-www-form-urlencoded; charset=utf-8",
        ),
        ("x-amz-date", "20261130T000000Z"),
        ("authorization", auth),
    ];
    let r = h.request("POST", "/", &headers, body).await;
    assert_eq!(r.status, 200, "{}", r.body);
}

/// The principal a refusal's message names: `User: <arn> is not authorized ...`.
fn refused_principal(message: &str) -> String {
    let rest = message
        .strip_prefix("User: ")
        .unwrap_or_else(|| panic!("{message}"));
    rest.split(" is not authorized to perform: ")
        .next()
        .unwrap()
        .to_string()
}

/// GetCallerIdentity's ARN, the SubscriptionPrincipal of a subscription the caller makes to its
/// own topic, and the principals named when it publishes to another account's topic, puts a rule
/// on another account's bus and assumes a role that does not exist.
async fn the_three_names(h: &Harness, key: &str, phone: &str) -> (String, String, Vec<String>) {
    let me = h.sts_as(key).get_caller_identity().send().await.unwrap();
    let sns = h.sns_as(key, "us-east-1");
    let own = sns.create_topic().name("mine").send().await.unwrap();
    let sub = sns
        .subscribe()
        .topic_arn(own.topic_arn().unwrap())
        .protocol("sms")
        .endpoint(phone)
        .send()
        .await
        .unwrap();
    let attrs = sns
        .get_subscription_attributes()
        .subscription_arn(sub.subscription_arn().unwrap())
        .send()
        .await
        .unwrap();
    let principal = attrs.attributes().unwrap()["SubscriptionPrincipal"].clone();

    let theirs = format!("arn:aws:sns:us-east-1:{OTHER}:theirs");
    let published = sns
        .publish()
        .topic_arn(&theirs)
        .message("m")
        .send()
        .await
        .unwrap_err();
    assert_eq!(published.code(), Some("AuthorizationError"));
    let rule = h
        .events_as(key, "us-east-1")
        .put_rule()
        .name("r")
        .event_bus_name(format!("arn:aws:events:us-east-1:{OTHER}:event-bus/theirs"))
        .event_pattern(r#"{"source":["a"]}"#)
        .send()
        .await
        .unwrap_err();
    assert_eq!(rule.code(), Some("AccessDeniedException"));
    let assumed = h
        .sts_as(key)
        .assume_role()
        .role_arn("arn:aws:iam::000000000000:role/missing")
        .role_session_name("nobody")
        .send()
        .await
        .unwrap_err();
    assert_eq!(assumed.code(), Some("AccessDenied"));
    let refusals = [published.message(), rule.message(), assumed.message()]
        .into_iter()
        .map(|m| refused_principal(m.unwrap()))
        .collect();
    (me.arn().unwrap().to_string(), principal, refusals)
}

#[tokio::test]
async fn caller_identity_subscription_principal_and_refusals_name_the_same_principal() {
    let h = Harness::start().await;
    // Another account's topic and bus, which allow nothing to others.
    let other_sns = h.sns_as(OTHER, "us-east-1");
    other_sns
        .create_topic()
        .name("theirs")
        .send()
        .await
        .unwrap();
    h.events_as(OTHER, "us-east-1")
        .create_event_bus()
        .name("theirs")
        .send()
        .await
        .unwrap();

    // The test credentials are the account's root, everywhere.
    let root = "arn:aws:iam::000000000000:root".to_string();
    let (identity, principal, refusals) = the_three_names(&h, "test", "+15555550100").await;
    assert_eq!(identity, root);
    assert_eq!(principal, root);
    assert_eq!(refusals, [root.clone(), root.clone(), root]);

    // AssumeRole's credentials are the assumed role, everywhere.
    create_role(&h, "deployer").await;
    let out = h
        .sts_as("test")
        .assume_role()
        .role_arn("arn:aws:iam::000000000000:role/deployer")
        .role_session_name("ci")
        .send()
        .await
        .unwrap();
    let key = out.credentials().unwrap().access_key_id().to_string();
    let role = "arn:aws:sts::000000000000:assumed-role/deployer/ci".to_string();
    // CreateTopic of `mine` again answers the account's topic (the session acts in it); a
    // subscription of another number is the session's own.
    let (identity, principal, refusals) = the_three_names(&h, &key, "+15555550101").await;
    assert_eq!(identity, role);
    assert_eq!(principal, role);
    assert_eq!(refusals, [role.clone(), role.clone(), role]);
}
