//! Identity from SigV4: signatures checked with `AuthMode::Verify` (AWS's own error codes), and
//! with checking off, the account from a 12-digit access key and the region from the scope.

use crate::harness::{Harness, Reply, xml_text};
use aws_credential_types::Credentials;
use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sigv4::http_request::{
    SignableBody, SignableRequest, SignatureLocation, SigningSettings, sign,
};
use aws_sigv4::sign::v4;
use std::time::{Duration, SystemTime};
use switchyard::{AuthMode, Config};

const FORM: &str = "application/x-www-form-urlencoded; charset=utf-8";

async fn verifying(credentials: Vec<(String, String)>) -> Harness {
    Harness::with(Config {
        auth: AuthMode::Verify,
        credentials,
        ..Config::for_tests()
    })
    .await
}

/// Signatures are dated by the wall clock, as AWS checks them, not by virtual time.
#[allow(clippy::disallowed_methods)]
fn wall_now() -> SystemTime {
    SystemTime::now()
}

/// Header or query parameter names and values.
type Pairs = Vec<(String, String)>;

/// How a hand-signed request is signed.
struct Signer<'a> {
    key: &'a str,
    secret: &'a str,
    region: &'a str,
    service: &'a str,
    time: SystemTime,
    /// `Some(expiry)`: presigned in the query string.
    presign: Option<Duration>,
}

impl Signer<'_> {
    fn new(service: &str) -> Signer<'_> {
        Signer {
            key: "AKIDEXAMPLE",
            secret: "test",
            region: "us-east-1",
            service,
            time: wall_now(),
            presign: None,
        }
    }

    /// Signs `method path_and_query` with `headers` (which must include `host`) and `body`
    /// with `aws-sigv4`; answers the headers and query parameters to add.
    fn sign(
        &self,
        h: &Harness,
        method: &str,
        path_and_query: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> (Pairs, Pairs) {
        let mut settings = SigningSettings::default();
        if let Some(expires) = self.presign {
            settings.signature_location = SignatureLocation::QueryParams;
            settings.expires_in = Some(expires);
        }
        let identity = Credentials::new(self.key, self.secret, None, None, "test").into();
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(self.region)
            .name(self.service)
            .time(self.time)
            .settings(settings)
            .build()
            .expect("signing params")
            .into();
        let uri = format!("{}{}", h.url(), path_and_query);
        let request = SignableRequest::new(
            method,
            uri,
            headers.iter().copied(),
            SignableBody::Bytes(body),
        )
        .expect("signable request");
        let (instructions, _) = sign(request, &params).expect("signs").into_parts();
        let (headers, params) = instructions.into_parts();
        (
            headers
                .iter()
                .map(|h| (h.name().to_string(), h.value().to_string()))
                .collect(),
            params
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.into_owned()))
                .collect(),
        )
    }

    /// A signed form POST to `/`.
    async fn post_form(&self, h: &Harness, params: &[(&str, &str)]) -> Reply {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params)
            .finish();
        let host = h.emulator.addr().to_string();
        let headers = [("host", host.as_str()), ("content-type", FORM)];
        let (added, _) = self.sign(h, "POST", "/", &headers, body.as_bytes());
        let mut all: Vec<(&str, &str)> = headers.to_vec();
        all.extend(added.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        h.request("POST", "/", &all, body).await
    }
}

impl Signer<'_> {
    /// A signed AWS JSON POST to `/` for `target` (`AmazonSQS.ListQueues`).
    async fn post_json(&self, h: &Harness, content_type: &str, target: &str, body: &str) -> Reply {
        let host = h.emulator.addr().to_string();
        let headers = [
            ("host", host.as_str()),
            ("content-type", content_type),
            ("x-amz-target", target),
        ];
        let (added, _) = self.sign(h, "POST", "/", &headers, body.as_bytes());
        let mut all: Vec<(&str, &str)> = headers.to_vec();
        all.extend(added.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        h.request("POST", "/", &all, body.to_string()).await
    }
}

/// The `Code` of a Query error with `status`.
#[track_caller]
fn xml_code(r: &Reply, status: u16) -> String {
    assert_eq!(r.status, status, "{}", r.body);
    assert!(r.body.contains("<ErrorResponse"), "{}", r.body);
    xml_text(&r.body, "Code").expect("Code")
}

