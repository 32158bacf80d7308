//! Bad input never crashes or hangs the server: every answer is a well-formed AWS error in the
//! request's protocol (XML `ErrorResponse` for Query, `__type`/`message` for AWS JSON), or for a
//! request that is no AWS call at all a 404 in JSON, and the emulator serves the next request.

use crate::harness::{Harness, Reply, no_hang, xml_text};
use aws_sdk_sqs::error::ProvideErrorMetadata;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const SQS_VERSION: &str = "2012-11-05";
const FORM: &str = "application/x-www-form-urlencoded; charset=utf-8";
const JSON10: &str = "application/x-amz-json-1.0";
/// The server's `MAX_REQUEST_BYTES`.
const MAX_REQUEST_BYTES: usize = 8 * 1024 * 1024;

/// Checks that `r` is a Query `ErrorResponse` with `status`, and answers its `Code`.
#[track_caller]
fn xml_error(r: &Reply, status: u16) -> String {
    assert_eq!(r.status, status, "{}", r.body);
    let ct = r.header("content-type").unwrap_or_default();
    assert!(
        ct.starts_with("text/xml"),
        "content type {ct:?}: {}",
        r.body
    );
    assert!(r.body.contains("<ErrorResponse"), "{}", r.body);
    let kind = xml_text(&r.body, "Type").expect("Type");
    assert_eq!(
        kind,
        if status < 500 { "Sender" } else { "Receiver" },
        "{}",
        r.body
    );
    assert!(xml_text(&r.body, "Message").is_some(), "{}", r.body);
    let request_id = xml_text(&r.body, "RequestId").expect("RequestId");
    assert!(!request_id.is_empty(), "{}", r.body);
    let code = xml_text(&r.body, "Code").expect("Code");
    assert!(!code.is_empty(), "{}", r.body);
    code
}

/// Checks that `r` is the answer to a request that is no AWS call (no signature, Action or
/// X-Amz-Target): 404 in JSON, naming the request and where the control API is documented.
#[track_caller]
fn not_an_aws_call(r: &Reply, method: &str, path: &str) {
    assert_eq!(r.status, 404, "{}", r.body);
    let ct = r.header("content-type").unwrap_or_default();
    assert!(ct.starts_with("application/json"), "{ct:?}: {}", r.body);
    let body: Value = r.json();
    assert_eq!(body["error"], "NotFound", "{}", r.body);
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("{method} {path} is no AWS API call")),
        "{message}"
    );
    assert!(message.contains("docs/control-api.md"), "{message}");
}

/// Checks that `r` is an AWS JSON 1.0 error with `status`, and answers its `__type`.
#[track_caller]
fn json_error(r: &Reply, status: u16) -> String {
    assert_eq!(r.status, status, "{}", r.body);
    let ct = r.header("content-type").unwrap_or_default();
    assert!(ct.starts_with(JSON10), "content type {ct:?}: {}", r.body);
    let body: Value = r.json();
    assert!(body["message"].is_string(), "no message: {}", r.body);
    body["__type"].as_str().expect("__type").to_string()
}

/// Checks that `r` is an SQS AWS JSON error with `status`, and answers its Query-compatible
/// code from `x-amzn-query-error`, after checking the `__type` AWS gives it (for the codes not in
/// the model, the short names recorded from AWS).
#[track_caller]
fn sqs_json_error(r: &Reply, status: u16) -> String {
    let kind = json_error(r, status);
    let header = r.header("x-amzn-query-error").expect("x-amzn-query-error");
    let (query_code, fault) = header.split_once(';').expect("<code>;<fault>");
    assert_eq!(fault, if status < 500 { "Sender" } else { "Receiver" });
    let expected = match query_code {
        "InvalidParameterValue" => "InvalidParameterValueException",
        "MissingParameter" => "MissingRequiredParameterException",
        other => other,
    };
    assert_eq!(code(&kind), expected, "{}", r.body);
    query_code.to_string()
}

/// The error code of a `__type`, without the `namespace#` part.
fn code(kind: &str) -> &str {
    kind.rsplit_once('#').map_or(kind, |(_, code)| code)
}

async fn form(h: &Harness, content_type: &str, body: impl Into<bytes::Bytes>) -> Reply {
    h.request("POST", "/", &[("content-type", content_type)], body)
        .await
}

