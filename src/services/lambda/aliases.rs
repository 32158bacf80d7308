//! Aliases: CreateAlias, GetAlias, UpdateAlias, DeleteAlias, ListAliases (docs/lambda.md). An
//! alias names a version (or `$LATEST`) and may send a share of its invocations to one other
//! version (`RoutingConfig.AdditionalVersionWeights`); its ARN is the function's with `:<name>`.

use super::errors::{function_not_found, invalid_parameter, user, validation};
use super::functions::{check_revision_id, find_mut};
use super::paging::{page, page_size};
use super::shapes::ListByFunctionInput;
use super::versions::{find_qualified, version_config};
use crate::error::AwsError;
use crate::services::{Context, SetMember};
use crate::state::State;
use crate::state::lambda::store::{Alias, Function};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct AliasInput {
    pub function_name: String,
    pub name: String,
    pub function_version: Option<String>,
    pub description: Option<String>,
    pub routing_config: Option<RoutingConfig>,
    pub revision_id: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct RoutingConfig {
    #[serde(default)]
    pub additional_version_weights: BTreeMap<String, f64>,
}

/// `AliasConfiguration`, as every alias operation answers it.
fn configuration(f: &Function, alias: &Alias) -> Value {
    let mut answer = json!({
        "AliasArn": format!("{}:{}", f.arn, alias.name),
        "Name": alias.name,
        "FunctionVersion": alias.version,
        "Description": alias.description,
        "RevisionId": alias.revision,
    });
    if !alias.weights.is_empty() {
        answer.set(
            "RoutingConfig",
            json!({"AdditionalVersionWeights": alias.weights}),
        );
    }
    answer
}

/// An alias's name: 1 to 128 letters, digits, `-` and `_`, not all digits (a version's).
fn check_name(name: &str) -> Result<(), AwsError> {
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if name.is_empty() || name.len() > 128 {
        return Err(validation(
            name,
            "name",
            "Member must have length between 1 and 128",
        ));
    }
    if !name.chars().all(valid) || name.chars().all(|c| c.is_ascii_digit()) {
        return Err(validation(
            name,
            "name",
            "Member must satisfy regular expression pattern: (?!^[0-9]+$)([a-zA-Z0-9-_]+)",
        ));
    }
    Ok(())
}

/// The version an alias points to, which must exist.
fn check_version(f: &Function, version: &str) -> Result<(), AwsError> {
    match version_config(f, version) {
        Some(_) => Ok(()),
        None => Err(function_not_found(&format!("{}:{version}", f.arn))),
    }
}

/// The version an alias points to, which must exist, and its routing configuration: at most
/// one other version, published, with a weight in [0, 1].
fn check_routing(
    f: &Function,
    version: &str,
    weights: &BTreeMap<String, f64>,
) -> Result<(), AwsError> {
    check_version(f, version)?;
    let member = "routingConfig.additionalVersionWeights";
    if weights.len() > 1 {
        return Err(invalid_parameter(
            "Number of items in AdditionalVersionWeights cannot be greater than 1",
        ));
    }
    for (other, weight) in weights {
        if other.is_empty() || !other.chars().all(|c| c.is_ascii_digit()) {
            return Err(validation(
                other,
                member,
                "Map keys must satisfy constraint: [Member must satisfy regular expression \
                 pattern: [0-9]+]",
            ));
        }
        if !(0.0..=1.0).contains(weight) {
            return Err(validation(
                weight,
                member,
                "Map value must satisfy constraint: [Member must have value less than or equal \
                 to 1.0, Member must have value greater than or equal to 0.0]",
            ));
        }
        if version == "$LATEST" {
            return Err(invalid_parameter(
                "$LATEST is not supported for an alias pointing to more than 1 version",
            ));
        }
        if other == version {
            return Err(invalid_parameter(format!(
                "Invalid function version {other}. Function version {other} is already \
                 included in routing configuration."
            )));
        }
        check_version(f, other)?;
    }
    Ok(())
}

fn not_found(f: &Function, name: &str) -> AwsError {
    user(
        "ResourceNotFoundException",
        404,
        format!("Alias not found: {}:{name}", f.arn),
    )
}

/// The function CreateAlias or UpdateAlias writes to, once the alias's name is valid, and the
/// alias's new revision.
fn written<'s>(
    state: &'s mut State,
    cx: &Context,
    input: &AliasInput,
) -> Result<(&'s mut Function, String), AwsError> {
    check_name(&input.name)?;
    let revision = state.engine.rng.uuid();
    let f = find_mut(state, cx, &input.function_name)?;
    Ok((f, revision))
}

