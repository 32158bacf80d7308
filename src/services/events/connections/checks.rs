//! Input checks of connections and API destinations as AWS's model constrains them, collected
//! the Coral way: every violated constraint of a request in one ValidationException ("3
//! validation errors detected: ...; ...; ..."), members in the API reference's order (AWS
//! recorded `name` before `authorizationType`, `connectionArn` before `httpMethod`), each
//! violated constraint of a member on its own. Values of sensitive members (passwords, keys,
//! secrets) are left out of the message, as Coral does.
//! Pure: it imports no operation and no state, only the engine's values and its own service's data.

use crate::arn::Arn;
use crate::services::events::checks::name_char;
use crate::services::events::errors::EventsError;
use crate::services::events::store::ConnectionHttpParameters;

/// The HTTP methods of an API destination, in the order AWS's message lists them (recorded from
/// AWS by LocalStack's snapshot `test_create_api_destination_invalid_parameters`).
pub(super) const DESTINATION_METHODS: &str = "[HEAD, POST, PATCH, DELETE, PUT, GET, OPTIONS]";
/// Recorded from AWS (`test_create_connection_invalid_parameters`).
pub(super) const AUTHORIZATION_TYPES: &str = "[BASIC, OAUTH_CLIENT_CREDENTIALS, API_KEY]";
/// The model's order.
pub(super) const OAUTH_METHODS: &str = "[GET, POST, PUT]";
pub(super) const CONNECTION_STATES: &str = "[CREATING, UPDATING, DELETING, AUTHORIZED, DEAUTHORIZED, AUTHORIZING, DEAUTHORIZING, ACTIVE, FAILED_CONNECTIVITY]";
pub(super) const NAME_PATTERN: &str = "[\\.\\-_A-Za-z0-9]+";
pub(super) const CONNECTION_ARN_PATTERN: &str = "^arn:aws([a-z]|\\-)*:events:([a-z]|\\d|\\-)*:([0-9]{12})?:connection\\/[\\.\\-_A-Za-z0-9]+\\/[\\-A-Za-z0-9]+$";
const ENDPOINT_PATTERN: &str =
    "^((%[0-9A-Fa-f]{2}|[-()_.!~*';/?:@\\x26=+$,A-Za-z0-9])+)([).!';/?:,])?$";
const AUTH_HEADER_PATTERN: &str =
    "^[ \\t]*[^\\x00-\\x1F:\\x7F]+([ \\t]+[^\\x00-\\x1F:\\x7F]+)*[ \\t]*$";
const HEADER_KEY_PATTERN: &str = "^[!#$%&'*+-.^_`|~0-9a-zA-Z]+$";
const HEADER_VALUE_PATTERN: &str = "^[ \\t]*[\\x20-\\x7E]+([ \\t]+[\\x20-\\x7E]+)*[ \\t]*$";
const QUERY_KEY_PATTERN: &str = "[^\\x00-\\x1F\\x7F]+";
const QUERY_VALUE_PATTERN: &str = "[^\\x00-\\x09\\x0B\\x0C\\x0E-\\x1F\\x7F]+";

/// The constraints a request violates, in the order found.
#[derive(Debug, Default)]
pub(super) struct Violations(Vec<String>);

impl Violations {
    pub(super) fn add(&mut self, value: Option<&str>, member: &str, rule: &str) {
        let shown = match value {
            Some(v) => format!("Value '{v}' at"),
            None => "Value at".to_string(),
        };
        self.0.push(format!(
            "{shown} '{member}' failed to satisfy constraint: {rule}"
        ));
    }

    /// A required member absent from the request (Coral: "Value null at 'm' failed to satisfy
    /// constraint: Member must not be null"), listed with the other violations.
    pub(super) fn null(&mut self, member: &str) {
        self.0.push(format!(
            "Value null at '{member}' failed to satisfy constraint: Member must not be null"
        ));
    }

