//! Lambda's functions through the AWS SDK for Rust: a zip uploaded, unpacked and described as
//! AWS describes it, listed by pages, updated, tagged, given reserved concurrency; and AWS's
//! errors for what AWS refuses and for what switchyard refuses (a zip that would write outside
//! its folder, a container image).

use crate::harness::Harness;
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::{Environment, FunctionCode, Runtime, State};
use base64::Engine;
use sha2::Digest;
use std::io::Write;

const ROLE: &str = "arn:aws:iam::000000000000:role/lambda";

/// A zip of `(name, body)` entries.
pub fn zip_of(entries: &[(&str, &str)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, body) in entries {
        let options = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
        w.start_file(*name, options).unwrap();
        w.write_all(body.as_bytes()).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn python_zip() -> Vec<u8> {
    zip_of(&[("app.py", "def handler(event, context):\n    return event\n")])
}

async fn create(
    h: &Harness,
    name: &str,
    zip: Vec<u8>,
) -> aws_sdk_lambda::operation::create_function::CreateFunctionOutput {
    h.lambda()
        .create_function()
        .function_name(name)
        .role(ROLE)
        .runtime(Runtime::Python312)
        .handler("app.handler")
        .code(FunctionCode::builder().zip_file(Blob::new(zip)).build())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_function_is_created_from_a_zip_and_described_as_aws_describes_it() {
    let h = Harness::start().await;
    let zip = python_zip();
    let created = create(&h, "echo", zip.clone()).await;
    let sha = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(&zip));
    assert_eq!(
        created.function_arn(),
        Some("arn:aws:lambda:us-east-1:000000000000:function:echo")
    );
    assert_eq!(created.code_sha256(), Some(sha.as_str()));
    assert_eq!(created.code_size(), zip.len() as i64);
    assert_eq!(
        (created.timeout(), created.memory_size()),
        (Some(3), Some(128))
    );
    assert_eq!(created.version(), Some("$LATEST"));
    // The create answers while the function is being created; a read after finds it active.
    assert_eq!(created.state(), Some(&State::Pending));
    assert_eq!(
        created.state_reason_code().map(|c| c.as_str()),
        Some("Creating")
    );
    let got = h
        .lambda()
        .get_function()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    let configuration = got.configuration().unwrap();
    assert_eq!(configuration.state(), Some(&State::Active));
    assert_eq!(
        configuration.last_update_status().map(|s| s.as_str()),
        Some("Successful")
    );
    assert_eq!(configuration.runtime(), Some(&Runtime::Python312));
    assert!(configuration.last_modified().unwrap().ends_with("+0000"));
    // By ARN, by partial ARN, and $LATEST.
    for name in [
        "arn:aws:lambda:us-east-1:000000000000:function:echo",
        "000000000000:function:echo",
        "echo:$LATEST",
    ] {
        let got = h
            .lambda()
            .get_function_configuration()
            .function_name(name)
            .send()
            .await
            .unwrap();
        assert_eq!(got.function_name(), Some("echo"), "{name}");
    }
    let again = h
        .lambda()
        .create_function()
        .function_name("echo")
        .role(ROLE)
        .runtime(Runtime::Python312)
        .handler("app.handler")
        .code(FunctionCode::builder().zip_file(Blob::new(zip)).build())
        .send()
        .await
        .unwrap_err();
    let err = again.into_service_error();
    assert!(err.is_resource_conflict_exception(), "{err:?}");
    assert_eq!(err.meta().message(), Some("Function already exist: echo"));
    h.lambda()
        .delete_function()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    let gone = h
        .lambda()
        .get_function()
        .function_name("echo")
        .send()
        .await
        .unwrap_err();
    let err = gone.into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
    assert_eq!(
        err.meta().message(),
        Some("Function not found: arn:aws:lambda:us-east-1:000000000000:function:echo")
    );
}

#[tokio::test]
async fn zips_that_are_not_zips_or_would_write_outside_and_images_are_refused() {
    let h = Harness::start().await;
    let try_create = |code: FunctionCode| {
        h.lambda()
            .create_function()
            .function_name("bad")
            .role(ROLE)
            .runtime(Runtime::Python312)
            .handler("app.handler")
            .code(code)
            .send()
    };
    let not_a_zip = FunctionCode::builder()
        .zip_file(Blob::new(b"PK not really".to_vec()))
        .build();
    let err = try_create(not_a_zip)
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_invalid_parameter_value_exception(), "{err:?}");
    assert_eq!(
        err.meta().message(),
        Some("Could not unzip uploaded file. Please check your file, then try to upload again.")
    );
    let escaping = zip_of(&[("app.py", "x"), ("../../escape.py", "x")]);
    let err = try_create(
        FunctionCode::builder()
            .zip_file(Blob::new(escaping))
            .build(),
    )
    .await
    .unwrap_err()
    .into_service_error();
    assert!(err.is_invalid_parameter_value_exception(), "{err:?}");
    assert!(
        err.meta().message().unwrap().contains("../../escape.py"),
        "{err:?}"
    );
    let image = FunctionCode::builder()
        .image_uri("123.dkr.ecr.us-east-1.amazonaws.com/f:1")
        .build();
    let err = try_create(image).await.unwrap_err().into_service_error();
    assert!(
        err.meta().message().unwrap().contains("container"),
        "{err:?}"
    );
    let bucket = FunctionCode::builder()
        .s3_bucket("b")
        .s3_key("f.zip")
        .build();
    let err = try_create(bucket).await.unwrap_err().into_service_error();
    assert!(
        err.meta().message().unwrap().contains("NoSuchBucket"),
        "{err:?}"
    );
    // Nothing was made.
    let listed = h.lambda().list_functions().send().await.unwrap();
    assert!(listed.functions().is_empty());
}

#[tokio::test]
async fn functions_are_listed_by_pages_updated_tagged_and_given_concurrency() {
    let h = Harness::start().await;
    for name in ["e", "a", "d", "b", "c"] {
        create(&h, name, python_zip()).await;
    }
    let mut names = Vec::new();
    let mut marker = None;
    loop {
        let page = h
            .lambda()
            .list_functions()
            .max_items(2)
            .set_marker(marker)
            .send()
            .await
            .unwrap();
        assert!(page.functions().len() <= 2);
        names.extend(
            page.functions()
                .iter()
                .map(|f| f.function_name().unwrap().to_string()),
        );
        marker = page.next_marker().map(str::to_string);
        if marker.is_none() {
            break;
        }
    }
    assert_eq!(names, ["a", "b", "c", "d", "e"]);

    let before = h
        .lambda()
        .get_function_configuration()
        .function_name("a")
        .send()
        .await
        .unwrap();
    let updated = h
        .lambda()
        .update_function_configuration()
        .function_name("a")
        .timeout(30)
        .environment(Environment::builder().variables("MODE", "test").build())
        .send()
        .await
        .unwrap();
    assert_eq!(updated.timeout(), Some(30));
    assert_eq!(
        updated.last_update_status().map(|s| s.as_str()),
        Some("InProgress")
    );
    assert_ne!(updated.revision_id(), before.revision_id());
    let stale = h
        .lambda()
        .update_function_configuration()
        .function_name("a")
        .timeout(5)
        .revision_id(before.revision_id().unwrap())
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(stale.is_precondition_failed_exception(), "{stale:?}");
    let code = h
        .lambda()
        .update_function_code()
        .function_name("a")
        .zip_file(Blob::new(zip_of(&[(
            "app.py",
            "def handler(e, c):\n    return 2\n",
        )])))
        .send()
        .await
        .unwrap();
    assert_ne!(code.code_sha256(), before.code_sha256());
    let read = h
        .lambda()
        .get_function_configuration()
        .function_name("a")
        .send()
        .await
        .unwrap();
    assert_eq!(
        read.environment().unwrap().variables().unwrap()["MODE"],
        "test"
    );

    let arn = read.function_arn().unwrap();
    h.lambda()
        .tag_resource()
        .resource(arn)
        .tags("team", "x")
        .send()
        .await
        .unwrap();
    let tags = h.lambda().list_tags().resource(arn).send().await.unwrap();
    assert_eq!(tags.tags().unwrap()["team"], "x");
    h.lambda()
        .untag_resource()
        .resource(arn)
        .tag_keys("team")
        .send()
        .await
        .unwrap();
    let tags = h.lambda().list_tags().resource(arn).send().await.unwrap();
    assert!(tags.tags().is_none_or(|t| t.is_empty()));

    let put = h
        .lambda()
        .put_function_concurrency()
        .function_name("a")
        .reserved_concurrent_executions(10)
        .send()
        .await
        .unwrap();
    assert_eq!(put.reserved_concurrent_executions(), Some(10));
    let too_much = h
        .lambda()
        .put_function_concurrency()
        .function_name("b")
        .reserved_concurrent_executions(950)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(
        too_much.is_invalid_parameter_value_exception(),
        "{too_much:?}"
    );
    let settings = h.lambda().get_account_settings().send().await.unwrap();
    let limit = settings.account_limit().unwrap();
    assert_eq!(limit.concurrent_executions(), 1000);
    assert_eq!(limit.unreserved_concurrent_executions(), Some(990));
    assert_eq!(settings.account_usage().unwrap().function_count(), 5);
}

#[tokio::test]
async fn a_local_folder_is_run_in_place_with_localstacks_hot_reload_bucket() {
    let h = Harness::start().await;
    let dir = std::env::temp_dir().join(format!("switchyard-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let created = h
        .lambda()
        .create_function()
        .function_name("live")
        .role(ROLE)
        .runtime(Runtime::Python312)
        .handler("app.handler")
        .code(
            FunctionCode::builder()
                .s3_bucket("hot-reload")
                .s3_key(dir.to_string_lossy())
                .build(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(created.function_name(), Some("live"));
    let relative = h
        .lambda()
        .create_function()
        .function_name("relative")
        .role(ROLE)
        .runtime(Runtime::Python312)
        .handler("app.handler")
        .code(
            FunctionCode::builder()
                .s3_bucket("hot-reload")
                .s3_key("code")
                .build(),
        )
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(
        relative.is_invalid_parameter_value_exception(),
        "{relative:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
