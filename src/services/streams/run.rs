//! A running stream: it takes one event at a time from its source (an SQS message received and
//! held, or the next event of its bus after its position), hands it to the engine as a delivery
//! in the stream's own lane, and only when that delivery is over takes the next. Delivered,
//! dead-lettered or discarded events are consumed (the SQS message deleted, the bus position
//! moved on); an event kept by ErrorsTolerance NONE, a failed DLQ write or an error retrying
//! cannot fix stays in the source, and the stream stops (READY or START_FAILED).
//!
//! Nothing polls on a period: a stream looks at its source when started, after each event, when
//! a message arrives in its queue or an event on its bus, and at the instant the next hidden
//! message of its queue becomes visible.

use super::retry::{NON_RETRYABLE, StreamRetry};
use super::{InFlight, Source, Stream, StreamState, Timer};
use crate::arn::Arn;
use crate::engine::delivery::{
    Counters, DeadLetter, Delivery, Ending, Failure, Follow, Keep, Outcome, Publisher, SqsMessage,
};
use crate::engine::time::{Millis, format_rfc3339};
use crate::services::bus::deliver::{UNGROUPED, event_json, target_input};
use crate::services::bus::store::{Invoke, Retained};
use crate::services::event::input::{self, Reserved};
use crate::services::events::store::HttpParameters;
use crate::services::sqs::shapes::MessageAttributeValue;
use crate::services::sqs::store::Held;
use crate::services::sqs::{consume, record};
use crate::services::target::{self, Buses, Payload, adapt};
use crate::state::{State, Step};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The metrics namespace of event streams, and the metrics label of their deliveries.
pub(super) const NAMESPACE: &str = "AWS/Events";
pub(super) const SERVICE: &str = "eventstreams";
/// The `source` of the event a stream puts on an event bus (target or DLQ) for an SQS message.
pub(super) const SQS_EVENT_SOURCE: &str = "switchyard.event-stream";
pub(super) const SQS_EVENT_DETAIL_TYPE: &str = "SQS Message";
/// The longest StateReason.
const MAX_REASON_CHARS: usize = 512;

pub fn fire(e: &mut State, timer: Timer) {
    match timer {
        Timer::Start(arn) => finish_start(e, &arn),
        Timer::Poll(arn) => poll(e, &arn),
    }
}

/// A message arrived in queue `source_arn`, or an event on bus `source_arn`: its idle running
/// streams look at it now.
pub fn wake_source(e: &mut State, source_arn: &str) {
    if let Some(stream) = e.streams.delivering.clone()
        && let Some(s) = e.streams.streams.get_mut(&stream)
        && s.source.arn() == source_arn
    {
        s.echoes += 1;
    }
    let arns: Vec<String> = e
        .streams
        .streams
        .values()
        .filter(|s| s.source.arn() == source_arn)
        .map(|s| s.arn.clone())
        .collect();
    for arn in arns {
        schedule_poll(e, &arn, e.now());
    }
}

/// Messages may have arrived in any queue (a move task step): every idle SQS stream looks.
pub fn wake_all(e: &mut State) {
    let arns: Vec<String> = e
        .streams
        .streams
        .values()
        .filter(|s| matches!(s.source, Source::Sqs(_)))
        .map(|s| s.arn.clone())
        .collect();
    for arn in arns {
        schedule_poll(e, &arn, e.now());
    }
}

/// Schedules a look at the source at `at`, unless the stream is not running, is busy, or has
/// one due by then already.
fn schedule_poll(e: &mut State, arn: &str, at: Millis) {
    let Some(s) = e.streams.streams.get_mut(arn) else {
        return;
    };
    if s.state != StreamState::Running || s.busy.is_some() || s.poll_at.is_some_and(|due| due <= at)
    {
        return;
    }
    s.poll_at = Some(at);
    e.schedule(at, Step::Stream(Timer::Poll(arn.to_string())));
}

fn reason(text: String) -> Option<String> {
    Some(text.chars().take(MAX_REASON_CHARS).collect())
}

/// Whether the target, the dead-letter queue and the source exist: the checks of a start.
pub(super) fn check(e: &State, s: &Stream) -> Result<(), String> {
    let source_ok = match &s.source {
        Source::Sqs(arn) => e.sqs.by_arn(arn).is_some(),
        Source::Bus(arn) => e.bus.buses.contains_key(arn),
    };
    if !source_ok {
        return Err(format!("Source {} does not exist.", s.source.arn()));
    }
    let target = &s.target.target_arn;
    if !target::exists(e, target) {
        return Err(format!(
            "Target {target} does not exist or cannot be invoked."
        ));
    }
    if let Some(dlq) = &s.run.dead_letter
        && !dead_letter_exists(e, dlq)
    {
        return Err(format!("Dead-letter queue {dlq} does not exist."));
    }
    Ok(())
}

