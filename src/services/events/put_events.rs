//! PutEvents and what an event does on a bus: archived where an archive's pattern matches, sent
//! to the targets of every enabled rule whose pattern matches, each target its own delivery on
//! the engine (retry policy, dead-letter queue, throttle of an API destination).
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::arns::resolve_bus;
use super::errors::{EventsError, constraint};
use super::retry::TargetRetry;
use super::store::{Rule, Target as RuleTarget};
use super::{archives, buses};
use crate::arn::Arn;
use crate::engine::delivery::{
    Counters, DeadLetter, Delivery, Failure, Outcome, Publisher, SqsMessage,
};
use crate::engine::time::Millis;
use crate::services::Context;
use crate::services::event::entry::{Checked, EventFields, PutEventsOutput, ResultEntry};
use crate::services::event::envelope::envelope;
use crate::services::event::input::{self, Reserved, TargetInput};
use crate::services::sqs::shapes::MessageAttributeValue;
use crate::services::target::{self, Buses, Hop, Payload, adapt};
use crate::state::{State, Step};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The largest total size of a PutEvents request's entries (1 MiB since 2026-01-29; it was
/// 256 KB before).
pub const MAX_ENTRIES_BYTES: usize = 1024 * 1024;
const MAX_ENTRIES: usize = 10;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PutEventsInput {
    #[serde(default)]
    pub entries: Vec<Entry>,
}

/// A classic entry: the event's fields (shared with the custom bus), the bus it goes to and a
/// trace header.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Entry {
    #[serde(flatten)]
    pub event: EventFields,
    #[serde(default)]
    pub event_bus_name: Option<String>,
    #[serde(default)]
    pub trace_header: Option<String>,
}

impl Entry {
    /// The entry as AWS's validation message shows it (its Java `toString`).
    fn java_form(&self) -> String {
        let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "null".into());
        let event = &self.event;
        let time = event.time.as_ref().map_or("null".into(), Value::to_string);
        let resources = event
            .resources
            .as_ref()
            .map_or("null".into(), |r| format!("[{}]", r.join(", ")));
        format!(
            "PutEventsRequestEntry(time={time}, source={}, resources={resources}, detailType={}, detail={}, eventBusName={}, traceHeader={}, kmsKeyIdentifier=null, internalMetadata=null)",
            text(&event.source),
            text(&event.detail_type),
            text(&event.detail),
            text(&self.event_bus_name),
            text(&self.trace_header),
        )
    }
}

/// Classic EventBridge refuses a Detail with an integer beyond 64 bits (recorded).
fn integers_fit(v: &Value) -> bool {
    match v {
        Value::Number(n) => !(n.is_u64() && n.as_i64().is_none()),
        Value::Array(items) => items.iter().all(integers_fit),
        Value::Object(fields) => fields.values().all(integers_fit),
        _ => true,
    }
}

