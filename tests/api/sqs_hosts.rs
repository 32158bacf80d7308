//! LocalStack's host names and queue URL shapes (docs/localstack.md, "Host names and queue
//! URLs"): queue URLs come back in the host the client used, in the style `--queue-url-style`
//! chooses, or for `--hostname`; queue URLs of every shape from any host name the right queue, and
//! Query requests sent to a queue's URL are served.
//!
//! `*.localhost.localstack.cloud` resolves to 127.0.0.1 only where there is DNS: these clients
//! connect to 127.0.0.1 and say which host they addressed in the `Host` header, as a client that
//! resolved the name would.

use crate::harness::{Harness, Reply, xml_text, xml_texts};
use aws_sdk_sqs::config::interceptors::BeforeTransmitInterceptorContextMut;
use aws_sdk_sqs::config::{
    BehaviorVersion, ConfigBag, Credentials, Intercept, Region, RuntimeComponents,
};
use aws_sdk_sqs::error::BoxError;
use serde_json::json;
use switchyard::Config;
use switchyard::config::QueueUrlStyle;

const STANDARD_EU: &str = "sqs.eu-west-1.localhost.localstack.cloud";
const DOMAIN_EU: &str = "eu-west-1.queue.localhost.localstack.cloud";

/// Sends every request with `Host: <host>`: the client reached the emulator under that name.
#[derive(Debug)]
struct AsHost(String);

impl Intercept for AsHost {
    fn name(&self) -> &'static str {
        "AsHost"
    }

    fn modify_before_transmit(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        context
            .request_mut()
            .headers_mut()
            .insert("host", self.0.clone());
        Ok(())
    }
}

/// An SQS client (AWS JSON 1.0) signed for `region` that reaches the emulator as `host`.
fn sqs_at(h: &Harness, host: &str, region: &str) -> aws_sdk_sqs::Client {
    let config = aws_sdk_sqs::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(h.url())
        .region(Region::new(region.to_string()))
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .interceptor(AsHost(host.to_string()))
        .build();
    aws_sdk_sqs::Client::from_conf(config)
}

/// `host:<the emulator's port>`.
fn at_port(h: &Harness, host: &str) -> String {
    format!("{host}:{}", h.emulator.addr().port())
}

async fn style(style: QueueUrlStyle) -> Harness {
    Harness::with(Config {
        queue_url_style: style,
        ..Config::for_tests()
    })
    .await
}

async fn create(sqs: &aws_sdk_sqs::Client, name: &str) -> String {
    let out = sqs.create_queue().queue_name(name).send().await.unwrap();
    out.queue_url.expect("QueueUrl")
}

/// The ARN of the queue `url` names, as GetQueueAttributes answers it.
async fn arn_of(sqs: &aws_sdk_sqs::Client, url: &str) -> String {
    let out = sqs
        .get_queue_attributes()
        .queue_url(url)
        .attribute_names(aws_sdk_sqs::types::QueueAttributeName::QueueArn)
        .send()
        .await
        .unwrap();
    out.attributes.unwrap()[&aws_sdk_sqs::types::QueueAttributeName::QueueArn].clone()
}

/// The bodies of the messages a receive of up to 10 gets.
async fn bodies(sqs: &aws_sdk_sqs::Client, url: &str) -> Vec<String> {
    let out = sqs
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    let mut bodies: Vec<String> = out
        .messages()
        .iter()
        .map(|m| m.body().unwrap().to_string())
        .collect();
    bodies.sort();
    bodies
}

/// A raw Query request with `Host: <host>` (unsigned unless `params` carry a signature).
async fn query_as(h: &Harness, host: &str, path: &str, params: &[(&str, &str)]) -> Reply {
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish();
    let headers = [
        ("host", host),
        ("content-type", "application/x-www-form-urlencoded"),
    ];
    h.request("POST", path, &headers, body).await
}

