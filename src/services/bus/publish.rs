//! PutEvents on a custom bus: entries checked, duplicates suppressed at publish (CONTENT_BASED or
//! SystemMetadata.DeduplicationId, 300 s on the virtual clock, scoped to the publishing account
//! and event group), accepted events retained for the bus's retention period and handed to the
//! subscribers whose filters match. Also the hand-over from a subscriber to another custom bus.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::store::{DEDUP_WINDOW_MS, DedupKey, Retained};
use super::{V2Error, constraint, deliver, length, one_of};
use crate::arn::Arn;
use crate::engine::delivery::Failure;
use crate::engine::time::parse_rfc3339;
use crate::services::Context;
use crate::services::deduplicated;
use crate::services::event::entry::{Checked, EventFields, PutEventsOutput, ResultEntry};
use crate::services::target::{self, Hop};
use crate::state::State;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The largest total size of a request's entries (as classic EventBridge: 1 MiB).
const MAX_ENTRIES_BYTES: usize = 1024 * 1024;
const MAX_ENTRIES: usize = 10;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PutEventsInput {
    pub event_bus_arn: String,
    #[serde(default)]
    pub entries: Vec<Entry>,
    pub deduplication_configuration: Option<DeduplicationConfiguration>,
}

/// A custom bus's entry: the event's fields (shared with classic EventBridge) and its system
/// metadata.
#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct Entry {
    #[serde(flatten)]
    pub event: EventFields,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_metadata: Option<SystemMetadata>,
}

#[derive(Debug, Default, Clone, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct SystemMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_group_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deduplication_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct DeduplicationConfiguration {
    pub deduplication_type: String,
}

/// The CONTENT_BASED key: SHA-256 of the entry's content (Source, DetailType, the Detail text as
/// sent, Resources and the Time if given), hex (decision: AWS does not say what it hashes).
fn content_hash(entry: &Entry) -> String {
    let event = &entry.event;
    let content = json!([
        event.source,
        event.detail_type,
        event.detail,
        event.resources.clone().unwrap_or_default(),
        event.time,
    ]);
    hex::encode(Sha256::digest(content.to_string().as_bytes()))
}

fn check_metadata(metadata: &SystemMetadata, i: usize) -> Result<(), V2Error> {
    let member = format!("entries.{i}.member.systemMetadata");
    if let Some(g) = &metadata.event_group_id {
        length(g, &format!("{member}.eventGroupId"), 1, 128)?;
    }
    if let Some(d) = &metadata.deduplication_id {
        length(d, &format!("{member}.deduplicationId"), 1, 128)?;
    }
    Ok(())
}

