//! Schedules: create, get, update, delete and list, with their checks as AWS words them.

use super::expression::{Expression, zone};
use super::groups::{self, DEFAULT, PAGER, scope};
use super::store::Schedule;
use super::{Input, check_name, conflict, date, fire, not_found, validation};
use crate::engine::time::Millis;
use crate::error::AwsError;
use crate::services::{Context, validation_message};
use crate::state::State;
use serde_json::{Value, json};

fn schedule_arn(cx: &Context, group: &str, name: &str) -> String {
    format!(
        "arn:aws:scheduler:{}:{}:schedule/{group}/{name}",
        cx.region, cx.account
    )
}

fn schedule_not_found(group: &str, name: &str) -> AwsError {
    not_found(format!("Schedule {name} does not exist in group {group}."))
}

fn group_of(input: &Input) -> &str {
    input.opt("GroupName").unwrap_or(DEFAULT)
}

pub fn create(state: &mut State, cx: &Context, input: &Input) -> Result<Value, AwsError> {
    let (group, name) = (group_of(input), input.str("Name"));
    check_name(name, "name")?;
    let now = state.now();
    let schedule = checked(cx, input, now)?;
    let found = groups::groups(state, cx)
        .get(group)
        .ok_or_else(|| not_found(format!("Schedule group {group} does not exist.")))?;
    if found.deleting {
        return Err(groups::being_deleted(group));
    }
    let key = (group.to_string(), name.to_string());
    let all = state.scheduler.schedules.entry(scope(cx)).or_default();
    if all.contains_key(&key) {
        return Err(conflict(format!("Schedule {name} already exists.")));
    }
    let arn = schedule_arn(cx, group, name);
    all.insert(
        key,
        Schedule {
            arn: arn.clone(),
            ..schedule
        },
    );
    fire::arm(state, &scope(cx), group, name, now - 1);
    Ok(json!({ "ScheduleArn": arn }))
}

pub fn update(state: &mut State, cx: &Context, input: &Input) -> Result<Value, AwsError> {
    let (group, name) = (group_of(input), input.str("Name"));
    let now = state.now();
    let mut schedule = checked(cx, input, now)?;
    if groups::groups(state, cx)
        .get(group)
        .is_some_and(|g| g.deleting)
    {
        return Err(groups::being_deleted(group));
    }
    let key = (group.to_string(), name.to_string());
    let all = state.scheduler.schedules.entry(scope(cx)).or_default();
    let old = all
        .get(&key)
        .ok_or_else(|| schedule_not_found(group, name))?;
    schedule.arn = old.arn.clone();
    schedule.created = old.created;
    let arn = schedule.arn.clone();
    all.insert(key, schedule);
    fire::arm(state, &scope(cx), group, name, now - 1);
    Ok(json!({ "ScheduleArn": arn }))
}

