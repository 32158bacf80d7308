//! Starting emulators and talking to them: SDK clients, raw HTTP, the control API.

use aws_sdk_sqs::config::{BehaviorVersion, Credentials, Region};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use switchyard::{Config, Emulator};

pub type Body = Full<bytes::Bytes>;

pub struct Harness {
    pub emulator: Emulator,
    http: Client<hyper_util::client::legacy::connect::HttpConnector, Body>,
}

/// A raw response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

impl Harness {
    /// An emulator with a manual clock and seed 0 on a free port.
    pub async fn start() -> Harness {
        Harness::with(Config::for_tests()).await
    }

    pub async fn with(config: Config) -> Harness {
        let emulator = Emulator::start(config).await.expect("emulator starts");
        let http = Client::builder(TokioExecutor::new()).build_http();
        Harness { emulator, http }
    }

    pub fn url(&self) -> &str {
        self.emulator.url()
    }

    /// An SQS client (AWS JSON 1.0) with the given access key, secret `test`, in `region`.
    pub fn sqs_as(&self, access_key: &str, region: &str) -> aws_sdk_sqs::Client {
        self.sqs_signed(access_key, "test", region)
    }

    pub fn sqs_signed(&self, access_key: &str, secret: &str, region: &str) -> aws_sdk_sqs::Client {
        let config = aws_sdk_sqs::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .endpoint_url(self.url())
            .region(Region::new(region.to_string()))
            .credentials_provider(Credentials::new(access_key, secret, None, None, "test"))
            .http_client(aws_smithy_http_client::Builder::new().build_http())
            .build();
        aws_sdk_sqs::Client::from_conf(config)
    }

    pub fn sqs(&self) -> aws_sdk_sqs::Client {
        self.sqs_as("test", "us-east-1")
    }

    /// An SNS client (AWS Query) with the given access key, secret `test`, in `region`.
    pub fn sns_as(&self, access_key: &str, region: &str) -> aws_sdk_sns::Client {
        let config = aws_sdk_sns::Config::builder()
            .behavior_version(aws_sdk_sns::config::BehaviorVersion::latest())
            .endpoint_url(self.url())
            .region(aws_sdk_sns::config::Region::new(region.to_string()))
            .credentials_provider(aws_sdk_sns::config::Credentials::new(
                access_key, "test", None, None, "test",
            ))
            .http_client(aws_smithy_http_client::Builder::new().build_http())
            .build();
        aws_sdk_sns::Client::from_conf(config)
    }

    pub fn sns(&self) -> aws_sdk_sns::Client {
        self.sns_as("test", "us-east-1")
    }

    /// An EventBridge client (AWS JSON 1.1) with the given access key, secret `test`, in `region`.
    pub fn events_as(&self, access_key: &str, region: &str) -> aws_sdk_eventbridge::Client {
        let config = aws_sdk_eventbridge::Config::builder()
            .behavior_version(aws_sdk_eventbridge::config::BehaviorVersion::latest())
            .endpoint_url(self.url())
            .region(aws_sdk_eventbridge::config::Region::new(region.to_string()))
            .credentials_provider(aws_sdk_eventbridge::config::Credentials::new(
                access_key, "test", None, None, "test",
            ))
            .http_client(aws_smithy_http_client::Builder::new().build_http())
            .build();
        aws_sdk_eventbridge::Client::from_conf(config)
    }

    pub fn events(&self) -> aws_sdk_eventbridge::Client {
        self.events_as("test", "us-east-1")
    }

    /// A Lambda client (restJson1), key `test`, in us-east-1.
    pub fn lambda(&self) -> aws_sdk_lambda::Client {
        self.lambda_as("test")
    }

    /// A Lambda client with the given access key (a 12-digit key acts as that account).
    pub fn lambda_as(&self, access_key: &str) -> aws_sdk_lambda::Client {
        let config = aws_sdk_lambda::Config::builder()
            .behavior_version(aws_sdk_lambda::config::BehaviorVersion::latest())
            .endpoint_url(self.url())
            .region(aws_sdk_lambda::config::Region::new("us-east-1"))
            .credentials_provider(aws_sdk_lambda::config::Credentials::new(
                access_key, "test", None, None, "test",
            ))
            .http_client(aws_smithy_http_client::Builder::new().build_http())
            .build();
        aws_sdk_lambda::Client::from_conf(config)
    }

