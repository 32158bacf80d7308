//! API destinations: an HTTP endpoint, method and rate limit, authorized through a connection;
//! and [`invocation`], the request an event to one makes as a rule target.

use super::auth::pairs;
use super::checks::{self, DESTINATION_METHODS, Violations};
use super::{Invocation, by_arn, key, usable};
use crate::arn::Arn;
use crate::engine::delivery::Failure;
use crate::services::Context;
use crate::services::events::store::{ApiDestination, Connection, HttpParameters};
use crate::services::events::{EventsError, epoch_seconds};
use crate::state::State;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// InvocationRateLimitPerSecond when none is given (AWS's default).
const DEFAULT_RATE_LIMIT: u32 = 300;

/// The headers EventBridge adds to every request (eb-api-destinations, "Headers included in
/// requests to API destinations"). Content-Length and Host come from the HTTP client.
const OWN_HEADERS: [(&str, &str); 5] = [
    ("User-Agent", "Amazon/EventBridge/ApiDestinations"),
    ("Content-Type", "application/json; charset=utf-8"),
    ("Range", "bytes=0-1048575"),
    ("Accept-Encoding", "gzip,deflate"),
    ("Connection", "close"),
];
/// EventBridge's headers that parameters cannot replace (the others they can).
const FIXED_HEADERS: [&str; 2] = ["User-Agent", "Range"];

/// The request an event to API destination `arn` makes, or why none can be made: not found
/// (`NO_RESOURCE`) when the destination or its connection does not exist, access denied
/// (`NO_PERMISSIONS`) when the connection cannot authorize (deauthorized, authorization failed
/// or still under way) — the codes of AWS's list (eb-rule-dlq).
pub fn invocation(e: &State, arn: &str, params: &HttpParameters) -> Result<Invocation, Failure> {
    let missing = Failure::NotFound("NO_RESOURCE");
    let destination = destination_by_arn(e, arn).ok_or(missing.clone())?;
    let connection = by_arn(e, &destination.connection_arn).ok_or(missing)?;
    if !usable(connection) {
        return Err(Failure::AccessDenied("NO_PERMISSIONS"));
    }
    Ok(build(destination, connection, params))
}

fn destination_by_arn<'e>(e: &'e State, arn: &str) -> Option<&'e ApiDestination> {
    let (region, account, name) = checks::parse_arn(arn, "api-destination")?;
    e.events
        .api_destinations
        .get(&key(region, account, name))
        .filter(|d| d.arn == arn)
}

/// The request itself. Where the connection and the target set the same header or query
/// parameter, the connection's wins (API_CreateConnectionAuthRequestParameters:
/// "the parameters added for the connection take precedence").
fn build(d: &ApiDestination, c: &Connection, params: &HttpParameters) -> Invocation {
    let invocation = c
        .auth_parameters
        .invocation_http_parameters
        .clone()
        .unwrap_or_default();
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);

    let mut path_values = params.path_parameter_values.iter();
    let mut endpoint = String::with_capacity(d.endpoint.len());
    for ch in d.endpoint.chars() {
        if ch == '*'
            && let Some(value) = path_values.next()
        {
            endpoint.push_str(&path_segment(value));
        } else {
            endpoint.push(ch);
        }
    }
    let mut query = pairs(&invocation.query_string_parameters);
    for (k, v) in &params.query_string_parameters {
        if !query.iter().any(|(q, _)| q == k) {
            query.push((k.clone(), v.clone()));
        }
    }

    let auth = match c.authorization_type.as_str() {
        "BASIC" => c.auth_parameters.basic_auth_parameters.as_ref().map(|b| {
            let user = b.username.as_deref().unwrap_or_default();
            let password = b.password.as_deref().unwrap_or_default();
            let encoded =
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
            ("Authorization".to_string(), format!("Basic {encoded}"))
        }),
        "API_KEY" => c.auth_parameters.api_key_auth_parameters.as_ref().map(|k| {
            (
                k.api_key_name.clone().unwrap_or_default(),
                k.api_key_value.clone().unwrap_or_default(),
            )
        }),
        _ => c
            .access_token
            .as_ref()
            .map(|t| ("Authorization".to_string(), format!("Bearer {t}"))),
    };
    let mut given: Vec<(String, String)> = auth.into_iter().collect();
    let targets = params
        .header_parameters
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()));
    for (name, value) in pairs(&invocation.header_parameters)
        .into_iter()
        .chain(targets)
    {
        let fixed = FIXED_HEADERS.iter().any(|f| same(f, &name));
        if !fixed && !given.iter().any(|(n, _)| same(n, &name)) {
            given.push((name, value));
        }
    }
    let mut headers: Vec<(String, String)> = OWN_HEADERS
        .iter()
        .filter(|(name, _)| {
            FIXED_HEADERS.contains(name) || !given.iter().any(|(n, _)| same(n, name))
        })
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    headers.extend(given);

    Invocation {
        method: d.http_method.clone(),
        url: with_query(&endpoint, &query),
        headers,
        rate_limit_per_second: Some(d.rate_limit_per_second),
    }
}

