//! Tags (TagResource, UntagResource, ListTags), reserved concurrency (Put/Get/Delete
//! FunctionConcurrency) and GetAccountSettings.

use super::errors::{function_not_found, invalid_parameter, validation};
use super::functions::{find, resolve};
use crate::error::AwsError;
use crate::services::Context;
use crate::state::State;
use crate::state::lambda::store::Function;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The account's concurrency limit (AWS's default quota), and how much of it must stay
/// unreserved.
pub const ACCOUNT_CONCURRENCY: u32 = 1_000;
const UNRESERVED_MINIMUM: u32 = 100;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct TagInput {
    pub resource: String,
    pub tags: Option<BTreeMap<String, String>>,
    pub tag_keys: Option<Vec<String>>,
}

/// The function a tagging operation names by its ARN.
fn tagged<'s>(state: &'s mut State, cx: &Context, arn: &str) -> Result<&'s mut Function, AwsError> {
    let (unqualified, _) = resolve(cx, arn)?;
    state
        .lambda
        .functions
        .get_mut(&unqualified)
        .ok_or_else(|| function_not_found(arn))
}

pub(super) fn tag(state: &mut State, cx: &Context, input: TagInput) -> Result<Value, AwsError> {
    let f = tagged(state, cx, &input.resource)?;
    let tags = input.tags.unwrap_or_default();
    if f.tags.len() + tags.keys().filter(|k| !f.tags.contains_key(*k)).count() > 50 {
        return Err(invalid_parameter(
            "Number of tags exceeds resource tag limit.",
        ));
    }
    f.tags.extend(tags);
    Ok(json!({}))
}

pub(super) fn untag(state: &mut State, cx: &Context, input: TagInput) -> Result<Value, AwsError> {
    let f = tagged(state, cx, &input.resource)?;
    for key in input.tag_keys.unwrap_or_default() {
        f.tags.remove(&key);
    }
    Ok(json!({}))
}

pub(super) fn list_tags(
    state: &mut State,
    cx: &Context,
    input: TagInput,
) -> Result<Value, AwsError> {
    let f = tagged(state, cx, &input.resource)?;
    Ok(json!({"Tags": f.tags}))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ConcurrencyInput {
    pub function_name: String,
    pub reserved_concurrent_executions: Option<i64>,
}

/// The concurrency reserved by the account and region's functions other than `except`.
fn reserved_by_others(state: &State, cx: &Context, except: &str) -> u32 {
    let functions = state.lambda.functions.values();
    functions
        .filter(|f| cx.owns(&f.account, &f.region) && f.arn != except)
        .filter_map(|f| f.reserved_concurrency)
        .sum()
}

pub(super) fn put_concurrency(
    state: &mut State,
    cx: &Context,
    input: ConcurrencyInput,
) -> Result<Value, AwsError> {
    let n = input.reserved_concurrent_executions.unwrap_or_default();
    if n < 0 {
        return Err(validation(
            n,
            "reservedConcurrentExecutions",
            "Member must have value greater than or equal to 0",
        ));
    }
    let arn = find(state, cx, &input.function_name)?.arn.clone();
    let others = reserved_by_others(state, cx, &arn);
    let n = u32::try_from(n).unwrap_or(u32::MAX);
    if others.saturating_add(n) > ACCOUNT_CONCURRENCY - UNRESERVED_MINIMUM {
        return Err(invalid_parameter(format!(
            "Specified ReservedConcurrentExecutions for function decreases account's \
             UnreservedConcurrentExecution below its minimum value of [{UNRESERVED_MINIMUM}]."
        )));
    }
    if let Some(f) = state.lambda.functions.get_mut(&arn) {
        f.reserved_concurrency = Some(n);
    }
    Ok(json!({"ReservedConcurrentExecutions": n}))
}

pub(super) fn get_concurrency(
    state: &mut State,
    cx: &Context,
    input: ConcurrencyInput,
) -> Result<Value, AwsError> {
    let f = find(state, cx, &input.function_name)?;
    Ok(match f.reserved_concurrency {
        Some(n) => json!({"ReservedConcurrentExecutions": n}),
        None => json!({}),
    })
}

pub(super) fn delete_concurrency(
    state: &mut State,
    cx: &Context,
    input: ConcurrencyInput,
) -> Result<Value, AwsError> {
    let arn = find(state, cx, &input.function_name)?.arn.clone();
    if let Some(f) = state.lambda.functions.get_mut(&arn) {
        f.reserved_concurrency = None;
    }
    Ok(json!({}))
}

/// GetAccountSettings: AWS's default quotas, and what the account and region use.
pub(super) fn settings(state: &State, cx: &Context) -> Result<Value, AwsError> {
    let mine = state.lambda.functions.values();
    let mine: Vec<&Function> = mine.filter(|f| cx.owns(&f.account, &f.region)).collect();
    let code: u64 = mine.iter().map(|f| code_size(f)).sum();
    let reserved = reserved_by_others(state, cx, "");
    Ok(json!({
        "AccountLimit": {
            "TotalCodeSize": 80_530_636_800u64,
            "CodeSizeUnzipped": 262_144_000u64,
            "CodeSizeZipped": 52_428_800u64,
            "ConcurrentExecutions": ACCOUNT_CONCURRENCY,
            "UnreservedConcurrentExecutions": ACCOUNT_CONCURRENCY - reserved,
        },
        "AccountUsage": {"TotalCodeSize": code, "FunctionCount": mine.len()},
    }))
}

fn code_size(f: &Function) -> u64 {
    match &f.code {
        crate::state::lambda::store::Code::Zip { size, .. } => *size,
        crate::state::lambda::store::Code::Live { .. } => 0,
    }
}
