//! What the function operations, versions and layers share: naming a function (a name, a
//! partial or a full ARN, with its qualifier), finding it, its configuration as answers show it,
//! the code a `Code` member names, and the `RevisionId` check. It imports none of those
//! operations, so each of them can import it.

use super::errors::{function_not_found, invalid_parameter, validation};
use super::shapes::{
    CodeInput, EphemeralStorage, FunctionConfiguration, LoggingConfig, SnapStart, TracingConfig,
};
use crate::arn::Arn;
use crate::error::AwsError;
use crate::services::Context;
use crate::state::State;
use crate::state::lambda::store::{Code, Function};

/// The runtimes switchyard runs: `python3.*`, `nodejs*` and `provided*` (docs/lambda.md).
/// Other runtimes of the model are accepted and fail when invoked, as a runtime AWS has
/// deprecated would.
fn runs(runtime: &str) -> bool {
    runtime.starts_with("python3.")
        || runtime.starts_with("nodejs")
        || runtime.starts_with("provided")
}

/// The unqualified ARN of the function `name` names (a name, a partial ARN
/// `<account>:function:<name>` or a full ARN), and its qualifier if it has one.
pub fn resolve(cx: &Context, name: &str) -> Result<(String, Option<String>), AwsError> {
    resolve_in(&cx.account, &cx.region, name)
}

/// [`resolve`] for a caller in `account` and `region`.
pub fn resolve_in(
    account: &str,
    region: &str,
    name: &str,
) -> Result<(String, Option<String>), AwsError> {
    let rest = name.strip_prefix("arn:").map_or(name, |_| "");
    let (account, region, function) = if let Some(arn) = Arn::parse(name) {
        let resource = arn
            .resource
            .strip_prefix("function:")
            .unwrap_or(arn.resource);
        (arn.account, arn.region, resource)
    } else if let Some((account, f)) = rest.split_once(":function:") {
        (account, region, f)
    } else {
        (account, region, rest)
    };
    let (function, qualifier) = match function.split_once(':') {
        Some((f, q)) => (f, Some(q.to_string())),
        None => (function, None),
    };
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if function.is_empty() || function.len() > 64 || !function.chars().all(valid) {
        return Err(validation(
            name,
            "functionName",
            "Member must satisfy regular expression pattern: (arn:(aws[a-zA-Z-]*)?:lambda:)?\
             ([a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1}:)?(\\d{12}:)?(function:)?\
             ([a-zA-Z0-9-_]+)(:(\\$LATEST|[a-zA-Z0-9-_]+))?",
        ));
    }
    let arn = Arn::new("lambda", region, account, &format!("function:{function}")).text();
    Ok((arn, qualifier))
}

/// A function's ARN without its version or alias (`...:function:name:3` → `...:function:name`).
pub fn unqualified_arn(arn: &str) -> &str {
    match Arn::parse(arn) {
        Some(parsed) if parsed.resource_parts().count() > 2 => Arn::parent(arn).unwrap_or(arn),
        _ => arn,
    }
}

/// The name in a function's or a layer's ARN (`...:function:<name>[:<qualifier>]`,
/// `...:layer:<name>[:<version>]`); `""` when `arn` is not an ARN.
pub fn name_of(arn: &str) -> &str {
    Arn::parse(arn)
        .and_then(|a| a.resource_parts().nth(1))
        .unwrap_or_default()
}

/// The function `name` names, in the caller's account.
pub fn find<'s>(state: &'s State, cx: &Context, name: &str) -> Result<&'s Function, AwsError> {
    find_in(state, &cx.account, &cx.region, name)
}

/// [`find`] for a caller in `account` and `region`.
pub(super) fn find_in<'s>(
    state: &'s State,
    account: &str,
    region: &str,
    name: &str,
) -> Result<&'s Function, AwsError> {
    let (arn, qualifier) = resolve_in(account, region, name)?;
    let found = state.lambda.functions.get(&arn);
    match (found, qualifier.as_deref()) {
        (Some(f), None | Some("$LATEST")) => Ok(f),
        (_, Some(q)) => Err(function_not_found(&format!("{arn}:{q}"))),
        (None, None) => Err(function_not_found(&arn)),
    }
}

/// The unqualified function `name` names (`$LATEST` as its qualifier is the same), to change.
pub fn find_mut<'s>(
    state: &'s mut State,
    cx: &Context,
    name: &str,
) -> Result<&'s mut Function, AwsError> {
    let (arn, qualifier) = resolve(cx, name)?;
    if let Some(q) = qualifier.filter(|q| q != "$LATEST") {
        return Err(function_not_found(&format!("{arn}:{q}")));
    }
    state
        .lambda
        .functions
        .get_mut(&arn)
        .ok_or_else(|| function_not_found(&arn))
}

/// Lambda's `LastModified`: `2026-12-06T07:21:56.123+0000`.
pub fn last_modified(at: crate::engine::time::Millis) -> String {
    let text = crate::engine::time::format_rfc3339(at);
    format!("{}+0000", text.trim_end_matches('Z'))
}

/// How an answer reports the function: as the change that made it (`Pending` after a create,
/// `InProgress` after an update) or as a read finds it.
#[derive(Clone, Copy, PartialEq)]
pub enum Seen {
    Created,
    Updated,
    Read,
}

