//! Functions: CreateFunction, GetFunction, GetFunctionConfiguration, ListFunctions,
//! UpdateFunctionCode, UpdateFunctionConfiguration, DeleteFunction (docs/lambda.md). The reads
//! take a qualifier (a version or an alias: `versions.rs`), and so does DeleteFunction, which
//! then deletes one version.
//!
//! A function is created and updated at once on the virtual clock: the answer to the change
//! reports it as AWS's does while the change is under way (`State: Pending`, `LastUpdateStatus:
//! InProgress`), and every read after it finds the function `Active` and the update
//! `Successful`, so SDK waiters return on their first look.

use super::errors::{function_exists, function_not_found, invalid_parameter, validation};
use super::shapes::{
    CodeInput, CreateFunctionInput, EphemeralStorage, FunctionConfiguration, FunctionNameInput,
    ListFunctionsInput, LoggingConfig, SnapStart, TracingConfig, UpdateFunctionCodeInput,
    UpdateFunctionConfigurationInput,
};
use crate::arn::Arn;
use crate::error::AwsError;
use crate::services::{Context, SetMember};
use crate::state::State;
use crate::state::lambda::store::{Code, Function};
use serde_json::{Value, json};

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
    match arn.match_indices(':').nth(6) {
        Some((end, _)) => arn.get(..end).unwrap_or(arn),
        None => arn,
    }
}

/// The function `name` names, in the caller's account.
pub fn find<'s>(state: &'s State, cx: &Context, name: &str) -> Result<&'s Function, AwsError> {
    find_in(state, &cx.account, &cx.region, name)
}