fn dead_letter_exists(e: &State, arn: &str) -> bool {
    match Arn::service_of(arn) {
        "sqs" => e.sqs.by_arn(arn).is_some(),
        _ => e.bus.buses.contains_key(arn),
    }
}

/// Starts a stream that is not running: STARTING now, RUNNING (or START_FAILED) at the next
/// step of time.
pub(super) fn begin_start(e: &mut State, arn: &str) {
    let Some(s) = e.streams.streams.get_mut(arn) else {
        return;
    };
    if matches!(s.state, StreamState::Running | StreamState::Starting) {
        return;
    }
    s.state = StreamState::Starting;
    s.reason = None;
    let now = e.now();
    e.schedule(now, Step::Stream(Timer::Start(arn.to_string())));
}

fn finish_start(e: &mut State, arn: &str) {
    let Some(s) = e.streams.streams.get(arn) else {
        return;
    };
    if s.state != StreamState::Starting {
        return;
    }
    let checked = check(e, s);
    // `check` looks at the whole state: the stream is taken mutably only now.
    let Some(s) = e.streams.streams.get_mut(arn) else {
        return;
    };
    match checked {
        Ok(()) => {
            s.state = StreamState::Running;
            s.reason = None;
            s.poll_at = None;
            schedule_poll(e, arn, e.now());
        }
        Err(why) => {
            s.state = StreamState::StartFailed;
            s.reason = reason(why);
        }
    }
}

/// Stops a stream (StopEventStream, DeleteEventStream): the event under way is dropped and stays
/// in the source.
pub(super) fn halt(e: &mut State, arn: &str) {
    let Some(s) = e.streams.streams.get_mut(arn) else {
        return;
    };
    s.state = StreamState::Ready;
    s.reason = None;
    s.poll_at = None;
    let source = s.source.clone();
    if let Some(busy) = s.busy.take() {
        if let Some(id) = busy.delivery {
            e.cancel(id);
        }
        if let (Source::Sqs(queue), Some(held)) = (&source, &busy.held) {
            consume::release(e, queue, held);
        }
    }
}

/// A running stream whose source is gone goes to START_FAILED.
pub(super) fn refresh(e: &mut State, arn: &str) {
    let Some(s) = e.streams.streams.get(arn) else {
        return;
    };
    if s.state != StreamState::Running {
        return;
    }
    let gone = match &s.source {
        Source::Sqs(queue) => e.sqs.by_arn(queue).is_none(),
        Source::Bus(bus) => !e.bus.buses.contains_key(bus),
    };
    if gone {
        let why = format!("Source {} does not exist.", s.source.arn());
        halt(e, arn);
        fail(e, arn, StreamState::StartFailed, why);
    }
}

fn fail(e: &mut State, arn: &str, state: StreamState, why: String) {
    if let Some(s) = e.streams.streams.get_mut(arn) {
        s.state = state;
        s.reason = reason(why);
        s.poll_at = None;
    }
}

/// One event taken from the source, as the stream handles it.
struct Taken {
    id: String,
    /// The raw event data: the SQS message body, or the bus event as JSON.
    raw: String,
    /// What patterns and transformers see: the SQS record, or the bus event.
    view: Value,
    /// What an event bus (target or DLQ) gets.
    bus_event: String,
    group: Option<String>,
    attributes: BTreeMap<String, MessageAttributeValue>,
    ingested_at: Millis,
}

fn from_sqs(s: &Stream, queue: &str, held: &Held, now: Millis) -> Taken {
    let m = &held.message;
    // The record every consumer of a queue hands on (as Lambda gets it), its body parsed when
    // it is JSON: what patterns and transformers see, and the bus event's detail.
    let handle = consume::receipt_handle(queue, held);
    let view = record::with_parsed_body(&record::lambda_record(m, queue, &handle, &s.region));
    let bus_event = json!({
        "version": "0",
        "id": m.id,
        "detail-type": SQS_EVENT_DETAIL_TYPE,
        "source": SQS_EVENT_SOURCE,
        "account": s.account,
        "time": format_rfc3339(m.sent_at),
        "region": s.region,
        "resources": [queue, s.arn],
        "detail": view,
    });
    Taken {
        id: m.id.to_string(),
        raw: m.body.text().into_owned(),
        view,
        bus_event: bus_event.to_string(),
        group: m.group_id().map(str::to_string),
        attributes: m.attributes().clone(),
        ingested_at: now,
    }
}

