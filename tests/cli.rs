//! The `switchyard` binary as a user starts it: what it says when it cannot start, its init
//! resources and scripts, and the LocalStack settings it takes from the environment.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
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

/// What the machine's environment could set that these tests choose themselves.
const SETTINGS: [&str; 16] = [
    "AWS_ENDPOINT_URL",
    "AWS_DEFAULT_REGION",
    "AWS_REGION",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "LOCALSTACK_HOST",
    "SWITCHYARD_HOST",
    "SWITCHYARD_PORT",
    "SWITCHYARD_INIT",
    "SWITCHYARD_INIT_RESOURCES",
    "GATEWAY_LISTEN",
    "DEBUG",
    "LS_LOG",
    "RUST_LOG",
    "SERVICES",
    "PERSISTENCE",
];

/// A `switchyard` process started with `args` and `env`, read up to its `Ready.` line; killed
/// when dropped. Its stderr is kept for the test to read once it has stopped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
        for name in SETTINGS {
            command.env_remove(name);
        }
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap();
        let lines = first_lines(child.stdout.take().unwrap(), 2);
        let url = lines[0]
            .strip_prefix("switchyard listening on ")
            .unwrap_or_else(|| panic!("not the ready line: {lines:?}"))
            .to_string();
        assert_eq!(
            lines[1], "Ready.",
            "LocalStack's ready line second: {lines:?}"
        );
        Server { child, url }
    }

    /// `http://127.0.0.1:<port>` of a server that may listen on all interfaces.
    fn local_url(&self) -> String {
        self.url.replace("0.0.0.0", "127.0.0.1")
    }

    fn get_json(&self, path: &str) -> Value {
        let (status, body) = http_get(&self.local_url(), path);
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// Stops it and answers what it wrote to stderr.
    fn stop(mut self) -> String {
        self.child.kill().unwrap();
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        self.child.wait().unwrap();
        stderr
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first `n` lines of `stdout`, or panics if the process closes it first. The lines are read
/// on a thread so that a server that never becomes ready fails the test instead of hanging it.
fn first_lines(stdout: impl Read + Send + 'static, n: usize) -> Vec<String> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let lines: Vec<String> = BufReader::new(stdout)
            .lines()
            .take(n)
            .map_while(Result::ok)
            .collect();
        let _ = send.send(lines);
    });
    let lines = receive
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("switchyard printed its ready lines");
    assert_eq!(lines.len(), n, "stdout closed early: {lines:?}");
    lines
}

/// A plain HTTP/1.1 GET: the status and the body.
fn http_get(url: &str, path: &str) -> (u16, String) {
    let address = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

/// A fresh directory under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("switchyard-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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
    let server = Server::start(
        &[
            "--port",
            "0",
            "--clock",
            "manual",
            "--init-resources",
            file.to_str().unwrap(),
        ],
        &[],
    );
    let resources = server.get_json("/_switchyard/resources");
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
        server.get_json("/_localstack/init"),
        json!({
            "completed": {"BOOT": true, "START": true, "READY": true, "SHUTDOWN": false},
            "scripts": [{"stage": "READY", "name": "resources.yaml", "state": "SUCCESSFUL"}],
        })
    );
    assert_eq!(
        server.get_json("/_localstack/init/ready")["completed"],
        true
    );
    let (status, body) = http_get(&server.url, "/_localstack/init/later");
    assert_eq!(status, 404, "{body}");
    let stderr = server.stop();
    assert!(stderr.contains("init resource created"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
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
        let out = Command::new(env!("CARGO_BIN_EXE_switchyard"))
            .args(["--port", "0", "--init-resources", file.to_str().unwrap()])
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
    std::fs::remove_dir_all(&dir).unwrap();
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
    let server = Server::start(
        &[
            "--port",
            "0",
            "--region",
            "eu-central-1",
            "--init",
            ready.to_str().unwrap(),
        ],
        &[("PATH", &path), ("AWS_ACCESS_KEY_ID", "111122223333")],
    );
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
    let scripts = server.get_json("/_localstack/init")["scripts"].clone();
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
    let stderr = server.stop();
    assert!(stderr.contains("hello from init"), "{stderr}");
    assert!(stderr.contains("chmod +x"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
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
    let server = Server::start(
        &[],
        &[
            ("GATEWAY_LISTEN", "0.0.0.0:0"),
            ("SWITCHYARD_INIT", ready.to_str().unwrap()),
            ("DEBUG", "1"),
            ("SERVICES", "sqs,sns,s3"),
            ("PERSISTENCE", "1"),
        ],
    );
    assert!(server.url.starts_with("http://0.0.0.0:"), "{}", server.url);
    let endpoint = std::fs::read_to_string(&out).unwrap();
    assert_eq!(endpoint.trim(), server.local_url());
    assert_eq!(
        server.get_json("/_localstack/init/READY")["scripts"][0]["state"],
        "SUCCESSFUL"
    );
    let stderr = server.stop();
    assert!(stderr.contains("DEBUG"), "debug logs: {stderr}");
    assert!(stderr.contains("SERVICES names s3"), "{stderr}");
    assert!(stderr.contains("PERSISTENCE is ignored"), "{stderr}");

    // An address switchyard cannot use is refused before it starts.
    let out = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .env("GATEWAY_LISTEN", "0.0.0.0:http")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("GATEWAY_LISTEN=0.0.0.0:http: \"http\" is not a port"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
