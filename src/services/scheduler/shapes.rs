//! Scheduler's operation inputs, typed, as the model names their members. The front-end binds
//! URI labels, the query string and the body into one input in the model's JSON form, which
//! these read leniently (`services::lenient`): a member of another JSON type reads as absent, so
//! the checks of the operations answer for it as they word it. Plain data: no operation here.

use super::store::Target;
use crate::services::lenient::{lenient, strings, tags};
use serde::Deserialize;

/// What the idempotency of Create/Update/DeleteSchedule and Create/DeleteScheduleGroup reads.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Idempotent {
    #[serde(default, deserialize_with = "lenient")]
    pub client_token: Option<String>,
}

/// CreateSchedule's and UpdateSchedule's input (the two shapes have the same members).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ScheduleInput {
    #[serde(default, deserialize_with = "lenient")]
    pub name: String,
    #[serde(default, deserialize_with = "lenient")]
    pub group_name: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub schedule_expression: String,
    #[serde(default, deserialize_with = "lenient")]
    pub schedule_expression_timezone: Option<String>,
    /// Epoch seconds, as restJson1 bodies carry timestamps.
    #[serde(default, deserialize_with = "lenient")]
    pub start_date: Option<f64>,
    #[serde(default, deserialize_with = "lenient")]
    pub end_date: Option<f64>,
    #[serde(default, deserialize_with = "lenient")]
    pub state: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub action_after_completion: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub flexible_time_window: FlexibleTimeWindow,
    /// `None` when the target is not a JSON object (the front-ends refuse that; a universal
    /// target's input is not checked that deep).
    #[serde(default, deserialize_with = "lenient")]
    pub target: Option<Target>,
    #[serde(default, deserialize_with = "lenient")]
    pub description: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub kms_key_arn: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct FlexibleTimeWindow {
    #[serde(default, deserialize_with = "lenient")]
    pub mode: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub maximum_window_in_minutes: Option<i64>,
}

/// GetSchedule's and DeleteSchedule's input.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ScheduleName {
    #[serde(default, deserialize_with = "lenient")]
    pub name: String,
    #[serde(default, deserialize_with = "lenient")]
    pub group_name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListSchedulesInput {
    #[serde(default, deserialize_with = "lenient")]
    pub group_name: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub name_prefix: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub state: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub next_token: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub max_results: Option<i64>,
}

/// CreateScheduleGroup's input.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateGroupInput {
    #[serde(default, deserialize_with = "lenient")]
    pub name: String,
    #[serde(default, deserialize_with = "tags")]
    pub tags: Vec<(String, String)>,
}

/// GetScheduleGroup's and DeleteScheduleGroup's input.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GroupName {
    #[serde(default, deserialize_with = "lenient")]
    pub name: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListGroupsInput {
    #[serde(default, deserialize_with = "lenient")]
    pub name_prefix: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub next_token: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub max_results: Option<i64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TagResourceInput {
    #[serde(default, deserialize_with = "lenient")]
    pub resource_arn: String,
    #[serde(default, deserialize_with = "tags")]
    pub tags: Vec<(String, String)>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UntagResourceInput {
    #[serde(default, deserialize_with = "lenient")]
    pub resource_arn: String,
    #[serde(default, deserialize_with = "strings")]
    pub tag_keys: Vec<String>,
}

/// ListTagsForResource's input.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ResourceArn {
    #[serde(default, deserialize_with = "lenient")]
    pub resource_arn: String,
}
