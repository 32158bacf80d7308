//! IAM's input checks: the model's length and pattern constraints on names, paths, page sizes and
//! tags (answered as Coral's ValidationError), and the policy documents (MalformedPolicyDocument).
//! Plain functions; no operation here.

use super::errors::{invalid_input, limit_exceeded, malformed, validation};
use crate::error::AwsError;
use serde_json::Value;

/// Role and policy names: `[\w+=,.@-]+`, 1 to `max` characters (64 for roles, 128 for policies).
pub(super) fn name(value: &str, member: &str, max: usize) -> Result<(), AwsError> {
    let len = value.chars().count();
    if len > max {
        let rule = format!("Member must have length less than or equal to {max}");
        return Err(validation(value, member, &rule));
    }
    if len == 0 {
        let rule = "Member must have length greater than or equal to 1";
        return Err(validation(value, member, rule));
    }
    let ok = |c: char| c.is_ascii_alphanumeric() || "_+=,.@-".contains(c);
    if !value.chars().all(ok) {
        let rule = "Member must satisfy regular expression pattern: [\\w+=,.@-]+";
        return Err(validation(value, member, rule));
    }
    Ok(())
}

/// A role's path: `/` or `/…/` of printable ASCII, at most 512 characters.
pub(super) fn role_path(value: &str) -> Result<(), AwsError> {
    let inner = value.strip_prefix('/').and_then(|v| v.strip_suffix('/'));
    let ok = value == "/"
        || inner.is_some_and(|i| !i.is_empty() && i.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    if value.len() > 512 {
        let rule = "Member must have length less than or equal to 512";
        return Err(validation(value, "path", rule));
    }
    if !ok {
        let rule = "Member must satisfy regular expression pattern: (\\u002F)|(\\u002F[\\u0021-\\u007E]+\\u002F)";
        return Err(validation(value, "path", rule));
    }
    Ok(())
}

/// A managed policy's path: `((/[A-Za-z0-9\.,\+@=_-]+)*)/`.
pub(super) fn policy_path(value: &str) -> Result<(), AwsError> {
    let segment_ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || ".,+@=_-".contains(c))
    };
    let ok = value.strip_suffix('/').is_some_and(|inner| {
        inner.is_empty()
            || inner
                .strip_prefix('/')
                .is_some_and(|i| i.split('/').all(segment_ok))
    });
    if value.len() > 512 {
        let rule = "Member must have length less than or equal to 512";
        return Err(validation(value, "path", rule));
    }
    if !ok {
        let rule = "Member must satisfy regular expression pattern: ((/[A-Za-z0-9\\.,\\+@=_-]+)*)/";
        return Err(validation(value, "path", rule));
    }
    Ok(())
}

/// A path prefix of a List operation: starts with `/`.
pub(super) fn path_prefix(value: &str) -> Result<(), AwsError> {
    if !value.starts_with('/') || value.len() > 512 {
        let rule = "Member must satisfy regular expression pattern: \\u002F[\\u0021-\\u007F]*";
        return Err(validation(value, "pathPrefix", rule));
    }
    Ok(())
}

/// MaxItems: 1 to 1000, 100 when not given.
pub(super) fn max_items(value: Option<i64>) -> Result<usize, AwsError> {
    match value {
        None => Ok(100),
        Some(n) if n < 1 => Err(validation(
            n,
            "maxItems",
            "Member must have value greater than or equal to 1",
        )),
        Some(n) if n > 1000 => Err(validation(
            n,
            "maxItems",
            "Member must have value less than or equal to 1000",
        )),
        Some(n) => Ok(n as usize),
    }
}

/// A role's MaxSessionDuration: 3600 to 43200 seconds.
pub(super) fn max_session_duration(value: i64) -> Result<(), AwsError> {
    let member = "maxSessionDuration";
    if value < 3600 {
        let rule = "Member must have value greater than or equal to 3600";
        return Err(validation(value, member, rule));
    }
    if value > 43200 {
        let rule = "Member must have value less than or equal to 43200";
        return Err(validation(value, member, rule));
    }
    Ok(())
}

/// A description: at most 1000 characters.
pub(super) fn description(value: &str) -> Result<(), AwsError> {
    if value.chars().count() > 1000 {
        let rule = "Member must have length less than or equal to 1000";
        return Err(validation(value, "description", rule));
    }
    Ok(())
}

/// A trust policy (AssumeRolePolicyDocument): a JSON object.
pub(super) fn trust_policy(document: &str) -> Result<(), AwsError> {
    match serde_json::from_str::<Value>(document) {
        Ok(Value::Object(doc)) => statements_ok(&doc, true),
        _ => Err(malformed("This policy contains invalid Json")),
    }
}

/// An identity policy (inline or managed): a JSON object. Stored, never enforced.
pub(super) fn identity_policy(document: &str) -> Result<(), AwsError> {
    match serde_json::from_str::<Value>(document) {
        Ok(Value::Object(doc)) => statements_ok(&doc, false),
        _ => Err(malformed("Syntax errors in policy.")),
    }
}

