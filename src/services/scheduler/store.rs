//! Scheduler's data: schedule groups and their schedules, per account and region.
//! Plain data: the operations are in the sibling modules.

use crate::engine::time::Millis;
use std::collections::BTreeMap;

/// Where resources live: (account, region).
pub type Scope = (String, String);

#[derive(Debug, Default)]
pub struct Store {
    /// Scope → group name → group. The `default` group is made when a scope is first used.
    pub groups: BTreeMap<Scope, BTreeMap<String, Group>>,
}

#[derive(Debug, Clone)]
pub struct Group {
    pub arn: String,
    pub created: Millis,
    pub modified: Millis,
    pub tags: Vec<(String, String)>,
}
