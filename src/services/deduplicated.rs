//! The delivery log's account of a message suppressed as a duplicate at publish (SNS FIFO
//! topics, custom buses): one `deduplicated` record, and its metric, for each place that would
//! have received it (docs/control-api.md, delivery log). The services find those places; the
//! record is written here.

use crate::engine::log::DeliveryRecord;
use crate::state::State;

/// Logs `message_id` as deduplicated towards each `(source, target, protocol)` in `receivers`,
/// counted under `service`.
pub fn log(
    e: &mut State,
    service: &str,
    message_id: &str,
    receivers: impl IntoIterator<Item = (String, String, String)>,
) {
    let now = e.now();
    for (source, target, protocol) in receivers {
        e.engine.metrics.delivery(service, "deduplicated", "");
        e.engine.log.push(DeliveryRecord {
            at: now,
            event: "deduplicated",
            source,
            target,
            protocol,
            message_id: message_id.to_string(),
            attempt: 0,
            phase: "initial",
            delay_seconds: 0.0,
            outcome: None,
            status: None,
            error_code: None,
            next_attempt_at: None,
        });
    }
}
