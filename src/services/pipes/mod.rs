//! EventBridge Pipes (API version 2015-10-07; docs/pipes.md): a pipe reads an SQS queue in
//! batches, drops what its filters do not match, sends the rest through an optional enrichment
//! (a Lambda function or an API destination) to one target, and deletes a message only once it
//! was delivered. `api` checks and answers the operations; `run` moves the pipes on the virtual
//! clock and their batches on the engine's shared delivery path.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

mod api;
pub mod errors;
mod run;
pub use crate::state::pipes::store;
#[cfg(test)]
mod tests;

pub use run::{delivered, fire, wake_all, wake_source};

use crate::services::operations;

operations! {
    /// Runs a Pipes operation.
    "CreatePipe" => api::create_pipe,
    "DescribePipe" => api::describe_pipe,
    "UpdatePipe" => api::update_pipe,
    "DeletePipe" => api::delete_pipe,
    "ListPipes" => api::list_pipes,
    "StartPipe" => api::start_pipe,
    "StopPipe" => api::stop_pipe,
    "TagResource" => api::tag_resource,
    "UntagResource" => api::untag_resource,
    "ListTagsForResource" => api::list_tags_for_resource,
}