    /// `value` when given, else a [`Violations::null`] of `member`.
    pub(super) fn required<'v, T: ?Sized>(
        &mut self,
        value: Option<&'v T>,
        member: &str,
    ) -> Option<&'v T> {
        if value.is_none() {
            self.null(member);
        }
        value
    }

    /// A string within `min..=max` characters whose characters all pass `allowed`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn text(
        &mut self,
        value: Option<&str>,
        member: &str,
        min: usize,
        max: usize,
        pattern: &str,
        allowed: impl Fn(&str) -> bool,
        sensitive: bool,
    ) {
        let Some(v) = value else { return };
        let shown = (!sensitive).then_some(v);
        let len = v.chars().count();
        // Each constraint is its own error: a name too long and of the wrong characters is
        // two (AWS-recorded).
        if len < min {
            self.add(
                shown,
                member,
                &format!("Member must have length greater than or equal to {min}"),
            );
        } else if len > max {
            self.add(
                shown,
                member,
                &format!("Member must have length less than or equal to {max}"),
            );
        }
        if len >= min && !allowed(v) {
            self.add(
                shown,
                member,
                &format!("Member must satisfy regular expression pattern: {pattern}"),
            );
        }
    }

    pub(super) fn name(&mut self, value: &str, member: &str) {
        self.text(Some(value), member, 1, 64, NAME_PATTERN, is_name, false);
    }

    pub(super) fn description(&mut self, value: Option<&str>) {
        self.text(value, "description", 0, 512, ".*", |_| true, false);
    }

    pub(super) fn one_of(&mut self, value: Option<&str>, member: &str, listed: &str) {
        self.one_of_by(value, member, listed, |a, v| a == v);
    }

    /// As [`Violations::one_of`], any letter case accepted (AWS takes an OAuth `HttpMethod`
    /// of `get` or `Post`).
    pub(super) fn one_of_any_case(&mut self, value: Option<&str>, member: &str, listed: &str) {
        self.one_of_by(value, member, listed, str::eq_ignore_ascii_case);
    }

    fn one_of_by(
        &mut self,
        value: Option<&str>,
        member: &str,
        listed: &str,
        same: impl Fn(&str, &str) -> bool,
    ) {
        let Some(v) = value else { return };
        let allowed = listed
            .trim_matches(['[', ']'])
            .split(", ")
            .any(|a| same(a, v));
        if !allowed {
            self.add(
                Some(v),
                member,
                &format!("Member must satisfy enum value set: {listed}"),
            );
        }
    }

    pub(super) fn endpoint(&mut self, value: Option<&str>, member: &str) {
        self.text(value, member, 1, 2048, ENDPOINT_PATTERN, is_endpoint, false);
    }

    pub(super) fn connection_arn(&mut self, value: Option<&str>) {
        let Some(v) = value else { return };
        if v.is_empty() || v.chars().count() > 1600 || parse_arn(v, "connection").is_none() {
            self.add(
                Some(v),
                "connectionArn",
                &format!(
                    "Member must satisfy regular expression pattern: {CONNECTION_ARN_PATTERN}"
                ),
            );
        }
    }

    /// A username, API key name or client id (`sensitive`: a password, key value or secret).
    pub(super) fn auth_header(&mut self, value: Option<&str>, member: &str, sensitive: bool) {
        self.text(
            value,
            member,
            1,
            512,
            AUTH_HEADER_PATTERN,
            is_auth_header,
            sensitive,
        );
    }

    /// The header and query string parameters of `params` (body parameters are free text).
    pub(super) fn http_parameters(
        &mut self,
        params: Option<&ConnectionHttpParameters>,
        member: &str,
    ) {
        let Some(params) = params else { return };
        for (i, h) in params.header_parameters.iter().enumerate() {
            let at = format!("{member}.headerParameters.{}.member", i + 1);
            self.text(
                h.key.as_deref(),
                &format!("{at}.key"),
                0,
                512,
                HEADER_KEY_PATTERN,
                |k| k.chars().all(is_token_char),
                false,
            );
            self.text(
                h.value.as_deref(),
                &format!("{at}.value"),
                0,
                512,
                HEADER_VALUE_PATTERN,
                is_header_value,
                true,
            );
        }
        for (i, q) in params.query_string_parameters.iter().enumerate() {
            let at = format!("{member}.queryStringParameters.{}.member", i + 1);
            self.text(
                q.key.as_deref(),
                &format!("{at}.key"),
                0,
                512,
                QUERY_KEY_PATTERN,
                |k| !k.is_empty() && !k.chars().any(|c| c.is_ascii_control()),
                false,
            );
            self.text(
                q.value.as_deref(),
                &format!("{at}.value"),
                0,
                512,
                QUERY_VALUE_PATTERN,
                |v| {
                    !v.is_empty()
                        && !v
                            .chars()
                            .any(|c| c.is_ascii_control() && c != '\n' && c != '\r')
                },
                true,
            );
        }
    }

    pub(super) fn finish(self) -> Result<(), EventsError> {
        match self.0.as_slice() {
            [] => Ok(()),
            [one] => Err(EventsError::Validation(format!(
                "1 validation error detected: {one}"
            ))),
            all => Err(EventsError::Validation(format!(
                "{} validation errors detected: {}",
                all.len(),
                all.join("; ")
            ))),
        }
    }
}

pub(super) fn is_name(v: &str) -> bool {
    v.chars().all(name_char)
}

/// `[-()_.!~*';/?:@&=+$,A-Za-z0-9]` and `%XX` escapes.
fn is_endpoint(v: &str) -> bool {
    let bytes = v.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3);
            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                return false;
            }
            i += 3;
            continue;
        }
        if !(b.is_ascii_alphanumeric() || b"-()_.!~*';/?:@&=+$,".contains(&b)) {
            return false;
        }
        i += 1;
    }
    true
}

