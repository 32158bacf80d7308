//! nodejs* functions, through switchyard's Node.js loop.

use super::*;
use serde_json::json;

#[tokio::test]
async fn a_commonjs_async_handler_answers() {
    let scratch = Scratch::new("node-cjs");
    let code = r#"
console.log("loading");
exports.handler = async (event, context) => {
  console.log("got", event.n);
  return { doubled: event.n * 2, name: context.functionName, id: context.awsRequestId,
           remaining: context.getRemainingTimeInMillis(), env: process.env.AWS_EXECUTION_ENV };
};
"#;
    scratch.write("code/index.js", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "nodejs20.x", "index.handler");
    let call = invocation(r#"{"n": 21}"#);
    let id = call.request_id.clone();
    let invoked = envs.invoke(&f, call).await;
    let answer = response(&invoked);
    assert_eq!(answer["doubled"], 42);
    assert_eq!(answer["name"], f.function_name.as_str());
    assert_eq!(answer["id"], id.as_str());
    assert!(answer["remaining"].as_i64().unwrap() > 9_000);
    assert_eq!(answer["env"], "AWS_Lambda_nodejs20.x");
    // console lines in AWS's shape: time, request id, level, message.
    let before = invoked.log.split("START ").next().unwrap();
    assert!(
        before.ends_with("\tundefined\tINFO\tloading\n"),
        "{}",
        invoked.log
    );
    let lines = between_start_and_end(&invoked.log);
    assert!(
        lines[0].ends_with(&format!("Z\t{id}\tINFO\tgot 21")),
        "{}",
        invoked.log
    );
    assert!(!envs.invoke(&f, invocation(r#"{"n": 1}"#)).await.cold);
    envs.shutdown().await;
}

#[tokio::test]
async fn es_modules_load_from_mjs_and_from_js_of_a_module_package() {
    let scratch = Scratch::new("node-esm");
    let code = "export const handler = async (event) => ({ esm: true, event });\n";
    scratch.write("code/app.mjs", code, false);
    scratch.write("code/sub/package.json", r#"{"type": "module"}"#, false);
    scratch.write("code/sub/index.js", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    for handler in ["app.handler", "sub/index.handler"] {
        let f = function(&scratch, "nodejs20.x", handler);
        let answer = response(&envs.invoke(&f, invocation("[1]")).await);
        assert_eq!(answer, json!({"esm": true, "event": [1]}), "{handler}");
    }
    envs.shutdown().await;
}

#[tokio::test]
async fn a_callback_handler_answers_through_its_callback() {
    let scratch = Scratch::new("node-callback");
    let code = r#"
module.exports.handler = function (event, context, callback) {
  setTimeout(() => event.fail ? callback(new TypeError("bad")) : callback(null, { later: true }), 20);
};
"#;
    scratch.write("code/index.cjs", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "nodejs22.x", "index.handler");
    assert_eq!(
        response(&envs.invoke(&f, invocation("{}")).await),
        json!({"later": true})
    );
    let error = function_error(&envs.invoke(&f, invocation(r#"{"fail": true}"#)).await);
    assert_eq!(error["errorType"], "TypeError");
    assert_eq!(error["errorMessage"], "bad");
    envs.shutdown().await;
}

#[tokio::test]
async fn a_thrown_error_is_aws_s_error_document() {
    let scratch = Scratch::new("node-throw");
    let code = "exports.handler = async () => { throw new Error('boom'); };\n";
    scratch.write("code/index.js", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "nodejs20.x", "index.handler");
    let invoked = envs.invoke(&f, invocation("{}")).await;
    let error = function_error(&invoked);
    assert_eq!(error["errorType"], "Error");
    assert_eq!(error["errorMessage"], "boom");
    let trace = error["trace"].as_array().unwrap();
    assert_eq!(trace[0], "Error: boom");
    assert!(
        trace[1].as_str().unwrap().contains("index.js:1"),
        "{trace:?}"
    );
    assert!(
        invoked
            .log
            .contains("\tERROR\tInvoke Error \t{\"errorType\":\"Error\""),
        "{}",
        invoked.log
    );
    envs.shutdown().await;
}

#[tokio::test]
async fn a_missing_module_or_handler_fails_as_aws_s_node_runtime_says() {
    let scratch = Scratch::new("node-missing");
    scratch.write(
        "code/index.js",
        "exports.handler = async () => 1;\nexports.value = 3;\n",
        false,
    );
    let envs = environments(&scratch, Duration::from_secs(60));
    let cases = [
        (
            "index.nope",
            "Runtime.HandlerNotFound",
            "index.nope is undefined or not exported",
        ),
        (
            "index.value",
            "Runtime.HandlerNotFound",
            "index.value is not a function",
        ),
        (
            "missing.handler",
            "Runtime.ImportModuleError",
            "Error: Cannot find module 'missing'",
        ),
    ];
    for (handler, error_type, message) in cases {
        let f = function(&scratch, "nodejs20.x", handler);
        let error = function_error(&envs.invoke(&f, invocation("{}")).await);
        assert_eq!(error["errorType"], error_type, "{handler}");
        let shown = error["errorMessage"].as_str().unwrap();
        assert!(shown.starts_with(message), "{handler}: {shown}");
    }
    envs.shutdown().await;
}

#[tokio::test]
async fn an_error_nothing_catches_fails_the_invocation_and_ends_the_environment() {
    let scratch = Scratch::new("node-uncaught");
    let code = r#"
exports.handler = async (event) => {
  if (event.throw) setTimeout(() => { throw new RangeError("late"); }, 5);
  if (event.reject) Promise.reject(new Error("nobody waits"));
  return new Promise(() => {});
};
exports.ok = async () => "ok";
"#;
    scratch.write("code/index.js", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "nodejs20.x", "index.handler");
    let error = function_error(&envs.invoke(&f, invocation(r#"{"throw": true}"#)).await);
    assert_eq!(error["errorType"], "RangeError");
    assert_eq!(error["errorMessage"], "late");
    eventually("the environment ends", || envs.running() == 0).await;
    let error = function_error(&envs.invoke(&f, invocation(r#"{"reject": true}"#)).await);
    assert_eq!(error["errorType"], "Runtime.UnhandledPromiseRejection");
    assert_eq!(error["errorMessage"], "Error: nobody waits");
    scratch.write(
        "code/broken.mjs",
        "export const handler = async () => {\n",
        false,
    );
    let f = function(&scratch, "nodejs20.x", "broken.handler");
    let error = function_error(&envs.invoke(&f, invocation("{}")).await);
    assert_eq!(error["errorType"], "Runtime.UserCodeSyntaxError");
    envs.shutdown().await;
}
