//! EventBridge Scheduler over restJson1 (API 2021-06-30): schedules with at(), rate() and
//! cron() expressions in a time zone, run on the virtual clock and delivered to their targets
//! through the engine; schedule groups with the `default` group; tags on groups. The front-end
//! binds URI labels, the query string and the body into one input, so operations read members
//! by their model names as the JSON services do (docs/scheduler.md).
//! It must not depend on the runtime, the protocols or the server.

mod expression;
mod fire;
pub(crate) use fire::{last_attempt, per_attempt};
mod groups;
mod schedules;
pub mod store;
mod universal;

pub use fire::fire;
pub use universal::call_by_name;

use super::Context;
use crate::error::AwsError;
use crate::state::State;
use serde_json::{Value, json};

pub fn call(
    state: &mut State,
    cx: &Context,
    operation: &str,
    input: Value,
) -> Result<Value, AwsError> {
    let input = Input(input);
    let token = match operation {
        "CreateSchedule"
        | "UpdateSchedule"
        | "DeleteSchedule"
        | "CreateScheduleGroup"
        | "DeleteScheduleGroup" => input.opt("ClientToken"),
        _ => None,
    };
    let Some(token) = token else {
        return dispatch(state, cx, operation, &input);
    };
    check_client_token(token)?;
    // A request repeated with its ClientToken gets the first one's answer and changes nothing
    // again; the same token with other members is a request of its own.
    let key = (groups::scope(cx), operation.to_string(), token.to_string());
    let now = state.now();
    if let Some((at, seen, answer)) = state.scheduler.tokens.get(&key)
        && now - at < TOKEN_LIFETIME_MS
        && *seen == input.0
    {
        return Ok(answer.clone());
    }
    let answer = dispatch(state, cx, operation, &input)?;
    let tokens = &mut state.scheduler.tokens;
    if tokens.len() >= TOKENS_KEPT {
        tokens.retain(|_, (at, _, _)| now - *at < TOKEN_LIFETIME_MS);
    }
    tokens.insert(key, (now, input.0.clone(), answer.clone()));
    Ok(answer)
}

/// How long a ClientToken makes a repeat answer the same (virtual time; AWS names no duration).
const TOKEN_LIFETIME_MS: crate::engine::time::Millis = 60 * 60 * 1000;
/// Past this many tokens kept, the expired ones are dropped (every SDK call brings a new one).
const TOKENS_KEPT: usize = 1_000;

fn dispatch(
    state: &mut State,
    cx: &Context,
    operation: &str,
    input: &Input,
) -> Result<Value, AwsError> {
    match operation {
        "CreateSchedule" => schedules::create(state, cx, input),
        "GetSchedule" => schedules::get(state, cx, input),
        "UpdateSchedule" => schedules::update(state, cx, input),
        "DeleteSchedule" => schedules::delete(state, cx, input),
        "ListSchedules" => schedules::list(state, cx, input),
        "CreateScheduleGroup" => groups::create(state, cx, input),
        "GetScheduleGroup" => groups::get(state, cx, input),
        "ListScheduleGroups" => groups::list(state, cx, input),
        "DeleteScheduleGroup" => groups::delete(state, cx, input),
        "TagResource" => groups::tag(state, cx, input),
        "UntagResource" => groups::untag(state, cx, input),
        "ListTagsForResource" => groups::list_tags(state, cx, input),
        _ => Err(super::not_yet(operation)),
    }
}

/// An operation's input in the model's JSON form (required members are checked before).
struct Input(Value);

impl Input {
    fn str(&self, member: &str) -> &str {
        self.opt(member).unwrap_or_default()
    }

    fn opt(&self, member: &str) -> Option<&str> {
        self.0.get(member).and_then(Value::as_str)
    }

    fn int(&self, member: &str) -> Option<i64> {
        self.0.get(member).and_then(Value::as_i64)
    }

    /// A timestamp member (epoch seconds, as restJson1 bodies carry them) in milliseconds.
    fn millis(&self, member: &str) -> Option<crate::engine::time::Millis> {
        let seconds = self.0.get(member).and_then(Value::as_f64)?;
        Some((seconds * 1000.0).round() as crate::engine::time::Millis)
    }

    fn tags(&self) -> Vec<(String, String)> {
        let list = self.0.get("Tags").and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .map(|t| {
                let field = |k| t.get(k).and_then(Value::as_str).unwrap_or_default();
                (field("Key").to_string(), field("Value").to_string())
            })
            .collect()
    }

    fn strings(&self, member: &str) -> Vec<String> {
        let list = self.0.get(member).and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    }
}

fn validation(message: impl Into<String>) -> AwsError {
    AwsError::client("ValidationException", message)
}

fn not_found(message: impl Into<String>) -> AwsError {
    AwsError::new("ResourceNotFoundException", 404, message)
}

fn conflict(message: impl Into<String>) -> AwsError {
    AwsError::new("ConflictException", 409, message)
}

/// An instant as the model's JSON form carries timestamps: epoch seconds.
fn date(at: crate::engine::time::Millis) -> Value {
    json!(at as f64 / 1000.0)
}

/// A ClientToken: 1 to 64 of `[a-zA-Z0-9-_]`.
fn check_client_token(token: &str) -> Result<(), AwsError> {
    let valid = (1..=64).contains(&token.len())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b));
    if valid {
        return Ok(());
    }
    let rule = if token.len() > 64 {
        "Member must have length less than or equal to 64"
    } else {
        "Member must satisfy regular expression pattern: [a-zA-Z0-9-_]+"
    };
    Err(validation(super::validation_message(
        token,
        "clientToken",
        rule,
    )))
}

/// Checks a resource name (schedule or group): 1 to 64 of `[0-9a-zA-Z-_.]`.
fn check_name(value: &str, member: &str) -> Result<(), AwsError> {
    let valid = (1..=64).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if valid {
        return Ok(());
    }
    let rule = if value.len() > 64 {
        "Member must have length less than or equal to 64"
    } else {
        "Member must satisfy regular expression pattern: [0-9a-zA-Z-_.]+"
    };
    Err(validation(super::validation_message(value, member, rule)))
}
