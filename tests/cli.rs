//! The `switchyard` binary as a user starts it: what it says when it cannot start, what its log
//! lines look like, and `switchyard endpoint`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};

/// A port already taken: the binary names the address and suggests `--port 0`, and exits
/// with a failure (it does not hang or panic).
#[test]
fn a_port_in_use_names_the_address_and_suggests_port_zero() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["--host", "127.0.0.1", "--port", &port])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!("cannot listen on 127.0.0.1:{port}: the port is in use");
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(stderr.contains("--port 0"), "{stderr}");
    assert!(out.stdout.is_empty(), "no ready line: {:?}", out.stdout);
}

/// A started `switchyard` command, killed when dropped, and the URL of its ready line.
struct Running {
    child: Child,
    url: String,
}

impl Running {
    /// Starts the binary with `args` (and `env`), reads the first line of its stdout and takes
    /// the URL after "listening on ".
    fn start(args: &[&str], env: &[(&str, &str)]) -> Running {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
        command.args(args).envs(env.iter().copied());
        Running::from_command(command)
    }

    /// Starts `command` as [`Running::start`] does.
    fn from_command(mut command: Command) -> Running {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut ready = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut ready)
            .unwrap();
        let url = ready
            .split("listening on ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no ready line: {ready:?}"))
            .to_string();
        Running { child, url }
    }

    /// Kills it and answers what it wrote to stdout after the ready line, and to stderr.
    fn finish(mut self) -> (String, String) {
        self.child.kill().unwrap();
        let (mut out, mut err) = (String::new(), String::new());
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        self.child.wait().unwrap();
        (out, err)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request over a fresh connection: the status and the body of the answer.
fn http(method: &str, url: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut stream = TcpStream::connect(host).unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_string())
}

/// `key=value` pairs of a logfmt line, values unquoted; panics on anything else.
fn logfmt(line: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut rest = line;
    while !rest.is_empty() {
        let (key, after) = rest
            .split_once('=')
            .unwrap_or_else(|| panic!("no key=value at {rest:?} in {line:?}"));
        assert!(
            !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
            "bad key {key:?} in {line:?}"
        );
        let (value, after) = if let Some(quoted) = after.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let end = loop {
                match chars.next() {
                    Some((i, '"')) => break i + 1,
                    Some((_, '\\')) => match chars.next() {
                        Some((_, 'n')) => value.push('\n'),
                        Some((_, 't')) => value.push('\t'),
                        Some((_, c)) => value.push(c),
                        None => panic!("a lone backslash in {line:?}"),
                    },
                    Some((_, c)) => value.push(c),
                    None => panic!("an unclosed quote in {line:?}"),
                }
            };
            (value, &quoted[end..])
        } else {
            let end = after.find(' ').unwrap_or(after.len());
            (after[..end].to_string(), &after[end..])
        };
        pairs.push((key.to_string(), value));
        rest = after.strip_prefix(' ').unwrap_or(after);
        assert!(!after.starts_with("  "), "two spaces in {line:?}");
    }
    pairs
}

fn field<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// A Query request to switchyard signed (in scope only) for `service`.
fn query(url: &str, service: &str, params: &str) -> (u16, String) {
    let auth = format!(
        "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/{service}/aws4_request, \
         SignedHeaders=host, Signature=0"
    );
    let headers = [
        ("authorization", auth.as_str()),
        ("content-type", "application/x-www-form-urlencoded"),
    ];
    http("POST", &format!("{url}/"), &headers, params)
}

