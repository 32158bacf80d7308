//! What a subscriber does with matching events: the delivered event (the EventBridge envelope
//! plus `system-metadata`), batches of up to MaxBatchSize for SQS targets, one ordered lane per
//! (publishing account, EventGroupId) for FIFO subscribers, the target adapters, and the
//! dead-letter record (custom-bus-retry-dlq.md section 3) with its error code.

use super::retry::BY_ATTEMPTS;
use super::store::{Invoke, PointInTime, Retained, Subscriber};
use crate::engine::delivery::{BatchEntry, PARTIAL_BATCH_FAILURE, REQUEST_TOO_LARGE};
use crate::engine::delivery::{
    Counters, DeadLetter, Delivery, GiveUp, Outcome, Publisher, SqsMessage, Target,
};
use crate::engine::time::format_rfc3339;
use crate::services::event::envelope::envelope;
use crate::services::event::input::{self, Reserved, TargetInput};
use crate::services::events::connections;
use crate::services::events::put_events::{arn_service, lambda_target};
use crate::services::events::store::HttpParameters;
use crate::services::sqs::types::MessageAttributeValue;
use crate::state::{State, Step};
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub const LIVE: &str = "LIVE";
pub const REPLAY: &str = "REPLAY";

/// The errorMessage of codes whose cause should not be passed on (spec 3.1, back-translated).
pub const GENERIC_MESSAGE: &str = "Delivery failed. Use this record's error code and request ID \
    when investigating, and contact AWS Support if the failure persists.";
/// The longest errorMessage a record carries.
pub const MAX_ERROR_MESSAGE_CHARS: usize = 1024;
/// The MessageGroupId given to ungrouped events where a FIFO queue or topic needs one (decision).
pub const UNGROUPED: &str = "default";

/// The envelope of `ev` as subscribers see it, without the system metadata.
fn envelope_of(ev: &Retained) -> Value {
    envelope(
        &ev.id,
        &ev.detail_type,
        &ev.source,
        &ev.account,
        ev.time,
        &ev.region,
        &ev.resources,
        ev.detail.clone(),
    )
}

fn system_metadata(ev: &Retained, delivery_type: &str) -> Value {
    json!({
        "aws:EventId": ev.id,
        "aws:EventGroupId": ev.group,
        "aws:DeduplicationId": ev.dedup_id,
        "aws:DeliveryType": delivery_type,
    })
}

/// The delivered event: the envelope with `system-metadata` after `detail`.
pub fn event_json(ev: &Retained, delivery_type: &str) -> Value {
    let mut event = envelope_of(ev);
    event["system-metadata"] = system_metadata(ev, delivery_type);
    event
}

/// Whether `ev` passes every filter of `s`: EVENT patterns against the envelope, SYSTEM_METADATA
/// patterns against the system-metadata object.
pub fn matches(s: &Subscriber, ev: &Retained, delivery_type: &str) -> bool {
    if s.filters.is_empty() {
        return true;
    }
    let envelope = envelope_of(ev);
    let metadata = system_metadata(ev, delivery_type);
    s.filters.iter().all(|f| match f.scope.as_str() {
        "SYSTEM_METADATA" => f.pattern.matches(&metadata),
        _ => f.pattern.matches(&envelope),
    })
}

/// Replays the retained events of the bus whose time lies in `window` (both ends included).
pub fn replay(e: &mut State, s: &Subscriber, window: PointInTime) {
    let now = e.now();
    let Some(bus) = e.bus.buses.get_mut(&s.bus_arn) else {
        return;
    };
    bus.expire(now);
    let events: Vec<Retained> = bus
        .events
        .iter()
        .filter(|ev| window.start.is_none_or(|start| ev.time >= start))
        .filter(|ev| window.end.is_none_or(|end| ev.time <= end))
        .cloned()
        .collect();
    dispatch(e, s, &events, REPLAY);
}

/// The lane of a FIFO subscriber's event: one per (publishing account, EventGroupId); ungrouped
/// events of an account share one.
fn lane(s: &Subscriber, ev: &Retained) -> String {
    let group = ev.group.as_deref().unwrap_or("");
    format!("{}#{}#{group}", s.arn, ev.account)
}

