//! SNS HTTP/S delivery (issue 4) against a real HTTP subscriber running in the test: the
//! SubscriptionConfirmation POST and its headers, signatures verified against the certificate
//! fetched from SigningCertURL (SignatureVersion 1 and 2), confirmation by visiting SubscribeURL
//! or by ConfirmSubscription, Notifications (envelope and raw), UnsubscribeURL and the
//! UnsubscribeConfirmation, and failed answers in the delivery log. `h.advance(0.0)` waits for
//! the HTTP deliveries in flight, so nothing sleeps.

use crate::harness::{Harness, xml_text};
use crate::sns_publish::deliveries;
use crate::sns_subscriptions::sub_attributes;
use crate::sns_topics::{create_topic, sdk_error};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use base64::Engine as _;
use http_body_util::{BodyExt, Full};
use rsa::pkcs1v15::{Signature, VerifyingKey};
use rsa::pkcs8::der::{Decode as _, Encode as _, Reader as _, SliceReader, asn1::AnyRef, pem};
use rsa::pkcs8::spki::SubjectPublicKeyInfoRef;
use rsa::signature::Verifier as _;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};

/// One request the subscriber received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// Lower-case names.
    pub headers: HashMap<String, String>,
    pub body: String,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

#[derive(Clone, Default)]
struct Shared {
    received: Arc<Mutex<Vec<Received>>>,
    status: Arc<AtomicU16>,
}

/// A real HTTP endpoint on 127.0.0.1:0 that records every request and answers `status`.
pub struct Subscriber {
    pub url: String,
    shared: Shared,
    server: tokio::task::JoinHandle<()>,
}

impl Subscriber {
    pub async fn start() -> Subscriber {
        async fn record(
            State(shared): State<Shared>,
            method: axum::http::Method,
            uri: Uri,
            headers: HeaderMap,
            body: String,
        ) -> StatusCode {
            let headers = headers
                .iter()
                .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap().to_string()))
                .collect();
            shared.received.lock().unwrap().push(Received {
                method: method.to_string(),
                path: uri.to_string(),
                headers,
                body,
            });
            StatusCode::from_u16(shared.status.load(Ordering::SeqCst)).unwrap()
        }
        let shared = Shared::default();
        shared.status.store(200, Ordering::SeqCst);
        let app = axum::Router::new()
            .fallback(record)
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Subscriber {
            url,
            shared,
            server,
        }
    }

    /// Everything received so far, and forget it.
    pub fn take(&self) -> Vec<Received> {
        std::mem::take(&mut *self.shared.received.lock().unwrap())
    }

    /// The status the next requests are answered with.
    /// Lets the emulator send its SubscriptionConfirmation here, and confirms it by following
    /// its SubscribeURL, as an endpoint's owner does.
    pub async fn confirm(&self, h: &Harness) {
        h.advance(0.0).await;
        let confirmation = self
            .take()
            .pop()
            .expect("a SubscriptionConfirmation")
            .json();
        let (status, _, _) = http_get(confirmation["SubscribeURL"].as_str().unwrap()).await;
        assert_eq!(status, 200);
    }

    pub fn answer(&self, status: u16) {
        self.shared.status.store(status, Ordering::SeqCst);
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// A GET with a plain HTTP client, as a subscriber's code or a browser does it.
pub async fn http_get(url: &str) -> (u16, HashMap<String, String>, String) {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<bytes::Bytes>>();
    let req = hyper::Request::get(url)
        .body(Full::new(bytes::Bytes::new()))
        .unwrap();
    let res = client.request(req).await.unwrap();
    let status = res.status().as_u16();
    let headers = res
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap().to_string()))
        .collect();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    (status, headers, String::from_utf8(body.to_vec()).unwrap())
}

/// The certificate at SigningCertURL, as PEM.
pub async fn fetch_certificate(url: &str) -> String {
    let (status, _, pem) = http_get(url).await;
    assert_eq!(status, 200, "{url}: {pem}");
    assert!(pem.starts_with("-----BEGIN CERTIFICATE-----"), "{pem}");
    pem
}

