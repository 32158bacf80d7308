//! The EventBridge event envelope, as classic EventBridge and the custom bus build it (event
//! streams deliver the custom bus's): its fields in AWS's order, its `time` in whole seconds, and
//! the `replay-name` a replayed event carries. Pure functions over JSON values; nothing here knows a store, the
//! engine's state or a wire format.

use crate::engine::time::{Millis, format_rfc3339};
use serde_json::{Map, Value, json};

/// The `time` of an event: whole seconds, as AWS writes it (`2026-11-30T07:00:00Z`).
pub fn event_time(ms: Millis) -> String {
    let mut text = format_rfc3339(ms.div_euclid(1000) * 1000);
    text.replace_range(19..23, "");
    text
}

/// An event envelope, fields in AWS's order.
#[allow(clippy::too_many_arguments)]
pub fn envelope(
    id: &str,
    detail_type: &str,
    source: &str,
    account: &str,
    time: Millis,
    region: &str,
    resources: &[String],
    detail: Value,
) -> Value {
    let text = |s: &str| Value::String(s.to_string());
    let mut event = Map::with_capacity(9);
    event.insert("version".into(), text("0"));
    event.insert("id".into(), text(id));
    event.insert("detail-type".into(), text(detail_type));
    event.insert("source".into(), text(source));
    event.insert("account".into(), text(account));
    event.insert("time".into(), Value::String(event_time(time)));
    event.insert("region".into(), text(region));
    let resources = resources.iter().map(|r| text(r)).collect();
    event.insert("resources".into(), Value::Array(resources));
    event.insert("detail".into(), detail);
    Value::Object(event)
}

/// Adds `replay-name` after `region`, where AWS puts it.
pub fn with_replay_name(event: &Value, replay_name: &str) -> Value {
    let Some(fields) = event.as_object() else {
        return event.clone();
    };
    let mut out = Map::new();
    for (k, v) in fields {
        out.insert(k.clone(), v.clone());
        if k == "region" {
            out.insert("replay-name".into(), json!(replay_name));
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_times_are_whole_seconds() {
        assert_eq!(event_time(1_796_022_000_999), "2026-11-30T07:00:00Z");
    }

    #[test]
    fn the_envelope_keeps_aws_key_order_and_replay_name_follows_region() {
        let event = envelope(
            "i",
            "t",
            "s",
            "000000000000",
            0,
            "us-east-1",
            &[],
            json!({"b": 1, "a": 2}),
        );
        assert_eq!(
            event.to_string(),
            r#"{"version":"0","id":"i","detail-type":"t","source":"s","account":"000000000000","time":"1970-01-01T00:00:00Z","region":"us-east-1","resources":[],"detail":{"b":1,"a":2}}"#
        );
        let keys: Vec<String> = with_replay_name(&event, "r")
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys[6..8], ["region", "replay-name"]);
    }
}