pub(super) fn put_events(
    e: &mut State,
    cx: &Context,
    input: PutEventsInput,
) -> Result<PutEventsOutput, V2Error> {
    let count = input.entries.len();
    if count == 0 || count > MAX_ENTRIES {
        let rule = if count == 0 {
            "Member must have length greater than or equal to 1"
        } else {
            "Member must have length less than or equal to 10"
        };
        let shown = serde_json::to_string(&input.entries).unwrap_or_default();
        return Err(constraint(shown, "entries", rule));
    }
    for (i, entry) in input.entries.iter().enumerate() {
        if let Some(m) = &entry.system_metadata {
            check_metadata(m, i + 1)?;
        }
    }
    let content_based = match &input.deduplication_configuration {
        Some(c) => {
            let member = "deduplicationConfiguration.deduplicationType";
            one_of(&c.deduplication_type, member, &["CONTENT_BASED"])?;
            true
        }
        None => false,
    };
    if input.entries.iter().map(|e| e.event.size()).sum::<usize>() > MAX_ENTRIES_BYTES {
        return Err(V2Error::Validation(
            "Total size of the entries in the request is over the limit.".into(),
        ));
    }
    // Any account may publish to a bus it knows the ARN of: the API has no resource policies.
    let Some(bus) = e.bus.buses.get(&input.event_bus_arn) else {
        return Err(super::buses::bus_not_found(&input.event_bus_arn));
    };
    // The bus's sequence numbers are counted here and written back once, after the entries.
    let (bus_arn, region, mut sequence) = (bus.arn.clone(), bus.region.clone(), bus.sequence);
    let now = e.now();
    e.bus.dedup.retain(|_, (at, _)| now - *at < DEDUP_WINDOW_MS);
    let mut results = Vec::with_capacity(count);
    let mut accepted = Vec::new();
    for entry in input.entries {
        // The custom bus takes any object as Detail.
        let event = match entry.event.check(now, |_| true) {
            Ok(event) => event,
            Err((code, message)) => {
                results.push(ResultEntry::failed(code, message));
                continue;
            }
        };
        let metadata = entry.system_metadata.clone().unwrap_or_default();
        // Decision: an entry's own DeduplicationId wins over CONTENT_BASED (as in SQS).
        let key = match (&metadata.deduplication_id, content_based) {
            (Some(id), _) => Some(id.clone()),
            (None, true) => Some(content_hash(&entry)),
            (None, false) => None,
        };
        let scope = key.map(|key| DedupKey {
            bus_arn: bus_arn.clone(),
            account: cx.account.clone(),
            group: metadata.event_group_id.clone(),
            key,
        });
        if let Some((_, original)) = scope.as_ref().and_then(|k| e.bus.dedup.get(k)) {
            let original = original.clone();
            log_duplicate(e, &bus_arn, &original, &event, &metadata, &cx.account);
            results.push(ResultEntry {
                event_id: Some(original),
                success_code: Some("DEDUPLICATED"),
                ..ResultEntry::default()
            });
            continue;
        }
        let id = e.engine.rng.uuid();
        if let Some(scope) = scope {
            e.bus.dedup.insert(scope, (now, id.clone()));
        }
        let Checked {
            source,
            detail_type,
            detail,
            time,
        } = event;
        let retained = Retained {
            id: id.clone(),
            account: cx.account.clone(),
            region: region.clone(),
            source,
            detail_type,
            detail,
            resources: entry.event.resources.unwrap_or_default(),
            time,
            group: metadata.event_group_id,
            dedup_id: metadata.deduplication_id,
            ingested_at: now,
            trail: vec![bus_arn.clone()],
            sequence: 0,
        };
        sequence += 1;
        let retained = Retained {
            sequence,
            ..retained
        };
        results.push(ResultEntry {
            event_id: Some(id),
            sequence_number: Some(format!("{sequence:020}")),
            success_code: Some("PUBLISHED"),
            ..ResultEntry::default()
        });
        accepted.push(retained);
    }
    if let Some(bus) = e.bus.buses.get_mut(&bus_arn) {
        bus.sequence = sequence;
    }
    retain_and_deliver(e, &bus_arn, accepted);
    Ok(PutEventsOutput {
        failed_entry_count: results.iter().filter(|r| r.error_code.is_some()).count(),
        entries: results,
    })
}

/// Events accepted by a bus: kept for its retention period and delivered to its live subscribers.
fn retain_and_deliver(e: &mut State, bus_arn: &str, events: Vec<Retained>) {
    if events.is_empty() {
        return;
    }
    let now = e.now();
    let Some(bus) = e.bus.buses.get_mut(bus_arn) else {
        return;
    };
    bus.expire(now);
    bus.events.extend(events.iter().cloned());
    let subscribers = deliver::candidates(e, bus_arn, &events);
    for subscriber in subscribers {
        deliver::dispatch(e, &subscriber, &events, deliver::LIVE);
    }
    e.engine.arrived(bus_arn.to_string());
}

