//! LocalStack's `/_aws/events/rules/<rule ARN>/trigger`: a scheduled rule fires now, its
//! `Scheduled Event` going to its targets as when its timer fires; the schedule keeps its own
//! timing. Answers once the deliveries it started have ended or scheduled their retries, as a
//! clock advance does.

use super::super::control::{error, ok};
use crate::arn::Arn;
use crate::dispatch::commands::{Applied, Command};
use crate::runtime::Runtime;
use crate::services::events::TriggerError;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;
use std::sync::Arc;

/// `rest` is `<rule ARN>/trigger`.
pub(super) async fn trigger(State(app): State<Arc<Runtime>>, Path(rest): Path<String>) -> Response {
    let Some(arn) = rest.strip_suffix("/trigger") else {
        return error(
            StatusCode::NOT_FOUND,
            "NotFound",
            "No such endpoint: a rule is triggered at /_aws/events/rules/<rule ARN>/trigger.",
        );
    };
    let is_rule =
        Arn::parse(arn).is_some_and(|a| a.service == "events" && a.resource.starts_with("rule/"));
    if !is_rule {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidArgument",
            format!(
                "{arn} is not an EventBridge rule ARN (arn:aws:events:<region>:<account>:rule/[<bus>/]<name>)."
            ),
        );
    }
    let fired = match app.run(Command::TriggerSchedule { arn: arn.into() }).await {
        Ok(Applied::Triggered(fired)) => fired,
        _ => Err(TriggerError::NoSuchRule),
    };
    match fired {
        Ok(event_id) => {
            app.idle().await;
            ok(json!({"ruleArn": arn, "eventId": event_id}))
        }
        Err(TriggerError::NoSuchRule) => error(
            StatusCode::NOT_FOUND,
            "NotFound",
            format!("Rule {arn} does not exist."),
        ),
        Err(TriggerError::NotScheduled) => error(
            StatusCode::NOT_FOUND,
            "NotFound",
            format!("Rule {arn} has no ScheduleExpression: only scheduled rules are triggered."),
        ),
        Err(TriggerError::Disabled) => error(
            StatusCode::CONFLICT,
            "RuleDisabled",
            format!("Rule {arn} is DISABLED: enable it to trigger it."),
        ),
    }
}
