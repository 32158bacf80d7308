//! Checks of request members that more than one EventBridge operation makes: resource names
//! (rules, targets, archives, buses, connections) and event patterns. A leaf: it imports the
//! errors and the pattern compiler only, never an operation of `events`.

use super::errors::{EventsError, constraint};
use crate::services::event::pattern::EventPattern;

/// Patterns longer than this are refused (AWS's quota).
const MAX_PATTERN_CHARS: usize = 4096;

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

/// A pattern as PutRule, CreateArchive and TestEventPattern take it.
pub fn parse_pattern(text: &str) -> Result<EventPattern, EventsError> {
    if text.chars().count() > MAX_PATTERN_CHARS {
        return Err(constraint(
            text,
            "eventPattern",
            "Member must have length less than or equal to 4096",
        ));
    }
    EventPattern::parse(text).map_err(|e| EventsError::InvalidEventPattern(e.message()))
}
