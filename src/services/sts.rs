//! STS, as far as tools need it to check credentials: GetCallerIdentity.
//! It must not depend on the runtime, the protocols or the server.

use super::{Context, not_yet, typed};
use crate::arn::Arn;
use crate::error::AwsError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub fn call(cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    match operation {
        "GetCallerIdentity" => typed(input, |_: Empty| Ok::<_, AwsError>(get_caller_identity(cx))),
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

/// The caller is the account's root identity: switchyard has no IAM users.
pub fn get_caller_identity(cx: &Context) -> GetCallerIdentityOutput {
    GetCallerIdentityOutput {
        user_id: cx.account.clone(),
        account: cx.account.clone(),
        arn: Arn::root(&cx.account),
    }
}
