//! Event streams (CreateEventStream, GetEventStream, ListEventStreams, UpdateEventStream,
//! StartEventStream, StopEventStream, DeleteEventStream; docs/event-streams.md): one source (an SQS
//! queue or a custom bus) pushed in order to one target under a retry strategy
//! ([`retry`]), a fault tolerance policy and an optional dead-letter queue. `api` checks and
//! answers the operations; `run` moves the events on the engine's shared delivery path.
//! docs/event-streams.md describes the behaviour.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

mod api;
pub use crate::state::streams::retry;
mod run;
pub use crate::state::streams::store;

pub use api::*;
pub use run::{delivered, fire, wake_all, wake_source};
pub use store::*;

use crate::error::AwsError;
use crate::services::{Context, typed};
use crate::state::State;
use serde_json::Value;

/// Runs an event stream operation (they come on the custom bus's API).
pub fn call(e: &mut State, cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    match operation {
        "CreateEventStream" => typed(input, |i| create_event_stream(e, cx, i)),
        "GetEventStream" => typed(input, |i| get_event_stream(e, cx, i)),
        "ListEventStreams" => typed(input, |i| list_event_streams(e, cx, i)),
        "UpdateEventStream" => typed(input, |i| update_event_stream(e, cx, i)),
        "StartEventStream" => typed(input, |i| start_event_stream(e, cx, i)),
        "StopEventStream" => typed(input, |i| stop_event_stream(e, cx, i)),
        "DeleteEventStream" => typed(input, |i| delete_event_stream(e, cx, i)),
        _ => Err(crate::services::not_yet(operation)),
    }
}

/// Whether `operation` of the custom bus's API is an event stream's.
pub fn is_stream_operation(operation: &str) -> bool {
    operation.ends_with("EventStream") || operation == "ListEventStreams"
}