/// The default style answers in the host the client used: `localhost` and a container's name
/// (`switchyard:4566`) get `http://<host>/<account>/<name>` as switchyard always answered, and
/// LocalStack's regional names keep their shape. Every operation that hands back a queue URL
/// agrees, and so does `/_switchyard/resources`.
#[tokio::test]
async fn queue_urls_come_back_in_the_host_the_client_used() {
    let h = Harness::start().await;
    let cases = [
        ("localhost:4566", "http://localhost:4566/000000000000/q"),
        ("switchyard:4566", "http://switchyard:4566/000000000000/q"),
        ("10.0.0.7:31000", "http://10.0.0.7:31000/000000000000/q"),
        (
            "sqs.eu-west-1.localhost.localstack.cloud:4566",
            "http://sqs.eu-west-1.localhost.localstack.cloud:4566/000000000000/q",
        ),
        (
            "eu-west-1.queue.localhost.localstack.cloud:4566",
            "http://eu-west-1.queue.localhost.localstack.cloud:4566/000000000000/q",
        ),
    ];
    let dlq = h.sqs_as("test", "eu-west-1");
    let dlq_url = create(&dlq, "dlq").await;
    let policy = json!({
        "deadLetterTargetArn": "arn:aws:sqs:eu-west-1:000000000000:dlq",
        "maxReceiveCount": 3,
    });
    for (host, expected) in cases {
        let sqs = sqs_at(&h, host, "eu-west-1");
        let created = sqs
            .create_queue()
            .queue_name("q")
            .attributes(
                aws_sdk_sqs::types::QueueAttributeName::RedrivePolicy,
                policy.to_string(),
            )
            .send()
            .await
            .unwrap()
            .queue_url
            .unwrap();
        assert_eq!(created, expected, "CreateQueue via {host}");
        let got = sqs.get_queue_url().queue_name("q").send().await.unwrap();
        assert_eq!(got.queue_url(), Some(expected), "GetQueueUrl via {host}");
        let listed = sqs
            .list_queues()
            .queue_name_prefix("q")
            .send()
            .await
            .unwrap();
        assert_eq!(listed.queue_urls(), [expected], "ListQueues via {host}");
        let sources = sqs
            .list_dead_letter_source_queues()
            .queue_url(&dlq_url)
            .send()
            .await
            .unwrap();
        assert_eq!(sources.queue_urls(), [expected], "sources via {host}");
        let view = h
            .request("GET", "/_switchyard/resources", &[("host", host)], "")
            .await
            .json();
        let queues = &view["regions"][0]["queues"];
        let q = queues.as_array().unwrap().iter().find(|q| q["name"] == "q");
        assert_eq!(q.unwrap()["url"], expected, "resources via {host}");
        // The URL it gave works, and names the one queue in eu-west-1.
        assert_eq!(
            arn_of(&sqs, &created).await,
            "arn:aws:sqs:eu-west-1:000000000000:q"
        );
    }
}

/// Each style of `--queue-url-style` (LocalStack's `SQS_ENDPOINT_STRATEGY` values) gives its
/// shape to a client on `localhost` in eu-west-1, and the URL it gives takes a client back to the
/// queue: a client signed for us-east-1 too where the URL names the region.
#[tokio::test]
async fn each_style_gives_its_shape_and_the_url_works() {
    use QueueUrlStyle::*;
    let cases = [
        (
            Standard,
            "http://sqs.eu-west-1.localhost.localstack.cloud:{port}/000000000000/q",
            true,
        ),
        (
            Domain,
            "http://eu-west-1.queue.localhost.localstack.cloud:{port}/000000000000/q",
            true,
        ),
        (
            Path,
            "http://localhost:{port}/queue/eu-west-1/000000000000/q",
            true,
        ),
        (
            Dynamic,
            "http://localhost:{port}/queue/eu-west-1/000000000000/q",
            true,
        ),
        (Off, "http://localhost:{port}/000000000000/q", false),
        (Auto, "http://localhost:{port}/000000000000/q", false),
    ];
    for (url_style, expected, names_region) in cases {
        let h = style(url_style).await;
        let port = h.emulator.addr().port().to_string();
        let expected = expected.replace("{port}", &port);
        let sqs = sqs_at(&h, &at_port(&h, "localhost"), "eu-west-1");
        let url = create(&sqs, "q").await;
        assert_eq!(url, expected, "{url_style:?}");
        let listed = sqs.list_queues().send().await.unwrap();
        assert_eq!(listed.queue_urls(), [expected.as_str()], "{url_style:?}");
        let user = if names_region {
            h.sqs_as("test", "us-east-1")
        } else {
            h.sqs_as("test", "eu-west-1")
        };
        user.send_message()
            .queue_url(&url)
            .message_body("hi")
            .send()
            .await
            .unwrap();
        assert_eq!(bodies(&sqs, &url).await, ["hi"], "{url_style:?}");
    }
}

