//! Resource policies, evaluated as AWS evaluates them for a request on another account's
//! resource: the SQS queue Policy (AddPermission writes statements there), the SNS topic Policy
//! and the EventBridge bus policy. One evaluator for the three, over the document as stored
//! (JSON). The subset it understands is written down in docs/policies.md.
//! A leaf: plain functions over JSON; it imports nothing of the emulator but the ARN parser.

use crate::arn::Arn;
use serde_json::Value;

/// Who asks: an account (its root; there are no identity policies) or a service delivering on
/// behalf of a resource (`sns.amazonaws.com` for a topic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Principal<'a> {
    Account(&'a str),
    Service(&'a str),
}

/// One request, as the policy's statements see it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub principal: Principal<'a>,
    /// `service:Operation`, e.g. `sqs:SendMessage`.
    pub action: &'a str,
    /// The ARN of the resource asked for.
    pub resource: &'a str,
    /// The resource a service acts for (`aws:SourceArn`): the topic, the rule.
    pub source_arn: Option<&'a str>,
}

impl Request<'_> {
    /// The account a service acts for (`aws:SourceAccount`): the one owning the source.
    fn source_account(&self) -> Option<&str> {
        self.source_arn
            .map(Arn::account_of)
            .filter(|a| !a.is_empty())
    }

    /// The account of the caller (`aws:PrincipalAccount`); a service has none.
    fn principal_account(&self) -> Option<&str> {
        match self.principal {
            Principal::Account(account) => Some(account),
            Principal::Service(_) => None,
        }
    }

    /// A condition key's value in this request, when it has one. Keys are case-insensitive.
    fn key(&self, name: &str) -> Option<&str> {
        match name.to_ascii_lowercase().as_str() {
            "aws:sourcearn" => self.source_arn,
            // SNS's older key for the same thing.
            "aws:sourceaccount" | "aws:sourceowner" => self.source_account(),
            "aws:principalaccount" => self.principal_account(),
            _ => None,
        }
    }
}

/// What a policy says of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// A statement allows it and none denies it.
    Allow,
    /// A statement denies it (whatever others allow).
    Deny,
    /// No statement applies.
    Silent,
}

/// The decision of `policy` (a document with a `Statement` list or a single statement) on
/// `request`. A missing or malformed document allows nothing.
pub fn evaluate(policy: Option<&Value>, request: &Request) -> Decision {
    let statements = match policy.map(|p| &p["Statement"]) {
        Some(Value::Array(list)) => list.iter().collect(),
        Some(one @ Value::Object(_)) => vec![one],
        _ => Vec::new(),
    };
    let mut decision = Decision::Silent;
    for statement in statements.into_iter().filter(|s| applies(s, request)) {
        match statement["Effect"].as_str() {
            Some("Deny") => return Decision::Deny,
            Some("Allow") => decision = Decision::Allow,
            _ => {}
        }
    }
    decision
}

/// Whether `policy` lets `request` through: allowed, and not denied.
pub fn allows(policy: Option<&Value>, request: &Request) -> bool {
    evaluate(policy, request) == Decision::Allow
}

fn applies(statement: &Value, request: &Request) -> bool {
    let principal = match (statement.get("Principal"), statement.get("NotPrincipal")) {
        (Some(p), _) => names_principal(p, request.principal),
        (None, Some(p)) => !names_principal(p, request.principal),
        (None, None) => false,
    };
    let action = |a: &str| {
        glob(
            &a.to_ascii_lowercase(),
            &request.action.to_ascii_lowercase(),
        )
    };
    let action = match (statement.get("Action"), statement.get("NotAction")) {
        (Some(a), _) => any(a, action),
        (None, Some(a)) => !any(a, action),
        (None, None) => false,
    };
    let resource = |r: &str| arn_like(r, request.resource);
    let resource = match (statement.get("Resource"), statement.get("NotResource")) {
        (Some(r), _) => any(r, resource),
        (None, Some(r)) => !any(r, resource),
        // A resource policy's statement is about its own resource.
        (None, None) => true,
    };
    principal && action && resource && conditions_hold(statement.get("Condition"), request)
}

