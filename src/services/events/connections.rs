//! Connections and API destinations (to be written).
use super::super::Context;
use super::store::HttpParameters;
use crate::app::App;
use crate::engine::Engine;
use crate::error::AwsError;
use serde_json::Value;

pub async fn call(
    _app: &App,
    _cx: &Context,
    operation: &str,
    _input: Value,
) -> Result<Value, AwsError> {
    Err(crate::services::not_yet(operation))
}

/// How a rule target invokes an API destination.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    pub method: String,
    /// The endpoint with the target's path parameters and the query string.
    pub url: String,
    /// Every header of the request: EventBridge's own, the connection's auth and parameters, the target's.
    pub headers: Vec<(String, String)>,
    pub rate_limit_per_second: Option<u32>,
}

/// The request an event to API destination `arn` makes, or the DLQ error code why none can be made.
pub fn invocation(
    _e: &Engine,
    _arn: &str,
    _params: &HttpParameters,
) -> Result<Invocation, &'static str> {
    Err("NO_RESOURCE")
}
