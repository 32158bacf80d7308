//! Operations as the runtime runs them: most are one synchronous call under the lock
//! ([`State::call`]); the few that wait or need I/O are driven from here, their waiting and I/O
//! outside the lock: ReceiveMessage's long poll, the signatures of an SNS publish made ahead, and
//! the OAuth token requests of EventBridge connections.
//! It must not depend on the protocols or the server.

use super::Runtime;
use crate::clock::Clock;
use crate::error::AwsError;
use crate::services::sqs::messages::{Wait, check_receive, receive_or_wait};
use crate::services::sqs::shapes::{ReceiveMessageInput, ReceiveMessageOutput};
use crate::services::{Context, ServiceId, events, parse, sns, sqs};
use crate::state::State;
use serde_json::Value;
use std::time::Duration;

/// Runs `operation` of `service`.
pub async fn call(
    rt: &Runtime,
    cx: &Context,
    service: ServiceId,
    operation: &str,
    input: Value,
) -> Result<Value, AwsError> {
    match (service, operation) {
        (ServiceId::Sqs, "ReceiveMessage") => {
            let output = receive_message(rt, cx, parse(input)?).await?;
            encode(output)
        }
        (ServiceId::Sns, "Publish") => publish(rt, cx, parse(input)?).await,
        (ServiceId::Sns, "PublishBatch") => publish_batch(rt, cx, parse(input)?).await,
        _ => {
            let (output, tokens) = {
                let mut state = rt.state();
                let output = state.call(cx, service, operation, input);
                (output, std::mem::take(&mut state.events.token_requests))
            };
            for request in tokens {
                let answer = rt
                    .exchange(
                        &request.method,
                        &request.url,
                        request.headers.clone(),
                        request.body.clone(),
                    )
                    .await;
                events::connections::token_answered(&mut rt.state(), &request, answer);
            }
            output
        }
    }
}

fn encode(output: impl serde::Serialize) -> Result<Value, AwsError> {
    serde_json::to_value(output).map_err(|e| AwsError::internal(format!("encoding output: {e}")))
}

/// ReceiveMessage, long polling included: waits until a message is visible, the virtual
/// deadline passes, or the wait's wall-clock duration runs out, whichever comes first.
async fn receive_message(
    rt: &Runtime,
    cx: &Context,
    input: ReceiveMessageInput,
) -> Result<ReceiveMessageOutput, AwsError> {
    let (key, max) = check_receive(cx, &input)?;
    let stopwatch = Clock::stopwatch();
    let mut wait: Option<Wait> = None;
    loop {
        let (notified, wall) = {
            let mut state = rt.state();
            sqs::access::authorize_queue(&state, cx, "ReceiveMessage", &input.queue_url)?;
            let received = receive_or_wait(&mut state, &key, &input, max, &mut wait);
            state.settle();
            if let Some(output) = received? {
                return Ok(output);
            }
            let wall = wait.map_or(0, |w| w.wall_seconds);
            let mut notified = Box::pin(rt.waiter(&key.arn()).notified_owned());
            notified.as_mut().enable();
            (
                notified,
                Duration::from_secs(u64::try_from(wall).unwrap_or(0)),
            )
        };
        let left = wall.saturating_sub(stopwatch.elapsed());
        let woken = tokio::select! {
            woken = Clock::within(left, notified) => woken.is_some(),
            _ = rt.closed() => false,
        };
        if !woken {
            return Ok(ReceiveMessageOutput::default());
        }
    }
}

/// Publish: the notifications of a publish to a standard topic are signed ahead, off the lock
/// (RSA takes a fraction of a millisecond; under the lock it would hold up every other request).
async fn publish(
    rt: &Runtime,
    cx: &Context,
    input: sns::shapes::PublishInput,
) -> Result<Value, AwsError> {
    let prepared = sns::publish::prepare(&mut rt.state(), &input);
    let prepared = match prepared {
        Some((prepared, signs)) => {
            sign_ahead(signs).await;
            Some(prepared)
        }
        None => None,
    };
    let mut state = rt.state();
    let output = sns::publish::publish(&mut state, cx, input, prepared);
    State::settle(&mut state);
    encode(output?)
}

/// PublishBatch: as Publish, each entry's notifications signed ahead.
async fn publish_batch(
    rt: &Runtime,
    cx: &Context,
    input: sns::shapes::PublishBatchInput,
) -> Result<Value, AwsError> {
    let prepared = sns::publish::prepare_batch(&mut rt.state(), &input);
    let (prepared, signs): (Vec<_>, Vec<_>) = prepared
        .into_iter()
        .map(|p| p.map_or((None, Vec::new()), |(p, s)| (Some(p), s)))
        .unzip();
    sign_ahead(signs.into_iter().flatten().collect()).await;
    let mut state = rt.state();
    let output = sns::publish::publish_batch(&mut state, cx, input, prepared);
    State::settle(&mut state);
    encode(output?)
}

/// Makes the signatures on tokio's blocking pool, one task each, so that they spread over the
/// cores (a batch's as well as those of concurrent requests); the signer keeps them.
async fn sign_ahead(signs: Vec<sns::publish::SignAhead>) {
    let tasks: Vec<_> = signs
        .into_iter()
        .map(|sign| tokio::task::spawn_blocking(move || sns::publish::sign_ahead(sign)))
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}
