//! Amazon EventBridge (the `AWSEvents` JSON 1.1 API of 2015-10-07): event buses and their
//! policies, rules with event patterns or schedules, targets with retry policies and dead-letter
//! queues, archives and replays, connections and API destinations. Deliveries run on the
//! engine's shared delivery path (`crate::engine::delivery`), as SNS's do.

mod archives;
mod buses;
pub mod connections;
pub mod put_events;
pub mod retry;
mod rules;
pub mod schedule;
pub mod store;

pub use put_events::forward;

use super::{Context, typed};
use crate::engine::time::Millis;
use crate::error::AwsError;
use crate::state::State;
use serde_json::Value;

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
        };
        AwsError::client(code, message)
    }
}

/// A Coral-style validation failure: "1 validation error detected: Value 'x' at 'name' failed to
/// satisfy constraint: Member must ...".
pub(crate) fn constraint(value: &str, member: &str, rule: &str) -> EventsError {
    EventsError::Validation(super::validation_message(value, member, rule))
}

/// Checks a name against a length range and an allowed character set, as the model constrains it.
pub(crate) fn check_name(
    value: &str,
    member: &str,
    max: usize,
    pattern: &str,
    allowed: impl Fn(char) -> bool,
) -> Result<(), EventsError> {
    if value.is_empty() {
        return Err(constraint(
            value,
            member,
            "Member must have length greater than or equal to 1",
        ));
    }
    if value.chars().count() > max {
        return Err(constraint(
            value,
            member,
            &format!("Member must have length less than or equal to {max}"),
        ));
    }
    if !value.chars().all(allowed) {
        return Err(constraint(
            value,
            member,
            &format!("Member must satisfy regular expression pattern: {pattern}"),
        ));
    }
    Ok(())
}

/// A name of rules, targets, archives, ...: `[\.\-_A-Za-z0-9]+`.
pub(crate) fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')
}

/// Timestamps in AWS JSON: seconds since the epoch.
pub(crate) fn epoch_seconds(ms: Millis) -> Value {
    serde_json::Number::from_f64(ms as f64 / 1000.0).map_or(Value::Null, Value::Number)
}

/// A timestamp member of a request, in seconds since the epoch.
pub(crate) fn millis_of(value: &Value) -> Option<Millis> {
    value.as_f64().map(|s| (s * 1000.0).round() as Millis)
}

pub use store::Timer;

pub fn fire(e: &mut State, timer: Timer) {
    match timer {
        Timer::Schedule {
            rule_arn,
            generation,
        } => rules::fire_schedule(e, &rule_arn, generation),
        Timer::Replay { replay_arn } => archives::step_replay(e, &replay_arn),
    }
}

pub fn call(e: &mut State, cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    use buses::*;
    use rules::*;
    match operation {
        "CreateEventBus" => typed(input, |i| create_event_bus(e, cx, i)),
        "DescribeEventBus" => typed(input, |i| describe_event_bus(e, cx, i)),
        "UpdateEventBus" => typed(input, |i| update_event_bus(e, cx, i)),
        "DeleteEventBus" => typed(input, |i| delete_event_bus(e, cx, i)),
        "ListEventBuses" => typed(input, |i| list_event_buses(e, cx, i)),
        "PutPermission" => typed(input, |i| put_permission(e, cx, i)),
        "RemovePermission" => typed(input, |i| remove_permission(e, cx, i)),
        "TagResource" => typed(input, |i| tag_resource(e, cx, i)),
        "UntagResource" => typed(input, |i| untag_resource(e, cx, i)),
        "ListTagsForResource" => typed(input, |i| list_tags_for_resource(e, cx, i)),
        "PutRule" => typed(input, |i| put_rule(e, cx, i)),
        "DescribeRule" => typed(input, |i| describe_rule(e, cx, i)),
        "EnableRule" => typed(input, |i| set_rule_state(e, cx, i, "ENABLED")),
        "DisableRule" => typed(input, |i| set_rule_state(e, cx, i, "DISABLED")),
        "DeleteRule" => typed(input, |i| delete_rule(e, cx, i)),
        "ListRules" => typed(input, |i| list_rules(e, cx, i)),
        "ListRuleNamesByTarget" => typed(input, |i| list_rule_names_by_target(e, cx, i)),
        "PutTargets" => typed(input, |i| put_targets(e, cx, i)),
        "RemoveTargets" => typed(input, |i| remove_targets(e, cx, i)),
        "ListTargetsByRule" => typed(input, |i| list_targets_by_rule(e, cx, i)),
        "TestEventPattern" => typed(input, test_event_pattern),
        "PutEvents" => typed(input, |i| put_events::put_events(e, cx, i)),
        "CreateArchive" | "DescribeArchive" | "UpdateArchive" | "DeleteArchive"
        | "ListArchives" | "StartReplay" | "DescribeReplay" | "CancelReplay" | "ListReplays" => {
            archives::call(e, cx, operation, input)
        }
        "CreateConnection"
        | "DescribeConnection"
        | "UpdateConnection"
        | "DeleteConnection"
        | "DeauthorizeConnection"
        | "ListConnections"
        | "CreateApiDestination"
        | "DescribeApiDestination"
        | "UpdateApiDestination"
        | "DeleteApiDestination"
        | "ListApiDestinations" => connections::call(e, cx, operation, input),
        _ => Err(super::not_yet(operation)),
    }
}
