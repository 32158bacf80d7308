//! SNS HTTPS delivery (issue 4) against a real HTTPS subscriber running in the test: its
//! certificate comes from a throwaway CA (tests/api/certs/, see the README there) that the emulator
//! trusts through `Config::https_ca` (`--https-ca`). Without that CA the handshake fails and the
//! attempt is a retryable `TlsError` with no status (docs/sns.md, "TLS"). `h.advance(0.0)` waits
//! for the HTTP deliveries in flight, so nothing sleeps.

use crate::harness::Harness;
use crate::sns_http::{Received, fetch_certificate, verify_signature};
use crate::sns_publish::deliveries;
use crate::sns_topics::create_topic;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use switchyard::Config;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

fn cert_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/api/certs")
        .join(name)
}

/// Accepts TCP connections and completes the TLS handshake with the test server certificate;
/// connections whose handshake fails are counted and dropped.
struct TlsListener {
    tcp: TcpListener,
    tls: TlsAcceptor,
    failed: Arc<AtomicUsize>,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((tcp, addr)) = self.tcp.accept().await else {
                continue;
            };
            match self.tls.accept(tcp).await {
                Ok(stream) => return (stream, addr),
                Err(_) => {
                    self.failed.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.tcp.local_addr()
    }
}

/// A real HTTPS endpoint on 127.0.0.1:0 that records every request and answers 200.
struct HttpsSubscriber {
    url: String,
    received: Arc<Mutex<Vec<Received>>>,
    failed_handshakes: Arc<AtomicUsize>,
    server: tokio::task::JoinHandle<()>,
}

impl HttpsSubscriber {
    async fn start() -> HttpsSubscriber {
        async fn record(
            State(received): State<Arc<Mutex<Vec<Received>>>>,
            method: Method,
            uri: Uri,
            headers: HeaderMap,
            body: String,
        ) {
            let headers = headers
                .iter()
                .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap().to_string()))
                .collect();
            received.lock().unwrap().push(Received {
                method: method.to_string(),
                path: uri.to_string(),
                headers,
                body,
            });
        }
        let certs = CertificateDer::pem_file_iter(cert_file("server.pem"))
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let key = PrivateKeyDer::from_pem_file(cert_file("server.key")).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .unwrap();
        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("https://{}/hook", tcp.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let failed_handshakes = Arc::new(AtomicUsize::new(0));
        let listener = TlsListener {
            tcp,
            tls: TlsAcceptor::from(Arc::new(config)),
            failed: failed_handshakes.clone(),
        };
        let app = axum::Router::new()
            .fallback(record)
            .with_state(received.clone());
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        HttpsSubscriber {
            url,
            received,
            failed_handshakes,
            server,
        }
    }

    /// Everything received so far, and forget it.
    fn take(&self) -> Vec<Received> {
        std::mem::take(&mut *self.received.lock().unwrap())
    }
}

impl Drop for HttpsSubscriber {
    fn drop(&mut self) {
        self.server.abort();
    }
}

#[tokio::test]
async fn an_https_subscriber_with_a_trusted_ca_confirms_and_receives_notifications() {
    let h = Harness::with(Config {
        https_ca: Some(cert_file("ca.pem")),
        ..Config::for_tests()
    })
    .await;
    let sns = h.sns();
    let hook = HttpsSubscriber::start().await;
    let topic = create_topic(&sns, "secure", &[]).await;
    let shown = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("https")
        .endpoint(&hook.url)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    assert_eq!(shown, "pending confirmation");
    h.advance(0.0).await;

    // The SubscriptionConfirmation arrives over TLS, signed as over plain HTTP.
    let got = hook.take();
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0].method, "POST");
    assert_eq!(got[0].path, "/hook");
    assert_eq!(
        got[0].header("x-amz-sns-message-type"),
        Some("SubscriptionConfirmation")
    );
    let confirmation = got[0].json();
    assert_eq!(confirmation["Type"], "SubscriptionConfirmation");
    assert_eq!(confirmation["TopicArn"], topic.as_str());
    let cert = fetch_certificate(confirmation["SigningCertURL"].as_str().unwrap()).await;
    verify_signature(&confirmation, &cert);
    assert_eq!(hook.failed_handshakes.load(Ordering::SeqCst), 0);

    let sub = sns
        .confirm_subscription()
        .topic_arn(&topic)
        .token(confirmation["Token"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    let id = sns
        .publish()
        .topic_arn(&topic)
        .subject("tls")
        .message("over TLS")
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    h.advance(0.0).await;

    let got = hook.take();
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(
        got[0].header("x-amz-sns-message-type"),
        Some("Notification")
    );
    assert_eq!(
        got[0].header("x-amz-sns-subscription-arn"),
        Some(sub.as_str())
    );
    let notification = got[0].json();
    assert_eq!(notification["Type"], "Notification");
    assert_eq!(notification["MessageId"], id.as_str());
    assert_eq!(notification["Subject"], "tls");
    assert_eq!(notification["Message"], "over TLS");
    verify_signature(&notification, &cert);

    let records = deliveries(&h, &format!("messageId={id}")).await;
    assert_eq!(records[0]["event"], "attempt", "{records:#?}");
    assert_eq!(records[0]["source"], sub.as_str());
    assert_eq!(records[0]["target"], hook.url.as_str());
    assert_eq!(records[0]["outcome"], "delivered");
    assert_eq!(records[0]["status"], 200);
}

#[tokio::test]
async fn an_https_endpoint_whose_certificate_is_not_trusted_is_a_retryable_tls_failure() {
    // No `https_ca`: the test CA is not among the system's roots.
    let h = Harness::start().await;
    let sns = h.sns();
    let hook = HttpsSubscriber::start().await;
    let topic = create_topic(&sns, "untrusted", &[]).await;
    let pending = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("https")
        .endpoint(&hook.url)
        .return_subscription_arn(true)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    h.advance(0.0).await;

    assert!(hook.take().is_empty(), "nothing gets past the handshake");
    let records = deliveries(&h, &format!("source={pending}")).await;
    assert_eq!(records[0]["event"], "attempt", "{records:#?}");
    assert_eq!(records[0]["target"], hook.url.as_str());
    assert_eq!(records[0]["outcome"], "retryable");
    assert_eq!(records[0]["status"], Value::Null);
    assert_eq!(records[0]["errorCode"], "TlsError");
    assert_ne!(records[0]["nextAttemptAt"], Value::Null);
}

#[test]
fn https_ca_must_be_a_pem_file_of_certificates() {
    use switchyard::app::load_https_ca;
    assert_eq!(load_https_ca(&cert_file("ca.pem")).unwrap().len(), 1);
    let missing = load_https_ca(&cert_file("missing.pem")).unwrap_err();
    assert!(missing.contains("missing.pem"), "{missing}");
    let key_only = load_https_ca(&cert_file("server.key")).unwrap_err();
    assert!(key_only.contains("no CERTIFICATE"), "{key_only}");
}
