//! What the control API shows of the engine's work: the delivery log, the outbox, the faults
//! in force and the metrics counters. Plain data; no I/O and no wire formats beyond serde.

use super::time::{Millis, format_rfc3339};
use serde::{Serialize, Serializer};
use std::collections::{BTreeMap, VecDeque};

fn rfc3339<S: Serializer>(at: &Millis, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_rfc3339(*at))
}

fn rfc3339_opt<S: Serializer>(at: &Option<Millis>, s: S) -> Result<S::Ok, S::Error> {
    match at {
        Some(at) => rfc3339(at, s),
        None => s.serialize_none(),
    }
}

/// One decision of the delivery engine, as CONTROL_API.md describes it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryRecord {
    #[serde(serialize_with = "rfc3339")]
    pub at: Millis,
    pub event: &'static str,
    pub source: String,
    pub target: String,
    pub protocol: String,
    pub message_id: String,
    pub attempt: u32,
    pub phase: &'static str,
    pub delay_seconds: f64,
    pub outcome: Option<&'static str>,
    pub status: Option<u16>,
    pub error_code: Option<String>,
    #[serde(serialize_with = "rfc3339_opt")]
    pub next_attempt_at: Option<Millis>,
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
#[derive(Debug)]
pub struct DeliveryLog {
    records: VecDeque<DeliveryRecord>,
    capacity: usize,
}

impl DeliveryLog {
    pub fn new(capacity: usize) -> Self {
        DeliveryLog {
            records: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    pub fn push(&mut self, record: DeliveryRecord) {
        if self.records.len() == self.capacity {
            self.records.pop_front();
        }
        self.records.push_back(record);
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
    }
}

/// A message "sent" to a receiver that cannot exist locally (e-mail, SMS, push, Lambda, ...).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct OutboxMessage {
    #[serde(serialize_with = "rfc3339")]
    pub at: Millis,
    pub protocol: String,
    pub target: String,
    pub source: String,
    pub message_id: String,
    pub body: String,
    pub attributes: BTreeMap<String, serde_json::Value>,
}

/// A failure injected on purpose for every delivery attempt to `target`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Fault {
    pub id: String,
    pub target: String,
    pub status: u16,
    pub error_code: Option<String>,
    /// Failed attempts left before the fault removes itself; `None` lasts until deleted.
    pub count: Option<u64>,
}

#[derive(Debug, Default)]
pub struct Faults {
    faults: Vec<Fault>,
}

impl Faults {
    pub fn add(&mut self, fault: Fault) {
        self.faults.push(fault);
    }

    pub fn list(&self) -> &[Fault] {
        &self.faults
    }

    pub fn remove(&mut self, id: &str) -> bool {
        let before = self.faults.len();
        self.faults.retain(|f| f.id != id);
        self.faults.len() != before
    }

    pub fn clear(&mut self) {
        self.faults.clear();
    }

    /// The fault an attempt to `target` meets now, counting the attempt against it.
    pub fn hit(&mut self, target: &str) -> Option<Fault> {
        let i = self.faults.iter().position(|f| f.target == target)?;
        let fault = self.faults[i].clone();
        if let Some(left) = &mut self.faults[i].count {
            *left = left.saturating_sub(1);
            if *left == 0 {
                self.faults.remove(i);
            }
        }
        Some(fault)
    }
}

/// Counters shown by `GET /_switchyard/metrics` in Prometheus text format.
#[derive(Debug, Default)]
pub struct Metrics {
    deliveries: BTreeMap<(String, String, String), u64>,
    aws: BTreeMap<(String, String, String), u64>,
}

impl Metrics {
    /// `switchyard_deliveries_total{service,event,outcome}`.
    pub fn delivery(&mut self, service: &str, event: &str, outcome: &str) {
        *self
            .deliveries
            .entry((service.into(), event.into(), outcome.into()))
            .or_default() += 1;
    }

    /// `switchyard_aws_metric_total{namespace,metric,resource}`: a counter AWS documents.
    pub fn aws(&mut self, namespace: &str, metric: &str, resource: &str, by: u64) {
        *self
            .aws
            .entry((namespace.into(), metric.into(), resource.into()))
            .or_default() += by;
    }

    pub fn clear(&mut self) {
        self.deliveries.clear();
        self.aws.clear();
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP switchyard_deliveries_total Delivery decisions by service, event kind and outcome.\n");
        out.push_str("# TYPE switchyard_deliveries_total counter\n");
        for ((service, event, outcome), n) in &self.deliveries {
            out.push_str(&format!(
                "switchyard_deliveries_total{{service=\"{}\",event=\"{}\",outcome=\"{}\"}} {n}\n",
                label(service),
                label(event),
                label(outcome)
            ));
        }
        out.push_str("# HELP switchyard_aws_metric_total Counters named as the AWS service documents them.\n");
        out.push_str("# TYPE switchyard_aws_metric_total counter\n");
        for ((namespace, metric, resource), n) in &self.aws {
            out.push_str(&format!(
                "switchyard_aws_metric_total{{namespace=\"{}\",metric=\"{}\",resource=\"{}\"}} {n}\n",
                label(namespace),
                label(metric),
                label(resource)
            ));
        }
        out
    }
}

/// Escapes a Prometheus label value.
fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
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

    #[test]
    fn counted_fault_removes_itself() {
        let mut faults = Faults::default();
        faults.add(Fault {
            id: "f".into(),
            target: "x".into(),
            status: 500,
            error_code: None,
            count: Some(2),
        });
        assert!(faults.hit("y").is_none());
        assert_eq!(faults.hit("x").map(|f| f.status), Some(500));
        assert!(faults.hit("x").is_some());
        assert!(faults.hit("x").is_none());
        assert!(faults.list().is_empty());
    }

    #[test]
    fn metrics_render_prometheus_text() {
        let mut m = Metrics::default();
        m.delivery("sns", "attempt", "retryable");
        m.delivery("sns", "attempt", "retryable");
        m.aws(
            "AWS/SNS",
            "NumberOfNotificationsFailed",
            "arn:aws:sns:us-east-1:0:t",
            1,
        );
        let text = m.render();
        assert!(text.contains("switchyard_deliveries_total{service=\"sns\",event=\"attempt\",outcome=\"retryable\"} 2\n"));
        assert!(text.contains("metric=\"NumberOfNotificationsFailed\""));
    }
}
