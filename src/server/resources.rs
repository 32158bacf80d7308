//! `GET /_switchyard/resources`: every resource of every account and region at a glance, for the
//! console and for tests. A read-only view over the service stores (plain data): it calls no
//! service operation and changes nothing.

use crate::config::QueueUrlStyle;
use crate::engine::time::{Millis, format_rfc3339};
use crate::services::sqs::urls;
use crate::state::State;
use crate::state::bus::store::Subscriber;
use crate::state::events::store::Rule;
use crate::state::sns::store::Subscription;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// (account, region) → the resources living there, by kind.
type Regions = BTreeMap<(String, String), Map<String, Value>>;

/// The whole view; queue URLs in `style` for `host` (as the AWS APIs would hand them to the
/// client: `--hostname`, else where the client reached the emulator).
pub(super) fn view(state: &State, host: &str, style: QueueUrlStyle) -> Value {
    let now = state.now();
    let mut regions = Regions::new();
    queues(state, host, style, now, &mut regions);
    topics(state, &mut regions);
    buses(state, &mut regions);
    custom_buses(state, &mut regions);
    streams(state, &mut regions);
    functions(state, &mut regions);
    mappings(state, &mut regions);
    let regions: Vec<Value> = regions
        .into_iter()
        .map(|((account, region), mut kinds)| {
            kinds.insert("account".into(), json!(account));
            kinds.insert("region".into(), json!(region));
            Value::Object(kinds)
        })
        .collect();
    json!({
        "now": format_rfc3339(now),
        "nextTimerAt": state.engine.next_due().map(format_rfc3339),
        "regions": regions,
    })
}

/// Appends `item` to the list `kind` of (account, region), making both as needed.
fn push(regions: &mut Regions, account: &str, region: &str, kind: &str, item: Value) {
    let kinds = regions
        .entry((account.to_string(), region.to_string()))
        .or_insert_with(|| {
            let mut m = Map::new();
            for k in [
                "queues",
                "topics",
                "eventBuses",
                "customBuses",
                "eventStreams",
                "archives",
                "replays",
                "functions",
                "eventSourceMappings",
            ] {
                m.insert(k.into(), json!([]));
            }
            m
        });
    if let Some(Value::Array(list)) = kinds.get_mut(kind) {
        list.push(item);
    }
}

fn time(ms: Millis) -> Value {
    json!(format_rfc3339(ms))
}

fn queues(state: &State, host: &str, style: QueueUrlStyle, now: Millis, regions: &mut Regions) {
    for (key, q) in &state.sqs.queues {
        let (visible, in_flight, delayed) = q.counts(now);
        let a = &q.attributes;
        let sources: Vec<&str> = state
            .sqs
            .queues
            .values()
            .filter(|other| {
                other
                    .attributes
                    .redrive
                    .as_ref()
                    .map(|(r, _)| &r.dead_letter_target_arn)
                    == Some(&q.arn)
            })
            .map(|other| other.arn.as_str())
            .collect();
        let item = json!({
            "name": key.name,
            "arn": q.arn,
            "url": urls::queue_url(style, host, key),
            "fifo": a.fifo,
            "visible": visible,
            "inFlight": in_flight,
            "delayed": delayed,
            "deadLetterQueue": a.redrive.as_ref().map(|(r, _)| &r.dead_letter_target_arn),
            "maxReceiveCount": a.redrive.as_ref().map(|(r, _)| r.max_receive_count),
            "redriveSources": sources,
            "attributes": {
                "VisibilityTimeout": a.visibility_timeout_s,
                "DelaySeconds": a.delay_s,
                "MessageRetentionPeriod": a.retention_s,
                "ReceiveMessageWaitTimeSeconds": a.receive_wait_s,
                "MaximumMessageSize": a.maximum_message_size,
                "ContentBasedDeduplication": a.content_based_dedup,
                "RedrivePolicy": a.redrive.as_ref().map(|(_, text)| text),
                "RedriveAllowPolicy": a.redrive_allow.as_ref().map(|(_, text)| text),
            },
            "tags": q.tags,
            "createdAt": time(q.created_at),
        });
        push(regions, &key.account, &key.region, "queues", item);
    }
}

/// The views of those of `items` that `belong` (to the resource being drawn).
fn views<'a, T: 'a>(
    items: impl Iterator<Item = &'a T>,
    belong: impl Fn(&T) -> bool,
    view: fn(&T) -> Value,
) -> Vec<Value> {
    items.filter(|item| belong(item)).map(view).collect()
}

fn subscription(s: &Subscription) -> Value {
    json!({
        "arn": s.arn,
        "protocol": s.protocol,
        "endpoint": s.endpoint,
        "confirmed": s.confirmed,
        "rawMessageDelivery": s.raw,
        "filterPolicy": s.filter.as_ref().map(|(_, text)| text),
        "deliveryPolicy": s.attributes.get("DeliveryPolicy"),
        "deadLetterQueue": s.redrive.as_ref().map(|(arn, _)| arn),
        "attributes": s.attributes,
    })
}

