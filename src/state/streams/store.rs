//! The state of event streams: each stream with its source, target, run options, state and
//! the event it is delivering, and the timers it schedules. Plain data: no operation here.
//! It must not import any operation, so the state can hold it.

use super::retry::Strategy;
use crate::engine::delivery::DeliveryId;
use crate::engine::time::Millis;
use crate::state::bus::store::Invoke;
use crate::state::sqs::store::Held;
use std::collections::BTreeMap;

/// The event streams of every account and region.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Store {
    /// Event stream ARN → stream.
    pub streams: BTreeMap<String, Stream>,
    /// The last token handed to an event under way in a stream.
    pub tokens: u64,
    /// The stream whose delivery is being attempted right now (in-process targets are attempted
    /// at once): a message reaching its own source meanwhile is its own echo (a loop).
    pub delivering: Option<String>,
}

impl crate::state::placed::Placed for Stream {
    fn place(&self) -> (&str, &str) {
        (&self.account, &self.region)
    }
}

/// Something a stream must do at a virtual instant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Timer {
    /// Finish starting (STARTING → RUNNING or START_FAILED).
    Start(String),
    /// Look at the source for the next event.
    Poll(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StreamState {
    Running,
    Ready,
    Starting,
    StartFailed,
}

impl StreamState {
    pub fn name(self) -> &'static str {
        match self {
            StreamState::Running => "RUNNING",
            StreamState::Ready => "READY",
            StreamState::Starting => "STARTING",
            StreamState::StartFailed => "START_FAILED",
        }
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Source {
    Sqs(String),
    Bus(String),
}

impl Source {
    pub fn arn(&self) -> &str {
        match self {
            Source::Sqs(arn) | Source::Bus(arn) => arn,
        }
    }
}

/// A stream's FilterPattern, as given and compiled.
pub use crate::state::pattern::TextPattern as Pattern;

/// RunOptions, defaults filled in.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunOptions {
    pub strategy: Strategy,
    /// ErrorsTolerance ALL (true) or NONE.
    pub tolerate_all: bool,
    pub dead_letter: Option<String>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            strategy: Strategy::Backoff,
            tolerate_all: false,
            dead_letter: None,
        }
    }
}

/// The event a stream is delivering.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct InFlight {
    /// Names this event's delivery, so a late end of a cancelled one is ignored.
    pub token: u64,
    pub delivery: Option<DeliveryId>,
    pub message_id: String,
    /// SQS source: the message, held until it is delivered or disposed of.
    pub held: Option<Held>,
    /// Bus source: the event's SequenceNumber.
    pub sequence: Option<u64>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Stream {
    pub arn: String,
    pub name: String,
    pub account: String,
    pub region: String,
    /// The host clients reached the emulator at (for SNS targets' URLs).
    pub host: String,
    pub source: Source,
    pub filter: Option<Pattern>,
    pub target: Invoke,
    pub run: RunOptions,
    pub description: Option<String>,
    pub created_at: Millis,
    pub modified_at: Millis,
    pub state: StreamState,
    pub reason: Option<String>,
    /// Bus source: the SequenceNumber of the last event taken (delivered, dead-lettered,
    /// discarded or filtered out).
    pub position: u64,
    pub busy: Option<InFlight>,
    /// When a look at the source is due, if one is scheduled.
    pub poll_at: Option<Millis>,
    /// Deliveries in a row that put a message on the stream's own source while they were
    /// attempted (a target that feeds the source, through a topic or a bus: a loop).
    pub echoes: u64,
}