#[tokio::test]
async fn the_sdk_signs_with_the_default_secret() {
    let h = verifying(Vec::new()).await;
    let url = h
        .sqs()
        .create_queue()
        .queue_name("signed")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    assert!(url.ends_with("/000000000000/signed"), "{url}");

    let err = h
        .sqs_signed("test", "wrong", "us-east-1")
        .create_queue()
        .queue_name("unsigned")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.raw_response().map(|r| r.status().as_u16()), Some(403));
    assert_eq!(
        err.into_service_error().code(),
        Some("SignatureDoesNotMatch")
    );
    let listed = h.sqs().list_queues().send().await.unwrap();
    assert_eq!(
        listed.queue_urls().len(),
        1,
        "the refused call created nothing"
    );
}

#[tokio::test]
async fn registered_credentials_need_their_own_secret() {
    let key = "AKIAEXAMPLE123456789";
    let h = verifying(vec![(key.into(), "s3cret".into())]).await;
    h.sqs_signed(key, "s3cret", "us-east-1")
        .create_queue()
        .queue_name("mine")
        .send()
        .await
        .unwrap();
    for secret in ["test", "wrong", "s3cret2"] {
        let err = h
            .sqs_signed(key, secret, "us-east-1")
            .list_queues()
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.raw_response().map(|r| r.status().as_u16()), Some(403));
        assert_eq!(
            err.into_service_error().code(),
            Some("SignatureDoesNotMatch"),
            "{secret}"
        );
    }
    // Other keys keep the default secret.
    h.sqs_signed("AKIAOTHER", "test", "us-east-1")
        .list_queues()
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn unsigned_and_malformed_requests_are_refused() {
    let h = verifying(Vec::new()).await;
    let r = h
        .query(&[("Action", "ListQueues"), ("Version", "2012-11-05")])
        .await;
    assert_eq!(xml_code(&r, 403), "MissingAuthenticationToken");
    let r = h
        .query(&[("Action", "GetCallerIdentity"), ("Version", "2011-06-15")])
        .await;
    assert_eq!(xml_code(&r, 403), "MissingAuthenticationToken");

    let host = h.emulator.addr().to_string();
    let body = "Action=ListQueues&Version=2012-11-05";
    for key in ["bad!key", "AKID EXAMPLE", "AKID%2F", &"A".repeat(129)] {
        let auth = format!(
            "AWS4-HMAC-SHA256 Credential={key}/20261130/us-east-1/sqs/aws4_request, \
             SignedHeaders=content-type;host;x-amz-date, Signature=0123456789abcdef"
        );
        let headers = [
            ("host", host.as_str()),
            ("content-type", FORM),
            ("x-amz-date", "20261130T070000Z"),
            ("authorization", auth.as_str()),
        ];
        let r = h.request("POST", "/", &headers, body).await;
        assert_eq!(xml_code(&r, 403), "InvalidClientTokenId", "{key}");
    }
    h.assert_alive().await;
}

#[tokio::test]
async fn hand_signed_requests_must_be_fresh() {
    let h = verifying(Vec::new()).await;
    let params = [
        ("Action", "CreateQueue"),
        ("Version", "2012-11-05"),
        ("QueueName", "hand-signed"),
    ];
    let now = Signer::new("sqs");
    let r = now.post_form(&h, &params).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        xml_text(&r.body, "QueueUrl").is_some_and(|u| u.ends_with("/hand-signed")),
        "{}",
        r.body
    );

    let stale = Signer {
        time: wall_now() - Duration::from_secs(20 * 60),
        ..Signer::new("sqs")
    };
    let r = stale.post_form(&h, &params).await;
    assert_eq!(xml_code(&r, r.status), "RequestExpired");
    assert!(r.status == 400 || r.status == 403, "{}", r.status);

    let early = Signer {
        time: wall_now() + Duration::from_secs(20 * 60),
        ..Signer::new("sqs")
    };
    let r = early.post_form(&h, &params).await;
    assert_eq!(xml_code(&r, r.status), "RequestExpired");

    // Signed for one body, sent with another.
    let host = h.emulator.addr().to_string();
    let headers = [("host", host.as_str()), ("content-type", FORM)];
    let (added, _) = now.sign(
        &h,
        "POST",
        "/",
        &headers,
        b"Action=ListQueues&Version=2012-11-05",
    );
    let mut all: Vec<(&str, &str)> = headers.to_vec();
    all.extend(added.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let r = h
        .request(
            "POST",
            "/",
            &all,
            "Action=DeleteQueue&Version=2012-11-05&QueueUrl=x",
        )
        .await;
    assert_eq!(xml_code(&r, 403), "SignatureDoesNotMatch");
}