/// A schedule from a Create or Update input, checked.
fn checked(cx: &Context, input: &Input, now: Millis) -> Result<Schedule, AwsError> {
    let expression = input.str("ScheduleExpression");
    Expression::parse(expression)
        .ok_or_else(|| validation(format!("Invalid Schedule Expression {expression}.")))?;
    let timezone = input.opt("ScheduleExpressionTimezone");
    if zone(timezone).is_none() {
        return Err(validation(format!(
            "Invalid Schedule Expression Timezone {}.",
            timezone.unwrap_or_default()
        )));
    }
    let start = input.millis("StartDate");
    let end = input.millis("EndDate");
    if let (Some(start), Some(end)) = (start, end)
        && end <= start
    {
        return Err(validation("The EndDate must be after the StartDate."));
    }
    let enabled = match input.opt("State").unwrap_or("ENABLED") {
        "ENABLED" => true,
        "DISABLED" => false,
        other => return Err(enum_error(other, "state", "[ENABLED, DISABLED]")),
    };
    let delete_after_completion = match input.opt("ActionAfterCompletion").unwrap_or("NONE") {
        "NONE" => false,
        "DELETE" => true,
        other => return Err(enum_error(other, "actionAfterCompletion", "[NONE, DELETE]")),
    };
    let window = &input.0["FlexibleTimeWindow"];
    let minutes = window.get("MaximumWindowInMinutes").and_then(Value::as_i64);
    let flexible_window_minutes = match window.get("Mode").and_then(Value::as_str) {
        Some("OFF") if minutes.is_some() => {
            return Err(validation(
                "MaximumWindowInMinutes must not be set when the FlexibleTimeWindow Mode is OFF.",
            ));
        }
        Some("OFF") => None,
        Some("FLEXIBLE") => match minutes {
            Some(m) if (1..=1440).contains(&m) => Some(m),
            Some(m) => {
                let rule = if m < 1 {
                    "Member must have value greater than or equal to 1"
                } else {
                    "Member must have value less than or equal to 1440"
                };
                return Err(validation(validation_message(
                    m,
                    "flexibleTimeWindow.maximumWindowInMinutes",
                    rule,
                )));
            }
            None => {
                return Err(validation(
                    "MaximumWindowInMinutes is required when the FlexibleTimeWindow Mode is FLEXIBLE.",
                ));
            }
        },
        other => {
            return Err(enum_error(
                other.unwrap_or_default(),
                "flexibleTimeWindow.mode",
                "[OFF, FLEXIBLE]",
            ));
        }
    };
    let target = input.0["Target"].clone();
    check_target(&target)?;
    Ok(Schedule {
        arn: String::new(),
        host: cx.host.clone(),
        expression: expression.to_string(),
        timezone: timezone.map(str::to_string),
        start,
        end,
        enabled,
        description: input.opt("Description").map(str::to_string),
        kms_key_arn: input.opt("KmsKeyArn").map(str::to_string),
        flexible_window_minutes,
        delete_after_completion,
        target,
        created: now,
        modified: now,
        generation: None,
    })
}

fn enum_error(value: &str, member: &str, set: &str) -> AwsError {
    validation(validation_message(
        value,
        member,
        &format!("Member must satisfy enum value set: {set}"),
    ))
}

/// The target's RetryPolicy ranges, DeadLetterConfig, SqsParameters and EventBridgeParameters.
fn check_target(target: &Value) -> Result<(), AwsError> {
    let range = |path: &str, member: &str, lo: i64, hi: i64| -> Result<(), AwsError> {
        let Some(v) = target.pointer(path).and_then(Value::as_i64) else {
            return Ok(());
        };
        if v < lo {
            let rule = format!("Member must have value greater than or equal to {lo}");
            return Err(validation(validation_message(v, member, &rule)));
        }
        if v > hi {
            let rule = format!("Member must have value less than or equal to {hi}");
            return Err(validation(validation_message(v, member, &rule)));
        }
        Ok(())
    };
    range(
        "/RetryPolicy/MaximumRetryAttempts",
        "target.retryPolicy.maximumRetryAttempts",
        0,
        185,
    )?;
    range(
        "/RetryPolicy/MaximumEventAgeInSeconds",
        "target.retryPolicy.maximumEventAgeInSeconds",
        60,
        86_400,
    )?;
    if let Some(dlq) = target
        .pointer("/DeadLetterConfig/Arn")
        .and_then(Value::as_str)
        && !dlq.starts_with("arn:aws:sqs:")
    {
        return Err(validation(validation_message(
            dlq,
            "target.deadLetterConfig.arn",
            "Member must satisfy regular expression pattern: \
             arn:aws(-[a-z]+)?:sqs:[a-z0-9\\-]+:\\d{12}:[a-zA-Z0-9\\-_]+",
        )));
    }
    let arn = target["Arn"].as_str().unwrap_or_default();
    if arn.starts_with(super::universal::UNIVERSAL) && super::universal::resolve(arn).is_none() {
        return Err(validation(format!(
            "Invalid target {arn}: switchyard serves no such service action."
        )));
    }
    if arn.contains(":event-bus/") && target.get("EventBridgeParameters").is_none() {
        return Err(validation(
            "EventBridgeParameters are required for an EventBridge PutEvents target.",
        ));
    }
    Ok(())
}

