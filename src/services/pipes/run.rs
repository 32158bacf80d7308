//! A pipe at work, on the virtual clock. Changes of state (CREATING, STARTING, STOPPING,
//! UPDATING, DELETING) settle [`TRANSITION_MS`] after they begin, when the source, enrichment
//! and target are checked. A running pipe reads its SQS queue as a consumer would: it receives a
//! batch (hidden for the queue's visibility timeout, receive counts raised, so the queue's own
//! redrive policy applies), deletes the messages its filters drop, sends the rest through the
//! enrichment and to the target as deliveries of the engine, and deletes each message only when
//! its delivery succeeded. A failed message is left alone: it comes back when its visibility
//! timeout ends.
//!
//! Nothing polls on a period: a pipe looks at its queue when it starts, after each batch, when a
//! message arrives, when its batching window closes and when the next hidden message becomes
//! visible.

use super::store::{Batch, Pipe, PipeState, Stage, Timer};
use crate::arn::Arn;
use crate::engine::delivery::{
    Counters, Delivery, Ending, Failure, Follow, Keep, NoRetries, Outcome, Publisher, Target,
};
use crate::engine::time::{Millis, format_rfc3339};
use crate::services::event::input::render_paths;
use crate::services::events::store::HttpParameters;
use crate::services::sqs::store::Held;
use crate::services::sqs::{consume, record};
use crate::services::target::{self, Buses, Payload, adapt};
use crate::state::{State, Step};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// How long a change of state takes (virtual time).
pub(super) const TRANSITION_MS: Millis = 1_000;
/// The metrics namespace of pipes, and the label of their deliveries.
pub(super) const NAMESPACE: &str = "AWS/EventBridge/Pipes";
pub(super) const SERVICE: &str = "pipes";
/// After a batch that failed, the next look waits this long (a source queue with a visibility
/// timeout of 0 would otherwise hand the same messages back at the same instant for ever).
const BACKOFF_MS: Millis = 1_000;
/// Batches a pipe takes at one virtual instant before it waits a moment (a target that feeds
/// the source would otherwise loop at one instant).
const MAX_BATCHES_AT_ONCE: u32 = 100;
/// The longest StateReason.
const MAX_REASON_CHARS: usize = 512;

pub fn fire(e: &mut State, timer: Timer) {
    match timer {
        Timer::Settle { pipe, token } => settle(e, &pipe, token),
        Timer::Poll(pipe) => poll(e, &pipe),
    }
}

/// Begins a change of state: the pipe is in `state` now and settles [`TRANSITION_MS`] later.
pub(super) fn begin(e: &mut State, arn: &str, state: PipeState) {
    e.pipes.tokens += 1;
    let token = e.pipes.tokens;
    let Some(p) = e.pipes.pipes.get_mut(arn) else {
        return;
    };
    p.state = state;
    p.reason = None;
    p.settling = Some(token);
    p.poll_at = None;
    p.window_opened_at = None;
    let due = e.now() + TRANSITION_MS;
    let pipe = arn.to_string();
    e.schedule(due, Step::Pipe(Timer::Settle { pipe, token }));
}

fn reason(text: String) -> Option<String> {
    Some(text.chars().take(MAX_REASON_CHARS).collect())
}

/// Whether the source queue, the enrichment and the target exist or can be invoked.
pub(super) fn check(e: &State, p: &Pipe) -> Result<(), String> {
    let invalid = "Input parameter is invalid from the request due to :";
    if e.sqs.by_arn(&p.source).is_none() {
        return Err(format!("{invalid} Source {} does not exist.", p.source));
    }
    if let Some(enrichment) = &p.settings.enrichment
        && !target::exists(e, enrichment)
    {
        return Err(format!(
            "{invalid} Enrichment {enrichment} does not exist or cannot be invoked."
        ));
    }
    let t = &p.settings.target;
    if !target::exists(e, t) {
        return Err(format!(
            "{invalid} Target {t} does not exist or cannot be invoked."
        ));
    }
    Ok(())
}

