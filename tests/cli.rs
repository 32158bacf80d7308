//! The `switchyard` binary as a user starts it: what it says when it cannot start, what its log
//! lines look like, `switchyard endpoint`, its init resources and scripts, and the LocalStack
//! settings it takes from the environment.

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
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
        // Byte by byte, so that what follows the ready line (`Ready.`) stays for `finish`.
        let stdout = child.stdout.as_mut().unwrap();
        let (mut line, mut byte) = (Vec::new(), [0u8]);
        while stdout.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        let ready = String::from_utf8_lossy(&line).into_owned();
        let url = ready
            .split("listening on ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no ready line: {ready:?}"))
            .to_string();
        Running { child, url }
    }

    /// Stops it as a supervisor does (SIGTERM, so that it writes every log line it kept; its
    /// shutdown is bounded) and answers what it wrote to stdout after the ready line, and to
    /// stderr, both read to their end as it exits.
    fn finish(mut self) -> (String, String) {
        let pid = self.child.id().to_string();
        let term = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(term.success());
        // stderr on a thread of its own, so that a full pipe cannot hold the exit up.
        let mut stderr = self.child.stderr.take().unwrap();
        let err = std::thread::spawn(move || {
            let mut err = String::new();
            stderr.read_to_string(&mut err).unwrap();
            err
        });
        let mut out = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let err = err.join().unwrap();
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

/// What the machine's environment could set that the init and LocalStack-settings tests choose
/// themselves.
const INIT_VARS: [&str; 14] = [
    "AWS_ENDPOINT_URL",
    "AWS_DEFAULT_REGION",
    "AWS_REGION",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "SWITCHYARD_HOST",
    "SWITCHYARD_PORT",
    "SWITCHYARD_INIT",
    "SWITCHYARD_INIT_RESOURCES",
    "GATEWAY_LISTEN",
    "DEBUG",
    "LS_LOG",
    "SERVICES",
    "PERSISTENCE",
];

/// `switchyard` with `args` and `env` only, of all the settings it reads.
fn bare(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
    command.args(args);
    for var in INIT_VARS.iter().chain(&URL_VARS).chain(&["RUST_LOG"]) {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    command
}

/// Stops `server`; `Ready.` must be the next line after its ready line. Answers its stderr.
fn stop(server: Running) -> String {
    let (stdout, stderr) = server.finish();
    assert_eq!(stdout.lines().next(), Some("Ready."), "{stdout}");
    stderr
}

fn get_json(url: &str, path: &str) -> Value {
    let (status, body) = http("GET", &format!("{url}{path}"), &[], "");
    assert_eq!(status, 200, "GET {path}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// A fresh directory under the system's temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("switchyard-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn write_script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The names of the queues of one account and region in `/_switchyard/resources`.
fn queue_names(resources: &Value, account: &str, region: &str) -> Vec<String> {
    let regions = resources["regions"].as_array().unwrap();
    let Some(place) = regions
        .iter()
        .find(|r| r["account"] == account && r["region"] == region)
    else {
        return Vec::new();
    };
    place["queues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["name"].as_str().unwrap().to_string())
        .collect()
}

/// The resource file's queues exist when the ready lines are out, with their attributes; the
/// file shows in `/_localstack/init` as SUCCESSFUL and the READY stage as completed.
#[test]
fn an_init_file_creates_its_resources_before_the_ready_lines() {
    let dir = scratch("resources");
    let file = dir.join("resources.yaml");
    std::fs::write(
        &file,
        r#"resources:
  - queue: {QueueName: orders-dlq}
  - queue:
      QueueName: orders
      Attributes:
        VisibilityTimeout: 45
        RedrivePolicy: {deadLetterTargetArn: "arn:aws:sqs:us-east-1:000000000000:orders-dlq", maxReceiveCount: 3}
  - topic: {Name: order-events}
  - subscription:
      TopicArn: arn:aws:sns:us-east-1:000000000000:order-events
      Protocol: sqs
      Endpoint: arn:aws:sqs:us-east-1:000000000000:orders
  - queue: {QueueName: audit}
    region: eu-west-1
    account: "111122223333"
"#,
    )
    .unwrap();
    let server = Running::from_command(bare(
        &[
            "--port",
            "0",
            "--clock",
            "manual",
            "--init-resources",
            file.to_str().unwrap(),
        ],
        &[],
    ));
    let resources = get_json(&server.url, "/_switchyard/resources");
    assert_eq!(
        queue_names(&resources, "000000000000", "us-east-1"),
        ["orders", "orders-dlq"]
    );
    assert_eq!(
        queue_names(&resources, "111122223333", "eu-west-1"),
        ["audit"]
    );
    let place = &resources["regions"][0];
    let orders = &place["queues"][0];
    assert_eq!(orders["attributes"]["VisibilityTimeout"], 45);
    assert_eq!(orders["maxReceiveCount"], 3);
    let subscriptions = &place["topics"][0]["subscriptions"];
    assert_eq!(
        subscriptions[0]["endpoint"],
        "arn:aws:sqs:us-east-1:000000000000:orders"
    );
    assert_eq!(
        get_json(&server.url, "/_localstack/init"),
        json!({
            "completed": {"BOOT": true, "START": true, "READY": true, "SHUTDOWN": false},
            "scripts": [{"stage": "READY", "name": "resources.yaml", "state": "SUCCESSFUL"}],
        })
    );
    assert_eq!(
        get_json(&server.url, "/_localstack/init/ready")["completed"],
        true
    );
    let (status, body) = http(
        "GET",
        &format!("{}/_localstack/init/later", server.url),
        &[],
        "",
    );
    assert_eq!(status, 404, "{body}");
    let stderr = stop(server);
    assert!(stderr.contains("init resource created"), "{stderr}");
}

/// An entry the service refuses stops switchyard before its ready lines, with AWS's error and the
/// entry named; so does a file that does not parse or an entry the model does not allow.
#[test]
fn a_bad_init_file_names_the_entry_and_exits_non_zero() {
    let dir = scratch("bad-resources");
    let cases = [
        (
            "refused.yaml",
            "resources:\n  - queue: {QueueName: orders-dlq}\n  - queue: {QueueName: orders, Attributes: {Colour: blue}}\n",
            "init file FILE: entry 2 (queue \"orders\"): InvalidAttributeName: ",
        ),
        (
            "misspelt.json",
            r#"{"resources": [{"topic": {"Name": "t", "Atributes": {}}}]}"#,
            "init file FILE: entry 1 (topic \"t\"): CreateTopic has no member \"Atributes\"",
        ),
        (
            "broken.yaml",
            "resources:\n  - queue: {QueueName: [unclosed\n",
            "init file FILE: not YAML: ",
        ),
        (
            "targets.yaml",
            "resources:\n  - rule: {Name: r, EventPattern: {source: [shop]}}\n  - targets: {Rule: r, Targets: [{Id: q, Arn: \"arn:aws:sqs:us-east-1:000000000000:jobs.fifo\"}]}\n",
            "init file FILE: entry 2 (targets \"r\"): target \"q\": ValidationException: Parameter(s) SqsParameters must be specified for target: q.",
        ),
        ("missing.yaml", "", "init file FILE: "),
    ];
    for (name, text, expected) in cases {
        let file = dir.join(name);
        if !text.is_empty() {
            std::fs::write(&file, text).unwrap();
        }
        let out = bare(
            &["--port", "0", "--init-resources", file.to_str().unwrap()],
            &[],
        )
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let expected = format!(
            "switchyard: {}",
            expected.replace("FILE", file.to_str().unwrap())
        );
        assert!(!out.status.success(), "{name}: {stderr}");
        assert!(
            stderr.contains(&expected),
            "{name}: expected {expected:?} in {stderr}"
        );
        assert!(
            out.stdout.is_empty(),
            "{name}: no ready line: {:?}",
            out.stdout
        );
    }
}

/// The scripts of a directory run in order once the server answers, with the endpoint, the
/// region and test credentials (a variable already set is kept) and an `awslocal` that passes
/// `--endpoint-url`; a failing script is ERROR and the next still runs; their output goes to
/// stderr; `Ready.` follows them all.
#[test]
fn init_scripts_run_in_order_with_the_endpoint_and_their_states() {
    let dir = scratch("scripts");
    let ready = dir.join("ready.d");
    let bin = dir.join("bin");
    std::fs::create_dir_all(ready.join("more")).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    let out = dir.join("out");
    // A stand-in for the AWS CLI: it writes down how awslocal called it.
    write_script(
        &bin.join("aws"),
        &format!("#!/bin/sh\necho \"aws $*\" >> {}\n", out.display()),
    );
    write_script(
        &ready.join("10-env.sh"),
        &format!(
            "#!/bin/sh\necho hello from init\n\
             echo \"$AWS_ENDPOINT_URL $AWS_DEFAULT_REGION $AWS_ACCESS_KEY_ID $AWS_SECRET_ACCESS_KEY $LOCALSTACK_HOST\" >> {out}\n\
             awslocal sqs list-queues\n",
            out = out.display()
        ),
    );
    write_script(&ready.join("20-fail.sh"), "#!/bin/sh\nexit 3\n");
    std::fs::write(ready.join("25-not-executable.sh"), "#!/bin/sh\n").unwrap();
    write_script(
        &ready.join("more/30-last.sh"),
        &format!("#!/bin/sh\necho last >> {}\n", out.display()),
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let server = Running::from_command(bare(
        &[
            "--port",
            "0",
            "--region",
            "eu-central-1",
            "--init",
            ready.to_str().unwrap(),
        ],
        &[("PATH", &path), ("AWS_ACCESS_KEY_ID", "111122223333")],
    ));
    let host = server.url.strip_prefix("http://").unwrap().to_string();
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        written.lines().collect::<Vec<_>>(),
        [
            format!("{} eu-central-1 111122223333 test {host}", server.url),
            format!("aws --endpoint-url {} sqs list-queues", server.url),
            "last".to_string(),
        ]
    );
    let scripts = get_json(&server.url, "/_localstack/init")["scripts"].clone();
    let states: Vec<(&str, &str)> = scripts
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        states,
        [
            ("10-env.sh", "SUCCESSFUL"),
            ("20-fail.sh", "ERROR"),
            ("25-not-executable.sh", "ERROR"),
            ("more/30-last.sh", "SUCCESSFUL"),
        ]
    );
    let stderr = stop(server);
    assert!(stderr.contains("hello from init"), "{stderr}");
    assert!(stderr.contains("chmod +x"), "{stderr}");
}

/// The Docker image's settings, without Docker: LocalStack's GATEWAY_LISTEN chooses the address
/// (all interfaces, here on a free port), SWITCHYARD_INIT names ready.d, whose script reaches
/// the server on the loopback address; DEBUG=1, SERVICES and PERSISTENCE are taken and logged.
#[test]
fn the_images_localstack_settings_are_taken_from_the_environment() {
    let dir = scratch("docker");
    let ready = dir.join("ready.d");
    std::fs::create_dir_all(&ready).unwrap();
    let out = dir.join("out");
    write_script(
        &ready.join("init-aws.sh"),
        &format!(
            "#!/bin/sh\necho \"$AWS_ENDPOINT_URL\" > {}\n",
            out.display()
        ),
    );
    let server = Running::from_command(bare(
        &[],
        &[
            ("GATEWAY_LISTEN", "0.0.0.0:0"),
            ("SWITCHYARD_INIT", ready.to_str().unwrap()),
            ("DEBUG", "1"),
            ("SERVICES", "sqs,sns,s3"),
            ("PERSISTENCE", "1"),
        ],
    ));
    assert!(server.url.starts_with("http://0.0.0.0:"), "{}", server.url);
    let local = server.url.replace("0.0.0.0", "127.0.0.1");
    let endpoint = std::fs::read_to_string(&out).unwrap();
    assert_eq!(endpoint.trim(), local);
    assert_eq!(
        get_json(&local, "/_localstack/init/READY")["scripts"][0]["state"],
        "SUCCESSFUL"
    );
    let stderr = stop(server);
    assert!(stderr.contains("level=debug"), "debug logs: {stderr}");
    assert!(stderr.contains("SERVICES names s3"), "{stderr}");
    assert!(stderr.contains("PERSISTENCE is ignored"), "{stderr}");

    // An address switchyard cannot use is refused before it starts.
    let out = bare(&[], &[("GATEWAY_LISTEN", "0.0.0.0:http")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("GATEWAY_LISTEN=0.0.0.0:http: \"http\" is not a port"),
        "{stderr}"
    );
}

/// Reads `stream` until the server closes it, whatever it sends first; fails if it stays open
/// for 30 s of wall time (a guard against a hang, not a timing).
fn read_until_closed(stream: &mut TcpStream, what: &str) -> Vec<u8> {
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut got = Vec::new();
    match stream.read_to_end(&mut got) {
        Ok(_) => got,
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => got,
        Err(e) => panic!(
            "{what}: still open ({e}); read {:?}",
            String::from_utf8_lossy(&got)
        ),
    }
}

/// SIGTERM ends switchyard whatever its connections are doing: one that sent half its headers
/// and stopped, and a long poll in flight, are closed and the process exits successfully.
#[test]
fn sigterm_ends_the_process_whatever_its_connections_do() {
    let mut server = Running::start(&["--host", "127.0.0.1", "--port", "0"], &[]);
    let url = server.url.clone();
    let host = url.strip_prefix("http://").unwrap();
    let mut half = TcpStream::connect(host).unwrap();
    half.write_all(format!("POST / HTTP/1.1\r\nHost: {host}\r\nContent-Ty").as_bytes())
        .unwrap();
    let (status, body) = query(&url, "sqs", "Action=CreateQueue&QueueName=waiting");
    assert_eq!(status, 200, "{body}");
    let mut poll = TcpStream::connect(host).unwrap();
    let params =
        format!("Action=ReceiveMessage&QueueUrl={url}/000000000000/waiting&WaitTimeSeconds=20");
    let request = format!(
        "POST / HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential=test/20261130/us-east-1/sqs/aws4_request, \
         SignedHeaders=host, Signature=0\r\nContent-Length: {}\r\n\r\n{params}",
        params.len()
    );
    poll.write_all(request.as_bytes()).unwrap();
    // Answered after both: the half-sent request is being read by then, not waiting in the backlog.
    assert_eq!(get_json(&url, "/_switchyard/health")["status"], "ok");

    let term = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let mut exited = None;
    for _ in 0..600 {
        exited = server.child.try_wait().unwrap();
        if exited.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = exited.expect("switchyard still running 30 s after SIGTERM");
    assert!(status.success(), "{status}");
    read_until_closed(&mut half, "the half-sent request");
    read_until_closed(&mut poll, "the long poll");
    // Every line logged is written whole before the process ends, the shutdown's included.
    let mut stderr = String::new();
    let mut pipe = server.child.stderr.take().unwrap();
    pipe.read_to_string(&mut stderr).unwrap();
    assert!(stderr.ends_with('\n'), "{stderr}");
    let lines: Vec<Vec<(String, String)>> = stderr.lines().map(logfmt).collect();
    let has = |key: &str, value: &str| lines.iter().any(|l| field(l, key) == Some(value));
    assert!(has("operation", "CreateQueue"), "{stderr}");
    assert!(has("operation", "ReceiveMessage"), "{stderr}");
    assert!(has("msg", "shutting down"), "{stderr}");
}

/// `--idle-timeout` closes a connection that sent half its headers and one that sent nothing,
/// and switchyard serves on.
#[test]
fn idle_and_stalled_connections_are_closed() {
    let server = Running::start(
        &["--host", "127.0.0.1", "--port", "0", "--idle-timeout", "1"],
        &[],
    );
    let host = server.url.strip_prefix("http://").unwrap().to_string();
    let mut half = TcpStream::connect(&host).unwrap();
    half.write_all(format!("GET /_switchyard/health HTTP/1.1\r\nHost: {host}\r\nAcc").as_bytes())
        .unwrap();
    let mut idle = TcpStream::connect(&host).unwrap();
    read_until_closed(&mut half, "the half-sent request");
    assert!(read_until_closed(&mut idle, "the idle connection").is_empty());
    assert_eq!(get_json(&server.url, "/_switchyard/health")["status"], "ok");
}

/// `switchyard state export FILE` writes the running server's state (`-`: to stdout), and a
/// switchyard started with `--state-file FILE` (or `SWITCHYARD_STATE_FILE`) has its queues.
#[test]
fn state_export_writes_a_file_that_state_file_starts_from() {
    let dir = scratch("state-export");
    let server = Running::from_command(switchyard(&[], &[]));
    create_queue(&server, "kept");
    let file = dir.join("world.json");
    let out = bare(
        &[
            "state",
            "export",
            file.to_str().unwrap(),
            "--endpoint",
            &server.url,
        ],
        &[],
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(doc["format"], "switchyard-state");
    assert_eq!(doc["version"], 1);
    let out = bare(&["state", "export", "-", "--endpoint", &server.url], &[])
        .output()
        .unwrap();
    assert!(out.status.success());
    let streamed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(streamed, doc, "stdout gets the same file");
    drop(server);

    let path = file.to_str().unwrap();
    let flag = Running::from_command(switchyard(&["--state-file", path], &[]));
    let resources = get_json(&flag.url, "/_switchyard/resources");
    assert_eq!(
        queue_names(&resources, "000000000000", "us-east-1"),
        ["kept"]
    );
    let variable = Running::from_command(switchyard(&[], &[("SWITCHYARD_STATE_FILE", path)]));
    let resources = get_json(&variable.url, "/_switchyard/resources");
    assert_eq!(
        queue_names(&resources, "000000000000", "us-east-1"),
        ["kept"]
    );
}

/// A state file that is missing, not JSON or of another version stops switchyard before its
/// ready line with the path and the cause, and a failure status; no panic.
#[test]
fn a_bad_state_file_names_the_path_and_the_cause_and_exits_non_zero() {
    let dir = scratch("bad-state");
    let cases = [
        ("missing.json", None, "No such file"),
        ("text.json", Some("hello"), "not a JSON document"),
        (
            "v9.json",
            Some(r#"{"format":"switchyard-state","version":9,"state":{}}"#),
            "version 9 is not supported",
        ),
        (
            "other.json",
            Some(r#"{"format":"something","version":1,"state":{}}"#),
            "not a switchyard state",
        ),
    ];
    for (name, text, cause) in cases {
        let file = dir.join(name);
        if let Some(text) = text {
            std::fs::write(&file, text).unwrap();
        }
        let out = bare(
            &["--port", "0", "--state-file", file.to_str().unwrap()],
            &[],
        )
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: {stderr}");
        let expected = format!("switchyard: state file {}: ", file.display());
        assert!(stderr.contains(&expected), "{name}: {stderr}");
        assert!(stderr.contains(cause), "{name}: {cause} in {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(out.stdout.is_empty(), "{name}: no ready line");
    }
}

/// `switchyard state export` with no switchyard at the endpoint says so and fails.
#[test]
fn state_export_without_a_server_fails_with_a_message() {
    let free = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", free.local_addr().unwrap());
    drop(free);
    let out = bare(&["state", "export", "-", "--endpoint", &url], &[])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("cannot get"), "{stderr}");
    assert!(out.stdout.is_empty());
}

/// `switchyard model print` prints the custom bus's botocore model; `model install` writes it
/// where `aws configure add-model` would (DIR/eventsv2/2025-05-15/service-2.json, ~/.aws/models
/// by default) and prints the path; a folder it cannot write is an error naming it.
#[test]
fn the_custom_bus_model_prints_and_installs() {
    let bin = env!("CARGO_BIN_EXE_switchyard");
    let out = Command::new(bin).args(["model", "print"]).output().unwrap();
    assert!(out.status.success());
    let model: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(model["metadata"]["apiVersion"], "2025-05-15");
    assert_eq!(model["metadata"]["targetPrefix"], "AWSEventsV2");
    assert_eq!(model["metadata"]["signingName"], "events");
    assert!(model["operations"]["PutEvents"].is_object());

    let home = std::env::temp_dir().join(format!("switchyard-model-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let out = Command::new(bin)
        .args(["model", "install"])
        .env("HOME", &home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = home.join(".aws/models/eventsv2/2025-05-15/service-2.json");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        path.display().to_string()
    );
    let installed: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(installed, model);

    let dir = home.join("models");
    let out = Command::new(bin)
        .args(["model", "install", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(dir.join("eventsv2/2025-05-15/service-2.json").is_file());

    // A file where the folder should be.
    let blocked = home.join("file");
    std::fs::write(&blocked, "").unwrap();
    let out = Command::new(bin)
        .args(["model", "install", "--dir"])
        .arg(&blocked)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write"));
    std::fs::remove_dir_all(&home).unwrap();
}