fn full(schedule: &Schedule, group: &str, name: &str) -> Value {
    let mut window = json!({ "Mode": "OFF" });
    if let Some(m) = schedule.flexible_window_minutes {
        window = json!({ "Mode": "FLEXIBLE", "MaximumWindowInMinutes": m });
    }
    let mut out = json!({
        "ActionAfterCompletion": if schedule.delete_after_completion { "DELETE" } else { "NONE" },
        "Arn": schedule.arn,
        "CreationDate": date(schedule.created),
        "FlexibleTimeWindow": window,
        "GroupName": group,
        "LastModificationDate": date(schedule.modified),
        "Name": name,
        "ScheduleExpression": schedule.expression,
        "ScheduleExpressionTimezone": schedule.timezone.as_deref().unwrap_or("UTC"),
        "State": state_name(schedule),
        "Target": schedule.target,
    });
    let optional = [
        (
            "Description",
            schedule.description.as_ref().map(|d| json!(d)),
        ),
        ("KmsKeyArn", schedule.kms_key_arn.as_ref().map(|k| json!(k))),
        ("StartDate", schedule.start.map(date)),
        ("EndDate", schedule.end.map(date)),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            out[key] = value;
        }
    }
    out
}

fn state_name(schedule: &Schedule) -> &'static str {
    if schedule.enabled {
        "ENABLED"
    } else {
        "DISABLED"
    }
}

pub fn get(state: &mut State, cx: &Context, input: &Input) -> Result<Value, AwsError> {
    let (group, name) = (group_of(input), input.str("Name"));
    groups::groups(state, cx)
        .get(group)
        .ok_or_else(|| not_found(format!("Schedule group {group} does not exist.")))?;
    let key = (group.to_string(), name.to_string());
    let schedule = state
        .scheduler
        .schedules
        .get(&scope(cx))
        .and_then(|all| all.get(&key))
        .ok_or_else(|| schedule_not_found(group, name))?;
    Ok(full(schedule, group, name))
}

pub fn delete(state: &mut State, cx: &Context, input: &Input) -> Result<Value, AwsError> {
    let (group, name) = (group_of(input), input.str("Name"));
    let key = (group.to_string(), name.to_string());
    state
        .scheduler
        .schedules
        .get_mut(&scope(cx))
        .and_then(|all| all.remove(&key))
        .ok_or_else(|| schedule_not_found(group, name))?;
    Ok(json!({}))
}

pub fn list(state: &mut State, cx: &Context, input: &Input) -> Result<Value, AwsError> {
    let group = input.opt("GroupName");
    if let Some(group) = group {
        groups::groups(state, cx)
            .get(group)
            .ok_or_else(|| not_found(format!("Schedule group {group} does not exist.")))?;
    }
    let prefix = input.opt("NamePrefix").unwrap_or_default();
    let wanted_state = input.opt("State");
    let all = state.scheduler.schedules.get(&scope(cx));
    let items = all.into_iter().flatten().filter(|((g, n), s)| {
        group.is_none_or(|want| want == g)
            && n.starts_with(prefix)
            && wanted_state.is_none_or(|want| want == state_name(s))
    });
    let items = items.map(|((g, n), s)| {
        let summary = json!({
            "Arn": s.arn,
            "CreationDate": date(s.created),
            "GroupName": g,
            "LastModificationDate": date(s.modified),
            "Name": n,
            "State": state_name(s),
            "Target": { "Arn": s.target["Arn"] },
        });
        (format!("{g}/{n}"), summary)
    });
    let (page, next) = PAGER.page(items, input.opt("NextToken"), input.int("MaxResults"))?;
    let mut out = json!({ "Schedules": page });
    if let Some(token) = next {
        out["NextToken"] = json!(token);
    }
    Ok(out)
}