pub fn put_events(
    e: &mut State,
    cx: &Context,
    input: PutEventsInput,
) -> Result<PutEventsOutput, EventsError> {
    let count = input.entries.len();
    if count == 0 || count > MAX_ENTRIES {
        let shown = format!(
            "[{}]",
            input
                .entries
                .iter()
                .map(Entry::java_form)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let rule = if count == 0 {
            "Member must have length greater than or equal to 1"
        } else {
            "Member must have length less than or equal to 10"
        };
        return Err(constraint(&shown, "entries", rule));
    }
    if input.entries.iter().map(|e| e.event.size()).sum::<usize>() > MAX_ENTRIES_BYTES {
        return Err(EventsError::Validation(
            "Total size of the entries in the request is over the limit.".into(),
        ));
    }
    let now = e.now();
    e.events.ensure_default(&cx.region, &cx.account, now);
    let mut results = Vec::with_capacity(count);
    for entry in input.entries {
        let result = match accept(e, cx, entry, now) {
            Ok(id) => ResultEntry {
                event_id: Some(id),
                ..ResultEntry::default()
            },
            Err(failed) => failed,
        };
        results.push(result);
    }
    Ok(PutEventsOutput {
        failed_entry_count: results.iter().filter(|r| r.error_code.is_some()).count(),
        entries: results,
    })
}

/// One entry: checked, turned into an event and put on its bus. Answers the event id.
fn accept(e: &mut State, cx: &Context, entry: Entry, now: Millis) -> Result<String, ResultEntry> {
    let Checked {
        source,
        detail_type,
        detail,
        time,
    } = entry
        .event
        .check(now, integers_fit)
        .map_err(|(code, message)| ResultEntry::failed(code, message))?;
    let (bus_arn, _) = resolve_bus(cx, entry.event_bus_name.as_deref());
    let Some(bus) = e.events.buses.get(&bus_arn) else {
        // AWS accepts an event for a bus that does not exist and drops it (recorded).
        return Ok(e.engine.rng.uuid());
    };
    if bus.account != cx.account && !buses::allows(bus, &cx.account, "events:PutEvents") {
        return Err(ResultEntry::failed(
            "AccessDeniedException",
            super::access::refusal(e, cx, "events:PutEvents", &bus_arn),
        ));
    }
    let region = bus.region.clone();
    let id = e.engine.rng.uuid();
    let resources = entry.event.resources.unwrap_or_default();
    let event = envelope(
        &id,
        &detail_type,
        &source,
        &cx.account,
        time,
        &region,
        &resources,
        detail,
    );
    ingest(
        e,
        &bus_arn,
        event,
        Ingest {
            trail: vec![bus_arn.clone()],
            ..Ingest::default()
        },
    );
    Ok(id)
}

/// How an event reaches a bus.
#[derive(Debug, Default)]
pub struct Ingest<'a> {
    /// A replay's events go only to these rules (all of the bus's when `None`) and are not
    /// archived again.
    pub replay: Option<(&'a str, Option<&'a [String]>)>,
    /// The buses the event passed, this one included.
    pub trail: Vec<String>,
}

/// An event on a bus: archived, and sent to the targets of the rules it matches.
pub fn ingest(e: &mut State, bus_arn: &str, event: Value, how: Ingest) {
    let now = e.now();
    let text = json_text(&event);
    if how.replay.is_none() {
        archives::capture(e, bus_arn, &event, text.len());
    }
    let only = how.replay.and_then(|(_, rules)| rules);
    // Built under shared borrows of the rules, then started: no rule is copied per event.
    let mut triggered = Vec::new();
    let mut deliveries = Vec::new();
    let store = &e.events;
    for rule in store.candidates(bus_arn, &event) {
        let wanted = rule.enabled()
            && rule.managed_by.is_none()
            && !rule.targets.is_empty()
            && only.is_none_or(|only| only.contains(&rule.arn))
            && rule
                .event_pattern
                .as_ref()
                .is_some_and(|(_, p)| p.matches(&event));
        if !wanted {
            continue;
        }
        triggered.push(rule.arn.clone());
        for target in &rule.targets {
            deliveries.push(delivery_for(
                e, rule, target, &event, &text, now, &how.trail,
            ));
        }
    }
    for rule in triggered {
        e.engine
            .metrics
            .aws("AWS/Events", "TriggeredRules", &rule, 1);
    }
    for d in deliveries {
        e.deliver(d);
    }
}

/// The event of a scheduled rule (`Scheduled Event` from `aws.events`), sent to its targets.
pub fn fire_rule(e: &mut State, rule: &Rule, event: &Value) {
    let text = json_text(event);
    let now = e.now();
    e.engine
        .metrics
        .aws("AWS/Events", "TriggeredRules", &rule.arn, 1);
    for target in &rule.targets {
        let d = delivery_for(
            e,
            rule,
            target,
            event,
            &text,
            now,
            std::slice::from_ref(&rule.bus_arn),
        );
        e.deliver(d);
    }
}

