//! Lambda's layers through the AWS SDK for Rust: published from a zip laid out as AWS lays out
//! `/opt`, used by a Python function that imports a module of its layer, listed with their
//! filters, deleted; and AWS's errors for layers a function may not name.

use crate::harness::Harness;
use crate::lambda::zip_of;
use aws_sdk_lambda::error::ProvideErrorMetadata;
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::{FunctionCode, LayerVersionContentInput, Runtime};
use base64::Engine;
use serde_json::Value;
use sha2::Digest;

const ROLE: &str = "arn:aws:iam::000000000000:role/lambda";
const LAYERS: &str = "arn:aws:lambda:us-east-1:000000000000:layer";

async fn publish(h: &Harness, name: &str, zip: Vec<u8>, runtime: Runtime) -> String {
    h.lambda()
        .publish_layer_version()
        .layer_name(name)
        .description(format!("{name} layer"))
        .compatible_runtimes(runtime)
        .license_info("MIT")
        .content(
            LayerVersionContentInput::builder()
                .zip_file(Blob::new(zip))
                .build(),
        )
        .send()
        .await
        .unwrap()
        .layer_version_arn()
        .unwrap()
        .to_string()
}

fn helper(greeting: &str) -> Vec<u8> {
    let module = format!("def greet(name):\n    return '{greeting} ' + name\n");
    zip_of(&[("python/helper.py", module.as_str())])
}

const APP: &str =
    "import helper\ndef handler(event, context):\n    return helper.greet(event['name'])\n";