/// [`find`] for a caller in `account` and `region`.
pub fn find_in<'s>(
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
pub fn code_digest(code: &Code) -> (String, u64) {
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

fn check_limits(
    timeout: Option<i64>,
    memory: Option<i64>,
    storage: Option<i64>,
) -> Result<(), AwsError> {
    if let Some(t) = timeout.filter(|t| *t < 1) {
        return Err(validation(
            t,
            "timeout",
            "Member must have value greater than or equal to 1",
        ));
    }
    if let Some(t) = timeout.filter(|t| *t > 900) {
        return Err(invalid_parameter(format!(
            "Timeout value must be less than or equal to 900 seconds, got {t}."
        )));
    }
    if let Some(m) = memory.filter(|m| !(128..=10_240).contains(m)) {
        let rule = if m < 128 {
            "Member must have value greater than or equal to 128"
        } else {
            "Member must have value less than or equal to 10240"
        };
        return Err(validation(m, "memorySize", rule));
    }
    if let Some(s) = storage.filter(|s| !(512..=10_240).contains(s)) {
        return Err(validation(
            s,
            "ephemeralStorage.size",
            "Member must have value between 512 and 10240",
        ));
    }
    Ok(())
}

pub fn create(
    state: &mut State,
    cx: &Context,
    input: CreateFunctionInput,
) -> Result<Value, AwsError> {
    let (arn, qualifier) = resolve(cx, &input.function_name)?;
    if qualifier.is_some() {
        return Err(invalid_parameter(
            "Unqualified function ARN expected; a qualifier was given.",
        ));
    }
    if input.package_type.as_deref() == Some("Image") {
        code_of(CodeInput {
            image_uri: Some(String::new()),
            ..Default::default()
        })?;
    }
    let (Some(runtime), Some(handler)) = (input.runtime, input.handler) else {
        return Err(invalid_parameter(
            "Runtime and Handler are mandatory parameters for functions created with deployment \
             packages.",
        ));
    };
    check_limits(
        input.timeout,
        input.memory_size,
        input.ephemeral_storage.map(|s| s.size),
    )?;
    let name = arn.rsplit(':').next().unwrap_or_default().to_string();
    if state.lambda.functions.contains_key(&arn) {
        return Err(function_exists(&name));
    }
    let code = code_of(input.code)?;
    let dead_letter = dead_letter_of(input.dead_letter_config)?;
    let layers = super::layers::refs(state, cx, input.layers.unwrap_or_default())?;
    let function = Function {
        name,
        arn: arn.clone(),
        account: Arn::account_of(&arn).to_string(),
        region: Arn::region_of(&arn).to_string(),
        runtime,
        handler,
        role: input.role,
        description: input.description.unwrap_or_default(),
        timeout: input.timeout.map_or(3, |t| t as u32),
        memory: input.memory_size.map_or(128, |m| m as u32),
        environment: input.environment.unwrap_or_default().variables,
        architectures: input.architectures.unwrap_or_else(|| vec!["x86_64".into()]),
        ephemeral_storage: input.ephemeral_storage.map_or(512, |s| s.size as u32),
        code,
        last_modified: state.now(),
        revision: state.engine.rng.uuid(),
        tags: input.tags.unwrap_or_default(),
        reserved_concurrency: None,
        dead_letter,
        layers,
        versions: Default::default(),
        last_version: 0,
        aliases: Default::default(),
        policies: Default::default(),
    };
    let answer = configuration(&function, Seen::Created);
    state.lambda.functions.insert(arn, function);
    super::encode(answer)
}

pub fn get(state: &State, cx: &Context, input: FunctionNameInput) -> Result<Value, AwsError> {
    let (f, shown) = super::versions::find_shown(state, cx, &input)?;
    let mut answer = json!({
        "Configuration": super::encode(shown)?,
        "Code": {"RepositoryType": "S3"},
    });
    if !f.tags.is_empty() {
        answer.set("Tags", json!(f.tags));
    }
    if let Some(n) = f.reserved_concurrency {
        answer.set("Concurrency", json!({"ReservedConcurrentExecutions": n}));
    }
    Ok(answer)
}

pub fn get_configuration(
    state: &State,
    cx: &Context,
    input: FunctionNameInput,
) -> Result<Value, AwsError> {
    super::encode(super::versions::find_shown(state, cx, &input)?.1)
}

/// ListFunctions: the account and region's functions in name order, `MaxItems` (at most 50,
/// the default) a page, the next page after `Marker` (the last name of the page before).
pub fn list(state: &State, cx: &Context, input: ListFunctionsInput) -> Result<Value, AwsError> {
    let max = match input.max_items {
        None => 50,
        Some(n) if (1..=10_000).contains(&n) => n.min(50) as usize,
        Some(n) => {
            return Err(validation(
                n,
                "maxItems",
                "Member must have value between 1 and 10000",
            ));
        }
    };
    let prefix = Arn::new("lambda", &cx.region, &cx.account, "function:").text();
    let mut page = Vec::new();
    let mut next = None;
    let after = input.marker.map(|m| format!("{prefix}{m}"));
    let functions = state.lambda.functions.range(prefix.clone()..);
    for (arn, f) in functions.take_while(|(arn, _)| arn.starts_with(&prefix)) {
        if after.as_ref().is_some_and(|a| arn <= a) {
            continue;
        }
        if page.len() == max {
            next = page
                .last()
                .map(|c: &FunctionConfiguration| c.function_name.clone());
            break;
        }
        page.push(configuration(f, Seen::Read));
    }
    let mut answer = json!({"Functions": super::encode(page)?});
    if let Some(marker) = next {
        answer.set("NextMarker", json!(marker));
    }
    Ok(answer)
}

pub fn update_configuration(
    state: &mut State,
    cx: &Context,
    input: UpdateFunctionConfigurationInput,
) -> Result<Value, AwsError> {
    check_limits(
        input.timeout,
        input.memory_size,
        input.ephemeral_storage.map(|s| s.size),
    )?;
    let dead_letter = match input.dead_letter_config {
        Some(config) => Some(dead_letter_of(Some(config))?),
        None => None,
    };
    let layers = match input.layers {
        Some(layers) => Some(super::layers::refs(state, cx, layers)?),
        None => None,
    };
    let revision = state.engine.rng.uuid();
    let now = state.now();
    let f = find_mut(state, cx, &input.function_name)?;
    check_revision(f, input.revision_id.as_deref())?;
    if let Some(layers) = layers {
        f.layers = layers;
    }
    if let Some(role) = input.role {
        f.role = role;
    }
    if let Some(runtime) = input.runtime {
        f.runtime = runtime;
    }
    if let Some(handler) = input.handler {
        f.handler = handler;
    }
    if let Some(description) = input.description {
        f.description = description;
    }
    if let Some(timeout) = input.timeout {
        f.timeout = timeout as u32;
    }
    if let Some(memory) = input.memory_size {
        f.memory = memory as u32;
    }
    if let Some(environment) = input.environment {
        f.environment = environment.variables;
    }
    if let Some(storage) = input.ephemeral_storage {
        f.ephemeral_storage = storage.size as u32;
    }
    if let Some(config) = dead_letter {
        f.dead_letter = config;
    }
    f.last_modified = now;
    f.revision = revision;
    super::encode(configuration(f, Seen::Updated))
}

/// DeadLetterConfig's target: an SQS queue's or an SNS topic's ARN, or none (empty).
fn dead_letter_of(
    config: Option<super::shapes::DeadLetterConfig>,
) -> Result<Option<String>, AwsError> {
    let Some(arn) = config.and_then(|c| c.target_arn).filter(|a| !a.is_empty()) else {
        return Ok(None);
    };
    match Arn::parse(&arn).map(|a| a.service) {
        Some("sqs" | "sns") => Ok(Some(arn)),
        _ => Err(invalid_parameter(format!(
            "The provided target arn {arn} is invalid. Only SQS queues and SNS topics are              supported as dead-letter targets."
        ))),
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

pub fn update_code(
    state: &mut State,
    cx: &Context,
    input: UpdateFunctionCodeInput,
) -> Result<Value, AwsError> {
    let revision = state.engine.rng.uuid();
    let now = state.now();
    let f = find_mut(state, cx, &input.function_name)?;
    check_revision(f, input.revision_id.as_deref())?;
    f.code = code_of(input.code)?;
    if let Some(architectures) = input.architectures {
        f.architectures = architectures;
    }
    f.last_modified = now;
    f.revision = revision;
    super::encode(configuration(f, Seen::Updated))
}

pub fn delete(
    state: &mut State,
    cx: &Context,
    input: FunctionNameInput,
) -> Result<Value, AwsError> {
    let (arn, qualifier) = resolve(cx, &input.function_name)?;
    let qualifier = super::versions::one_qualifier(qualifier, input.qualifier)?;
    if let Some(q) = qualifier {
        return super::versions::delete_version(state, &arn, &q);
    }
    state
        .lambda
        .functions
        .remove(&arn)
        .ok_or_else(|| function_not_found(&arn))?;
    Ok(json!({}))
}

/// Whether switchyard can run the function's runtime.
pub fn runnable(f: &Function) -> bool {
    runs(&f.runtime)
}
