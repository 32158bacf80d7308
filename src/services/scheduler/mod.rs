//! EventBridge Scheduler over restJson1 (API 2021-06-30): schedules with at(), rate() and
//! cron() expressions in a time zone, run on the virtual clock and delivered to their targets
//! through the engine; schedule groups with the `default` group; tags on groups. The front-end
//! binds URI labels, the query string and the body into one input, which each operation reads
//! as its typed shape (`shapes.rs`; docs/scheduler.md).
//! It must not depend on the runtime, the protocols or the server.

pub(crate) use crate::state::scheduler::expression;
mod fire;
pub(crate) use fire::{last_attempt, per_attempt};
mod groups;
mod schedules;
mod shapes;
pub use crate::state::scheduler::store;
mod universal;

pub use fire::fire;

use super::{Context, parse};
use crate::error::AwsError;
use crate::state::State;
use serde::Deserialize;
use serde_json::{Value, json};

pub fn call(e: &mut State, cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    let idempotent = matches!(
        operation,
        "CreateSchedule"
            | "UpdateSchedule"
            | "DeleteSchedule"
            | "CreateScheduleGroup"
            | "DeleteScheduleGroup"
    );
    // Lenient: a ClientToken that is not a string reads as none.
    let token = idempotent
        .then(|| shapes::Idempotent::deserialize(&input).unwrap_or_default())
        .and_then(|i| i.client_token);
    let Some(token) = token else {
        return dispatch(e, cx, operation, input);
    };
    check_client_token(&token)?;
    // A request repeated with its ClientToken gets the first one's answer and changes nothing
    // again; the same token with other members is a request of its own.
    let key = (groups::scope(cx), operation.to_string(), token);
    let now = e.now();
    if let Some((at, seen, answer)) = e.scheduler.tokens.get(&key)
        && now - at < TOKEN_LIFETIME_MS
        && *seen == input
    {
        return Ok(answer.clone());
    }
    let answer = dispatch(e, cx, operation, input.clone())?;
    let tokens = &mut e.scheduler.tokens;
    if tokens.len() >= TOKENS_KEPT {
        tokens.retain(|_, (at, _, _)| now - *at < TOKEN_LIFETIME_MS);
    }
    tokens.insert(key, (now, input, answer.clone()));
    Ok(answer)
}

/// How long a ClientToken makes a repeat answer the same (virtual time; AWS names no duration).
const TOKEN_LIFETIME_MS: crate::engine::time::Millis = 60 * 60 * 1000;
/// Past this many tokens kept, the expired ones are dropped (every SDK call brings a new one).
const TOKENS_KEPT: usize = 1_000;

/// Runs `operation` on its typed input. The shapes read leniently, so only an input that is not
/// a JSON object fails to parse (the front-ends never hand one over).
fn dispatch(e: &mut State, cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    match operation {
        "CreateSchedule" => schedules::create(e, cx, parse(input)?),
        "GetSchedule" => schedules::get(e, cx, parse(input)?),
        "UpdateSchedule" => schedules::update(e, cx, parse(input)?),
        "DeleteSchedule" => schedules::delete(e, cx, parse(input)?),
        "ListSchedules" => schedules::list(e, cx, parse(input)?),
        "CreateScheduleGroup" => groups::create(e, cx, parse(input)?),
        "GetScheduleGroup" => groups::get(e, cx, parse(input)?),
        "ListScheduleGroups" => groups::list(e, cx, parse(input)?),
        "DeleteScheduleGroup" => groups::delete(e, cx, parse(input)?),
        "TagResource" => groups::tag(e, cx, parse(input)?),
        "UntagResource" => groups::untag(e, cx, parse(input)?),
        "ListTagsForResource" => groups::list_tags(e, cx, parse(input)?),
        _ => Err(super::not_yet(operation)),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn cx() -> Context {
        Context {
            host: "localhost:4566".into(),
            ..Context::for_tests()
        }
    }

    fn create(state: &mut State, input: Value) -> Result<Value, AwsError> {
        call(state, &cx(), "CreateSchedule", input)
    }

    #[test]
    fn members_of_another_type_are_refused_by_the_checks_as_before() {
        let mut state = State::for_tests(0);
        let target = json!({"Arn": "arn:aws:sqs:us-east-1:000000000000:q", "RoleArn": "r"});
        let base = json!({
            "Name": "s",
            "ScheduleExpression": "rate(1 minute)",
            "FlexibleTimeWindow": {"Mode": "OFF"},
            "Target": target,
        });
        let with = |member: &str, value: Value| {
            let mut input = base.clone();
            input[member] = value;
            input
        };
        let refused = |input| create(&mut State::for_tests(0), input).unwrap_err().message;
        assert_eq!(
            refused(with("ScheduleExpression", json!(5))),
            "Invalid Schedule Expression ."
        );
        assert!(refused(with("Name", json!(5))).contains("Value '' at 'name'"));
        assert!(refused(with("FlexibleTimeWindow", json!([]))).contains("flexibleTimeWindow.mode"));
        assert!(refused(with("Target", json!("q"))).contains("Value null at 'target.arn'"));
        // A ClientToken that is not a string is none: the request is carried out each time.
        create(&mut state, with("ClientToken", json!(1))).unwrap();
        let again = create(&mut state, with("ClientToken", json!(1))).unwrap_err();
        assert_eq!(again.code, "ConflictException");
    }

    #[test]
    fn get_schedule_echoes_the_target_as_given() {
        let mut state = State::for_tests(0);
        let target = json!({
            "Arn": "arn:aws:sqs:us-east-1:000000000000:q",
            "RoleArn": "arn:aws:iam::000000000000:role/r",
            "RetryPolicy": {"MaximumRetryAttempts": 2, "Extra": true},
            "EcsParameters": {"TaskDefinitionArn": "t"},
            "Input": 7,
        });
        let input = json!({
            "Name": "s",
            "ScheduleExpression": "rate(1 minute)",
            "ScheduleExpressionTimezone": "Asia/Tokyo",
            "FlexibleTimeWindow": {"Mode": "OFF"},
            "Target": target,
        });
        create(&mut state, input).unwrap();
        let got = call(&mut state, &cx(), "GetSchedule", json!({"Name": "s"})).unwrap();
        assert_eq!(got["Target"], target);
        assert_eq!(got["ScheduleExpression"], "rate(1 minute)");
        assert_eq!(got["ScheduleExpressionTimezone"], "Asia/Tokyo");
        let listed = call(&mut state, &cx(), "ListSchedules", json!({})).unwrap();
        assert_eq!(
            listed["Schedules"][0]["Target"],
            json!({"Arn": target["Arn"]})
        );
    }
}