/// Hands the events of `events` that match `s` to it, in order: batches of up to MaxBatchSize
/// (SQS targets; events of one lane for FIFO subscribers), each one delivery.
pub fn dispatch(e: &mut State, s: &Subscriber, events: &[Retained], delivery_type: &str) {
    let matched: Vec<&Retained> = events
        .iter()
        .filter(|ev| matches(s, ev, delivery_type))
        .collect();
    let size = match arn_service(&s.invoke.target_arn) {
        "sqs" => s.invoke.max_batch_size.max(1),
        _ => 1,
    };
    let mut batches: Vec<Vec<&Retained>> = Vec::new();
    if s.fifo {
        let mut lanes: Vec<(String, Vec<&Retained>)> = Vec::new();
        for ev in matched {
            let key = lane(s, ev);
            match lanes.iter_mut().find(|(k, _)| *k == key) {
                Some((_, evs)) => evs.push(ev),
                None => lanes.push((key, vec![ev])),
            }
        }
        for (_, evs) in lanes {
            batches.extend(evs.chunks(size).map(<[&Retained]>::to_vec));
        }
    } else {
        batches.extend(matched.chunks(size).map(<[&Retained]>::to_vec));
    }
    for batch in batches {
        let d = delivery(e, s, &batch, delivery_type);
        e.deliver(d);
    }
}

pub(crate) fn target_input(invoke: &Invoke) -> TargetInput<'_> {
    if let Some(text) = &invoke.input {
        TargetInput::Constant(text)
    } else if let Some(t) = &invoke.transformer {
        TargetInput::Transformer {
            paths: &t.paths,
            template: &t.template,
        }
    } else {
        TargetInput::Event
    }
}

fn group_or_default(ev: &Retained) -> String {
    ev.group.clone().unwrap_or_else(|| UNGROUPED.into())
}