/// A change of state is over: DELETING removes the pipe, STOPPING stops it, the others check
/// the pipe and go to its desired state or to their failed state.
fn settle(e: &mut State, arn: &str, token: u64) {
    let Some(p) = e.pipes.pipes.get(arn) else {
        return;
    };
    if p.settling != Some(token) {
        return;
    }
    let failed = match p.state {
        PipeState::Deleting => {
            e.pipes.pipes.remove(arn);
            return;
        }
        PipeState::Stopping => None,
        PipeState::Creating => Some(PipeState::CreateFailed),
        PipeState::Updating => Some(PipeState::UpdateFailed),
        _ => Some(PipeState::StartFailed),
    };
    let checked = check(e, p);
    let desired = p.settings.desired;
    // `check` looks at the whole state: the pipe is taken mutably only now.
    let Some(p) = e.pipes.pipes.get_mut(arn) else {
        return;
    };
    p.settling = None;
    match (checked, failed) {
        (Err(why), Some(failed)) => {
            p.state = failed;
            p.reason = reason(why);
        }
        (_, None) => {
            p.state = PipeState::Stopped;
            p.reason = None;
        }
        (Ok(()), Some(_)) => {
            p.state = desired;
            p.reason = None;
            if desired == PipeState::Running {
                schedule_poll(e, arn, e.now());
            }
        }
    }
}

/// A running pipe whose source queue is gone stops reading it, with the reason.
pub(super) fn refresh_all(e: &mut State) {
    let State { pipes, sqs, .. } = e;
    let gone = pipes
        .pipes
        .values_mut()
        .filter(|p| p.state == PipeState::Running && sqs.by_arn(&p.source).is_none());
    for p in gone {
        p.state = PipeState::StartFailed;
        p.reason = reason(format!("Source {} does not exist.", p.source));
        p.poll_at = None;
    }
}

/// A message arrived in queue `source_arn`: its idle running pipes look at it now.
pub fn wake_source(e: &mut State, source_arn: &str) {
    let arns: Vec<String> = e
        .pipes
        .pipes
        .values()
        .filter(|p| p.source == source_arn)
        .map(|p| p.arn.clone())
        .collect();
    for arn in arns {
        schedule_poll(e, &arn, e.now());
    }
}

/// Messages may have arrived in any queue (a move task step): every idle pipe looks.
pub fn wake_all(e: &mut State) {
    let arns: Vec<String> = e.pipes.pipes.keys().cloned().collect();
    for arn in arns {
        schedule_poll(e, &arn, e.now());
    }
}

/// Schedules a look at the source at `at`, unless the pipe is not running, is busy with a
/// batch, or has a look due by then already.
fn schedule_poll(e: &mut State, arn: &str, at: Millis) {
    let Some(p) = e.pipes.pipes.get_mut(arn) else {
        return;
    };
    if p.state != PipeState::Running || p.batch.is_some() || p.poll_at.is_some_and(|due| due <= at)
    {
        return;
    }
    p.poll_at = Some(at);
    e.schedule(at, Step::Pipe(Timer::Poll(arn.to_string())));
}

/// One source message as the pipe handles it.
struct Record {
    held: Held,
    /// The event: the SQS record of the message, its body a string.
    event: Value,
    /// What filters and templates see: the same record, its body parsed when it is JSON.
    view: Value,
}