async fn create_queue_query(h: &Harness, name: &str) -> String {
    let r = h
        .query(&[
            ("Action", "CreateQueue"),
            ("Version", SQS_VERSION),
            ("QueueName", name),
        ])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    xml_text(&r.body, "QueueUrl").expect("QueueUrl")
}

#[tokio::test]
async fn garbage_bodies() {
    let h = Harness::start().await;
    let garbage: Vec<u8> = (0..2048u32)
        .map(|i| (i * 7919 % 251) as u8 ^ 0xA5)
        .collect();

    // Unsigned and without an Action: no AWS call.
    let r = form(&h, FORM, garbage.clone()).await;
    not_an_aws_call(&r, "POST", "/");
    h.assert_alive().await;

    // No target: the operation is unknown.
    let r = form(&h, JSON10, garbage.clone()).await;
    assert_eq!(code(&json_error(&r, 400)), "UnknownOperationException");
    h.assert_alive().await;

    // A known operation with a body that is not JSON.
    let r = h
        .request(
            "POST",
            "/",
            &[
                ("content-type", JSON10),
                ("x-amz-target", "AmazonSQS.CreateQueue"),
            ],
            garbage,
        )
        .await;
    assert_eq!(code(&json_error(&r, 400)), "SerializationException");
    h.assert_alive().await;
}

#[tokio::test]
async fn wrong_content_types() {
    let h = Harness::start().await;
    let body = format!("Action=ListQueues&Version={SQS_VERSION}");

    // A form that does not say it is one is not read as one: unsigned, it is no AWS call.
    let r = form(&h, "text/plain", body).await;
    not_an_aws_call(&r, "POST", "/");
    h.assert_alive().await;

    // A JSON body without X-Amz-Target.
    let r = form(&h, JSON10, "{\"QueueName\": \"q\"}").await;
    assert_eq!(code(&json_error(&r, 400)), "UnknownOperationException");
    h.assert_alive().await;
    let r = form(&h, "application/json", "{\"QueueName\": \"q\"}").await;
    not_an_aws_call(&r, "POST", "/");
    h.assert_alive().await;
}

#[tokio::test]
async fn malformed_json() {
    let h = Harness::start().await;
    let deep_array = "[".repeat(100_000);
    let deep_object = "{\"a\":".repeat(50_000) + "1" + &"}".repeat(50_000);
    let cases: Vec<(&str, String)> = vec![
        ("truncated", "{\"QueueName\": \"q".into()),
        ("array", "[\"QueueName\", \"q\"]".into()),
        ("number", "5".into()),
        ("string", "\"q\"".into()),
        ("null", "null".into()),
        ("wrong member type", "{\"QueueName\": 5}".into()),
        (
            "wrong map type",
            "{\"QueueName\": \"q\", \"Attributes\": [1, 2]}".into(),
        ),
        ("lone surrogate", "{\"QueueName\": \"\\ud800\"}".into()),
        ("trailing garbage", "{\"QueueName\": \"q\"} x".into()),
        ("deeply nested array", deep_array),
        ("deeply nested object", deep_object),
    ];
    for (what, body) in cases {
        let r = h.json("1.0", "AmazonSQS.CreateQueue", &body).await;
        let kind = json_error(&r, 400);
        assert_eq!(code(&kind), "SerializationException", "{what}: {}", r.body);
        if what == "truncated" {
            assert!(
                !r.json()["message"].as_str().unwrap().is_empty(),
                "{what}: {}",
                r.body
            );
        }
        h.assert_alive().await;
    }

    // Bytes that are not UTF-8 inside a JSON string.
    let body: &[u8] = b"{\"QueueName\": \"\xff\xfe\"}";
    let headers = [
        ("content-type", JSON10),
        ("x-amz-target", "AmazonSQS.CreateQueue"),
    ];
    let r = h.request("POST", "/", &headers, body).await;
    assert_eq!(code(&json_error(&r, 400)), "SerializationException");
    h.assert_alive().await;

    // Numbers a member cannot hold.
    let url = h
        .sqs()
        .create_queue()
        .queue_name("n")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    for max in ["\"ten\"", "99999999999999999999", "1.5", "1e400"] {
        let body = format!("{{\"QueueUrl\": \"{url}\", \"MaxNumberOfMessages\": {max}}}");
        let r = h.json("1.0", "AmazonSQS.ReceiveMessage", &body).await;
        assert_eq!(
            code(&json_error(&r, 400)),
            "SerializationException",
            "{max}: {}",
            r.body
        );
        h.assert_alive().await;
    }
}

