//! The event-stream operations: settings checked against the model and parsed once (pattern
//! compiled, RunOptions defaults filled in), echoed back as stored, and the state changes of
//! Start/Stop/Delete handed to `run`.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::retry::Strategy;
use super::run::{begin_start, halt, refresh};
use super::{Pattern, RunOptions, Source, Stream, StreamState};
use crate::arn::Arn;
use crate::services::bus::buses::{
    Tag, check_name, check_tags, has_prefix, own_bus, page, store_tags,
};
use crate::services::bus::subscribers::{InvokeInput, invoke_as, invoke_json, parse_arn};
use crate::services::bus::{V2Error, length, not_one_of, one_of};
use crate::services::event::pattern::EventPattern;
use crate::services::events::epoch_seconds;
use crate::services::sqs::store::QueueKey;
use crate::services::{Context, SetMember, set_given};
use crate::state::{State, placed_in};
use serde::Deserialize;
use serde_json::{Value, json};

/// Event streams an account may have in a region.
const MAX_STREAMS: usize = 100;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateEventStreamInput {
    pub name: String,
    pub source: String,
    pub filter_pattern: Option<String>,
    pub target: InvokeInput,
    pub run_options: Option<RunOptionsInput>,
    pub description: Option<String>,
    #[serde(default)]
    pub tags: Vec<Tag>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RunOptionsInput {
    pub retry_strategy: Option<RetryStrategyInput>,
    pub errors_tolerance: Option<String>,
    pub dead_letter_queue: Option<DeadLetterQueueInput>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RetryStrategyInput {
    pub push_retry_strategy: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DeadLetterQueueInput {
    pub arn: String,
}

fn not_found(arn: &str) -> V2Error {
    V2Error::ResourceNotFound(format!("Event stream {arn} does not exist."))
}

fn own_stream<'e>(e: &'e mut State, cx: &Context, arn: &str) -> Result<&'e mut Stream, V2Error> {
    match e.streams.streams.get_mut(arn) {
        Some(s) if cx.owns(&s.account, &s.region) => Ok(s),
        _ => Err(not_found(arn)),
    }
}

/// An SQS queue ARN (`arn:aws:sqs:<region>:<account>:<name>`, a valid queue name).
fn is_queue_arn(arn: &str) -> bool {
    let Some(key) = QueueKey::from_arn(arn) else {
        return false;
    };
    let name = key.name.as_str();
    let base = name.strip_suffix(".fifo").unwrap_or(name);
    (1..=80).contains(&name.len())
        && !base.is_empty()
        && base
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A custom event bus ARN (`arn:aws:events:<region>:<account>:event-busv2/<name>/<id>`).
fn is_bus_arn(arn: &str) -> bool {
    parse_arn(arn).is_some_and(|a| a.service == "events" && a.resource.starts_with("event-busv2/"))
}

/// The source an ARN names, checked for its form; `Err` names what is wrong.
fn source_of(arn: &str) -> Result<Source, V2Error> {
    length(arn, "source", 1, 1600)?;
    if is_queue_arn(arn) {
        Ok(Source::Sqs(arn.to_string()))
    } else if is_bus_arn(arn) {
        Ok(Source::Bus(arn.to_string()))
    } else {
        Err(V2Error::Validation(format!(
            "Parameter Source is not valid. Reason: Provided Arn is not an SQS queue or a custom event bus ARN. {arn}"
        )))
    }
}

fn filter(text: Option<String>) -> Result<Option<Pattern>, V2Error> {
    let Some(text) = text else { return Ok(None) };
    length(&text, "filterPattern", 1, 4096)?;
    let pattern = EventPattern::parse(&text).map_err(|e| V2Error::Validation(e.message()))?;
    Ok(Some(Pattern { text, pattern }))
}

fn run_options(input: Option<RunOptionsInput>, source: &str) -> Result<RunOptions, V2Error> {
    let Some(input) = input else {
        return Ok(RunOptions::default());
    };
    let strategy = match input.retry_strategy {
        None => Strategy::Backoff,
        Some(r) => {
            let member = "runOptions.retryStrategy.pushRetryStrategy";
            let allowed = ["BACKOFF_RETRY", "EXPONENTIAL_DECAY_RETRY"];
            let value = r.push_retry_strategy.as_str();
            Strategy::parse(value).ok_or_else(|| not_one_of(value, member, &allowed))?
        }
    };
    let tolerance = input.errors_tolerance.unwrap_or_else(|| "NONE".into());
    one_of(&tolerance, "runOptions.errorsTolerance", &["ALL", "NONE"])?;
    let dead_letter = match input.dead_letter_queue {
        None => None,
        Some(d) => {
            length(&d.arn, "runOptions.deadLetterQueue.arn", 1, 1600)?;
            if !is_queue_arn(&d.arn) && !is_bus_arn(&d.arn) {
                return Err(V2Error::Validation(format!(
                    "Parameter RunOptions.DeadLetterQueue.Arn is not valid. Reason: Provided Arn is not an SQS queue or a custom event bus ARN. {}",
                    d.arn
                )));
            }
            if d.arn == source {
                return Err(V2Error::Validation(
                    "Parameter RunOptions.DeadLetterQueue.Arn is not valid. Reason: The dead-letter queue cannot be the stream's source.".into(),
                ));
            }
            Some(d.arn)
        }
    };
    Ok(RunOptions {
        strategy,
        tolerate_all: tolerance == "ALL",
        dead_letter,
    })
}

fn target(
    input: InvokeInput,
    source: &str,
) -> Result<crate::services::bus::store::Invoke, V2Error> {
    let invoke = invoke_as(input, "target")?;
    if invoke.target_arn == source {
        return Err(V2Error::Validation(
            "Parameter Target.TargetArn is not valid. Reason: The target cannot be the stream's source.".into(),
        ));
    }
    Ok(invoke)
}

pub fn create_event_stream(
    e: &mut State,
    cx: &Context,
    input: CreateEventStreamInput,
) -> Result<Value, V2Error> {
    check_name(&input.name, "name", 64)?;
    let source = source_of(&input.source)?;
    let filter = filter(input.filter_pattern)?;
    let target = target(input.target, &input.source)?;
    let run = run_options(input.run_options, &input.source)?;
    if let Some(d) = &input.description {
        length(d, "description", 0, 512)?;
    }
    check_tags(&input.tags, "tags")?;
    let position = match &source {
        Source::Sqs(arn) => {
            let mine = QueueKey::from_arn(arn).is_some_and(|key| {
                key.account == cx.account
                    && key.region == cx.region
                    && e.sqs.queues.contains_key(&key)
            });
            if !mine {
                return Err(V2Error::ResourceNotFound(format!(
                    "Source {arn} does not exist."
                )));
            }
            0
        }
        Source::Bus(arn) => {
            let bus = own_bus(e, cx, arn)
                .map_err(|_| V2Error::ResourceNotFound(format!("Source {arn} does not exist.")))?;
            // A stream reads the events put on its bus after it was created.
            bus.sequence
        }
    };
    let resource = format!("event-stream/{}", input.name);
    let arn = Arn::new("events", &cx.region, &cx.account, &resource).text();
    if e.streams.streams.contains_key(&arn) {
        return Err(V2Error::ResourceAlreadyExists(format!(
            "Event stream {} already exists.",
            input.name
        )));
    }
    if placed_in(e.streams.streams.values(), &cx.account, &cx.region).count() >= MAX_STREAMS {
        return Err(V2Error::LimitExceeded(
            "The requested resource exceeds the maximum number allowed.".into(),
        ));
    }
    let now = e.now();
    let stream = Stream {
        arn: arn.clone(),
        name: input.name,
        account: cx.account.clone(),
        region: cx.region.clone(),
        host: cx.host.clone(),
        source,
        filter,
        target,
        run,
        description: input.description,
        created_at: now,
        modified_at: now,
        // A new stream starts right away (the model's CreateEventStream).
        state: StreamState::Ready,
        reason: None,
        position,
        busy: None,
        poll_at: None,
        echoes: 0,
    };
    e.streams.streams.insert(arn.clone(), stream);
    store_tags(e, &arn, input.tags);
    begin_start(e, &arn);
    Ok(json!({ "EventStreamArn": arn }))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct EventStreamArnInput {
    pub event_stream_arn: String,
}

fn run_options_json(run: &RunOptions) -> Value {
    let mut out = json!({
        "RetryStrategy": { "PushRetryStrategy": run.strategy.name() },
        "ErrorsTolerance": if run.tolerate_all { "ALL" } else { "NONE" },
    });
    if let Some(arn) = &run.dead_letter {
        out.set("DeadLetterQueue", json!({ "Arn": arn }));
    }
    out
}

fn describe(s: &Stream) -> Value {
    let mut out = json!({
        "EventStreamArn": s.arn,
        "Name": s.name,
        "Source": s.source.arn(),
    });
    if let Some(f) = &s.filter {
        out.set("FilterPattern", json!(f.text));
    }
    out.set("Target", invoke_json(&s.target));
    out.set("RunOptions", run_options_json(&s.run));
    if let Some(d) = &s.description {
        out.set("Description", json!(d));
    }
    out.set("State", json!(s.state.name()));
    if let Some(r) = &s.reason {
        out.set("StateReason", json!(r));
    }
    out.set("CreationTime", epoch_seconds(s.created_at));
    out.set("LastModifiedTime", epoch_seconds(s.modified_at));
    out
}

pub fn get_event_stream(
    e: &mut State,
    cx: &Context,
    input: EventStreamArnInput,
) -> Result<Value, V2Error> {
    own_stream(e, cx, &input.event_stream_arn)?;
    refresh(e, &input.event_stream_arn);
    own_stream(e, cx, &input.event_stream_arn).map(|s| describe(s))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListEventStreamsInput {
    pub name_prefix: Option<String>,
    pub next_token: Option<String>,
    pub max_results: Option<i64>,
}

pub fn list_event_streams(
    e: &mut State,
    cx: &Context,
    input: ListEventStreamsInput,
) -> Result<Value, V2Error> {
    if let Some(p) = &input.name_prefix {
        check_name(p, "namePrefix", 64)?;
    }
    if let Some(t) = &input.next_token {
        length(t, "nextToken", 1, 2048)?;
    }
    let mine: Vec<String> = placed_in(e.streams.streams.values(), &cx.account, &cx.region)
        .map(|s| s.arn.clone())
        .collect();
    for arn in &mine {
        refresh(e, arn);
    }
    let items = mine
        .iter()
        .filter_map(|arn| e.streams.streams.get(arn))
        .filter(|s| has_prefix(&s.name, input.name_prefix.as_deref()))
        .map(|s| {
            let mut summary = json!({
                "EventStreamArn": s.arn,
                "Name": s.name,
                "Source": s.source.arn(),
                "TargetArn": s.target.target_arn,
            });
            if let Some(d) = &s.description {
                summary.set("Description", json!(d));
            }
            summary.set("State", json!(s.state.name()));
            if let Some(r) = &s.reason {
                summary.set("StateReason", json!(r));
            }
            summary.set("CreationTime", epoch_seconds(s.created_at));
            summary.set("LastModifiedTime", epoch_seconds(s.modified_at));
            (s.arn.clone(), summary)
        })
        .collect();
    page(
        "EventStreams",
        items,
        input.next_token.as_deref(),
        input.max_results,
    )
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateEventStreamInput {
    pub event_stream_arn: String,
    pub filter_pattern: Option<String>,
    pub target: Option<InvokeInput>,
    pub run_options: Option<RunOptionsInput>,
    pub description: Option<String>,
}

/// Replaces the settings the request gives (a block replaces the whole stored block); the
/// others stay. The event under way keeps the settings it started with; the state is unchanged
/// (a stream that failed to start is started again with StartEventStream).
pub fn update_event_stream(
    e: &mut State,
    cx: &Context,
    input: UpdateEventStreamInput,
) -> Result<Value, V2Error> {
    let source = own_stream(e, cx, &input.event_stream_arn)?
        .source
        .arn()
        .to_string();
    let filter = match input.filter_pattern {
        Some(text) => Some(filter(Some(text))?),
        None => None,
    };
    let target = input.target.map(|t| target(t, &source)).transpose()?;
    let run = input
        .run_options
        .map(|r| run_options(Some(r), &source))
        .transpose()?;
    if let Some(d) = &input.description {
        length(d, "description", 0, 512)?;
    }
    let now = e.now();
    let s = own_stream(e, cx, &input.event_stream_arn)?;
    if let Some(f) = filter {
        s.filter = f;
    }
    if let Some(t) = target {
        s.target = t;
    }
    if let Some(r) = run {
        s.run = r;
    }
    set_given(&mut s.description, input.description);
    s.modified_at = now;
    Ok(json!({ "EventStreamArn": s.arn }))
}

/// StartEventStream's and StopEventStream's answer: the stream and the state it is in now.
fn state_answer(e: &State, arn: String) -> Result<Value, V2Error> {
    let state = e
        .streams
        .streams
        .get(&arn)
        .ok_or_else(|| not_found(&arn))?
        .state;
    Ok(json!({ "EventStreamArn": arn, "State": state.name() }))
}

pub fn start_event_stream(
    e: &mut State,
    cx: &Context,
    input: EventStreamArnInput,
) -> Result<Value, V2Error> {
    let arn = own_stream(e, cx, &input.event_stream_arn)?.arn.clone();
    refresh(e, &arn);
    begin_start(e, &arn);
    state_answer(e, arn)
}

pub fn stop_event_stream(
    e: &mut State,
    cx: &Context,
    input: EventStreamArnInput,
) -> Result<Value, V2Error> {
    let s = own_stream(e, cx, &input.event_stream_arn)?;
    let arn = s.arn.clone();
    if matches!(s.state, StreamState::Running | StreamState::Starting) {
        halt(e, &arn);
    }
    state_answer(e, arn)
}

pub fn delete_event_stream(
    e: &mut State,
    cx: &Context,
    input: EventStreamArnInput,
) -> Result<Value, V2Error> {
    let arn = own_stream(e, cx, &input.event_stream_arn)?.arn.clone();
    halt(e, &arn);
    e.streams.streams.remove(&arn);
    e.bus.tags.remove(&arn);
    Ok(json!({}))
}
