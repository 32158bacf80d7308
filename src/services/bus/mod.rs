//! The custom event bus with subscribers (`X-Amz-Target: AWSEventsV2.<Op>`, API version
//! 2025-05-15; the model is compat/models/eventsv2): buses that retain their events, subscribers
//! with filters, FIFO event groups, publish-time dedup, retry policies and dead-letter records,
//! and replays for POINT_IN_TIME subscribers. Deliveries run on the engine's shared delivery path;
//! what the custom bus shares with classic EventBridge about events (the envelope, the pattern
//! matcher, target input) comes from `crate::services::event`, and classic EventBridge's helpers
//! it borrows (timestamps, names, target adapters, connections) from `crate::services::events`.
//! docs/custom-bus.md describes the behaviour.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

pub mod buses;
pub mod deliver;
mod publish;
pub use crate::state::bus::retry;
pub use crate::state::bus::store;
pub mod subscribers;

pub use publish::forward;

/// Whether `arn` names a custom bus (`...:event-busv2/<name>`), not a classic EventBridge bus.
pub fn is_bus_arn(arn: &str) -> bool {
    arn.contains(":event-busv2/")
}

use super::operations;
use crate::error::AwsError;

/// The custom bus's errors, named as its API model names them.
#[derive(Debug, Clone, PartialEq)]
pub enum V2Error {
    Validation(String),
    ResourceNotFound(String),
    ResourceAlreadyExists(String),
    ResourceInUse(String),
    LimitExceeded(String),
}

impl From<V2Error> for AwsError {
    fn from(e: V2Error) -> AwsError {
        let (code, message) = match e {
            V2Error::Validation(m) => ("ValidationException", m),
            V2Error::ResourceNotFound(m) => ("ResourceNotFoundException", m),
            V2Error::ResourceAlreadyExists(m) => ("ResourceAlreadyExistsException", m),
            V2Error::ResourceInUse(m) => ("ResourceInUseException", m),
            V2Error::LimitExceeded(m) => ("LimitExceededException", m),
        };
        AwsError::client(code, message)
    }
}

/// A Coral-style validation failure: "1 validation error detected: Value 'x' at 'member' failed
/// to satisfy constraint: <rule>".
pub(crate) fn constraint(value: impl std::fmt::Display, member: &str, rule: &str) -> V2Error {
    V2Error::Validation(super::validation_message(value, member, rule))
}

/// Checks an integer member against the model's range.
pub(crate) fn in_range(value: i64, member: &str, low: i64, high: i64) -> Result<(), V2Error> {
    if value < low {
        return Err(constraint(
            value,
            member,
            &format!("Member must have value greater than or equal to {low}"),
        ));
    }
    if value > high {
        return Err(constraint(
            value,
            member,
            &format!("Member must have value less than or equal to {high}"),
        ));
    }
    Ok(())
}

/// Checks a string member against one of the model's enums.
pub(crate) fn one_of(value: &str, member: &str, allowed: &[&str]) -> Result<(), V2Error> {
    if allowed.contains(&value) {
        return Ok(());
    }
    Err(not_one_of(value, member, allowed))
}

/// What [`one_of`] answers for a value not in `allowed`.
pub(crate) fn not_one_of(value: &str, member: &str, allowed: &[&str]) -> V2Error {
    constraint(
        value,
        member,
        &format!(
            "Member must satisfy enum value set: [{}]",
            allowed.join(", ")
        ),
    )
}

/// Checks a string member's length (in characters) against the model.
pub(crate) fn length(value: &str, member: &str, low: usize, high: usize) -> Result<(), V2Error> {
    let n = value.chars().count();
    if n < low {
        return Err(constraint(
            value,
            member,
            &format!("Member must have length greater than or equal to {low}"),
        ));
    }
    if n > high {
        return Err(constraint(
            value,
            member,
            &format!("Member must have length less than or equal to {high}"),
        ));
    }
    Ok(())
}

operations! {
    /// Runs an operation of the custom bus's API (the event streams' go to `streams::call`).
    "CreateEventBus" => buses::create_event_bus,
    "GetEventBus" => buses::get_event_bus,
    "ListEventBuses" => buses::list_event_buses,
    "DeleteEventBus" => buses::delete_event_bus,
    "CreateSubscriber" => subscribers::create_subscriber,
    "GetSubscriber" => subscribers::get_subscriber,
    "ListSubscribers" => subscribers::list_subscribers,
    "UpdateSubscriber" => subscribers::update_subscriber,
    "DeleteSubscriber" => subscribers::delete_subscriber,
    "TagResource" => buses::tag_resource,
    "UntagResource" => buses::untag_resource,
    "ListTagsForResource" => buses::list_tags_for_resource,
    "PutEvents" => publish::put_events,
}
