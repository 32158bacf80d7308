//! What a subscriber does with matching events: the delivered event (the EventBridge envelope
//! plus `system-metadata`), batches of up to MaxBatchSize for SQS targets, one ordered lane per
//! (publishing account, EventGroupId) for FIFO subscribers, and the
//! dead-letter record (docs/custom-bus.md, "Dead-letter records") with its error code.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::retry::BY_ATTEMPTS;
use super::store::{Invoke, PointInTime, Retained, Subscriber};
use crate::arn::Arn;
use crate::engine::delivery::{
    BatchEntry, Counters, DeadLetter, Delivery, Failure, GiveUp, Outcome, Publisher, SqsMessage,
};
use crate::engine::time::format_rfc3339;
use crate::services::SetMember;
use crate::services::event::envelope::envelope;
use crate::services::event::input::{self, Reserved, TargetInput};
use crate::services::events::store::HttpParameters;
use crate::services::sqs::shapes::MessageAttributeValue;
use crate::services::target::{Buses, Payload, adapt};
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
    event.set("system-metadata", system_metadata(ev, delivery_type));
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

/// The live subscribers of a bus any of `events` could match (the bus's routing index), in
/// ARN order: every one that matches is among them.
pub fn candidates(e: &State, bus_arn: &str, events: &[Retained]) -> Vec<Subscriber> {
    let envelopes: Vec<Value> = events.iter().map(envelope_of).collect();
    let found: Vec<Subscriber> = e
        .bus
        .candidates(bus_arn, &envelopes)
        .into_iter()
        .filter(|s| s.live())
        .cloned()
        .collect();
    // Debug builds check the index against a scan, so that a change not filed shows in tests.
    #[cfg(debug_assertions)]
    for s in e.bus.subscribers.values() {
        let missed = s.bus_arn == bus_arn
            && s.live()
            && !found.iter().any(|f| f.arn == s.arn)
            && events.iter().any(|ev| matches(s, ev, LIVE));
        assert!(
            !missed,
            "subscriber {} matches but the index does not name it",
            s.arn
        );
    }
    found
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
    let size = match Arn::service_of(&s.invoke.target_arn) {
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
        if let Some(d) = delivery(e, s, &batch, delivery_type) {
            e.deliver(d);
        }
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

/// The target input of each event of `batch`, and the first failure to render one (an input
/// transformation that does not apply).
fn render(
    s: &Subscriber,
    batch: &[&Retained],
    delivery_type: &str,
) -> (Vec<String>, Option<(Failure, String)>) {
    let how = target_input(&s.invoke);
    let mut doomed: Option<(Failure, String)> = None;
    let mut bodies = Vec::with_capacity(batch.len());
    for ev in batch {
        let event = event_json(ev, delivery_type);
        let text = event.to_string();
        let reserved = Reserved {
            rule_arn: &s.arn,
            rule_name: &s.name,
            ingested_at: ev.ingested_at,
        };
        match input::render(&how, &event, &text, &reserved) {
            Ok(body) => bodies.push(body),
            Err(err) => {
                doomed.get_or_insert((Failure::InputTransformation, err.0));
                bodies.push(String::new());
            }
        }
    }
    (bodies, doomed)
}

/// One delivery of `batch` (one event, or up to MaxBatchSize for an SQS target); none of an
/// empty one (chunks never are).
fn delivery(
    e: &mut State,
    s: &Subscriber,
    batch: &[&Retained],
    delivery_type: &str,
) -> Option<Delivery<Step>> {
    let now = e.now();
    let &first = batch.first()?;
    let (mut bodies, mut doomed) = render(s, batch, delivery_type);
    let arn = s.invoke.target_arn.clone();
    let publisher = Publisher {
        account: s.account.clone(),
        host: s.host.clone(),
    };
    let fifo_target = arn.ends_with(".fifo");
    // SQS targets take the batch; the others one event.
    let (body, entries) = match Arn::service_of(&arn) {
        "sqs" => {
            let entries = batch
                .iter()
                .zip(bodies)
                .map(|(ev, body)| BatchEntry {
                    id: ev.id.clone(),
                    message: SqsMessage {
                        body: body.into(),
                        attributes: BTreeMap::new(),
                        group_id: fifo_target.then(|| group_or_default(ev)),
                        dedup_id: fifo_target.then(|| ev.id.clone()),
                        trace_header: None,
                    },
                })
                .collect();
            (String::new(), Some(entries))
        }
        _ => (bodies.swap_remove(0), None),
    };
    let payload = Payload {
        event: event_json(first, delivery_type).to_string(),
        trail: first.trail.clone(),
        group_id: fifo_target.then(|| group_or_default(first)),
        dedup_id: fifo_target.then(|| first.id.clone()),
        batch: entries,
        ..Payload::of(body)
    };
    let custom = Buses {
        classic: false,
        custom: true,
    };
    let adapted = adapt(
        e,
        &arn,
        &publisher,
        payload,
        custom,
        &HttpParameters::default(),
    );
    if adapted.unusable.is_some() {
        let message = format!(
            "EventBridge can't access {arn}. Check that it exists and that the subscriber's delivery role is allowed to access it."
        );
        doomed.get_or_insert((Failure::NotFound("RESOURCE_NOT_FOUND"), message));
    }
    let (http, throttle) = (adapted.is_http(), adapted.throttle);
    let (protocol, target) = (adapted.protocol, adapted.target);
    let message = doomed.as_ref().map(|(_, m)| m.as_str());
    let dead_letter = dead_letter(e, s, batch, &arn, message);
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
        s.retry,
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
    if let Some((failure, _)) = doomed {
        d = d.doomed(Outcome::Permanent(failure));
    }
    Some(d)
}

/// The dead letter of `batch` to subscriber `s`'s target `arn`, when it has an on-failure
/// destination: the record (`message` being why the delivery cannot succeed, if known), with
/// the bus's, subscriber's and target's ARNs as attributes.
fn dead_letter(
    e: &mut State,
    s: &Subscriber,
    batch: &[&Retained],
    arn: &str,
    message: Option<&str>,
) -> Option<DeadLetter<crate::state::Finish>> {
    s.on_failure.as_ref().map(|queue_arn| {
        let fifo_dlq = queue_arn.ends_with(".fifo");
        let record = record_template(s, batch, message);
        let attributes = BTreeMap::from([
            (
                "BUS_ARN".to_string(),
                MessageAttributeValue::string(&s.bus_arn),
            ),
            (
                "SUBSCRIBER_ARN".to_string(),
                MessageAttributeValue::string(&s.arn),
            ),
            ("TARGET_ARN".to_string(), MessageAttributeValue::string(arn)),
        ]);
        DeadLetter {
            queue_arn: queue_arn.clone(),
            message: SqsMessage {
                body: record.to_string().into(),
                attributes,
                group_id: batch
                    .first()
                    .filter(|_| fifo_dlq)
                    .map(|ev| group_or_default(ev)),
                dedup_id: fifo_dlq.then(|| e.engine.rng.uuid()),
                trace_header: None,
            },
            finish: Some(crate::state::Finish::Bus),
            bus: None,
        }
    })
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
    let Some(failed) = outcome.failure() else {
        return ("INTERNAL_SERVER_ERROR".into(), generic());
    };
    let (code, message) = match failed.meaning() {
        Failure::InputTransformation => (
            "INPUT_TRANSFORMATION_FAILURE",
            known.map_or_else(generic, str::to_string),
        ),
        Failure::PartialBatch => ("PARTIAL_BATCH_FAILURE", generic()),
        Failure::TooLarge => ("REQUEST_TOO_LARGE", generic()),
        Failure::Loop("LOOP_DETECTED") => ("LOOP_DETECTED", generic()),
        Failure::Timeout => ("EXECUTION_TIMEOUT", generic()),
        Failure::NotFound(_) => ("RESOURCE_NOT_FOUND", cannot_access()),
        Failure::AccessDenied(_) => ("ACCESS_DENIED", cannot_access()),
        Failure::Status(429) => ("THROTTLING", generic()),
        Failure::Connection | Failure::Tls => ("INVOCATION_DEPENDENCY_INTERNAL", generic()),
        Failure::InvalidParameter(code) => (
            "CUSTOMER_VALIDATION",
            format!("The target API rejected the request: {code}."),
        ),
        Failure::Status(500..=599) => ("INVOCATION_DEPENDENCY_INTERNAL", generic()),
        Failure::Status(status) => (
            "CUSTOMER_VALIDATION",
            format!("The target answered HTTP status code {status}."),
        ),
        other => {
            let code = other.code().unwrap_or("INTERNAL_SERVER_ERROR");
            return (code.to_string(), generic());
        }
    };
    (code.to_string(), message)
}

/// Completes the record with how the delivery ended; a batch's record lists only the events still
/// undelivered.
pub(crate) fn finish_record(message: &mut SqsMessage, how: &GiveUp) {
    let Ok(mut record) = serde_json::from_str::<Value>(&message.body.text()) else {
        return;
    };
    let known = record
        .get("errorMessage")
        .and_then(Value::as_str)
        .map(str::to_string);
    let (code, text) = failure(how.outcome, how.target, known.as_deref());
    let text: String = text.chars().take(MAX_ERROR_MESSAGE_CHARS).collect();
    let condition = how.exhausted.unwrap_or(BY_ATTEMPTS);
    let retries = how.attempts.saturating_sub(1);
    record.set("errorCode", json!(code));
    record.set("errorMessage", json!(text));
    record.set("exhaustedRetryCondition", json!(condition));
    record.set("retryAttempts", json!(retries));
    if let Some(failed) = record
        .get_mut("failedMessages")
        .and_then(Value::as_array_mut)
    {
        if !how.items.is_empty() {
            failed.retain(|m| {
                m.get("eventId")
                    .and_then(Value::as_str)
                    .is_some_and(|id| how.items.contains(&id))
            });
        }
        for m in failed.iter_mut() {
            m.set("targetRequestId", json!(how.request_id.unwrap_or_default()));
        }
    }
    message.body = record.to_string().into();
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

    fn failed(failure: Failure) -> Outcome {
        Outcome::failed(failure)
    }

    fn injected(status: u16, code: &str) -> Failure {
        Failure::Injected {
            status,
            code: Some(code.into()),
        }
    }

    #[test]
    fn error_codes_follow_the_spec_table() {
        let table = [
            (Failure::Status(500), "INVOCATION_DEPENDENCY_INTERNAL"),
            (Failure::Status(503), "INVOCATION_DEPENDENCY_INTERNAL"),
            (Failure::Status(400), "CUSTOMER_VALIDATION"),
            (Failure::Status(429), "THROTTLING"),
            (
                Failure::NotFound("AWS.SimpleQueueService.NonExistentQueue"),
                "RESOURCE_NOT_FOUND",
            ),
            (Failure::Timeout, "EXECUTION_TIMEOUT"),
            (Failure::Connection, "INVOCATION_DEPENDENCY_INTERNAL"),
            (Failure::InputTransformation, "INPUT_TRANSFORMATION_FAILURE"),
            (Failure::TooLarge, "REQUEST_TOO_LARGE"),
            (Failure::PartialBatch, "PARTIAL_BATCH_FAILURE"),
            (Failure::Loop("LOOP_DETECTED"), "LOOP_DETECTED"),
            (
                Failure::InvalidParameter("MissingParameter"),
                "CUSTOMER_VALIDATION",
            ),
            (injected(500, "KMS_INVALID_STATE"), "KMS_INVALID_STATE"),
            (injected(403, "ACCESS_DENIED"), "ACCESS_DENIED"),
            (injected(500, "ThrottlingException"), "THROTTLING"),
        ];
        for (failure, want) in table {
            let (got, message) = super::failure(&failed(failure.clone()), "arn:t", Some("expr"));
            assert_eq!(got, want, "{failure:?}");
            assert!(!message.is_empty());
        }
        let (_, message) = failure(&failed(Failure::Status(500)), "arn:t", None);
        assert_eq!(message, GENERIC_MESSAGE);
        let (_, message) = failure(&failed(Failure::InputTransformation), "t", Some("bad"));
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
            .to_string()
            .into(),
            attributes: BTreeMap::new(),
            group_id: None,
            dedup_id: None,
            trace_header: None,
        };
        let outcome = failed(Failure::InputTransformation);
        let how = GiveUp {
            attempts: 3,
            exhausted: Some("MaximumEventAgeInSeconds"),
            outcome: &outcome,
            target: "arn:t",
            items: vec!["b"],
            request_id: Some("r-1"),
        };
        finish_record(&mut message, &how);
        let record: Value = serde_json::from_str(&message.body.text()).unwrap();
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
