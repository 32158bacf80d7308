//! A connection's AuthParameters: the model's constraints, the fit with the authorization type,
//! UpdateConnection's merge, and what DescribeConnection may show of them (no secrets).
//! Pure: it imports no operation and no state, only the engine's values and its own service's data.

use super::checks::{self, OAUTH_METHODS, Violations};
use crate::services::events::errors::EventsError;
use crate::services::events::store::{self, AuthParameters, ConnectionHttpParameters, Parameter};

/// The members of AuthParameters each authorization type takes.
pub(super) fn block_of(authorization_type: &str) -> &'static str {
    match authorization_type {
        "BASIC" => "BasicAuthParameters",
        "API_KEY" => "ApiKeyAuthParameters",
        _ => "OAuthParameters",
    }
}

/// The model's constraints on AuthParameters, for CreateConnection (`creating`: the members
/// its model requires must be there, each absent one a violation listed with the others) and
/// UpdateConnection (whose model requires none of them).
pub(super) fn check_auth_parameters(v: &mut Violations, p: &AuthParameters, creating: bool) {
    let at = "authParameters";
    // Required when creating: absent, a null violation in the member's place among the others.
    let need = |v: &mut Violations, given: bool, member: &str| {
        if creating && !given {
            v.null(member);
        }
    };
    if let Some(k) = &p.api_key_auth_parameters {
        let at = format!("{at}.apiKeyAuthParameters");
        need(v, k.api_key_name.is_some(), &format!("{at}.apiKeyName"));
        v.auth_header(
            k.api_key_name.as_deref(),
            &format!("{at}.apiKeyName"),
            false,
        );
        need(v, k.api_key_value.is_some(), &format!("{at}.apiKeyValue"));
        v.auth_header(
            k.api_key_value.as_deref(),
            &format!("{at}.apiKeyValue"),
            true,
        );
    }
    if let Some(b) = &p.basic_auth_parameters {
        let at = format!("{at}.basicAuthParameters");
        need(v, b.password.is_some(), &format!("{at}.password"));
        v.auth_header(b.password.as_deref(), &format!("{at}.password"), true);
        need(v, b.username.is_some(), &format!("{at}.username"));
        v.auth_header(b.username.as_deref(), &format!("{at}.username"), false);
    }
    v.http_parameters(
        p.invocation_http_parameters.as_ref(),
        &format!("{at}.invocationHttpParameters"),
    );
    if let Some(o) = &p.oauth_parameters {
        let at = format!("{at}.oAuthParameters");
        let endpoint = format!("{at}.authorizationEndpoint");
        need(v, o.authorization_endpoint.is_some(), &endpoint);
        v.endpoint(o.authorization_endpoint.as_deref(), &endpoint);
        let client = format!("{at}.clientParameters");
        need(v, o.client_parameters.is_some(), &client);
        if let Some(c) = &o.client_parameters {
            let at = client;
            need(v, c.client_id.is_some(), &format!("{at}.clientID"));
            v.auth_header(c.client_id.as_deref(), &format!("{at}.clientID"), false);
            need(v, c.client_secret.is_some(), &format!("{at}.clientSecret"));
            v.auth_header(
                c.client_secret.as_deref(),
                &format!("{at}.clientSecret"),
                true,
            );
        }
        need(v, o.http_method.is_some(), &format!("{at}.httpMethod"));
        v.one_of_any_case(
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
pub(super) fn check_fit(authorization_type: &str, p: &AuthParameters) -> Result<(), EventsError> {
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

/// `update` over `base`, member by member; lists of parameters are replaced whole.
pub(super) fn merge(
    base: &AuthParameters,
    update: AuthParameters,
    type_changed: bool,
) -> AuthParameters {
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
            |n, o| store::BasicAuthParameters {
                username: or(n.username, &o.username),
                password: or(n.password, &o.password),
            },
        ),
        api_key_auth_parameters: pick(
            update.api_key_auth_parameters,
            &base.api_key_auth_parameters,
            |n, o| store::ApiKeyAuthParameters {
                api_key_name: or(n.api_key_name, &o.api_key_name),
                api_key_value: or(n.api_key_value, &o.api_key_value),
            },
        ),
        oauth_parameters: pick(update.oauth_parameters, &base.oauth_parameters, |n, o| {
            store::OAuthParameters {
                authorization_endpoint: or(n.authorization_endpoint, &o.authorization_endpoint),
                client_parameters: pick(n.client_parameters, &o.client_parameters, |n, o| {
                    store::OAuthClientParameters {
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

/// Parameters as DescribeConnection shows them: secret values left out.
pub(super) fn shown_parameters(p: &ConnectionHttpParameters) -> ConnectionHttpParameters {
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
pub(super) fn shown(p: &AuthParameters) -> AuthParameters {
    use crate::services::events::store::*;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::events::store::{BasicAuthParameters, OAuthParameters};
    use serde_json::{Value, json};

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
