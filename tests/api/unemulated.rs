//! Services switchyard does not emulate, asked through an AWS SDK and on the wire: each answers
//! 501 NotImplemented in its own protocol's error shape, naming itself and the emulated services.

use crate::harness::Harness;

#[tokio::test]
async fn dynamodb_through_its_sdk_is_told_switchyard_does_not_emulate_it() {
    let h = Harness::start().await;
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .endpoint_url(h.url())
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
            "test", "test", None, None, "test",
        ))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .build();
    let dynamodb = aws_sdk_dynamodb::Client::from_conf(config);
    let err = dynamodb
        .list_tables()
        .send()
        .await
        .expect_err("not emulated");
    let raw = err.raw_response().expect("an answer from switchyard");
    assert_eq!(raw.status().as_u16(), 501);
    let service_err = err.into_service_error();
    let meta = aws_sdk_dynamodb::error::ProvideErrorMetadata::meta(&service_err);
    assert_eq!(meta.code(), Some("NotImplemented"));
    let message = meta.message().unwrap_or_default();
    assert!(
        message.starts_with("switchyard does not emulate the AWS service 'dynamodb'")
            && message.contains("it emulates sqs, sns, events"),
        "{message}"
    );
    // The server goes on serving what it emulates.
    h.sqs().list_queues().send().await.expect("sqs answers");
}

#[tokio::test]
async fn s3_on_the_wire_gets_an_s3_error_document() {
    let h = Harness::start().await;
    let auth = "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/s3/aws4_request, \
                SignedHeaders=host;x-amz-date, Signature=00";
    let reply = h
        .request(
            "GET",
            "/",
            &[("authorization", auth), ("x-amz-date", "20260101T000000Z")],
            "",
        )
        .await;
    assert_eq!(reply.status, 501, "{}", reply.body);
    assert_eq!(reply.header("content-type"), Some("application/xml"));
    assert!(
        reply.body.contains("<Error><Code>NotImplemented</Code><Message>switchyard does not emulate the AWS service &apos;s3&apos;"),
        "{}",
        reply.body
    );
    // An unsigned request is no AWS call for any service: switchyard's own 404, as before.
    let unsigned = h.request("GET", "/", &[], "").await;
    assert_eq!(unsigned.status, 404, "{}", unsigned.body);
}
