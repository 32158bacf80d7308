//! Timestamps as AWS JSON carries them (seconds since the epoch, fractions allowed), for
//! EventBridge and the custom bus alike. A leaf: it imports the engine's time only.

use crate::engine::time::Millis;
use serde_json::Value;

/// Timestamps in AWS JSON: seconds since the epoch.
pub(crate) fn epoch_seconds(ms: Millis) -> Value {
    serde_json::Number::from_f64(ms as f64 / 1000.0).map_or(Value::Null, Value::Number)
}

/// A timestamp member of a request, in seconds since the epoch.
pub(crate) fn millis_of(value: &Value) -> Option<Millis> {
    value.as_f64().map(|s| (s * 1000.0).round() as Millis)
}
