//! Connections (how EventBridge authorizes with an HTTP endpoint: BASIC, API_KEY or
//! OAUTH_CLIENT_CREDENTIALS, plus extra headers, query string and body parameters) and the API
//! destinations that use them, up to the exact request an event to an API destination makes
//! ([`invocation`]). Here: the connection operations; `auth` their AuthParameters, `oauth` the
//! token request, `destinations` the API destinations, `invocation` the request an event to one
//! makes (a leaf the target adapter uses: no operation), `checks` the model's constraints. Owns
//! its part of the events store and nothing else; the OAuth token request is
//! the only I/O, made through [`App::exchange`] outside the engine lock.
//!
//! switchyard decisions (docs/decisions.md, "EventBridge connections and API destinations"):
//! - AWS requires `https://` for InvocationEndpoint and AuthorizationEndpoint; switchyard also
//!   takes `http://`, so that receivers on the test machine work without certificates.
//! - An OAuth connection's token request is set off by CreateConnection / UpdateConnection,
//!   whose answer says `AUTHORIZING`, as AWS's does, and waits for it at most 2 s (the runtime's
//!   `TOKEN_WAIT`); DescribeConnection then shows the outcome (`AUTHORIZED`, or still
//!   `AUTHORIZING` with a StateReason).
//! - Tokens are not refreshed (not on 401/407, not before `expires_in`): an UpdateConnection
//!   with AuthParameters authorizes again.

mod auth;
mod checks;
pub(super) mod destinations;
pub mod invocation;
mod oauth;

use super::errors::EventsError;
use super::store::{AuthParameters, Connection};
use super::times::epoch_seconds;
use crate::arn::Arn;
use crate::services::{Context, set_given};
use crate::state::State;
use auth::{check_auth_parameters, check_fit, merge, shown};
use checks::{AUTHORIZATION_TYPES, CONNECTION_STATES, Violations};
use invocation::key;
use oauth::authorization;
pub use oauth::token_answered;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The store key of the connection a request names, once the name is checked.
fn named_key(cx: &Context, name: &str) -> Result<String, EventsError> {
    let mut v = Violations::default();
    v.name(name, "name");
    v.finish()?;
    Ok(key(&cx.region, &cx.account, name))
}

fn not_found(name: &str, verb: &str) -> EventsError {
    // The wording AWS answers DescribeConnection with (LocalStack's recorded snapshot
    // `test_delete_connection`); other operations name their own verb.
    EventsError::ResourceNotFound(format!(
        "Failed to {verb} the connection(s). Connection '{name}' does not exist."
    ))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateConnectionInput {
    // The model requires these three; the operation names their absence with every other
    // violation, as AWS does (protocol's `check_required` leaves them to it).
    pub name: Option<String>,
    pub description: Option<String>,
    pub authorization_type: Option<String>,
    pub auth_parameters: Option<AuthParameters>,
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

pub fn create_connection(
    e: &mut State,
    cx: &Context,
    input: CreateConnectionInput,
) -> Result<ConnectionStateOutput, EventsError> {
    let mut v = Violations::default();
    if let Some(name) = v.required(input.name.as_deref(), "name") {
        v.name(name, "name");
    }
    v.description(input.description.as_deref());
    let kind = v.required(input.authorization_type.as_deref(), "authorizationType");
    v.one_of(kind, "authorizationType", AUTHORIZATION_TYPES);
    if let Some(p) = v.required(input.auth_parameters.as_ref(), "authParameters") {
        check_auth_parameters(&mut v, p, true);
    }
    v.finish()?;
    let (Some(name), Some(authorization_type), Some(auth_parameters)) =
        (input.name, input.authorization_type, input.auth_parameters)
    else {
        return Err(EventsError::Validation(
            "A required member is missing.".into(),
        ));
    };
    check_fit(&authorization_type, &auth_parameters)?;
    let key = key(&cx.region, &cx.account, &name);
    if e.events.connections.contains_key(&key) {
        return Err(EventsError::ResourceAlreadyExists(format!(
            "Connection '{name}' already exists."
        )));
    }
    let now = e.now();
    let id = e.engine.rng.uuid();
    let secret_id = e.engine.rng.uuid();
    let suffix = e.engine.rng.token(
        b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        6,
    );
    let (region, account, name) = (&cx.region, &cx.account, &name);
    let resource = format!("connection/{name}/{id}");
    let secret = format!("secret:events!connection/{name}/{secret_id}-{suffix}");
    let mut connection = Connection {
        name: name.clone(),
        arn: Arn::new("events", region, account, &resource).text(),
        account: account.clone(),
        region: region.clone(),
        description: input.description,
        authorization_type,
        auth_parameters,
        invocation_connectivity_parameters: input.invocation_connectivity_parameters,
        kms_key_identifier: input.kms_key_identifier,
        state: String::new(),
        state_reason: None,
        access_token: None,
        secret_arn: Arn::new("secretsmanager", region, account, &secret).text(),
        created_at: now,
        modified_at: now,
        last_authorized_at: now,
    };
    let (state, token) = authorization(&connection, &key);
    connection.state = state.to_string();
    let out = state_output(&connection, state, false);
    e.events.connections.insert(key, connection);
    e.events.token_requests.extend(token);
    Ok(out)
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

pub fn update_connection(
    e: &mut State,
    cx: &Context,
    input: UpdateConnectionInput,
) -> Result<ConnectionStateOutput, EventsError> {
    let mut v = Violations::default();
    v.name(&input.name, "name");
    v.description(input.description.as_deref());
    v.one_of(
        input.authorization_type.as_deref(),
        "authorizationType",
        AUTHORIZATION_TYPES,
    );
    if let Some(p) = &input.auth_parameters {
        check_auth_parameters(&mut v, p, false);
    }
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
    set_given(&mut c.description, input.description);
    set_given(
        &mut c.invocation_connectivity_parameters,
        input.invocation_connectivity_parameters,
    );
    set_given(&mut c.kms_key_identifier, input.kms_key_identifier);
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
    let out = state_output(c, &c.state, true);
    e.events.token_requests.extend(token);
    Ok(out)
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

pub fn describe_connection(
    e: &mut State,
    cx: &Context,
    input: ConnectionNameInput,
) -> Result<DescribeConnectionOutput, EventsError> {
    let key = named_key(cx, &input.name)?;
    let c = e
        .events
        .connections
        .get(&key)
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
    e: &mut State,
    cx: &Context,
    input: ConnectionNameInput,
) -> Result<ConnectionStateOutput, EventsError> {
    let key = named_key(cx, &input.name)?;
    let c = e
        .events
        .connections
        .remove(&key)
        .ok_or_else(|| not_found(&input.name, "delete"))?;
    Ok(state_output(&c, "DELETING", true))
}

/// Removes the connection's secrets (Password, ApiKeyValue, ClientSecret, the OAuth token) and
/// answers `DEAUTHORIZING`; the connection is `DEAUTHORIZED` at once, and invocations through
/// it fail until an UpdateConnection gives it credentials again.
pub fn deauthorize_connection(
    e: &mut State,
    cx: &Context,
    input: ConnectionNameInput,
) -> Result<ConnectionStateOutput, EventsError> {
    let key = named_key(cx, &input.name)?;
    let now = e.now();
    let c = e
        .events
        .connections
        .get_mut(&key)
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
    e: &mut State,
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
        .filter(|c| cx.owns(&c.account, &c.region))
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
        super::lookup::page(items, input.next_token.as_deref(), input.limit)?;
    Ok(ListConnectionsOutput {
        connections,
        next_token,
    })
}
