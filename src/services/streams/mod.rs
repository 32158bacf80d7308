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

use crate::services::operations;

operations! {
    /// Runs an event stream operation (they come on the custom bus's API).
    "CreateEventStream" => api::create_event_stream,
    "GetEventStream" => api::get_event_stream,
    "ListEventStreams" => api::list_event_streams,
    "UpdateEventStream" => api::update_event_stream,
    "StartEventStream" => api::start_event_stream,
    "StopEventStream" => api::stop_event_stream,
    "DeleteEventStream" => api::delete_event_stream,
}

/// Whether `operation` of the custom bus's API is an event stream's.
pub fn is_stream_operation(operation: &str) -> bool {
    operation.ends_with("EventStream") || operation == "ListEventStreams"
}