fn from_bus(ev: &Retained) -> Taken {
    let view = event_json(ev, crate::services::bus::deliver::LIVE);
    let raw = view.to_string();
    Taken {
        id: ev.id.clone(),
        bus_event: raw.clone(),
        raw,
        view,
        group: ev.group.clone(),
        attributes: BTreeMap::new(),
        ingested_at: ev.ingested_at,
    }
}

fn passes(s: &Stream, view: &Value) -> bool {
    s.filter.as_ref().is_none_or(|f| f.pattern.matches(view))
}

/// Deliveries in a row that feed the stream's own source (an SQS source subscribed to the SNS
/// topic it delivers to, say) before the stream stops, READY, as a loop.
const MAX_ECHOES: u64 = 1_000;

/// Looks at the source and starts delivering its next matching event, if any.
fn poll(e: &mut State, arn: &str) {
    let now = e.now();
    let Some(s) = e.streams.streams.get_mut(arn) else {
        return;
    };
    if s.poll_at.is_some_and(|due| due <= now) {
        s.poll_at = None;
    }
    if s.state != StreamState::Running || s.busy.is_some() {
        return;
    }
    if s.echoes >= MAX_ECHOES {
        // A loop would spin at one virtual instant for ever: stop, the message stays.
        s.echoes = 0;
        let why = format!(
            "{MAX_ECHOES} deliveries in a row put a message back on the source: the target feeds the source (a loop)."
        );
        return fail(e, arn, StreamState::Ready, why);
    }
    refresh(e, arn);
    let Some(s) = e.streams.streams.get(arn) else {
        return;
    };
    if s.state != StreamState::Running {
        return;
    }
    match s.source.clone() {
        Source::Sqs(queue) => poll_queue(e, arn, &queue),
        Source::Bus(bus) => poll_bus(e, arn, &bus),
    }
}

fn poll_queue(e: &mut State, arn: &str, queue: &str) {
    loop {
        let now = e.now();
        let held = match consume::take_one(e, queue) {
            Ok(Some(held)) => held,
            Ok(None) => {
                if let Some(at) = consume::next_visible_at(e, queue) {
                    schedule_poll(e, arn, at);
                }
                return;
            }
            Err(_) => {
                let why = format!("Source {queue} does not exist.");
                return fail(e, arn, StreamState::StartFailed, why);
            }
        };
        e.engine.metrics.aws(NAMESPACE, "EventCount", arn, 1);
        let Some(s) = e.streams.streams.get(arn) else {
            return;
        };
        let taken = from_sqs(s, queue, &held, now);
        if !passes(s, &taken.view) {
            // Consumed without delivery, as a filtering consumer does.
            consume::delete(e, queue, &held);
            continue;
        }
        return start_delivery(e, arn, taken, Some(held), None);
    }
}

fn poll_bus(e: &mut State, arn: &str, bus_arn: &str) {
    let now = e.now();
    // The stream, the bus and the metrics apart: the stream moves past the events it filters
    // out as it reads them in place.
    let State {
        engine,
        streams,
        bus: buses,
        ..
    } = e;
    let Some(s) = streams.streams.get_mut(arn) else {
        return;
    };
    let Some(bus) = buses.buses.get_mut(bus_arn) else {
        let why = format!("Source {bus_arn} does not exist.");
        return fail(e, arn, StreamState::StartFailed, why);
    };
    bus.expire(now);
    let from = bus.events.partition_point(|ev| ev.sequence <= s.position);
    for ev in bus.events.iter().skip(from) {
        engine.metrics.aws(NAMESPACE, "EventCount", arn, 1);
        let taken = from_bus(ev);
        if !passes(s, &taken.view) {
            s.position = ev.sequence;
            continue;
        }
        let sequence = ev.sequence;
        return start_delivery(e, arn, taken, None, Some(sequence));
    }
}