/// Looks at the source: takes a batch when one is full, the batching window has closed, or
/// there is no window; else waits for more messages or the window's end.
fn poll(e: &mut State, arn: &str) {
    let now = e.now();
    let Some(p) = e.pipes.pipes.get_mut(arn) else {
        return;
    };
    if p.poll_at.is_some_and(|due| due <= now) {
        p.poll_at = None;
    }
    if p.state != PipeState::Running || p.batch.is_some() {
        return;
    }
    let (queue, size, window) = (
        p.source.clone(),
        p.settings.sqs.batch_size as usize,
        Millis::from(p.settings.sqs.window_s) * 1000,
    );
    loop {
        let visible = consume::visible(e, &queue);
        let next_visible_at = match visible {
            0 => consume::next_visible_at(e, &queue),
            _ => None,
        };
        // Looked up again each time round: taking and deleting messages changes the state.
        let Some(p) = e.pipes.pipes.get_mut(arn) else {
            return;
        };
        if visible == 0 {
            p.window_opened_at = None;
            if let Some(at) = next_visible_at {
                schedule_poll(e, arn, at);
            }
            return;
        }
        if visible < size && window > 0 {
            let closes = *p.window_opened_at.get_or_insert(now) + window;
            if now < closes {
                return schedule_poll(e, arn, closes);
            }
        }
        p.window_opened_at = None;
        if too_busy(p, now) {
            return schedule_poll(e, arn, now + BACKOFF_MS);
        }
        let Ok(taken) = consume::take_batch(e, &queue, size) else {
            return refresh_all(e);
        };
        if taken.is_empty() {
            continue;
        }
        let Some(p) = e.pipes.pipes.get(arn) else {
            return;
        };
        let records: Vec<Record> = taken
            .into_iter()
            .map(|(held, handle)| {
                let event = record::lambda_record(&held.message, &p.source, &handle, &p.region);
                let view = record::with_parsed_body(&event);
                Record { held, event, view }
            })
            .collect();
        e.engine
            .metrics
            .aws(NAMESPACE, "EventCount", arn, records.len() as u64);
        let filters = &p.settings.filters;
        let (kept, dropped): (Vec<Record>, Vec<Record>) = records.into_iter().partition(|r| {
            filters.is_empty() || filters.iter().any(|f| f.pattern.matches(&r.view))
        });
        // Filtered out: consumed without delivery, as AWS does.
        for r in &dropped {
            consume::delete(e, &queue, &r.held);
        }
        if kept.is_empty() {
            continue;
        }
        return start_batch(e, arn, kept);
    }
}

/// Counts the batches taken at this instant; too many means a loop.
fn too_busy(p: &mut Pipe, now: Millis) -> bool {
    match p.batches_at {
        (at, n) if at == now && n >= MAX_BATCHES_AT_ONCE => true,
        (at, n) if at == now => {
            p.batches_at = (at, n + 1);
            false
        }
        _ => {
            p.batches_at = (now, 1);
            false
        }
    }
}

/// A batch begins its way: through the enrichment if the pipe has one, else to the target.
fn start_batch(e: &mut State, arn: &str, records: Vec<Record>) {
    e.engine.metrics.aws(NAMESPACE, "Invocations", arn, 1);
    e.pipes.tokens += 1;
    let token = e.pipes.tokens;
    let items: Vec<(Value, Value)> = records
        .iter()
        .map(|r| (r.event.clone(), r.view.clone()))
        .collect();
    let Some(p) = e.pipes.pipes.get_mut(arn) else {
        return;
    };
    let enrichment = p.settings.enrichment.clone();
    p.batch = Some(Batch {
        token,
        messages: records.into_iter().map(|r| r.held).collect(),
        pending: 0,
        failed: BTreeSet::new(),
        all_failed: false,
        items: Vec::new(),
    });
    match enrichment {
        Some(enrichment) => enrich(e, arn, token, &enrichment, items),
        None => to_target(e, arn, token, items, true),
    }
}

/// What a template gives for one item: its rendering as JSON when it is JSON, else as a string;
/// the item's event itself without a template.
fn rendered(
    p: &Pipe,
    template: Option<&str>,
    event: &Value,
    view: &Value,
) -> Result<Value, Failure> {
    let Some(template) = template else {
        return Ok(event.clone());
    };
    let text = view.to_string();
    let enrichment = p.settings.enrichment.clone().unwrap_or_default();
    let reserved = |name: &str| -> Option<String> {
        Some(match name {
            "aws.pipes.pipe-arn" => p.arn.clone(),
            "aws.pipes.pipe-name" => p.name.clone(),
            "aws.pipes.source-arn" => p.source.clone(),
            "aws.pipes.enrichment-arn" => enrichment.clone(),
            "aws.pipes.target-arn" => p.settings.target.clone(),
            _ => return None,
        })
    };
    let out =
        render_paths(template, view, &text, &reserved).map_err(|_| Failure::InputTransformation)?;
    Ok(serde_json::from_str(&out).unwrap_or(Value::String(out)))
}

/// A value as a request body: JSON text, a string as it is.
fn body_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn template_of(params: &Value) -> Option<&str> {
    params.get("InputTemplate").and_then(Value::as_str)
}

fn http_parameters(params: &Value) -> HttpParameters {
    params
        .get("HttpParameters")
        .and_then(|h| serde_json::from_value(h.clone()).ok())
        .unwrap_or_default()
}

