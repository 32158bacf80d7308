//! IAM over AWS Query, as the SDKs and the AWS CLI send it (signed for `iam` in us-east-1), and
//! STS AssumeRole through the AWS SDK for Rust: the credentials it hands out act in the role's
//! account, for STS and for the other services.

use crate::harness::{Harness, Reply, xml_text, xml_texts};

const TRUST: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"events.amazonaws.com"},"Action":"sts:AssumeRole"}]}"#;

/// An IAM Query request signed (in form) by `access_key` for `iam` in us-east-1.
async fn iam_as(h: &Harness, access_key: &str, params: &[(&str, &str)]) -> Reply {
    let mut all = vec![("Version", "2010-05-08")];
    all.extend_from_slice(params);
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&all)
        .finish();
    let auth = format!(
        "AWS4-HMAC-SHA256 Credential={access_key}/20261130/us-east-1/iam/aws4_request, \
         SignedHeaders=content-type;host;x-amz-date, Signature=00"
    );
    let headers = [
        (
            "content-type",
            "application/x-www-form-urlencoded; charset=utf-8",
        ),
        ("x-amz-date", "20261130T000000Z"),
        ("authorization", auth.as_str()),
    ];
    h.request("POST", "/", &headers, body).await
}

async fn iam(h: &Harness, params: &[(&str, &str)]) -> Reply {
    iam_as(h, "test", params).await
}

fn assert_error(r: &Reply, status: u16, code: &str, message: &str) {
    assert_eq!(r.status, status, "{}", r.body);
    assert_eq!(
        xml_text(&r.body, "Code").as_deref(),
        Some(code),
        "{}",
        r.body
    );
    assert_eq!(
        xml_text(&r.body, "Message").as_deref(),
        Some(message),
        "{}",
        r.body
    );
    assert_eq!(
        xml_text(&r.body, "Type").as_deref(),
        Some("Sender"),
        "{}",
        r.body
    );
}