/// The public key inside an X.509 certificate: Certificate → tbsCertificate →
/// subjectPublicKeyInfo (RFC 5280 §4.1), read with the `der` types `rsa` re-exports.
fn certificate_public_key(cert_pem: &str) -> rsa::PublicKey {
    let (label, der) = pem::decode_vec(cert_pem.as_bytes()).unwrap();
    assert_eq!(label, "CERTIFICATE");
    let cert = AnyRef::from_der(&der).unwrap();
    let mut cert_fields = SliceReader::new(cert.value()).unwrap();
    let tbs: AnyRef<'_> = cert_fields.decode().unwrap();
    let mut r = SliceReader::new(tbs.value()).unwrap();
    // [0] version, serialNumber, signature, issuer, validity, subject, then the key.
    for _ in 0..6 {
        let _: AnyRef<'_> = r.decode().unwrap();
    }
    let spki_any: AnyRef<'_> = r.decode().unwrap();
    let spki_der = spki_any.to_der().unwrap();
    let spki = SubjectPublicKeyInfoRef::from_der(&spki_der).unwrap();
    rsa::PublicKey::try_from(spki).unwrap()
}

/// Verifies an SNS message as AWS tells subscribers to (docs/sns.md, "Signatures"): the signed
/// fields of its Type, "name\nvalue\n" in byte order, SHA1withRSA for version 1, SHA256withRSA for
/// 2.
pub fn verify_signature(doc: &Value, cert_pem: &str) {
    check_signature(doc, cert_pem)
        .unwrap_or_else(|e| panic!("signature does not verify ({e}): {doc}"));
}

fn check_signature(doc: &Value, cert_pem: &str) -> Result<(), rsa::signature::Error> {
    let names: &[&str] = match doc["Type"].as_str().unwrap() {
        "Notification" => &[
            "Message",
            "MessageId",
            "Subject",
            "Timestamp",
            "TopicArn",
            "Type",
        ],
        _ => &[
            "Message",
            "MessageId",
            "SubscribeURL",
            "Timestamp",
            "Token",
            "TopicArn",
            "Type",
        ],
    };
    let mut text = String::new();
    for name in names {
        if let Some(value) = doc.get(*name).and_then(Value::as_str) {
            text.push_str(&format!("{name}\n{value}\n"));
        }
    }
    let key = certificate_public_key(cert_pem);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(doc["Signature"].as_str().unwrap())
        .unwrap();
    let signature = Signature::try_from(bytes.as_slice()).unwrap();
    match doc["SignatureVersion"].as_str().unwrap() {
        "1" => VerifyingKey::<sha1::Sha1>::new(key).verify(text.as_bytes(), &signature),
        "2" => VerifyingKey::<sha2::Sha256>::new(key).verify(text.as_bytes(), &signature),
        other => panic!("SignatureVersion {other}"),
    }
}

/// The keys of a JSON document in the order they are written.
fn key_order(body: &str) -> Vec<String> {
    // The documents are flat objects of strings (and MessageAttributes): read the top level.
    let doc: Value = serde_json::from_str(body).unwrap();
    let mut keys: Vec<(usize, String)> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(|k| {
            (
                body.find(&format!("{}:", Value::String(k.clone())))
                    .unwrap(),
                k.clone(),
            )
        })
        .collect();
    keys.sort();
    keys.into_iter().map(|(_, k)| k).collect()
}

fn assert_sns_headers(r: &Received, kind: &str, topic: &str, doc: &Value) {
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/hook");
    assert_eq!(r.header("x-amz-sns-message-type"), Some(kind));
    assert_eq!(r.header("x-amz-sns-message-id"), doc["MessageId"].as_str());
    assert_eq!(r.header("x-amz-sns-topic-arn"), Some(topic));
    assert_eq!(r.header("content-type"), Some("text/plain; charset=UTF-8"));
    assert_eq!(
        r.header("user-agent"),
        Some("Amazon Simple Notification Service Agent")
    );
}