/// Every line on stderr is logfmt: the ready line's twin, a failed request with its AWS error
/// code, and at debug each delivery attempt as the delivery log records it.
#[test]
fn logs_are_logfmt_with_error_codes_and_delivery_attempts() {
    let server = Running::start(
        &["--host", "127.0.0.1", "--port", "0", "--clock", "manual"],
        &[("RUST_LOG", "debug")],
    );
    let url = server.url.clone();
    let (status, body) = query(&url, "sqs", "Action=GetQueueUrl&QueueName=nowhere");
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("AWS.SimpleQueueService.NonExistentQueue"),
        "{body}"
    );
    let (status, body) = query(&url, "sqs", "Action=CreateQueue&QueueName=audit");
    assert_eq!(status, 200, "{body}");
    let (status, body) = query(&url, "sns", "Action=CreateTopic&Name=orders");
    assert_eq!(status, 200, "{body}");
    let topic = "arn%3Aaws%3Asns%3Aus-east-1%3A000000000000%3Aorders";
    let queue = "arn%3Aaws%3Asqs%3Aus-east-1%3A000000000000%3Aaudit";
    let subscribe = format!("Action=Subscribe&TopicArn={topic}&Protocol=sqs&Endpoint={queue}");
    assert_eq!(query(&url, "sns", &subscribe).0, 200);
    let publish = format!("Action=Publish&TopicArn={topic}&Message=hello");
    assert_eq!(query(&url, "sns", &publish).0, 200);
    let (status, _) = http(
        "POST",
        &format!("{url}/_switchyard/clock/advance"),
        &[],
        "{}",
    );
    assert_eq!(status, 400);

    let (_, stderr) = server.finish();
    let lines: Vec<_> = stderr.lines().map(logfmt).collect();
    for pairs in &lines {
        let keys: Vec<_> = pairs.iter().take(4).map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["ts", "level", "module", "msg"], "{pairs:?}");
    }
    let first = &lines[0];
    assert_eq!(
        (field(first, "msg"), field(first, "url")),
        (Some("listening"), Some(url.as_str()))
    );
    let failed = lines
        .iter()
        .find(|l| field(l, "operation") == Some("GetQueueUrl"))
        .expect("the GetQueueUrl request's line");
    assert_eq!(field(failed, "msg"), Some("request"));
    assert_eq!(field(failed, "service"), Some("sqs"));
    assert_eq!(field(failed, "status"), Some("400"));
    assert_eq!(
        field(failed, "error_code"),
        Some("AWS.SimpleQueueService.NonExistentQueue")
    );
    assert!(field(failed, "duration_us").is_some());
    let created = lines
        .iter()
        .find(|l| field(l, "operation") == Some("CreateQueue"))
        .unwrap();
    assert_eq!(
        field(created, "error_code"),
        None,
        "only failures name a code"
    );
    let control = lines
        .iter()
        .find(|l| field(l, "service") == Some("control"))
        .unwrap();
    assert_eq!(field(control, "error_code"), Some("InvalidRequest"));
    let delivery = lines
        .iter()
        .find(|l| field(l, "msg") == Some("delivery"))
        .expect("the SNS to SQS attempt at debug");
    assert_eq!(field(delivery, "level"), Some("debug"));
    assert_eq!(field(delivery, "event"), Some("attempt"));
    assert_eq!(field(delivery, "outcome"), Some("delivered"));
    assert_eq!(
        field(delivery, "target"),
        Some("arn:aws:sqs:us-east-1:000000000000:audit")
    );
}

/// `switchyard endpoint --status 503` answers 503 and prints one line per request; a
/// SubscriptionConfirmation is confirmed by a GET of its SubscribeURL and answered 200.
#[test]
fn the_endpoint_answers_its_status_confirms_subscriptions_and_prints_each_request() {
    let failing = Running::start(&["endpoint", "--port", "0", "--status", "503"], &[]);
    let confirmer = Running::start(&["endpoint", "--port", "0"], &[]);

    let notification = [
        ("x-amz-sns-message-type", "Notification"),
        ("x-amz-sns-message-id", "m-1"),
    ];
    let (status, _) = http(
        "POST",
        &format!("{}/hook", failing.url),
        &notification,
        "{}",
    );
    assert_eq!(status, 503);
    let subscribe_url = format!("{}/confirm?Token=t", confirmer.url);
    let confirmation =
        serde_json::json!({"Type": "SubscriptionConfirmation", "SubscribeURL": subscribe_url});
    let headers = [
        ("x-amz-sns-message-type", "SubscriptionConfirmation"),
        ("x-amz-sns-message-id", "c-1"),
    ];
    let (status, _) = http(
        "POST",
        &format!("{}/hook", failing.url),
        &headers,
        &confirmation.to_string(),
    );
    assert_eq!(
        status, 200,
        "a confirmed subscription's confirmation is answered 200"
    );
    let (status, _) = http("GET", &format!("{}/anything", failing.url), &[], "");
    assert_eq!(status, 503);

    let (printed, _) = failing.finish();
    assert_eq!(
        printed.lines().collect::<Vec<_>>(),
        [
            "n=1 method=POST path=/hook type=Notification message_id=m-1 status=503",
            "n=2 method=POST path=/hook type=SubscriptionConfirmation message_id=c-1 confirmed=true status=200",
            "n=3 method=GET path=/anything type=- message_id=- status=503",
        ]
    );
    let (printed, _) = confirmer.finish();
    assert_eq!(
        printed.lines().collect::<Vec<_>>(),
        ["n=1 method=GET path=/confirm type=- message_id=- status=200"]
    );
}

/// A confirmation that cannot be confirmed says why; with `--no-confirm` it is answered like
/// any request. Bad options are refused before anything listens.
#[test]
fn the_endpoint_reports_a_failed_confirmation_and_refuses_bad_options() {
    let endpoint = Running::start(&["endpoint", "--port", "0", "--status", "500"], &[]);
    let headers = [("x-amz-sns-message-type", "SubscriptionConfirmation")];
    let (status, _) = http("POST", &format!("{}/", endpoint.url), &headers, "not json");
    assert_eq!(status, 200);
    let (printed, _) = endpoint.finish();
    let pairs = logfmt(printed.lines().next().unwrap());
    assert_eq!(field(&pairs, "confirmed"), Some("false"));
    assert!(
        field(&pairs, "error")
            .unwrap()
            .starts_with("the body is not JSON"),
        "{pairs:?}"
    );

    let endpoint = Running::start(
        &["endpoint", "--port", "0", "--status", "500", "--no-confirm"],
        &[],
    );
    let (status, _) = http("POST", &format!("{}/", endpoint.url), &headers, "{}");
    assert_eq!(status, 500);
    drop(endpoint);

    for bad in [["--status", "99"], ["--status", "600"], ["--port", "x"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_switchyard"))
            .arg("endpoint")
            .args(bad)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad:?}");
        assert!(out.stdout.is_empty(), "{bad:?} printed a ready line");
        assert!(!out.stderr.is_empty(), "{bad:?} said nothing");
    }
}

