//! Lambda's versions and aliases through the AWS SDK for Rust: versions published as copies of
//! `$LATEST` and invoked by qualifier, aliases pointing at them with a routing weight, AWS's
//! errors for what does not exist or may not be deleted; and the versions, aliases, layers and
//! policies kept across a restart with `--state-dir`.

use crate::harness::Harness;
use crate::lambda::zip_of;
use aws_sdk_lambda::error::ProvideErrorMetadata;
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::Runtime;
use aws_sdk_lambda::types::{AliasRoutingConfiguration, FunctionCode, LayerVersionContentInput};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

const ROLE: &str = "arn:aws:iam::000000000000:role/lambda";
const ARN: &str = "arn:aws:lambda:us-east-1:000000000000:function:greet";

/// A handler that answers which code it is and the version its context names.
fn code(answer: &str) -> Vec<u8> {
    let app = format!(
        "def handler(event, context):\n    return {{'code': '{answer}', 'version': context.function_version}}\n"
    );
    zip_of(&[("app.py", app.as_str())])
}

async fn create(h: &Harness) {
    h.lambda()
        .create_function()
        .function_name("greet")
        .role(ROLE)
        .runtime(Runtime::Python312)
        .handler("app.handler")
        .code(
            FunctionCode::builder()
                .zip_file(Blob::new(code("one")))
                .build(),
        )
        .send()
        .await
        .unwrap();
}

async fn update_code(h: &Harness, answer: &str) {
    h.lambda()
        .update_function_code()
        .function_name("greet")
        .zip_file(Blob::new(code(answer)))
        .send()
        .await
        .unwrap();
}

/// What `name` (with `qualifier`) runs: the payload and the executed version.
async fn invoke(h: &Harness, name: &str, qualifier: Option<&str>) -> (Value, String) {
    let out = h
        .lambda()
        .invoke()
        .function_name(name)
        .set_qualifier(qualifier.map(str::to_string))
        .send()
        .await
        .unwrap();
    assert_eq!(out.function_error(), None, "{out:?}");
    let payload = serde_json::from_slice(out.payload().unwrap().as_ref()).unwrap();
    (payload, out.executed_version().unwrap().to_string())
}

