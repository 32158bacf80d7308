//! STS, as far as tools need it: GetCallerIdentity (the account's root, or the assumed role of
//! session credentials) and AssumeRole, whose credentials act in the role's account (their key
//! id carries it: `iam::keys`).
//! It must not depend on the runtime, the protocols or the server.

use super::iam::{self, keys};
use super::{Context, not_yet, parse, typed};
use crate::error::AwsError;
use crate::state::State;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub fn call(e: &mut State, cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    match operation {
        "GetCallerIdentity" => typed(input, |_: Empty| {
            Ok::<_, AwsError>(get_caller_identity(e, cx))
        }),
        "AssumeRole" => assume_role(e, cx, parse(input)?),
        _ => Err(not_yet(operation)),
    }
}

#[derive(Deserialize)]
pub struct Empty {}

#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "PascalCase")]
pub struct GetCallerIdentityOutput {
    pub user_id: String,
    pub account: String,
    pub arn: String,
}

/// The caller is the account's root identity, or the assumed role of session credentials
/// (`iam::identity`, which SNS and EventBridge name in their refusals too).
pub fn get_caller_identity(state: &State, cx: &Context) -> GetCallerIdentityOutput {
    match iam::identity::session_of(state, cx) {
        Some(s) => GetCallerIdentityOutput {
            user_id: format!("{}:{}", s.role_id, s.session_name),
            account: s.account.clone(),
            arn: s.arn(),
        },
        None => GetCallerIdentityOutput {
            user_id: cx.account.clone(),
            account: cx.account.clone(),
            arn: iam::identity::caller_arn(state, cx),
        },
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AssumeRoleInput {
    role_arn: String,
    role_session_name: String,
    duration_seconds: Option<i64>,
}

const TOKEN_ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// AssumeRole: the role must exist (else AccessDenied, as AWS answers a caller its trust
/// policy does not let in); its trust policy is stored, not evaluated.
fn assume_role(state: &mut State, cx: &Context, input: AssumeRoleInput) -> Result<Value, AwsError> {
    let (session, seconds) = iam::assume_role(
        state,
        cx,
        &input.role_arn,
        &input.role_session_name,
        input.duration_seconds,
    )?;
    let key = keys::session_key(&mut state.engine.rng, &session.account);
    let token = state.engine.rng.token(TOKEN_ALPHABET, 356);
    let expires_at = state.now() + seconds * 1000;
    let answer = json!({
        "Credentials": {
            "AccessKeyId": key,
            "SecretAccessKey": keys::session_secret(&key),
            "SessionToken": token,
            "Expiration": expires_at as f64 / 1000.0,
        },
        "AssumedRoleUser": {
            "AssumedRoleId": format!("{}:{}", session.role_id, session.session_name),
            "Arn": session.arn(),
        },
    });
    state.iam.sessions.insert(key, session);
    Ok(answer)
}
