//! How an attempt ended ([`Outcome`]), how a delivery ended ([`Ending`]) and, for one given up,
//! what the dead-letter message may tell of it ([`GiveUp`]). Values only.

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Delivered {
        status: Option<u16>,
    },
    /// Worth retrying (5xx, 429, connection errors, timeouts).
    Retryable {
        status: Option<u16>,
        error_code: Option<String>,
    },
    /// Not worth retrying (other 4xx, a missing queue).
    Permanent {
        status: Option<u16>,
        error_code: Option<String>,
    },
}

impl Outcome {
    /// The outcome an HTTP status means: 2xx delivered, 5xx and 429 retryable, else permanent.
    pub fn from_status(status: u16, error_code: Option<String>) -> Outcome {
        match status {
            200..=299 => Outcome::Delivered {
                status: Some(status),
            },
            429 | 500..=599 => Outcome::Retryable {
                status: Some(status),
                error_code,
            },
            _ => Outcome::Permanent {
                status: Some(status),
                error_code,
            },
        }
    }

    /// The outcome of a hand-over to a service of this emulator: delivered, or refused for good
    /// with the service's error code (a missing queue, topic or bus).
    pub fn in_process(result: Result<(), impl ToString>) -> Outcome {
        match result {
            Ok(()) => Outcome::Delivered { status: None },
            Err(code) => Outcome::Permanent {
                status: None,
                error_code: Some(code.to_string()),
            },
        }
    }

    /// The HTTP status and error code of a failure.
    pub fn status(&self) -> Option<u16> {
        self.parts().1
    }

    pub fn error_code(&self) -> Option<&str> {
        match self {
            Outcome::Delivered { .. } => None,
            Outcome::Retryable { error_code, .. } | Outcome::Permanent { error_code, .. } => {
                error_code.as_deref()
            }
        }
    }

    pub(super) fn parts(&self) -> (&'static str, Option<u16>, Option<String>) {
        match self {
            Outcome::Delivered { status } => ("delivered", *status, None),
            Outcome::Retryable { status, error_code } => ("retryable", *status, error_code.clone()),
            Outcome::Permanent { status, error_code } => ("permanent", *status, error_code.clone()),
        }
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