fn is_auth_header(v: &str) -> bool {
    !v.trim_matches([' ', '\t']).is_empty()
        && v.chars()
            .all(|c| c == ' ' || c == '\t' || !(c.is_ascii_control() || c == ':'))
}

/// An HTTP token character (RFC 9110), which is what the model's header key pattern allows.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~,".contains(c)
}

fn is_header_value(v: &str) -> bool {
    !v.trim_matches([' ', '\t']).is_empty()
        && v.chars().all(|c| c == '\t' || (' '..='~').contains(&c))
}

/// The (region, account, name) of an EventBridge ARN of `kind` (`connection`,
/// `api-destination`): `arn:aws:events:<region>:<account>:<kind>/<name>/<id>`.
pub(super) fn parse_arn<'a>(arn: &'a str, kind: &str) -> Option<(&'a str, &'a str, &'a str)> {
    let Arn {
        partition,
        service,
        region,
        account,
        resource,
    } = Arn::parse(arn)?;
    let partition_ok = partition
        .strip_prefix("aws")
        .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
    let region_ok = region
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    let account_ok =
        account.is_empty() || (account.len() == 12 && account.bytes().all(|b| b.is_ascii_digit()));
    let (name, id) = resource
        .strip_prefix(kind)?
        .strip_prefix('/')?
        .split_once('/')?;
    let name_ok = !name.is_empty() && is_name(name);
    let id_ok = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    (service == "events" && partition_ok && region_ok && account_ok && name_ok && id_ok)
        .then_some((region, account, name))
}

/// Whether an endpoint is a URL switchyard can call: `https://` as AWS requires, or `http://`
/// (see the module documentation), with a host.
pub(super) fn is_http_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    rest.is_some_and(|r| {
        let host = r.split(['/', '?', '#']).next().unwrap_or_default();
        !host.is_empty() && url.parse::<hyper::Uri>().is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violations_are_counted_and_joined() {
        let mut v = Violations::default();
        v.connection_arn(Some("invalid-connection-arn"));
        v.one_of(Some("INVALID_METHOD"), "httpMethod", DESTINATION_METHODS);
        let Err(EventsError::Validation(m)) = v.finish() else {
            panic!("no error")
        };
        assert_eq!(
            m,
            "2 validation errors detected: Value 'invalid-connection-arn' at 'connectionArn' failed to satisfy constraint: Member must satisfy regular expression pattern: ^arn:aws([a-z]|\\-)*:events:([a-z]|\\d|\\-)*:([0-9]{12})?:connection\\/[\\.\\-_A-Za-z0-9]+\\/[\\-A-Za-z0-9]+$; Value 'INVALID_METHOD' at 'httpMethod' failed to satisfy constraint: Member must satisfy enum value set: [HEAD, POST, PATCH, DELETE, PUT, GET, OPTIONS]"
        );
    }

    #[test]
    fn sensitive_values_stay_out_of_messages() {
        let mut v = Violations::default();
        v.auth_header(
            Some("a:b"),
            "authParameters.basicAuthParameters.password",
            true,
        );
        let Err(EventsError::Validation(m)) = v.finish() else {
            panic!("no error")
        };
        assert!(m.starts_with("1 validation error detected: Value at 'authParameters.basicAuthParameters.password'"), "{m}");
        assert!(!m.contains("a:b"));
    }

    #[test]
    fn arns_parse_by_kind() {
        let arn = "arn:aws:events:us-east-1:000000000000:connection/c.1/3f1c-ab";
        assert_eq!(
            parse_arn(arn, "connection"),
            Some(("us-east-1", "000000000000", "c.1"))
        );
        assert_eq!(parse_arn(arn, "api-destination"), None);
        for bad in [
            "invalid-connection-arn",
            "arn:aws:events:us-east-1:000000000000:connection/c",
            "arn:aws:events:us-east-1:0000:connection/c/1",
            "arn:aws:sqs:us-east-1:000000000000:connection/c/1",
            "arn:aws:events:us-east-1:000000000000:connection/c d/1",
        ] {
            assert_eq!(parse_arn(bad, "connection"), None, "{bad}");
        }
    }

    #[test]
    fn endpoints_follow_the_model_and_must_be_http() {
        assert!(is_endpoint("https://example.com/a/*/b?x=%20y"));
        assert!(!is_endpoint("https://example.com/a b"));
        assert!(!is_endpoint("https://example.com/%zz"));
        assert!(is_http_url("https://example.com/api"));
        assert!(is_http_url("http://127.0.0.1:9000/hook"));
        for bad in [
            "example.com/api",
            "ftp://example.com",
            "https://",
            "https:///x",
        ] {
            assert!(!is_http_url(bad), "{bad}");
        }
    }
}
