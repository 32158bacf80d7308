//! The outbox (`GET /_switchyard/outbox`): what was "sent" to receivers that cannot exist
//! locally. Plain data.
//! Part of the engine: it depends on nothing above it.

use super::log::{rfc3339, rfc3339_de};
use super::time::Millis;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A message "sent" to a receiver that cannot exist locally (e-mail, SMS, push, Lambda, ...).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct OutboxMessage {
    #[serde(serialize_with = "rfc3339", deserialize_with = "rfc3339_de")]
    pub at: Millis,
    pub protocol: String,
    pub target: String,
    pub source: String,
    pub message_id: String,
    pub body: String,
    pub attributes: BTreeMap<String, serde_json::Value>,
}
