//! Running schedules: each schedule has at most one timer in the engine's queue, for its next
//! run on the virtual clock (plus a seeded random delay inside a FLEXIBLE window). When it
//! fires, the target is handed its input through the engine's delivery machinery (the delivery
//! log, faults, metrics), under the target's RetryPolicy and with its DeadLetterConfig; then the
//! next run is armed, or a one-time schedule completes (and is deleted with
//! ActionAfterCompletion DELETE).

use super::store::{Run, Schedule, Scope, Target as ScheduleTarget, Timer};
use crate::arn::Arn;
use crate::body::Body;
use crate::engine::delivery::{
    Counters, DeadLetter, Delivery, Failure, GiveUp, MessageAttributeValue, Outcome, Publisher,
    SqsMessage, Target,
};
use crate::engine::time::{Millis, format_rfc3339};
use crate::services::events::retry::TargetRetry;
use crate::services::events::store::HttpParameters;
use crate::services::target::{Buses, Payload, adapt};
use crate::state::{State, Step};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn schedule_mut<'a>(
    state: &'a mut State,
    scope: &Scope,
    group: &str,
    name: &str,
) -> Option<&'a mut Schedule> {
    let key = (group.to_string(), name.to_string());
    state.scheduler.schedules.get_mut(scope)?.get_mut(&key)
}

/// Arms the next run of a schedule strictly after `after`, replacing whatever was armed: none
/// when it is disabled, past its EndDate or has no run left.
pub(super) fn arm(state: &mut State, scope: &Scope, group: &str, name: &str, after: Millis) {
    state.scheduler.next_generation += 1;
    let generation = state.scheduler.next_generation;
    let Some(s) = schedule_mut(state, scope, group, name) else {
        return;
    };
    s.generation = None;
    if !s.enabled {
        return;
    }
    let anchor = s.start.unwrap_or(s.created);
    let after = s.start.map_or(after, |start| after.max(start - 1));
    let Some(next) = s.expression.next_after(after, anchor, &s.timezone) else {
        return;
    };
    if s.end.is_some_and(|end| next > end) {
        return;
    }
    s.generation = Some(generation);
    let window_ms = s.flexible_window_minutes.map_or(0, |m| m * 60_000);
    let delay = match window_ms {
        0 => 0,
        w => (state.engine.rng.next_f64() * w as f64) as Millis,
    };
    let timer = Run {
        scope: scope.clone(),
        group: group.to_string(),
        name: name.to_string(),
        generation,
        scheduled: next,
    };
    state.schedule(next + delay, Step::Scheduler(Timer::Run(timer)));
}

/// A timer of Scheduler is due: a schedule's run, or the end of a group's deletion.
pub fn fire(state: &mut State, timer: Timer) {
    match timer {
        Timer::Run(run) => fire_run(state, run),
        Timer::GroupDeleted { scope, name } => super::groups::deleted(state, &scope, &name),
    }
}

/// A schedule's run is due: run it, then arm the next run or complete it. A timer of a
/// schedule since updated, disabled or deleted does nothing.
fn fire_run(state: &mut State, timer: Run) {
    let Some(s) = schedule_mut(state, &timer.scope, &timer.group, &timer.name) else {
        return;
    };
    if s.generation != Some(timer.generation) {
        return;
    }
    let s = s.clone();
    run(state, &timer, &s);
    if !s.expression.is_one_time() {
        arm(
            state,
            &timer.scope,
            &timer.group,
            &timer.name,
            timer.scheduled,
        );
    } else if s.delete_after_completion {
        let key = (timer.group.clone(), timer.name.clone());
        if let Some(all) = state.scheduler.schedules.get_mut(&timer.scope) {
            all.remove(&key);
        }
    } else if let Some(s) = schedule_mut(state, &timer.scope, &timer.group, &timer.name) {
        s.generation = None;
    }
}

/// The placeholder of the attempt number, filled in for each attempt ([`per_attempt`]).
const ATTEMPT: &str = "<aws.scheduler.attempt-number>";

