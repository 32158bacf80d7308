//! The counters of `GET /_switchyard/metrics`: delivery decisions by label, and the AWS-named
//! metrics (per namespace, metric and resource), rendered in Prometheus text format. Plain data.
//! Part of the engine: it depends on nothing above it.

use std::collections::BTreeMap;

/// Counters by three labels, nested so that counting an existing one allocates nothing (counts
/// are taken on every delivery); iterated in the order of the label triple.
type Counts = BTreeMap<String, BTreeMap<String, BTreeMap<String, u64>>>;

fn bump(counts: &mut Counts, [a, b, c]: [&str; 3], by: u64) {
    fn level<'m, V: Default>(map: &'m mut BTreeMap<String, V>, key: &str) -> &'m mut V {
        if !map.contains_key(key) {
            map.insert(key.to_owned(), V::default());
        }
        map.get_mut(key).expect("inserted above")
    }
    *level(level(level(counts, a), b), c) += by;
}

fn triples(counts: &Counts) -> impl Iterator<Item = ([&str; 3], u64)> {
    counts.iter().flat_map(|(a, bs)| {
        bs.iter().flat_map(move |(b, cs)| {
            cs.iter()
                .map(move |(c, n)| ([a.as_str(), b.as_str(), c.as_str()], *n))
        })
    })
}

/// Counters shown by `GET /_switchyard/metrics` in Prometheus text format.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Metrics {
    deliveries: Counts,
    aws: Counts,
}

impl Metrics {
    /// `switchyard_deliveries_total{service,event,outcome}`.
    pub fn delivery(&mut self, service: &str, event: &str, outcome: &str) {
        bump(&mut self.deliveries, [service, event, outcome], 1);
    }

    /// `switchyard_aws_metric_total{namespace,metric,resource}`: a counter AWS documents.
    pub fn aws(&mut self, namespace: &str, metric: &str, resource: &str, by: u64) {
        bump(&mut self.aws, [namespace, metric, resource], by);
    }

    pub fn clear(&mut self) {
        self.deliveries.clear();
        self.aws.clear();
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP switchyard_deliveries_total Delivery decisions by service, event kind and outcome.\n");
        out.push_str("# TYPE switchyard_deliveries_total counter\n");
        for ([service, event, outcome], n) in triples(&self.deliveries) {
            out.push_str(&format!(
                "switchyard_deliveries_total{{service=\"{}\",event=\"{}\",outcome=\"{}\"}} {n}\n",
                label(service),
                label(event),
                label(outcome)
            ));
        }
        out.push_str("# HELP switchyard_aws_metric_total Counters named as the AWS service documents them.\n");
        out.push_str("# TYPE switchyard_aws_metric_total counter\n");
        for ([namespace, metric, resource], n) in triples(&self.aws) {
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
        m.delivery("events", "attempt", "delivered");
        m.aws(
            "AWS/SNS",
            "NumberOfNotificationsFailed",
            "arn:aws:sns:us-east-1:0:t",
            1,
        );
        let text = m.render();
        assert!(text.contains("switchyard_deliveries_total{service=\"sns\",event=\"attempt\",outcome=\"retryable\"} 2\n"));
        assert!(text.contains("metric=\"NumberOfNotificationsFailed\""));
        // In label order: events before sns.
        let events = text.find("service=\"events\"").unwrap();
        assert!(events < text.find("service=\"sns\"").unwrap());
    }
}
