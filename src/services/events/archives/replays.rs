//! Replays: StartReplay, DescribeReplay, CancelReplay, ListReplays, and the replays' steps on
//! the virtual clock. Replayed events go to their bus through `put_events::ingest`, like any
//! other event, marked so that they are not archived again.
//!
//! Pacing. AWS replays by event time in one-minute slices, first minute first, and shows
//! progress in EventLastReplayedTime (StartReplay API reference); it publishes no rate. Here, on
//! the virtual clock:
//! - StartReplay at `t` answers `STARTING` and picks the archived events whose `time` lies in
//!   [EventStartTime, EventEndTime), in event-time order (arrival order among equal times).
//! - At `t + 1 s` the replay is `RUNNING`.
//! - Every second after that, the events of the next minute of event time that has any
//!   (minutes counted from EventStartTime; empty ones are skipped) go to the destination bus;
//!   EventLastReplayedTime becomes the last one's `time`. The step that sends the last slice
//!   makes the replay `COMPLETED` with ReplayEndTime; a replay with nothing to send completes at
//!   `t + 2 s`.
//! - CancelReplay makes it `CANCELLING`; the next step makes it `CANCELLED` and drops what was
//!   not sent.

use super::{NAME_PATTERN, arn_name, check_description, check_enum, own_bus, prune};
use crate::arn::Arn;
use crate::engine::time::Millis;
use crate::services::Context;
use crate::services::event::envelope::with_replay_name;
use crate::services::events::checks::{check_name, name_char};
use crate::services::events::errors::EventsError;
use crate::services::events::lookup::page;
use crate::services::events::put_events::{Ingest, ingest};
use crate::services::events::store::{Archive, ArchivedEvent, Replay, Timer};
use crate::services::events::times::{epoch_seconds, millis_of};
use crate::state::{State, Step};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::VecDeque;

/// Replays starting or running at once, per account and region (eb-replay-archived-event).
const MAX_ACTIVE_REPLAYS: usize = 10;
const SLICE_MS: Millis = 60_000;
const STEP_MS: Millis = 1_000;
/// As AWS lists them in its message (alphabetically, as moto records it), not in model order.
const REPLAY_STATES: &str = "[CANCELLED, CANCELLING, COMPLETED, FAILED, RUNNING, STARTING]";

fn replay_arn(cx: &Context, name: &str) -> String {
    let resource = format!("replay/{name}");
    Arn::new("events", &cx.region, &cx.account, &resource).text()
}