#[tokio::test]
async fn an_http_subscriber_confirms_receives_signed_notifications_and_unsubscribes() {
    let h = Harness::start().await;
    let sns = h.sns();
    let hook = Subscriber::start().await;
    let topic = create_topic(&sns, "orders", &[]).await;
    let shown = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("http")
        .endpoint(&hook.url)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    assert_eq!(shown, "pending confirmation");
    h.advance(0.0).await;

    // The SubscriptionConfirmation (docs/sns.md, "Confirmation").
    let got = hook.take();
    assert_eq!(got.len(), 1, "{got:#?}");
    let confirmation = got[0].json();
    assert_sns_headers(&got[0], "SubscriptionConfirmation", &topic, &confirmation);
    assert_eq!(got[0].header("x-amz-sns-subscription-arn"), None);
    assert_eq!(got[0].header("x-amz-sns-rawdelivery"), None);
    assert_eq!(
        key_order(&got[0].body),
        [
            "Type",
            "MessageId",
            "Token",
            "TopicArn",
            "Message",
            "SubscribeURL",
            "Timestamp",
            "SignatureVersion",
            "Signature",
            "SigningCertURL"
        ]
    );
    assert_eq!(confirmation["Type"], "SubscriptionConfirmation");
    assert_eq!(confirmation["TopicArn"], topic.as_str());
    assert_eq!(
        confirmation["Message"],
        format!(
            "You have chosen to subscribe to the topic {topic}.\nTo confirm the subscription, visit the SubscribeURL included in this message."
        )
        .as_str()
    );
    let token = confirmation["Token"].as_str().unwrap();
    let subscribe_url = confirmation["SubscribeURL"].as_str().unwrap();
    assert_eq!(
        subscribe_url,
        format!(
            "{}/?Action=ConfirmSubscription&TopicArn={topic}&Token={token}",
            h.url()
        )
    );
    assert_eq!(confirmation["SignatureVersion"], "1");
    let cert_url = confirmation["SigningCertURL"].as_str().unwrap();
    let cert = fetch_certificate(cert_url).await;
    verify_signature(&confirmation, &cert);
    // A tampered message does not verify.
    let mut forged = confirmation.clone();
    forged["SubscribeURL"] = Value::String("http://evil.example/".into());
    assert!(check_signature(&forged, &cert).is_err());

    // Visiting SubscribeURL confirms, and answers the XML AWS documents (docs/sns.md, "Visiting
    // SubscribeURL").
    let (status, _, xml) = http_get(subscribe_url).await;
    assert_eq!(status, 200, "{xml}");
    let xml = xml
        .strip_prefix(r#"<?xml version="1.0" encoding="UTF-8"?>"#)
        .unwrap_or(&xml)
        .to_string();
    assert!(
        xml.starts_with(
            "<ConfirmSubscriptionResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\"><ConfirmSubscriptionResult><SubscriptionArn>"
        ),
        "{xml}"
    );
    let sub = xml_text(&xml, "SubscriptionArn").unwrap();
    assert!(sub.starts_with(&format!("{topic}:")), "{sub}");
    assert!(xml_text(&xml, "RequestId").is_some());
    let a = sub_attributes(&sns, &sub).await;
    assert_eq!(a["PendingConfirmation"], "false");
    assert_eq!(a["ConfirmationWasAuthenticated"], "false");
    assert_eq!(a["Endpoint"], hook.url);
    // A bad token in the URL is an XML ErrorResponse.
    let (status, _, xml) = http_get(&format!(
        "{}/?Action=ConfirmSubscription&TopicArn={topic}&Token=abc123",
        h.url()
    ))
    .await;
    assert_eq!(status, 400);
    assert_eq!(xml_text(&xml, "Code").as_deref(), Some("InvalidParameter"));
    assert_eq!(
        xml_text(&xml, "Message").as_deref(),
        Some("Invalid parameter: Token")
    );

    // A Notification, signed with SHA1 (SignatureVersion 1, the default).
    let id = sns
        .publish()
        .topic_arn(&topic)
        .subject("Greetings")
        .message("hello")
        .message_attributes("k", crate::sns_publish::string_attr("v"))
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    h.advance(0.0).await;
    let got = hook.take();
    assert_eq!(got.len(), 1, "{got:#?}");
    let note = got[0].json();
    assert_sns_headers(&got[0], "Notification", &topic, &note);
    assert_eq!(got[0].header("x-amz-sns-message-id"), Some(id.as_str()));
    assert_eq!(
        got[0].header("x-amz-sns-subscription-arn"),
        Some(sub.as_str())
    );
    assert_eq!(got[0].header("x-amz-sns-rawdelivery"), None);
    assert_eq!(
        key_order(&got[0].body),
        [
            "Type",
            "MessageId",
            "TopicArn",
            "Subject",
            "Message",
            "Timestamp",
            "SignatureVersion",
            "Signature",
            "SigningCertURL",
            "UnsubscribeURL",
            "MessageAttributes"
        ]
    );
    assert_eq!(note["Message"], "hello");
    assert_eq!(note["Subject"], "Greetings");
    assert_eq!(note["SignatureVersion"], "1");
    verify_signature(&note, &cert);
    let records = deliveries(&h, &format!("messageId={id}")).await;
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["outcome"], "delivered");
    assert_eq!(records[0]["status"], 200);
    assert_eq!(records[0]["target"], hook.url.as_str());
    assert_eq!(records[0]["protocol"], "http");

    // SignatureVersion 2: SHA256withRSA.
    sns.set_topic_attributes()
        .topic_arn(&topic)
        .attribute_name("SignatureVersion")
        .attribute_value("2")
        .send()
        .await
        .unwrap();
    sns.publish()
        .topic_arn(&topic)
        .message("signed with sha256")
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    let note = hook.take()[0].json();
    assert_eq!(note["SignatureVersion"], "2");
    assert!(note.get("Subject").is_none());
    verify_signature(&note, &cert);
    let mut as_v1 = note.clone();
    as_v1["SignatureVersion"] = Value::String("1".into());
    assert!(check_signature(&as_v1, &cert).is_err());

    // Raw delivery: the bare message and x-amz-sns-rawdelivery.
    sns.set_subscription_attributes()
        .subscription_arn(&sub)
        .attribute_name("RawMessageDelivery")
        .attribute_value("true")
        .send()
        .await
        .unwrap();
    sns.publish()
        .topic_arn(&topic)
        .message("just this")
        .message_attributes("k", crate::sns_publish::string_attr("v"))
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    let got = hook.take();
    assert_eq!(got[0].body, "just this");
    assert_eq!(got[0].header("x-amz-sns-rawdelivery"), Some("true"));
    assert_eq!(
        got[0].header("x-amz-sns-message-type"),
        Some("Notification")
    );
    assert_eq!(
        got[0].header("x-amz-sns-subscription-arn"),
        Some(sub.as_str())
    );

    // UnsubscribeURL deletes the subscription; an UnsubscribeConfirmation follows.
    let unsubscribe_url = note["UnsubscribeURL"].as_str().unwrap();
    assert_eq!(
        unsubscribe_url,
        format!("{}/?Action=Unsubscribe&SubscriptionArn={sub}", h.url())
    );
    let (status, _, xml) = http_get(unsubscribe_url).await;
    assert_eq!(status, 200, "{xml}");
    assert!(xml.contains("<UnsubscribeResponse xmlns="), "{xml}");
    let (code, _) = sdk_error(
        sns.get_subscription_attributes()
            .subscription_arn(&sub)
            .send()
            .await,
    );
    assert_eq!(code, "NotFound");
    h.advance(0.0).await;
    let got = hook.take();
    assert_eq!(got.len(), 1, "{got:#?}");
    let bye = got[0].json();
    assert_sns_headers(&got[0], "UnsubscribeConfirmation", &topic, &bye);
    assert_eq!(
        got[0].header("x-amz-sns-subscription-arn"),
        Some(sub.as_str())
    );
    assert_eq!(bye["Type"], "UnsubscribeConfirmation");
    assert_eq!(
        bye["Message"],
        format!(
            "You have chosen to deactivate subscription {sub}.\nTo cancel this operation and restore the subscription, visit the SubscribeURL included in this message."
        )
        .as_str()
    );
    assert_eq!(bye["SignatureVersion"], "2");
    verify_signature(&bye, &cert);
    // Nothing more arrives.
    sns.publish()
        .topic_arn(&topic)
        .message("after")
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    assert!(hook.take().is_empty());
}