/// How the delivery log names a delivery that carries a whole batch: the pipe and the batch.
fn batch_id(p: &Pipe, token: u64) -> String {
    format!("{}/batch-{token}", p.name)
}

/// A delivery of the pipe, followed by the pipe, its answer kept, never retried (the source
/// queue's visibility timeout is the retry).
fn delivery(
    p: &Pipe,
    token: u64,
    stage: Stage,
    (message_id, request_id): (String, Option<String>),
    target: &str,
    payload: Payload,
    e: &State,
) -> Delivery<Step> {
    let params = match stage {
        Stage::Enrichment => &p.settings.enrichment_parameters,
        _ => &p.settings.target_parameters,
    };
    let publisher = Publisher {
        account: p.account.clone(),
        host: p.host.clone(),
    };
    let both = Buses {
        classic: true,
        custom: true,
    };
    let adapted = adapt(
        e,
        target,
        &publisher,
        payload,
        both,
        &http_parameters(params),
    );
    let failed = match stage {
        Stage::Enrichment => "EnrichmentStageFailed",
        _ => "TargetStageFailed",
    };
    // A function of this emulator is invoked synchronously, its answer awaited, as Pipes
    // invokes an enrichment and a target whose LambdaFunctionParameters.InvocationType is
    // REQUEST_RESPONSE (the default); FIRE_AND_FORGET hands the event to its queue.
    let fire_and_forget = params
        .pointer("/LambdaFunctionParameters/InvocationType")
        .and_then(Value::as_str)
        == Some("FIRE_AND_FORGET");
    let target = match adapted.target {
        Target::Lambda {
            function,
            publisher,
            payload,
        } if stage == Stage::Enrichment || !fire_and_forget => Target::Invoke {
            function,
            payload,
            request_id: request_id.unwrap_or_default(),
            host: publisher.host,
        },
        other => other,
    };
    let mut d = Delivery::new(
        SERVICE,
        p.arn.clone(),
        adapted.protocol.clone(),
        message_id,
        target,
        NoRetries,
        None,
    )
    .followed_by(Follow {
        keep: Keep::Always,
        then: Step::PipeDelivered {
            pipe: p.arn.clone(),
            token,
            stage,
        },
    })
    .keeping_answer()
    .counted(Counters {
        namespace: NAMESPACE,
        resource: p.arn.clone(),
        failed: Some(failed),
        ..Counters::default()
    });
    if let Some((key, per_second)) = adapted.throttle {
        d = d.throttled(key, per_second);
    }
    if adapted.unusable.is_some() {
        d = d.doomed(Outcome::Permanent(Failure::NotFound("NotFound")));
    }
    d
}

/// A request id for an invocation of `target` when it is a Lambda function (drawn only then,
/// so the ids of other pipes' deliveries stay as they were).
fn invocation_id(e: &mut State, target: &str) -> Option<String> {
    (Arn::service_of(target) == "lambda").then(|| e.engine.rng.uuid())
}

/// Sends the batch to the enrichment: one invocation with the array of its items (each through
/// the enrichment's InputTemplate).
fn enrich(e: &mut State, arn: &str, token: u64, enrichment: &str, items: Vec<(Value, Value)>) {
    let request_id = invocation_id(e, enrichment);
    let Some(p) = e.pipes.pipes.get(arn) else {
        return;
    };
    let params = p.settings.enrichment_parameters.clone();
    let template = template_of(&params);
    let inputs: Result<Vec<Value>, Failure> = items
        .iter()
        .map(|(event, view)| rendered(p, template, event, view))
        .collect();
    let (body, doomed, kept) = match inputs {
        Ok(inputs) => (Value::Array(inputs.clone()).to_string(), None, inputs),
        Err(f) => (String::new(), Some(f), Vec::new()),
    };
    let mut d = delivery(
        p,
        token,
        Stage::Enrichment,
        (batch_id(p, token), request_id),
        enrichment,
        Payload::of(body),
        e,
    );
    if let Some(f) = doomed {
        d = d.doomed(Outcome::Permanent(f));
    }
    let batch = e.pipes.pipes.get_mut(arn).and_then(|p| p.batch.as_mut());
    if let Some(b) = batch {
        b.pending = 1;
        b.items = kept;
    }
    e.deliver(d);
}

