//! API destinations: an HTTP endpoint, method and rate limit, authorized through a connection
//! (the request an event to one makes is `super::invocation`'s).
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::checks::{self, DESTINATION_METHODS, Violations};
use super::invocation::{by_arn, key, usable};
use crate::arn::Arn;
use crate::services::events::errors::EventsError;
use crate::services::events::store::{ApiDestination, Connection};
use crate::services::events::times::epoch_seconds;
use crate::services::{Context, set_given};
use crate::state::State;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// InvocationRateLimitPerSecond when none is given (AWS's default).
const DEFAULT_RATE_LIMIT: u32 = 300;

fn not_found(name: &str, verb: &str) -> EventsError {
    // The wording AWS answers DescribeApiDestination with (LocalStack's recorded snapshot
    // `test_api_destinations`); other operations name their own verb.
    EventsError::ResourceNotFound(format!(
        "Failed to {verb} the api-destination(s). An api-destination '{name}' does not exist."
    ))
}

/// The connection an API destination is to use, which must exist.
fn connection_for<'e>(e: &'e State, arn: &str, verb: &str) -> Result<&'e Connection, EventsError> {
    by_arn(e, arn).ok_or_else(|| {
        let name = checks::parse_arn(arn, "connection").map_or(arn, |(_, _, n)| n);
        EventsError::ResourceNotFound(format!(
            "Failed to {verb} the api-destination(s). Connection '{name}' does not exist."
        ))
    })
}

/// The endpoint must be an HTTPS URL (switchyard: or HTTP) — AWS's wording, as CloudFormation
/// users have quoted it.
fn check_endpoint(url: &str, verb: &str) -> Result<(), EventsError> {
    if checks::is_http_url(url) {
        return Ok(());
    }
    Err(EventsError::Validation(format!(
        "Failed to {verb} the api-destination(s). Parameter InvocationEndpoint is not valid. Reason: Endpoint '{url}' is invalid, please provide a valid HTTPS endpoint URL."
    )))
}