/// The variables of queue URLs, switchyard's and LocalStack's, cleared so that the machine's
/// own settings do not leak into a test.
const URL_VARS: [&str; 4] = [
    "SWITCHYARD_HOSTNAME",
    "SWITCHYARD_QUEUE_URL_STYLE",
    "LOCALSTACK_HOST",
    "SQS_ENDPOINT_STRATEGY",
];

fn switchyard(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
    command.args(["--host", "127.0.0.1", "--port", "0", "--clock", "manual"]);
    command.args(args);
    for var in URL_VARS {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    command
}

/// A bad queue URL style or host name, from the command line or any of the variables, stops the
/// binary at once with a usage error (status 2) that names what was wrong; nothing is served.
#[test]
fn bad_queue_url_styles_and_host_names_are_refused() {
    /// Arguments, variables, and what stderr says.
    type Case = (
        &'static [&'static str],
        &'static [(&'static str, &'static str)],
        &'static str,
    );
    let cases: [Case; 6] = [
        (
            &["--queue-url-style", "legacy"],
            &[],
            "[possible values: auto, standard, domain, path, dynamic, off]",
        ),
        (
            &[],
            &[("SWITCHYARD_QUEUE_URL_STYLE", "Standard")],
            "[possible values: auto, standard, domain, path, dynamic, off]",
        ),
        (
            &[],
            &[("SQS_ENDPOINT_STRATEGY", "subdomain")],
            "SQS_ENDPOINT_STRATEGY=\"subdomain\": expected auto, standard, domain, path, dynamic or off",
        ),
        (
            &["--hostname", "http://switchyard:4566"],
            &[],
            "expected HOST[:PORT]",
        ),
        (
            &[],
            &[("SWITCHYARD_HOSTNAME", "switchyard:port")],
            "expected HOST[:PORT]",
        ),
        (
            &[],
            &[("LOCALSTACK_HOST", "localhost.localstack.cloud:99999")],
            "LOCALSTACK_HOST=\"localhost.localstack.cloud:99999\": expected HOST[:PORT]",
        ),
    ];
    for (args, env, expected) in cases {
        let out = switchyard(args, env).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?} {env:?}: {stderr}");
        assert!(out.stdout.is_empty(), "no ready line: {:?}", out.stdout);
    }
}

/// The QueueUrl a CreateQueue of `name` answers (AWS JSON 1.0) to a client at `localhost`.
fn create_queue(server: &Running, name: &str) -> String {
    use std::io::{Read, Write};
    let address = server.url.strip_prefix("http://").unwrap();
    let port = address.rsplit_once(':').unwrap().1;
    let body = format!("{{\"QueueName\":\"{name}\"}}");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "POST / HTTP/1.1\r\nHost: localhost:{port}\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: AmazonSQS.CreateQueue\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (_, json) = answer.split_once("\r\n\r\n").unwrap();
    let doc: serde_json::Value = serde_json::from_str(json).unwrap();
    doc["QueueUrl"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
        .to_string()
}

/// LocalStack's `LOCALSTACK_HOST` and `SQS_ENDPOINT_STRATEGY` choose the queue URLs as
/// LocalStack reads them, where switchyard's own options and variables are not given; those win.
#[test]
fn localstack_variables_choose_queue_urls_unless_switchyards_own_are_given() {
    let localstack = [
        ("LOCALSTACK_HOST", "localstack.test:4510"),
        ("SQS_ENDPOINT_STRATEGY", "path"),
    ];
    let server = Running::from_command(switchyard(&[], &localstack));
    assert_eq!(
        create_queue(&server, "q"),
        "http://localstack.test:4510/queue/us-east-1/000000000000/q"
    );

    let own = [
        localstack[0],
        localstack[1],
        ("SWITCHYARD_QUEUE_URL_STYLE", "standard"),
    ];
    let server = Running::from_command(switchyard(&["--hostname", "switchyard"], &own));
    let port = server.url.rsplit_once(':').unwrap().1;
    assert_eq!(
        create_queue(&server, "q"),
        format!("http://sqs.us-east-1.switchyard:{port}/000000000000/q")
    );

    let server = Running::from_command(switchyard(&["--queue-url-style", "off"], &localstack));
    assert_eq!(
        create_queue(&server, "q"),
        "http://localstack.test:4510/000000000000/q"
    );

    // Empty variables count as unset: the host the client used, in the default style.
    let empty = [("LOCALSTACK_HOST", ""), ("SQS_ENDPOINT_STRATEGY", "")];
    let server = Running::from_command(switchyard(&[], &empty));
    let port = server.url.rsplit_once(':').unwrap().1;
    assert_eq!(
        create_queue(&server, "q"),
        format!("http://localhost:{port}/000000000000/q")
    );
}