    pub fn scheduler(&self) -> aws_sdk_scheduler::Client {
        let config = aws_sdk_scheduler::Config::builder()
            .behavior_version(aws_sdk_scheduler::config::BehaviorVersion::latest())
            .endpoint_url(self.url())
            .region(aws_sdk_scheduler::config::Region::new("us-east-1"))
            .credentials_provider(aws_sdk_scheduler::config::Credentials::new(
                "test", "test", None, None, "test",
            ))
            .http_client(aws_smithy_http_client::Builder::new().build_http())
            .build();
        aws_sdk_scheduler::Client::from_conf(config)
    }

    pub fn sts_as(&self, access_key: &str) -> aws_sdk_sts::Client {
        let config = aws_sdk_sts::Config::builder()
            .behavior_version(aws_sdk_sts::config::BehaviorVersion::latest())
            .endpoint_url(self.url())
            .region(aws_sdk_sts::config::Region::new("us-east-1"))
            .credentials_provider(aws_sdk_sts::config::Credentials::new(
                access_key, "test", None, None, "test",
            ))
            .http_client(aws_smithy_http_client::Builder::new().build_http())
            .build();
        aws_sdk_sts::Client::from_conf(config)
    }

    /// Sends a raw request.
    pub async fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: impl Into<bytes::Bytes>,
    ) -> Reply {
        let mut req =
            hyper::Request::builder()
                .method(method)
                .uri(format!("{}{}", self.url(), path));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let req = req.body(Full::new(body.into())).expect("valid request");
        let res = self.http.request(req).await.expect("server answers");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        Reply {
            status,
            headers,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    /// A Query request as the older SDKs send it: form-encoded POST to `/`.
    pub async fn query(&self, params: &[(&str, &str)]) -> Reply {
        self.query_at("/", params).await
    }

    pub async fn query_at(&self, path: &str, params: &[(&str, &str)]) -> Reply {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params)
            .finish();
        let ct = [(
            "content-type",
            "application/x-www-form-urlencoded; charset=utf-8",
        )];
        self.request("POST", path, &ct, body).await
    }

    /// An AWS JSON request with `X-Amz-Target: <target>`.
    pub async fn json(&self, version: &str, target: &str, body: &str) -> Reply {
        let ct = format!("application/x-amz-json-{version}");
        let headers = [("content-type", ct.as_str()), ("x-amz-target", target)];
        self.request("POST", "/", &headers, body.to_string()).await
    }

    /// An AWS JSON request signed (in form only: signatures are not checked by default) with
    /// `access_key`, so that a 12-digit key acts as that account.
    #[allow(dead_code)]
    pub async fn json_as(
        &self,
        access_key: &str,
        version: &str,
        target: &str,
        body: &str,
    ) -> Reply {
        let ct = format!("application/x-amz-json-{version}");
        let auth = format!(
            "AWS4-HMAC-SHA256 Credential={access_key}/20261130/us-east-1/events/aws4_request, \
             SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=00"
        );
        let headers = [
            ("content-type", ct.as_str()),
            ("x-amz-target", target),
            ("x-amz-date", "20261130T000000Z"),
            ("authorization", auth.as_str()),
        ];
        self.request("POST", "/", &headers, body.to_string()).await
    }

    /// `GET /_switchyard/<path>` as JSON.
    #[allow(dead_code)]
    pub async fn control_get(&self, path: &str) -> Value {
        let r = self
            .request("GET", &format!("/_switchyard/{path}"), &[], "")
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    }

    /// `POST /_switchyard/<path>` with a JSON body.
    pub async fn control_post(&self, path: &str, body: Value) -> Reply {
        let ct = [("content-type", "application/json")];
        self.request(
            "POST",
            &format!("/_switchyard/{path}"),
            &ct,
            body.to_string(),
        )
        .await
    }

    /// Advances the manual clock by `seconds`.
    pub async fn advance(&self, seconds: f64) -> Value {
        let r = self
            .control_post("clock/advance", serde_json::json!({"seconds": seconds}))
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    }

    /// Asserts the server still answers after bad input.
    #[allow(dead_code)]
    pub async fn assert_alive(&self) {
        assert_eq!(self.control_get("health").await["status"], "ok");
    }
}

