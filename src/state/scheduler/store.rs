//! Scheduler's data: schedule groups and their schedules, per account and region. A schedule
//! holds its expression, zone and target parsed and typed; each is written in state snapshots
//! in the form the model gives it (the expression's text, the target's JSON object), so that
//! snapshots of earlier builds read back.
//! Plain data: the operations are in the sibling modules.

use super::expression::{Expression, Zone};
use crate::engine::time::Millis;
use crate::state::lenient::take;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Where resources live: (account, region).
pub type Scope = (String, String);

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Store {
    /// Scope → group name → group. The `default` group is made when a scope is first used.
    #[serde(with = "crate::pairs")]
    pub groups: BTreeMap<Scope, BTreeMap<String, Group>>,
    /// Scope → (group, name) → schedule.
    #[serde(with = "crate::pairs::nested")]
    pub schedules: BTreeMap<Scope, BTreeMap<(String, String), Schedule>>,
    /// Makes every armed timer unique, so a timer of a schedule since updated or deleted is
    /// recognised as stale when it fires.
    pub next_generation: u64,
    /// (scope, operation, ClientToken) → when, with what input and with what answer the request
    /// that used it first was carried out, so that a repeat is answered the same without being
    /// carried out again.
    #[serde(with = "crate::pairs")]
    pub tokens: BTreeMap<(Scope, String, String), (Millis, Value, Value)>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Group {
    pub arn: String,
    pub created: Millis,
    pub modified: Millis,
    pub tags: Vec<(String, String)>,
    /// DeleteScheduleGroup was called: the group is `DELETING` until its timer removes it and
    /// its schedules.
    pub deleting: bool,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Schedule {
    pub arn: String,
    /// The host clients reached the emulator at when they made it (URLs in what it delivers).
    pub host: String,
    pub expression: Expression,
    /// ScheduleExpressionTimezone (UTC when none was given).
    pub timezone: Zone,
    pub start: Option<Millis>,
    pub end: Option<Millis>,
    pub enabled: bool,
    pub description: Option<String>,
    pub kms_key_arn: Option<String>,
    /// `OFF`, or `FLEXIBLE` with its window in minutes.
    pub flexible_window_minutes: Option<i64>,
    /// `DELETE`: a one-time schedule is deleted once it ran.
    pub delete_after_completion: bool,
    /// The target, answered back by GetSchedule as it was given.
    pub target: Target,
    pub created: Millis,
    pub modified: Millis,
    /// The generation of the timer armed for it, if any.
    pub generation: Option<u64>,
}

/// A schedule's target, as the model has it. Every member is optional here, as the model's
/// JSON form may leave any out (the front-ends refuse a target without its Arn or RoleArn;
/// Scheduler's own universal targets do not check nested members). Members switchyard does not
/// read (EcsParameters, KinesisParameters, SageMakerPipelineParameters, ...) are kept in
/// `other` as given, and so is a member given with a JSON type the model does not have: it reads
/// as absent, as it always has, and GetSchedule still echoes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", from = "Map<String, Value>")]
pub struct Target {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dead_letter_config: Option<DeadLetterConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_bridge_parameters: Option<EventBridgeParameters>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_policy: Option<RetryPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role_arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sqs_parameters: Option<SqsParameters>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Target {
    /// The target's ARN, `""` when it has none.
    pub fn arn(&self) -> &str {
        self.arn.as_deref().unwrap_or_default()
    }

    /// The Arn member as given (ListSchedules' summary echoes it): `null` when there is none.
    pub fn arn_as_given(&self) -> Value {
        as_given(&self.arn, &self.other, "Arn")
    }

    /// Whether EventBridgeParameters was given, in any form.
    pub fn has_event_bridge_parameters(&self) -> bool {
        self.event_bridge_parameters.is_some() || self.other.contains_key("EventBridgeParameters")
    }
}

impl From<Map<String, Value>> for Target {
    fn from(mut given: Map<String, Value>) -> Target {
        Target {
            arn: take(&mut given, "Arn"),
            dead_letter_config: take(&mut given, "DeadLetterConfig"),
            event_bridge_parameters: take(&mut given, "EventBridgeParameters"),
            input: take(&mut given, "Input"),
            retry_policy: take(&mut given, "RetryPolicy"),
            role_arn: take(&mut given, "RoleArn"),
            sqs_parameters: take(&mut given, "SqsParameters"),
            other: given,
        }
    }
}

/// A member as given: the typed value, else what `other` keeps under `name`, else `null`.
fn as_given<T: Serialize>(typed: &Option<T>, other: &Map<String, Value>, name: &str) -> Value {
    match typed {
        Some(typed) => serde_json::to_value(typed).unwrap_or_default(),
        None => other.get(name).cloned().unwrap_or_default(),
    }
}

/// How often and for how long a run is retried.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", from = "Map<String, Value>")]
pub struct RetryPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum_event_age_in_seconds: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum_retry_attempts: Option<i64>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl From<Map<String, Value>> for RetryPolicy {
    fn from(mut given: Map<String, Value>) -> RetryPolicy {
        RetryPolicy {
            maximum_event_age_in_seconds: take(&mut given, "MaximumEventAgeInSeconds"),
            maximum_retry_attempts: take(&mut given, "MaximumRetryAttempts"),
            other: given,
        }
    }
}

/// The SQS queue a run that could not be delivered goes to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", from = "Map<String, Value>")]
pub struct DeadLetterConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arn: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl From<Map<String, Value>> for DeadLetterConfig {
    fn from(mut given: Map<String, Value>) -> DeadLetterConfig {
        DeadLetterConfig {
            arn: take(&mut given, "Arn"),
            other: given,
        }
    }
}

/// A FIFO queue target's message group.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", from = "Map<String, Value>")]
pub struct SqsParameters {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_group_id: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl From<Map<String, Value>> for SqsParameters {
    fn from(mut given: Map<String, Value>) -> SqsParameters {
        SqsParameters {
            message_group_id: take(&mut given, "MessageGroupId"),
            other: given,
        }
    }
}

/// The DetailType and Source of the event a PutEvents target puts on its bus.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", from = "Map<String, Value>")]
pub struct EventBridgeParameters {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl EventBridgeParameters {
    /// DetailType as given (the event carries it as it is), `null` when there is none.
    pub fn detail_type_as_given(&self) -> Value {
        as_given(&self.detail_type, &self.other, "DetailType")
    }

    /// Source as given, `null` when there is none.
    pub fn source_as_given(&self) -> Value {
        as_given(&self.source, &self.other, "Source")
    }
}

impl From<Map<String, Value>> for EventBridgeParameters {
    fn from(mut given: Map<String, Value>) -> EventBridgeParameters {
        EventBridgeParameters {
            detail_type: take(&mut given, "DetailType"),
            source: take(&mut given, "Source"),
            other: given,
        }
    }
}

/// Scheduler's timers in the engine's queue.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Timer {
    /// A schedule's next run.
    Run(Run),
    /// A group in the DELETING state is gone, its schedules with it.
    GroupDeleted { scope: Scope, name: String },
}

/// A schedule's next run: the schedule it is for (and the generation of that arming), and
/// the time it is due by its expression (before any flexible delay).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Run {
    pub scope: Scope,
    pub group: String,
    pub name: String,
    pub generation: u64,
    pub scheduled: Millis,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A schedule as the builds before typed targets wrote it in snapshots: the expression and
    /// zone as text, the target as given (with a member of the wrong type and one switchyard
    /// does not read).
    fn written_before() -> Value {
        json!({
            "arn": "arn:aws:scheduler:us-east-1:000000000000:schedule/default/s",
            "host": "localhost:4566",
            "expression": "cron(0 9 * * ? *)",
            "timezone": "Europe/Paris",
            "start": null,
            "end": 1_900_000_000_000_i64,
            "enabled": true,
            "description": null,
            "kms_key_arn": null,
            "flexible_window_minutes": 15,
            "delete_after_completion": false,
            "target": {
                "Arn": "arn:aws:sqs:us-east-1:000000000000:q",
                "RoleArn": "arn:aws:iam::000000000000:role/r",
                "Input": "{\"n\": 1}",
                "RetryPolicy": {"MaximumRetryAttempts": "3", "MaximumEventAgeInSeconds": 60},
                "SqsParameters": {"MessageGroupId": "g"},
                "KinesisParameters": {"PartitionKey": "k"},
            },
            "created": 1,
            "modified": 2,
            "generation": 7,
        })
    }

    #[test]
    fn a_schedule_reads_back_from_and_writes_the_form_snapshots_have() {
        let schedule: Schedule = serde_json::from_value(written_before()).unwrap();
        assert_eq!(schedule.expression.text(), "cron(0 9 * * ? *)");
        assert_eq!(schedule.timezone.name(), "Europe/Paris");
        let target = &schedule.target;
        assert_eq!(target.arn(), "arn:aws:sqs:us-east-1:000000000000:q");
        assert_eq!(target.input.as_deref(), Some("{\"n\": 1}"));
        let retry = target.retry_policy.as_ref().unwrap();
        // A member of the wrong type reads as absent, and is still written back.
        assert_eq!(retry.maximum_retry_attempts, None);
        assert_eq!(retry.maximum_event_age_in_seconds, Some(60));
        assert_eq!(
            target.sqs_parameters.as_ref().unwrap().message_group_id,
            Some("g".into())
        );
        assert_eq!(serde_json::to_value(&schedule).unwrap(), written_before());
    }

    #[test]
    fn members_of_the_wrong_type_are_kept_as_given() {
        let given = json!({
            "Arn": 5,
            "Input": null,
            "DeadLetterConfig": "queue",
            "EventBridgeParameters": {"DetailType": 1, "Source": "s"},
        });
        let target: Target = serde_json::from_value(given.clone()).unwrap();
        assert_eq!(target.arn(), "");
        assert_eq!(target.arn_as_given(), json!(5));
        assert_eq!(target.input, None);
        assert_eq!(target.dead_letter_config, None);
        let params = target.event_bridge_parameters.as_ref().unwrap();
        assert_eq!(params.detail_type_as_given(), json!(1));
        assert_eq!(params.source_as_given(), json!("s"));
        assert!(target.has_event_bridge_parameters());
        assert_eq!(serde_json::to_value(&target).unwrap(), given);
    }
}