async fn invoke(h: &Harness, name: &str) -> Value {
    let out = h
        .lambda()
        .invoke()
        .function_name(name)
        .payload(Blob::new(r#"{"name": "ada"}"#))
        .send()
        .await
        .unwrap();
    assert_eq!(out.function_error(), None, "{:?}", out.payload());
    serde_json::from_slice(out.payload().unwrap().as_ref()).unwrap()
}

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
async fn a_python_function_imports_a_module_from_its_layer() {
    let h = Harness::start().await;
    let zip = helper("hello");
    let published = h
        .lambda()
        .publish_layer_version()
        .layer_name("helpers")
        .compatible_runtimes(Runtime::Python312)
        .content(
            LayerVersionContentInput::builder()
                .zip_file(Blob::new(zip.clone()))
                .build(),
        )
        .send()
        .await
        .unwrap();
    let v1 = published.layer_version_arn().unwrap().to_string();
    assert_eq!(v1, format!("{LAYERS}:helpers:1"));
    assert_eq!(
        published.layer_arn(),
        Some(format!("{LAYERS}:helpers").as_str())
    );
    assert_eq!(published.version(), 1);
    let content = published.content().unwrap();
    let sha = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(&zip));
    assert_eq!(
        (content.code_sha256(), content.code_size()),
        (Some(sha.as_str()), zip.len() as i64)
    );

    let created = h
        .lambda()
        .create_function()
        .function_name("greeter")
        .role(ROLE)
        .runtime(Runtime::Python312)
        .handler("app.handler")
        .layers(&v1)
        .code(
            FunctionCode::builder()
                .zip_file(Blob::new(zip_of(&[("app.py", APP)])))
                .build(),
        )
        .send()
        .await
        .unwrap();
    let layers = created.layers();
    assert_eq!(layers.len(), 1);
    assert_eq!(
        (layers[0].arn(), layers[0].code_size()),
        (Some(v1.as_str()), zip.len() as i64)
    );
    assert_eq!(invoke(&h, "greeter").await, "hello ada");

    // Version 1 of the function keeps layer 1; $LATEST moves to layer 2.
    h.lambda()
        .publish_version()
        .function_name("greeter")
        .send()
        .await
        .unwrap();
    let v2 = publish(&h, "helpers", helper("bonjour"), Runtime::Python312).await;
    let updated = h
        .lambda()
        .update_function_configuration()
        .function_name("greeter")
        .layers(&v2)
        .send()
        .await
        .unwrap();
    assert_eq!(updated.layers()[0].arn(), Some(v2.as_str()));
    assert_eq!(invoke(&h, "greeter").await, "bonjour ada");
    assert_eq!(invoke(&h, "greeter:1").await, "hello ada");
    // A layer version deleted still runs in the functions that use it, as on AWS.
    h.lambda()
        .delete_layer_version()
        .layer_name("helpers")
        .version_number(1)
        .send()
        .await
        .unwrap();
    assert_eq!(invoke(&h, "greeter:1").await, "hello ada");
}

#[tokio::test]
async fn layers_are_listed_with_their_filters_and_deleted() {
    let h = Harness::start().await;
    publish(&h, "py-tools", helper("a"), Runtime::Python312).await;
    let node = zip_of(&[("nodejs/node_modules/tool/index.js", "module.exports = 1;\n")]);
    publish(&h, "node-tools", node, Runtime::Nodejs20x).await;
    let second = publish(&h, "py-tools", helper("b"), Runtime::Python312).await;

    let all = h.lambda().list_layers().send().await.unwrap();
    let listed: Vec<(&str, i64)> = all
        .layers()
        .iter()
        .map(|l| {
            (
                l.layer_name().unwrap(),
                l.latest_matching_version().unwrap().version(),
            )
        })
        .collect();
    assert_eq!(listed, [("node-tools", 1), ("py-tools", 2)]);
    let latest = all.layers()[1].latest_matching_version().unwrap();
    assert_eq!(latest.layer_version_arn(), Some(second.as_str()));
    assert_eq!(
        (latest.description(), latest.license_info()),
        (Some("py-tools layer"), Some("MIT"))
    );
    let node_only = h
        .lambda()
        .list_layers()
        .compatible_runtime(Runtime::Nodejs20x)
        .send()
        .await
        .unwrap();
    let names: Vec<&str> = node_only
        .layers()
        .iter()
        .filter_map(|l| l.layer_name())
        .collect();
    assert_eq!(names, ["node-tools"]);
    let paged = h.lambda().list_layers().max_items(1).send().await.unwrap();
    assert_eq!(
        (paged.layers().len(), paged.next_marker()),
        (1, Some("node-tools"))
    );

    let versions = h
        .lambda()
        .list_layer_versions()
        .layer_name("py-tools")
        .send()
        .await
        .unwrap();
    let numbers: Vec<i64> = versions
        .layer_versions()
        .iter()
        .map(|v| v.version())
        .collect();
    assert_eq!(numbers, [2, 1]);
    let by_arn = h
        .lambda()
        .get_layer_version()
        .layer_name(format!("{LAYERS}:py-tools"))
        .version_number(1)
        .send()
        .await
        .unwrap();
    assert_eq!(by_arn.description(), Some("py-tools layer"));

    h.lambda()
        .delete_layer_version()
        .layer_name("py-tools")
        .version_number(1)
        .send()
        .await
        .unwrap();
    let gone = h
        .lambda()
        .get_layer_version()
        .layer_name("py-tools")
        .version_number(1)
        .send()
        .await;
    assert_eq!(
        refusal(gone),
        (
            "ResourceNotFoundException".into(),
            "The resource you requested does not exist.".into()
        )
    );
    let versions = h
        .lambda()
        .list_layer_versions()
        .layer_name("py-tools")
        .send()
        .await
        .unwrap();
    assert_eq!(versions.layer_versions().len(), 1);
    let none = h
        .lambda()
        .list_layer_versions()
        .layer_name("nothing")
        .send()
        .await
        .unwrap();
    assert!(none.layer_versions().is_empty());
    // Numbers go on after a deletion.
    let third = publish(&h, "py-tools", helper("c"), Runtime::Python312).await;
    assert!(third.ends_with(":py-tools:3"), "{third}");
}

#[tokio::test]
async fn layers_a_function_may_not_name_are_refused() {
    let h = Harness::start().await;
    let layer = publish(&h, "one", helper("x"), Runtime::Python312).await;
    let try_create = |layers: Vec<String>| {
        h.lambda()
            .create_function()
            .function_name("f")
            .role(ROLE)
            .runtime(Runtime::Python312)
            .handler("app.handler")
            .set_layers(Some(layers))
            .code(
                FunctionCode::builder()
                    .zip_file(Blob::new(zip_of(&[("app.py", APP)])))
                    .build(),
            )
            .send()
    };
    let six = (1..=6).map(|n| format!("{LAYERS}:l{n}:1")).collect();
    assert_eq!(
        refusal(try_create(six).await),
        (
            "InvalidParameterValueException".into(),
            "Cannot reference more than 5 layers.".into()
        )
    );
    let missing = format!("{LAYERS}:one:9");
    assert_eq!(
        refusal(try_create(vec![missing.clone()]).await),
        (
            "InvalidParameterValueException".into(),
            format!("Layer version {missing} does not exist.")
        )
    );
    let (code, _) = refusal(try_create(vec!["not-an-arn".into()]).await);
    assert_eq!(code, "ValidationException");
    let second = publish(&h, "one", helper("y"), Runtime::Python312).await;
    let (code, message) = refusal(try_create(vec![layer.clone(), second]).await);
    assert_eq!(code, "InvalidParameterValueException");
    assert!(
        message.starts_with("Two different versions of the same layer"),
        "{message}"
    );
    let listed = h.lambda().list_functions().send().await.unwrap();
    assert!(listed.functions().is_empty());

    let not_a_zip = h
        .lambda()
        .publish_layer_version()
        .layer_name("broken")
        .content(
            LayerVersionContentInput::builder()
                .zip_file(Blob::new(b"nope".to_vec()))
                .build(),
        )
        .send()
        .await;
    assert_eq!(
        refusal(not_a_zip),
        (
            "InvalidParameterValueException".into(),
            "Could not unzip uploaded file. Please check your file, then try to upload again."
                .into()
        )
    );
    let bad_name = h
        .lambda()
        .publish_layer_version()
        .layer_name("bad name")
        .content(
            LayerVersionContentInput::builder()
                .zip_file(Blob::new(helper("z")))
                .build(),
        )
        .send()
        .await;
    assert_eq!(refusal(bad_name).0, "ValidationException");
}
