//! EventBridge's errors ([`EventsError`], as its API model names them, and how each becomes an
//! [`AwsError`]) and the wordings more than one operation answers with. A leaf: it must not
//! depend on any operation of `events`, on the state or on the other services.

use crate::error::AwsError;

/// EventBridge's errors, named as its API model names them.
#[derive(Debug, Clone, PartialEq)]
pub enum EventsError {
    ResourceNotFound(String),
    ResourceAlreadyExists(String),
    Validation(String),
    InvalidEventPattern(String),
    LimitExceeded(String),
    ConcurrentModification(String),
    ManagedRule(String),
    IllegalStatus(String),
    PolicyLengthExceeded(String),
    AccessDenied(String),
    InvalidState(String),
}

impl From<EventsError> for AwsError {
    fn from(e: EventsError) -> AwsError {
        use EventsError::*;
        let (code, message) = match e {
            ResourceNotFound(m) => ("ResourceNotFoundException", m),
            ResourceAlreadyExists(m) => ("ResourceAlreadyExistsException", m),
            Validation(m) => ("ValidationException", m),
            InvalidEventPattern(m) => ("InvalidEventPatternException", m),
            LimitExceeded(m) => ("LimitExceededException", m),
            ConcurrentModification(m) => ("ConcurrentModificationException", m),
            ManagedRule(m) => ("ManagedRuleException", m),
            IllegalStatus(m) => ("IllegalStatusException", m),
            PolicyLengthExceeded(m) => ("PolicyLengthExceededException", m),
            AccessDenied(m) => ("AccessDeniedException", m),
            InvalidState(m) => ("InvalidStateException", m),
        };
        AwsError::client(code, message)
    }
}

/// A Coral-style validation failure: "1 validation error detected: Value 'x' at 'name' failed to
/// satisfy constraint: Member must ...".
pub(crate) fn constraint(value: &str, member: &str, rule: &str) -> EventsError {
    EventsError::Validation(crate::services::validation_message(value, member, rule))
}

/// A rule EventBridge manages (an archive's) refuses a change made without Force.
pub fn managed(name: &str) -> EventsError {
    EventsError::ManagedRule(format!(
        "Rule {name} is managed by an AWS service and can be modified only by it, or with Force."
    ))
}
