//! Schedules: create, get, update, delete and list, with their checks as AWS words them.

use super::expression::{Expression, Zone};
use super::groups::{self, DEFAULT, PAGER, scope};
use super::shapes::{FlexibleTimeWindow, ListSchedulesInput, ScheduleInput, ScheduleName};
use super::store::{Schedule, Target};
use super::{check_name, conflict, date, fire, not_found, validation};
use crate::arn::Arn;
use crate::engine::time::Millis;
use crate::error::AwsError;
use crate::model::ShapeKind;
use crate::services::{Context, ServiceId, SetMember, validation_message};
use crate::state::State;
use serde_json::{Value, json};

fn schedule_arn(cx: &Context, group: &str, name: &str) -> String {
    let resource = format!("schedule/{group}/{name}");
    Arn::new("scheduler", &cx.region, &cx.account, &resource).text()
}

fn schedule_not_found(group: &str, name: &str) -> AwsError {
    not_found(format!("Schedule {name} does not exist in group {group}."))
}

/// The group a schedule is in: `default` unless GroupName names one.
fn group_of(group_name: &Option<String>) -> &str {
    group_name.as_deref().unwrap_or(DEFAULT)
}

pub(super) fn create(
    state: &mut State,
    cx: &Context,
    input: ScheduleInput,
) -> Result<Value, AwsError> {
    let (group, name) = (group_of(&input.group_name), input.name.as_str());
    check_name(name, "name")?;
    let now = state.now();
    let schedule = checked(cx, &input, now)?;
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

pub(super) fn update(
    state: &mut State,
    cx: &Context,
    input: ScheduleInput,
) -> Result<Value, AwsError> {
    let (group, name) = (group_of(&input.group_name), input.name.as_str());
    let now = state.now();
    let mut schedule = checked(cx, &input, now)?;
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
fn checked(cx: &Context, input: &ScheduleInput, now: Millis) -> Result<Schedule, AwsError> {
    let text = input.schedule_expression.as_str();
    let expression = Expression::parse(text)
        .ok_or_else(|| validation(format!("Invalid Schedule Expression {text}.")))?;
    let timezone = input.schedule_expression_timezone.as_deref();
    let timezone = Zone::named(timezone).ok_or_else(|| {
        validation(format!(
            "Invalid Schedule Expression Timezone {}.",
            timezone.unwrap_or_default()
        ))
    })?;
    // Epoch seconds, as restJson1 bodies carry timestamps, to milliseconds.
    let millis = |seconds: Option<f64>| seconds.map(|s| (s * 1000.0).round() as Millis);
    let (start, end) = (millis(input.start_date), millis(input.end_date));
    if let (Some(start), Some(end)) = (start, end)
        && end <= start
    {
        return Err(validation("The EndDate must be after the StartDate."));
    }
    let enabled = match input.state.as_deref().unwrap_or("ENABLED") {
        "ENABLED" => true,
        "DISABLED" => false,
        other => return Err(enum_error(other, "state", "[ENABLED, DISABLED]")),
    };
    let after_completion = input.action_after_completion.as_deref();
    let delete_after_completion = match after_completion.unwrap_or("NONE") {
        "NONE" => false,
        "DELETE" => true,
        other => return Err(enum_error(other, "actionAfterCompletion", "[NONE, DELETE]")),
    };
    let flexible_window_minutes = window(&input.flexible_time_window)?;
    // A target that is not an object is refused as the front-ends refuse it.
    let target = input.target.clone().ok_or_else(|| {
        let path = ["Target".to_string(), "Arn".to_string()];
        ServiceId::Scheduler.missing_parameter(&path, ShapeKind::String)
    })?;
    check_target(&target)?;
    Ok(Schedule {
        arn: String::new(),
        host: cx.host.clone(),
        expression,
        timezone,
        start,
        end,
        enabled,
        description: input.description.clone(),
        kms_key_arn: input.kms_key_arn.clone(),
        flexible_window_minutes,
        delete_after_completion,
        target,
        created: now,
        modified: now,
        generation: None,
    })
}

/// The FlexibleTimeWindow: `None` for `OFF`, the window in minutes for `FLEXIBLE`.
fn window(window: &FlexibleTimeWindow) -> Result<Option<i64>, AwsError> {
    let minutes = window.maximum_window_in_minutes;
    match window.mode.as_deref() {
        Some("OFF") if minutes.is_some() => Err(validation(
            "MaximumWindowInMinutes must not be set when the FlexibleTimeWindow Mode is OFF.",
        )),
        Some("OFF") => Ok(None),
        Some("FLEXIBLE") => match minutes {
            Some(m) if (1..=1440).contains(&m) => Ok(Some(m)),
            Some(m) => {
                let rule = if m < 1 {
                    "Member must have value greater than or equal to 1"
                } else {
                    "Member must have value less than or equal to 1440"
                };
                Err(validation(validation_message(
                    m,
                    "flexibleTimeWindow.maximumWindowInMinutes",
                    rule,
                )))
            }
            None => Err(validation(
                "MaximumWindowInMinutes is required when the FlexibleTimeWindow Mode is FLEXIBLE.",
            )),
        },
        other => Err(enum_error(
            other.unwrap_or_default(),
            "flexibleTimeWindow.mode",
            "[OFF, FLEXIBLE]",
        )),
    }
}

fn enum_error(value: &str, member: &str, set: &str) -> AwsError {
    validation(validation_message(
        value,
        member,
        &format!("Member must satisfy enum value set: {set}"),
    ))
}

/// The target's RetryPolicy ranges, DeadLetterConfig, universal target and
/// EventBridgeParameters.
fn check_target(target: &Target) -> Result<(), AwsError> {
    let range = |value: Option<i64>, member: &str, lo: i64, hi: i64| -> Result<(), AwsError> {
        let Some(v) = value else {
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
    let retry = target.retry_policy.as_ref();
    range(
        retry.and_then(|r| r.maximum_retry_attempts),
        "target.retryPolicy.maximumRetryAttempts",
        0,
        185,
    )?;
    range(
        retry.and_then(|r| r.maximum_event_age_in_seconds),
        "target.retryPolicy.maximumEventAgeInSeconds",
        60,
        86_400,
    )?;
    let dead_letter = target.dead_letter_config.as_ref();
    // The model's pattern, as far as a queue ARN's start: the partition and service.
    if let Some(dlq) = dead_letter.and_then(|d| d.arn.as_deref())
        && !dlq.starts_with("arn:aws:sqs:")
    {
        return Err(validation(validation_message(
            dlq,
            "target.deadLetterConfig.arn",
            "Member must satisfy regular expression pattern: \
             arn:aws(-[a-z]+)?:sqs:[a-z0-9\\-]+:\\d{12}:[a-zA-Z0-9\\-_]+",
        )));
    }
    let arn = target.arn();
    if super::universal::is_universal(arn) && super::universal::resolve(arn).is_none() {
        return Err(validation(format!(
            "Invalid target {arn}: switchyard serves no such service action."
        )));
    }
    if Arn::resource_type(arn) == Some("event-bus") && !target.has_event_bridge_parameters() {
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
        "ScheduleExpression": schedule.expression.text(),
        "ScheduleExpressionTimezone": schedule.timezone.name(),
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
            out.set(key, value);
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

pub(super) fn get(state: &mut State, cx: &Context, input: ScheduleName) -> Result<Value, AwsError> {
    let (group, name) = (group_of(&input.group_name), input.name.as_str());
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

pub(super) fn delete(
    state: &mut State,
    cx: &Context,
    input: ScheduleName,
) -> Result<Value, AwsError> {
    let (group, name) = (group_of(&input.group_name), input.name.as_str());
    let key = (group.to_string(), name.to_string());
    state
        .scheduler
        .schedules
        .get_mut(&scope(cx))
        .and_then(|all| all.remove(&key))
        .ok_or_else(|| schedule_not_found(group, name))?;
    Ok(json!({}))
}

pub(super) fn list(
    state: &mut State,
    cx: &Context,
    input: ListSchedulesInput,
) -> Result<Value, AwsError> {
    let group = input.group_name.as_deref();
    if let Some(group) = group {
        groups::groups(state, cx)
            .get(group)
            .ok_or_else(|| not_found(format!("Schedule group {group} does not exist.")))?;
    }
    let prefix = input.name_prefix.as_deref().unwrap_or_default();
    let wanted_state = input.state.as_deref();
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
            "Target": { "Arn": s.target.arn_as_given() },
        });
        (format!("{g}/{n}"), summary)
    });
    let (page, next) = PAGER.page(items, input.next_token.as_deref(), input.max_results)?;
    let mut out = json!({ "Schedules": page });
    if let Some(token) = next {
        out.set("NextToken", json!(token));
    }
    Ok(out)
}