/// Sends the items to the target: a Lambda function gets the whole batch in one invocation,
/// other targets one delivery per item. `mapped`: item `n` stands for message `n` (no
/// enrichment changed their number), so a failure of one leaves only its message.
fn to_target(e: &mut State, arn: &str, token: u64, items: Vec<(Value, Value)>, mapped: bool) {
    if items.is_empty() {
        return finish(e, arn);
    }
    let Some(target) = e.pipes.pipes.get(arn).map(|p| p.settings.target.clone()) else {
        return;
    };
    let request_id = invocation_id(e, &target);
    let Some(p) = e.pipes.pipes.get(arn) else {
        return;
    };
    let params = p.settings.target_parameters.clone();
    let template = template_of(&params);
    let mut deliveries = Vec::new();
    if Arn::service_of(&target) == "lambda" {
        let bodies: Result<Vec<Value>, Failure> = items
            .iter()
            .map(|(event, view)| rendered(p, template, event, view))
            .collect();
        let (body, doomed) = match bodies {
            Ok(bodies) => (Value::Array(bodies).to_string(), None),
            Err(f) => (String::new(), Some(f)),
        };
        let id = batch_id(p, token);
        let payload = Payload::of(body);
        let mut d = delivery(
            p,
            token,
            Stage::Whole,
            (id, request_id),
            &target,
            payload,
            e,
        );
        if let Some(f) = doomed {
            d = d.doomed(Outcome::Permanent(f));
        }
        deliveries.push(d);
    } else {
        for (n, (event, view)) in items.iter().enumerate() {
            let stage = match mapped {
                true => Stage::Item(n),
                false => Stage::Whole,
            };
            let (payload, doomed) = match rendered(p, template, event, view) {
                Ok(value) => (item_payload(e, p, &params, &value, view), None),
                Err(f) => (Payload::of(String::new()), Some(f)),
            };
            let id = match view.get("messageId").and_then(Value::as_str) {
                Some(id) => id.to_string(),
                None => format!("{}/{n}", batch_id(p, token)),
            };
            let mut d = delivery(p, token, stage, (id, None), &target, payload, e);
            if let Some(f) = doomed {
                d = d.doomed(Outcome::Permanent(f));
            }
            deliveries.push(d);
        }
    }
    if let Some(b) = e.pipes.pipes.get_mut(arn).and_then(|p| p.batch.as_mut()) {
        b.pending = deliveries.len();
    }
    for d in deliveries {
        e.deliver(d);
    }
}

/// A JSON path parameter (`$.body.group`) read from `view`, or the value as written.
fn dynamic(value: &str, view: &Value) -> Option<String> {
    let Some(path) = value.strip_prefix("$.") else {
        return Some(value.to_string());
    };
    let found = path.split('.').try_fold(view, |v, key| v.get(key))?;
    Some(body_of(found))
}

/// What one item gives the target: the message of an SQS queue (FIFO group and deduplication
/// ids from SqsQueueParameters), the event of an event bus (from EventBridgeEventBusParameters),
/// or the body of a topic or API destination.
fn item_payload(e: &State, p: &Pipe, params: &Value, value: &Value, view: &Value) -> Payload {
    let sqs = params.get("SqsQueueParameters").unwrap_or(&Value::Null);
    let param = |key: &str| {
        sqs.get(key)
            .and_then(Value::as_str)
            .and_then(|v| dynamic(v, view))
    };
    let bus = params
        .get("EventBridgeEventBusParameters")
        .unwrap_or(&Value::Null);
    let text = |key: &str| bus.get(key).and_then(Value::as_str);
    let resources = bus.get("Resources").cloned().unwrap_or_else(|| json!([]));
    let event = json!({
        "version": "0",
        "id": view.get("messageId").and_then(Value::as_str).unwrap_or_default(),
        "detail-type": text("DetailType").and_then(|v| dynamic(v, view)).unwrap_or_else(|| "Event from aws:sqs".into()),
        "source": text("Source").and_then(|v| dynamic(v, view)).unwrap_or_else(|| format!("Pipe {}", p.name)),
        "account": p.account,
        "time": format_rfc3339(e.now()),
        "region": p.region,
        "resources": resources,
        "detail": value,
    });
    Payload {
        event: event.to_string(),
        group_id: param("MessageGroupId"),
        dedup_id: param("MessageDeduplicationId"),
        ..Payload::of(body_of(value))
    }
}