/// One delivery of `batch` (one event, or up to MaxBatchSize for an SQS target).
fn delivery(
    e: &mut State,
    s: &Subscriber,
    batch: &[&Retained],
    delivery_type: &str,
) -> Delivery<Step> {
    let now = e.now();
    let first = batch[0];
    let how = target_input(&s.invoke);
    let mut doomed: Option<(&'static str, String)> = None;
    let mut bodies = Vec::with_capacity(batch.len());
    for ev in batch {
        let event = event_json(ev, delivery_type);
        let text = event.to_string();
        let ingestion_time = format_rfc3339(ev.ingested_at);
        let reserved = Reserved {
            rule_arn: &s.arn,
            rule_name: &s.name,
            ingestion_time: &ingestion_time,
        };
        match input::render(&how, &event, &text, &reserved) {
            Ok(body) => bodies.push(body),
            Err(err) => {
                doomed.get_or_insert(("INPUT_TRANSFORMATION_FAILURE", err.0));
                bodies.push(String::new());
            }
        }
    }
    let arn = s.invoke.target_arn.clone();
    let publisher = Publisher {
        account: s.account.clone(),
        host: s.host.clone(),
    };
    let fifo_target = arn.ends_with(".fifo");
    let mut throttle = None;
    let mut http = false;
    let (protocol, target) = match arn_service(&arn) {
        "sqs" => {
            let entries = batch
                .iter()
                .zip(bodies)
                .map(|(ev, body)| BatchEntry {
                    id: ev.id.clone(),
                    message: SqsMessage {
                        body,
                        attributes: BTreeMap::new(),
                        group_id: fifo_target.then(|| group_or_default(ev)),
                        dedup_id: fifo_target.then(|| ev.id.clone()),
                    },
                })
                .collect();
            let target = Target::SqsBatch {
                queue_arn: arn.clone(),
                entries,
            };
            ("sqs", target)
        }
        "sns" => {
            let target = Target::Sns {
                topic_arn: arn.clone(),
                publisher,
                body: bodies.swap_remove(0),
                group_id: fifo_target.then(|| group_or_default(first)),
                dedup_id: fifo_target.then(|| first.id.clone()),
            };
            ("sns", target)
        }
        "events" if arn.contains(":event-busv2/") => {
            let target = Target::Bus {
                bus_arn: arn.clone(),
                publisher,
                event: event_json(first, delivery_type).to_string(),
                trail: first.trail.clone(),
            };
            ("event-bus", target)
        }
        "events" if arn.contains(":api-destination/") => {
            let body = bodies.swap_remove(0);
            match connections::invocation(e, &arn, &HttpParameters::default()) {
                Ok(call) => {
                    throttle = call.rate_limit_per_second.map(|r| (arn.clone(), r));
                    http = true;
                    ("api-destination", call.into_target(body))
                }
                Err(_) => {
                    let message = format!(
                        "EventBridge can't access {arn}. Check that it exists and that the subscriber's delivery role is allowed to access it."
                    );
                    doomed.get_or_insert(("RESOURCE_NOT_FOUND", message));
                    ("api-destination", Target::outbox(&arn, body))
                }
            }
        }
        "lambda" => {
            let target = lambda_target(e, &arn, bodies.swap_remove(0));
            http = matches!(target, Target::Http { .. });
            ("lambda", target)
        }
        other => (other, Target::outbox(&arn, bodies.swap_remove(0))),
    };
    let dead_letter = s.on_failure.as_ref().map(|queue_arn| {
        let fifo_dlq = queue_arn.ends_with(".fifo");
        let record = record_template(s, batch, doomed.as_ref().map(|(_, m)| m.as_str()));
        let attributes = BTreeMap::from([
            (
                "BUS_ARN".to_string(),
                MessageAttributeValue::string(&s.bus_arn),
            ),
            (
                "SUBSCRIBER_ARN".to_string(),
                MessageAttributeValue::string(&s.arn),
            ),
            (
                "TARGET_ARN".to_string(),
                MessageAttributeValue::string(&arn),
            ),
        ]);
        DeadLetter {
            queue_arn: queue_arn.clone(),
            message: SqsMessage {
                body: record.to_string(),
                attributes,
                group_id: fifo_dlq.then(|| group_or_default(first)),
                dedup_id: fifo_dlq.then(|| e.engine.rng.uuid()),
            },
            finish: Some(finish_record),
            bus: None,
        }
    });
    let born_at = if delivery_type == LIVE {
        first.ingested_at
    } else {
        now
    };
    let mut d = Delivery::new(
        "eventsv2",
        s.arn.clone(),
        protocol.to_string(),
        first.id.clone(),
        target,
        Box::new(s.retry),
        dead_letter,
    )
    .born_at(born_at)
    .internal_faults(s.arn.clone())
    .with_request_ids()
    .counted(Counters {
        namespace: "AWS/Events",
        resource: s.arn.clone(),
        dropped: Some("EventsDropped"),
        dlq_failed: Some("OnFailureDestinationFailed"),
        ..Counters::default()
    });
    if s.fifo {
        d = d.in_lane(lane(s, first));
    }
    if let (true, Some(seconds)) = (http, s.invoke.timeout_seconds) {
        d = d.timeout(seconds * 1000);
    }
    if let Some((key, per_second)) = throttle {
        d = d.throttled(key, per_second);
    }
    if let Some((code, _)) = doomed {
        d = d.doomed(Outcome::Permanent {
            status: None,
            error_code: Some(code.into()),
        });
    }
    d
}

/// The dead-letter record before the delivery ends: the fields known now, the others null.
fn record_template(s: &Subscriber, batch: &[&Retained], message: Option<&str>) -> Value {
    let failed: Vec<Value> = batch
        .iter()
        .map(|ev| {
            json!({
                "eventId": ev.id,
                "eventGroupId": ev.group,
                "deduplicationId": ev.dedup_id,
                "timestamp": format_rfc3339(ev.time),
                "targetRequestId": "",
            })
        })
        .collect();
    json!({
        "version": "1.0",
        "busArn": s.bus_arn,
        "subscriberArn": s.arn,
        "targetArn": s.invoke.target_arn,
        "errorCode": null,
        "errorMessage": message,
        "exhaustedRetryCondition": null,
        "retryAttempts": 0,
        "failedMessages": failed,
    })
}

/// The record's errorCode and errorMessage for how the last attempt ended (spec 3.1): the causes
/// switchyard can meet get their code; a fault's own errorCode is used as given otherwise.
pub fn failure(outcome: &Outcome, target: &str, known: Option<&str>) -> (String, String) {
    let generic = || GENERIC_MESSAGE.to_string();
    let cannot_access = || {
        format!(
            "EventBridge can't access {target}. Check that it exists and that the subscriber's delivery role is allowed to access it."
        )
    };
    let (code, message) = match (outcome.error_code(), outcome.status()) {
        (Some("INPUT_TRANSFORMATION_FAILURE"), _) => (
            "INPUT_TRANSFORMATION_FAILURE",
            known.map_or_else(generic, str::to_string),
        ),
        (Some(PARTIAL_BATCH_FAILURE), _) => (PARTIAL_BATCH_FAILURE, generic()),
        (Some(REQUEST_TOO_LARGE), _) => (REQUEST_TOO_LARGE, generic()),
        (Some("LOOP_DETECTED"), _) => ("LOOP_DETECTED", generic()),
        (Some("Timeout"), _) => ("EXECUTION_TIMEOUT", generic()),
        (
            Some(
                "AWS.SimpleQueueService.NonExistentQueue"
                | "NotFound"
                | "NO_RESOURCE"
                | "RESOURCE_NOT_FOUND"
                | "ResourceNotFoundException",
            ),
            _,
        ) => ("RESOURCE_NOT_FOUND", cannot_access()),
        (Some("ACCESS_DENIED" | "AuthorizationError" | "AccessDeniedException"), _) => {
            ("ACCESS_DENIED", cannot_access())
        }
        (Some("THROTTLING" | "ThrottlingException" | "Throttling"), _) | (None, Some(429)) => {
            ("THROTTLING", generic())
        }
        (Some("ConnectionError" | "TlsError"), _) => ("INVOCATION_DEPENDENCY_INTERNAL", generic()),
        (
            Some(
                code @ ("InvalidParameterValue"
                | "MissingParameter"
                | "InvalidParameter"
                | "ValidationException"
                | "InvalidArgument"),
            ),
            None,
        ) => (
            "CUSTOMER_VALIDATION",
            format!("The target API rejected the request: {code}."),
        ),
        (Some(code), _) => return (code.to_string(), generic()),
        (None, Some(500..=599)) => ("INVOCATION_DEPENDENCY_INTERNAL", generic()),
        (None, Some(status)) => (
            "CUSTOMER_VALIDATION",
            format!("The target answered HTTP status code {status}."),
        ),
        (None, None) => ("INTERNAL_SERVER_ERROR", generic()),
    };
    (code.to_string(), message)
}

/// Completes the record with how the delivery ended; a batch's record lists only the events still
/// undelivered.
fn finish_record(message: &mut SqsMessage, how: &GiveUp) {
    let Ok(mut record) = serde_json::from_str::<Value>(&message.body) else {
        return;
    };
    let known = record["errorMessage"].as_str().map(str::to_string);
    let (code, text) = failure(how.outcome, how.target, known.as_deref());
    let text: String = text.chars().take(MAX_ERROR_MESSAGE_CHARS).collect();
    let condition = how.exhausted.unwrap_or(BY_ATTEMPTS);
    let retries = how.attempts.saturating_sub(1);
    record["errorCode"] = json!(code);
    record["errorMessage"] = json!(text);
    record["exhaustedRetryCondition"] = json!(condition);
    record["retryAttempts"] = json!(retries);
    if let Some(failed) = record["failedMessages"].as_array_mut() {
        if !how.items.is_empty() {
            failed.retain(|m| {
                m["eventId"]
                    .as_str()
                    .is_some_and(|id| how.items.contains(&id))
            });
        }
        for m in failed.iter_mut() {
            m["targetRequestId"] = json!(how.request_id.unwrap_or_default());
        }
    }
    message.body = record.to_string();
    let attrs = &mut message.attributes;
    attrs.insert("ERROR_CODE".into(), MessageAttributeValue::string(&code));
    attrs.insert("ERROR_MESSAGE".into(), MessageAttributeValue::string(&text));
    attrs.insert(
        "EXHAUSTED_RETRY_CONDITION".into(),
        MessageAttributeValue::string(condition),
    );
    attrs.insert(
        "RETRY_ATTEMPTS".into(),
        MessageAttributeValue::string(&retries.to_string()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(status: Option<u16>, code: Option<&str>) -> Outcome {
        Outcome::Permanent {
            status,
            error_code: code.map(str::to_string),
        }
    }

    #[test]
    fn error_codes_follow_the_spec_table() {
        let table = [
            (Some(500), None, "INVOCATION_DEPENDENCY_INTERNAL"),
            (Some(503), None, "INVOCATION_DEPENDENCY_INTERNAL"),
            (Some(400), None, "CUSTOMER_VALIDATION"),
            (Some(429), None, "THROTTLING"),
            (
                None,
                Some("AWS.SimpleQueueService.NonExistentQueue"),
                "RESOURCE_NOT_FOUND",
            ),
            (None, Some("Timeout"), "EXECUTION_TIMEOUT"),
            (
                None,
                Some("INPUT_TRANSFORMATION_FAILURE"),
                "INPUT_TRANSFORMATION_FAILURE",
            ),
            (None, Some("REQUEST_TOO_LARGE"), "REQUEST_TOO_LARGE"),
            (None, Some("PARTIAL_BATCH_FAILURE"), "PARTIAL_BATCH_FAILURE"),
            (None, Some("LOOP_DETECTED"), "LOOP_DETECTED"),
            (None, Some("MissingParameter"), "CUSTOMER_VALIDATION"),
            (Some(500), Some("KMS_INVALID_STATE"), "KMS_INVALID_STATE"),
            (Some(403), Some("ACCESS_DENIED"), "ACCESS_DENIED"),
        ];
        for (status, code, want) in table {
            let (got, message) = failure(&failed(status, code), "arn:t", Some("expr"));
            assert_eq!(got, want, "{status:?} {code:?}");
            assert!(!message.is_empty());
        }
        let (_, message) = failure(&failed(Some(500), None), "arn:t", None);
        assert_eq!(message, GENERIC_MESSAGE);
        let (_, message) = failure(
            &failed(None, Some("INPUT_TRANSFORMATION_FAILURE")),
            "t",
            Some("bad"),
        );
        assert_eq!(message, "bad");
    }

    #[test]
    fn records_list_only_the_undelivered_events_and_cut_the_message() {
        let long = "x".repeat(3000);
        let mut message = SqsMessage {
            body: json!({
                "version": "1.0", "errorCode": null, "errorMessage": long,
                "exhaustedRetryCondition": null, "retryAttempts": 0,
                "failedMessages": [
                    {"eventId": "a", "targetRequestId": ""},
                    {"eventId": "b", "targetRequestId": ""}
                ]
            })
            .to_string(),
            attributes: BTreeMap::new(),
            group_id: None,
            dedup_id: None,
        };
        let outcome = failed(None, Some("INPUT_TRANSFORMATION_FAILURE"));
        let how = GiveUp {
            attempts: 3,
            exhausted: Some("MaximumEventAgeInSeconds"),
            outcome: &outcome,
            target: "arn:t",
            items: vec!["b"],
            request_id: Some("r-1"),
        };
        finish_record(&mut message, &how);
        let record: Value = serde_json::from_str(&message.body).unwrap();
        assert_eq!(
            record["errorMessage"].as_str().unwrap().chars().count(),
            1024
        );
        assert_eq!(record["retryAttempts"], 2);
        assert_eq!(
            record["failedMessages"],
            json!([{"eventId": "b", "targetRequestId": "r-1"}])
        );
        let names: Vec<&String> = message.attributes.keys().collect();
        assert_eq!(
            names,
            [
                "ERROR_CODE",
                "ERROR_MESSAGE",
                "EXHAUSTED_RETRY_CONDITION",
                "RETRY_ATTEMPTS"
            ]
        );
        assert_eq!(
            message.attributes["RETRY_ATTEMPTS"].string_value.as_deref(),
            Some("2")
        );
    }
}
