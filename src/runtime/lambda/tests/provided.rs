//! provided.* functions: the function's own bootstrap (here a Python script) talks to the Runtime
//! API itself.

use super::*;

/// A bootstrap answering each invocation with what it was given: the payload and the headers.
fn echo_bootstrap() -> String {
    format!(
        r#"#!{}
import http.client, json, os
api = os.environ["AWS_LAMBDA_RUNTIME_API"]
host, port = api.rsplit(":", 1)
conn = http.client.HTTPConnection(host, int(port))
print("bootstrap up", flush=True)
while True:
    try:
        conn.request("GET", "/2018-06-01/runtime/invocation/next")
        r = conn.getresponse()
        body = r.read()
    except Exception:
        raise SystemExit(0)
    rid = r.getheader("Lambda-Runtime-Aws-Request-Id")
    answer = {{
        "event": json.loads(body),
        "deadline": r.getheader("Lambda-Runtime-Deadline-Ms"),
        "arn": r.getheader("Lambda-Runtime-Invoked-Function-Arn"),
        "trace": r.getheader("Lambda-Runtime-Trace-Id"),
        "client": r.getheader("Lambda-Runtime-Client-Context"),
        "handler": os.environ["_HANDLER"],
        "execution_env": os.environ.get("AWS_EXECUTION_ENV"),
        "pid": os.getpid(),
    }}
    conn.request("POST", "/2018-06-01/runtime/invocation/%s/response" % rid, json.dumps(answer))
    conn.getresponse().read()
"#,
        python().display()
    )
}

#[tokio::test]
async fn a_bootstrap_gets_the_event_and_aws_s_headers() {
    let scratch = Scratch::new("provided-echo");
    scratch.write("code/bootstrap", &echo_bootstrap(), true);
    let envs = environments(&scratch, Duration::from_secs(60));
    let mut f = function(&scratch, "provided.al2023", "anything.goes");
    f.invoked_arn = format!("{}:live", f.function_arn);
    let mut call = invocation(r#"{"hello": "world"}"#);
    call.trace_id = Some("Root=1-abc".into());
    call.client_context = Some("eyJhIjoxfQ==".into());
    let before = crate::clock::Clock::wall_millis();
    let invoked = envs.invoke(&f, call).await;
    let answer = response(&invoked);
    assert_eq!(answer["event"], serde_json::json!({"hello": "world"}));
    let deadline: i64 = answer["deadline"].as_str().unwrap().parse().unwrap();
    assert!(
        deadline >= before + 10_000 && deadline < before + 12_000,
        "{deadline}"
    );
    assert_eq!(answer["arn"], f.invoked_arn.as_str());
    assert_eq!(answer["trace"], "Root=1-abc");
    assert_eq!(answer["client"], r#"{"a":1}"#);
    assert_eq!(answer["handler"], "anything.goes");
    assert_eq!(
        answer["execution_env"],
        Value::Null,
        "not set for OS-only runtimes"
    );
    assert!(
        invoked.log.starts_with("bootstrap up\nSTART "),
        "{}",
        invoked.log
    );
    envs.shutdown().await;
}

#[tokio::test]
async fn a_layer_s_bootstrap_stands_in_for_a_missing_one() {
    let scratch = Scratch::new("provided-layer");
    std::fs::create_dir_all(scratch.0.join("code")).unwrap();
    scratch.write("layer/bootstrap", &echo_bootstrap(), true);
    let envs = environments(&scratch, Duration::from_secs(60));
    let mut f = function(&scratch, "provided.al2", "h");
    f.layers = vec![scratch.0.join("layer")];
    let answer = response(&envs.invoke(&f, invocation("7")).await);
    assert_eq!(answer["event"], 7);
    envs.shutdown().await;
}

#[tokio::test]
async fn a_missing_or_unexecutable_bootstrap_is_invalid_entrypoint() {
    let scratch = Scratch::new("provided-missing");
    std::fs::create_dir_all(scratch.0.join("code")).unwrap();
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "provided.al2023", "h");
    let call = invocation("{}");
    let id = call.request_id.clone();
    let invoked = envs.invoke(&f, call).await;
    let code = f.code.display();
    let expected = Outcome::NotStarted {
        error_type: "Runtime.InvalidEntrypoint".into(),
        message: format!(
            "RequestId: {id} Error: Couldn't find valid bootstrap(s): [{code}/bootstrap]"
        ),
    };
    assert_eq!(invoked.outcome, expected);
    assert!(
        invoked.log.contains("Runtime.InvalidEntrypoint\nEND "),
        "{}",
        invoked.log
    );
    scratch.write("code/bootstrap", "#!/bin/sh\n", false);
    let invoked = envs.invoke(&f, invocation("{}")).await;
    let Outcome::NotStarted { message, .. } = &invoked.outcome else {
        panic!("{:?}", invoked.outcome);
    };
    assert!(
        message.ends_with(&format!(
            "Error: fork/exec {code}/bootstrap: permission denied"
        )),
        "{message}"
    );
    scratch.write("code/bootstrap", "#!/nonexistent/interpreter\n", true);
    let invoked = envs.invoke(&f, invocation("{}")).await;
    let Outcome::NotStarted { message, .. } = &invoked.outcome else {
        panic!("{:?}", invoked.outcome);
    };
    assert!(
        message.ends_with("bootstrap: no such file or directory"),
        "{message}"
    );
    assert_eq!(envs.running(), 0);
}

/// A bootstrap that breaks the protocol: an unknown request id, then a second answer.
const RUDE: &str = r#"
import http.client, json, os
host, port = os.environ["AWS_LAMBDA_RUNTIME_API"].rsplit(":", 1)
conn = http.client.HTTPConnection(host, int(port))
def call(method, path, body=None):
    conn.request(method, "/2018-06-01/runtime" + path, body)
    r = conn.getresponse()
    return r, r.read()
r, _ = call("GET", "/invocation/next")
rid = r.getheader("Lambda-Runtime-Aws-Request-Id")
wrong, wrong_body = call("POST", "/invocation/not-the-id/response", "1")
call("POST", "/invocation/%s/response" % rid, json.dumps({"wrong": [wrong.status, json.loads(wrong_body)]}))
second, second_body = call("POST", "/invocation/%s/error" % rid, "{}")
r, _ = call("GET", "/invocation/next")
rid = r.getheader("Lambda-Runtime-Aws-Request-Id")
call("POST", "/invocation/%s/response" % rid, json.dumps({"second": [second.status, json.loads(second_body)]}))
call("GET", "/invocation/next")
"#;

#[tokio::test]
async fn an_unknown_request_id_or_a_second_answer_is_refused() {
    let scratch = Scratch::new("provided-rude");
    let bootstrap = format!("#!{}\n{RUDE}", python().display());
    scratch.write("code/bootstrap", &bootstrap, true);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "provided", "h");
    let refused = serde_json::json!([400, {"errorMessage": "Invalid request ID", "errorType": "InvalidRequestID"}]);
    let first = response(&envs.invoke(&f, invocation("{}")).await);
    assert_eq!(first["wrong"], refused);
    let second = response(&envs.invoke(&f, invocation("{}")).await);
    assert_eq!(second["second"], refused);
    envs.shutdown().await;
}