/// A suppressed duplicate: one `deduplicated` record per subscriber that would have received it
/// (the bus itself when none would), naming the event it repeats (docs/control-api.md).
fn log_duplicate(
    e: &mut State,
    bus_arn: &str,
    original: &str,
    event: &Checked,
    metadata: &SystemMetadata,
    account: &str,
) {
    let now = e.now();
    let region = Arn::region_of(bus_arn).to_string();
    let probe = Retained {
        id: original.to_string(),
        account: account.to_string(),
        region,
        source: event.source.clone(),
        detail_type: event.detail_type.clone(),
        detail: event.detail.clone(),
        resources: Vec::new(),
        time: event.time,
        group: metadata.event_group_id.clone(),
        dedup_id: metadata.deduplication_id.clone(),
        ingested_at: now,
        trail: Vec::new(),
        sequence: 0,
    };
    let mut pairs: Vec<(String, String)> = e
        .bus
        .subscribers
        .values()
        .filter(|s| s.bus_arn == bus_arn && s.live())
        .filter(|s| deliver::matches(s, &probe, deliver::LIVE))
        .map(|s| (s.arn.clone(), s.invoke.target_arn.clone()))
        .collect();
    if pairs.is_empty() {
        pairs.push((bus_arn.to_string(), bus_arn.to_string()));
    }
    let receivers = pairs
        .into_iter()
        .map(|(source, target)| (source, target, "eventsv2".to_string()));
    deduplicated::log(e, "eventsv2", original, receivers);
}

/// An event a subscriber hands to another custom bus (`Target::Bus`): published there by the
/// subscriber's account as a new event (new id; source, detail-type, detail, resources, time,
/// event group and dedup id kept; no dedup check). An event coming back to a bus it already
/// passed is refused: LOOP_DETECTED.
pub fn forward(e: &mut State, hop: Hop) -> Result<(), Failure> {
    let Hop {
        bus_arn,
        publisher,
        event,
        mut trail,
    } = hop;
    let found = e.bus.buses.get(bus_arn);
    let bus = found.ok_or(Failure::NotFound("RESOURCE_NOT_FOUND"))?;
    if bus.account != publisher.account {
        return Err(Failure::AccessDenied("ACCESS_DENIED"));
    }
    target::refuse_loop(&trail, bus_arn)?;
    let region = bus.region.clone();
    let event: Value = serde_json::from_str(event).map_err(|_| Failure::InputTransformation)?;
    let text = |key: &str| event.get(key).and_then(Value::as_str).map(str::to_string);
    let metadata = event.get("system-metadata");
    let meta = |key: &str| {
        metadata
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let now = e.now();
    let resources = event
        .get("resources")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    trail.push(bus_arn.to_string());
    let retained = Retained {
        id: e.engine.rng.uuid(),
        account: publisher.account.clone(),
        region,
        source: text("source").unwrap_or_default(),
        detail_type: text("detail-type").unwrap_or_default(),
        detail: event.get("detail").cloned().unwrap_or_else(|| json!({})),
        resources,
        time: text("time").and_then(|t| parse_rfc3339(&t)).unwrap_or(now),
        group: meta("aws:EventGroupId"),
        dedup_id: meta("aws:DeduplicationId"),
        ingested_at: now,
        trail,
        sequence: 0,
    };
    let mut retained = retained;
    if let Some(bus) = e.bus.buses.get_mut(bus_arn) {
        bus.sequence += 1;
        retained.sequence = bus.sequence;
    }
    retain_and_deliver(e, bus_arn, vec![retained]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(detail: &str) -> Entry {
        Entry {
            event: EventFields {
                source: Some("shop".into()),
                detail_type: Some("OrderPlaced".into()),
                detail: Some(detail.into()),
                time: None,
                resources: None,
            },
            system_metadata: None,
        }
    }

    #[test]
    fn content_hashes_cover_source_type_detail_resources_and_time() {
        let base = content_hash(&entry(r#"{"a":1}"#));
        assert_eq!(base, content_hash(&entry(r#"{"a":1}"#)));
        assert_eq!(base.len(), 64);
        assert_ne!(base, content_hash(&entry(r#"{"a":2}"#)));
        assert_ne!(
            base,
            content_hash(&entry(r#"{ "a":1}"#)),
            "the text as sent"
        );
        let mut timed = entry(r#"{"a":1}"#);
        timed.event.time = Some(json!(1));
        assert_ne!(base, content_hash(&timed));
        let mut sourced = entry(r#"{"a":1}"#);
        sourced.event.source = Some("other".into());
        assert_ne!(base, content_hash(&sourced));
    }
}