/// The domain style leaves `<region>.` out in us-east-1, as LocalStack does, and that URL still
/// names us-east-1 for a client of another region.
#[tokio::test]
async fn the_domain_style_has_no_region_label_in_us_east_1() {
    let h = style(QueueUrlStyle::Domain).await;
    let url = create(&h.sqs(), "q").await;
    let port = h.emulator.addr().port();
    assert_eq!(
        url,
        format!("http://queue.localhost.localstack.cloud:{port}/000000000000/q")
    );
    let other = h.sqs_as("test", "ap-south-1");
    assert_eq!(
        arn_of(&other, &url).await,
        "arn:aws:sqs:us-east-1:000000000000:q"
    );
}

/// The standard and domain styles put the region in front of the client's own name when it can
/// carry one (a container's name), and of `localhost.localstack.cloud` for `localhost` and IP
/// addresses; the port stays the client's.
#[tokio::test]
async fn regional_styles_name_a_domain_that_resolves() {
    let h = style(QueueUrlStyle::Standard).await;
    let cases = [
        (
            "127.0.0.1:4566",
            "http://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/q",
        ),
        (
            "localhost.localstack.cloud:4566",
            "http://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/q",
        ),
        (
            "switchyard:4566",
            "http://sqs.us-east-1.switchyard:4566/000000000000/q",
        ),
        (
            "queue.localhost.localstack.cloud:80",
            "http://sqs.us-east-1.localhost.localstack.cloud:80/000000000000/q",
        ),
    ];
    for (host, expected) in cases {
        let url = create(&sqs_at(&h, host, "us-east-1"), "q").await;
        assert_eq!(url, expected, "via {host}");
    }
}

/// A queue URL of any shape, from any host, names the right queue: the region in the URL counts
/// (two queues of one name in two regions are told apart), and the legacy shape is the caller's
/// region.
#[tokio::test]
async fn every_url_shape_names_the_right_queue() {
    let h = Harness::start().await;
    let eu = h.sqs_as("test", "eu-west-1");
    let us = h.sqs();
    create(&eu, "orders").await;
    create(&us, "orders").await;
    let eu_urls = [
        format!("http://{STANDARD_EU}:4566/000000000000/orders"),
        format!("http://{DOMAIN_EU}:4566/000000000000/orders"),
        "http://localhost:4566/queue/eu-west-1/000000000000/orders".to_string(),
        "https://sqs.eu-west-1.amazonaws.com/000000000000/orders".to_string(),
        "http://somewhere-else:9/queue/eu-west-1/000000000000/orders/".to_string(),
    ];
    for url in &eu_urls {
        us.send_message()
            .queue_url(url)
            .message_body(url)
            .send()
            .await
            .unwrap();
        assert_eq!(
            arn_of(&us, url).await,
            "arn:aws:sqs:eu-west-1:000000000000:orders",
            "{url}"
        );
    }
    let mut sent = eu_urls.to_vec();
    sent.sort();
    let legacy = "http://localhost:4566/000000000000/orders";
    assert_eq!(bodies(&eu, legacy).await, sent);
    // The legacy shape names no region: each caller's own queue.
    assert_eq!(
        arn_of(&us, legacy).await,
        "arn:aws:sqs:us-east-1:000000000000:orders"
    );
    let us_domain = "http://queue.localhost.localstack.cloud:4566/000000000000/orders";
    assert_eq!(
        arn_of(&eu, us_domain).await,
        "arn:aws:sqs:us-east-1:000000000000:orders"
    );
    assert!(bodies(&us, legacy).await.is_empty());
}

