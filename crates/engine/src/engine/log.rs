//! The delivery log (`GET /_switchyard/deliveries`): one record per decision of the delivery
//! path, bounded, oldest out first. Plain data; it knows no service and no wire format beyond
//! serde.
//! Part of the engine: it depends on nothing above it.

use super::statics;
use super::time::{Millis, format_rfc3339, parse_rfc3339};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::VecDeque;

pub(crate) fn rfc3339<S: Serializer>(at: &Millis, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_rfc3339(*at))
}

pub(crate) fn rfc3339_opt<S: Serializer>(at: &Option<Millis>, s: S) -> Result<S::Ok, S::Error> {
    match at {
        Some(at) => rfc3339(at, s),
        None => s.serialize_none(),
    }
}

/// A time written by [`rfc3339`], read back.
pub(crate) fn rfc3339_de<'de, D: Deserializer<'de>>(d: D) -> Result<Millis, D::Error> {
    let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
    parse_rfc3339(&text)
        .ok_or_else(|| serde::de::Error::custom(format_args!("not an RFC 3339 time: {text:?}")))
}

/// A time written by [`rfc3339_opt`], read back.
pub(crate) fn rfc3339_opt_de<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Millis>, D::Error> {
    #[derive(Deserialize)]
    struct Time(#[serde(deserialize_with = "rfc3339_de")] Millis);
    Ok(Option::<Time>::deserialize(d)?.map(|t| t.0))
}

/// One decision of the delivery engine, as docs/control-api.md describes it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryRecord {
    #[serde(serialize_with = "rfc3339", deserialize_with = "rfc3339_de")]
    pub at: Millis,
    #[serde(deserialize_with = "statics::deserialize")]
    pub event: statics::Label,
    pub source: String,
    pub target: String,
    pub protocol: String,
    pub message_id: String,
    pub attempt: u32,
    #[serde(deserialize_with = "statics::deserialize")]
    pub phase: statics::Label,
    pub delay_seconds: f64,
    #[serde(deserialize_with = "statics::option::deserialize")]
    pub outcome: Option<statics::Label>,
    pub status: Option<u16>,
    pub error_code: Option<String>,
    #[serde(serialize_with = "rfc3339_opt", deserialize_with = "rfc3339_opt_de")]
    pub next_attempt_at: Option<Millis>,
}

impl DeliveryRecord {
    /// The record as a log line: attempts, retries and the other decisions at debug, what ends a
    /// delivery without delivering it at info (`dead-lettered`, `discarded`, `blocked`) or warn
    /// (`dlq-failed`: the message is lost). The fields are only formatted when the level is
    /// enabled; below it this costs tracing's level check. The event's target is the module path
    /// it had in the root crate, so the lines' `module=` and `RUST_LOG` filters stay as they were.
    fn trace(&self) {
        macro_rules! record {
            ($level:expr) => {
                tracing::event!(
                    target: "switchyard::engine::log",
                    $level,
                    event = self.event,
                    source = %self.source,
                    target = %self.target,
                    protocol = %self.protocol,
                    message_id = %self.message_id,
                    attempt = self.attempt,
                    phase = self.phase,
                    outcome = self.outcome,
                    status = self.status,
                    error_code = self.error_code.as_deref(),
                    at = %format_rfc3339(self.at),
                    next_attempt_at = self.next_attempt_at.map(format_rfc3339),
                    "delivery"
                )
            };
        }
        match self.event {
            "dlq-failed" => record!(tracing::Level::WARN),
            "dead-lettered" | "discarded" | "blocked" => record!(tracing::Level::INFO),
            _ => record!(tracing::Level::DEBUG),
        }
    }
}

/// Filters of `GET /_switchyard/deliveries`.
#[derive(Debug, Default)]
pub struct DeliveryFilter {
    pub source: Option<String>,
    pub target: Option<String>,
    pub message_id: Option<String>,
    pub event: Option<String>,
    pub limit: usize,
}

/// A bounded log: when full, the oldest record makes room for the newest.
#[derive(Debug, Serialize, Deserialize)]
pub struct DeliveryLog {
    records: VecDeque<DeliveryRecord>,
    capacity: usize,
    /// Records let go to make room since the log was last emptied.
    evicted: u64,
}

impl DeliveryLog {
    pub fn new(capacity: usize) -> Self {
        DeliveryLog {
            records: VecDeque::new(),
            capacity: capacity.max(1),
            evicted: 0,
        }
    }

    pub fn push(&mut self, record: DeliveryRecord) {
        record.trace();
        if self.records.len() == self.capacity {
            self.records.pop_front();
            self.evicted += 1;
        }
        self.records.push_back(record);
    }

    /// Every record, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &DeliveryRecord> {
        self.records.iter()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Records let go to make room since the log was last emptied.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    /// The newest `filter.limit` matching records, oldest first.
    pub fn query(&self, f: &DeliveryFilter) -> Vec<&DeliveryRecord> {
        let eq = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        let mut hits: Vec<_> = self
            .records
            .iter()
            .rev()
            .filter(|r| {
                eq(&f.source, &r.source)
                    && eq(&f.target, &r.target)
                    && eq(&f.message_id, &r.message_id)
                    && eq(&f.event, r.event)
            })
            .take(f.limit)
            .collect();
        hits.reverse();
        hits
    }

    pub fn clear(&mut self) {
        self.records.clear();
        self.evicted = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(at: Millis, event: &'static str, source: &str) -> DeliveryRecord {
        DeliveryRecord {
            at,
            event,
            source: source.into(),
            target: "t".into(),
            protocol: "sqs".into(),
            message_id: format!("m{at}"),
            attempt: 1,
            phase: "initial",
            delay_seconds: 0.0,
            outcome: Some("delivered"),
            status: None,
            error_code: None,
            next_attempt_at: None,
        }
    }

    #[test]
    fn log_is_bounded_and_answers_newest_last() {
        let mut log = DeliveryLog::new(3);
        for at in 1..=5 {
            log.push(record(
                at,
                "attempt",
                if at % 2 == 0 { "even" } else { "odd" },
            ));
        }
        let all = DeliveryFilter {
            limit: 10,
            ..Default::default()
        };
        let ats: Vec<_> = log.query(&all).iter().map(|r| r.at).collect();
        assert_eq!(ats, [3, 4, 5]);
        let odd = DeliveryFilter {
            source: Some("odd".into()),
            limit: 1,
            ..Default::default()
        };
        let ats: Vec<_> = log.query(&odd).iter().map(|r| r.at).collect();
        assert_eq!(ats, [5]);
    }

    #[test]
    fn record_serializes_as_documented() {
        let json = serde_json::to_value(record(0, "attempt", "s")).unwrap();
        assert_eq!(json["at"], "1970-01-01T00:00:00.000Z");
        assert_eq!(json["messageId"], "m0");
        assert_eq!(json["nextAttemptAt"], serde_json::Value::Null);
        assert_eq!(json["errorCode"], serde_json::Value::Null);
    }
}
