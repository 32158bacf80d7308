//! AWS Lambda over restJson1 (API 2015-03-31): functions with their code unpacked from a zip
//! or run from a local folder, their versions, aliases and resource policies, layers, tags,
//! reserved concurrency and the account's settings (docs/lambda.md). The runtime unpacks a function's zip before the operation runs
//! (`runtime/code.rs`) and runs invocations (`runtime/lambda/`); this module keeps the
//! functions. It must not depend on the runtime, the protocols or the server.

pub mod access;
mod account;
mod aliases;
pub mod asynchronous;
pub mod errors;
pub mod functions;
mod invoke_configs;
mod layers;
mod lookup;
pub mod mappings;
mod paging;
pub mod policy;
mod poll;
pub mod run;
pub mod shapes;
pub mod versions;

pub use crate::state::lambda::store;
pub use account::ACCOUNT_CONCURRENCY;

use super::{Context, parse};
use crate::error::AwsError;
use crate::state::State;
use serde_json::Value;

pub fn call(
    state: &mut State,
    cx: &Context,
    operation: &str,
    input: Value,
) -> Result<Value, AwsError> {
    match operation {
        "CreateFunction" => functions::create(state, cx, parse(input)?),
        "GetFunction" => functions::get(state, cx, parse(input)?),
        "GetFunctionConfiguration" => functions::get_configuration(state, cx, parse(input)?),
        "ListFunctions" => functions::list(state, cx, parse(input)?),
        "UpdateFunctionCode" => functions::update_code(state, cx, parse(input)?),
        "UpdateFunctionConfiguration" => functions::update_configuration(state, cx, parse(input)?),
        "DeleteFunction" => functions::delete(state, cx, parse(input)?),
        "TagResource" => account::tag(state, cx, parse(input)?),
        "UntagResource" => account::untag(state, cx, parse(input)?),
        "ListTags" => account::list_tags(state, cx, parse(input)?),
        "PutFunctionConcurrency" => account::put_concurrency(state, cx, parse(input)?),
        "GetFunctionConcurrency" => account::get_concurrency(state, cx, parse(input)?),
        "DeleteFunctionConcurrency" => account::delete_concurrency(state, cx, parse(input)?),
        "GetAccountSettings" => account::settings(state, cx),
        "PutFunctionEventInvokeConfig" => invoke_configs::put(state, cx, parse(input)?, false),
        "UpdateFunctionEventInvokeConfig" => invoke_configs::put(state, cx, parse(input)?, true),
        "GetFunctionEventInvokeConfig" => invoke_configs::get(state, cx, parse(input)?),
        "DeleteFunctionEventInvokeConfig" => invoke_configs::delete(state, cx, parse(input)?),
        "ListFunctionEventInvokeConfigs" => invoke_configs::list(state, cx, parse(input)?),
        "CreateEventSourceMapping" => mappings::create(state, cx, parse(input)?),
        "GetEventSourceMapping" => mappings::get(state, cx, parse(input)?),
        "UpdateEventSourceMapping" => mappings::update(state, cx, parse(input)?),
        "DeleteEventSourceMapping" => mappings::delete(state, cx, parse(input)?),
        "ListEventSourceMappings" => mappings::list(state, cx, parse(input)?),
        // Only `InvocationType: Event` comes here: the runtime runs the others.
        "Invoke" => asynchronous::invoke_event(state, cx, parse(input)?),
        "PublishVersion" => versions::publish(state, cx, parse(input)?),
        "ListVersionsByFunction" => versions::list(state, cx, parse(input)?),
        "CreateAlias" => aliases::create(state, cx, parse(input)?),
        "GetAlias" => aliases::get(state, cx, parse(input)?),
        "UpdateAlias" => aliases::update(state, cx, parse(input)?),
        "DeleteAlias" => aliases::delete(state, cx, parse(input)?),
        "ListAliases" => aliases::list(state, cx, parse(input)?),
        "PublishLayerVersion" => layers::publish(state, cx, parse(input)?),
        "GetLayerVersion" => layers::get(state, cx, parse(input)?),
        "DeleteLayerVersion" => layers::delete(state, cx, parse(input)?),
        "ListLayers" => layers::list(state, cx, parse(input)?),
        "ListLayerVersions" => layers::list_versions(state, cx, parse(input)?),
        "AddPermission" => policy::add(state, cx, parse(input)?),
        "RemovePermission" => policy::remove(state, cx, parse(input)?),
        "GetPolicy" => policy::get(state, cx, parse(input)?),
        _ => Err(AwsError::new(
            "UnsupportedOperation",
            501,
            format!("switchyard does not serve the Lambda operation {operation} yet."),
        )),
    }
}

/// An output in the model's JSON form.
fn encode(output: impl serde::Serialize) -> Result<Value, AwsError> {
    serde_json::to_value(output).map_err(|e| AwsError::internal(format!("encoding output: {e}")))
}
