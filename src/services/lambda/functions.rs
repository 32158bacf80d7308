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
    CodeInput, CreateFunctionInput, FunctionConfiguration, FunctionNameInput, FunctionSettings,
    ListFunctionsInput, UpdateFunctionCodeInput, UpdateFunctionConfigurationInput,
};
use crate::arn::Arn;
use crate::error::AwsError;
use crate::services::{Context, SetMember};
use crate::state::State;
use crate::state::lambda::store::Function;
use serde_json::{Value, json};

// The shared pieces, under the names the other modules have always used.
pub use super::lookup::{
    Seen, check_revision, check_revision_id, code_of, configuration, find, find_mut, last_modified,
    name_of, resolve, resolve_in, runnable, shown, unqualified_arn,
};

/// The limits of a function's timeout, memory and ephemeral storage.
fn check_limits(settings: &FunctionSettings) -> Result<(), AwsError> {
    let (timeout, memory) = (settings.timeout, settings.memory_size);
    let storage = settings.ephemeral_storage.map(|s| s.size);
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
    mut input: CreateFunctionInput,
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
    let (Some(runtime), Some(handler)) =
        (input.settings.runtime.take(), input.settings.handler.take())
    else {
        return Err(invalid_parameter(
            "Runtime and Handler are mandatory parameters for functions created with deployment \
             packages.",
        ));
    };
    check_limits(&input.settings)?;
    let name = name_of(&arn).to_string();
    if state.lambda.functions.contains_key(&arn) {
        return Err(function_exists(&name));
    }
    let code = code_of(input.code)?;
    let dead_letter = dead_letter_of(input.settings.dead_letter_config)?;
    let layers = super::layers::refs(state, cx, input.settings.layers.unwrap_or_default())?;
    let function = Function {
        name,
        arn: arn.clone(),
        account: Arn::account_of(&arn).to_string(),
        region: Arn::region_of(&arn).to_string(),
        runtime,
        handler,
        role: input.role,
        description: input.settings.description.unwrap_or_default(),
        timeout: input.settings.timeout.map_or(3, |t| t as u32),
        memory: input.settings.memory_size.map_or(128, |m| m as u32),
        environment: input.settings.environment.unwrap_or_default().variables,
        architectures: input.architectures.unwrap_or_else(|| vec!["x86_64".into()]),
        ephemeral_storage: input
            .settings
            .ephemeral_storage
            .map_or(512, |s| s.size as u32),
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
    check_limits(&input.settings)?;
    let dead_letter = match input.settings.dead_letter_config {
        Some(config) => Some(dead_letter_of(Some(config))?),
        None => None,
    };
    let layers = match input.settings.layers {
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
    if let Some(runtime) = input.settings.runtime {
        f.runtime = runtime;
    }
    if let Some(handler) = input.settings.handler {
        f.handler = handler;
    }
    if let Some(description) = input.settings.description {
        f.description = description;
    }
    if let Some(timeout) = input.settings.timeout {
        f.timeout = timeout as u32;
    }
    if let Some(memory) = input.settings.memory_size {
        f.memory = memory as u32;
    }
    if let Some(environment) = input.settings.environment {
        f.environment = environment.variables;
    }
    if let Some(storage) = input.settings.ephemeral_storage {
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
            "The provided target arn {arn} is invalid. Only SQS queues and SNS topics are supported as dead-letter targets."
        ))),
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
