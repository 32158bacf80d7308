//! The `switchyard` binary as a user starts it: what it says when it cannot start.

use std::net::TcpListener;
use std::process::Command;

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

/// A running `switchyard` (ended when dropped) and its URL, from its ready line.
struct Running {
    child: std::process::Child,
    url: String,
}

impl Running {
    fn start(args: &[&str], env: &[(&str, &str)]) -> Running {
        use std::io::BufRead;
        let mut child = switchyard(args, env)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("switchyard listening on ")
            .unwrap_or_else(|| panic!("ready line: {line:?}"))
            .to_string();
        Running { child, url }
    }

    /// The QueueUrl a CreateQueue of `name` answers (AWS JSON 1.0) to a client at `localhost`.
    fn create_queue(&self, name: &str) -> String {
        use std::io::{Read, Write};
        let address = self.url.strip_prefix("http://").unwrap();
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
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// LocalStack's `LOCALSTACK_HOST` and `SQS_ENDPOINT_STRATEGY` choose the queue URLs as
/// LocalStack reads them, where switchyard's own options and variables are not given; those win.
#[test]
fn localstack_variables_choose_queue_urls_unless_switchyards_own_are_given() {
    let localstack = [
        ("LOCALSTACK_HOST", "localstack.test:4510"),
        ("SQS_ENDPOINT_STRATEGY", "path"),
    ];
    let server = Running::start(&[], &localstack);
    assert_eq!(
        server.create_queue("q"),
        "http://localstack.test:4510/queue/us-east-1/000000000000/q"
    );

    let own = [
        localstack[0],
        localstack[1],
        ("SWITCHYARD_QUEUE_URL_STYLE", "standard"),
    ];
    let server = Running::start(&["--hostname", "switchyard"], &own);
    let port = server.url.rsplit_once(':').unwrap().1;
    assert_eq!(
        server.create_queue("q"),
        format!("http://sqs.us-east-1.switchyard:{port}/000000000000/q")
    );

    let server = Running::start(&["--queue-url-style", "off"], &localstack);
    assert_eq!(
        server.create_queue("q"),
        "http://localstack.test:4510/000000000000/q"
    );

    // Empty variables count as unset: the host the client used, in the default style.
    let empty = [("LOCALSTACK_HOST", ""), ("SQS_ENDPOINT_STRATEGY", "")];
    let server = Running::start(&[], &empty);
    let port = server.url.rsplit_once(':').unwrap().1;
    assert_eq!(
        server.create_queue("q"),
        format!("http://localhost:{port}/000000000000/q")
    );
}