pub(super) fn create(
    state: &mut State,
    cx: &Context,
    input: AliasInput,
) -> Result<Value, AwsError> {
    let (f, revision) = written(state, cx, &input)?;
    let version = input.function_version.unwrap_or_else(|| "$LATEST".into());
    let weights = input.routing_config.unwrap_or_default();
    let weights = weights.additional_version_weights;
    check_routing(f, &version, &weights)?;
    if f.aliases.contains_key(&input.name) {
        return Err(user(
            "ResourceConflictException",
            409,
            format!("Alias already exists: {}:{}", f.arn, input.name),
        ));
    }
    let alias = Alias {
        name: input.name.clone(),
        version,
        description: input.description.unwrap_or_default(),
        weights,
        revision,
    };
    let answer = configuration(f, &alias);
    f.aliases.insert(input.name, alias);
    Ok(answer)
}

pub(super) fn get(state: &State, cx: &Context, input: AliasInput) -> Result<Value, AwsError> {
    check_name(&input.name)?;
    let (f, _) = find_qualified(state, &cx.account, &cx.region, &input.function_name, None)?;
    let alias = f
        .aliases
        .get(&input.name)
        .ok_or_else(|| not_found(f, &input.name))?;
    Ok(configuration(f, alias))
}

pub(super) fn update(
    state: &mut State,
    cx: &Context,
    input: AliasInput,
) -> Result<Value, AwsError> {
    let (f, revision) = written(state, cx, &input)?;
    let Some(alias) = f.aliases.get(&input.name) else {
        return Err(not_found(f, &input.name));
    };
    check_revision_id(&alias.revision, input.revision_id.as_deref())?;
    let version = input
        .function_version
        .unwrap_or_else(|| alias.version.clone());
    let weights = match input.routing_config {
        Some(routing) => routing.additional_version_weights,
        None => alias.weights.clone(),
    };
    check_routing(f, &version, &weights)?;
    let Some(alias) = f.aliases.get_mut(&input.name) else {
        return Err(AwsError::internal("the alias went away"));
    };
    alias.version = version;
    alias.weights = weights;
    if let Some(description) = input.description {
        alias.description = description;
    }
    alias.revision = revision;
    let alias = alias.clone();
    Ok(configuration(f, &alias))
}

/// DeleteAlias: the alias and its resource policy; an alias that does not exist is no error
/// (the model lists none).
pub(super) fn delete(
    state: &mut State,
    cx: &Context,
    input: AliasInput,
) -> Result<Value, AwsError> {
    check_name(&input.name)?;
    let f = find_mut(state, cx, &input.function_name)?;
    if f.aliases.remove(&input.name).is_some() {
        f.policies.remove(&input.name);
    }
    Ok(json!({}))
}

/// ListAliases: in name order, only those that invoke `FunctionVersion` when it is given
/// (their own version or the routed one), `MaxItems` (at most 50) a page.
pub(super) fn list(
    state: &State,
    cx: &Context,
    input: ListByFunctionInput,
) -> Result<Value, AwsError> {
    let size = page_size(input.max_items, 10_000, 50)?;
    let (f, qualifier) =
        find_qualified(state, &cx.account, &cx.region, &input.function_name, None)?;
    if let Some(q) = qualifier {
        return Err(function_not_found(&format!("{}:{q}", f.arn)));
    }
    let wanted = input.function_version.as_deref();
    let invokes = |a: &Alias| wanted.is_none_or(|v| a.version == v || a.weights.contains_key(v));
    let items = (f.aliases.values())
        .filter(|a| invokes(a))
        .map(|a| (a.name.clone(), configuration(f, a)))
        .collect();
    let (aliases, next) = page(items, input.marker.as_deref(), size);
    let mut answer = json!({"Aliases": aliases});
    if let Some(marker) = next {
        answer.set("NextMarker", json!(marker));
    }
    Ok(answer)
}
