//! Why an attempt failed, as one type made where the failure happens (an HTTP client, a
//! service refusing a hand-over, a target that cannot be invoked, an injected fault). Each
//! delivering service maps it to its own dead-letter and error codes in one table; nothing
//! parses a failure back out of a string, except the error code a user gives an injected fault.

use crate::engine::statics;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why an attempt failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Failure {
    /// The target does not exist (a queue, topic, bus, API destination or its connection);
    /// the code is the one its service answers with.
    NotFound(#[serde(with = "statics")] statics::Label),
    /// The target refuses the sender (a bus or topic policy, a connection that cannot
    /// authorize); the code is the one its service answers with.
    AccessDenied(#[serde(with = "statics")] statics::Label),
    /// The event already passed the bus (`LOOP_DETECTED`), or would reach a third account
    /// (`THIRD_ACCOUNT_HOP_DETECTED`).
    Loop(#[serde(with = "statics")] statics::Label),
    /// The target input could not be made from the event (an input path or template failed).
    InputTransformation,
    /// The target input is not the JSON the target takes.
    InvalidJson,
    /// The target refused the message as invalid; the code is the one its service answers with.
    InvalidParameter(#[serde(with = "statics")] statics::Label),
    /// The message or batch is over the target's size limit.
    TooLarge,
    /// Part of a batch was taken, the rest refused.
    PartialBatch,
    /// The endpoint did not answer in time.
    Timeout,
    /// No connection to the endpoint (refused, unreachable, reset).
    Connection,
    /// The TLS handshake with the endpoint failed.
    Tls,
    /// The endpoint's URL or the request cannot be sent.
    InvalidEndpoint,
    /// The endpoint answered with this failing HTTP status.
    Status(u16),
    /// A fault injected through the control API, with its status and error code as given.
    Injected { status: u16, code: Option<String> },
    /// A Lambda function answered with an error (`X-Amz-Function-Error: Unhandled`): its code
    /// threw, timed out, or its runtime could not start or exited. Worth trying again.
    Function,
}

impl Failure {
    /// Whether trying again may succeed: timeouts, connection and TLS failures, 429 and 5xx.
    /// (An injected fault is judged by its status alone.)
    pub fn retryable(&self) -> bool {
        match self {
            Failure::Timeout | Failure::Connection | Failure::Tls | Failure::Function => true,
            Failure::Status(status) | Failure::Injected { status, .. } => {
                *status == 429 || (500..=599).contains(status)
            }
            _ => false,
        }
    }

    /// The HTTP status of the failure, when an answer (or a fault) gave one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Failure::Status(status) | Failure::Injected { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The error code the delivery log shows: the failing side's own wording.
    pub fn code(&self) -> Option<&str> {
        Some(match self {
            Failure::NotFound(code)
            | Failure::AccessDenied(code)
            | Failure::Loop(code)
            | Failure::InvalidParameter(code) => code,
            Failure::InputTransformation => "INPUT_TRANSFORMATION_FAILURE",
            Failure::InvalidJson => "INVALID_JSON",
            Failure::TooLarge => "REQUEST_TOO_LARGE",
            Failure::PartialBatch => "PARTIAL_BATCH_FAILURE",
            Failure::Timeout => "Timeout",
            Failure::Connection => "ConnectionError",
            Failure::Tls => "TlsError",
            Failure::InvalidEndpoint => "InvalidEndpoint",
            Failure::Function => "Unhandled",
            Failure::Status(_) => return None,
            Failure::Injected { code, .. } => return code.as_deref(),
        })
    }

    /// What the failure means for the tables that map it: an injected fault whose error code
    /// names a failure (as the services of this emulator or AWS's targets word it) is that
    /// failure, one that names none stays injected, and one without a code is its status.
    pub fn meaning(&self) -> Failure {
        let Failure::Injected { status, code } = self else {
            return self.clone();
        };
        let Some(code) = code.as_deref() else {
            return Failure::Status(*status);
        };
        match code {
            "AWS.SimpleQueueService.NonExistentQueue"
            | "QueueDoesNotExist"
            | "NotFound"
            | "NO_RESOURCE"
            | "RESOURCE_NOT_FOUND"
            | "ResourceNotFoundException" => Failure::NotFound("NotFound"),
            "ACCESS_DENIED" | "AccessDeniedException" | "AuthorizationError" | "NO_PERMISSIONS" => {
                Failure::AccessDenied("AccessDenied")
            }
            "LOOP_DETECTED" => Failure::Loop("LOOP_DETECTED"),
            "THIRD_ACCOUNT_HOP_DETECTED" => Failure::Loop("THIRD_ACCOUNT_HOP_DETECTED"),
            "INPUT_TRANSFORMATION_FAILURE" => Failure::InputTransformation,
            "InvalidParameterValue" => Failure::InvalidParameter("InvalidParameterValue"),
            "MissingParameter" => Failure::InvalidParameter("MissingParameter"),
            "InvalidParameter" => Failure::InvalidParameter("InvalidParameter"),
            "ValidationException" => Failure::InvalidParameter("ValidationException"),
            "InvalidArgument" => Failure::InvalidParameter("InvalidArgument"),
            "INVALID_JSON" => Failure::InvalidJson,
            "REQUEST_TOO_LARGE" => Failure::TooLarge,
            "PARTIAL_BATCH_FAILURE" => Failure::PartialBatch,
            "Timeout" => Failure::Timeout,
            "ConnectionError" => Failure::Connection,
            "TlsError" => Failure::Tls,
            "Unhandled" => Failure::Function,
            "THROTTLING" => Failure::Status(429),
            _ if code.contains("Throttl") => Failure::Status(429),
            _ => self.clone(),
        }
    }

    /// Whether the target throttled the attempt (HTTP 429, or a fault that says so).
    pub fn throttled(&self) -> bool {
        self.meaning() == Failure::Status(429)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code(), self.status()) {
            (Some(code), _) => f.write_str(code),
            (None, Some(status)) => write!(f, "HTTP {status}"),
            (None, None) => f.write_str("an error"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryable_failures_are_transient_or_server_side() {
        for f in [
            Failure::Timeout,
            Failure::Connection,
            Failure::Tls,
            Failure::Status(429),
            Failure::Status(503),
            Failure::Injected {
                status: 500,
                code: Some("ACCESS_DENIED".into()),
            },
        ] {
            assert!(f.retryable(), "{f:?}");
        }
        for f in [
            Failure::NotFound("NotFound"),
            Failure::Status(400),
            Failure::InvalidJson,
            Failure::Injected {
                status: 403,
                code: None,
            },
        ] {
            assert!(!f.retryable(), "{f:?}");
        }
    }

    #[test]
    fn injected_codes_mean_the_failure_they_name() {
        let injected = |code: Option<&str>| Failure::Injected {
            status: 500,
            code: code.map(str::to_string),
        };
        assert_eq!(
            injected(Some("ResourceNotFoundException")).meaning(),
            Failure::NotFound("NotFound")
        );
        assert_eq!(injected(Some("TlsError")).meaning(), Failure::Tls);
        assert_eq!(injected(None).meaning(), Failure::Status(500));
        assert!(injected(Some("ThrottlingException")).throttled());
        let unknown = injected(Some("KMS_INVALID_STATE"));
        assert_eq!(unknown.meaning(), unknown);
        assert_eq!(unknown.code(), Some("KMS_INVALID_STATE"));
        assert_eq!(Failure::Status(502).to_string(), "HTTP 502");
    }
}