/// Hands one event to the engine: a delivery in the stream's lane, followed by the stream.
fn start_delivery(
    e: &mut State,
    arn: &str,
    taken: Taken,
    held: Option<Held>,
    sequence: Option<u64>,
) {
    e.engine.metrics.aws(NAMESPACE, "MatchedEvents", arn, 1);
    e.streams.tokens += 1;
    let token = e.streams.tokens;
    let Some(s) = e.streams.streams.get(arn) else {
        return;
    };
    let invoke = s.target.clone();
    let sqs_source = matches!(s.source, Source::Sqs(_));
    let (name, run) = (s.name.clone(), s.run.clone());
    let publisher = Publisher {
        account: s.account.clone(),
        host: s.host.clone(),
    };
    let (payload, mut doomed) = match rendered(arn, &name, &invoke, &taken) {
        Ok(payload) => (payload, None),
        Err(failure) => (String::new(), Some(failure)),
    };
    let target_arn = invoke.target_arn.clone();
    let fifo_target = target_arn.ends_with(".fifo");
    let group = || taken.group.clone().unwrap_or_else(|| UNGROUPED.into());
    let payload = Payload {
        event: taken.bus_event.clone(),
        attributes: if sqs_source {
            taken.attributes.clone()
        } else {
            BTreeMap::new()
        },
        group_id: fifo_target.then(group),
        dedup_id: fifo_target.then(|| taken.id.clone()),
        ..Payload::of(payload)
    };
    let both = Buses {
        classic: true,
        custom: true,
    };
    let adapted = adapt(
        e,
        &target_arn,
        &publisher,
        payload,
        both,
        &HttpParameters::default(),
    );
    if adapted.unusable.is_some() {
        doomed = Some(Failure::NotFound("RESOURCE_NOT_FOUND"));
    }
    let (http, throttle) = (adapted.is_http(), adapted.throttle);
    let (protocol, target) = (adapted.protocol, adapted.target);
    // The dead-letter queue gets the raw event data (ErrorsTolerance ALL only).
    let dead_letter = run
        .dead_letter
        .as_ref()
        .filter(|_| run.tolerate_all)
        .map(|dlq| dead_letter(dlq, &taken, sqs_source, &publisher));
    // ErrorsTolerance NONE keeps every event given up in its source; ALL only those that
    // failed in a way retrying cannot fix.
    let follow = Follow {
        keep: match run.tolerate_all {
            true => Keep::WhenExhaustedBy(NON_RETRYABLE),
            false => Keep::Always,
        },
        then: Step::StreamDelivered {
            stream: arn.to_string(),
            token,
        },
    };
    let mut d = Delivery::new(
        SERVICE,
        arn.to_string(),
        protocol.to_string(),
        taken.id.clone(),
        target,
        StreamRetry(run.strategy),
        dead_letter,
    )
    .in_lane(arn.to_string())
    .followed_by(follow)
    .counted(Counters {
        namespace: NAMESPACE,
        resource: arn.to_string(),
        attempted: Some("Invocations"),
        retried: Some("RetryInvocationAttempts"),
        ..Counters::default()
    });
    if let (true, Some(seconds)) = (http, invoke.timeout_seconds) {
        d = d.timeout(seconds * 1000);
    }
    if let Some((key, per_second)) = throttle {
        d = d.throttled(key, per_second);
    }
    if let Some(failure) = doomed {
        d = d.doomed(Outcome::Permanent(failure));
    }
    let in_flight = InFlight {
        token,
        delivery: None,
        message_id: taken.id,
        held,
        sequence,
    };
    hand_over(e, arn, d, in_flight);
}

/// What the target gets: the raw data unless Input or a Transformer says otherwise (a template
/// that does not render fails the delivery: `Failure::InputTransformation`).
fn rendered(arn: &str, name: &str, invoke: &Invoke, taken: &Taken) -> Result<String, Failure> {
    if invoke.input.is_none() && invoke.transformer.is_none() {
        return Ok(taken.raw.clone());
    }
    let how = target_input(invoke);
    let reserved = Reserved {
        rule_arn: arn,
        rule_name: name,
        ingested_at: taken.ingested_at,
    };
    let text = taken.view.to_string();
    input::render(&how, &taken.view, &text, &reserved).map_err(|_| Failure::InputTransformation)
}

/// Marks the stream busy with `in_flight` and gives the engine its delivery `d`, noting the
/// delivery's id unless an in-process target has ended it already.
fn hand_over(e: &mut State, arn: &str, d: Delivery<Step>, in_flight: InFlight) {
    let token = in_flight.token;
    let Some(s) = e.streams.streams.get_mut(arn) else {
        return;
    };
    s.busy = Some(in_flight);
    let echoes = s.echoes;
    e.streams.delivering = Some(arn.to_string());
    let id = e.deliver(d);
    e.streams.delivering = None;
    if let Some(s) = e.streams.streams.get_mut(arn)
        && s.echoes == echoes
    {
        s.echoes = 0;
    }
    // An in-process target may have ended the delivery already.
    if let Some(busy) = e
        .streams
        .streams
        .get_mut(arn)
        .and_then(|s| s.busy.as_mut())
        .filter(|b| b.token == token)
    {
        busy.delivery = Some(id);
    }
}