#[tokio::test]
async fn confirm_subscription_with_the_posted_token_authenticates_the_confirmation() {
    let h = Harness::start().await;
    let sns = h.sns();
    let hook = Subscriber::start().await;
    let topic = create_topic(&sns, "orders", &[("SignatureVersion", "2")]).await;
    let arn = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("http")
        .endpoint(&hook.url)
        .return_subscription_arn(true)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    h.advance(0.0).await;
    let confirmation = hook.take()[0].json();
    assert_eq!(confirmation["SignatureVersion"], "2");
    let cert = fetch_certificate(confirmation["SigningCertURL"].as_str().unwrap()).await;
    verify_signature(&confirmation, &cert);
    // Nothing is sent before confirmation.
    sns.publish()
        .topic_arn(&topic)
        .message("early")
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    assert!(hook.take().is_empty());

    let confirmed = sns
        .confirm_subscription()
        .topic_arn(&topic)
        .token(confirmation["Token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(confirmed.subscription_arn.as_deref(), Some(arn.as_str()));
    let a = sub_attributes(&sns, &arn).await;
    assert_eq!(a["PendingConfirmation"], "false");
    assert_eq!(a["ConfirmationWasAuthenticated"], "true");
    sns.publish()
        .topic_arn(&topic)
        .message("now")
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    let got = hook.take();
    assert_eq!(got.len(), 1);
    verify_signature(&got[0].json(), &cert);

    // Unsubscribe through the API also tells the endpoint.
    sns.unsubscribe()
        .subscription_arn(&arn)
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    let got = hook.take();
    assert_eq!(
        got[0].header("x-amz-sns-message-type"),
        Some("UnsubscribeConfirmation")
    );
}

#[tokio::test]
async fn failed_answers_and_refused_connections_are_in_the_delivery_log() {
    let h = Harness::start().await;
    let sns = h.sns();
    let hook = Subscriber::start().await;
    let topic = create_topic(&sns, "orders", &[]).await;
    sns.subscribe()
        .topic_arn(&topic)
        .protocol("http")
        .endpoint(&hook.url)
        .send()
        .await
        .unwrap();
    h.advance(0.0).await;
    let confirmation = hook.take()[0].json();
    let sub = sns
        .confirm_subscription()
        .topic_arn(&topic)
        .token(confirmation["Token"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();

    for (status, outcome) in [
        (500, "retryable"),
        (503, "retryable"),
        (429, "retryable"),
        (400, "permanent"),
        (404, "permanent"),
    ] {
        hook.answer(status);
        let id = sns
            .publish()
            .topic_arn(&topic)
            .message(format!("answered {status}"))
            .send()
            .await
            .unwrap()
            .message_id
            .unwrap();
        h.advance(0.0).await;
        assert_eq!(hook.take().len(), 1);
        let records = deliveries(&h, &format!("messageId={id}")).await;
        assert_eq!(records[0]["event"], "attempt", "{records:#?}");
        assert_eq!(records[0]["source"], sub.as_str());
        assert_eq!(records[0]["target"], hook.url.as_str());
        assert_eq!(records[0]["outcome"], outcome, "{status}");
        assert_eq!(records[0]["status"], status);
        if outcome == "retryable" {
            // AWS's HTTP default: 3 retries 20 s apart (with jitter: 10 to 20 s).
            assert_ne!(records[0]["nextAttemptAt"], Value::Null);
            h.advance(60.0).await;
            assert_eq!(hook.take().len(), 3, "three retries");
        } else {
            assert_eq!(records[0]["nextAttemptAt"], Value::Null);
        }
        let records = deliveries(&h, &format!("messageId={id}")).await;
        assert_eq!(records.last().unwrap()["event"], "discarded");
    }

    // Nobody listening: the connection is refused, a retryable failure with no status.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let url = format!("http://{closed}/hook");
    let pending = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("http")
        .endpoint(&url)
        .return_subscription_arn(true)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    h.advance(0.0).await;
    let records = deliveries(&h, &format!("source={pending}")).await;
    assert_eq!(records[0]["event"], "attempt", "{records:#?}");
    assert_eq!(records[0]["target"], url.as_str());
    assert_eq!(records[0]["outcome"], "retryable");
    assert_eq!(records[0]["status"], Value::Null);
}
