//! Message move tasks: StartMessageMoveTask, ListMessageMoveTasks, CancelMessageMoveTask, and
//! the steps a running task takes on the virtual clock.
//! A task moves visible messages out of a dead-letter queue, back to their source queues or to a
//! destination, paced by MaxNumberOfMessagesPerSecond on the virtual clock (one step a second);
//! without a rate it moves everything visible in one step. Messages in flight when it starts move
//! once visible again. Moved messages are new messages, as in SQS.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::shapes::*;
use super::store::{Message, MoveTask, Queue, QueueKey, Store, TaskStatus};
use super::{Context, SqsError};
use crate::engine::rng::Rng;
use crate::engine::time::Millis;
use crate::state::{State, Step};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use std::collections::BTreeMap;

/// A task runs for at most 36 hours.
const MAX_TASK_MS: Millis = 36 * 3600 * 1000;

fn not_found(what: &str) -> SqsError {
    SqsError::ResourceNotFoundException(format!(
        "The resource that you specified for the {what} parameter doesn't exist."
    ))
}

pub fn start_message_move_task(
    e: &mut State,
    _cx: &Context,
    input: StartMessageMoveTaskInput,
) -> Result<TaskHandleOutput, SqsError> {
    let now = e.now();
    let source = e
        .sqs
        .by_arn(&input.source_arn)
        .ok_or_else(|| not_found("SourceArn"))?;
    let is_dlq = e.sqs.queues.values().any(|q| {
        q.attributes
            .redrive
            .as_ref()
            .is_some_and(|(p, _)| p.dead_letter_target_arn == input.source_arn)
    });
    if !is_dlq {
        return Err(SqsError::InvalidParameterValue(
            "Source queue must be configured as a Dead Letter Queue.".into(),
        ));
    }
    if let Some(dest) = &input.destination_arn {
        let dest = e
            .sqs
            .by_arn(dest)
            .ok_or_else(|| not_found("DestinationArn"))?;
        if dest.is_fifo() != source.is_fifo() {
            return Err(SqsError::InvalidParameterValue(
                "The source queue and the destination queue must be of the same type.".into(),
            ));
        }
    }
    if let Some(rate) = input
        .max_number_of_messages_per_second
        .filter(|r| !(1..=500).contains(r))
    {
        return Err(SqsError::InvalidParameterValue(format!(
            "Value {rate} for parameter MaxNumberOfMessagesPerSecond is invalid. Reason: Must be between 1 and 500."
        )));
    }
    if e.sqs
        .tasks
        .iter()
        .any(|t| t.source_arn == input.source_arn && t.status == TaskStatus::Running)
    {
        return Err(SqsError::InvalidParameterValue(
            "There is already a task running. Only one active task is allowed for a source queue arn at a given time.".into(),
        ));
    }
    // Every message in the queue now, in flight or not: in-flight ones move once visible again.
    let (visible, in_flight, delayed) = source.counts(now);
    let to_move = (visible + in_flight + delayed) as u64;
    let id = e.sqs.tasks.len() as u64 + 1;
    let handle = B64.encode(format!(
        "{{\"taskId\":\"{}\",\"sourceArn\":\"{}\"}}",
        e.engine.rng.uuid(),
        input.source_arn
    ));
    e.sqs.tasks.push(MoveTask {
        id,
        handle: handle.clone(),
        source_arn: input.source_arn,
        destination_arn: input.destination_arn,
        rate: input.max_number_of_messages_per_second,
        status: TaskStatus::Running,
        moved: 0,
        to_move,
        started_at: now,
        failure: None,
    });
    e.schedule(now, Step::SqsMoveTask(id));
    Ok(TaskHandleOutput {
        task_handle: handle,
    })
}

/// One step of task `id`, scheduling the next if one is due; long polls on the queues that
/// received messages look again.
pub fn step(e: &mut State, id: u64) {
    let now = e.now();
    let mut woken = Vec::new();
    let next = step_store(&mut e.sqs, &mut e.engine.rng, id, now, &mut woken);
    for arn in woken {
        e.wake_waiters(&arn);
    }
    if let Some(next) = next {
        e.schedule(next, Step::SqsMoveTask(id));
    }
}