#[tokio::test]
async fn unknown_operations() {
    let h = Harness::start().await;
    for target in [
        "AmazonSQS.NoSuchOp",
        "Nope.CreateQueue",
        "AmazonSQS",
        "",
        ".",
        "AmazonSQS.",
    ] {
        let r = h.json("1.0", target, "{}").await;
        let kind = json_error(&r, 400);
        assert_eq!(
            code(&kind),
            "UnknownOperationException",
            "{target:?}: {}",
            r.body
        );
        h.assert_alive().await;
    }

    // Query: unknown to every service, and unknown to SQS.
    let r = h.query(&[("Action", "NoSuchAction")]).await;
    assert_eq!(xml_error(&r, 400), "InvalidAction");
    assert!(
        xml_text(&r.body, "Message")
            .unwrap()
            .contains("NoSuchAction"),
        "{}",
        r.body
    );
    if let Some(id) = r.header("x-amzn-requestid") {
        assert_eq!(xml_text(&r.body, "RequestId").as_deref(), Some(id));
    }
    h.assert_alive().await;
    let r = h
        .query(&[("Action", "NoSuchAction"), ("Version", SQS_VERSION)])
        .await;
    assert_eq!(xml_error(&r, 400), "InvalidAction");
    h.assert_alive().await;
    // An action name that would break XML if echoed unescaped.
    let r = h
        .query(&[("Action", "<Bad>&\"'"), ("Version", SQS_VERSION)])
        .await;
    assert_eq!(xml_error(&r, 400), "InvalidAction");
    h.assert_alive().await;
}

#[tokio::test]
async fn missing_action_and_parameters() {
    let h = Harness::start().await;
    // An SQS request (by its version) without an action: SQS's UnknownOperationException
    // (issue 14); a request that names no service: MissingAction.
    let r = h
        .query(&[("Version", SQS_VERSION), ("QueueName", "q")])
        .await;
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(
        r.body.contains("<UnknownOperationException/>"),
        "{}",
        r.body
    );
    h.assert_alive().await;

    // Requests that are no AWS call: 404 in JSON, not an AWS error.
    for path in ["/", "/health", "/favicon.ico", "/_nope"] {
        let r = h.request("GET", path, &[], "").await;
        not_an_aws_call(&r, "GET", path);
    }
    // A signed request without an action is an AWS call that lacks its action.
    let signed = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261201/us-east-1/sns/aws4_request, \
                  SignedHeaders=host;x-amz-date, Signature=00";
    let headers = [
        ("authorization", signed),
        ("x-amz-date", "20261201T000000Z"),
        ("content-type", FORM),
    ];
    let r = h.request("POST", "/", &headers, "Version=2010-03-31").await;
    assert_eq!(xml_error(&r, 400), "MissingAction");
    h.assert_alive().await;

    let r = h
        .query(&[("Action", "CreateQueue"), ("Version", SQS_VERSION)])
        .await;
    assert_eq!(xml_error(&r, 400), "MissingParameter");
    assert!(
        xml_text(&r.body, "Message").unwrap().contains("QueueName"),
        "{}",
        r.body
    );
    h.assert_alive().await;

    let r = h.json("1.0", "AmazonSQS.CreateQueue", "{}").await;
    assert_eq!(sqs_json_error(&r, 400), "MissingParameter");
    h.assert_alive().await;
    let r = h.json("1.0", "AmazonSQS.CreateQueue", "").await;
    assert_eq!(sqs_json_error(&r, 400), "MissingParameter");
    h.assert_alive().await;
    let r = h
        .json("1.0", "AmazonSQS.CreateQueue", "{\"QueueName\": null}")
        .await;
    assert_eq!(sqs_json_error(&r, 400), "MissingParameter");
    h.assert_alive().await;
}

