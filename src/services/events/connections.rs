//! Connections (how EventBridge authorizes with an HTTP endpoint: BASIC, API_KEY or
//! OAUTH_CLIENT_CREDENTIALS, plus extra headers, query string and body parameters) and the API
//! destinations that use them (`destinations`), up to the exact request an event to an API
//! destination makes ([`invocation`]). Owns its part of the events store; the OAuth token
//! request is the only I/O, made through [`App::exchange`] outside the engine lock.
//!
//! switchyard decisions (docs/decisions.md, "EventBridge connections and API destinations"):
//! - AWS requires `https://` for InvocationEndpoint and AuthorizationEndpoint; switchyard also
//!   takes `http://`, so that receivers on the test machine work without certificates.
//! - An OAuth connection's token request is made before CreateConnection / UpdateConnection
//!   answers; the answer says `AUTHORIZING`, as AWS's does, and DescribeConnection already shows
//!   the outcome (`AUTHORIZED`, or `DEAUTHORIZED` with a StateReason).
//! - Tokens are not refreshed (not on 401/407, not before `expires_in`): an UpdateConnection
//!   with AuthParameters authorizes again.

mod checks;
mod destinations;

pub use destinations::invocation;

/// How a rule target invokes an API destination.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    pub method: String,
    /// The endpoint with the target's path parameters and the query string.
    pub url: String,
    /// Every header of the request: EventBridge's own, the connection's auth and parameters, the target's.
    pub headers: Vec<(String, String)>,
    pub rate_limit_per_second: Option<u32>,
}

use super::store::{AuthParameters, Connection, ConnectionHttpParameters, Parameter};
use super::{EventsError, epoch_seconds};
use crate::app::App;
use crate::engine::Engine;
use crate::error::AwsError;
use crate::services::{Context, parse, typed};
use base64::Engine as _;
use checks::{AUTHORIZATION_TYPES, CONNECTION_STATES, OAUTH_METHODS, Violations};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub async fn call(
    app: &App,
    cx: &Context,
    operation: &str,
    input: Value,
) -> Result<Value, AwsError> {
    use destinations::*;
    let e = || app.engine();
    match operation {
        "CreateConnection" => {
            let (out, token) = create_connection(&mut e(), cx, parse(input)?)?;
            authorize(app, token).await;
            encode(out)
        }
        "UpdateConnection" => {
            let (out, token) = update_connection(&mut e(), cx, parse(input)?)?;
            authorize(app, token).await;
            encode(out)
        }
        "DescribeConnection" => typed(input, |i| describe_connection(&mut e(), cx, i)),
        "DeleteConnection" => typed(input, |i| delete_connection(&mut e(), cx, i)),
        "DeauthorizeConnection" => typed(input, |i| deauthorize_connection(&mut e(), cx, i)),
        "ListConnections" => typed(input, |i| list_connections(&mut e(), cx, i)),
        "CreateApiDestination" => typed(input, |i| create_api_destination(&mut e(), cx, i)),
        "DescribeApiDestination" => typed(input, |i| describe_api_destination(&mut e(), cx, i)),
        "UpdateApiDestination" => typed(input, |i| update_api_destination(&mut e(), cx, i)),
        "DeleteApiDestination" => typed(input, |i| delete_api_destination(&mut e(), cx, i)),
        "ListApiDestinations" => typed(input, |i| list_api_destinations(&mut e(), cx, i)),
        _ => Err(crate::services::not_yet(operation)),
    }
}

fn encode(output: impl Serialize) -> Result<Value, AwsError> {
    serde_json::to_value(output).map_err(|e| AwsError::internal(format!("encoding output: {e}")))
}

/// The store key of a resource named `name` in the caller's account and region.
fn key(region: &str, account: &str, name: &str) -> String {
    format!("{region}:{account}:{name}")
}

fn not_found(name: &str, verb: &str) -> EventsError {
    // The wording AWS answers DescribeConnection with (LocalStack's recorded snapshot
    // `test_delete_connection`); other operations name their own verb.
    EventsError::ResourceNotFound(format!(
        "Failed to {verb} the connection(s). Connection '{name}' does not exist."
    ))
}

