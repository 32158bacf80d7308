//! Scheduler's operation inputs, typed, as the model names their members. The front-end binds
//! URI labels, the query string and the body into one input in the model's JSON form, which
//! these read leniently (`services::lenient`): a member of another JSON type reads as absent, so
//! the checks of the operations answer for it as they word it. Plain data: no operation here.

use super::store::Target;
use crate::services::lenient::{shapes, strings, tags};

shapes! {
    /// What the idempotency of Create/Update/DeleteSchedule and Create/DeleteScheduleGroup reads.
    pub struct Idempotent {
        pub client_token: Option<String>,
    }

    /// CreateSchedule's and UpdateSchedule's input (the two shapes have the same members).
    pub struct ScheduleInput {
        pub name: String,
        pub group_name: Option<String>,
        pub schedule_expression: String,
        pub schedule_expression_timezone: Option<String>,
        /// Epoch seconds, as restJson1 bodies carry timestamps.
        pub start_date: Option<f64>,
        pub end_date: Option<f64>,
        pub state: Option<String>,
        pub action_after_completion: Option<String>,
        pub flexible_time_window: FlexibleTimeWindow,
        /// `None` when the target is not a JSON object (the front-ends refuse that; a universal
        /// target's input is not checked that deep).
        pub target: Option<Target>,
        pub description: Option<String>,
        pub kms_key_arn: Option<String>,
    }

    pub struct FlexibleTimeWindow {
        pub mode: Option<String>,
        pub maximum_window_in_minutes: Option<i64>,
    }

    /// GetSchedule's and DeleteSchedule's input.
    pub struct ScheduleName {
        pub name: String,
        pub group_name: Option<String>,
    }

    pub struct ListSchedulesInput {
        pub group_name: Option<String>,
        pub name_prefix: Option<String>,
        pub state: Option<String>,
        pub next_token: Option<String>,
        pub max_results: Option<i64>,
    }

    /// CreateScheduleGroup's input.
    pub struct CreateGroupInput {
        pub name: String,
        pub tags: Vec<(String, String)> = "tags",
    }

    /// GetScheduleGroup's and DeleteScheduleGroup's input.
    pub struct GroupName {
        pub name: String,
    }

    pub struct ListGroupsInput {
        pub name_prefix: Option<String>,
        pub next_token: Option<String>,
        pub max_results: Option<i64>,
    }

    pub struct TagResourceInput {
        pub resource_arn: String,
        pub tags: Vec<(String, String)> = "tags",
    }

    pub struct UntagResourceInput {
        pub resource_arn: String,
        pub tag_keys: Vec<String> = "strings",
    }

    /// ListTagsForResource's input.
    pub struct ResourceArn {
        pub resource_arn: String,
    }
}