/// The dead letter of an event a stream gives up: the raw event data to a queue (with the SQS
/// source message's attributes), or the bus event to an event bus.
fn dead_letter(
    dlq: &str,
    taken: &Taken,
    sqs_source: bool,
    publisher: &Publisher,
) -> DeadLetter<crate::state::Finish> {
    let to_bus = Arn::service_of(dlq) != "sqs";
    let fifo_dlq = dlq.ends_with(".fifo");
    let group = || taken.group.clone().unwrap_or_else(|| UNGROUPED.into());
    DeadLetter {
        queue_arn: dlq.to_string(),
        message: SqsMessage {
            body: if to_bus {
                taken.bus_event.clone().into()
            } else {
                taken.raw.clone().into()
            },
            attributes: if sqs_source && !to_bus {
                taken.attributes.clone()
            } else {
                BTreeMap::new()
            },
            group_id: fifo_dlq.then(group),
            dedup_id: fifo_dlq.then(|| taken.id.clone()),
            trace_header: None,
        },
        finish: None,
        bus: to_bus.then(|| publisher.clone()),
    }
}

/// The delivery of the event under `token` of stream `arn` ended: the event is consumed and the
/// stream looks at its source again, or it stays in the source and the stream stops.
pub fn delivered(e: &mut State, arn: &str, token: u64, ending: Ending, last: Option<&Outcome>) {
    let Some(s) = e.streams.streams.get_mut(arn) else {
        return;
    };
    let Some(busy) = s.busy.take_if(|b| b.token == token) else {
        return;
    };
    let source = s.source.clone();
    let target = s.target.target_arn.clone();
    let strategy = s.run.strategy;
    let dlq = s.run.dead_letter.clone();
    let metric = |e: &mut State, name: &str| e.engine.metrics.aws(NAMESPACE, name, arn, 1);
    if ending != Ending::Delivered {
        metric(e, "FailedInvocations");
    }
    match ending {
        Ending::DeadLettered => metric(e, "InvocationsSentToDLQ"),
        Ending::DlqFailed => metric(e, "InvocationsFailedToBeSentToDLQ"),
        Ending::Discarded => metric(e, "EventsDropped"),
        Ending::Delivered | Ending::Kept => {}
    }
    let consumed = matches!(
        ending,
        Ending::Delivered | Ending::DeadLettered | Ending::Discarded
    );
    match (&source, consumed) {
        (Source::Sqs(queue), true) => {
            if let Some(held) = &busy.held {
                consume::delete(e, queue, held);
            }
        }
        (Source::Sqs(queue), false) => {
            if let Some(held) = &busy.held {
                consume::release(e, queue, held);
            }
        }
        (Source::Bus(_), true) => {
            if let (Some(s), Some(seq)) = (e.streams.streams.get_mut(arn), busy.sequence) {
                s.position = s.position.max(seq);
            }
        }
        (Source::Bus(_), false) => {}
    }
    if consumed {
        schedule_poll(e, arn, e.now());
        return;
    }
    let id = &busy.message_id;
    let code = last
        .and_then(Outcome::failure)
        .map_or_else(|| "an error".to_string(), Failure::to_string);
    let (state, why) = match (ending, last) {
        (Ending::DlqFailed, _) => match dlq.filter(|d| !dead_letter_exists(e, d)) {
            Some(missing) => (
                StreamState::StartFailed,
                format!("Dead-letter queue {missing} does not exist."),
            ),
            None => (
                StreamState::Ready,
                format!(
                    "Writing event {id} to the dead-letter queue failed; the stream stopped with the event kept in its source."
                ),
            ),
        },
        (_, Some(outcome)) if super::retry::non_retryable(outcome) => (
            StreamState::StartFailed,
            format!(
                "Delivering event {id} to {target} failed with {code}, which retrying cannot fix."
            ),
        ),
        _ => (
            StreamState::Ready,
            format!(
                "Delivering event {id} to {target} failed with {code} after the last retry of {}; ErrorsTolerance is NONE, so the stream stopped with the event kept in its source.",
                strategy.name()
            ),
        ),
    };
    fail(e, arn, state, why);
}
