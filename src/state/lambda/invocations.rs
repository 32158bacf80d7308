//! Lambda's invocations as the state keeps them: the event invoke configurations (retries and
//! destinations of asynchronous invocations), an asynchronous event on its way, how an
//! invocation the runtime ran ended, and the record of each invocation the control API and the
//! console show. Plain data: no operation here.

use crate::engine::time::Millis;
use serde::{Deserialize, Serialize};

/// PutFunctionEventInvokeConfig: what happens to a function's asynchronous invocations.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InvokeConfig {
    pub max_retries: Option<u32>,
    pub max_age_s: Option<u32>,
    /// DestinationConfig.OnSuccess.Destination: an SQS queue, SNS topic, event bus or function.
    pub on_success: Option<String>,
    pub on_failure: Option<String>,
    pub last_modified: Millis,
}

/// An asynchronous invocation under way: what its destinations and dead-letter queue are told
/// when its attempts are over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AsyncEvent {
    /// The function's ARN, with the version or alias invoked.
    pub function: String,
    pub request_id: String,
    /// The event as given.
    pub payload: String,
    /// The emulator's address (for the URLs in SNS messages to destinations).
    pub host: String,
}

/// How one invocation the runtime ran ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Invoked {
    /// The handler's answer.
    Response { payload: String },
    /// A function error: the error document and `X-Amz-Function-Error`'s value.
    FunctionError { payload: String, error_type: String },
    /// No environment was free within the function's concurrency.
    Throttled,
    /// The function (or the version or alias) is gone, or cannot run here.
    Gone { message: String },
}

/// One invocation, as the control API and the console list them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvocationRecord {
    pub request_id: String,
    /// The function's ARN as invoked.
    pub function: String,
    /// `$LATEST`, `1` ...
    pub version: String,
    /// How it was invoked: `RequestResponse`, `Event` (an attempt of an asynchronous
    /// invocation) or `EventSourceMapping`.
    pub invocation_type: String,
    /// Virtual time when it began.
    pub started_at: Millis,
    /// Real microseconds the handler ran (whole numbers, so that a snapshot reads back the
    /// same).
    pub duration_us: u64,
    /// `Success`, `Unhandled` (a function error), `Throttled` or `Gone`.
    pub result: String,
    /// The error type of a function error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// The last lines of its log (START ... REPORT).
    pub log_tail: String,
}

/// The invocations kept, at the most (the oldest go first).
pub(crate) const MAX_RECORDS: usize = 1_000;