/// The structure AWS checks in every policy: a non-empty Statement (an object or a list of
/// them), each with an Effect of Allow or Deny; a trust policy names no Resource, an identity
/// policy no Principal. A broken structure is "Syntax errors in policy.", as IAM words it.
fn statements_ok(doc: &serde_json::Map<String, Value>, trust: bool) -> Result<(), AwsError> {
    let syntax = || malformed("Syntax errors in policy.");
    let statements = match doc.get("Statement") {
        Some(Value::Array(list)) if !list.is_empty() => list.iter().collect::<Vec<_>>(),
        Some(one @ Value::Object(_)) => vec![one],
        _ => return Err(syntax()),
    };
    for statement in statements {
        let Value::Object(s) = statement else {
            return Err(syntax());
        };
        if !matches!(
            s.get("Effect").and_then(Value::as_str),
            Some("Allow" | "Deny")
        ) {
            return Err(syntax());
        }
        if trust && s.contains_key("Resource") {
            return Err(malformed("Has prohibited field Resource"));
        }
        if !trust && s.contains_key("Principal") {
            return Err(malformed("Policy document should not specify a principal."));
        }
    }
    Ok(())
}

/// Tags added to a resource: keys 1–128, values up to 256 characters, at most 50 in all.
pub(super) fn tags(
    existing: &[(String, String)],
    added: &[(String, String)],
) -> Result<(), AwsError> {
    for (key, value) in added {
        if key.is_empty() || key.chars().count() > 128 {
            let rule = "Member must have length less than or equal to 128";
            return Err(validation(key, "tags.member.key", rule));
        }
        if value.chars().count() > 256 {
            let rule = "Member must have length less than or equal to 256";
            return Err(validation(value, "tags.member.value", rule));
        }
    }
    let mut keys: Vec<&str> = added.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    if keys
        .windows(2)
        .any(|w| matches!(w, [a, b] if a.eq_ignore_ascii_case(b)))
    {
        return Err(invalid_input(
            "Duplicate tag keys found. Please note that Tag keys are case insensitive.",
        ));
    }
    let new = added
        .iter()
        .filter(|(k, _)| !existing.iter().any(|(e, _)| e.eq_ignore_ascii_case(k)))
        .count();
    if existing.len() + new > 50 {
        return Err(limit_exceeded(
            "The number of tags has reached the maximum limit.",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths() {
        #[rustfmt::skip]
        let cases: [(&str, bool, bool, bool); 10] = [
            // value,         name ok, role path ok, policy path ok
            ("/",             false,   true,         true),
            ("/a/b/",         false,   true,         true),
            ("/a b/",         false,   false,        false),
            ("/a//",          false,   true,         false),
            ("a/",            false,   false,        false),
            ("/a",            false,   false,        false),
            ("svc-role_1",    true,    false,        false),
            ("a=b,c.d@e+f",   true,    false,        false),
            ("no space",      false,   false,        false),
            ("",              false,   false,        false),
        ];
        for (value, name_ok, role_ok, policy_ok) in cases {
            assert_eq!(
                name(value, "roleName", 64).is_ok(),
                name_ok,
                "name {value:?}"
            );
            assert_eq!(role_path(value).is_ok(), role_ok, "role path {value:?}");
            assert_eq!(
                policy_path(value).is_ok(),
                policy_ok,
                "policy path {value:?}"
            );
        }
    }

    #[test]
    fn documents() {
        let allow = r#"{"Statement":{"Effect":"Allow","Action":"sqs:*","Resource":"*"}}"#;
        assert!(identity_policy(allow).is_ok());
        let trust = r#"{"Statement":[{"Effect":"Allow","Principal":{"Service":"sqs.amazonaws.com"},"Action":"sts:AssumeRole"}]}"#;
        assert!(trust_policy(trust).is_ok());
        for (doc, message) in [
            ("[]", "This policy contains invalid Json"),
            ("{", "This policy contains invalid Json"),
            ("{}", "Syntax errors in policy."),
            (allow, "Has prohibited field Resource"),
        ] {
            assert_eq!(trust_policy(doc).unwrap_err().message, message, "{doc}");
        }
        for (doc, message) in [
            ("{", "Syntax errors in policy."),
            (
                r#"{"Statement":[{"Effect":"Maybe"}]}"#,
                "Syntax errors in policy.",
            ),
            (trust, "Policy document should not specify a principal."),
        ] {
            assert_eq!(identity_policy(doc).unwrap_err().message, message, "{doc}");
        }
    }

    #[test]
    fn tags_are_counted_regardless_of_case() {
        let existing: Vec<_> = (0..49).map(|i| (format!("k{i}"), String::new())).collect();
        let same = [("K0".to_string(), "x".to_string())];
        assert!(tags(&existing, &same).is_ok());
        let two = [
            ("new".to_string(), String::new()),
            ("newer".to_string(), String::new()),
        ];
        assert_eq!(
            tags(&existing, &two).unwrap_err().code,
            "LimitExceededException"
        );
        let dup = [
            ("a".to_string(), String::new()),
            ("A".to_string(), String::new()),
        ];
        assert_eq!(tags(&[], &dup).unwrap_err().code, "InvalidInputException");
    }
}