/// Whether a string or any string of a list passes `test`.
fn any(value: &Value, test: impl Fn(&str) -> bool) -> bool {
    match value {
        Value::String(s) => test(s),
        Value::Array(items) => items.iter().filter_map(Value::as_str).any(test),
        _ => false,
    }
}

/// Whether a `Principal` value names `who`: `"*"` (anyone, services included), `{"AWS": ...}`
/// with `"*"`, an account id or its root ARN, or `{"Service": ...}`.
fn names_principal(value: &Value, who: Principal) -> bool {
    if value == "*" {
        return true;
    }
    let aws = |p: &str| match who {
        Principal::Account(account) => {
            p == "*" || p == account || p == format!("arn:aws:iam::{account}:root")
        }
        Principal::Service(_) => p == "*",
    };
    let service = |p: &str| matches!(who, Principal::Service(s) if s.eq_ignore_ascii_case(p));
    value.get("AWS").is_some_and(|v| any(v, aws))
        || value.get("Service").is_some_and(|v| any(v, service))
}

/// Every operator of a `Condition` block holds (an absent block holds).
fn conditions_hold(condition: Option<&Value>, request: &Request) -> bool {
    let Some(condition) = condition else {
        return true;
    };
    let Some(operators) = condition.as_object() else {
        return false;
    };
    operators.iter().all(|(operator, keys)| {
        keys.as_object().is_some_and(|keys| {
            keys.iter()
                .all(|(key, wanted)| holds(operator, request.key(key), wanted))
        })
    })
}