/// ACTIVE while its connection can authorize invocations, else INACTIVE (AWS answers INACTIVE
/// for a destination whose OAuth connection is still AUTHORIZING: LocalStack's recorded
/// snapshot `test_api_destinations[auth2]`).
fn state_of(e: &State, d: &ApiDestination) -> &'static str {
    match by_arn(e, &d.connection_arn) {
        Some(c) if usable(c) => "ACTIVE",
        _ => "INACTIVE",
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct CreateApiDestinationInput {
    pub name: String,
    pub description: Option<String>,
    pub connection_arn: String,
    pub invocation_endpoint: String,
    pub http_method: String,
    pub invocation_rate_limit_per_second: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct ApiDestinationStateOutput {
    pub api_destination_arn: String,
    pub api_destination_state: String,
    pub creation_time: Value,
    pub last_modified_time: Value,
}

fn state_output(e: &State, d: &ApiDestination) -> ApiDestinationStateOutput {
    ApiDestinationStateOutput {
        api_destination_arn: d.arn.clone(),
        api_destination_state: state_of(e, d).to_string(),
        creation_time: epoch_seconds(d.created_at),
        last_modified_time: epoch_seconds(d.modified_at),
    }
}

/// The model's constraints, members in the API reference's order.
#[allow(clippy::too_many_arguments)]
fn check_members(
    connection_arn: Option<&str>,
    description: Option<&str>,
    http_method: Option<&str>,
    endpoint: Option<&str>,
    rate_limit: Option<i64>,
    name: &str,
) -> Result<(), EventsError> {
    let mut v = Violations::default();
    v.name(name, "name");
    v.description(description);
    v.connection_arn(connection_arn);
    v.endpoint(endpoint, "invocationEndpoint");
    v.one_of(http_method, "httpMethod", DESTINATION_METHODS);
    if let Some(n) = rate_limit.filter(|n| *n < 1) {
        v.add(
            Some(&n.to_string()),
            "invocationRateLimitPerSecond",
            "Member must have value greater than or equal to 1",
        );
    }
    v.finish()
}

fn rate_limit(n: i64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

pub(in crate::services::events) fn create_api_destination(
    e: &mut State,
    cx: &Context,
    input: CreateApiDestinationInput,
) -> Result<ApiDestinationStateOutput, EventsError> {
    check_members(
        Some(&input.connection_arn),
        input.description.as_deref(),
        Some(&input.http_method),
        Some(&input.invocation_endpoint),
        input.invocation_rate_limit_per_second,
        &input.name,
    )?;
    check_endpoint(&input.invocation_endpoint, "create")?;
    let key = key(&cx.region, &cx.account, &input.name);
    if e.events.api_destinations.contains_key(&key) {
        return Err(EventsError::ResourceAlreadyExists(format!(
            "An api-destination '{}' already exists.",
            input.name
        )));
    }
    connection_for(e, &input.connection_arn, "create")?;
    let now = e.now();
    let id = e.engine.rng.uuid();
    let (region, account, name) = (&cx.region, &cx.account, &input.name);
    let resource = format!("api-destination/{name}/{id}");
    let destination = ApiDestination {
        name: name.clone(),
        arn: Arn::new("events", region, account, &resource).text(),
        account: account.clone(),
        region: region.clone(),
        description: input.description,
        connection_arn: input.connection_arn,
        endpoint: input.invocation_endpoint,
        http_method: input.http_method,
        rate_limit_per_second: input
            .invocation_rate_limit_per_second
            .map_or(DEFAULT_RATE_LIMIT, rate_limit),
        created_at: now,
        modified_at: now,
    };
    let out = state_output(e, &destination);
    e.events.api_destinations.insert(key, destination);
    Ok(out)
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct ApiDestinationNameInput {
    pub name: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct DescribeApiDestinationOutput {
    pub api_destination_arn: String,
    pub api_destination_state: String,
    pub connection_arn: String,
    pub creation_time: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub http_method: String,
    pub invocation_endpoint: String,
    pub invocation_rate_limit_per_second: u32,
    pub last_modified_time: Value,
    pub name: String,
}

fn describe(e: &State, d: &ApiDestination) -> DescribeApiDestinationOutput {
    DescribeApiDestinationOutput {
        api_destination_arn: d.arn.clone(),
        api_destination_state: state_of(e, d).to_string(),
        connection_arn: d.connection_arn.clone(),
        creation_time: epoch_seconds(d.created_at),
        description: d.description.clone(),
        http_method: d.http_method.clone(),
        invocation_endpoint: d.endpoint.clone(),
        invocation_rate_limit_per_second: d.rate_limit_per_second,
        last_modified_time: epoch_seconds(d.modified_at),
        name: d.name.clone(),
    }
}

pub(in crate::services::events) fn describe_api_destination(
    e: &mut State,
    cx: &Context,
    input: ApiDestinationNameInput,
) -> Result<DescribeApiDestinationOutput, EventsError> {
    check_members(None, None, None, None, None, &input.name)?;
    let d = e
        .events
        .api_destinations
        .get(&key(&cx.region, &cx.account, &input.name))
        .ok_or_else(|| not_found(&input.name, "describe"))?;
    Ok(describe(e, d))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct UpdateApiDestinationInput {
    pub name: String,
    pub description: Option<String>,
    pub connection_arn: Option<String>,
    pub invocation_endpoint: Option<String>,
    pub http_method: Option<String>,
    pub invocation_rate_limit_per_second: Option<i64>,
}

pub(in crate::services::events) fn update_api_destination(
    e: &mut State,
    cx: &Context,
    input: UpdateApiDestinationInput,
) -> Result<ApiDestinationStateOutput, EventsError> {
    check_members(
        input.connection_arn.as_deref(),
        input.description.as_deref(),
        input.http_method.as_deref(),
        input.invocation_endpoint.as_deref(),
        input.invocation_rate_limit_per_second,
        &input.name,
    )?;
    if let Some(url) = &input.invocation_endpoint {
        check_endpoint(url, "update")?;
    }
    let key = key(&cx.region, &cx.account, &input.name);
    // Changed as a copy, put back once the answer (which reads the connection) is made.
    let Some(mut d) = e.events.api_destinations.get(&key).cloned() else {
        return Err(not_found(&input.name, "update"));
    };
    if let Some(arn) = &input.connection_arn {
        connection_for(e, arn, "update")?;
    }
    let now = e.now();
    set_given(&mut d.description, input.description);
    if let Some(arn) = input.connection_arn {
        d.connection_arn = arn;
    }
    if let Some(url) = input.invocation_endpoint {
        d.endpoint = url;
    }
    if let Some(method) = input.http_method {
        d.http_method = method;
    }
    if let Some(n) = input.invocation_rate_limit_per_second {
        d.rate_limit_per_second = rate_limit(n);
    }
    d.modified_at = now;
    let out = state_output(e, &d);
    e.events.api_destinations.insert(key, d);
    Ok(out)
}

#[derive(Debug, Serialize)]
pub(in crate::services::events) struct Empty {}

pub(in crate::services::events) fn delete_api_destination(
    e: &mut State,
    cx: &Context,
    input: ApiDestinationNameInput,
) -> Result<Empty, EventsError> {
    check_members(None, None, None, None, None, &input.name)?;
    e.events
        .api_destinations
        .remove(&key(&cx.region, &cx.account, &input.name))
        .ok_or_else(|| not_found(&input.name, "delete"))?;
    Ok(Empty {})
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct ListApiDestinationsInput {
    pub name_prefix: Option<String>,
    pub connection_arn: Option<String>,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct ApiDestinationSummary {
    pub api_destination_arn: String,
    pub api_destination_state: String,
    pub connection_arn: String,
    pub creation_time: Value,
    pub http_method: String,
    pub invocation_endpoint: String,
    pub invocation_rate_limit_per_second: u32,
    pub last_modified_time: Value,
    pub name: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct ListApiDestinationsOutput {
    pub api_destinations: Vec<ApiDestinationSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub(in crate::services::events) fn list_api_destinations(
    e: &mut State,
    cx: &Context,
    input: ListApiDestinationsInput,
) -> Result<ListApiDestinationsOutput, EventsError> {
    let mut v = Violations::default();
    v.connection_arn(input.connection_arn.as_deref());
    if let Some(prefix) = &input.name_prefix {
        v.name(prefix, "namePrefix");
    }
    v.finish()?;
    let prefix = input.name_prefix.unwrap_or_default();
    let items: Vec<(String, ApiDestinationSummary)> = e
        .events
        .api_destinations
        .values()
        .filter(|d| cx.owns(&d.account, &d.region))
        .filter(|d| d.name.starts_with(&prefix))
        .filter(|d| {
            input
                .connection_arn
                .as_ref()
                .is_none_or(|a| *a == d.connection_arn)
        })
        .map(|d| {
            let full = describe(e, d);
            let summary = ApiDestinationSummary {
                api_destination_arn: full.api_destination_arn,
                api_destination_state: full.api_destination_state,
                connection_arn: full.connection_arn,
                creation_time: full.creation_time,
                http_method: full.http_method,
                invocation_endpoint: full.invocation_endpoint,
                invocation_rate_limit_per_second: full.invocation_rate_limit_per_second,
                last_modified_time: full.last_modified_time,
                name: full.name,
            };
            (d.name.clone(), summary)
        })
        .collect();
    let (api_destinations, next_token) =
        crate::services::events::lookup::page(items, input.next_token.as_deref(), input.limit)?;
    Ok(ListApiDestinationsOutput {
        api_destinations,
        next_token,
    })
}
