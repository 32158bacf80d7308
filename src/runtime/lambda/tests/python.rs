//! python3.* functions, through switchyard's Python loop.

use super::*;
use serde_json::json;

const ECHO: &str = "def handler(event, context):\n    return event\n";

#[tokio::test]
async fn a_handler_gets_the_event_and_its_answer_comes_back() {
    let scratch = Scratch::new("py-echo");
    scratch.write("code/app.py", ECHO, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "python3.12", "app.handler");
    let invoked = envs
        .invoke(&f, invocation(r#"{"a": [1, "two", null]}"#))
        .await;
    assert_eq!(response(&invoked), json!({"a": [1, "two", null]}));
    assert!(invoked.cold);
    assert!(invoked.log.contains("\tInit Duration: "), "{}", invoked.log);
    // None is null.
    scratch.write(
        "code/none.py",
        "def handler(event, context):\n    pass\n",
        false,
    );
    let none = envs
        .invoke(
            &function(&scratch, "python3.12", "none.handler"),
            invocation("{}"),
        )
        .await;
    assert_eq!(none.outcome, Outcome::Response(b"null".to_vec()));
    envs.shutdown().await;
}

#[tokio::test]
async fn the_context_and_the_environment_are_aws_s() {
    let scratch = Scratch::new("py-context");
    let code = r#"
import os
def handler(event, context):
    keys = ["AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_FUNCTION_VERSION", "AWS_REGION", "TZ", "LANG",
            "AWS_ENDPOINT_URL", "AWS_EXECUTION_ENV", "_HANDLER", "MINE", "AWS_ACCESS_KEY_ID",
            "LAMBDA_TASK_ROOT", "AWS_LAMBDA_LOG_GROUP_NAME", "USER"]
    return {
        "request_id": context.aws_request_id,
        "function_name": context.function_name,
        "function_version": context.function_version,
        "invoked_function_arn": context.invoked_function_arn,
        "memory_limit_in_mb": context.memory_limit_in_mb,
        "log_group_name": context.log_group_name,
        "log_stream_name": context.log_stream_name,
        "remaining": context.get_remaining_time_in_millis(),
        "custom": context.client_context.custom,
        "cognito": context.identity.cognito_identity_id,
        "trace": os.environ.get("_X_AMZN_TRACE_ID"),
        "cwd": os.getcwd(),
        "env": {key: os.environ.get(key) for key in keys},
    }
"#;
    scratch.write("code/app.py", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let mut f = function(&scratch, "python3.12", "app.handler");
    f.invoked_arn = format!("{}:prod", f.function_arn);
    f.environment = BTreeMap::from([
        ("MINE".to_string(), "mine".to_string()),
        ("AWS_REGION".to_string(), "not-mine".to_string()),
    ]);
    let mut call = invocation("{}");
    call.client_context = Some("eyJjdXN0b20iOiB7ImsiOiAidiJ9fQ==".into()); // {"custom": {"k": "v"}}
    call.trace_id = Some("Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700;Sampled=1".into());
    let id = call.request_id.clone();
    let answer = response(&envs.invoke(&f, call).await);
    assert_eq!(answer["request_id"], id.as_str());
    assert_eq!(answer["function_name"], f.function_name.as_str());
    assert_eq!(answer["function_version"], "$LATEST");
    assert_eq!(answer["invoked_function_arn"], f.invoked_arn.as_str());
    assert_eq!(answer["memory_limit_in_mb"], "128");
    assert_eq!(
        answer["log_group_name"],
        format!("/aws/lambda/{}", f.function_name)
    );
    assert!(
        answer["log_stream_name"]
            .as_str()
            .unwrap()
            .contains("/[$LATEST]")
    );
    let remaining = answer["remaining"].as_i64().unwrap();
    assert!(remaining > 9_000 && remaining <= 10_000, "{remaining}");
    assert_eq!(answer["custom"], json!({"k": "v"}));
    assert_eq!(answer["cognito"], Value::Null);
    assert_eq!(
        answer["trace"],
        "Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700;Sampled=1"
    );
    let code_dir = std::fs::canonicalize(&f.code).unwrap();
    assert_eq!(answer["cwd"], code_dir.to_str().unwrap());
    let env = &answer["env"];
    assert_eq!(env["AWS_LAMBDA_FUNCTION_NAME"], f.function_name.as_str());
    assert_eq!(env["AWS_LAMBDA_FUNCTION_VERSION"], "$LATEST");
    assert_eq!(env["AWS_REGION"], "us-east-1");
    assert_eq!(env["TZ"], ":UTC");
    assert_eq!(env["LANG"], "en_US.UTF-8");
    assert_eq!(env["AWS_ENDPOINT_URL"], "http://127.0.0.1:4566");
    assert_eq!(env["AWS_EXECUTION_ENV"], "AWS_Lambda_python3.12");
    assert_eq!(env["_HANDLER"], "app.handler");
    assert_eq!(env["MINE"], "mine");
    assert_eq!(env["AWS_ACCESS_KEY_ID"], "000000000000");
    assert_eq!(
        env["USER"],
        Value::Null,
        "the parent's environment is not passed"
    );
    envs.shutdown().await;
}

#[tokio::test]
async fn an_exception_is_aws_s_error_document() {
    let scratch = Scratch::new("py-raise");
    let code = "def handler(event, context):\n    raise ValueError('boom')\n";
    scratch.write("code/app.py", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "python3.12", "app.handler");
    let call = invocation("{}");
    let id = call.request_id.clone();
    let invoked = envs.invoke(&f, call).await;
    let error = function_error(&invoked);
    assert_eq!(error["errorMessage"], "boom");
    assert_eq!(error["errorType"], "ValueError");
    assert_eq!(error["requestId"], id.as_str());
    let trace = error["stackTrace"].as_array().unwrap();
    assert_eq!(trace.len(), 1, "only the handler's frames: {trace:?}");
    let frame = trace[0].as_str().unwrap();
    assert!(frame.contains("app.py\", line 2, in handler"), "{frame}");
    assert!(frame.contains("raise ValueError('boom')"), "{frame}");
    assert!(
        invoked.log.contains("[ERROR] ValueError: boom\nTraceback"),
        "{}",
        invoked.log
    );
    // The environment goes on.
    let again = envs.invoke(&f, invocation("{}")).await;
    assert!(!again.cold);
    envs.shutdown().await;
}

#[tokio::test]
async fn a_module_that_does_not_import_fails_every_invocation_with_import_module_error() {
    let scratch = Scratch::new("py-import");
    scratch.write("code/other.py", ECHO, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "python3.12", "app.handler");
    for _ in 0..2 {
        let invoked = envs.invoke(&f, invocation("{}")).await;
        let error = function_error(&invoked);
        assert_eq!(error["errorType"], "Runtime.ImportModuleError");
        assert_eq!(
            error["errorMessage"],
            "Unable to import module 'app': No module named 'app'"
        );
        assert!(
            invoked
                .log
                .contains("[ERROR] Runtime.ImportModuleError: Unable to import module 'app'"),
            "{}",
            invoked.log
        );
    }
    // A dependency the module imports is named the same way.
    scratch.write("code/deps.py", "import not_installed\n", false);
    let f = function(&scratch, "python3.12", "deps.handler");
    let error = function_error(&envs.invoke(&f, invocation("{}")).await);
    assert_eq!(
        error["errorMessage"],
        "Unable to import module 'deps': No module named 'not_installed'"
    );
    envs.shutdown().await;
}

#[tokio::test]
async fn a_missing_handler_is_handler_not_found_and_dotted_names_are_found() {
    let scratch = Scratch::new("py-names");
    scratch.write("code/app.py", ECHO, false);
    scratch.write("code/dir/deep.py", ECHO, false);
    scratch.write("code/pkg/__init__.py", "", false);
    scratch.write("code/pkg/mod.py", ECHO, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "python3.12", "app.nope");
    let error = function_error(&envs.invoke(&f, invocation("{}")).await);
    assert_eq!(error["errorType"], "Runtime.HandlerNotFound");
    assert_eq!(
        error["errorMessage"],
        "Handler 'nope' missing on module 'app'"
    );
    // AWS reports it per invocation: the environment stays.
    let again = envs.invoke(&f, invocation("{}")).await;
    assert!(!again.cold);
    assert_eq!(
        function_error(&again)["errorType"],
        "Runtime.HandlerNotFound"
    );
    for handler in ["dir/deep.handler", "pkg.mod.handler"] {
        let f = function(&scratch, "python3.12", handler);
        let invoked = envs.invoke(&f, invocation(r#"{"k": 1}"#)).await;
        assert_eq!(response(&invoked), json!({"k": 1}), "{handler}");
    }
    envs.shutdown().await;
}

const SLEEPER: &str = r#"
import time
def handler(event, context):
    print("about to sleep")
    time.sleep(event.get("sleep", 0))
    return "awake"
"#;

#[tokio::test]
async fn a_timeout_kills_the_environment_and_the_next_invocation_is_cold() {
    let scratch = Scratch::new("py-timeout");
    scratch.write("code/app.py", SLEEPER, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let mut f = function(&scratch, "python3.12", "app.handler");
    f.timeout = Duration::from_secs(1);
    let call = invocation(r#"{"sleep": 5}"#);
    let id = call.request_id.clone();
    let invoked = envs.invoke(&f, call).await;
    let error = function_error(&invoked);
    let message = error["errorMessage"].as_str().unwrap();
    assert!(
        message.ends_with(&format!(" {id} Task timed out after 1.00 seconds")),
        "{message}"
    );
    assert_eq!(error.get("errorType"), None);
    assert!(invoked.duration >= Duration::from_secs(1));
    assert!(
        invoked.duration < Duration::from_secs(3),
        "{:?}",
        invoked.duration
    );
    let lines = between_start_and_end(&invoked.log);
    assert_eq!(lines, ["about to sleep", message], "{}", invoked.log);
    assert!(invoked.log.contains("\tStatus: timeout"), "{}", invoked.log);
    eventually("the environment is gone", || envs.running() == 0).await;
    let next = envs.invoke(&f, invocation(r#"{"sleep": 0}"#)).await;
    assert!(next.cold);
    assert_eq!(response(&next), json!("awake"));
    envs.shutdown().await;
}

#[tokio::test]
async fn a_runtime_that_exits_under_an_invocation_is_runtime_exit_error() {
    let scratch = Scratch::new("py-exit");
    let code = "import os\ndef handler(event, context):\n    if event.get('exit'):\n        os._exit(1)\n    return 'ok'\n";
    scratch.write("code/app.py", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "python3.12", "app.handler");
    let call = invocation(r#"{"exit": true}"#);
    let id = call.request_id.clone();
    let invoked = envs.invoke(&f, call).await;
    let error = function_error(&invoked);
    assert_eq!(error["errorType"], "Runtime.ExitError");
    assert_eq!(
        error["errorMessage"],
        format!("RequestId: {id} Error: Runtime exited with error: exit status 1")
    );
    assert!(
        invoked.log.contains("Runtime.ExitError\nEND RequestId"),
        "{}",
        invoked.log
    );
    assert_eq!(envs.running(), 0);
    let next = envs.invoke(&f, invocation("{}")).await;
    assert!(next.cold);
    assert_eq!(response(&next), json!("ok"));
    envs.shutdown().await;
}

#[tokio::test]
async fn printed_lines_go_to_the_log_init_lines_before_start() {
    let scratch = Scratch::new("py-print");
    let code = r#"
import logging, sys
print("loading")
def handler(event, context):
    print("hello", event["name"])
    print("to stderr", file=sys.stderr)
    logging.getLogger().warning("careful")
    sys.stdout.write("no newline")
    return None
"#;
    scratch.write("code/app.py", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "python3.12", "app.handler");
    let call = invocation(r#"{"name": "world"}"#);
    let id = call.request_id.clone();
    let invoked = envs.invoke(&f, call).await;
    let log = &invoked.log;
    assert!(
        log.starts_with(&format!(
            "loading\nSTART RequestId: {id} Version: $LATEST\n"
        )),
        "{log}"
    );
    let lines = between_start_and_end(log);
    assert_eq!(lines[..2], ["hello world", "to stderr"], "{log}");
    assert!(lines[2].starts_with("[WARNING]\t20"), "{log}");
    assert!(lines[2].ends_with(&format!("Z\t{id}\tcareful")), "{log}");
    assert_eq!(lines[3], "no newline");
    let report = log.lines().last().unwrap();
    assert!(
        report.starts_with(&format!("REPORT RequestId: {id}\tDuration: ")),
        "{log}"
    );
    assert!(report.contains(" ms\tBilled Duration: "), "{report}");
    assert!(
        report.contains("\tMemory Size: 128 MB\tMax Memory Used: "),
        "{report}"
    );
    // A warm invocation's log has its own lines only, and no Init Duration.
    let warm = envs.invoke(&f, invocation(r#"{"name": "again"}"#)).await;
    assert!(!warm.log.contains("loading"), "{}", warm.log);
    assert!(!warm.log.contains("Init Duration"), "{}", warm.log);
    assert_eq!(between_start_and_end(&warm.log)[0], "hello again");
    envs.shutdown().await;
}

const PID: &str = "import os\ndef handler(event, context):\n    return os.getpid()\n";

// On worker threads, as switchyard runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_environment_is_reused_and_a_new_revision_gets_a_new_one() {
    let scratch = Scratch::new("py-warm");
    scratch.write("code/app.py", PID, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let mut f = function(&scratch, "python3.12", "app.handler");
    let first = envs.invoke(&f, invocation("{}")).await;
    let second = envs.invoke(&f, invocation("{}")).await;
    assert!(first.cold && !second.cold);
    assert_eq!(response(&first), response(&second));
    assert_eq!(envs.running(), 1);
    f.revision = "2".into();
    let third = envs.invoke(&f, invocation("{}")).await;
    assert!(third.cold);
    assert_ne!(response(&third), response(&first));
    eventually("the older revision's environment stops", || {
        envs.running() == 1
    })
    .await;
    let old = response(&first).as_u64().unwrap() as u32;
    eventually("its process is gone", || gone(old)).await;
    envs.shutdown().await;
    assert_eq!(envs.running(), 0);
}

#[tokio::test]
async fn all_environments_busy_at_the_cap_is_throttled() {
    let scratch = Scratch::new("py-throttle");
    scratch.write("code/app.py", SLEEPER, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let mut f = function(&scratch, "python3.12", "app.handler");
    f.max_environments = 1;
    let slow = envs.invoke(&f, invocation(r#"{"sleep": 0.5}"#));
    let quick = async {
        // The first has taken the one environment.
        crate::clock::Clock::sleep(Duration::from_millis(100)).await;
        envs.invoke(&f, invocation("{}")).await
    };
    let (slow, quick) = tokio::join!(slow, quick);
    assert_eq!(response(&slow), json!("awake"));
    assert_eq!(quick.outcome, Outcome::Throttled);
    // Free again.
    assert_eq!(
        response(&envs.invoke(&f, invocation("{}")).await),
        json!("awake")
    );
    envs.shutdown().await;
}

#[tokio::test]
async fn an_idle_environment_is_stopped_after_the_idle_time() {
    let scratch = Scratch::new("py-idle");
    scratch.write("code/app.py", PID, false);
    let envs = environments(&scratch, Duration::from_millis(300));
    let f = function(&scratch, "python3.12", "app.handler");
    let pid = response(&envs.invoke(&f, invocation("{}")).await)
        .as_u64()
        .unwrap() as u32;
    assert_eq!(envs.running(), 1);
    eventually("the idle environment stops", || envs.running() == 0).await;
    eventually("its process is gone", || gone(pid)).await;
    assert!(envs.invoke(&f, invocation("{}")).await.cold);
    envs.shutdown().await;
}

#[tokio::test]
async fn a_response_over_6_mb_fails_and_the_environment_goes_on() {
    let scratch = Scratch::new("py-large");
    let code = "def handler(event, context):\n    return 'x' * event['size']\n";
    scratch.write("code/app.py", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "python3.12", "app.handler");
    let invoked = envs.invoke(&f, invocation(r#"{"size": 7000000}"#)).await;
    let error = function_error(&invoked);
    assert_eq!(error["errorType"], "Function.ResponseSizeTooLarge");
    assert_eq!(
        error["errorMessage"],
        "Response payload size exceeded maximum allowed payload size (6291556 bytes)."
    );
    // Exactly the limit passes (the JSON string's two quotes count).
    let size = MAX_RESPONSE_BYTES - 2;
    let fits = envs
        .invoke(&f, invocation(&format!(r#"{{"size": {size}}}"#)))
        .await;
    assert!(!fits.cold);
    assert!(matches!(&fits.outcome, Outcome::Response(body) if body.len() == MAX_RESPONSE_BYTES));
    envs.shutdown().await;
}

#[tokio::test]
async fn a_missing_interpreter_is_not_started_naming_it() {
    let scratch = Scratch::new("py-missing");
    scratch.write("code/app.py", ECHO, false);
    let envs = Environments::new(Settings {
        interpreters: BTreeMap::from([("python3.12".into(), "/nonexistent/python3.12".into())]),
        idle: Duration::from_secs(60),
        work_dir: scratch.0.join("work"),
    });
    let f = function(&scratch, "python3.12", "app.handler");
    let invoked = envs.invoke(&f, invocation("{}")).await;
    let Outcome::NotStarted {
        error_type,
        message,
    } = &invoked.outcome
    else {
        panic!("{:?}", invoked.outcome);
    };
    assert_eq!(error_type, "Runtime.InvalidRuntime");
    assert!(message.contains("/nonexistent/python3.12"), "{message}");
    assert_eq!(envs.running(), 0);
    assert!(is_dir(&scratch.0.join("work/lambda-runtime")));
}

#[tokio::test]
async fn syntax_errors_and_answers_json_cannot_hold_are_aws_s_runtime_errors() {
    let scratch = Scratch::new("py-marshal");
    scratch.write(
        "code/broken.py",
        "def handler(event, context)\n    return 1\n",
        false,
    );
    scratch.write(
        "code/app.py",
        "def handler(event, context):\n    return {1, 2}\n",
        false,
    );
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "python3.12", "broken.handler");
    let error = function_error(&envs.invoke(&f, invocation("{}")).await);
    assert_eq!(error["errorType"], "Runtime.UserCodeSyntaxError");
    let message = error["errorMessage"].as_str().unwrap();
    assert!(
        message.starts_with("Syntax error in module 'broken': "),
        "{message}"
    );
    let f = function(&scratch, "python3.12", "app.handler");
    let error = function_error(&envs.invoke(&f, invocation("{}")).await);
    assert_eq!(error["errorType"], "Runtime.MarshalError");
    assert_eq!(
        error["errorMessage"],
        "Unable to marshal response: Object of type set is not JSON serializable"
    );
    let error = function_error(&envs.invoke(&f, invocation("not json")).await);
    assert_eq!(error["errorType"], "Runtime.UnmarshalError");
    envs.shutdown().await;
}
