//! The state of EventBridge Pipes: each pipe with its source, filter, enrichment and target
//! settings, its state, the batch it is moving and the timers it schedules. Plain data: no
//! operation here. It must not import any operation, so the state can hold it.

use crate::engine::time::Millis;
use crate::state::sqs::store::Held;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The pipes of every account and region.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Store {
    /// Pipe ARN → pipe.
    pub pipes: BTreeMap<String, Pipe>,
    /// The last token handed to a batch under way.
    pub tokens: u64,
}

/// Something a pipe must do at a virtual instant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Timer {
    /// Finish a change of state (CREATING, STARTING, STOPPING, UPDATING, DELETING) begun under
    /// `token`; a later change makes it stale.
    Settle { pipe: String, token: u64 },
    /// Look at the source for the next batch.
    Poll(String),
}

/// What part of a batch's way a delivery is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Stage {
    /// The batch at the enrichment.
    Enrichment,
    /// A target delivery that stands for the whole batch (a Lambda function's, or any once the
    /// enrichment changed the number of items).
    Whole,
    /// The target delivery of item `n`, which stands for message `n`.
    Item(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PipeState {
    Running,
    Stopped,
    Creating,
    Updating,
    Deleting,
    Starting,
    Stopping,
    CreateFailed,
    UpdateFailed,
    StartFailed,
    StopFailed,
}

impl PipeState {
    pub fn name(self) -> &'static str {
        match self {
            PipeState::Running => "RUNNING",
            PipeState::Stopped => "STOPPED",
            PipeState::Creating => "CREATING",
            PipeState::Updating => "UPDATING",
            PipeState::Deleting => "DELETING",
            PipeState::Starting => "STARTING",
            PipeState::Stopping => "STOPPING",
            PipeState::CreateFailed => "CREATE_FAILED",
            PipeState::UpdateFailed => "UPDATE_FAILED",
            PipeState::StartFailed => "START_FAILED",
            PipeState::StopFailed => "STOP_FAILED",
        }
    }

    /// A state on the way somewhere (a change of state is under way: calls that change the
    /// pipe conflict with it).
    pub fn in_transition(self) -> bool {
        matches!(
            self,
            PipeState::Creating
                | PipeState::Updating
                | PipeState::Deleting
                | PipeState::Starting
                | PipeState::Stopping
        )
    }
}

/// A filter of FilterCriteria: the pattern as given, and parsed.
pub use crate::state::pattern::TextPattern as Filter;

/// SourceParameters.SqsQueueParameters, defaults filled in.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SqsSource {
    pub batch_size: u32,
    pub window_s: u32,
}

impl Default for SqsSource {
    fn default() -> Self {
        SqsSource {
            batch_size: 10,
            window_s: 0,
        }
    }
}

/// What a pipe is configured to do: everything CreatePipe sets and UpdatePipe may change.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Settings {
    pub description: Option<String>,
    pub desired: PipeState,
    pub role_arn: String,
    pub source_parameters: Value,
    pub sqs: SqsSource,
    pub filters: Vec<Filter>,
    pub enrichment: Option<String>,
    pub enrichment_parameters: Value,
    pub target: String,
    pub target_parameters: Value,
    pub log_configuration: Option<Value>,
    pub kms_key: Option<String>,
}

/// A batch on its way from the source to the target.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Batch {
    /// Names this batch's deliveries, so a late end of a dropped one is ignored.
    pub token: u64,
    /// The source messages, held invisible for the queue's visibility timeout.
    pub messages: Vec<Held>,
    /// Deliveries of the batch not ended yet.
    pub pending: usize,
    /// The messages (by index) that failed: left to come back after their visibility timeout.
    pub failed: BTreeSet<usize>,
    /// Every message failed (the enrichment failed, or a delivery that stands for the batch).
    pub all_failed: bool,
    /// While at the enrichment: the items it was sent (what an enrichment without an answer
    /// passes on).
    pub items: Vec<Value>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Pipe {
    pub arn: String,
    pub name: String,
    pub account: String,
    pub region: String,
    /// The host clients reached the emulator at (for SNS targets' URLs).
    pub host: String,
    pub source: String,
    pub settings: Settings,
    pub tags: BTreeMap<String, String>,
    pub created_at: Millis,
    pub modified_at: Millis,
    pub state: PipeState,
    pub reason: Option<String>,
    /// The change of state under way, if any: its token.
    pub settling: Option<u64>,
    pub batch: Option<Batch>,
    /// When a look at the source is due, if one is scheduled.
    pub poll_at: Option<Millis>,
    /// When the batching window opened: the first look that found messages but too few to fill a
    /// batch.
    pub window_opened_at: Option<Millis>,
    /// Batches taken at one instant: (instant, count), to stop a target that feeds the source
    /// from looping at one instant.
    pub batches_at: (Millis, u32),
}