/// The (code, message) of a call that must fail.
fn refusal<T: std::fmt::Debug, E: ProvideErrorMetadata + std::fmt::Debug>(
    result: Result<T, E>,
) -> (String, String) {
    let err = result.expect_err("the call is refused");
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn versions_are_published_listed_and_invoked_by_qualifier() {
    let h = Harness::start().await;
    create(&h).await;
    let one = h
        .lambda()
        .publish_version()
        .function_name("greet")
        .description("first")
        .send()
        .await
        .unwrap();
    assert_eq!(one.version(), Some("1"));
    assert_eq!(one.function_arn(), Some(format!("{ARN}:1").as_str()));
    assert_eq!(one.description(), Some("first"));
    // Nothing changed: the last version again.
    let again = h
        .lambda()
        .publish_version()
        .function_name("greet")
        .send()
        .await
        .unwrap();
    assert_eq!(again.version(), Some("1"));

    update_code(&h, "two").await;
    let stale = h
        .lambda()
        .publish_version()
        .function_name("greet")
        .code_sha256(one.code_sha256().unwrap())
        .send()
        .await;
    let (code, message) = refusal(stale);
    assert_eq!(code, "InvalidParameterValueException");
    assert!(
        message.starts_with(&format!(
            "CodeSHA256 ({}) is different from current CodeSHA256 in $LATEST",
            one.code_sha256().unwrap()
        )),
        "{message}"
    );
    let old_revision = h
        .lambda()
        .publish_version()
        .function_name("greet")
        .revision_id(one.revision_id().unwrap())
        .send()
        .await;
    assert_eq!(refusal(old_revision).0, "PreconditionFailedException");
    let two = h
        .lambda()
        .publish_version()
        .function_name("greet")
        .send()
        .await
        .unwrap();
    assert_eq!(two.version(), Some("2"));
    assert_ne!(two.code_sha256(), one.code_sha256());

    let mut listed = Vec::new();
    let mut marker = None;
    loop {
        let page = h
            .lambda()
            .list_versions_by_function()
            .function_name("greet")
            .max_items(2)
            .set_marker(marker)
            .send()
            .await
            .unwrap();
        assert!(page.versions().len() <= 2);
        for v in page.versions() {
            listed.push((
                v.version().unwrap().to_string(),
                v.function_arn().unwrap().to_string(),
            ));
        }
        marker = page.next_marker().map(str::to_string);
        if marker.is_none() {
            break;
        }
    }
    let expected: Vec<(String, String)> = ["$LATEST", "1", "2"]
        .iter()
        .map(|v| (v.to_string(), format!("{ARN}:{v}")))
        .collect();
    assert_eq!(listed, expected);

    let got = h
        .lambda()
        .get_function_configuration()
        .function_name("greet")
        .qualifier("1")
        .send()
        .await
        .unwrap();
    assert_eq!(
        (got.version(), got.function_arn(), got.code_sha256()),
        (
            Some("1"),
            Some(format!("{ARN}:1").as_str()),
            one.code_sha256()
        )
    );
    let latest = h
        .lambda()
        .get_function()
        .function_name("greet")
        .send()
        .await
        .unwrap();
    let latest = latest.configuration().unwrap();
    assert_eq!(
        (latest.version(), latest.function_arn()),
        (Some("$LATEST"), Some(ARN))
    );

    // Each version runs its own code; the answer names the version that ran.
    let (payload, executed) = invoke(&h, "greet:1", None).await;
    assert_eq!(
        (payload, executed.as_str()),
        (json!({"code": "one", "version": "1"}), "1")
    );
    let (payload, executed) = invoke(&h, &format!("{ARN}:2"), None).await;
    assert_eq!(
        (payload["code"].as_str(), executed.as_str()),
        (Some("two"), "2")
    );
    let (payload, executed) = invoke(&h, "greet", Some("$LATEST")).await;
    assert_eq!(
        (payload["version"].as_str(), executed.as_str()),
        (Some("$LATEST"), "$LATEST")
    );

    let missing = h
        .lambda()
        .get_function()
        .function_name("greet")
        .qualifier("9")
        .send()
        .await;
    assert_eq!(
        refusal(missing),
        (
            "ResourceNotFoundException".into(),
            format!("Function not found: {ARN}:9")
        )
    );
    let missing = h.lambda().invoke().function_name("greet:nope").send().await;
    assert_eq!(
        refusal(missing),
        (
            "ResourceNotFoundException".into(),
            format!("Function not found: {ARN}:nope")
        )
    );
    let mismatch = h
        .lambda()
        .get_function()
        .function_name("greet:1")
        .qualifier("2")
        .send()
        .await;
    assert_eq!(refusal(mismatch).0, "InvalidParameterValueException");
}

#[tokio::test]
async fn aliases_point_at_versions_route_by_weight_and_guard_them() {
    let h = Harness::start().await;
    create(&h).await;
    h.lambda()
        .publish_version()
        .function_name("greet")
        .send()
        .await
        .unwrap();
    update_code(&h, "two").await;
    h.lambda()
        .publish_version()
        .function_name("greet")
        .send()
        .await
        .unwrap();

    let live = h
        .lambda()
        .create_alias()
        .function_name("greet")
        .name("live")
        .function_version("1")
        .description("what users get")
        .send()
        .await
        .unwrap();
    assert_eq!(live.alias_arn(), Some(format!("{ARN}:live").as_str()));
    assert_eq!(
        (live.function_version(), live.description()),
        (Some("1"), Some("what users get"))
    );
    let twice = h
        .lambda()
        .create_alias()
        .function_name("greet")
        .name("live")
        .function_version("2")
        .send()
        .await;
    assert_eq!(
        refusal(twice),
        (
            "ResourceConflictException".into(),
            format!("Alias already exists: {ARN}:live")
        )
    );
    let no_version = h
        .lambda()
        .create_alias()
        .function_name("greet")
        .name("beta")
        .function_version("7")
        .send()
        .await;
    assert_eq!(
        refusal(no_version),
        (
            "ResourceNotFoundException".into(),
            format!("Function not found: {ARN}:7")
        )
    );
    for bad in ["123", "has space", &"x".repeat(129)] {
        let refused = h
            .lambda()
            .create_alias()
            .function_name("greet")
            .name(bad)
            .function_version("1")
            .send()
            .await;
        assert_eq!(refusal(refused).0, "ValidationException", "{bad}");
    }

    let (payload, executed) = invoke(&h, "greet:live", None).await;
    assert_eq!(
        (payload["code"].as_str(), executed.as_str()),
        (Some("one"), "1")
    );
    let got = h
        .lambda()
        .get_function_configuration()
        .function_name("greet")
        .qualifier("live")
        .send()
        .await
        .unwrap();
    assert_eq!(
        (got.version(), got.function_arn()),
        (Some("1"), Some(format!("{ARN}:live").as_str()))
    );

    // Weights out of range, a second extra version, the alias's own version: refused.
    let weights = |pairs: &[(&str, f64)]| {
        let map: HashMap<String, f64> = pairs.iter().map(|(v, w)| (v.to_string(), *w)).collect();
        AliasRoutingConfiguration::builder()
            .set_additional_version_weights(Some(map))
            .build()
    };
    for (routing, code) in [
        (weights(&[("2", 1.5)]), "ValidationException"),
        (weights(&[("2", -0.1)]), "ValidationException"),
        (
            weights(&[("2", 0.5), ("3", 0.1)]),
            "InvalidParameterValueException",
        ),
        (weights(&[("1", 0.5)]), "InvalidParameterValueException"),
        (weights(&[("8", 0.5)]), "ResourceNotFoundException"),
    ] {
        let refused = h
            .lambda()
            .update_alias()
            .function_name("greet")
            .name("live")
            .routing_config(routing.clone())
            .send()
            .await;
        assert_eq!(refusal(refused).0, code, "{routing:?}");
    }
    let stale = h
        .lambda()
        .update_alias()
        .function_name("greet")
        .name("live")
        .description("x")
        .revision_id("not-the-revision")
        .send()
        .await;
    assert_eq!(refusal(stale).0, "PreconditionFailedException");

    // Half of the invocations go to version 2, drawn from the seeded generator.
    let routed = h
        .lambda()
        .update_alias()
        .function_name("greet")
        .name("live")
        .routing_config(weights(&[("2", 0.5)]))
        .send()
        .await
        .unwrap();
    assert_ne!(routed.revision_id(), live.revision_id());
    let mut ran = Vec::new();
    for _ in 0..16 {
        let (payload, executed) = invoke(&h, "greet", Some("live")).await;
        assert_eq!(payload["version"].as_str(), Some(executed.as_str()));
        ran.push(executed);
    }
    let twos = ran.iter().filter(|v| *v == "2").count();
    assert!((3..=13).contains(&twos), "{ran:?}");
    h.lambda()
        .update_alias()
        .function_name("greet")
        .name("live")
        .routing_config(weights(&[("2", 1.0)]))
        .send()
        .await
        .unwrap();
    assert_eq!(invoke(&h, "greet:live", None).await.1, "2");

    h.lambda()
        .create_alias()
        .function_name("greet")
        .name("edge")
        .function_version("$LATEST")
        .send()
        .await
        .unwrap();
    let all = h
        .lambda()
        .list_aliases()
        .function_name("greet")
        .send()
        .await
        .unwrap();
    let names: Vec<&str> = all.aliases().iter().filter_map(|a| a.name()).collect();
    assert_eq!(names, ["edge", "live"]);
    let paged = h
        .lambda()
        .list_aliases()
        .function_name("greet")
        .max_items(1)
        .send()
        .await
        .unwrap();
    assert_eq!(
        (paged.aliases().len(), paged.next_marker()),
        (1, Some("edge"))
    );
    let of_two = h
        .lambda()
        .list_aliases()
        .function_name("greet")
        .function_version("2")
        .send()
        .await
        .unwrap();
    let names: Vec<&str> = of_two.aliases().iter().filter_map(|a| a.name()).collect();
    assert_eq!(names, ["live"]);

    // A version an alias points to, and $LATEST, are not deleted.
    let referenced = h
        .lambda()
        .delete_function()
        .function_name("greet")
        .qualifier("1")
        .send()
        .await;
    assert_eq!(
        refusal(referenced),
        (
            "ResourceConflictException".into(),
            "Unable to delete version because the following aliases reference it: [live]".into()
        )
    );
    let latest = h
        .lambda()
        .delete_function()
        .function_name("greet:$LATEST")
        .send()
        .await;
    assert_eq!(refusal(latest).0, "InvalidParameterValueException");
    h.lambda()
        .delete_alias()
        .function_name("greet")
        .name("live")
        .send()
        .await
        .unwrap();
    let gone = h
        .lambda()
        .get_alias()
        .function_name("greet")
        .name("live")
        .send()
        .await;
    assert_eq!(
        refusal(gone),
        (
            "ResourceNotFoundException".into(),
            format!("Alias not found: {ARN}:live")
        )
    );
    h.lambda()
        .delete_function()
        .function_name("greet")
        .qualifier("1")
        .send()
        .await
        .unwrap();
    let versions = h
        .lambda()
        .list_versions_by_function()
        .function_name("greet")
        .send()
        .await
        .unwrap();
    let listed: Vec<&str> = versions
        .versions()
        .iter()
        .filter_map(|v| v.version())
        .collect();
    assert_eq!(listed, ["$LATEST", "2"]);
    // Numbers are not reused.
    update_code(&h, "three").await;
    let three = h
        .lambda()
        .publish_version()
        .function_name("greet")
        .send()
        .await
        .unwrap();
    assert_eq!(three.version(), Some("3"));
}

fn state_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("switchyard-lambda-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

async fn kept(dir: &Path) -> Harness {
    Harness::with(switchyard::Config {
        state_dir: Some(dir.to_path_buf()),
        ..switchyard::Config::for_tests()
    })
    .await
}

#[tokio::test]
async fn versions_aliases_layers_and_policies_survive_a_restart() {
    let dir = state_dir("restart");
    let mut h = kept(&dir).await;
    let layer = h
        .lambda()
        .publish_layer_version()
        .layer_name("words")
        .content(
            LayerVersionContentInput::builder()
                .zip_file(Blob::new(zip_of(&[("python/words.py", "WORD = 'kept'\n")])))
                .build(),
        )
        .send()
        .await
        .unwrap();
    let layer_arn = layer.layer_version_arn().unwrap().to_string();
    create(&h).await;
    let app = "import words\ndef handler(event, context):\n    return {'code': words.WORD, 'version': context.function_version}\n";
    h.lambda()
        .update_function_code()
        .function_name("greet")
        .zip_file(Blob::new(zip_of(&[("app.py", app)])))
        .send()
        .await
        .unwrap();
    h.lambda()
        .update_function_configuration()
        .function_name("greet")
        .layers(&layer_arn)
        .send()
        .await
        .unwrap();
    h.lambda()
        .publish_version()
        .function_name("greet")
        .send()
        .await
        .unwrap();
    h.lambda()
        .create_alias()
        .function_name("greet")
        .name("live")
        .function_version("1")
        .send()
        .await
        .unwrap();
    h.lambda()
        .add_permission()
        .function_name("greet")
        .qualifier("live")
        .statement_id("from-sns")
        .action("lambda:InvokeFunction")
        .principal("sns.amazonaws.com")
        .send()
        .await
        .unwrap();
    let policy_before = h
        .lambda()
        .get_policy()
        .function_name("greet:live")
        .send()
        .await
        .unwrap();
    h.stop().await;

    let mut h = kept(&dir).await;
    let versions = h
        .lambda()
        .list_versions_by_function()
        .function_name("greet")
        .send()
        .await
        .unwrap();
    let listed: Vec<&str> = versions
        .versions()
        .iter()
        .filter_map(|v| v.version())
        .collect();
    assert_eq!(listed, ["$LATEST", "1"]);
    let alias = h
        .lambda()
        .get_alias()
        .function_name("greet")
        .name("live")
        .send()
        .await
        .unwrap();
    assert_eq!(alias.function_version(), Some("1"));
    let policy = h
        .lambda()
        .get_policy()
        .function_name("greet:live")
        .send()
        .await
        .unwrap();
    assert_eq!(policy.policy(), policy_before.policy());
    let got = h
        .lambda()
        .get_layer_version()
        .layer_name("words")
        .version_number(1)
        .send()
        .await
        .unwrap();
    assert_eq!(got.layer_version_arn(), Some(layer_arn.as_str()));
    let (payload, executed) = invoke(&h, "greet:live", None).await;
    assert_eq!(
        (payload["code"].as_str(), executed.as_str()),
        (Some("kept"), "1")
    );
    h.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
