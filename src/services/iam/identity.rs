//! Who a caller is: the principal GetCallerIdentity names, SNS's SubscriptionPrincipal shows and
//! every "User: <arn> is not authorized to perform ..." refusal names (docs/decisions.md, "Who
//! the test credentials are"). A leaf: it reads the sessions AssumeRole handed out, nothing else.

use crate::arn::Arn;
use crate::services::Context;
use crate::state::State;

/// The assumed role of session credentials (`arn:aws:sts::<account>:assumed-role/<role>/<name>`),
/// else the account's root (`arn:aws:iam::<account>:root`): switchyard has no IAM users to name.
pub fn caller_arn(state: &State, cx: &Context) -> String {
    match session_of(state, cx) {
        Some(s) => s.arn(),
        None => Arn::root(&cx.account),
    }
}

/// The AssumeRole session whose credentials signed the request, if they are a session's.
pub fn session_of<'s>(state: &'s State, cx: &Context) -> Option<&'s super::store::Session> {
    let key = cx.access_key.as_ref()?;
    state.iam.sessions.get(key)
}