#[tokio::test]
async fn names_that_would_break_xml() {
    let h = Harness::start().await;
    let name = "a<b>&\"'";
    let r = h
        .query(&[
            ("Action", "CreateQueue"),
            ("Version", SQS_VERSION),
            ("QueueName", name),
        ])
        .await;
    assert_eq!(xml_error(&r, 400), "InvalidParameterValue");
    h.assert_alive().await;

    let body = serde_json::json!({ "QueueName": name }).to_string();
    let r = h.json("1.0", "AmazonSQS.CreateQueue", &body).await;
    assert_eq!(sqs_json_error(&r, 400), "InvalidParameterValue");
    h.assert_alive().await;

    let err = h
        .sqs()
        .create_queue()
        .queue_name(name)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.into_service_error().code(),
        Some("InvalidParameterValue")
    );

    // A queue URL with such characters names no queue.
    let url = format!("{}/000000000000/{}", h.url(), name);
    let r = h
        .query(&[
            ("Action", "SendMessage"),
            ("Version", SQS_VERSION),
            ("QueueUrl", &url),
            ("MessageBody", "x"),
        ])
        .await;
    assert_eq!(
        xml_error(&r, 400),
        "AWS.SimpleQueueService.NonExistentQueue"
    );
    h.assert_alive().await;
}

#[tokio::test]
async fn a_fifo_queue_needs_a_name_before_its_suffix() {
    let h = Harness::start().await;
    // `.fifo` alone has no name before its suffix (names are `[A-Za-z0-9_-]{1,75}.fifo`).
    let r = h
        .query(&[
            ("Action", "CreateQueue"),
            ("Version", SQS_VERSION),
            ("QueueName", ".fifo"),
            ("Attribute.1.Name", "FifoQueue"),
            ("Attribute.1.Value", "true"),
        ])
        .await;
    assert_eq!(xml_error(&r, 400), "InvalidParameterValue");
    h.assert_alive().await;

    let err = h
        .sqs()
        .create_queue()
        .queue_name(".fifo")
        .attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.into_service_error().code(),
        Some("InvalidParameterValue")
    );
}

#[tokio::test]
async fn bodies_with_xml_specials_round_trip() {
    let h = Harness::start().await;
    let text = "<>&\"'\r\n]]> <![CDATA[x]]> &amp; \t end\r";

    // Query in, Query out.
    let url = create_queue_query(&h, "specials").await;
    let r = h
        .query(&[
            ("Action", "SendMessage"),
            ("Version", SQS_VERSION),
            ("QueueUrl", &url),
            ("MessageBody", text),
        ])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = h
        .query(&[
            ("Action", "ReceiveMessage"),
            ("Version", SQS_VERSION),
            ("QueueUrl", &url),
        ])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        xml_text(&r.body, "Body").as_deref(),
        Some(text),
        "{}",
        r.body
    );

    // SDK in, SDK out.
    let sqs = h.sqs();
    sqs.send_message()
        .queue_url(&url)
        .message_body(text)
        .send()
        .await
        .unwrap();
    let out = sqs.receive_message().queue_url(&url).send().await.unwrap();
    assert_eq!(out.messages().len(), 1);
    assert_eq!(out.messages()[0].body(), Some(text));

    // Query in, SDK out.
    let r = h
        .query(&[
            ("Action", "SendMessage"),
            ("Version", SQS_VERSION),
            ("QueueUrl", &url),
            ("MessageBody", text),
        ])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let out = sqs.receive_message().queue_url(&url).send().await.unwrap();
    assert_eq!(out.messages()[0].body(), Some(text));
}

#[tokio::test]
async fn invalid_message_characters() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("chars")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    for body in ["a\u{0}b", "\u{FFFF}", "x\u{1}", "\u{FFFE}", "\u{B}"] {
        let err = sqs
            .send_message()
            .queue_url(&url)
            .message_body(body)
            .send()
            .await
            .unwrap_err();
        let err = err.into_service_error();
        assert!(err.is_invalid_message_contents(), "{body:?}: {err:?}");

        let r = h
            .query(&[
                ("Action", "SendMessage"),
                ("Version", SQS_VERSION),
                ("QueueUrl", &url),
                ("MessageBody", body),
            ])
            .await;
        assert_eq!(xml_error(&r, 400), "InvalidMessageContents", "{body:?}");
        h.assert_alive().await;
    }
    // Characters just inside the allowed ranges go through.
    let fine = "\t\n\r \u{D7FF}\u{E000}\u{FFFD}\u{10000}\u{10FFFF}";
    sqs.send_message()
        .queue_url(&url)
        .message_body(fine)
        .send()
        .await
        .unwrap();
    let out = sqs.receive_message().queue_url(&url).send().await.unwrap();
    assert_eq!(out.messages()[0].body(), Some(fine));
}

