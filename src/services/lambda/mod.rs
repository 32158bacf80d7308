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

pub fn call(e: &mut State, cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    match operation {
        "CreateFunction" => functions::create(e, cx, parse(input)?),
        "GetFunction" => functions::get(e, cx, parse(input)?),
        "GetFunctionConfiguration" => functions::get_configuration(e, cx, parse(input)?),
        "ListFunctions" => functions::list(e, cx, parse(input)?),
        "UpdateFunctionCode" => functions::update_code(e, cx, parse(input)?),
        "UpdateFunctionConfiguration" => functions::update_configuration(e, cx, parse(input)?),
        "DeleteFunction" => functions::delete(e, cx, parse(input)?),
        "TagResource" => account::tag(e, cx, parse(input)?),
        "UntagResource" => account::untag(e, cx, parse(input)?),
        "ListTags" => account::list_tags(e, cx, parse(input)?),
        "PutFunctionConcurrency" => account::put_concurrency(e, cx, parse(input)?),
        "GetFunctionConcurrency" => account::get_concurrency(e, cx, parse(input)?),
        "DeleteFunctionConcurrency" => account::delete_concurrency(e, cx, parse(input)?),
        "GetAccountSettings" => account::settings(e, cx),
        "PutFunctionEventInvokeConfig" => invoke_configs::put(e, cx, parse(input)?, false),
        "UpdateFunctionEventInvokeConfig" => invoke_configs::put(e, cx, parse(input)?, true),
        "GetFunctionEventInvokeConfig" => invoke_configs::get(e, cx, parse(input)?),
        "DeleteFunctionEventInvokeConfig" => invoke_configs::delete(e, cx, parse(input)?),
        "ListFunctionEventInvokeConfigs" => invoke_configs::list(e, cx, parse(input)?),
        "CreateEventSourceMapping" => mappings::create(e, cx, parse(input)?),
        "GetEventSourceMapping" => mappings::get(e, cx, parse(input)?),
        "UpdateEventSourceMapping" => mappings::update(e, cx, parse(input)?),
        "DeleteEventSourceMapping" => mappings::delete(e, cx, parse(input)?),
        "ListEventSourceMappings" => mappings::list(e, cx, parse(input)?),
        // Only `InvocationType: Event` comes here: the runtime runs the others.
        "Invoke" => asynchronous::invoke_event(e, cx, parse(input)?),
        "PublishVersion" => versions::publish(e, cx, parse(input)?),
        "ListVersionsByFunction" => versions::list(e, cx, parse(input)?),
        "CreateAlias" => aliases::create(e, cx, parse(input)?),
        "GetAlias" => aliases::get(e, cx, parse(input)?),
        "UpdateAlias" => aliases::update(e, cx, parse(input)?),
        "DeleteAlias" => aliases::delete(e, cx, parse(input)?),
        "ListAliases" => aliases::list(e, cx, parse(input)?),
        "PublishLayerVersion" => layers::publish(e, cx, parse(input)?),
        "GetLayerVersion" => layers::get(e, cx, parse(input)?),
        "DeleteLayerVersion" => layers::delete(e, cx, parse(input)?),
        "ListLayers" => layers::list(e, cx, parse(input)?),
        "ListLayerVersions" => layers::list_versions(e, cx, parse(input)?),
        "AddPermission" => policy::add(e, cx, parse(input)?),
        "RemovePermission" => policy::remove(e, cx, parse(input)?),
        "GetPolicy" => policy::get(e, cx, parse(input)?),
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
