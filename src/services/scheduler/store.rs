//! Scheduler's data: schedule groups and their schedules, per account and region.
//! Plain data: the operations are in the sibling modules.

use crate::engine::time::Millis;
use serde_json::Value;
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
    pub expression: String,
    pub timezone: Option<String>,
    pub start: Option<Millis>,
    pub end: Option<Millis>,
    pub enabled: bool,
    pub description: Option<String>,
    pub kms_key_arn: Option<String>,
    /// `OFF`, or `FLEXIBLE` with its window in minutes.
    pub flexible_window_minutes: Option<i64>,
    /// `DELETE`: a one-time schedule is deleted once it ran.
    pub delete_after_completion: bool,
    /// The target as given (the model's JSON form), answered back by GetSchedule.
    pub target: Value,
    pub created: Millis,
    pub modified: Millis,
    /// The generation of the timer armed for it, if any.
    pub generation: Option<u64>,
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