/// Sends `head` (request line and headers, no body) on a raw connection and reads the answer:
/// status, headers (lower-cased names) and body.
async fn raw_head_only(h: &Harness, head: &str) -> (u16, Vec<(String, String)>, String) {
    no_hang("raw request", async {
        let mut stream = tokio::net::TcpStream::connect(h.emulator.addr())
            .await
            .unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        read_response(&mut stream).await
    })
    .await
}

async fn read_response<R: AsyncReadExt + Unpin>(
    stream: &mut R,
) -> (u16, Vec<(String, String)>, String) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut chunk).await.expect("read response");
        assert!(
            n > 0,
            "connection closed before a response: {:?}",
            String::from_utf8_lossy(&buf)
        );
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse::<u16>()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map(|(_, v)| v.parse::<usize>().unwrap())
        .expect("content-length");
    let mut body = buf[header_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.expect("read body");
        assert!(n > 0, "connection closed mid-body");
        body.extend_from_slice(&chunk[..n]);
    }
    (
        status,
        headers,
        String::from_utf8_lossy(&body[..length]).into_owned(),
    )
}

fn to_reply(status: u16, headers: Vec<(String, String)>, body: String) -> Reply {
    let mut map = hyper::HeaderMap::new();
    for (k, v) in headers {
        map.append(
            hyper::header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
            hyper::header::HeaderValue::from_str(&v).unwrap(),
        );
    }
    Reply {
        status,
        headers: map,
        body,
    }
}

#[tokio::test]
async fn oversized_requests_are_refused_unread() {
    let h = Harness::start().await;
    let addr = h.emulator.addr();
    for length in [MAX_REQUEST_BYTES + 1, 9 * 1024 * 1024, usize::MAX / 2] {
        // Only the headers are sent: the server must answer without waiting for the body.
        let head = format!(
            "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {FORM}\r\nContent-Length: {length}\r\n\r\n"
        );
        let (status, headers, body) = raw_head_only(&h, &head).await;
        let r = to_reply(status, headers, body);
        assert_eq!(xml_error(&r, 413), "RequestEntityTooLarge", "{length}");
        h.assert_alive().await;

        let head = format!(
            "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {JSON10}\r\nX-Amz-Target: AmazonSQS.SendMessage\r\n\
             Content-Length: {length}\r\n\r\n"
        );
        let (status, headers, body) = raw_head_only(&h, &head).await;
        let r = to_reply(status, headers, body);
        assert_eq!(
            code(&json_error(&r, 413)),
            "RequestEntityTooLarge",
            "{length}"
        );
        h.assert_alive().await;
    }
}

