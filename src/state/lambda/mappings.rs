//! Lambda's event source mappings for SQS queues as the state keeps them: each mapping's
//! configuration, its state, and the batches it has under way. Plain data: no operation here.

use crate::engine::time::Millis;
use crate::state::pattern::TextPattern;
use crate::state::sqs::store::Held;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A mapping's state, as AWS names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MappingState {
    Creating,
    Enabling,
    Enabled,
    Disabling,
    Disabled,
    Updating,
    Deleting,
}

impl MappingState {
    pub fn name(self) -> &'static str {
        match self {
            MappingState::Creating => "Creating",
            MappingState::Enabling => "Enabling",
            MappingState::Enabled => "Enabled",
            MappingState::Disabling => "Disabling",
            MappingState::Disabled => "Disabled",
            MappingState::Updating => "Updating",
            MappingState::Deleting => "Deleting",
        }
    }
}

/// Something a mapping must do at a virtual instant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum MappingTimer {
    /// Finish a change of state begun under `token`; a later change makes it stale.
    Settle { uuid: String, token: u64 },
    /// Look at the queue for the next batch.
    Poll(String),
}

/// A batch on its way to the function.
#[derive(Debug, Serialize, Deserialize)]
pub struct Batch {
    /// The messages, held invisible for the queue's visibility timeout.
    pub messages: Vec<Held>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Mapping {
    pub uuid: String,
    pub arn: String,
    pub account: String,
    pub region: String,
    /// The host clients reached the emulator at.
    pub host: String,
    /// The queue's ARN.
    pub source: String,
    /// The function's ARN, with a version or alias when one was named.
    pub function: String,
    pub batch_size: u32,
    pub window_s: u32,
    pub filters: Vec<TextPattern>,
    pub report_batch_item_failures: bool,
    pub max_concurrency: Option<u32>,
    /// Enabled as asked (where a change of state goes).
    pub enabled: bool,
    pub state: MappingState,
    pub state_reason: String,
    pub last_modified: Millis,
    pub last_result: String,
    pub tags: BTreeMap<String, String>,
    /// The change of state under way, if any: its token.
    pub settling: Option<u64>,
    /// Batches under way by token.
    pub batches: BTreeMap<u64, Batch>,
    /// When a look at the queue is due, if one is scheduled.
    pub poll_at: Option<Millis>,
    /// When the batching window opened.
    pub window_opened_at: Option<Millis>,
    /// Batches taken at one instant: (instant, count), to stop a function that feeds its own
    /// queue from looping at one instant.
    pub batches_at: (Millis, u32),
}
