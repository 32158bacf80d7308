//! Who may invoke a function: its own account always; another account, or a service delivering
//! for a resource (an SNS topic, an EventBridge rule), when the function's resource policy
//! (AddPermission's statements, `policy.rs`) allows it. As for SQS and SNS deliveries, the
//! policy is only asked with `--enforce-policies`: without it everything is allowed.
//! It imports no operation: the runtime and the deliveries ask it before an invocation.

use super::functions::resolve_in;
use crate::arn::Arn;
use crate::services::policy::arn_like;
use crate::state::State;
use crate::state::lambda::store::Statement;

/// Whether `principal` (an account id, or a service such as `sns.amazonaws.com`), acting for
/// `source_arn` and `source_account` when it is a service, may invoke `function_arn` (with the
/// qualifier it has, whose own policy decides). With `enforce` off everything is allowed; with
/// it on, an account other than the function's, and any service, need a statement of the
/// policy that allows them (AWS asks one of services in the function's own account too). A
/// function that does not exist is left for the invocation to find.
pub fn invoke_allowed(
    state: &State,
    function_arn: &str,
    principal: &str,
    source_arn: Option<&str>,
    source_account: Option<&str>,
    enforce: bool,
) -> bool {
    if !enforce {
        return true;
    }
    let (account, region) = (Arn::account_of(function_arn), Arn::region_of(function_arn));
    let Ok((arn, qualifier)) = resolve_in(account, region, function_arn) else {
        return true;
    };
    let Some(f) = state.lambda.functions.get(&arn) else {
        return true;
    };
    let is_account = principal.len() == 12 && principal.chars().all(|c| c.is_ascii_digit());
    if is_account && principal == f.account {
        return true;
    }
    let caller = Caller {
        principal,
        is_account,
        source_arn,
        source_account: source_account.or(source_arn.map(Arn::account_of)),
    };
    let statements = f.policies.get(qualifier.as_deref().unwrap_or_default());
    statements.is_some_and(|list| list.iter().any(|s| caller.granted(s)))
}

/// Who asks, as a statement's members and conditions see it.
struct Caller<'a> {
    principal: &'a str,
    is_account: bool,
    source_arn: Option<&'a str>,
    source_account: Option<&'a str>,
}

impl Caller<'_> {
    fn granted(&self, s: &Statement) -> bool {
        let action = ["*", "lambda:*", "lambda:InvokeFunction"]
            .iter()
            .any(|a| s.action.eq_ignore_ascii_case(a));
        let who = s.principal == "*"
            || if self.is_account {
                s.principal == self.principal
                    || s.principal == format!("arn:aws:iam::{}:root", self.principal)
            } else {
                s.principal.eq_ignore_ascii_case(self.principal)
            };
        let source_arn = (s.source_arn.as_deref())
            .is_none_or(|pattern| self.source_arn.is_some_and(|a| arn_like(pattern, a)));
        let source_account =
            (s.source_account.as_deref()).is_none_or(|wanted| self.source_account == Some(wanted));
        // An organization or an event source token is never a caller's here: such a
        // condition does not hold.
        let unprovable = s.principal_org_id.is_some() || s.event_source_token.is_some();
        action && who && source_arn && source_account && !unprovable
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement(principal: &str, source_arn: Option<&str>) -> Statement {
        Statement {
            sid: "s".into(),
            action: "lambda:InvokeFunction".into(),
            principal: principal.into(),
            resource: "arn:aws:lambda:us-east-1:111111111111:function:f".into(),
            source_arn: source_arn.map(str::to_string),
            source_account: None,
            principal_org_id: None,
            event_source_token: None,
            function_url_auth_type: None,
        }
    }

    #[test]
    fn a_statement_grants_its_principal_from_its_source() {
        let topic = "arn:aws:sns:us-east-1:111111111111:t";
        let cases = [
            (
                statement("sns.amazonaws.com", None),
                "sns.amazonaws.com",
                None,
                true,
            ),
            (
                statement("sns.amazonaws.com", None),
                "events.amazonaws.com",
                None,
                false,
            ),
            (
                statement(
                    "sns.amazonaws.com",
                    Some("arn:aws:sns:us-east-1:111111111111:*"),
                ),
                "sns.amazonaws.com",
                Some(topic),
                true,
            ),
            (
                statement("sns.amazonaws.com", Some(topic)),
                "sns.amazonaws.com",
                None,
                false,
            ),
            (statement("222222222222", None), "222222222222", None, true),
            (
                statement("arn:aws:iam::222222222222:root", None),
                "222222222222",
                None,
                true,
            ),
            (statement("222222222222", None), "333333333333", None, false),
            (statement("*", None), "333333333333", None, true),
        ];
        for (s, principal, source_arn, granted) in cases {
            let caller = Caller {
                principal,
                is_account: !principal.contains('.'),
                source_arn,
                source_account: source_arn.map(Arn::account_of),
            };
            assert_eq!(
                caller.granted(&s),
                granted,
                "{s:?} {principal} {source_arn:?}"
            );
        }
    }
}