#[tokio::test]
async fn oversized_chunked_requests_are_cut_off() {
    let h = Harness::start().await;
    let addr = h.emulator.addr();
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let head = format!(
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {FORM}\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    // The writer offers 9 MiB without a length; it stops quietly once the server hangs up.
    let writer = tokio::spawn(async move {
        writer.write_all(head.as_bytes()).await?;
        let chunk = vec![b'a'; 64 * 1024];
        for _ in 0..(9 * 16) {
            writer
                .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                .await?;
            writer.write_all(&chunk).await?;
            writer.write_all(b"\r\n").await?;
        }
        writer.write_all(b"0\r\n\r\n").await
    });
    let (status, headers, body) = no_hang("chunked request", read_response(&mut reader)).await;
    let r = to_reply(status, headers, body);
    assert_eq!(xml_error(&r, 413), "RequestEntityTooLarge");
    writer.abort();
    h.assert_alive().await;
}

#[tokio::test]
async fn bytes_that_are_not_utf8_in_forms() {
    let h = Harness::start().await;
    let raw: &[u8] = b"Action=CreateQueue&Version=2012-11-05&QueueName=q\xff\xfe";
    let r = form(&h, FORM, raw).await;
    assert_eq!(xml_error(&r, 400), "InvalidParameterValue");
    h.assert_alive().await;

    let r = form(
        &h,
        FORM,
        "Action=CreateQueue&Version=2012-11-05&QueueName=q%FF%FE%C0",
    )
    .await;
    assert_eq!(xml_error(&r, 400), "InvalidParameterValue");
    h.assert_alive().await;

    let r = form(&h, FORM, "Action=%FF%FE&Version=2012-11-05").await;
    assert_eq!(xml_error(&r, 400), "InvalidAction");
    h.assert_alive().await;

    // In a message body, escaped or raw, alone or in a batch: refused as a body with a character
    // outside SQS's set, not stored with U+FFFD in place of the bytes.
    let url = create_queue_query(&h, "bytes").await;
    let queue = form_urlencoded::byte_serialize(url.as_bytes()).collect::<String>();
    let sent: [(&[u8], &str); 4] = [
        (b"Action=SendMessage&MessageBody=a%FFb%C3", "FF"),
        (b"Action=SendMessage&MessageBody=ok%C3", "C3"),
        (b"Action=SendMessage&MessageBody=raw\xe9t\xe9", "E9"),
        (
            b"Action=SendMessageBatch&SendMessageBatchRequestEntry.1.Id=a&\
              SendMessageBatchRequestEntry.1.MessageBody=%80",
            "80",
        ),
    ];
    for (params, byte) in sent {
        let mut body = format!("Version=2012-11-05&QueueUrl={queue}&").into_bytes();
        body.extend_from_slice(params);
        let r = form(&h, FORM, body).await;
        assert_eq!(xml_error(&r, 400), "InvalidMessageContents", "{}", r.body);
        assert_eq!(
            xml_text(&r.body, "Message").unwrap(),
            format!(
                "Invalid binary character '#x{byte}' was found in the message body, the set of \
                 allowed characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | \
                 #x10000 to #x10FFFF"
            )
        );
    }
    // U+FFFD itself, sent as UTF-8, is a character like any other.
    let body =
        format!("Action=SendMessage&Version=2012-11-05&QueueUrl={queue}&MessageBody=a%EF%BF%BDb");
    assert_eq!(form(&h, FORM, body).await.status, 200);
    let received = h
        .sqs()
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    let bodies: Vec<_> = received
        .messages()
        .iter()
        .filter_map(|m| m.body())
        .collect();
    assert_eq!(bodies, ["a\u{FFFD}b"], "only the UTF-8 message was stored");

    // SNS over Query: the message of a Publish.
    let topic = h
        .sns()
        .create_topic()
        .name("bytes")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let body = format!(
        "Action=Publish&Version=2010-03-31&TopicArn={}&Message=caf%C3",
        form_urlencoded::byte_serialize(topic.as_bytes()).collect::<String>()
    );
    let r = form(&h, FORM, body).await;
    assert_eq!(xml_error(&r, 400), "InvalidParameter", "{}", r.body);
    assert_eq!(
        xml_text(&r.body, "Message").unwrap(),
        "Invalid parameter: Message Reason: it is not UTF-8 (byte '#xC3')"
    );
    h.assert_alive().await;

    // Malformed percent escapes.
    let r = form(
        &h,
        FORM,
        "Action=CreateQueue&Version=2012-11-05&QueueName=%zz%",
    )
    .await;
    assert_eq!(xml_error(&r, 400), "InvalidParameterValue");
    h.assert_alive().await;
}

#[tokio::test]
async fn numbers_out_of_range() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("ranges")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();

    let err = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(11)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.into_service_error().code(),
        Some("InvalidParameterValue")
    );
    let err = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(0)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.into_service_error().code(),
        Some("InvalidParameterValue")
    );
    let err = sqs
        .receive_message()
        .queue_url(&url)
        .wait_time_seconds(21)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.into_service_error().code(),
        Some("InvalidParameterValue")
    );
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .delay_seconds(901)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.into_service_error().code(),
        Some("InvalidParameterValue")
    );

    for max in [
        "11",
        "0",
        "-1",
        "ten",
        "",
        "1.5",
        "99999999999999999999",
        "10",
    ] {
        let r = h
            .query(&[
                ("Action", "ReceiveMessage"),
                ("Version", SQS_VERSION),
                ("QueueUrl", &url),
                ("MaxNumberOfMessages", max),
            ])
            .await;
        if max == "10" {
            assert_eq!(r.status, 200, "{}", r.body);
        } else {
            assert_eq!(xml_error(&r, 400), "InvalidParameterValue", "{max:?}");
        }
        h.assert_alive().await;
    }
}
