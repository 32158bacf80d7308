//! The counters of `GET /_switchyard/metrics`: delivery decisions by label, and the AWS-named
//! metrics (per namespace, metric and resource), rendered in Prometheus text format. Plain data.
//! Part of the engine: it depends on nothing above it.

use std::collections::BTreeMap;

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