/// The target input with the context attributes of the run filled in; the attempt number is
/// filled in by each attempt.
fn render(text: &str, s: &Schedule, scheduled: Millis, execution_id: &str) -> String {
    text.replace("<aws.scheduler.schedule-arn>", &s.arn)
        .replace("<aws.scheduler.scheduled-time>", &time(scheduled))
        .replace("<aws.scheduler.execution-id>", execution_id)
}

/// An instant as Scheduler writes it: `2027-03-14T13:00:00Z`.
fn time(at: Millis) -> String {
    let text = format_rfc3339(at);
    format!("{}Z", &text[..19])
}

/// What attempt `n` of a run hands its target: the input with `<aws.scheduler.attempt-number>`
/// (1 for the first attempt, 2 for the first retry ...).
pub(crate) fn per_attempt(first: &Target, n: u32) -> Target {
    let fill = |text: &mut String| {
        if text.contains(ATTEMPT) {
            *text = text.replace(ATTEMPT, &n.to_string());
        }
    };
    let mut target = first.clone();
    match &mut target {
        Target::Sqs { message, .. } => fill_body(&mut message.body, n),
        Target::Http { body, .. } | Target::Sns { body, .. } | Target::Outbox { body, .. } => {
            fill(body)
        }
        Target::Bus { event, .. } => fill(event),
        Target::Invoke { payload, .. } | Target::Lambda { payload, .. } => fill(payload),
        Target::Call { input, .. } => fill(input),
        Target::SqsBatch { entries, .. } => {
            for entry in entries {
                fill_body(&mut entry.message.body, n);
            }
        }
    }
    target
}

/// A queue message's [`per_attempt`] input (a schedule's input is text, never a notification).
fn fill_body(body: &mut Body, n: u32) {
    if let Body::Text(text) = body
        && text.contains(ATTEMPT)
    {
        *body = Body::from(text.replace(ATTEMPT, &n.to_string()));
    }
}

/// Starts the delivery of one run of `s` to its target.
fn run(state: &mut State, timer: &Run, s: &Schedule) {
    let execution_id = state.engine.rng.uuid();
    let target = &s.target;
    let arn = target.arn().to_string();
    let input = target.input.as_deref().unwrap_or("{}");
    let body = render(input, s, timer.scheduled, &execution_id);
    let publisher = Publisher {
        account: timer.scope.0.clone(),
        host: s.host.clone(),
    };
    let group_id = (target.sqs_parameters.as_ref()).and_then(|p| p.message_group_id.clone());
    let mut doomed = None;
    let event = if Arn::service_of(&arn) == "events" {
        match event_of(
            target,
            &body,
            &timer.scope,
            &s.arn,
            timer.scheduled,
            &execution_id,
        ) {
            Some(event) => event,
            None => {
                doomed = Some(Failure::InvalidJson);
                String::new()
            }
        }
    } else {
        String::new()
    };
    let first_attempt = body.replace(ATTEMPT, "1");
    if Arn::service_of(&arn) == "lambda" && serde_json::from_str::<Value>(&first_attempt).is_err() {
        doomed = Some(Failure::InvalidJson);
    }
    let payload = Payload {
        event,
        dedup_id: group_id.as_ref().map(|_| execution_id.clone()),
        group_id,
        ..Payload::of(body.clone())
    };
    let buses = Buses {
        classic: true,
        custom: true,
    };
    let adapted = if super::universal::is_universal(&arn) {
        super::universal::adapt(&arn, &body, publisher, &timer.scope.1)
    } else {
        adapt(
            state,
            &arn,
            &publisher,
            payload,
            buses,
            &HttpParameters::default(),
        )
    };
    doomed = doomed.or(adapted.unusable.clone());
    let dead_letter = (target.dead_letter_config.as_ref())
        .and_then(|d| d.arn.as_deref())
        .map(|queue| dead_letter(queue, s, &arn, &body, &execution_id, timer.scheduled));
    let is_http = adapted.is_http();
    let mut delivery = Delivery::new(
        "scheduler",
        s.arn.clone(),
        adapted.protocol,
        execution_id,
        adapted.target,
        retry_policy(target),
        dead_letter,
    )
    .counted(Counters {
        namespace: "AWS/Scheduler",
        resource: s.arn.clone(),
        attempted: Some("InvocationAttemptCount"),
        failed: Some("TargetErrorCount"),
        every_failure: true,
        dead_lettered: Some("InvocationsSentToDeadLetterCount"),
        dlq_failed: Some("InvocationsFailedToBeSentToDeadLetterCount"),
        dropped: Some("InvocationDroppedCount"),
        ..Counters::default()
    });
    if is_http {
        delivery = delivery.also_known_as(arn);
    }
    if let Some(failure) = doomed {
        delivery = delivery.doomed(Outcome::Permanent(failure));
    }
    state.deliver(delivery.rendered_per_attempt(crate::state::Render::Scheduler));
}