/// An event a rule target hands to another bus (`Target::Bus`). The bus must exist and, in
/// another account, its policy must let the rule's account put events; an event coming back to
/// a bus it already passed is refused (AWS would loop until its own limits stopped it).
pub fn forward(e: &mut State, hop: Hop) -> Result<(), Failure> {
    let found = e.events.buses.get(hop.bus_arn);
    let bus = found.ok_or(Failure::NotFound("NO_RESOURCE"))?;
    if bus.account != hop.publisher.account
        && !buses::allows(bus, &hop.publisher.account, "events:PutEvents")
    {
        return Err(Failure::AccessDenied("NO_PERMISSIONS"));
    }
    target::refuse_loop(&hop.trail, hop.bus_arn)?;
    // A third account is one hop too far (THIRD_ACCOUNT_HOP_DETECTED in AWS's list).
    let accounts: std::collections::BTreeSet<&str> = hop
        .trail
        .iter()
        .chain([&bus.arn])
        .map(|arn| Arn::account_of(arn))
        .collect();
    if accounts.len() > 2 {
        return Err(Failure::Loop("THIRD_ACCOUNT_HOP_DETECTED"));
    }
    let event: Value = serde_json::from_str(hop.event).map_err(|_| Failure::InvalidJson)?;
    let mut trail = hop.trail;
    trail.push(hop.bus_arn.to_string());
    ingest(
        e,
        hop.bus_arn,
        event,
        Ingest {
            trail,
            ..Ingest::default()
        },
    );
    Ok(())
}

/// `event`'s compact JSON text: written straight into one buffer (`Value`'s `Display` goes
/// through the formatter a piece at a time, growing its string as it goes).
fn json_text(event: &Value) -> String {
    let mut text = Vec::with_capacity(512);
    match serde_json::to_writer(&mut text, event) {
        // serde_json writes UTF-8.
        Ok(()) => String::from_utf8(text).unwrap_or_default(),
        Err(_) => event.to_string(),
    }
}

/// One target's delivery of one event.
fn delivery_for(
    e: &State,
    rule: &Rule,
    target: &RuleTarget,
    event: &Value,
    text: &str,
    ingested_at: Millis,
    trail: &[String],
) -> Delivery<Step> {
    let reserved = Reserved {
        rule_arn: &rule.arn,
        rule_name: &rule.name,
        ingested_at,
    };
    let how = target_input(target);
    let mut doomed = None;
    let body = match input::render(&how, event, text, &reserved) {
        Ok(body) => body,
        Err(_) => {
            doomed = Some(Failure::InvalidJson);
            String::new()
        }
    };
    // Lambda takes JSON only.
    if doomed.is_none()
        && Arn::service_of(&target.arn) == "lambda"
        && serde_json::from_str::<Value>(&body).is_err()
    {
        doomed = Some(Failure::InvalidJson);
    }
    let publisher = Publisher {
        account: rule.account.clone(),
        host: rule.host.clone(),
    };
    // Only a bus target gets the whole event and the buses it passed.
    let to_bus = Arn::service_of(&target.arn) == "events";
    let payload = Payload {
        event: if to_bus {
            text.to_string()
        } else {
            String::new()
        },
        trail: if to_bus { trail.to_vec() } else { Vec::new() },
        group_id: target
            .sqs_parameters
            .as_ref()
            .and_then(|p| p.message_group_id.clone()),
        ..Payload::of(body)
    };
    let classic = Buses {
        classic: true,
        custom: false,
    };
    let params = target.http_parameters.clone().unwrap_or_default();
    let adapted = adapt(e, &target.arn, &publisher, payload, classic, &params);
    doomed = doomed.or(adapted.unusable.clone());
    let policy = retry_policy(target);
    let dead_letter = dead_letter(rule, target, text);
    let message_id = event
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let is_http = adapted.is_http();
    let mut delivery = Delivery::new(
        "events",
        format!("{}#{}", rule.arn, target.id),
        adapted.protocol,
        message_id,
        adapted.target,
        policy,
        dead_letter,
    )
    .born_at(ingested_at)
    .counted(Counters {
        namespace: "AWS/Events",
        resource: rule.arn.clone(),
        // Invocations counts hand-overs to the target; FailedInvocations those given up.
        delivered: Some("Invocations"),
        failed: Some("FailedInvocations"),
        dead_lettered: Some("InvocationsSentToDLQ"),
        dlq_failed: Some("InvocationsFailedToBeSentToDLQ"),
        ..Counters::default()
    });
    if is_http {
        delivery = delivery.also_known_as(target.arn.clone());
    }
    if let Some((key, per_second)) = adapted.throttle {
        // An API destination: AWS gives the endpoint 5 seconds to answer and honours its
        // Retry-After (eb-api-destinations).
        delivery = delivery
            .throttled(key, per_second)
            .timeout(5_000)
            .honouring_retry_after();
    }
    if let Some(failure) = doomed {
        delivery = delivery.doomed(Outcome::Permanent(failure));
    }
    delivery
}