/// A path parameter value as a path segment: characters a URL path may not hold literally are
/// percent-encoded.
fn path_segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `url` with `query` (form-encoded) added to its query string.
pub(super) fn with_query(url: &str, query: &[(String, String)]) -> String {
    if query.is_empty() {
        return url.to_string();
    }
    let encoded = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(query)
        .finish();
    let (base, fragment) = match url.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (url, None),
    };
    let joiner = match base.find('?') {
        None => "?",
        Some(_) if base.ends_with('?') || base.ends_with('&') => "",
        Some(_) => "&",
    };
    let mut out = format!("{base}{joiner}{encoded}");
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

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
pub struct CreateApiDestinationInput {
    pub name: String,
    pub description: Option<String>,
    pub connection_arn: String,
    pub invocation_endpoint: String,
    pub http_method: String,
    pub invocation_rate_limit_per_second: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ApiDestinationStateOutput {
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

/// The model's constraints, members in its order.
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
    v.connection_arn(connection_arn);
    v.description(description);
    v.one_of(http_method, "httpMethod", DESTINATION_METHODS);
    v.endpoint(endpoint, "invocationEndpoint");
    if let Some(n) = rate_limit.filter(|n| *n < 1) {
        v.add(
            Some(&n.to_string()),
            "invocationRateLimitPerSecond",
            "Member must have value greater than or equal to 1",
        );
    }
    v.name(name, "name");
    v.finish()
}

fn rate_limit(n: i64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

pub fn create_api_destination(
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
        arn: Arn::new("events", region, account, &resource).to_string(),
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
pub struct ApiDestinationNameInput {
    pub name: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeApiDestinationOutput {
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

pub fn describe_api_destination(
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
pub struct UpdateApiDestinationInput {
    pub name: String,
    pub description: Option<String>,
    pub connection_arn: Option<String>,
    pub invocation_endpoint: Option<String>,
    pub http_method: Option<String>,
    pub invocation_rate_limit_per_second: Option<i64>,
}

pub fn update_api_destination(
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
    if !e.events.api_destinations.contains_key(&key) {
        return Err(not_found(&input.name, "update"));
    }
    if let Some(arn) = &input.connection_arn {
        connection_for(e, arn, "update")?;
    }
    let now = e.now();
    let d = e
        .events
        .api_destinations
        .get_mut(&key)
        .expect("checked above");
    if input.description.is_some() {
        d.description = input.description;
    }
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
    let d = &e.events.api_destinations[&key];
    Ok(state_output(e, d))
}

#[derive(Debug, Serialize)]
pub struct Empty {}

pub fn delete_api_destination(
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
pub struct ListApiDestinationsInput {
    pub name_prefix: Option<String>,
    pub connection_arn: Option<String>,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ApiDestinationSummary {
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
pub struct ListApiDestinationsOutput {
    pub api_destinations: Vec<ApiDestinationSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub fn list_api_destinations(
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
        .filter(|d| d.account == cx.account && d.region == cx.region)
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
        crate::services::events::buses::page(items, input.next_token.as_deref(), input.limit)?;
    Ok(ListApiDestinationsOutput {
        api_destinations,
        next_token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::events::store::AuthParameters;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn connection(kind: &str, auth: Value) -> Connection {
        Connection {
            name: "c".into(),
            arn: "arn:aws:events:us-east-1:000000000000:connection/c/1".into(),
            account: "000000000000".into(),
            region: "us-east-1".into(),
            description: None,
            authorization_type: kind.into(),
            auth_parameters: serde_json::from_value::<AuthParameters>(auth).unwrap(),
            invocation_connectivity_parameters: None,
            kms_key_identifier: None,
            state: "AUTHORIZED".into(),
            state_reason: None,
            access_token: Some("tok".into()),
            secret_arn: String::new(),
            created_at: 0,
            modified_at: 0,
            last_authorized_at: 0,
        }
    }

    fn destination(endpoint: &str) -> ApiDestination {
        ApiDestination {
            name: "d".into(),
            arn: "arn:aws:events:us-east-1:000000000000:api-destination/d/2".into(),
            account: "000000000000".into(),
            region: "us-east-1".into(),
            description: None,
            connection_arn: "arn:aws:events:us-east-1:000000000000:connection/c/1".into(),
            endpoint: endpoint.into(),
            http_method: "PUT".into(),
            rate_limit_per_second: 7,
            created_at: 0,
            modified_at: 0,
        }
    }

    fn header<'a>(i: &'a Invocation, name: &str) -> Vec<&'a str> {
        i.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }

    #[test]
    fn path_parameters_fill_the_stars_in_order_and_queries_merge() {
        let c = connection(
            "API_KEY",
            json!({"ApiKeyAuthParameters": {"ApiKeyName": "x-api-key", "ApiKeyValue": "k"},
                   "InvocationHttpParameters": {"QueryStringParameters": [
                       {"Key": "from", "Value": "connection"}, {"Key": "shared", "Value": "c"}]}}),
        );
        let params = HttpParameters {
            path_parameter_values: vec!["a b".into(), "42".into()],
            header_parameters: BTreeMap::new(),
            query_string_parameters: BTreeMap::from([
                ("shared".into(), "t".into()),
                ("t".into(), "1&2".into()),
            ]),
        };
        let i = build(&destination("https://h.example/x/*/y/*?v=1"), &c, &params);
        assert_eq!(
            i.url,
            "https://h.example/x/a%20b/y/42?v=1&from=connection&shared=c&t=1%262"
        );
        assert_eq!(i.method, "PUT");
        assert_eq!(i.rate_limit_per_second, Some(7));
        assert_eq!(header(&i, "x-api-key"), ["k"]);
    }

    #[test]
    fn each_auth_type_gives_its_header() {
        let basic = connection(
            "BASIC",
            json!({"BasicAuthParameters": {"Username": "user", "Password": "pass"}}),
        );
        let i = build(
            &destination("http://h/"),
            &basic,
            &HttpParameters::default(),
        );
        assert_eq!(header(&i, "authorization"), ["Basic dXNlcjpwYXNz"]);
        let oauth = connection("OAUTH_CLIENT_CREDENTIALS", json!({}));
        let i = build(
            &destination("http://h/"),
            &oauth,
            &HttpParameters::default(),
        );
        assert_eq!(header(&i, "authorization"), ["Bearer tok"]);
    }

    #[test]
    fn eventbridge_headers_come_first_and_only_some_can_be_replaced() {
        let c = connection(
            "BASIC",
            json!({"BasicAuthParameters": {"Username": "u", "Password": "p"},
                   "InvocationHttpParameters": {"HeaderParameters": [
                       {"Key": "Content-Type", "Value": "text/plain"},
                       {"Key": "x-shared", "Value": "connection"}]}}),
        );
        let params = HttpParameters {
            header_parameters: BTreeMap::from([
                ("User-Agent".into(), "mine".into()),
                ("X-Shared".into(), "target".into()),
                ("x-target".into(), "1".into()),
                ("authorization".into(), "stolen".into()),
            ]),
            ..HttpParameters::default()
        };
        let i = build(&destination("http://h/"), &c, &params);
        let names: Vec<&str> = i.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "User-Agent",
                "Range",
                "Accept-Encoding",
                "Connection",
                "Authorization",
                "Content-Type",
                "x-shared",
                "x-target"
            ]
        );
        assert_eq!(
            header(&i, "user-agent"),
            ["Amazon/EventBridge/ApiDestinations"]
        );
        assert_eq!(header(&i, "content-type"), ["text/plain"]);
        assert_eq!(header(&i, "x-shared"), ["connection"]);
        assert_eq!(header(&i, "authorization"), ["Basic dTpw"]);
    }

    #[test]
    fn queries_join_existing_ones() {
        let q = [("a".to_string(), "1".to_string())];
        assert_eq!(with_query("http://h/p", &q), "http://h/p?a=1");
        assert_eq!(with_query("http://h/p?", &q), "http://h/p?a=1");
        assert_eq!(with_query("http://h/p?b=2#f", &q), "http://h/p?b=2&a=1#f");
        assert_eq!(with_query("http://h/p", &[]), "http://h/p");
    }
}
