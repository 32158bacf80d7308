//! Event invoke configurations (PutFunctionEventInvokeConfig and its kin): how many times an
//! asynchronous invocation's function errors are retried (0–2), how old its event may grow
//! (60–21,600 s), and where its record goes on success and on failure (an SQS queue, an SNS
//! topic, an event bus, a Lambda function). One per function, version or alias; the
//! asynchronous invocations of [`super::asynchronous`] read it.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::errors::{invalid_parameter, user, validation};
use super::functions::{find, resolve};
use crate::arn::Arn;
use crate::error::AwsError;
use crate::services::{Context, SetMember};
use crate::state::State;
use crate::state::lambda::invocations::InvokeConfig;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct Destination {
    pub destination: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct DestinationConfig {
    pub on_success: Option<Destination>,
    pub on_failure: Option<Destination>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PutInput {
    pub function_name: String,
    pub qualifier: Option<String>,
    pub maximum_retry_attempts: Option<i64>,
    pub maximum_event_age_in_seconds: Option<i64>,
    pub destination_config: Option<DestinationConfig>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct NameInput {
    pub function_name: String,
    pub qualifier: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListInput {
    pub function_name: String,
    pub marker: Option<String>,
    pub max_items: Option<i64>,
}

/// The configuration's key (the function's ARN, with its qualifier unless `$LATEST`) and the
/// ARN answers name it by (with `:$LATEST` for the unqualified function, as AWS's do).
fn key(
    state: &State,
    cx: &Context,
    name: &str,
    qualifier: Option<&str>,
) -> Result<(String, String), AwsError> {
    let (arn, in_name) = resolve(cx, name)?;
    let qualifier = qualifier.map(str::to_string).or(in_name);
    let named = match &qualifier {
        Some(q) => format!("{arn}:{q}"),
        None => arn.clone(),
    };
    find(state, cx, &named)?;
    Ok(match qualifier.filter(|q| q != "$LATEST") {
        Some(q) => (format!("{arn}:{q}"), format!("{arn}:{q}")),
        None => (arn.clone(), format!("{arn}:$LATEST")),
    })
}

/// A destination must be an SQS queue, an SNS topic, an event bus or a Lambda function.
fn destination(d: Option<Destination>) -> Result<Option<String>, AwsError> {
    let Some(arn) = d.and_then(|d| d.destination).filter(|a| !a.is_empty()) else {
        return Ok(None);
    };
    let ok = match Arn::parse(&arn) {
        Some(a) if matches!(a.service, "sqs" | "sns" | "lambda") => true,
        Some(a) => a.service == "events" && a.resource.starts_with("event-bus/"),
        None => false,
    };
    match ok {
        true => Ok(Some(arn)),
        false => Err(invalid_parameter(format!(
            "The destination ARN {arn} is invalid. Only SQS queues, SNS topics, EventBridge \
             event buses and Lambda functions are supported as destinations."
        ))),
    }
}

fn check(retries: Option<i64>, age: Option<i64>) -> Result<(Option<u32>, Option<u32>), AwsError> {
    if let Some(r) = retries.filter(|r| !(0..=2).contains(r)) {
        let rule = match r < 0 {
            true => "Member must have value greater than or equal to 0",
            false => "Member must have value less than or equal to 2",
        };
        return Err(validation(r, "maximumRetryAttempts", rule));
    }
    if let Some(a) = age.filter(|a| !(60..=21_600).contains(a)) {
        let rule = match a < 60 {
            true => "Member must have value greater than or equal to 60",
            false => "Member must have value less than or equal to 21600",
        };
        return Err(validation(a, "maximumEventAgeInSeconds", rule));
    }
    Ok((retries.map(|r| r as u32), age.map(|a| a as u32)))
}

fn answer(arn: &str, c: &InvokeConfig) -> Value {
    let to = |d: &Option<String>| match d {
        Some(arn) => json!({"Destination": arn}),
        None => json!({}),
    };
    let mut out = json!({
        "LastModified": c.last_modified as f64 / 1000.0,
        "FunctionArn": arn,
        "DestinationConfig": {"OnSuccess": to(&c.on_success), "OnFailure": to(&c.on_failure)},
    });
    if let Some(r) = c.max_retries {
        out.set("MaximumRetryAttempts", json!(r));
    }
    if let Some(a) = c.max_age_s {
        out.set("MaximumEventAgeInSeconds", json!(a));
    }
    out
}

fn not_found(arn: &str) -> AwsError {
    user(
        "ResourceNotFoundException",
        404,
        format!("The function {arn} doesn't have an EventInvokeConfig"),
    )
}

/// PutFunctionEventInvokeConfig (`merge: false`: the configuration replaced whole) and
/// UpdateFunctionEventInvokeConfig (`merge: true`: only what is given changes).
pub(super) fn put(
    state: &mut State,
    cx: &Context,
    input: PutInput,
    merge: bool,
) -> Result<Value, AwsError> {
    let (key, shown) = key(state, cx, &input.function_name, input.qualifier.as_deref())?;
    let (retries, age) = check(
        input.maximum_retry_attempts,
        input.maximum_event_age_in_seconds,
    )?;
    let destinations = input.destination_config.unwrap_or_default();
    let given_success = destinations.on_success.is_some();
    let given_failure = destinations.on_failure.is_some();
    let on_success = destination(destinations.on_success)?;
    let on_failure = destination(destinations.on_failure)?;
    let now = state.now();
    let old = state.lambda.invoke_configs.get(&key).cloned();
    let config = match (merge, old) {
        (true, Some(old)) => InvokeConfig {
            max_retries: retries.or(old.max_retries),
            max_age_s: age.or(old.max_age_s),
            on_success: if given_success {
                on_success
            } else {
                old.on_success
            },
            on_failure: if given_failure {
                on_failure
            } else {
                old.on_failure
            },
            last_modified: now,
        },
        _ => InvokeConfig {
            max_retries: retries,
            max_age_s: age,
            on_success,
            on_failure,
            last_modified: now,
        },
    };
    let out = answer(&shown, &config);
    state.lambda.invoke_configs.insert(key, config);
    Ok(out)
}

pub(super) fn get(state: &State, cx: &Context, input: NameInput) -> Result<Value, AwsError> {
    let (key, shown) = key(state, cx, &input.function_name, input.qualifier.as_deref())?;
    match state.lambda.invoke_configs.get(&key) {
        Some(c) => Ok(answer(&shown, c)),
        None => Err(not_found(&shown)),
    }
}

pub(super) fn delete(state: &mut State, cx: &Context, input: NameInput) -> Result<Value, AwsError> {
    let (key, shown) = key(state, cx, &input.function_name, input.qualifier.as_deref())?;
    match state.lambda.invoke_configs.remove(&key) {
        Some(_) => Ok(json!({})),
        None => Err(not_found(&shown)),
    }
}

pub(super) fn list(state: &State, cx: &Context, input: ListInput) -> Result<Value, AwsError> {
    let max = match input.max_items {
        None => 50,
        Some(n) if (1..=50).contains(&n) => n as usize,
        Some(n) => {
            return Err(validation(
                n,
                "maxItems",
                "Member must have value between 1 and 50",
            ));
        }
    };
    let f = find(state, cx, &input.function_name)?;
    let arn = f.arn.clone();
    let mut all: Vec<(String, &InvokeConfig)> = state
        .lambda
        .invoke_configs
        .iter()
        .filter(|(k, _)| *k == &arn || k.strip_prefix(&arn).is_some_and(|q| q.starts_with(':')))
        .map(|(k, c)| match k == &arn {
            true => (format!("{arn}:$LATEST"), c),
            false => (k.clone(), c),
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    let start = match &input.marker {
        Some(m) => all.iter().position(|(k, _)| k > m).unwrap_or(all.len()),
        None => 0,
    };
    let page: Vec<Value> = all
        .iter()
        .skip(start)
        .take(max)
        .map(|(k, c)| answer(k, c))
        .collect();
    let mut out = json!({"FunctionEventInvokeConfigs": page});
    if start + max < all.len()
        && let Some((last, _)) = all.get(start + max - 1)
    {
        out.set("NextMarker", json!(last));
    }
    Ok(out)
}
