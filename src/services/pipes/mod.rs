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

use crate::error::AwsError;
use crate::services::{Context, typed};
use crate::state::State;
use serde_json::Value;

/// Runs a Pipes operation.
pub fn call(e: &mut State, cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    match operation {
        "CreatePipe" => typed(input, |i| api::create_pipe(e, cx, i)),
        "DescribePipe" => typed(input, |i| api::describe_pipe(e, cx, i)),
        "UpdatePipe" => typed(input, |i| api::update_pipe(e, cx, i)),
        "DeletePipe" => typed(input, |i| api::delete_pipe(e, cx, i)),
        "ListPipes" => typed(input, |i| api::list_pipes(e, cx, i)),
        "StartPipe" => typed(input, |i| api::start_pipe(e, cx, i)),
        "StopPipe" => typed(input, |i| api::stop_pipe(e, cx, i)),
        "TagResource" => typed(input, |i| api::tag_resource(e, cx, i)),
        "UntagResource" => typed(input, |i| api::untag_resource(e, cx, i)),
        "ListTagsForResource" => typed(input, |i| api::list_tags_for_resource(e, cx, i)),
        _ => Err(crate::services::not_yet(operation)),
    }
}
