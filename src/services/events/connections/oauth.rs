//! The OAuth client-credentials flow of OAUTH_CLIENT_CREDENTIALS connections: the token request
//! (built under the lock and left in the store for the runtime, which makes it outside the lock),
//! and its answer
//! recorded on the connection (AUTHORIZED with the access token, or still AUTHORIZING with a
//! reason).
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::invocation::{pairs, with_query};
use crate::services::events::store::Connection;
use crate::services::events::store::TokenRequest;
use crate::state::State;
use base64::Engine as _;
use serde_json::Value;

/// The state a connection takes when it is (re)authorized, and the token request to make.
pub(super) fn authorization(c: &Connection, key: &str) -> (&'static str, Option<TokenRequest>) {
    match c.authorization_type.as_str() {
        "OAUTH_CLIENT_CREDENTIALS" => ("AUTHORIZING", Some(token_request(c, key))),
        _ => ("AUTHORIZED", None),
    }
}

/// The client-credentials token request of an OAuth connection (RFC 6749 §4.4.2): the client id
/// and secret as HTTP Basic authorization, OAuthHttpParameters' headers, query string and body
/// parameters, the body form-encoded with `grant_type=client_credentials` unless the body
/// parameters name a grant type themselves (AWS does not document the request's exact form).
pub(super) fn token_request(c: &Connection, key: &str) -> TokenRequest {
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
    let url = with_query(
        o.authorization_endpoint.as_deref().unwrap_or_default(),
        &pairs(&params.query_string_parameters),
    );
    TokenRequest {
        key: key.to_string(),
        arn: c.arn.clone(),
        method: o
            .http_method
            .map_or_else(|| "POST".into(), |m| m.to_ascii_uppercase()),
        url,
        headers,
        body: body.finish(),
    }
}

/// Records how an OAuth connection's token request went: `answer` is the endpoint's status and
/// body, or why there was none.
pub fn token_answered(e: &mut State, r: &TokenRequest, answer: Result<(u16, String), String>) {
    let token = access_token(answer);
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
            // A connection whose token endpoint does not authorize it stays AUTHORIZING, as AWS
            // reported one (LocalStack's recorded `test_create_connection_with_auth`); the
            // StateReason says why.
            c.state_reason = Some(reason);
            c.access_token = None;
        }
    }
}

/// The `access_token` of a token endpoint's answer, or why there is none (the StateReason).
pub(super) fn access_token(answer: Result<(u16, String), String>) -> Result<String, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
