//! Lambda's errors, named as its API model names them, with AWS's status codes and messages.
//! Each carries `Type` (`User` for the caller's errors, `Service` for Lambda's own), as Lambda's
//! error bodies do. Plain values; no operation here.

use crate::error::AwsError;

/// A caller's error of Lambda's: its code, status and message, `Type: User`.
pub fn user(code: &'static str, status: u16, message: impl Into<String>) -> AwsError {
    AwsError::new(code, status, message).with_member("Type", "User")
}

/// A function, version or alias that does not exist: `Function not found: <ARN>`.
pub fn function_not_found(arn: &str) -> AwsError {
    user(
        "ResourceNotFoundException",
        404,
        format!("Function not found: {arn}"),
    )
}

pub fn function_exists(name: &str) -> AwsError {
    user(
        "ResourceConflictException",
        409,
        format!("Function already exist: {name}"),
    )
}

pub fn invalid_parameter(message: impl Into<String>) -> AwsError {
    user("InvalidParameterValueException", 400, message)
}

/// A model constraint a member breaks, as Lambda's front-end answers it.
pub fn validation(value: impl std::fmt::Display, member: &str, rule: &str) -> AwsError {
    AwsError::new(
        "ValidationException",
        400,
        crate::services::validation_message(value, member, rule),
    )
}

/// An invocation refused for concurrency: `Reason` names the limit.
pub fn throttled(reason: &'static str) -> AwsError {
    user("TooManyRequestsException", 429, "Rate Exceeded.").with_member("Reason", reason)
}
