//! The dead letters of EventBridge's targets, which rule targets and EventBridge Scheduler's
//! targets share: the one table that names a failed delivery in AWS's terms, and the attributes
//! that tell a dead letter how its delivery ended. A leaf: it imports no operation of `events`
//! or `scheduler`, so both may use it.

use crate::engine::delivery::{Failure, GiveUp, Outcome, SqsMessage};
use crate::services::sqs::shapes::MessageAttributeValue;

/// The ERROR_CODE and ERROR_MESSAGE of a failed delivery, in the terms of AWS's list
/// (eb-rule-dlq): EventBridge's one table of delivery failures. A fault's own error code that
/// names no failure is used as given.
pub fn failure(outcome: &Outcome, target: &str) -> (String, String) {
    let Some(failed) = outcome.failure() else {
        return (
            "UNKNOWN".into(),
            format!("Failed to invoke target {target}."),
        );
    };
    let (code, message) = match failed.meaning() {
        Failure::NotFound(_) => ("NO_RESOURCE", format!("Target {target} does not exist.")),
        Failure::AccessDenied(_) => (
            "NO_PERMISSIONS",
            format!("Not authorized to deliver to target {target}."),
        ),
        Failure::Timeout => ("TIMEOUT", format!("Timed out invoking target {target}.")),
        Failure::Connection | Failure::Tls => (
            "CONNECTION_FAILURE",
            format!("Failed to connect to target {target}."),
        ),
        Failure::InvalidParameter(_) => (
            "INVALID_PARAMETER",
            format!("Target {target} refused the event as invalid."),
        ),
        Failure::InvalidJson => (
            "INVALID_JSON",
            "The target input is not valid JSON.".to_string(),
        ),
        Failure::Loop(code) => (
            code,
            format!("The event already passed event bus {target}."),
        ),
        Failure::Status(429) => (
            "THROTTLING",
            format!("Target {target} throttled the request (HTTP 429)."),
        ),
        Failure::Status(status) => (
            "SDK_CLIENT_ERROR",
            format!("Target {target} answered HTTP status code {status}."),
        ),
        other => {
            let code = other.code().unwrap_or("UNKNOWN").to_string();
            let message = format!("Failed to invoke target {target}: {code}.");
            return (code, message);
        }
    };
    (code.to_string(), message)
}

/// Adds how the delivery ended to its dead-letter message, as AWS does (eb-rule-dlq):
/// `ERROR_CODE` and `ERROR_MESSAGE` from [`failure`], `EXHAUSTED_RETRY_CONDITION` (only when a
/// retry limit ended it) and `RETRY_ATTEMPTS`. Rule targets and Scheduler targets both finish
/// their dead letters here.
pub fn finish_dead_letter(message: &mut SqsMessage, how: &GiveUp) {
    let (code, text) = failure(how.outcome, how.target);
    let attrs = &mut message.attributes;
    attrs.insert("ERROR_CODE".into(), MessageAttributeValue::string(&code));
    attrs.insert("ERROR_MESSAGE".into(), MessageAttributeValue::string(&text));
    if let Some(limit) = how.exhausted {
        attrs.insert(
            "EXHAUSTED_RETRY_CONDITION".into(),
            MessageAttributeValue::string(limit),
        );
    }
    let retries = how.attempts.saturating_sub(1).to_string();
    attrs.insert(
        "RETRY_ATTEMPTS".into(),
        MessageAttributeValue::string(&retries),
    );
}