/// The connection an ARN names, if it exists (a recreated connection has another ARN).
pub(crate) fn by_arn<'e>(e: &'e Engine, arn: &str) -> Option<&'e Connection> {
    let (region, account, name) = checks::parse_arn(arn, "connection")?;
    e.events
        .connections
        .get(&key(region, account, name))
        .filter(|c| c.arn == arn)
}

/// Whether a connection can authorize invocations.
pub(crate) fn usable(c: &Connection) -> bool {
    matches!(c.state.as_str(), "AUTHORIZED" | "ACTIVE")
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateConnectionInput {
    pub name: String,
    pub description: Option<String>,
    pub authorization_type: String,
    pub auth_parameters: AuthParameters,
    pub invocation_connectivity_parameters: Option<Value>,
    pub kms_key_identifier: Option<String>,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ConnectionStateOutput {
    pub connection_arn: String,
    pub connection_state: String,
    pub creation_time: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_authorized_time: Option<Value>,
    pub last_modified_time: Value,
}

fn state_output(c: &Connection, state: &str, authorized_time: bool) -> ConnectionStateOutput {
    ConnectionStateOutput {
        connection_arn: c.arn.clone(),
        connection_state: state.to_string(),
        creation_time: epoch_seconds(c.created_at),
        last_authorized_time: authorized_time.then(|| epoch_seconds(c.last_authorized_at)),
        last_modified_time: epoch_seconds(c.modified_at),
    }
}

/// An OAuth client-credentials token request to make for a connection.
#[derive(Debug)]
pub struct TokenRequest {
    key: String,
    arn: String,
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: String,
}

/// The members of AuthParameters each authorization type takes.
fn block_of(authorization_type: &str) -> &'static str {
    match authorization_type {
        "BASIC" => "BasicAuthParameters",
        "API_KEY" => "ApiKeyAuthParameters",
        _ => "OAuthParameters",
    }
}

/// The model's constraints on AuthParameters, for CreateConnection and UpdateConnection.
fn check_auth_parameters(v: &mut Violations, p: &AuthParameters) {
    let at = "authParameters";
    if let Some(k) = &p.api_key_auth_parameters {
        let at = format!("{at}.apiKeyAuthParameters");
        v.auth_header(
            k.api_key_name.as_deref(),
            &format!("{at}.apiKeyName"),
            false,
        );
        v.auth_header(
            k.api_key_value.as_deref(),
            &format!("{at}.apiKeyValue"),
            true,
        );
    }
    if let Some(b) = &p.basic_auth_parameters {
        let at = format!("{at}.basicAuthParameters");
        v.auth_header(b.password.as_deref(), &format!("{at}.password"), true);
        v.auth_header(b.username.as_deref(), &format!("{at}.username"), false);
    }
    v.http_parameters(
        p.invocation_http_parameters.as_ref(),
        &format!("{at}.invocationHttpParameters"),
    );
    if let Some(o) = &p.oauth_parameters {
        let at = format!("{at}.oAuthParameters");
        v.endpoint(
            o.authorization_endpoint.as_deref(),
            &format!("{at}.authorizationEndpoint"),
        );
        if let Some(c) = &o.client_parameters {
            let at = format!("{at}.clientParameters");
            v.auth_header(c.client_id.as_deref(), &format!("{at}.clientID"), false);
            v.auth_header(
                c.client_secret.as_deref(),
                &format!("{at}.clientSecret"),
                true,
            );
        }
        v.one_of(
            o.http_method.as_deref(),
            &format!("{at}.httpMethod"),
            OAUTH_METHODS,
        );
        v.http_parameters(
            o.oauth_http_parameters.as_ref(),
            &format!("{at}.oAuthHttpParameters"),
        );
    }
}

/// AuthParameters must hold the complete block of the authorization type and no other
/// type's block ("You must include only authorization parameters for the AuthorizationType
/// you specify", API_CreateConnection).
fn check_fit(authorization_type: &str, p: &AuthParameters) -> Result<(), EventsError> {
    let complete = match authorization_type {
        "BASIC" => p
            .basic_auth_parameters
            .as_ref()
            .is_some_and(|b| b.username.is_some() && b.password.is_some()),
        "API_KEY" => p
            .api_key_auth_parameters
            .as_ref()
            .is_some_and(|k| k.api_key_name.is_some() && k.api_key_value.is_some()),
        _ => p.oauth_parameters.as_ref().is_some_and(|o| {
            o.authorization_endpoint.is_some()
                && o.http_method.is_some()
                && o.client_parameters
                    .as_ref()
                    .is_some_and(|c| c.client_id.is_some() && c.client_secret.is_some())
        }),
    };
    let own = block_of(authorization_type);
    if !complete {
        // AWS's wording, measured for BASIC without BasicAuthParameters.
        return Err(EventsError::Validation(format!(
            "Parameter {own} is not valid. Reason: Missing required field(s)."
        )));
    }
    let given = [
        ("BasicAuthParameters", p.basic_auth_parameters.is_some()),
        ("ApiKeyAuthParameters", p.api_key_auth_parameters.is_some()),
        ("OAuthParameters", p.oauth_parameters.is_some()),
    ];
    if let Some((other, _)) = given.iter().find(|(b, present)| *present && *b != own) {
        return Err(EventsError::Validation(format!(
            "Parameter {other} is not valid. Reason: Only {own} may be given for authorization type {authorization_type}."
        )));
    }
    if let Some(url) = p
        .oauth_parameters
        .as_ref()
        .and_then(|o| o.authorization_endpoint.as_deref())
        && !checks::is_http_url(url)
    {
        return Err(EventsError::Validation(format!(
            "Parameter AuthorizationEndpoint is not valid. Reason: Endpoint '{url}' is invalid, please provide a valid HTTPS endpoint URL."
        )));
    }
    Ok(())
}

/// The state a connection takes when it is (re)authorized, and the token request to make.
fn authorization(c: &Connection, key: &str) -> (&'static str, Option<TokenRequest>) {
    match c.authorization_type.as_str() {
        "OAUTH_CLIENT_CREDENTIALS" => ("AUTHORIZING", Some(token_request(c, key))),
        _ => ("AUTHORIZED", None),
    }
}

pub fn create_connection(
    e: &mut Engine,
    cx: &Context,
    input: CreateConnectionInput,
) -> Result<(ConnectionStateOutput, Option<TokenRequest>), EventsError> {
    let mut v = Violations::default();
    check_auth_parameters(&mut v, &input.auth_parameters);
    v.one_of(
        Some(&input.authorization_type),
        "authorizationType",
        AUTHORIZATION_TYPES,
    );
    v.description(input.description.as_deref());
    v.name(&input.name, "name");
    v.finish()?;
    check_fit(&input.authorization_type, &input.auth_parameters)?;
    let key = key(&cx.region, &cx.account, &input.name);
    if e.events.connections.contains_key(&key) {
        return Err(EventsError::ResourceAlreadyExists(format!(
            "Connection '{}' already exists.",
            input.name
        )));
    }
    let now = e.now();
    let id = e.rng.uuid();
    let secret_id = e.rng.uuid();
    let suffix = e.rng.token(
        b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        6,
    );
    let (region, account, name) = (&cx.region, &cx.account, &input.name);
    let mut connection = Connection {
        name: name.clone(),
        arn: format!("arn:aws:events:{region}:{account}:connection/{name}/{id}"),
        account: account.clone(),
        region: region.clone(),
        description: input.description,
        authorization_type: input.authorization_type,
        auth_parameters: input.auth_parameters,
        invocation_connectivity_parameters: input.invocation_connectivity_parameters,
        kms_key_identifier: input.kms_key_identifier,
        state: String::new(),
        state_reason: None,
        access_token: None,
        secret_arn: format!(
            "arn:aws:secretsmanager:{region}:{account}:secret:events!connection/{name}/{secret_id}-{suffix}"
        ),
        created_at: now,
        modified_at: now,
        last_authorized_at: now,
    };
    let (state, token) = authorization(&connection, &key);
    connection.state = state.to_string();
    let out = state_output(&connection, state, false);
    e.events.connections.insert(key, connection);
    Ok((out, token))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateConnectionInput {
    pub name: String,
    pub description: Option<String>,
    pub authorization_type: Option<String>,
    pub auth_parameters: Option<AuthParameters>,
    pub invocation_connectivity_parameters: Option<Value>,
    pub kms_key_identifier: Option<String>,
}

/// `update` over `base`, member by member; lists of parameters are replaced whole.
fn merge(base: &AuthParameters, update: AuthParameters, type_changed: bool) -> AuthParameters {
    fn pick<T>(new: Option<T>, old: &Option<T>, join: impl Fn(T, &T) -> T) -> Option<T>
    where
        T: Clone,
    {
        match (new, old) {
            (Some(n), Some(o)) => Some(join(n, o)),
            (Some(n), None) => Some(n),
            (None, o) => o.clone(),
        }
    }
    let or = |n: Option<String>, o: &Option<String>| n.or_else(|| o.clone());
    let mut merged = AuthParameters {
        basic_auth_parameters: pick(
            update.basic_auth_parameters,
            &base.basic_auth_parameters,
            |n, o| super::store::BasicAuthParameters {
                username: or(n.username, &o.username),
                password: or(n.password, &o.password),
            },
        ),
        api_key_auth_parameters: pick(
            update.api_key_auth_parameters,
            &base.api_key_auth_parameters,
            |n, o| super::store::ApiKeyAuthParameters {
                api_key_name: or(n.api_key_name, &o.api_key_name),
                api_key_value: or(n.api_key_value, &o.api_key_value),
            },
        ),
        oauth_parameters: pick(update.oauth_parameters, &base.oauth_parameters, |n, o| {
            super::store::OAuthParameters {
                authorization_endpoint: or(n.authorization_endpoint, &o.authorization_endpoint),
                client_parameters: pick(n.client_parameters, &o.client_parameters, |n, o| {
                    super::store::OAuthClientParameters {
                        client_id: or(n.client_id, &o.client_id),
                        client_secret: or(n.client_secret, &o.client_secret),
                    }
                }),
                http_method: or(n.http_method, &o.http_method),
                oauth_http_parameters: n
                    .oauth_http_parameters
                    .or_else(|| o.oauth_http_parameters.clone()),
            }
        }),
        invocation_http_parameters: update
            .invocation_http_parameters
            .or_else(|| base.invocation_http_parameters.clone()),
        connectivity_parameters: update
            .connectivity_parameters
            .or_else(|| base.connectivity_parameters.clone()),
    };
    if type_changed {
        // The blocks of the former type go with it.
        merged.basic_auth_parameters = merged
            .basic_auth_parameters
            .filter(|_| base.basic_auth_parameters.is_none());
        merged.api_key_auth_parameters = merged
            .api_key_auth_parameters
            .filter(|_| base.api_key_auth_parameters.is_none());
        merged.oauth_parameters = merged
            .oauth_parameters
            .filter(|_| base.oauth_parameters.is_none());
    }
    merged
}

pub fn update_connection(
    e: &mut Engine,
    cx: &Context,
    input: UpdateConnectionInput,
) -> Result<(ConnectionStateOutput, Option<TokenRequest>), EventsError> {
    let mut v = Violations::default();
    if let Some(p) = &input.auth_parameters {
        check_auth_parameters(&mut v, p);
    }
    v.one_of(
        input.authorization_type.as_deref(),
        "authorizationType",
        AUTHORIZATION_TYPES,
    );
    v.description(input.description.as_deref());
    v.name(&input.name, "name");
    v.finish()?;
    let key = key(&cx.region, &cx.account, &input.name);
    let now = e.now();
    let c = e
        .events
        .connections
        .get_mut(&key)
        .ok_or_else(|| not_found(&input.name, "update"))?;
    let reauthorize = input.auth_parameters.is_some() || input.authorization_type.is_some();
    if reauthorize {
        let new_type = input
            .authorization_type
            .unwrap_or_else(|| c.authorization_type.clone());
        let changed = new_type != c.authorization_type;
        let merged = merge(
            &c.auth_parameters,
            input.auth_parameters.unwrap_or_default(),
            changed,
        );
        check_fit(&new_type, &merged)?;
        c.authorization_type = new_type;
        c.auth_parameters = merged;
    }
    if input.description.is_some() {
        c.description = input.description;
    }
    if input.invocation_connectivity_parameters.is_some() {
        c.invocation_connectivity_parameters = input.invocation_connectivity_parameters;
    }
    if input.kms_key_identifier.is_some() {
        c.kms_key_identifier = input.kms_key_identifier;
    }
    c.modified_at = now;
    let mut token = None;
    if reauthorize {
        let (state, request) = authorization(c, &key);
        c.state = state.to_string();
        c.state_reason = None;
        c.access_token = None;
        if request.is_none() {
            c.last_authorized_at = now;
        }
        token = request;
    }
    Ok((state_output(c, &c.state, true), token))
}

/// The client-credentials token request of an OAuth connection (RFC 6749 §4.4.2): the client id
/// and secret as HTTP Basic authorization, OAuthHttpParameters' headers, query string and body
/// parameters, the body form-encoded with `grant_type=client_credentials` unless the body
/// parameters name a grant type themselves (AWS does not document the request's exact form).
fn token_request(c: &Connection, key: &str) -> TokenRequest {
    let o = c
        .auth_parameters
        .oauth_parameters
        .clone()
        .unwrap_or_default();
    let client = o.client_parameters.unwrap_or_default();
    let credentials = format!(
        "{}:{}",
        client.client_id.unwrap_or_default(),
        client.client_secret.unwrap_or_default()
    );
    let params = o.oauth_http_parameters.unwrap_or_default();
    let mut headers = vec![
        (
            "Authorization".to_string(),
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(credentials)
            ),
        ),
        (
            "Content-Type".to_string(),
            "application/x-www-form-urlencoded".to_string(),
        ),
        ("Accept".to_string(), "application/json".to_string()),
    ];
    for (name, value) in pairs(&params.header_parameters) {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
        headers.push((name, value));
    }
    let mut body = form_urlencoded::Serializer::new(String::new());
    if !params
        .body_parameters
        .iter()
        .any(|p| p.key.as_deref() == Some("grant_type"))
    {
        body.append_pair("grant_type", "client_credentials");
    }
    body.extend_pairs(pairs(&params.body_parameters));
    let url = destinations::with_query(
        o.authorization_endpoint.as_deref().unwrap_or_default(),
        &pairs(&params.query_string_parameters),
    );
    TokenRequest {
        key: key.to_string(),
        arn: c.arn.clone(),
        method: o.http_method.unwrap_or_else(|| "POST".into()),
        url,
        headers,
        body: body.finish(),
    }
}

/// The (key, value) pairs of parameters that have a key.
fn pairs(params: &[Parameter]) -> Vec<(String, String)> {
    params
        .iter()
        .filter_map(|p| Some((p.key.clone()?, p.value.clone().unwrap_or_default())))
        .collect()
}

/// Makes an OAuth connection's token request (outside the engine lock) and records how it went.
async fn authorize(app: &App, request: Option<TokenRequest>) {
    let Some(r) = request else { return };
    let answer = app.exchange(&r.method, &r.url, r.headers, r.body).await;
    let token = access_token(answer);
    let mut e = app.engine();
    let now = e.now();
    let current = e.events.connections.get_mut(&r.key);
    // A connection deleted, deauthorized or authorized again meanwhile keeps its newer state.
    let Some(c) = current.filter(|c| c.arn == r.arn && c.state == "AUTHORIZING") else {
        return;
    };
    match token {
        Ok(token) => {
            c.state = "AUTHORIZED".into();
            c.state_reason = None;
            c.access_token = Some(token);
            c.last_authorized_at = now;
        }
        Err(reason) => {
            // Authorization failures leave a connection DEAUTHORIZED (eb-target-connection-states).
            c.state = "DEAUTHORIZED".into();
            c.state_reason = Some(reason);
            c.access_token = None;
        }
    }
}

/// The `access_token` of a token endpoint's answer, or why there is none (the StateReason).
fn access_token(answer: Result<(u16, String), String>) -> Result<String, String> {
    let (status, body) =
        answer.map_err(|e| format!("Failed to reach the authorization endpoint: {e}."))?;
    if !(200..300).contains(&status) {
        return Err(format!(
            "The authorization endpoint answered HTTP status {status}."
        ));
    }
    serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| v.get("access_token")?.as_str().map(str::to_string))
        .filter(|t| !t.is_empty())
        .ok_or_else(|| "The authorization endpoint's answer has no access_token.".to_string())
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ConnectionNameInput {
    pub name: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeConnectionOutput {
    pub auth_parameters: AuthParameters,
    pub authorization_type: String,
    pub connection_arn: String,
    pub connection_state: String,
    pub creation_time: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invocation_connectivity_parameters: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kms_key_identifier: Option<String>,
    pub last_authorized_time: Value,
    pub last_modified_time: Value,
    pub name: String,
    pub secret_arn: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_reason: Option<String>,
}

/// Parameters as DescribeConnection shows them: secret values left out.
fn shown_parameters(p: &ConnectionHttpParameters) -> ConnectionHttpParameters {
    let hide = |list: &[Parameter]| -> Vec<Parameter> {
        list.iter()
            .map(|p| Parameter {
                value: p.value.clone().filter(|_| p.is_value_secret != Some(true)),
                ..p.clone()
            })
            .collect()
    };
    ConnectionHttpParameters {
        header_parameters: hide(&p.header_parameters),
        query_string_parameters: hide(&p.query_string_parameters),
        body_parameters: hide(&p.body_parameters),
    }
}

/// AuthParameters as DescribeConnection shows them (ConnectionAuthResponseParameters): no
/// Password, ApiKeyValue, ClientSecret or secret parameter value.
fn shown(p: &AuthParameters) -> AuthParameters {
    use super::store::*;
    AuthParameters {
        basic_auth_parameters: p
            .basic_auth_parameters
            .as_ref()
            .map(|b| BasicAuthParameters {
                username: b.username.clone(),
                password: None,
            }),
        oauth_parameters: p.oauth_parameters.as_ref().map(|o| OAuthParameters {
            authorization_endpoint: o.authorization_endpoint.clone(),
            client_parameters: o.client_parameters.as_ref().map(|c| OAuthClientParameters {
                client_id: c.client_id.clone(),
                client_secret: None,
            }),
            http_method: o.http_method.clone(),
            oauth_http_parameters: o.oauth_http_parameters.as_ref().map(shown_parameters),
        }),
        api_key_auth_parameters: p
            .api_key_auth_parameters
            .as_ref()
            .map(|k| ApiKeyAuthParameters {
                api_key_name: k.api_key_name.clone(),
                api_key_value: None,
            }),
        invocation_http_parameters: p.invocation_http_parameters.as_ref().map(shown_parameters),
        connectivity_parameters: p.connectivity_parameters.clone(),
    }
}

pub fn describe_connection(
    e: &mut Engine,
    cx: &Context,
    input: ConnectionNameInput,
) -> Result<DescribeConnectionOutput, EventsError> {
    let mut v = Violations::default();
    v.name(&input.name, "name");
    v.finish()?;
    let c = e
        .events
        .connections
        .get(&key(&cx.region, &cx.account, &input.name))
        .ok_or_else(|| not_found(&input.name, "describe"))?;
    Ok(DescribeConnectionOutput {
        auth_parameters: shown(&c.auth_parameters),
        authorization_type: c.authorization_type.clone(),
        connection_arn: c.arn.clone(),
        connection_state: c.state.clone(),
        creation_time: epoch_seconds(c.created_at),
        description: c.description.clone(),
        invocation_connectivity_parameters: c.invocation_connectivity_parameters.clone(),
        kms_key_identifier: c.kms_key_identifier.clone(),
        last_authorized_time: epoch_seconds(c.last_authorized_at),
        last_modified_time: epoch_seconds(c.modified_at),
        name: c.name.clone(),
        secret_arn: c.secret_arn.clone(),
        state_reason: c.state_reason.clone(),
    })
}

/// Deletes the connection at once and answers `DELETING`, as AWS does. API destinations that
/// use it are left alone (AWS documents no error for this): their invocations fail with
/// `NO_RESOURCE` until they are given another connection.
pub fn delete_connection(
    e: &mut Engine,
    cx: &Context,
    input: ConnectionNameInput,
) -> Result<ConnectionStateOutput, EventsError> {
    let mut v = Violations::default();
    v.name(&input.name, "name");
    v.finish()?;
    let c = e
        .events
        .connections
        .remove(&key(&cx.region, &cx.account, &input.name))
        .ok_or_else(|| not_found(&input.name, "delete"))?;
    Ok(state_output(&c, "DELETING", true))
}

/// Removes the connection's secrets (Password, ApiKeyValue, ClientSecret, the OAuth token) and
/// answers `DEAUTHORIZING`; the connection is `DEAUTHORIZED` at once, and invocations through
/// it fail until an UpdateConnection gives it credentials again.
pub fn deauthorize_connection(
    e: &mut Engine,
    cx: &Context,
    input: ConnectionNameInput,
) -> Result<ConnectionStateOutput, EventsError> {
    let mut v = Violations::default();
    v.name(&input.name, "name");
    v.finish()?;
    let now = e.now();
    let c = e
        .events
        .connections
        .get_mut(&key(&cx.region, &cx.account, &input.name))
        .ok_or_else(|| not_found(&input.name, "deauthorize"))?;
    let p = &mut c.auth_parameters;
    if let Some(b) = &mut p.basic_auth_parameters {
        b.password = None;
    }
    if let Some(k) = &mut p.api_key_auth_parameters {
        k.api_key_value = None;
    }
    if let Some(client) = p
        .oauth_parameters
        .as_mut()
        .and_then(|o| o.client_parameters.as_mut())
    {
        client.client_secret = None;
    }
    c.access_token = None;
    c.state = "DEAUTHORIZED".into();
    c.state_reason = None;
    c.modified_at = now;
    Ok(state_output(c, "DEAUTHORIZING", true))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListConnectionsInput {
    pub name_prefix: Option<String>,
    pub connection_state: Option<String>,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ConnectionSummary {
    pub authorization_type: String,
    pub connection_arn: String,
    pub connection_state: String,
    pub creation_time: Value,
    pub last_authorized_time: Value,
    pub last_modified_time: Value,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_reason: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListConnectionsOutput {
    pub connections: Vec<ConnectionSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub fn list_connections(
    e: &mut Engine,
    cx: &Context,
    input: ListConnectionsInput,
) -> Result<ListConnectionsOutput, EventsError> {
    let mut v = Violations::default();
    v.one_of(
        input.connection_state.as_deref(),
        "connectionState",
        CONNECTION_STATES,
    );
    if let Some(prefix) = &input.name_prefix {
        v.name(prefix, "namePrefix");
    }
    v.finish()?;
    let prefix = input.name_prefix.unwrap_or_default();
    // Keys are `<region>:<account>:<name>`, so the account's connections come in name order.
    let items: Vec<(String, ConnectionSummary)> = e
        .events
        .connections
        .values()
        .filter(|c| c.account == cx.account && c.region == cx.region)
        .filter(|c| c.name.starts_with(&prefix))
        .filter(|c| {
            input
                .connection_state
                .as_ref()
                .is_none_or(|s| *s == c.state)
        })
        .map(|c| {
            let summary = ConnectionSummary {
                authorization_type: c.authorization_type.clone(),
                connection_arn: c.arn.clone(),
                connection_state: c.state.clone(),
                creation_time: epoch_seconds(c.created_at),
                last_authorized_time: epoch_seconds(c.last_authorized_at),
                last_modified_time: epoch_seconds(c.modified_at),
                name: c.name.clone(),
                state_reason: c.state_reason.clone(),
            };
            (c.name.clone(), summary)
        })
        .collect();
    let (connections, next_token) =
        super::buses::page(items, input.next_token.as_deref(), input.limit)?;
    Ok(ListConnectionsOutput {
        connections,
        next_token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::events::store::{BasicAuthParameters, OAuthParameters};
    use serde_json::json;

    fn params(value: Value) -> AuthParameters {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn auth_parameters_must_fit_the_authorization_type() {
        let basic = params(json!({"BasicAuthParameters": {"Username": "u", "Password": "p"}}));
        assert!(check_fit("BASIC", &basic).is_ok());
        let message = |r: Result<(), EventsError>| match r {
            Err(EventsError::Validation(m)) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            message(check_fit("API_KEY", &basic)),
            "Parameter ApiKeyAuthParameters is not valid. Reason: Missing required field(s)."
        );
        let both = params(json!({
            "BasicAuthParameters": {"Username": "u", "Password": "p"},
            "ApiKeyAuthParameters": {"ApiKeyName": "k", "ApiKeyValue": "v"}
        }));
        assert!(
            message(check_fit("BASIC", &both))
                .starts_with("Parameter ApiKeyAuthParameters is not valid.")
        );
        let oauth = |endpoint: &str| {
            params(json!({"OAuthParameters": {
                "AuthorizationEndpoint": endpoint, "HttpMethod": "POST",
                "ClientParameters": {"ClientID": "id", "ClientSecret": "s"}}}))
        };
        assert!(
            check_fit(
                "OAUTH_CLIENT_CREDENTIALS",
                &oauth("http://127.0.0.1:1/token")
            )
            .is_ok()
        );
        assert_eq!(
            message(check_fit(
                "OAUTH_CLIENT_CREDENTIALS",
                &oauth("auth.example.com")
            )),
            "Parameter AuthorizationEndpoint is not valid. Reason: Endpoint 'auth.example.com' is invalid, please provide a valid HTTPS endpoint URL."
        );
    }

    #[test]
    fn updates_merge_member_by_member_and_a_new_type_drops_the_old_block() {
        let base = AuthParameters {
            basic_auth_parameters: Some(BasicAuthParameters {
                username: Some("u".into()),
                password: Some("p".into()),
            }),
            ..AuthParameters::default()
        };
        let update = params(json!({"BasicAuthParameters": {"Username": "v"}}));
        let merged = merge(&base, update, false);
        let b = merged.basic_auth_parameters.unwrap();
        assert_eq!(
            (b.username.as_deref(), b.password.as_deref()),
            (Some("v"), Some("p"))
        );
        let update = params(json!({"OAuthParameters": {"HttpMethod": "GET"}}));
        let merged = merge(&base, update, true);
        assert!(merged.basic_auth_parameters.is_none());
        assert_eq!(
            merged
                .oauth_parameters
                .map(|o: OAuthParameters| o.http_method),
            Some(Some("GET".into()))
        );
    }

    #[test]
    fn token_answers_give_the_access_token_or_the_reason() {
        let ok = r#"{"access_token":"t-1","token_type":"Bearer","expires_in":3600}"#;
        assert_eq!(access_token(Ok((200, ok.into()))), Ok("t-1".into()));
        assert_eq!(
            access_token(Ok((401, "{}".into()))),
            Err("The authorization endpoint answered HTTP status 401.".into())
        );
        assert!(access_token(Ok((200, "{}".into()))).is_err());
        assert!(
            access_token(Err("refused".into()))
                .unwrap_err()
                .contains("refused")
        );
    }

    #[test]
    fn describe_hides_secrets() {
        let p = params(json!({
            "ApiKeyAuthParameters": {"ApiKeyName": "x-key", "ApiKeyValue": "secret"},
            "InvocationHttpParameters": {"HeaderParameters": [
                {"Key": "a", "Value": "1", "IsValueSecret": false},
                {"Key": "b", "Value": "2", "IsValueSecret": true}
            ]}
        }));
        assert_eq!(
            serde_json::to_value(shown(&p)).unwrap(),
            json!({
                "ApiKeyAuthParameters": {"ApiKeyName": "x-key"},
                "InvocationHttpParameters": {"HeaderParameters": [
                    {"Key": "a", "Value": "1", "IsValueSecret": false},
                    {"Key": "b", "IsValueSecret": true}
                ]}
            })
        );
    }
}