/// Awaits `f`, failing the test if it takes more than 10 s of wall time: a guard against hangs,
/// never a way to wait for the emulator (tests move time with the manual clock).
pub async fn no_hang<F: std::future::Future>(what: &str, f: F) -> F::Output {
    switchyard::clock::Clock::within(std::time::Duration::from_secs(10), f)
        .await
        .unwrap_or_else(|| panic!("{what} did not finish within 10 s"))
}

/// The text of the first `<tag>` in `xml`, read with a real XML parser.
pub fn xml_text(xml: &str, tag: &str) -> Option<String> {
    xml_texts(xml, tag).into_iter().next()
}

/// The texts of every `<tag>` in `xml`, in document order.
pub fn xml_texts(xml: &str, tag: &str) -> Vec<String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    let mut inside = false;
    let mut text = String::new();
    loop {
        match reader
            .read_event()
            .unwrap_or_else(|e| panic!("malformed XML ({e}): {xml}"))
        {
            Event::Start(e) if AsRef::<str>::as_ref(&e.name()) == tag => {
                inside = true;
                text.clear();
            }
            Event::Empty(e) if AsRef::<str>::as_ref(&e.name()) == tag => out.push(String::new()),
            Event::Text(t) if inside => {
                text.push_str(&t.xml_content(quick_xml::XmlVersion::Implicit1_0))
            }
            Event::GeneralRef(r) if inside => {
                let name = r.into_inner();
                let resolved = match name.as_ref() {
                    "amp" => "&".to_string(),
                    "lt" => "<".to_string(),
                    "gt" => ">".to_string(),
                    "quot" => "\"".to_string(),
                    "apos" => "'".to_string(),
                    other => {
                        let code = other
                            .strip_prefix("#x")
                            .map(|h| u32::from_str_radix(h, 16))
                            .or_else(|| other.strip_prefix('#').map(|d| d.parse::<u32>()))
                            .expect("known entity")
                            .expect("numeric entity");
                        char::from_u32(code).expect("char").to_string()
                    }
                };
                text.push_str(&resolved);
            }
            Event::End(e) if AsRef::<str>::as_ref(&e.name()) == tag => {
                inside = false;
                out.push(text.clone());
            }
            Event::Eof => break,
            _ => {}
        }
    }
    out
}

/// Every test's world, as it is at the end, survives a state snapshot: written, read back and
/// written again, it is the same file (docs/control-api.md, "State snapshots"). A store change
/// that a snapshot does not carry fails here, in whichever test made such a state.
impl Harness {
    /// Stops the emulator (its state directory is free afterwards); the end-of-test snapshot
    /// check still runs when the harness is dropped.
    #[allow(dead_code)]
    pub async fn stop(&mut self) {
        self.emulator.close().await.expect("the emulator stops");
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let bytes = self.emulator.state_snapshot();
        let state = match self.emulator.app().read_snapshot(&bytes) {
            Ok(state) => state,
            Err(e) => panic!("the state snapshot does not read back: {e}"),
        };
        let again = state.snapshot();
        if again != bytes {
            let (a, b) = (
                String::from_utf8_lossy(&bytes),
                String::from_utf8_lossy(&again),
            );
            let at = a
                .bytes()
                .zip(b.bytes())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            let around = |s: &str| {
                s.get(at.saturating_sub(200)..(at + 100).min(s.len()))
                    .unwrap_or("")
                    .to_string()
            };
            panic!(
                "the state read back writes another file, at byte {at}:\n{}\n{}",
                around(&a),
                around(&b)
            );
        }
    }
}
