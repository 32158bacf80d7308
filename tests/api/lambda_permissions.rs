//! A Lambda function's resource policy through the AWS SDK for Rust: AddPermission,
//! RemovePermission and GetPolicy answered as AWS answers them, per qualifier; and, with
//! `--enforce-policies`, another account's Invoke refused unless the policy allows it.

use crate::harness::Harness;
use crate::lambda::zip_of;
use aws_sdk_lambda::error::ProvideErrorMetadata;
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::{FunctionCode, Runtime};
use serde_json::{Value, json};

const ARN: &str = "arn:aws:lambda:us-east-1:000000000000:function:target";
const TOPIC: &str = "arn:aws:sns:us-east-1:000000000000:news";

async fn create(client: &aws_sdk_lambda::Client, account: &str) {
    client
        .create_function()
        .function_name("target")
        .role(format!("arn:aws:iam::{account}:role/lambda"))
        .runtime(Runtime::Python312)
        .handler("app.handler")
        .code(
            FunctionCode::builder()
                .zip_file(Blob::new(zip_of(&[(
                    "app.py",
                    "def handler(event, context):\n    return 'ran'\n",
                )])))
                .build(),
        )
        .send()
        .await
        .unwrap();
}

fn refusal<T: std::fmt::Debug, E: ProvideErrorMetadata + std::fmt::Debug>(
    result: Result<T, E>,
) -> (String, String) {
    let err = result.expect_err("the call is refused");
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

async fn policy(h: &Harness, name: &str) -> (Value, String) {
    let got = h
        .lambda()
        .get_policy()
        .function_name(name)
        .send()
        .await
        .unwrap();
    (
        serde_json::from_str(got.policy().unwrap()).unwrap(),
        got.revision_id().unwrap().to_string(),
    )
}

#[tokio::test]
async fn permissions_are_added_read_and_removed_as_aws_writes_them() {
    let h = Harness::start().await;
    create(&h.lambda(), "000000000000").await;
    let none = h.lambda().get_policy().function_name("target").send().await;
    assert_eq!(
        refusal(none),
        (
            "ResourceNotFoundException".into(),
            "The resource you requested does not exist.".into()
        )
    );
    let added = h
        .lambda()
        .add_permission()
        .function_name("target")
        .statement_id("from-sns")
        .action("lambda:InvokeFunction")
        .principal("sns.amazonaws.com")
        .source_arn(TOPIC)
        .source_account("000000000000")
        .send()
        .await
        .unwrap();
    let sns = json!({
        "Sid": "from-sns",
        "Effect": "Allow",
        "Principal": {"Service": "sns.amazonaws.com"},
        "Action": "lambda:InvokeFunction",
        "Resource": ARN,
        "Condition": {
            "StringEquals": {"AWS:SourceAccount": "000000000000"},
            "ArnLike": {"AWS:SourceArn": TOPIC},
        },
    });
    let statement: Value = serde_json::from_str(added.statement().unwrap()).unwrap();
    assert_eq!(statement, sns);
    h.lambda()
        .add_permission()
        .function_name(ARN)
        .statement_id("other-account")
        .action("lambda:InvokeFunction")
        .principal("222222222222")
        .send()
        .await
        .unwrap();
    let (document, revision) = policy(&h, "target").await;
    let account = json!({
        "Sid": "other-account",
        "Effect": "Allow",
        "Principal": {"AWS": "arn:aws:iam::222222222222:root"},
        "Action": "lambda:InvokeFunction",
        "Resource": ARN,
    });
    assert_eq!(
        document,
        json!({"Version": "2012-10-17", "Id": "default", "Statement": [sns, account]})
    );
    let configuration = h
        .lambda()
        .get_function_configuration()
        .function_name("target")
        .send()
        .await
        .unwrap();
    assert_eq!(configuration.revision_id(), Some(revision.as_str()));

    let again = h
        .lambda()
        .add_permission()
        .function_name("target")
        .statement_id("from-sns")
        .action("lambda:InvokeFunction")
        .principal("events.amazonaws.com")
        .send()
        .await;
    assert_eq!(
        refusal(again),
        (
            "ResourceConflictException".into(),
            "The statement id (from-sns) provided already exists. Please provide a new \
             statement id, or remove the existing statement."
                .into()
        )
    );
    let stale = h
        .lambda()
        .add_permission()
        .function_name("target")
        .statement_id("late")
        .action("lambda:InvokeFunction")
        .principal("events.amazonaws.com")
        .revision_id("an-old-revision")
        .send()
        .await;
    assert_eq!(refusal(stale).0, "PreconditionFailedException");
    for (sid, action, principal) in [
        ("bad id", "lambda:InvokeFunction", "s3.amazonaws.com"),
        ("ok", "InvokeFunction", "s3.amazonaws.com"),
    ] {
        let bad = h
            .lambda()
            .add_permission()
            .function_name("target")
            .statement_id(sid)
            .action(action)
            .principal(principal)
            .send()
            .await;
        assert_eq!(refusal(bad).0, "ValidationException", "{sid} {action}");
    }

    let missing = h
        .lambda()
        .remove_permission()
        .function_name("target")
        .statement_id("nope")
        .send()
        .await;
    assert_eq!(
        refusal(missing),
        (
            "ResourceNotFoundException".into(),
            "Statement nope is not found in resource policy.".into()
        )
    );
    h.lambda()
        .remove_permission()
        .function_name("target")
        .statement_id("from-sns")
        .send()
        .await
        .unwrap();
    let (document, _) = policy(&h, "target").await;
    assert_eq!(document["Statement"], json!([account]));
    h.lambda()
        .remove_permission()
        .function_name("target")
        .statement_id("other-account")
        .send()
        .await
        .unwrap();
    let empty = h.lambda().get_policy().function_name("target").send().await;
    assert_eq!(refusal(empty).0, "ResourceNotFoundException");
}

#[tokio::test]
async fn a_qualifier_has_a_policy_of_its_own() {
    let h = Harness::start().await;
    create(&h.lambda(), "000000000000").await;
    h.lambda()
        .publish_version()
        .function_name("target")
        .send()
        .await
        .unwrap();
    h.lambda()
        .create_alias()
        .function_name("target")
        .name("live")
        .function_version("1")
        .send()
        .await
        .unwrap();
    h.lambda()
        .add_permission()
        .function_name("target")
        .qualifier("live")
        .statement_id("rule")
        .action("lambda:InvokeFunction")
        .principal("events.amazonaws.com")
        .source_arn("arn:aws:events:us-east-1:000000000000:rule/r")
        .send()
        .await
        .unwrap();
    let (document, revision) = policy(&h, "target:live").await;
    assert_eq!(document["Statement"][0]["Resource"], format!("{ARN}:live"));
    let alias = h
        .lambda()
        .get_alias()
        .function_name("target")
        .name("live")
        .send()
        .await
        .unwrap();
    assert_eq!(alias.revision_id(), Some(revision.as_str()));
    let unqualified = h.lambda().get_policy().function_name("target").send().await;
    assert_eq!(refusal(unqualified).0, "ResourceNotFoundException");
    let no_alias = h
        .lambda()
        .add_permission()
        .function_name("target")
        .qualifier("nope")
        .statement_id("x")
        .action("lambda:InvokeFunction")
        .principal("events.amazonaws.com")
        .send()
        .await;
    assert_eq!(
        refusal(no_alias),
        (
            "ResourceNotFoundException".into(),
            format!("Function not found: {ARN}:nope")
        )
    );
    // Deleting the alias deletes its policy with it.
    h.lambda()
        .delete_alias()
        .function_name("target")
        .name("live")
        .send()
        .await
        .unwrap();
    h.lambda()
        .create_alias()
        .function_name("target")
        .name("live")
        .function_version("1")
        .send()
        .await
        .unwrap();
    let fresh = h
        .lambda()
        .get_policy()
        .function_name("target:live")
        .send()
        .await;
    assert_eq!(refusal(fresh).0, "ResourceNotFoundException");
}

const OWNER: &str = "111111111111";
const OTHER: &str = "222222222222";

async fn enforcing(on: bool) -> Harness {
    Harness::with(switchyard::Config {
        enforce_policies: on,
        ..switchyard::Config::for_tests()
    })
    .await
}

#[tokio::test]
async fn another_account_invokes_only_what_the_policy_allows_when_enforced() {
    let target = format!("arn:aws:lambda:us-east-1:{OWNER}:function:target");
    let h = enforcing(true).await;
    let owner = h.lambda_as(OWNER);
    let other = h.lambda_as(OTHER);
    create(&owner, OWNER).await;
    let ran = owner.invoke().function_name("target").send().await.unwrap();
    assert_eq!(ran.status_code(), 200);
    let denied = other.invoke().function_name(&target).send().await;
    assert_eq!(
        refusal(denied),
        (
            "AccessDeniedException".into(),
            format!(
                "User: arn:aws:iam::{OTHER}:root is not authorized to perform: \
                 lambda:InvokeFunction on resource: {target} because no resource-based policy \
                 allows the lambda:InvokeFunction action"
            )
        )
    );
    // A statement for a third account, or for a service, does not let it in.
    for (sid, principal) in [("third", "333333333333"), ("sns", "sns.amazonaws.com")] {
        owner
            .add_permission()
            .function_name("target")
            .statement_id(sid)
            .action("lambda:InvokeFunction")
            .principal(principal)
            .send()
            .await
            .unwrap();
    }
    let denied = other.invoke().function_name(&target).send().await;
    assert_eq!(refusal(denied).0, "AccessDeniedException");
    owner
        .add_permission()
        .function_name("target")
        .statement_id("other")
        .action("lambda:InvokeFunction")
        .principal(OTHER)
        .send()
        .await
        .unwrap();
    let allowed = other.invoke().function_name(&target).send().await.unwrap();
    assert_eq!(allowed.payload().unwrap().as_ref(), b"\"ran\"");
    // The unqualified function's policy is not a version's.
    owner
        .publish_version()
        .function_name("target")
        .send()
        .await
        .unwrap();
    let version = other
        .invoke()
        .function_name(format!("{target}:1"))
        .send()
        .await;
    assert_eq!(refusal(version).0, "AccessDeniedException");

    // Without enforcement, another account invokes as it likes.
    let h = enforcing(false).await;
    create(&h.lambda_as(OWNER), OWNER).await;
    let ran = h
        .lambda_as(OTHER)
        .invoke()
        .function_name(&target)
        .send()
        .await
        .unwrap();
    assert_eq!(ran.payload().unwrap().as_ref(), b"\"ran\"");
}