/// A signature is for one service: one whose credential scope names another (s3, or another
/// switchyard service) is refused before it is checked, whatever the protocol.
#[tokio::test]
async fn a_scope_naming_another_service_is_refused() {
    let h = verifying(Vec::new()).await;
    let wording =
        |service: &str| format!("Credential should be scoped to correct service: '{service}'. ");
    let query = [
        ("sqs", [("Action", "ListQueues"), ("Version", "2012-11-05")]),
        ("sns", [("Action", "ListTopics"), ("Version", "2010-03-31")]),
        (
            "sts",
            [("Action", "GetCallerIdentity"), ("Version", "2011-06-15")],
        ),
        ("iam", [("Action", "ListRoles"), ("Version", "2010-05-08")]),
    ];
    for (service, params) in query {
        let r = Signer::new(service).post_form(&h, &params).await;
        assert_eq!(r.status, 200, "{service}: {}", r.body);
        for other in ["s3", "execute-api"] {
            let r = Signer::new(other).post_form(&h, &params).await;
            assert_eq!(
                xml_code(&r, 403),
                "SignatureDoesNotMatch",
                "{service}/{other}"
            );
            assert_eq!(xml_text(&r.body, "Message"), Some(wording(service)));
        }
    }
    // A queue URL path names SQS, whatever the scope says.
    let queue = h
        .sqs()
        .create_queue()
        .queue_name("scoped")
        .send()
        .await
        .unwrap();
    let path = url_path(queue.queue_url().unwrap());
    let host = h.emulator.addr().to_string();
    let headers = [("host", host.as_str()), ("content-type", FORM)];
    let body = "Action=GetQueueAttributes&Version=2012-11-05";
    let (added, _) = Signer::new("s3").sign(&h, "POST", &path, &headers, body.as_bytes());
    let mut all: Vec<(&str, &str)> = headers.to_vec();
    all.extend(added.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let r = h.request("POST", &path, &all, body).await;
    assert_eq!(xml_code(&r, 403), "SignatureDoesNotMatch");
    assert_eq!(xml_text(&r.body, "Message"), Some(wording("sqs")));

    // AWS JSON: SQS and EventBridge.
    let json = [
        ("sqs", "application/x-amz-json-1.0", "AmazonSQS.ListQueues"),
        (
            "events",
            "application/x-amz-json-1.1",
            "AWSEvents.ListRules",
        ),
    ];
    for (service, content_type, target) in json {
        let r = Signer::new(service)
            .post_json(&h, content_type, target, "{}")
            .await;
        assert_eq!(r.status, 200, "{service}: {}", r.body);
        let r = Signer::new("s3")
            .post_json(&h, content_type, target, "{}")
            .await;
        assert_eq!(r.status, 403, "{service}: {}", r.body);
        let body = r.json();
        assert!(
            body["__type"]
                .as_str()
                .unwrap()
                .ends_with("SignatureDoesNotMatch"),
            "{service}: {}",
            r.body
        );
        assert_eq!(body["message"], wording(service), "{service}");
    }
    // Nothing was created by the refused calls.
    let listed = h.sqs().list_queues().send().await.unwrap();
    assert_eq!(listed.queue_urls().len(), 1);
}

/// The path of a URL (`http://host:port/000000000000/q` → `/000000000000/q`).
fn url_path(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.find('/')
        .map_or("/".to_string(), |i| rest[i..].to_string())
}

#[tokio::test]
async fn presigned_requests_work() {
    let h = verifying(Vec::new()).await;
    let signer = Signer {
        presign: Some(Duration::from_secs(300)),
        ..Signer::new("sts")
    };
    let path = "/?Action=GetCallerIdentity&Version=2011-06-15";
    let host = h.emulator.addr().to_string();
    let headers = [("host", host.as_str())];
    let (added_headers, added_params) = signer.sign(&h, "GET", path, &headers, b"");
    assert!(added_headers.is_empty(), "{added_headers:?}");
    let mut url = path.to_string();
    for (k, v) in &added_params {
        url.push('&');
        url.push_str(k);
        url.push('=');
        url.extend(form_urlencoded::byte_serialize(v.as_bytes()));
    }
    let r = h.request("GET", &url, &headers, "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        xml_text(&r.body, "Account").as_deref(),
        Some("000000000000")
    );

    // The same URL with its signature changed is refused.
    let tampered = url.replace("X-Amz-Signature=", "X-Amz-Signature=0");
    let r = h.request("GET", &tampered, &headers, "").await;
    assert_eq!(xml_code(&r, 403), "SignatureDoesNotMatch");

    // A presigned URL that expired.
    let expired = Signer {
        presign: Some(Duration::from_secs(60)),
        time: wall_now() - Duration::from_secs(120),
        ..Signer::new("sts")
    };
    let (_, params) = expired.sign(&h, "GET", path, &headers, b"");
    let mut url = path.to_string();
    for (k, v) in &params {
        url.push_str(&format!(
            "&{k}={}",
            form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>()
        ));
    }
    let r = h.request("GET", &url, &headers, "").await;
    assert_eq!(xml_code(&r, r.status), "RequestExpired");
}

#[tokio::test]
async fn without_verification_unsigned_requests_are_served() {
    let h = Harness::start().await;
    let r = h
        .query(&[("Action", "ListQueues"), ("Version", "2012-11-05")])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = h
        .query(&[("Action", "GetCallerIdentity"), ("Version", "2011-06-15")])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        xml_text(&r.body, "Account").as_deref(),
        Some("000000000000")
    );
    // Wrong secrets are not checked either.
    h.sqs_signed("test", "wrong", "us-east-1")
        .list_queues()
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn a_twelve_digit_access_key_is_the_account() {
    let h = Harness::start().await;
    let me = h
        .sts_as("111122223333")
        .get_caller_identity()
        .send()
        .await
        .unwrap();
    assert_eq!(me.account(), Some("111122223333"));
    assert_eq!(me.arn(), Some("arn:aws:iam::111122223333:root"));
    let other = h
        .sts_as("AKIDEXAMPLE")
        .get_caller_identity()
        .send()
        .await
        .unwrap();
    assert_eq!(other.account(), Some("000000000000"));
    // Not twelve digits: the default account.
    let other = h
        .sts_as("1111222233334")
        .get_caller_identity()
        .send()
        .await
        .unwrap();
    assert_eq!(other.account(), Some("000000000000"));

    let mine = h.sqs_as("111122223333", "us-east-1");
    let url = mine
        .create_queue()
        .queue_name("per-account")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    assert!(url.contains("/111122223333/"), "{url}");
    // Another account does not see it by name.
    let err = h
        .sqs()
        .get_queue_url()
        .queue_name("per-account")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_queue_does_not_exist(), "{err:?}");
    assert!(
        h.sqs()
            .list_queues()
            .send()
            .await
            .unwrap()
            .queue_urls()
            .is_empty()
    );
}