/// A bootstrap that reports an init error and goes on asking for invocations (AWS says a runtime
/// should exit after it).
const INIT_ERROR: &str = r#"
import http.client, os
host, port = os.environ["AWS_LAMBDA_RUNTIME_API"].rsplit(":", 1)
conn = http.client.HTTPConnection(host, int(port))
conn.request("POST", "/2018-06-01/runtime/init/error",
             '{"errorMessage": "no config", "errorType": "Custom.Init"}',
             {"Lambda-Runtime-Function-Error-Type": "Custom.Init"})
conn.getresponse().read()
conn.request("GET", "/2018-06-01/runtime/invocation/next")
conn.getresponse().read()
"#;

#[tokio::test]
async fn an_init_error_answers_the_invocation_and_the_next_one_starts_anew() {
    let scratch = Scratch::new("provided-init");
    let bootstrap = format!("#!{}\n{INIT_ERROR}", python().display());
    scratch.write("code/bootstrap", &bootstrap, true);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "provided.al2023", "h");
    let expected = serde_json::json!({"errorMessage": "no config", "errorType": "Custom.Init"});
    let first = envs.invoke(&f, invocation("{}")).await;
    assert_eq!(function_error(&first), expected);
    assert!(first.cold);
    eventually("the environment is stopped", || envs.running() == 0).await;
    let second = envs.invoke(&f, invocation("{}")).await;
    assert!(second.cold, "its init runs again");
    assert_eq!(function_error(&second), expected);
    envs.shutdown().await;
}

/// A bootstrap that never asks for an invocation (its cold start may take the init's 10 s and
/// then the function's timeout, as on AWS), then one that writes garbage to the Runtime API's
/// port and exits: each invocation times out or fails as AWS's would, and the environments of
/// other functions go on.
#[tokio::test]
async fn a_bootstrap_that_never_asks_or_writes_garbage_fails_only_its_invocation() {
    let scratch = Scratch::new("provided-silent");
    scratch.write("code/bootstrap", "#!/bin/sh\nexec sleep 60\n", true);
    let envs = environments(&scratch, Duration::from_secs(60));
    let mut f = function(&scratch, "provided", "h");
    f.timeout = Duration::from_secs(1);
    let invoked = envs.invoke(&f, invocation("{}")).await;
    let Outcome::FunctionError { payload, .. } = &invoked.outcome else {
        panic!("{:?}", invoked.outcome);
    };
    let text = String::from_utf8_lossy(payload);
    assert!(text.contains("Task timed out after 1.00 seconds"), "{text}");
    assert_eq!(envs.running(), 0, "the silent environment was killed");

    let garbage = format!(
        "#!{}\nimport os, socket\nhost, port = os.environ['AWS_LAMBDA_RUNTIME_API'].rsplit(':', 1)\n\
         s = socket.create_connection((host, int(port)))\ns.sendall(b'\\x00\\xffNOT HTTP\\r\\n\\r\\n' * 100)\n\
         s.close()\n",
        python().display()
    );
    scratch.write("code/bootstrap", &garbage, true);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "provided", "h");
    let invoked = envs.invoke(&f, invocation("{}")).await;
    let Outcome::FunctionError { payload, .. } = &invoked.outcome else {
        panic!("{:?}", invoked.outcome);
    };
    let text = String::from_utf8_lossy(payload);
    assert!(text.contains("Runtime.ExitError"), "{text}");

    // Another function's environment is unharmed.
    scratch.write("code/bootstrap", &echo_bootstrap(), true);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "provided", "h");
    let invoked = envs.invoke(&f, invocation(r#"{"ok": 1}"#)).await;
    assert!(
        matches!(invoked.outcome, Outcome::Response(_)),
        "{:?}",
        invoked.outcome
    );
}
