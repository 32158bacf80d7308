//! Archives and replays (to be written).
use super::super::Context;
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

/// Keeps `event` (just put on `bus_arn`) in every archive of that bus whose pattern it matches.
pub fn capture(_e: &mut Engine, _bus_arn: &str, _event: &Value, _size: usize) {}

/// A replay's next step.
pub fn step_replay(_e: &mut Engine, _replay_arn: &str) {}