async fn create_role(h: &Harness, name: &str) -> Reply {
    let r = iam(
        h,
        &[
            ("Action", "CreateRole"),
            ("RoleName", name),
            ("AssumeRolePolicyDocument", TRUST),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    r
}

#[tokio::test]
async fn create_get_list_delete_role() {
    let h = Harness::start().await;
    let r = iam(
        &h,
        &[
            ("Action", "CreateRole"),
            ("RoleName", "events-to-sqs"),
            ("Path", "/service/"),
            ("Description", "lets rules deliver"),
            ("AssumeRolePolicyDocument", TRUST),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body
            .contains("<CreateRoleResponse xmlns=\"https://iam.amazonaws.com/doc/2010-05-08/\">"),
        "{}",
        r.body
    );
    let arn = xml_text(&r.body, "Arn").unwrap();
    assert_eq!(arn, "arn:aws:iam::000000000000:role/service/events-to-sqs");
    let id = xml_text(&r.body, "RoleId").unwrap();
    assert!(id.starts_with("AROA") && id.len() == 21, "{id}");
    assert!(
        id.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()),
        "{id}"
    );
    let created = xml_text(&r.body, "CreateDate").unwrap();
    assert!(created.ends_with('Z') && created.len() == 24, "{created}");
    // The document comes back URL-encoded, as AWS sends it.
    let doc = xml_text(&r.body, "AssumeRolePolicyDocument").unwrap();
    assert!(
        doc.starts_with("%7B%22Version%22%3A%222012-10-17%22"),
        "{doc}"
    );

    let r = iam(&h, &[("Action", "GetRole"), ("RoleName", "events-to-sqs")]).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(xml_text(&r.body, "RoleId").as_deref(), Some(id.as_str()));
    assert_eq!(xml_text(&r.body, "Path").as_deref(), Some("/service/"));
    assert_eq!(
        xml_text(&r.body, "Description").as_deref(),
        Some("lets rules deliver")
    );
    assert_eq!(
        xml_text(&r.body, "MaxSessionDuration").as_deref(),
        Some("3600")
    );

    // Names are unique regardless of case.
    let r = iam(
        &h,
        &[
            ("Action", "CreateRole"),
            ("RoleName", "EVENTS-TO-SQS"),
            ("AssumeRolePolicyDocument", TRUST),
        ],
    )
    .await;
    assert_error(
        &r,
        409,
        "EntityAlreadyExists",
        "Role with name EVENTS-TO-SQS already exists.",
    );

    let r = iam(&h, &[("Action", "ListRoles")]).await;
    assert_eq!(xml_texts(&r.body, "RoleName"), ["events-to-sqs"]);
    assert_eq!(xml_text(&r.body, "IsTruncated").as_deref(), Some("false"));
    let r = iam(&h, &[("Action", "ListRoles"), ("PathPrefix", "/other/")]).await;
    assert!(xml_texts(&r.body, "RoleName").is_empty(), "{}", r.body);

    let r = iam(
        &h,
        &[("Action", "DeleteRole"), ("RoleName", "events-to-sqs")],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = iam(&h, &[("Action", "GetRole"), ("RoleName", "events-to-sqs")]).await;
    assert_error(
        &r,
        404,
        "NoSuchEntity",
        "The role with name events-to-sqs cannot be found.",
    );
    let r = iam(
        &h,
        &[("Action", "DeleteRole"), ("RoleName", "events-to-sqs")],
    )
    .await;
    assert_error(
        &r,
        404,
        "NoSuchEntity",
        "The role with name events-to-sqs cannot be found.",
    );
}

#[tokio::test]
async fn list_roles_pages_with_marker_and_max_items() {
    let h = Harness::start().await;
    for name in ["a", "b", "c"] {
        create_role(&h, name).await;
    }
    let r = iam(&h, &[("Action", "ListRoles"), ("MaxItems", "2")]).await;
    assert_eq!(xml_texts(&r.body, "RoleName"), ["a", "b"]);
    assert_eq!(xml_text(&r.body, "IsTruncated").as_deref(), Some("true"));
    let marker = xml_text(&r.body, "Marker").unwrap();
    let r = iam(
        &h,
        &[
            ("Action", "ListRoles"),
            ("MaxItems", "2"),
            ("Marker", &marker),
        ],
    )
    .await;
    assert_eq!(xml_texts(&r.body, "RoleName"), ["c"]);
    assert_eq!(xml_text(&r.body, "IsTruncated").as_deref(), Some("false"));
    assert_eq!(xml_text(&r.body, "Marker"), None);

    let r = iam(&h, &[("Action", "ListRoles"), ("MaxItems", "0")]).await;
    assert_error(
        &r,
        400,
        "ValidationError",
        "1 validation error detected: Value '0' at 'maxItems' failed to satisfy constraint: Member must have value greater than or equal to 1",
    );
}

#[tokio::test]
async fn bad_role_input_is_refused_as_aws_refuses_it() {
    let h = Harness::start().await;
    let r = iam(
        &h,
        &[
            ("Action", "CreateRole"),
            ("RoleName", "no spaces"),
            ("AssumeRolePolicyDocument", TRUST),
        ],
    )
    .await;
    assert_error(
        &r,
        400,
        "ValidationError",
        "1 validation error detected: Value 'no spaces' at 'roleName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+",
    );
    let long = "r".repeat(65);
    let r = iam(
        &h,
        &[
            ("Action", "CreateRole"),
            ("RoleName", &long),
            ("AssumeRolePolicyDocument", TRUST),
        ],
    )
    .await;
    assert_error(
        &r,
        400,
        "ValidationError",
        &format!(
            "1 validation error detected: Value '{long}' at 'roleName' failed to satisfy constraint: Member must have length less than or equal to 64"
        ),
    );
    let r = iam(
        &h,
        &[
            ("Action", "CreateRole"),
            ("RoleName", "r"),
            ("AssumeRolePolicyDocument", "{not json"),
        ],
    )
    .await;
    assert_error(
        &r,
        400,
        "MalformedPolicyDocument",
        "This policy contains invalid Json",
    );
    let with_resource = r#"{"Statement":[{"Effect":"Allow","Principal":{"Service":"sqs.amazonaws.com"},"Action":"sts:AssumeRole","Resource":"*"}]}"#;
    let r = iam(
        &h,
        &[
            ("Action", "CreateRole"),
            ("RoleName", "r"),
            ("AssumeRolePolicyDocument", with_resource),
        ],
    )
    .await;
    assert_error(
        &r,
        400,
        "MalformedPolicyDocument",
        "Has prohibited field Resource",
    );
    let r = iam(
        &h,
        &[
            ("Action", "CreateRole"),
            ("RoleName", "r"),
            ("Path", "service"),
            ("AssumeRolePolicyDocument", TRUST),
        ],
    )
    .await;
    assert_error(
        &r,
        400,
        "ValidationError",
        "1 validation error detected: Value 'service' at 'path' failed to satisfy constraint: Member must satisfy regular expression pattern: (\\u002F)|(\\u002F[\\u0021-\\u007E]+\\u002F)",
    );
    let r = iam(
        &h,
        &[
            ("Action", "CreateRole"),
            ("RoleName", "r"),
            ("MaxSessionDuration", "60"),
            ("AssumeRolePolicyDocument", TRUST),
        ],
    )
    .await;
    assert_error(
        &r,
        400,
        "ValidationError",
        "1 validation error detected: Value '60' at 'maxSessionDuration' failed to satisfy constraint: Member must have value greater than or equal to 3600",
    );
    let r = iam(&h, &[("Action", "CreateRole"), ("RoleName", "r")]).await;
    assert_error(
        &r,
        400,
        "ValidationError",
        "1 validation error detected: Value null at 'assumeRolePolicyDocument' failed to satisfy constraint: Member must not be null",
    );
    // Nothing was created by the refused calls.
    let r = iam(&h, &[("Action", "ListRoles")]).await;
    assert!(xml_texts(&r.body, "RoleName").is_empty(), "{}", r.body);
}

#[tokio::test]
async fn roles_live_in_the_callers_account() {
    let h = Harness::start().await;
    let r = iam_as(
        &h,
        "111122223333",
        &[
            ("Action", "CreateRole"),
            ("RoleName", "r"),
            ("AssumeRolePolicyDocument", TRUST),
        ],
    )
    .await;
    assert_eq!(
        xml_text(&r.body, "Arn").as_deref(),
        Some("arn:aws:iam::111122223333:role/r")
    );
    let r = iam(&h, &[("Action", "GetRole"), ("RoleName", "r")]).await;
    assert_error(
        &r,
        404,
        "NoSuchEntity",
        "The role with name r cannot be found.",
    );
}

#[tokio::test]
async fn assumed_role_credentials_act_in_the_roles_account() {
    let h = Harness::start().await;
    let r = iam_as(
        &h,
        "111122223333",
        &[
            ("Action", "CreateRole"),
            ("RoleName", "deliverer"),
            ("AssumeRolePolicyDocument", TRUST),
        ],
    )
    .await;
    let role_id = xml_text(&r.body, "RoleId").unwrap();
    let role_arn = "arn:aws:iam::111122223333:role/deliverer";

    // Assumed from the default account: the credentials act in the role's.
    let sts = h.sts_as("test");
    let out = sts
        .assume_role()
        .role_arn(role_arn)
        .role_session_name("setup")
        .duration_seconds(900)
        .send()
        .await
        .unwrap();
    let user = out.assumed_role_user().unwrap();
    assert_eq!(
        user.arn(),
        "arn:aws:sts::111122223333:assumed-role/deliverer/setup"
    );
    assert_eq!(user.assumed_role_id(), format!("{role_id}:setup"));
    let creds = out.credentials().unwrap();
    assert!(creds.access_key_id().starts_with("ASIA") && creds.access_key_id().len() == 20);
    assert_eq!(creds.secret_access_key().len(), 40);
    assert!(!creds.session_token().is_empty());
    let clock = h.control_get("clock").await;
    let now = clock["epochMillis"].as_i64().unwrap();
    assert_eq!(creds.expiration().secs(), now / 1000 + 900);

    let config = aws_sdk_sts::Config::builder()
        .behavior_version(aws_sdk_sts::config::BehaviorVersion::latest())
        .endpoint_url(h.url())
        .region(aws_sdk_sts::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_sts::config::Credentials::new(
            creds.access_key_id(),
            creds.secret_access_key(),
            Some(creds.session_token().to_string()),
            None,
            "assumed",
        ))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .build();
    let me = aws_sdk_sts::Client::from_conf(config)
        .get_caller_identity()
        .send()
        .await
        .unwrap();
    assert_eq!(me.account(), Some("111122223333"));
    assert_eq!(
        me.arn(),
        Some("arn:aws:sts::111122223333:assumed-role/deliverer/setup")
    );
    assert_eq!(me.user_id(), Some(format!("{role_id}:setup").as_str()));

    // Other services see the role's account too.
    let sqs = h.sqs_as(creds.access_key_id(), "us-east-1");
    let url = sqs.create_queue().queue_name("q").send().await.unwrap();
    assert!(
        url.queue_url().unwrap().ends_with("/111122223333/q"),
        "{:?}",
        url.queue_url()
    );
}

#[tokio::test]
async fn assume_role_refuses_what_aws_refuses() {
    let h = Harness::start().await;
    create_role(&h, "r").await;
    let sts = h.sts_as("test");
    let (code, message) = assume_role_error(
        &sts,
        "arn:aws:iam::000000000000:role/missing",
        "setup",
        None,
    )
    .await;
    assert_eq!(code.as_deref(), Some("AccessDenied"));
    assert_eq!(
        message.as_deref(),
        Some(
            "User: arn:aws:iam::000000000000:root is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::000000000000:role/missing"
        )
    );
    let (code, message) = assume_role_error(
        &sts,
        "arn:aws:iam::000000000000:role/r",
        "setup",
        Some(7200),
    )
    .await;
    assert_eq!(code.as_deref(), Some("ValidationError"));
    assert_eq!(
        message.as_deref(),
        Some("The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
    );
    let (code, message) =
        assume_role_error(&sts, "arn:aws:iam::000000000000:role/r", "has space", None).await;
    assert_eq!(code.as_deref(), Some("ValidationError"));
    assert_eq!(
        message.as_deref(),
        Some(
            "1 validation error detected: Value 'has space' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*"
        )
    );
    let (code, message) = assume_role_error(&sts, "role/r", "setup", None).await;
    assert_eq!(code.as_deref(), Some("ValidationError"));
    assert_eq!(
        message.as_deref(),
        Some(
            "1 validation error detected: Value 'role/r' at 'roleArn' failed to satisfy constraint: Member must have length greater than or equal to 20"
        )
    );
}

/// The code and message of the error an AssumeRole answers.
async fn assume_role_error(
    sts: &aws_sdk_sts::Client,
    arn: &str,
    session: &str,
    duration: Option<i32>,
) -> (Option<String>, Option<String>) {
    let err = sts
        .assume_role()
        .role_arn(arn)
        .role_session_name(session)
        .set_duration_seconds(duration)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    let meta = aws_sdk_sts::error::ProvideErrorMetadata::meta(&err);
    (
        meta.code().map(str::to_string),
        meta.message().map(str::to_string),
    )
}

#[tokio::test]
async fn session_credentials_verify_under_auth_verify() {
    let h = Harness::with(switchyard::Config {
        auth: switchyard::config::AuthMode::Verify,
        ..switchyard::Config::for_tests()
    })
    .await;
    let sts = signed_sts(&h, "222233334444", "test", None);
    // A signed IAM request: create the role as account 222233334444 with the SDK's signature.
    let r = sts.get_caller_identity().send().await.unwrap();
    assert_eq!(r.account(), Some("222233334444"));
    // The role, made through a Query request signed the same way, then assumed.
    let iam_reply = signed_query(
        &h,
        "222233334444",
        "test",
        &[
            ("Action", "CreateRole"),
            ("Version", "2010-05-08"),
            ("RoleName", "verified"),
            ("AssumeRolePolicyDocument", TRUST),
        ],
    )
    .await;
    assert_eq!(iam_reply.status, 200, "{}", iam_reply.body);
    let out = sts
        .assume_role()
        .role_arn("arn:aws:iam::222233334444:role/verified")
        .role_session_name("checked")
        .send()
        .await
        .unwrap();
    let c = out.credentials().unwrap();
    let session = signed_sts(
        &h,
        c.access_key_id(),
        c.secret_access_key(),
        Some(c.session_token()),
    );
    let me = session.get_caller_identity().send().await.unwrap();
    assert_eq!(
        me.arn(),
        Some("arn:aws:sts::222233334444:assumed-role/verified/checked")
    );
    // The wrong secret for a session key is refused like any other.
    let forged = signed_sts(&h, c.access_key_id(), "wrong", Some(c.session_token()));
    let err = forged
        .get_caller_identity()
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    let meta = aws_sdk_sts::error::ProvideErrorMetadata::meta(&err);
    assert_eq!(meta.code(), Some("SignatureDoesNotMatch"));
}

fn signed_sts(h: &Harness, key: &str, secret: &str, token: Option<&str>) -> aws_sdk_sts::Client {
    let config = aws_sdk_sts::Config::builder()
        .behavior_version(aws_sdk_sts::config::BehaviorVersion::latest())
        .endpoint_url(h.url())
        .region(aws_sdk_sts::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_sts::config::Credentials::new(
            key,
            secret,
            token.map(str::to_string),
            None,
            "test",
        ))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .build();
    aws_sdk_sts::Client::from_conf(config)
}

/// A Query request to IAM truly signed (SigV4, `iam`, us-east-1) with `key` and `secret`.
#[allow(clippy::disallowed_methods)]
async fn signed_query(h: &Harness, key: &str, secret: &str, params: &[(&str, &str)]) -> Reply {
    use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish();
    let host = h.emulator.addr().to_string();
    let headers = [
        ("host", host.as_str()),
        (
            "content-type",
            "application/x-www-form-urlencoded; charset=utf-8",
        ),
    ];
    let identity = aws_credential_types::Credentials::new(key, secret, None, None, "test").into();
    // Signatures are dated by the wall clock, as AWS checks them.
    let params = aws_sigv4::sign::v4::SigningParams::builder()
        .identity(&identity)
        .region("us-east-1")
        .name("iam")
        .time(std::time::SystemTime::now())
        .settings(SigningSettings::default())
        .build()
        .expect("signing params")
        .into();
    let uri = format!("{}/", h.url());
    let signable = SignableRequest::new(
        "POST",
        uri,
        headers.iter().copied(),
        SignableBody::Bytes(body.as_bytes()),
    )
    .expect("signable request");
    let (instructions, _) = sign(signable, &params).expect("signs").into_parts();
    let (added, _) = instructions.into_parts();
    let added: Vec<(String, String)> = added
        .iter()
        .map(|h| (h.name().to_string(), h.value().to_string()))
        .collect();
    let mut all: Vec<(&str, &str)> = headers.to_vec();
    all.extend(added.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    h.request("POST", "/", &all, body).await
}

const POLICY: &str =
    r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sqs:*","Resource":"*"}]}"#;

#[tokio::test]
async fn policies_attach_and_block_deletes_until_detached() {
    let h = Harness::start().await;
    create_role(&h, "r").await;
    let r = iam(
        &h,
        &[
            ("Action", "CreatePolicy"),
            ("PolicyName", "send"),
            ("PolicyDocument", POLICY),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let arn = xml_text(&r.body, "Arn").unwrap();
    assert_eq!(arn, "arn:aws:iam::000000000000:policy/send");
    let id = xml_text(&r.body, "PolicyId").unwrap();
    assert!(id.starts_with("ANPA") && id.len() == 21, "{id}");
    let attach = [
        ("Action", "AttachRolePolicy"),
        ("RoleName", "r"),
        ("PolicyArn", arn.as_str()),
    ];
    assert_eq!(iam(&h, &attach).await.status, 200);
    let put = [
        ("Action", "PutRolePolicy"),
        ("RoleName", "r"),
        ("PolicyName", "inline"),
        ("PolicyDocument", POLICY),
    ];
    assert_eq!(iam(&h, &put).await.status, 200);

    let r = iam(&h, &[("Action", "DeleteRole"), ("RoleName", "r")]).await;
    assert_error(
        &r,
        409,
        "DeleteConflict",
        "Cannot delete entity, must detach all policies first.",
    );
    let r = iam(&h, &[("Action", "DeletePolicy"), ("PolicyArn", &arn)]).await;
    assert_error(
        &r,
        409,
        "DeleteConflict",
        "Cannot delete a policy attached to entities.",
    );
    let r = iam(&h, &[("Action", "GetPolicy"), ("PolicyArn", &arn)]).await;
    assert_eq!(xml_text(&r.body, "AttachmentCount").as_deref(), Some("1"));
    let r = iam(
        &h,
        &[
            ("Action", "AttachRolePolicy"),
            ("RoleName", "r"),
            ("PolicyArn", "not-an-arn"),
        ],
    )
    .await;
    assert_error(&r, 400, "InvalidInput", "ARN not-an-arn is not valid.");

    let detach = [
        ("Action", "DetachRolePolicy"),
        ("RoleName", "r"),
        ("PolicyArn", arn.as_str()),
    ];
    assert_eq!(iam(&h, &detach).await.status, 200);
    let r = iam(&h, &[("Action", "DeleteRole"), ("RoleName", "r")]).await;
    assert_error(
        &r,
        409,
        "DeleteConflict",
        "Cannot delete entity, must delete policies first.",
    );
    let r = iam(
        &h,
        &[
            ("Action", "GetRolePolicy"),
            ("RoleName", "r"),
            ("PolicyName", "inline"),
        ],
    )
    .await;
    let doc = xml_text(&r.body, "PolicyDocument").unwrap();
    assert!(doc.starts_with("%7B%22Version%22"), "{doc}");
    let del = [
        ("Action", "DeleteRolePolicy"),
        ("RoleName", "r"),
        ("PolicyName", "inline"),
    ];
    assert_eq!(iam(&h, &del).await.status, 200);
    assert_eq!(
        iam(&h, &[("Action", "DeleteRole"), ("RoleName", "r")])
            .await
            .status,
        200
    );
    assert_eq!(
        iam(&h, &[("Action", "DeletePolicy"), ("PolicyArn", &arn)])
            .await
            .status,
        200
    );
    let r = iam(&h, &[("Action", "GetPolicy"), ("PolicyArn", &arn)]).await;
    assert_error(
        &r,
        404,
        "NoSuchEntity",
        &format!("Policy {arn} was not found."),
    );
}
