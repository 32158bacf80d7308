//! SQS state: queues per (account, region, name) and their messages. Visibility, delay,
//! retention and deduplication are timestamps compared with `now` when read; only move tasks
//! need timers. Here the data; `message` a message's compact layout, `slots` where a queue keeps
//! its messages, `depth` the counts it keeps, `queue` what a queue does with its messages, `tests`
//! its tests.
//! Plain data: the store imports no SQS operation, the state or the engine's scheduler.

use super::attributes::{DedupScope, QueueAttributes};
use super::errors::SqsError;
use super::shapes::MessageAttributeValue;
use crate::arn::Arn;
use crate::engine::time::Millis;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// How long a FIFO deduplication id and a ReceiveRequestAttemptId are remembered.
pub const DEDUP_INTERVAL_MS: Millis = 5 * 60 * 1000;
/// The longest a message may stay invisible after the receive that hid it.
pub const MAX_VISIBILITY_MS: Millis = 43_200 * 1000;
/// In-flight messages a standard queue holds before ReceiveMessage answers OverLimit.
pub const MAX_IN_FLIGHT: usize = 120_000;
/// The `visible_at` of a message an event stream holds while it delivers it: invisible until the
/// stream deletes or releases it, whatever the visibility timeout.
pub const HELD: Millis = Millis::MAX / 4;

#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct QueueKey {
    pub account: String,
    pub region: String,
    pub name: String,
}

impl QueueKey {
    pub fn arn(&self) -> String {
        Arn::new("sqs", &self.region, &self.account, &self.name).text()
    }

    /// `arn:<partition>:sqs:<region>:<account>:<name>` → its key; the region, account and name
    /// are not empty and the name holds no `:`.
    pub fn from_arn(arn: &str) -> Option<QueueKey> {
        let arn = Arn::parse(arn)?;
        let ok = arn.service == "sqs"
            && !arn.region.is_empty()
            && !arn.account.is_empty()
            && !arn.resource.is_empty()
            && !arn.resource.contains(':');
        ok.then(|| QueueKey {
            account: arn.account.into(),
            region: arn.region.into(),
            name: arn.resource.into(),
        })
    }
}

/// A message as sent, before the queue takes it.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub body: Body,
    /// Empty for a notification signed when first read, whose MD5 is known only then.
    pub md5_of_body: String,
    pub attributes: BTreeMap<String, MessageAttributeValue>,
    pub md5_of_attributes: Option<String>,
    pub trace_header: Option<String>,
    pub md5_of_system_attributes: Option<String>,
    pub sender_id: Arc<str>,
    pub group_id: Option<String>,
    /// FIFO: the explicit or content-based deduplication id.
    pub dedup_id: Option<String>,
    pub delay_ms: Millis,
}

/// What SendMessage answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Sent {
    pub message_id: String,
    pub sequence_number: Option<u128>,
    /// A duplicate inside the deduplication interval: accepted, not enqueued.
    pub duplicate: bool,
}

/// A send remembered for deduplication, under its deduplication id.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Dedup {
    group: Option<String>,
    until: Millis,
    message_id: String,
    sequence_number: Option<u128>,
    /// The DeduplicationScope it was sent under, which decides for it until `until` whatever
    /// the queue's scope becomes (`Some(true)`: messageGroup). `None` in state written before
    /// the scope was kept: the queue's scope decides.
    #[serde(default)]
    by_group: Option<bool>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Attempt {
    until: Millis,
    /// (sequence in queue, receipt nonce, visible_at after that receive)
    taken: Vec<(u64, u64, Millis)>,
}

/// Messages handed out by one receive, with the sequence numbers that name them in handles.
#[derive(Debug, Default)]
pub struct Received {
    pub messages: Vec<(u64, Message)>,
    /// Messages past the redrive policy's maxReceiveCount, to go to the dead-letter queue.
    pub dead_lettered: Vec<Message>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Queue {
    pub key: QueueKey,
    pub arn: String,
    pub created_at: Millis,
    pub modified_at: Millis,
    pub attributes: QueueAttributes,
    pub tags: BTreeMap<String, String>,
    pub purged_at: Option<Millis>,
    messages: Slots,
    /// The body bytes of the messages held (what a purge frees).
    body_bytes: usize,
    depth: Depth,
    next_seq: u64,
    next_sequence_number: u128,
    /// Counts the changes of messages' `visible_at` (FIFO messages keep theirs).
    next_stamp: u64,
    #[serde(with = "crate::pairs")]
    dedup: HashMap<String, Vec<Dedup>>,
    #[serde(with = "crate::pairs")]
    attempts: HashMap<String, Attempt>,
    /// The sender id of the last message sent, shared by the next ones of the same sender.
    last_sender: Option<Arc<str>>,
}

/// Why a receipt handle was refused (ChangeMessageVisibility, FIFO DeleteMessage).
#[derive(Debug, PartialEq)]
pub enum Visibility {
    Expired,
    NotInFlight,
    BeyondLimit,
    /// The message was deleted (or moved) since.
    Gone,
}

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Store {
    #[serde(with = "crate::pairs")]
    pub queues: BTreeMap<QueueKey, Queue>,
    /// When queues were deleted: the name is not free again for 60 s.
    #[serde(with = "crate::pairs")]
    pub deleted_at: HashMap<QueueKey, Millis>,
    pub tasks: Vec<MoveTask>,
}

impl Store {
    pub fn reset(&mut self) {
        self.queues.clear();
        self.deleted_at.clear();
        self.tasks.clear();
    }

    pub fn by_arn(&self, arn: &str) -> Option<&Queue> {
        self.queues.get(&QueueKey::from_arn(arn)?)
    }

    pub fn by_arn_mut(&mut self, arn: &str) -> Option<&mut Queue> {
        self.queues.get_mut(&QueueKey::from_arn(arn)?)
    }
}

/// A message held by its consumer, named by its place in the queue and the receive's nonce.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Held {
    pub seq: u64,
    pub nonce: u64,
    pub message: Message,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TaskStatus {
    Running,
    Completed,
    Cancelled,
    Failed,
}

impl TaskStatus {
    pub fn name(self) -> &'static str {
        match self {
            TaskStatus::Running => "RUNNING",
            TaskStatus::Completed => "COMPLETED",
            TaskStatus::Cancelled => "CANCELLED",
            TaskStatus::Failed => "FAILED",
        }
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct MoveTask {
    pub id: u64,
    pub handle: String,
    pub source_arn: String,
    pub destination_arn: Option<String>,
    pub rate: Option<i64>,
    pub status: TaskStatus,
    pub moved: u64,
    pub to_move: u64,
    pub started_at: Millis,
    pub failure: Option<String>,
}

mod depth;
mod message;
mod peek;
mod queue;
mod slots;

use depth::Depth;
pub use message::{Body, Message, MessageId};
use slots::Slots;
#[cfg(test)]
mod depth_tests;
#[cfg(test)]
mod tests;