/// A delivery of batch `token` of pipe `arn` ended (see [`Stage`]).
pub fn delivered(
    e: &mut State,
    arn: &str,
    token: u64,
    stage: Stage,
    ending: Ending,
    answer: Option<String>,
) {
    let Some(b) = e
        .pipes
        .pipes
        .get_mut(arn)
        .and_then(|p| p.batch.as_mut())
        .filter(|b| b.token == token)
    else {
        return;
    };
    b.pending = b.pending.saturating_sub(1);
    let ok = ending == Ending::Delivered;
    match stage {
        Stage::Enrichment if !ok => b.all_failed = true,
        Stage::Enrichment => {
            let given = std::mem::take(&mut b.items);
            let items = enriched(answer, given);
            let mapped = items.len() == b.messages.len();
            let items = items.into_iter().map(|v| (v.clone(), v)).collect();
            return to_target(e, arn, token, items, mapped);
        }
        Stage::Whole if !ok => b.all_failed = true,
        Stage::Whole => partial_failures(b, answer.as_deref()),
        Stage::Item(n) if !ok => {
            b.failed.insert(n);
        }
        Stage::Item(_) => {}
    }
    if b.pending == 0 {
        finish(e, arn);
    }
}

/// What the enrichment's answer makes of the batch: an array is the items to deliver (empty:
/// nothing), another value one item; without an answer (a Lambda function with no local URL,
/// whose invocation went to the outbox) the items go on as they were sent.
fn enriched(answer: Option<String>, given: Vec<Value>) -> Vec<Value> {
    let Some(text) = answer else {
        return given;
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Array(items)) => items,
        Ok(Value::Null) => Vec::new(),
        Ok(other) => vec![other],
        Err(_) if text.trim().is_empty() => Vec::new(),
        Err(_) => vec![Value::String(text)],
    }
}

/// A Lambda function's `batchItemFailures` (`[{"itemIdentifier": "<messageId>"}]`): those
/// messages failed, the others were delivered. An identifier that names no message of the batch
/// fails the whole batch, as Lambda's partial batch responses do.
pub(super) fn partial_failures(b: &mut Batch, answer: Option<&str>) {
    let Some(failures) = answer
        .and_then(|a| serde_json::from_str::<Value>(a).ok())
        .and_then(|v| v.get("batchItemFailures").cloned())
        .and_then(|v| v.as_array().cloned())
    else {
        return;
    };
    let index: BTreeMap<String, usize> = b
        .messages
        .iter()
        .enumerate()
        .map(|(n, h)| (h.message.id.to_string(), n))
        .collect();
    for f in failures {
        match f
            .get("itemIdentifier")
            .and_then(Value::as_str)
            .and_then(|id| index.get(id))
        {
            Some(&n) => {
                b.failed.insert(n);
            }
            None => b.all_failed = true,
        }
    }
}

/// The batch is over: delivered messages are deleted, failed ones left to come back after their
/// visibility timeout; the pipe looks at its source again.
fn finish(e: &mut State, arn: &str) {
    let Some(p) = e.pipes.pipes.get_mut(arn) else {
        return;
    };
    let Some(b) = p.batch.take() else {
        return;
    };
    let queue = p.source.clone();
    let failed: Vec<bool> = (0..b.messages.len())
        .map(|n| b.all_failed || b.failed.contains(&n))
        .collect();
    for (held, failed) in b.messages.iter().zip(&failed) {
        if !failed {
            consume::delete(e, &queue, held);
        }
    }
    let count = failed.iter().filter(|f| **f).count();
    let metric = match count {
        0 => None,
        n if n == failed.len() => Some("ExecutionFailed"),
        _ => Some("ExecutionPartiallyFailed"),
    };
    if let Some(metric) = metric {
        e.engine.metrics.aws(NAMESPACE, metric, arn, 1);
    }
    let now = e.now();
    let next = if count == 0 { now } else { now + BACKOFF_MS };
    schedule_poll(e, arn, next);
}
