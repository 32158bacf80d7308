//! Mobile push: platform applications and their endpoints, and SMS: account attributes, the
//! opt-out list and the sandbox phone numbers. (Being built; each operation answers
//! `InvalidAction` until it is.)

use crate::engine::Engine;
use crate::error::AwsError;
use crate::services::{Context, not_yet};
use serde_json::Value;

/// Runs one of the platform or SMS operations, or `None` if `operation` is not one of them.
pub fn call(_e: &mut Engine, _cx: &Context, operation: &str, _input: Value) -> Option<Result<Value, AwsError>> {
    const OPERATIONS: [&str; 21] = [
        "CreatePlatformApplication",
        "DeletePlatformApplication",
        "GetPlatformApplicationAttributes",
        "SetPlatformApplicationAttributes",
        "ListPlatformApplications",
        "CreatePlatformEndpoint",
        "DeleteEndpoint",
        "GetEndpointAttributes",
        "SetEndpointAttributes",
        "ListEndpointsByPlatformApplication",
        "GetSMSAttributes",
        "SetSMSAttributes",
        "CheckIfPhoneNumberIsOptedOut",
        "ListPhoneNumbersOptedOut",
        "OptInPhoneNumber",
        "GetSMSSandboxAccountStatus",
        "CreateSMSSandboxPhoneNumber",
        "DeleteSMSSandboxPhoneNumber",
        "VerifySMSSandboxPhoneNumber",
        "ListSMSSandboxPhoneNumbers",
        "ListOriginationNumbers",
    ];
    OPERATIONS.contains(&operation).then(|| Err(not_yet(operation)))
}