/// `$LATEST`'s configuration, under the unqualified ARN.
pub fn configuration(f: &Function, seen: Seen) -> FunctionConfiguration {
    shown(f, "$LATEST", &f.arn, seen)
}

/// The configuration `f` has (`$LATEST`, or a published version's copy) as `version`, answered
/// under `arn` (the ARN with the qualifier the caller named, or without one).
pub fn shown(f: &Function, version: &str, arn: &str, seen: Seen) -> FunctionConfiguration {
    let (code_sha256, code_size) = code_digest(&f.code);
    FunctionConfiguration {
        function_name: f.name.clone(),
        function_arn: arn.to_string(),
        runtime: f.runtime.clone(),
        role: f.role.clone(),
        handler: f.handler.clone(),
        code_size,
        description: f.description.clone(),
        timeout: f.timeout,
        memory_size: f.memory,
        last_modified: last_modified(f.last_modified),
        code_sha256,
        version: version.to_string(),
        environment: (!f.environment.is_empty()).then(|| super::shapes::Environment {
            variables: f.environment.clone(),
        }),
        dead_letter_config: f
            .dead_letter
            .as_ref()
            .map(|arn| super::shapes::DeadLetterConfig {
                target_arn: Some(arn.clone()),
            }),
        layers: (f.layers.iter())
            .map(|l| super::shapes::LayerOutput {
                arn: l.arn.clone(),
                code_size: l.size,
            })
            .collect(),
        tracing_config: TracingConfig {
            mode: "PassThrough",
        },
        revision_id: f.revision.clone(),
        state: if seen == Seen::Created {
            "Pending"
        } else {
            "Active"
        },
        state_reason: (seen == Seen::Created).then_some("The function is being created."),
        state_reason_code: (seen == Seen::Created).then_some("Creating"),
        last_update_status: if seen == Seen::Updated {
            "InProgress"
        } else {
            "Successful"
        },
        package_type: "Zip",
        architectures: f.architectures.clone(),
        ephemeral_storage: EphemeralStorage {
            size: i64::from(f.ephemeral_storage),
        },
        snap_start: SnapStart {
            apply_on: "None",
            optimization_status: "Off",
        },
        logging_config: LoggingConfig {
            log_format: "Text",
            log_group: format!("/aws/lambda/{}", f.name),
        },
    }
}

/// `CodeSha256` and `CodeSize` of the code.
pub(super) fn code_digest(code: &Code) -> (String, u64) {
    match code {
        Code::Zip { sha256, size, .. } => (sha256.clone(), *size),
        Code::Live { dir } => (hot_reload_sha(dir), 0),
    }
}

/// The `CodeSha256` of live code: the folder's path digested, as it has no zip.
fn hot_reload_sha(dir: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(dir.as_bytes()))
}

/// Where the code is: the zip the runtime unpacked, or a live folder.
pub fn code_of(code: CodeInput) -> Result<Code, AwsError> {
    if code.image_uri.is_some() {
        return Err(invalid_parameter(
            "switchyard runs functions without a container runtime: a container image \
             (ImageUri, PackageType Image) cannot run here; deploy the function as a .zip \
             (Code.ZipFile) or a local folder (S3Bucket hot-reload, S3Key <folder>).",
        ));
    }
    if let Some(unpacked) = code.switchyard_unpacked {
        return Ok(Code::Zip {
            dir: unpacked.dir,
            sha256: unpacked.sha256,
            size: unpacked.size,
        });
    }
    if code.zip_file.is_some() {
        return Err(AwsError::internal("the function's zip was not unpacked"));
    }
    match (code.s3_bucket.as_deref(), code.s3_key) {
        (Some("hot-reload"), Some(dir)) if dir.starts_with('/') => Ok(Code::Live { dir }),
        (Some("hot-reload"), _) => Err(invalid_parameter(
            "With S3Bucket hot-reload, S3Key must be the absolute path of a local folder.",
        )),
        // switchyard has no S3: a bucket is one that does not exist.
        (Some(_), _) => Err(invalid_parameter(
            "Error occurred while GetObject. S3 Error Code: NoSuchBucket. S3 Error Message: The \
             specified bucket does not exist",
        )),
        (None, _) => Err(invalid_parameter(
            "Please provide a source for function code.",
        )),
    }
}

/// `RevisionId` given with an update must be the function's: another means someone changed it
/// meanwhile.
pub fn check_revision(f: &Function, given: Option<&str>) -> Result<(), AwsError> {
    check_revision_id(&f.revision, given)
}

/// [`check_revision`] for anything with a `RevisionId` (a version, an alias).
pub fn check_revision_id(revision: &str, given: Option<&str>) -> Result<(), AwsError> {
    match given {
        Some(r) if r != revision => Err(super::errors::user(
            "PreconditionFailedException",
            412,
            "The Revision Id provided does not match the latest Revision Id. Call the \
             GetFunction/GetAlias API to retrieve the latest Revision Id",
        )),
        _ => Ok(()),
    }
}

/// Whether switchyard can run the function's runtime.
pub fn runnable(f: &Function) -> bool {
    runs(&f.runtime)
}
