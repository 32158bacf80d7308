//! IAM's errors, named as its API model names them, with AWS's messages. Plain values; no
//! operation here.

use crate::error::AwsError;

pub(super) fn no_such_role(name: &str) -> AwsError {
    AwsError::client(
        "NoSuchEntityException",
        format!("The role with name {name} cannot be found."),
    )
}

pub(super) fn no_such_policy(arn: &str) -> AwsError {
    AwsError::client(
        "NoSuchEntityException",
        format!("Policy {arn} was not found."),
    )
}

pub(super) fn no_such_role_policy(name: &str) -> AwsError {
    AwsError::client(
        "NoSuchEntityException",
        format!("The role policy with name {name} cannot be found."),
    )
}

pub(super) fn role_exists(name: &str) -> AwsError {
    AwsError::client(
        "EntityAlreadyExistsException",
        format!("Role with name {name} already exists."),
    )
}

pub(super) fn policy_exists(name: &str) -> AwsError {
    AwsError::client(
        "EntityAlreadyExistsException",
        format!("A policy called {name} already exists. Duplicate names are not allowed."),
    )
}

pub(super) fn malformed(message: &str) -> AwsError {
    AwsError::client("MalformedPolicyDocumentException", message)
}

pub(super) fn delete_conflict(message: &str) -> AwsError {
    AwsError::client("DeleteConflictException", message)
}

pub(super) fn invalid_input(message: impl Into<String>) -> AwsError {
    AwsError::client("InvalidInputException", message)
}

pub(super) fn limit_exceeded(message: impl Into<String>) -> AwsError {
    AwsError::client("LimitExceededException", message)
}

/// A Coral validation failure, as IAM's Query API answers it.
pub(super) fn validation(value: impl std::fmt::Display, member: &str, rule: &str) -> AwsError {
    AwsError::client(
        "ValidationError",
        crate::services::validation_message(value, member, rule),
    )
}