/// Older SDKs send Query requests to the queue's URL: `POST /<account>/<name>` on any host and
/// `POST /queue/<region>/<account>/<name>` are served, and an unsigned request takes its region
/// from a regional host name or the path (a signed one keeps its signature's).
#[tokio::test]
async fn query_requests_sent_to_queue_urls_are_served() {
    let h = Harness::start().await;
    let eu = h.sqs_as("test", "eu-west-1");
    let url = create(&eu, "jobs").await;
    create(&h.sqs(), "jobs").await;
    let send = |body: &'static str| {
        [
            ("Action", "SendMessage"),
            ("Version", "2012-11-05"),
            ("MessageBody", body),
        ]
    };
    let port = h.emulator.addr().port();
    let sends = [
        (
            at_port(&h, STANDARD_EU),
            "/000000000000/jobs",
            send("standard"),
        ),
        (at_port(&h, DOMAIN_EU), "/000000000000/jobs", send("domain")),
        (
            at_port(&h, "localhost"),
            "/queue/eu-west-1/000000000000/jobs",
            send("path"),
        ),
        (
            format!("{STANDARD_EU}:{port}"),
            "/queue/eu-west-1/000000000000/jobs/",
            send("path on a regional host"),
        ),
    ];
    for (host, path, params) in &sends {
        let r = query_as(&h, host, path, params).await;
        assert_eq!(r.status, 200, "{host}{path}: {}", r.body);
        assert!(xml_text(&r.body, "MessageId").is_some(), "{}", r.body);
    }
    assert_eq!(
        bodies(&eu, &url).await,
        ["domain", "path", "path on a regional host", "standard"]
    );
    // An unsigned request to a plain host is in --region (us-east-1).
    let r = query_as(
        &h,
        &at_port(&h, "localhost"),
        "/000000000000/jobs",
        &send("legacy"),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(bodies(&h.sqs(), "jobs").await, ["legacy"]);
}

/// An unsigned request to a regional host name is in that region, whichever operation it is:
/// ListQueues through `sqs.eu-west-1.…` lists eu-west-1's queues, in that host.
#[tokio::test]
async fn unsigned_requests_take_the_region_of_their_host() {
    let h = Harness::start().await;
    create(&h.sqs_as("test", "eu-west-1"), "in-eu").await;
    create(&h.sqs(), "in-us").await;
    let host = at_port(&h, STANDARD_EU);
    let r = query_as(
        &h,
        &host,
        "/",
        &[("Action", "ListQueues"), ("Version", "2012-11-05")],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        xml_texts(&r.body, "QueueUrl"),
        [format!("http://{host}/000000000000/in-eu")]
    );
    let r = query_as(
        &h,
        &at_port(&h, "queue.localhost.localstack.cloud"),
        "/",
        &[("Action", "ListQueues"), ("Version", "2012-11-05")],
    )
    .await;
    let port = h.emulator.addr().port();
    assert_eq!(
        xml_texts(&r.body, "QueueUrl"),
        [format!(
            "http://queue.localhost.localstack.cloud:{port}/000000000000/in-us"
        )]
    );
}

/// `--hostname` overrides the host the client used, in every style; without a port it takes the
/// port switchyard listens on. Messages do not depend on the host: the same queue answers under
/// both.
#[tokio::test]
async fn a_configured_hostname_overrides_the_clients_host() {
    let cases = [
        (
            None,
            "switchyard",
            "http://switchyard:{port}/000000000000/q",
        ),
        (
            None,
            "example.test:9999",
            "http://example.test:9999/000000000000/q",
        ),
        (
            Some(QueueUrlStyle::Standard),
            "switchyard",
            "http://sqs.us-east-1.switchyard:{port}/000000000000/q",
        ),
        (
            Some(QueueUrlStyle::Path),
            "switchyard:4566",
            "http://switchyard:4566/queue/us-east-1/000000000000/q",
        ),
        (
            Some(QueueUrlStyle::Standard),
            "localhost.localstack.cloud:4566",
            "http://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/q",
        ),
    ];
    for (url_style, hostname, expected) in cases {
        let h = Harness::with(Config {
            hostname: Some(hostname.into()),
            queue_url_style: url_style.unwrap_or_default(),
            ..Config::for_tests()
        })
        .await;
        let expected = expected.replace("{port}", &h.emulator.addr().port().to_string());
        let sqs = sqs_at(&h, "localhost:4566", "us-east-1");
        let url = create(&sqs, "q").await;
        assert_eq!(url, expected, "--hostname {hostname}");
        let other = sqs_at(&h, STANDARD_EU, "us-east-1");
        assert_eq!(create(&other, "q").await, expected);
        let listed = other.list_queues().send().await.unwrap();
        assert_eq!(listed.queue_urls(), [expected.as_str()]);
        let view = h.control_get("resources").await;
        assert_eq!(view["regions"][0]["queues"][0]["url"], expected);
        sqs.send_message()
            .queue_url(&url)
            .message_body("once")
            .send()
            .await
            .unwrap();
        let local = "http://localhost:4566/000000000000/q";
        assert_eq!(bodies(&h.sqs(), local).await, ["once"]);
    }
}