/// One step of task `id` at `now` on `store`; answers when the next step is due, if any.
fn step_store(
    store: &mut Store,
    rng: &mut Rng,
    id: u64,
    now: Millis,
    woken: &mut Vec<String>,
) -> Option<Millis> {
    // The task and the queues apart: the task is found once and changed in place while its
    // messages move between the queues.
    let Store { queues, tasks, .. } = store;
    let task = tasks
        .iter_mut()
        .find(|t| t.id == id && t.status == TaskStatus::Running)?;
    let left = task.to_move.saturating_sub(task.moved) as usize;
    let batch = task.rate.map_or(left, |r| (r as usize).min(left));
    let Some(source) = by_arn_mut(queues, &task.source_arn) else {
        return queue_gone(task);
    };
    let taken = source.take_visible(now, batch);
    let mut moved = 0u64;
    let mut failed: Vec<Message> = Vec::new();
    for m in taken {
        let dest = task
            .destination_arn
            .clone()
            .or_else(|| m.dead_letter_source_arn.as_deref().map(str::to_string));
        match dest.as_deref().and_then(|d| by_arn_mut(queues, d)) {
            Some(queue) if failed.is_empty() => {
                let mut fresh = m;
                fresh.id = rng.uuid().into();
                fresh.sent_at = now;
                fresh.dead_letter_source_arn = None;
                queue.take_moved(fresh, now);
                if !woken.contains(&queue.arn) {
                    woken.push(queue.arn.clone());
                }
                moved += 1;
            }
            _ => failed.push(m),
        }
    }
    task.moved += moved;
    let done = task.moved >= task.to_move;
    if !failed.is_empty() {
        if let Some(source) = by_arn_mut(queues, &task.source_arn) {
            source.put_back(failed);
        }
        return queue_gone(task);
    }
    let source_empty = QueueKey::from_arn(&task.source_arn)
        .and_then(|k| queues.get(&k))
        .is_none_or(|q| q.counts(now) == (0, 0, 0));
    if done || source_empty || now - task.started_at >= MAX_TASK_MS {
        finish(task, TaskStatus::Completed, None);
        return None;
    }
    Some(now + 1000)
}

/// The queue of `arn` among `queues` ([`Store::by_arn_mut`] on the queues alone).
fn by_arn_mut<'q>(queues: &'q mut BTreeMap<QueueKey, Queue>, arn: &str) -> Option<&'q mut Queue> {
    queues.get_mut(&QueueKey::from_arn(arn)?)
}

/// Ends `task` failed because its source or a destination queue no longer exists: the task
/// takes no further step.
fn queue_gone(task: &mut MoveTask) -> Option<Millis> {
    finish(
        task,
        TaskStatus::Failed,
        Some("AWS.SimpleQueueService.NonExistentQueue"),
    );
    None
}

fn finish(task: &mut MoveTask, status: TaskStatus, failure: Option<&str>) {
    task.status = status;
    task.failure = failure.map(str::to_string);
}

fn task_by_handle<'s>(
    store: &'s mut Store,
    handle: &str,
) -> Result<&'s mut crate::services::sqs::moves::MoveTask, SqsError> {
    let decoded = B64
        .decode(handle)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
    let Some(decoded) = decoded.filter(|d| d.get("taskId").is_some()) else {
        return Err(SqsError::InvalidParameterValue(
            "Value for parameter TaskHandle is invalid.".into(),
        ));
    };
    // The handle names its source queue: one that does not exist is AWS's answer first.
    let source = decoded.get("sourceArn").and_then(|s| s.as_str());
    if source
        .and_then(QueueKey::from_arn)
        .is_none_or(|k| !store.queues.contains_key(&k))
    {
        return Err(not_found("SourceArn"));
    }
    store
        .tasks
        .iter_mut()
        .find(|t| t.handle == handle)
        .ok_or_else(|| SqsError::ResourceNotFoundException("Task does not exist.".into()))
}

pub fn cancel_message_move_task(
    e: &mut State,
    _cx: &Context,
    input: TaskHandleInput,
) -> Result<MovedOutput, SqsError> {
    let task = task_by_handle(&mut e.sqs, &input.task_handle)?;
    if task.status != TaskStatus::Running {
        return Err(SqsError::ResourceNotFoundException(
            "Task does not exist.".into(),
        ));
    }
    task.status = TaskStatus::Cancelled;
    Ok(MovedOutput {
        approximate_number_of_messages_moved: task.moved,
    })
}

pub fn list_message_move_tasks(
    e: &mut State,
    _cx: &Context,
    input: ListMessageMoveTasksInput,
) -> Result<ListMessageMoveTasksOutput, SqsError> {
    if QueueKey::from_arn(&input.source_arn).is_none_or(|k| !e.sqs.queues.contains_key(&k)) {
        return Err(not_found("SourceArn"));
    }
    let max = input.max_results.unwrap_or(1);
    if !(1..=10).contains(&max) {
        return Err(SqsError::InvalidParameterValue(format!(
            "Value {max} for parameter MaxResults is invalid. Reason: You must enter a number that's between 1 and 10."
        )));
    }
    let results = e
        .sqs
        .tasks
        .iter()
        .rev()
        .filter(|t| t.source_arn == input.source_arn)
        .take(max as usize)
        .map(|t| MoveTaskEntry {
            task_handle: (t.status == TaskStatus::Running).then(|| t.handle.clone()),
            status: t.status.name(),
            source_arn: t.source_arn.clone(),
            destination_arn: t.destination_arn.clone(),
            max_number_of_messages_per_second: t.rate,
            approximate_number_of_messages_moved: t.moved,
            approximate_number_of_messages_to_move: t.to_move,
            failure_reason: t.failure.clone(),
            started_timestamp: t.started_at,
        })
        .collect();
    Ok(ListMessageMoveTasksOutput { results })
}