#[tokio::test]
async fn the_region_comes_from_the_signature() {
    let h = Harness::start().await;
    h.sqs()
        .create_queue()
        .queue_name("east")
        .send()
        .await
        .unwrap();
    let west = h.sqs_as("test", "eu-west-1");
    let err = west
        .get_queue_url()
        .queue_name("east")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_queue_does_not_exist(), "{err:?}");
    assert!(
        west.list_queues()
            .send()
            .await
            .unwrap()
            .queue_urls()
            .is_empty()
    );
    let found = h
        .sqs()
        .get_queue_url()
        .queue_name("east")
        .send()
        .await
        .unwrap();
    assert!(found.queue_url().is_some_and(|u| u.ends_with("/east")));
}

/// Presigned URLs made by hand with values no signer writes are refused with AWS's errors, and
/// the server goes on serving (each of these once panicked the request's task).
#[tokio::test]
async fn hand_made_presigned_urls_are_refused_with_4xx() {
    let h = verifying(Vec::new()).await;
    let host = h.emulator.addr().to_string();
    let headers = [("host", host.as_str())];
    let credential = "X-Amz-Credential=AKIDEXAMPLE%2F20261130%2Fus-east-1%2Fsts%2Faws4_request";
    // Now, as `X-Amz-Date` writes it, so that the last case gets past the check of its time.
    let now_ms = wall_now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let rfc3339 = switchyard::engine::time::format_rfc3339(now_ms);
    let mut amz_date: String = rfc3339
        .chars()
        .filter(char::is_ascii_digit)
        .take(14)
        .collect();
    amz_date.insert(8, 'T');
    amz_date.push('Z');
    let no_host = format!("X-Amz-Date={amz_date}&X-Amz-SignedHeaders=%3B%3B%3B");
    let cases = [
        (
            "X-Amz-Expires=18446744073709551615&X-Amz-Date=20261130T083500Z&X-Amz-SignedHeaders=host",
            "AuthorizationQueryParametersError",
        ),
        (
            "X-Amz-Date=202%C3%A9130T083500Z&X-Amz-SignedHeaders=host",
            "IncompleteSignature",
        ),
        (no_host.as_str(), "IncompleteSignature"),
    ];
    for (params, code) in cases {
        let url = format!(
            "/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Algorithm=AWS4-HMAC-SHA256\
             &{credential}&{params}&X-Amz-Signature=00"
        );
        let r = h.request("GET", &url, &headers, "").await;
        assert!((400..500).contains(&r.status), "{params}: {r:?}");
        assert_eq!(xml_code(&r, r.status), code, "{params}");
    }
    h.assert_alive().await;
}