fn topics(state: &State, regions: &mut Regions) {
    let sns = &state.sns;
    for t in sns.topics.values() {
        let subscriptions = views(
            sns.subscriptions.values(),
            |s| s.topic_arn == t.arn,
            subscription,
        );
        let item = json!({
            "name": t.name, "arn": t.arn, "fifo": t.fifo, "attributes": t.attributes,
            "subscriptions": subscriptions, "createdAt": time(t.created_at),
        });
        push(regions, &t.account, &t.region, "topics", item);
    }
}

fn rule(r: &Rule) -> Value {
    json!({
        "name": r.name, "arn": r.arn, "state": r.state,
        "eventPattern": r.event_pattern.as_ref().map(|(text, _)| text),
        "scheduleExpression": r.schedule.as_ref().map(|(text, _)| text),
        "managedBy": r.managed_by, "targets": r.targets,
    })
}

fn buses(state: &State, regions: &mut Regions) {
    let events = &state.events;
    for b in events.buses.values() {
        let rules = views(events.rules.values(), |r| r.bus_arn == b.arn, rule);
        let item =
            json!({"name": b.name, "arn": b.arn, "rules": rules, "createdAt": time(b.created_at)});
        push(regions, &b.account, &b.region, "eventBuses", item);
    }
    for a in events.archives.values() {
        let item = json!({
            "name": a.name, "arn": a.arn, "sourceArn": a.source_arn, "state": a.state,
            "eventPattern": a.event_pattern.as_ref().map(|(text, _)| text),
            "retentionDays": a.retention_days, "eventCount": a.events.len(),
        });
        push(regions, &a.account, &a.region, "archives", item);
    }
    for r in events.replays.values() {
        let item = json!({
            "name": r.name, "arn": r.arn, "archiveArn": r.archive_arn, "state": r.state,
            "stateReason": r.state_reason, "destinationArn": r.destination_arn,
            "eventStartTime": time(r.event_start), "eventEndTime": time(r.event_end),
            "pending": r.pending.len(),
        });
        push(regions, &r.account, &r.region, "replays", item);
    }
}

fn subscriber(s: &Subscriber) -> Value {
    json!({
        "name": s.name,
        "arn": s.arn,
        "type": if s.fifo { "FIFO" } else { "UNORDERED" },
        "startingPosition": if s.point_in_time.is_some() { "POINT_IN_TIME" } else { "LATEST" },
        "filters": s.filters.iter().map(|f| json!({"scope": f.scope, "pattern": f.text})).collect::<Vec<_>>(),
        "targetArn": s.invoke.target_arn,
        "maxRetryAttempts": s.retry.max_retries,
        "maxEventAgeInSeconds": s.retry.max_age_ms / 1000,
        "onFailure": s.on_failure,
    })
}

fn custom_buses(state: &State, regions: &mut Regions) {
    let bus = &state.bus;
    for b in bus.buses.values() {
        let subscribers = views(bus.subscribers.values(), |s| s.bus_arn == b.arn, subscriber);
        let item = json!({
            "name": b.name, "arn": b.arn, "retentionDays": b.retention_days,
            "retainedEvents": b.events.len(), "subscribers": subscribers,
        });
        push(regions, &b.account, &b.region, "customBuses", item);
    }
}

fn streams(state: &State, regions: &mut Regions) {
    for s in state.streams.streams.values() {
        let item = json!({
            "name": s.name, "arn": s.arn, "state": s.state.name(), "stateReason": s.reason,
            "source": s.source.arn(), "targetArn": s.target.target_arn,
            "filter": s.filter.as_ref().map(|p| &p.text),
            "errorsTolerance": if s.run.tolerate_all { "ALL" } else { "NONE" },
            "deadLetter": s.run.dead_letter,
        });
        push(regions, &s.account, &s.region, "eventStreams", item);
    }
}

/// The invocations of a function shown with it, at the most (the newest).
const INVOCATIONS_SHOWN: usize = 20;

fn functions(state: &State, regions: &mut Regions) {
    for f in state.lambda.functions.values() {
        let of_function = |arn: &str| {
            arn == f.arn
                || arn
                    .strip_prefix(f.arn.as_str())
                    .is_some_and(|q| q.starts_with(':'))
        };
        let invocations: Vec<&_> = state
            .lambda
            .invocations
            .iter()
            .rev()
            .filter(|r| of_function(&r.function))
            .take(INVOCATIONS_SHOWN)
            .collect();
        let item = json!({
            "name": f.name, "arn": f.arn, "runtime": f.runtime, "handler": f.handler,
            "timeout": f.timeout, "memorySize": f.memory,
            "reservedConcurrency": f.reserved_concurrency, "deadLetter": f.dead_letter,
            "eventInvokeConfig": state.lambda.invoke_configs.get(&f.arn),
            "invocations": invocations,
        });
        push(regions, &f.account, &f.region, "functions", item);
    }
}

fn mappings(state: &State, regions: &mut Regions) {
    for m in state.lambda.mappings.values() {
        let item = json!({
            "name": m.uuid, "arn": m.arn, "state": m.state.name(), "source": m.source,
            "function": m.function, "batchSize": m.batch_size,
            "maximumBatchingWindowInSeconds": m.window_s,
            "batchesInFlight": m.batches.len(), "lastProcessingResult": m.last_result,
            "filters": m.filters.iter().map(|f| &f.text).collect::<Vec<_>>(),
        });
        push(regions, &m.account, &m.region, "eventSourceMappings", item);
    }
}