/// One operator on one key: any of the values `wanted` matches (for the negated operators: none
/// does). A key the request lacks fails a positive operator and passes a negated one, and passes
/// any `...IfExists`. An operator not listed in docs/policies.md never holds.
fn holds(operator: &str, actual: Option<&str>, wanted: &Value) -> bool {
    let (operator, if_exists) = match operator.strip_suffix("IfExists") {
        Some(base) => (base, true),
        None => (operator, false),
    };
    let (base, negated) = match operator {
        "StringNotEquals" => ("StringEquals", true),
        "StringNotEqualsIgnoreCase" => ("StringEqualsIgnoreCase", true),
        "StringNotLike" => ("StringLike", true),
        "ArnNotEquals" | "ArnNotLike" => ("ArnLike", true),
        "ArnEquals" => ("ArnLike", false),
        other => (other, false),
    };
    let test: fn(&str, &str) -> bool = match base {
        "StringEquals" => |w, a| w == a,
        "StringEqualsIgnoreCase" => |w, a| w.eq_ignore_ascii_case(a),
        "StringLike" => glob,
        "ArnLike" => arn_like,
        _ => return false,
    };
    let Some(actual) = actual else {
        return if_exists || negated;
    };
    let wanted = match wanted {
        Value::Bool(b) => vec![b.to_string()],
        Value::Number(n) => vec![n.to_string()],
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    let matched = wanted.iter().any(|w| test(w, actual));
    matched != negated
}

/// ARN matching as ArnLike does it: each of the six `:`-separated parts on its own, with `*`
/// and `?` inside a part; `"*"` alone matches anything.
pub fn arn_like(pattern: &str, arn: &str) -> bool {
    Arn::like(pattern, arn, glob)
}

/// `*` (any run, empty included) and `?` (any one character) matching of the whole `text`.
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let mut back: Option<(usize, usize)> = None;
    while let Some(&tc) = t.get(ti) {
        match p.get(pi) {
            Some('*') => {
                back = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == '?' || c == tc => {
                pi += 1;
                ti += 1;
            }
            _ => match back {
                Some((star, from)) => {
                    pi = star + 1;
                    ti = from + 1;
                    back = Some((star, from + 1));
                }
                None => return false,
            },
        }
    }
    p.iter().skip(pi).all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const QUEUE: &str = "arn:aws:sqs:us-east-1:111111111111:orders";
    const TOPIC: &str = "arn:aws:sns:us-east-1:111111111111:news";

    fn by(account: &'static str, action: &'static str) -> Request<'static> {
        Request {
            principal: Principal::Account(account),
            action,
            resource: QUEUE,
            source_arn: None,
        }
    }

    fn sns_delivery(topic: &'static str) -> Request<'static> {
        Request {
            principal: Principal::Service("sns.amazonaws.com"),
            action: "sqs:SendMessage",
            resource: QUEUE,
            source_arn: Some(topic),
        }
    }

    #[test]
    fn globs() {
        assert!(glob("*", ""));
        assert!(glob("a*c", "abbbc"));
        assert!(glob("a?c", "abc"));
        assert!(!glob("a?c", "ac"));
        assert!(glob("*send*", "sqs:sendmessage"));
        assert!(!glob("sqs:send*", "sqs:receivemessage"));
        assert!(arn_like("arn:aws:sqs:*:111111111111:*", QUEUE));
        assert!(!arn_like("arn:aws:sqs:*:2*:*", QUEUE));
        assert!(!arn_like("arn:aws:sqs:us-east-1", QUEUE));
    }

    #[test]
    fn principals_actions_and_deny() {
        let policy = json!({"Statement": [
            {"Effect": "Allow", "Principal": {"AWS": ["arn:aws:iam::222222222222:root", "333333333333"]},
             "Action": "SQS:Send*", "Resource": QUEUE},
            {"Effect": "Deny", "Principal": "*", "Action": "sqs:SendMessage",
             "Resource": QUEUE, "Condition": {"StringEquals": {"aws:PrincipalAccount": "333333333333"}}},
        ]});
        let p = Some(&policy);
        for (account, action, want) in [
            ("222222222222", "sqs:SendMessage", Decision::Allow),
            ("222222222222", "sqs:ReceiveMessage", Decision::Silent),
            ("333333333333", "sqs:SendMessage", Decision::Deny),
            ("444444444444", "sqs:SendMessage", Decision::Silent),
        ] {
            assert_eq!(
                evaluate(p, &by(account, action)),
                want,
                "{account} {action}"
            );
        }
        assert_eq!(
            evaluate(None, &by("222222222222", "sqs:SendMessage")),
            Decision::Silent
        );
    }

    #[test]
    fn a_single_statement_and_the_not_forms() {
        let policy = json!({"Statement": {"Effect": "Allow", "NotPrincipal": {"AWS": "222222222222"},
            "NotAction": "sqs:Delete*", "NotResource": "arn:aws:sqs:*:*:other"}});
        assert!(allows(
            Some(&policy),
            &by("333333333333", "sqs:SendMessage")
        ));
        assert!(!allows(
            Some(&policy),
            &by("222222222222", "sqs:SendMessage")
        ));
        assert!(!allows(
            Some(&policy),
            &by("333333333333", "sqs:DeleteMessage")
        ));
    }

    #[test]
    fn service_principals_and_source_conditions() {
        let policy = json!({"Statement": [{"Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"},
            "Action": "sqs:SendMessage", "Resource": QUEUE,
            "Condition": {"ArnEquals": {"aws:SourceArn": TOPIC}}}]});
        assert!(allows(Some(&policy), &sns_delivery(TOPIC)));
        assert!(!allows(
            Some(&policy),
            &sns_delivery("arn:aws:sns:us-east-1:111111111111:other")
        ));
        // A service principal is not an account.
        assert!(!allows(
            Some(&policy),
            &by("111111111111", "sqs:SendMessage")
        ));
        let by_account = json!({"Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"},
            "Action": "sqs:*", "Condition": {"StringEquals": {"AWS:SourceAccount": "111111111111"},
            "ArnLike": {"aws:SourceArn": "arn:aws:sns:*:*:n*"}}}]});
        assert!(allows(Some(&by_account), &sns_delivery(TOPIC)));
        // Absent keys: a positive operator fails, a negated one and ...IfExists pass.
        assert!(!allows(
            Some(&by_account),
            &by("111111111111", "sqs:SendMessage")
        ));
        let negated = json!({"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*",
            "Condition": {"ArnNotEquals": {"aws:SourceArn": TOPIC},
                          "StringLikeIfExists": {"aws:SourceAccount": "9*"}}}]});
        assert!(allows(
            Some(&negated),
            &by("222222222222", "sqs:SendMessage")
        ));
        assert!(!allows(Some(&negated), &sns_delivery(TOPIC)));
        let unknown = json!({"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*",
            "Condition": {"DateGreaterThan": {"aws:CurrentTime": "2020-01-01T00:00:00Z"}}}]});
        assert!(!allows(
            Some(&unknown),
            &by("222222222222", "sqs:SendMessage")
        ));
    }
}