/// A target's RetryPolicy, EventBridge's defaults where it sets none.
fn retry_policy(target: &RuleTarget) -> TargetRetry {
    target.retry_policy.map_or_else(TargetRetry::default, |p| {
        let defaults = TargetRetry::default();
        TargetRetry {
            max_retries: p
                .maximum_retry_attempts
                .map_or(defaults.max_retries, |n| n as u32),
            max_age_ms: p
                .maximum_event_age_in_seconds
                .map_or(defaults.max_age_ms, |s| s * 1000),
            ..defaults
        }
    })
}

/// The dead letter of an event `text` to `target` of `rule`, when the target has a dead-letter
/// queue: the event, with the rule's and target's ARNs as attributes.
fn dead_letter(
    rule: &Rule,
    target: &RuleTarget,
    text: &str,
) -> Option<DeadLetter<crate::state::Finish>> {
    target
        .dead_letter_config
        .as_ref()
        .and_then(|c| c.arn.clone())
        .map(|queue_arn| {
            let attributes = BTreeMap::from([
                (
                    "RULE_ARN".to_string(),
                    MessageAttributeValue::string(&rule.arn),
                ),
                (
                    "TARGET_ARN".to_string(),
                    MessageAttributeValue::string(&target.arn),
                ),
            ]);
            DeadLetter {
                queue_arn,
                message: SqsMessage {
                    body: text.into(),
                    attributes,
                    group_id: None,
                    dedup_id: None,
                    trace_header: None,
                },
                finish: Some(crate::state::Finish::Events),
                bus: None,
            }
        })
}

fn target_input(target: &RuleTarget) -> TargetInput<'_> {
    if let Some(text) = &target.input {
        TargetInput::Constant(text)
    } else if let Some(path) = &target.input_path {
        TargetInput::Path(path)
    } else if let Some(t) = &target.input_transformer {
        TargetInput::Transformer {
            paths: t.paths(),
            template: &t.input_template,
        }
    } else {
        TargetInput::Event
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entry_sizes_count_what_aws_counts() {
        let entry: Entry = serde_json::from_value(json!({
            "Time": 1,
            "Source": "ab",
            "Resources": ["r", "é"],
            "DetailType": "t",
            "Detail": "{}",
            "EventBusName": "ignored",
        }))
        .unwrap();
        assert_eq!(entry.event.size(), 14 + 2 + 1 + 2 + 1 + 2);
        assert_eq!(entry.event_bus_name.as_deref(), Some("ignored"));
    }

    #[test]
    fn details_must_be_objects_with_64_bit_integers() {
        let detail = |text: &str| EventFields {
            source: Some("app".into()),
            detail_type: Some("t".into()),
            detail: Some(text.into()),
            ..EventFields::default()
        };
        let check = |text: &str| detail(text).check(0, integers_fit);
        assert!(check(r#"{"a":[1,{"b":-9223372036854775808}]}"#).is_ok());
        for bad in ["[]", "1", "\"x\"", "{", r#"{"a":9223372036854775808}"#] {
            assert_eq!(check(bad).unwrap_err().0, "MalformedDetail", "{bad}");
        }
    }
}