/// LocalStack's `/_aws/sqs/messages?QueueUrl=` takes every shape and looks in the region the URL
/// names.
#[tokio::test]
async fn the_queue_peek_takes_every_shape() {
    let h = Harness::start().await;
    let eu = h.sqs_as("test", "eu-west-1");
    let url = create(&eu, "q").await;
    create(&h.sqs(), "q").await;
    eu.send_message()
        .queue_url(&url)
        .message_body("in eu")
        .send()
        .await
        .unwrap();
    for shape in [
        format!("http://{STANDARD_EU}:4566/000000000000/q"),
        format!("http://{DOMAIN_EU}:4566/000000000000/q"),
        "http://localhost:4566/queue/eu-west-1/000000000000/q".to_string(),
    ] {
        let query: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("QueueUrl", &shape)
            .finish();
        let r = h
            .request("GET", &format!("/_aws/sqs/messages?{query}"), &[], "")
            .await;
        assert_eq!(r.status, 200, "{shape}: {}", r.body);
        assert_eq!(xml_texts(&r.body, "Body"), ["in eu"], "{shape}");
    }
}

/// A QueueUrl that names no queue, malformed or of a region without that queue, is a queue that
/// does not exist, as AWS answers (JSON and Query alike); a request sent to an address under
/// `/queue/` that names no queue is `InvalidAddress` (404).
#[tokio::test]
async fn queue_urls_that_name_no_queue_get_aws_errors() {
    let h = Harness::start().await;
    create(&h.sqs(), "q").await;
    for bad in [
        "http://localhost:4566/queue/000000000000/q",
        "http://localhost:4566/queue/eu-west-1/000000000000",
        "http://localhost:4566/queue/us-east-1/000000000000/q/extra",
        "http://sqs.eu-west-1.localhost.localstack.cloud:4566/000000000000/q",
        "http://localhost:4566/queue/eu-west-1/000000000000/q",
        "http://localhost:4566/000000000000",
        "http://whatever-incorrect-queue-address",
    ] {
        let err = h
            .sqs()
            .send_message()
            .queue_url(bad)
            .message_body("x")
            .send()
            .await
            .unwrap_err();
        let code = err.into_service_error();
        assert!(code.is_queue_does_not_exist(), "{bad}: {code:?}");
        let r = h
            .query(&[
                ("Action", "SendMessage"),
                ("Version", "2012-11-05"),
                ("QueueUrl", bad),
                ("MessageBody", "x"),
            ])
            .await;
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(
            xml_text(&r.body, "Code").as_deref(),
            Some("AWS.SimpleQueueService.NonExistentQueue"),
            "{bad}"
        );
    }
    for path in [
        "/queue",
        "/queue/eu-west-1",
        "/queue/eu-west-1/000000000000",
        "/queue/EU/000000000000/q",
    ] {
        let r = h
            .query_at(
                path,
                &[
                    ("Action", "SendMessage"),
                    ("Version", "2012-11-05"),
                    ("MessageBody", "x"),
                ],
            )
            .await;
        assert_eq!(r.status, 404, "{path}: {}", r.body);
        assert_eq!(xml_text(&r.body, "Code").as_deref(), Some("InvalidAddress"));
        let message = xml_text(&r.body, "Message").unwrap();
        assert!(
            message.ends_with(&format!("{path} is not valid for this endpoint.")),
            "{message}"
        );
    }
    h.assert_alive().await;
}