/// The event a PutEvents target puts on its bus: EventBridgeParameters' DetailType and Source,
/// the input as its detail, the schedule as its resource. The input goes in as written, so that
/// an attempt number it holds outside a string is filled in by each attempt as well.
fn event_of(
    target: &ScheduleTarget,
    body: &str,
    scope: &Scope,
    schedule_arn: &str,
    scheduled: Millis,
    id: &str,
) -> Option<String> {
    serde_json::from_str::<Value>(&body.replace(ATTEMPT, "1")).ok()?;
    const DETAIL: &str = "<aws.scheduler.detail>";
    let params = target.event_bridge_parameters.as_ref();
    let event = json!({
        "version": "0",
        "id": id,
        "detail-type": params.map(|p| p.detail_type_as_given()).unwrap_or_default(),
        "source": params.map(|p| p.source_as_given()).unwrap_or_default(),
        "account": scope.0,
        "time": time(scheduled),
        "region": scope.1,
        "resources": [schedule_arn],
        "detail": DETAIL,
    });
    Some(
        event
            .to_string()
            .replace(&format!("\"{DETAIL}\""), body.trim()),
    )
}

/// The target's RetryPolicy, Scheduler's defaults (185 retries, 24 hours) where it sets none.
fn retry_policy(target: &ScheduleTarget) -> TargetRetry {
    let defaults = TargetRetry::default();
    let policy = target.retry_policy.as_ref();
    let attempts = policy.and_then(|p| p.maximum_retry_attempts);
    let age = policy.and_then(|p| p.maximum_event_age_in_seconds);
    TargetRetry {
        max_retries: attempts.map_or(defaults.max_retries, |n| n as u32),
        max_age_ms: age.map_or(defaults.max_age_ms, |s| s * 1000),
        ..defaults
    }
}

/// The dead letter of a run: the target input, with the schedule's and target's ARNs, the
/// execution id and the scheduled time as attributes; how the delivery ended is added when it
/// is written.
fn dead_letter(
    queue: &str,
    s: &Schedule,
    target: &str,
    body: &str,
    execution: &str,
    scheduled: Millis,
) -> DeadLetter<crate::state::Finish> {
    let attributes = BTreeMap::from([
        (
            "SCHEDULE_ARN".to_string(),
            MessageAttributeValue::string(&s.arn),
        ),
        (
            "TARGET_ARN".to_string(),
            MessageAttributeValue::string(target),
        ),
        (
            "EXECUTION_ID".to_string(),
            MessageAttributeValue::string(execution),
        ),
        (
            "SCHEDULED_TIME".to_string(),
            MessageAttributeValue::string(&time(scheduled)),
        ),
    ]);
    DeadLetter {
        queue_arn: queue.to_string(),
        message: SqsMessage {
            body: body.into(),
            attributes,
            group_id: None,
            dedup_id: None,
            trace_header: None,
        },
        finish: Some(crate::state::Finish::Scheduler),
        bus: None,
    }
}

/// A dead letter's body is the input of the last attempt: the attempt number of the last
/// attempt filled in. The rest of the finish (ERROR_CODE, ERROR_MESSAGE, ...) is EventBridge's:
/// [`finish_dead_letter`](crate::services::events::dead_letter::finish_dead_letter).
pub(crate) fn last_attempt(message: &mut SqsMessage, how: &GiveUp) {
    fill_body(&mut message.body, how.attempts.max(1));
}