fn replay_not_found(name: &str) -> EventsError {
    EventsError::ResourceNotFound(format!("Replay {name} does not exist."))
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct ReplayDestination {
    pub arn: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filter_arns: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct StartReplayInput {
    pub replay_name: String,
    pub description: Option<String>,
    pub event_source_arn: String,
    pub event_start_time: Value,
    pub event_end_time: Value,
    pub destination: ReplayDestination,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct StartReplayOutput {
    pub replay_arn: String,
    pub state: String,
    pub replay_start_time: Value,
}

fn timestamp(value: &Value, member: &str) -> Result<Millis, EventsError> {
    millis_of(value).ok_or_else(|| {
        EventsError::Validation(format!(
            "Parameter {member} is not valid. Reason: {member} is not a valid timestamp."
        ))
    })
}

/// The events of `archive` whose event time lies in [start, end), in event-time order.
fn window(archive: &Archive, start: Millis, end: Millis) -> VecDeque<ArchivedEvent> {
    let mut picked: Vec<ArchivedEvent> = archive
        .events
        .iter()
        .filter(|ev| start <= ev.time && ev.time < end)
        .cloned()
        .collect();
    picked.sort_by_key(|ev| ev.time);
    picked.into()
}

/// Where the one-minute slice of event time holding `time` ends (slices count from `start`).
fn slice_end(start: Millis, time: Millis) -> Millis {
    start + ((time - start).div_euclid(SLICE_MS) + 1) * SLICE_MS
}

/// Takes the events of the next slice that has any.
fn next_slice(pending: &mut VecDeque<ArchivedEvent>, start: Millis) -> Vec<ArchivedEvent> {
    let Some(end) = pending.front().map(|ev| slice_end(start, ev.time)) else {
        return Vec::new();
    };
    let mut slice = Vec::new();
    while pending.front().is_some_and(|ev| ev.time < end) {
        slice.extend(pending.pop_front());
    }
    slice
}

pub(in crate::services::events) fn start_replay(
    e: &mut State,
    cx: &Context,
    input: StartReplayInput,
) -> Result<StartReplayOutput, EventsError> {
    let name = input.replay_name;
    check_name(&name, "replayName", 64, NAME_PATTERN, name_char)?;
    check_description(&input.description)?;
    let start = timestamp(&input.event_start_time, "EventStartTime")?;
    let end = timestamp(&input.event_end_time, "EventEndTime")?;
    let source = e
        .events
        .archives
        .get(&input.event_source_arn)
        .filter(|a| cx.owns(&a.account, &a.region))
        .map(|a| a.source_arn.clone())
        .ok_or_else(|| {
            EventsError::Validation(format!(
                "Parameter EventSourceArn is not valid. Reason: Archive {} does not exist.",
                arn_name(&input.event_source_arn)
            ))
        })?;
    // The time range is checked before the destination (AWS-recorded: a cross-bus replay with
    // its end before its start is refused for the times).
    if start >= end {
        return Err(EventsError::Validation(
            "Parameter EventEndTime is not valid. Reason: EventStartTime must be before EventEndTime."
                .into(),
        ));
    }
    let (bus_arn, bus_name) = own_bus(e, cx, &input.destination.arn)?;
    if bus_arn != source {
        return Err(EventsError::Validation(
            "Parameter Destination.Arn is not valid. Reason: Cross event bus replay is not permitted."
                .into(),
        ));
    }
    // An EventEndTime still to come is accepted (AWS-recorded): the replay sends what the
    // archive holds when it starts.
    let now = e.now();
    for rule in &input.destination.filter_arns {
        let on_bus = e.events.rules.get(rule).map(|r| r.bus_arn.as_str());
        if on_bus != Some(bus_arn.as_str()) {
            return Err(EventsError::ResourceNotFound(format!(
                "Rule {} does not exist on EventBus {bus_name}.",
                arn_name(rule)
            )));
        }
    }
    let arn = replay_arn(cx, &name);
    if e.events.replays.contains_key(&arn) {
        return Err(EventsError::ResourceAlreadyExists(format!(
            "Replay {name} already exists."
        )));
    }
    let active = e
        .events
        .replays
        .values()
        .filter(|r| cx.owns(&r.account, &r.region))
        .filter(|r| matches!(r.state.as_str(), "STARTING" | "RUNNING"))
        .count();
    if active >= MAX_ACTIVE_REPLAYS {
        return Err(EventsError::LimitExceeded(
            "The requested resource exceeds the maximum number allowed.".into(),
        ));
    }
    let pending = match e.events.archives.get_mut(&input.event_source_arn) {
        Some(archive) => {
            prune(archive, now);
            window(archive, start, end)
        }
        None => VecDeque::new(),
    };
    e.events.replays.insert(
        arn.clone(),
        Replay {
            name,
            arn: arn.clone(),
            account: cx.account.clone(),
            region: cx.region.clone(),
            archive_arn: input.event_source_arn,
            description: input.description,
            event_start: start,
            event_end: end,
            destination_arn: bus_arn,
            filter_arns: input.destination.filter_arns,
            state: "STARTING".into(),
            state_reason: None,
            started_at: now,
            ended_at: None,
            last_replayed: None,
            pending,
        },
    );
    let timer = Timer::Replay {
        replay_arn: arn.clone(),
    };
    e.schedule(now + STEP_MS, Step::Events(timer));
    Ok(StartReplayOutput {
        replay_arn: arn,
        state: "STARTING".into(),
        replay_start_time: epoch_seconds(now),
    })
}

/// A replay's next step (see the module's notes on pacing).
pub(super) fn step(e: &mut State, replay_arn: &str) {
    let now = e.now();
    let Some(replay) = e.events.replays.get_mut(replay_arn) else {
        return;
    };
    let finish = |replay: &mut Replay, state: &str| {
        replay.state = state.into();
        replay.ended_at = Some(now);
        replay.pending.clear();
    };
    match replay.state.as_str() {
        "STARTING" => replay.state = "RUNNING".into(),
        "CANCELLING" => return finish(replay, "CANCELLED"),
        "RUNNING" => {
            if !e.events.buses.contains_key(&replay.destination_arn) {
                let bus = arn_name(&replay.destination_arn).to_string();
                replay.state_reason = Some(format!("Event bus {bus} does not exist."));
                return finish(replay, "FAILED");
            }
            let slice = next_slice(&mut replay.pending, replay.event_start);
            if let Some(last) = slice.last() {
                replay.last_replayed = Some(last.time);
            }
            let done = replay.pending.is_empty();
            if done {
                finish(replay, "COMPLETED");
            }
            let name = replay.name.clone();
            let bus_arn = replay.destination_arn.clone();
            let filter = replay.filter_arns.clone();
            let only = (!filter.is_empty()).then_some(filter.as_slice());
            for archived in slice {
                let event = with_replay_name(&archived.event, &name);
                let how = Ingest {
                    replay: Some((&name, only)),
                    trail: vec![bus_arn.clone()],
                };
                ingest(e, &bus_arn, event, how);
            }
            if done {
                return;
            }
        }
        _ => return,
    }
    let timer = Timer::Replay {
        replay_arn: replay_arn.to_string(),
    };
    e.schedule(now + STEP_MS, Step::Events(timer));
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct ReplayNameInput {
    pub replay_name: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct DescribeReplayOutput {
    pub replay_name: String,
    pub replay_arn: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_reason: Option<String>,
    pub event_source_arn: String,
    pub destination: ReplayDestination,
    #[serde(flatten)]
    pub times: ReplayTimes,
}

/// A replay's times, the last members of both DescribeReplay's answer and a ListReplays entry.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct ReplayTimes {
    pub event_start_time: Value,
    pub event_end_time: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_last_replayed_time: Option<Value>,
    pub replay_start_time: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_end_time: Option<Value>,
}

impl ReplayTimes {
    fn of(r: &Replay) -> ReplayTimes {
        ReplayTimes {
            event_start_time: epoch_seconds(r.event_start),
            event_end_time: epoch_seconds(r.event_end),
            event_last_replayed_time: r.last_replayed.map(epoch_seconds),
            replay_start_time: epoch_seconds(r.started_at),
            replay_end_time: r.ended_at.map(epoch_seconds),
        }
    }
}

fn replay_of<'e>(
    e: &'e mut State,
    cx: &Context,
    name: &str,
) -> Result<&'e mut Replay, EventsError> {
    check_name(name, "replayName", 64, NAME_PATTERN, name_char)?;
    e.events
        .replays
        .get_mut(&replay_arn(cx, name))
        .ok_or_else(|| replay_not_found(name))
}

pub(in crate::services::events) fn describe_replay(
    e: &mut State,
    cx: &Context,
    input: ReplayNameInput,
) -> Result<DescribeReplayOutput, EventsError> {
    let r = replay_of(e, cx, &input.replay_name)?;
    Ok(DescribeReplayOutput {
        replay_name: r.name.clone(),
        replay_arn: r.arn.clone(),
        description: r.description.clone(),
        state: r.state.clone(),
        state_reason: r.state_reason.clone(),
        event_source_arn: r.archive_arn.clone(),
        destination: ReplayDestination {
            arn: r.destination_arn.clone(),
            filter_arns: r.filter_arns.clone(),
        },
        times: ReplayTimes::of(r),
    })
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct CancelReplayOutput {
    pub replay_arn: String,
    pub state: String,
}

pub(in crate::services::events) fn cancel_replay(
    e: &mut State,
    cx: &Context,
    input: ReplayNameInput,
) -> Result<CancelReplayOutput, EventsError> {
    let r = replay_of(e, cx, &input.replay_name)?;
    if !matches!(r.state.as_str(), "STARTING" | "RUNNING") {
        // AWS documents the rule (IllegalStatusException) but not the message.
        return Err(EventsError::IllegalStatus(format!(
            "Replay {} can be canceled only when its state is STARTING or RUNNING; it is {}.",
            r.name, r.state
        )));
    }
    r.state = "CANCELLING".into();
    Ok(CancelReplayOutput {
        replay_arn: r.arn.clone(),
        state: r.state.clone(),
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct ListReplaysInput {
    pub name_prefix: Option<String>,
    pub state: Option<String>,
    pub event_source_arn: Option<String>,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct ReplaySummary {
    pub replay_name: String,
    pub event_source_arn: String,
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_reason: Option<String>,
    #[serde(flatten)]
    pub times: ReplayTimes,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::services::events) struct ListReplaysOutput {
    pub replays: Vec<ReplaySummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub(in crate::services::events) fn list_replays(
    e: &mut State,
    cx: &Context,
    input: ListReplaysInput,
) -> Result<ListReplaysOutput, EventsError> {
    check_enum(&input.state, REPLAY_STATES)?;
    let prefix = input.name_prefix.unwrap_or_default();
    let mut replays: Vec<(String, ReplaySummary)> = e
        .events
        .replays
        .values()
        .filter(|r| cx.owns(&r.account, &r.region))
        .filter(|r| r.name.starts_with(&prefix))
        .filter(|r| input.state.as_ref().is_none_or(|s| *s == r.state))
        .filter(|r| {
            input
                .event_source_arn
                .as_ref()
                .is_none_or(|s| *s == r.archive_arn)
        })
        .map(|r| {
            let summary = ReplaySummary {
                replay_name: r.name.clone(),
                event_source_arn: r.archive_arn.clone(),
                state: r.state.clone(),
                state_reason: r.state_reason.clone(),
                times: ReplayTimes::of(r),
            };
            (r.name.clone(), summary)
        })
        .collect();
    replays.sort_by(|a, b| a.0.cmp(&b.0));
    let (replays, next_token) = page(replays, input.next_token.as_deref(), input.limit)?;
    Ok(ListReplaysOutput {
        replays,
        next_token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn archived(time: Millis) -> ArchivedEvent {
        ArchivedEvent {
            ingested_at: 0,
            time,
            event: json!({"time": time}),
            size: 1,
        }
    }

    #[test]
    fn slices_are_minutes_of_event_time_counted_from_the_start() {
        let start = 1_000_000;
        for (time, end) in [
            (start, start + 60_000),
            (start + 59_999, start + 60_000),
            (start + 60_000, start + 120_000),
            (start + 185_000, start + 240_000),
        ] {
            assert_eq!(slice_end(start, time), end, "{time}");
        }
    }

    #[test]
    fn each_step_takes_the_next_slice_that_has_events() {
        let start = 0;
        let mut pending: VecDeque<ArchivedEvent> = [10_000, 50_000, 60_000, 250_000, 299_999]
            .into_iter()
            .map(archived)
            .collect();
        let times = |slice: Vec<ArchivedEvent>| slice.iter().map(|e| e.time).collect::<Vec<_>>();
        assert_eq!(times(next_slice(&mut pending, start)), [10_000, 50_000]);
        assert_eq!(times(next_slice(&mut pending, start)), [60_000]);
        // Minutes 2 and 3 are empty: skipped.
        assert_eq!(times(next_slice(&mut pending, start)), [250_000, 299_999]);
        assert!(next_slice(&mut pending, start).is_empty());
    }

    #[test]
    fn a_window_holds_its_start_not_its_end_in_event_time_order() {
        let times = [5_000, 1_000, 9_000, 3_000, 0, 1_000];
        let pairs: Vec<(Millis, Millis)> = times.iter().map(|&t| (t, 0)).collect();
        let archive = super::super::tests::archive_with(&pairs);
        let picked: Vec<Millis> = window(&archive, 1_000, 9_000)
            .iter()
            .map(|e| e.time)
            .collect();
        assert_eq!(picked, [1_000, 1_000, 3_000, 5_000]);
    }
}
