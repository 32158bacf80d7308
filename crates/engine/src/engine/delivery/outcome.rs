//! How an attempt ended ([`Outcome`], failing with a [`Failure`]), how a delivery ended ([`Ending`]) and, for one given up,
//! what the dead-letter message may tell of it ([`GiveUp`]). Values only.
//! Part of the engine: it depends on nothing above it.

use super::failure::Failure;
use serde::{Deserialize, Serialize};

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Outcome {
    Delivered {
        status: Option<u16>,
    },
    /// Worth retrying (5xx, 429, connection errors, timeouts).
    Retryable(Failure),
    /// Not worth retrying (other 4xx, a missing queue, an event that loops).
    Permanent(Failure),
}

impl Outcome {
    /// A failed attempt, retryable or not as the failure says.
    pub fn failed(failure: Failure) -> Outcome {
        match failure.retryable() {
            true => Outcome::Retryable(failure),
            false => Outcome::Permanent(failure),
        }
    }

    /// The outcome of an HTTP answer: 2xx delivered, 5xx and 429 retryable, else permanent.
    pub fn from_status(status: u16) -> Outcome {
        match status {
            200..=299 => Outcome::Delivered {
                status: Some(status),
            },
            _ => Outcome::failed(Failure::Status(status)),
        }
    }

    /// The outcome of an attempt meeting an injected fault: as its status says (a 2xx fault
    /// delivers), failing with its error code.
    pub fn injected(status: u16, code: Option<String>) -> Outcome {
        match status {
            200..=299 => Outcome::Delivered {
                status: Some(status),
            },
            _ => Outcome::failed(Failure::Injected { status, code }),
        }
    }

    /// The outcome of a hand-over to a service of this emulator: delivered, or refused for good
    /// (a missing queue, topic or bus, a loop, an invalid message).
    pub fn in_process(result: Result<(), Failure>) -> Outcome {
        match result {
            Ok(()) => Outcome::Delivered { status: None },
            Err(failure) => Outcome::Permanent(failure),
        }
    }

    /// Why the attempt failed, if it did.
    pub fn failure(&self) -> Option<&Failure> {
        match self {
            Outcome::Delivered { .. } => None,
            Outcome::Retryable(f) | Outcome::Permanent(f) => Some(f),
        }
    }

    /// The HTTP status of the answer, if there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Outcome::Delivered { status } => *status,
            Outcome::Retryable(f) | Outcome::Permanent(f) => f.status(),
        }
    }

    /// The error code the delivery log shows.
    pub fn error_code(&self) -> Option<&str> {
        self.failure().and_then(Failure::code)
    }

    pub(super) fn parts(&self) -> (&'static str, Option<u16>, Option<String>) {
        let name = match self {
            Outcome::Delivered { .. } => "delivered",
            Outcome::Retryable(_) => "retryable",
            Outcome::Permanent(_) => "permanent",
        };
        (name, self.status(), self.error_code().map(str::to_string))
    }
}

/// How a delivery ended (a followed one reports it in [`super::Work::Ended`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ending {
    Delivered,
    DeadLettered,
    DlqFailed,
    Discarded,
    /// Given up, but the message stays with its source ([`super::Follow::keep`]): logged `blocked`.
    Kept,
}

/// How a delivery ended without success, for the dead-letter message.
#[derive(Debug)]
pub struct GiveUp<'a> {
    /// Attempts made, the first included.
    pub attempts: u32,
    /// The retry limit that ended it, if a limit did (not for failures that are not retried).
    pub exhausted: Option<&'static str>,
    pub outcome: &'a Outcome,
    pub target: &'a str,
    /// The ids of the batch entries still undelivered ([`Target::SqsBatch`]); empty otherwise.
    pub items: Vec<&'a str>,
    /// The request id of the last attempt, for deliveries that keep one
    /// ([`Delivery::with_request_ids`]); `None` when no request was made (a doomed delivery).
    pub request_id: Option<&'a str>,
}
