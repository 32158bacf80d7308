//! The exact request an event to an API destination makes as a rule or subscriber target
//! ([`invocation`]): the destination's endpoint, method and rate limit, its connection's
//! authorization and parameters, the target's HTTP parameters. What the target adapter
//! (`crate::services::target`) needs of connections, and nothing else: it imports the events
//! store and the connections' checks, never an operation.

use super::checks;
use crate::engine::delivery::Failure;
use crate::services::events::store::{ApiDestination, Connection, HttpParameters, Parameter};
use crate::state::State;
use base64::Engine as _;

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

impl Invocation {
    /// The delivery target of this request carrying `body`.
    pub fn into_target(self, body: String) -> crate::engine::delivery::Target {
        crate::engine::delivery::Target::Http {
            method: self.method,
            url: self.url,
            headers: self.headers,
            body,
        }
    }
}

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

/// The store key of a resource named `name` in the caller's account and region.
pub(super) fn key(region: &str, account: &str, name: &str) -> String {
    format!("{region}:{account}:{name}")
}

/// The connection an ARN names, if it exists (a recreated connection has another ARN).
pub(super) fn by_arn<'e>(e: &'e State, arn: &str) -> Option<&'e Connection> {
    let (region, account, name) = checks::parse_arn(arn, "connection")?;
    e.events
        .connections
        .get(&key(region, account, name))
        .filter(|c| c.arn == arn)
}

/// Whether a connection can authorize invocations.
pub(super) fn usable(c: &Connection) -> bool {
    matches!(c.state.as_str(), "AUTHORIZED" | "ACTIVE")
}

/// The (key, value) pairs of parameters that have a key.
pub(super) fn pairs(params: &[Parameter]) -> Vec<(String, String)> {
    params
        .iter()
        .filter_map(|p| Some((p.key.clone()?, p.value.clone().unwrap_or_default())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::events::store::AuthParameters;
    use serde_json::Value;
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
